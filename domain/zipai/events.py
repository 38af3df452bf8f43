"""Facts of a hand, in the past tense, with concrete cards.

For a viewer who may not see them, hidden cards are removed from tuples (a ``count`` or
``hidden_size`` field says how many there were) and single hidden cards become None.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from domain.zipai.cards import Card
from domain.zipai.melds import Group, GroupKind


class DrawReason(enum.Enum):
    """Why a card went from the stock into a hand (the only ways a card enters a hand)."""

    REPLACEMENT = 1  # 补张 after two or more 拢 at the deal
    DEALER_21ST = 2  # the dealer's 21st card


class PromptKind(enum.Enum):
    """What the named seats are now asked to decide."""

    CLAIM = 1  # claim (吃/碰/招/拢/胡) or pass on the shown card
    BAO = 2  # declare or decline 爆
    HU_OR_PASS = 3  # three 拢 at the deal make a complete hand: 胡 or play on
    HU_OR_LONG = 4  # 泸州: the dealer's 21st card may 胡 or 拢
    DISCARD = 5  # the dealer discards to open play


class ClaimKind(enum.Enum):
    """A seat's answer in a claim window, by priority 胡 > 拢 > 招 > 碰 > 吃."""

    HU = 1
    LONG = 2
    ZHAO = 3
    PENG = 4
    CHI = 5
    PASS = 6


class WinKind(enum.Enum):
    """How the winning card came."""

    ZI_MO = 1  # 自摸: one's own flip, or a complete hand at the deal
    DIAN_PAO = 2  # 点炮: another seat's discard (that seat pays)
    FAN_PAI = 3  # another seat's flip from the stock (nobody chose to give it: all pay)


@dataclass(frozen=True)
class HandStarted:
    """A hand began: who deals, who plays, how many cards form the stock."""

    dealer: int
    seat_count: int
    seats: tuple[int, ...]  # seats dealt in, in turn order from the dealer
    sitting_out: int | None  # with four players the dealer's opposite sits the hand out
    stock_size: int


@dataclass(frozen=True)
class Dealt:
    """Twenty cards were dealt to ``seat``."""

    seat: int
    cards: tuple[Card, ...]  # empty for viewers who may not see them
    count: int


@dataclass(frozen=True)
class LongLaidDown:
    """A 拢 (four alike) was laid down: one card face up, three face down."""

    seat: int
    face_up: Card  # the card shown face up (all four are of this face)
    hidden: tuple[Card, ...]  # the three face-down cards (empty for other viewers)
    hidden_size: int
    taken: bool  # True when the face-up card is the seat's own flip (拢 during play)
    discard_required: bool  # the seat must now discard (its first 招/拢 during play)


@dataclass(frozen=True)
class CardDrawn:
    """A card went from the stock into ``seat``'s hand."""

    seat: int
    card: Card | None  # None for viewers who may not see it
    reason: DrawReason


@dataclass(frozen=True)
class Prompted:
    """The named seats must now answer ``prompt`` (other viewers only see themselves)."""

    prompt: PromptKind
    seats: tuple[int, ...]


@dataclass(frozen=True)
class BaoDeclared:
    """``seat`` declared 爆: its hand is ready from the deal."""

    seat: int


@dataclass(frozen=True)
class BaoDeclined:
    """``seat`` declined 爆."""

    seat: int


@dataclass(frozen=True)
class CardDiscarded:
    """``seat`` played a card from its hand, face up."""

    seat: int
    card: Card


@dataclass(frozen=True)
class CardFlipped:
    """``seat`` turned the top card of the stock face up (it may not enter the hand)."""

    seat: int
    card: Card
    stock_left: int  # cards left in the stock after this flip


@dataclass(frozen=True)
class Claim:
    """A seat's answer to a claim window, as recorded."""

    kind: ClaimKind
    cards: tuple[Card, ...] = ()  # 吃: the two hand cards
    bi: tuple[Group, ...] = ()  # 吃: the 比牌 列


@dataclass(frozen=True)
class ClaimMade:
    """``seat`` answered the open claim window (details hidden from others until resolved)."""

    seat: int
    claim: Claim | None  # None for viewers other than ``seat``
    guo_zhang: bool  # 过张: the seat could eat the card and passed; it may never eat it again
    guo_hu_fan: int | None  # 过张升番胡: it passed a 胡 worth this many fan


@dataclass(frozen=True)
class Chied:
    """``seat`` ate (吃) the shown card into a 列, with its 比牌 列 beside it."""

    seat: int
    card: Card
    from_seat: int
    group: GroupKind
    cards: tuple[Card, ...]  # the two hand cards
    bi: tuple[Group, ...]


@dataclass(frozen=True)
class Penged:
    """``seat`` ponged (碰) the shown card with a pair from its hand."""

    seat: int
    card: Card
    from_seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class Zhaoed:
    """``seat`` konged (招) the shown card onto its 坎, all four face up."""

    seat: int
    card: Card
    from_seat: int
    cards: tuple[Card, ...]
    discard_required: bool  # False under 八块 (second 招/拢 on) and after 爆


@dataclass(frozen=True)
class NobodyClaimed:
    """Nobody took the shown card; it stays in front of ``seat`` (who played or flipped it)."""

    seat: int
    card: Card
    flipped: bool


@dataclass(frozen=True)
class Hued:
    """``seat`` won (胡). The hand is over; every card is open."""

    seat: int
    card: Card | None  # the winning card (None for a hand complete at the deal)
    from_seat: int | None  # who showed it
    win_kind: WinKind
    hand: tuple[Card, ...]  # the winner's hand cards (the winning card not included)
    groups: tuple[Group, ...]  # how hand and winning card split into 列 (and a pair)
    hu_points: int  # 胡 under the 泸州 table (reported whatever the scoring option)
    fan: int  # fan under the 泸州 profile
    scores: tuple[int, ...]  # per seat


@dataclass(frozen=True)
class HuangZhuang:
    """荒庄: the stock ran out and nobody won."""

    dealer: int
    scores: tuple[int, ...]


EVENT_TYPES: tuple[type, ...] = (
    HandStarted,
    Dealt,
    LongLaidDown,
    CardDrawn,
    Prompted,
    BaoDeclared,
    BaoDeclined,
    CardDiscarded,
    CardFlipped,
    ClaimMade,
    Chied,
    Penged,
    Zhaoed,
    NobodyClaimed,
    Hued,
    HuangZhuang,
)
