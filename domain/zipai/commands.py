"""What a seat may send. ``seat`` is filled in by the server from the caller's token."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BiGroup:
    """Three hand card ids laid down as one 比牌 列 beside a 吃."""

    cards: tuple[int, ...]


@dataclass(frozen=True)
class Discard:
    """Play (打) one hand card face up; the other seats may then claim it."""

    seat: int
    card: int  # card id from the seat's hand


@dataclass(frozen=True)
class Chi:
    """Eat (吃) the shown card: two hand cards form a 列 with it; ``bi`` are the compulsory
    比牌 列 that clear every remaining copy of the eaten card from the hand."""

    seat: int
    cards: tuple[int, ...]  # the two hand card ids completing the 列 with the shown card
    bi: tuple[BiGroup, ...] = ()


@dataclass(frozen=True)
class Peng:
    """Pong (碰) the shown card with a pair from the hand."""

    seat: int


@dataclass(frozen=True)
class Zhao:
    """Kong (招) the shown card onto a 坎 (three alike) in the hand, all four face up."""

    seat: int


@dataclass(frozen=True)
class Long:
    """Lay down a 拢 (four alike): one's own flipped card with a 坎, or the dealer's 21st card
    when it was offered as 胡-or-拢 (泸州)."""

    seat: int


@dataclass(frozen=True)
class Hu:
    """Win (胡) on the shown card, or on the hand as it stands when 胡 is offered."""

    seat: int


@dataclass(frozen=True)
class PassClaim:
    """Pass (过) on the shown card, or decline an offered 胡 (三拢)."""

    seat: int


@dataclass(frozen=True)
class DeclareBao:
    """Declare 爆 (a ready hand from the deal): no more 吃 or 碰; 招 without discarding."""

    seat: int


@dataclass(frozen=True)
class DeclineBao:
    """Decline the 爆 offered for a ready hand."""

    seat: int


COMMAND_TYPES: tuple[type, ...] = (
    Discard,
    Chi,
    Peng,
    Zhao,
    Long,
    Hu,
    PassClaim,
    DeclareBao,
    DeclineBao,
)
