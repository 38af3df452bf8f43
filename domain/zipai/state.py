"""The state of one hand (frozen; ``evolve`` builds a new one for every fact)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from domain.zipai.commands import BiGroup
from domain.zipai.events import ClaimKind, PromptKind, WinKind
from domain.zipai.melds import Meld, MeldKind
from domain.zipai.options import Options


class Phase(enum.Enum):
    """Where the hand stands."""

    DEALING = 1  # before the deal
    OPENING = 2  # 拢 and 补张 at the deal (automatic)
    PROMPT_HU = 3  # one seat is offered 胡 at the deal (三拢, or 泸州 21st card)
    BAO = 4  # seats are offered 爆
    DISCARD = 5  # ``turn`` must discard
    SHOWN = 6  # a card is face up; its claim window opens next (automatic)
    CLAIM = 7  # the claim window on the shown card is open
    FLIP = 8  # ``turn`` flips the next stock card (automatic)
    OVER = 9


@dataclass(frozen=True)
class SeatState:
    """One seat's cards and memory."""

    seat: int
    active: bool = True  # False for the seat sitting the hand out (four players)
    hand: tuple[int, ...] = ()  # sorted card ids
    melds: tuple[Meld, ...] = ()
    discards: tuple[int, ...] = ()  # cards left in front of the seat (played or flipped)
    bao: bool = False
    replacements: int = 0  # 补张 drawn for 拢 at the deal
    san_long_offered: bool = False
    guo_zhang: tuple[int, ...] = ()  # 过张: kinds the seat could eat and passed up
    played: tuple[int, ...] = ()  # kinds the seat discarded (or flipped and left): never eaten
    guo_hu_fan: int | None = None  # 过张升番胡: highest fan of a 胡 passed up

    @property
    def long_zhao_count(self) -> int:
        """How many 拢 and 招 the seat has (two or more is 八块)."""
        return sum(1 for m in self.melds if m.kind in (MeldKind.LONG, MeldKind.ZHAO))

    @property
    def long_count(self) -> int:
        return sum(1 for m in self.melds if m.kind is MeldKind.LONG)


@dataclass(frozen=True)
class PendingClaim:
    """A claim recorded in the open window, not yet resolved."""

    seat: int
    kind: ClaimKind
    cards: tuple[int, ...] = ()
    bi: tuple[BiGroup, ...] = ()


@dataclass(frozen=True)
class State:
    options: Options
    seat_count: int
    seed: int
    deck: tuple[int, ...]  # the shuffled deck as dealt (audit; never shown to seats)
    stock: tuple[int, ...] = ()  # undealt cards; the next card is stock[0]
    dealer: int = 0
    seats: tuple[SeatState, ...] = ()
    phase: Phase = Phase.DEALING
    prompt: PromptKind | None = None
    turn: int = 0  # the seat to discard, or to flip next
    shown: int | None = None  # the card face up awaiting claims
    shown_by: int = 0
    shown_flipped: bool = False
    pending: tuple[int, ...] = ()  # seats still to answer the prompt
    claims: tuple[PendingClaim, ...] = ()
    bao_round: int = 0  # 1 after the non-dealers were offered 爆, 2 after the dealer
    dealer_card: int | None = None  # the dealer's 21st card, once drawn
    hu_or_long_offered: bool = False
    winner: int | None = None
    win_kind: WinKind | None = None
    scores: tuple[int, ...] = ()
    huang_zhuang: bool = False
