"""The game state: a frozen dataclass of tuples, equality-comparable and codec-encodable.

Zones (the cards are conserved across them): ``deck`` (top first, hidden), ``hands``,
``played`` (the table, face up), ``discarded`` (face up), ``pool`` and ``showdown`` (only
during the 花鸟风月大对决 at the very end).
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.huaniao.cards import CardClass
from domain.huaniao.events import ShowdownHand
from domain.huaniao.options import Combo, Options
from domain.huaniao.terms import Need, Phase, PlayKind, Season, Verse


@dataclass(frozen=True)
class Hand:
    """A seat's cards (ids, sorted)."""

    cards: tuple[int, ...]


@dataclass(frozen=True)
class PendingDiscard:
    seat: int
    count: int


@dataclass(frozen=True)
class PendingGuess:
    seat: int
    card_class: CardClass | None  # None: the seat passed


@dataclass(frozen=True)
class Recital:
    """A verse ``seat`` recited after the song ended (once per seat and verse)."""

    seat: int
    verse: Verse


@dataclass(frozen=True)
class SeatSeasons:
    """Personal seasons: 风花雪月 (``override`` until round ``override_until``) and 万紫千红
    (``extra`` beside ``extra_with``, the season it was played in, in round ``extra_until``)."""

    override: Season | None = None
    override_until: int = -1
    extra: Season | None = None
    extra_until: int = -1
    extra_with: Season | None = None


@dataclass(frozen=True)
class LastPlay:
    """The most recent play on the table (public)."""

    seat: int
    cards: tuple[int, ...]
    kind: PlayKind
    count: int
    combo: Combo | None


@dataclass(frozen=True)
class HuaniaoState:
    options: Options
    seat_count: int
    seed: int  # the table's shuffle seed (kept for audit; the game draws from ``chance``)
    chance: int  # the game's generator seed, derived from the deal (rules.chance_seed)
    rng_counter: int  # random draws so far (花鸟风月 exchange, 曲高和寡, 大对决, leader tie)
    deck: tuple[int, ...]
    hands: tuple[Hand, ...]
    played: tuple[int, ...] = ()
    discarded: tuple[int, ...] = ()
    phase: Phase = Phase.DEALING
    turn: int = 0
    leader: int = 0
    need: Need = Need.OPENING
    reference: int = 0  # the count the next 吟/诵 answers
    last_play: LastPlay | None = None
    verse_due: bool = True  # the opening verse is still owed (简化流程: first play only)
    consecutive_perches: int = 0
    extra_actions: int = 0  # 繁花似锦: actions left in the current turn
    turns_taken: tuple[int, ...] = ()
    turn_in_round: int = 0
    round: int = 1
    season: Season | None = None
    seat_seasons: tuple[SeatSeasons, ...] = ()
    season_change_by: int | None = None
    hand_limit: int | None = None
    dance_ban_at: tuple[int, ...] = ()  # 天上天下: no 舞 while turns_taken == value
    cool_ban_at: tuple[int, ...] = ()  # 凉风有幸: no 花/鸟/风/月 while turns_taken == value
    wu_ban_at: tuple[int, ...] = ()  # 季节规则 penalty: no 舞 while turns_taken == value
    open_hand_until: tuple[int, ...] = ()  # 公开手牌: open while sum(turns_taken) < value
    pending_discards: tuple[PendingDiscard, ...] = ()
    guess_target: int | None = None
    guesses: tuple[PendingGuess, ...] = ()
    guessed_at_one: tuple[bool, ...] = ()  # 曲高和寡 already held for the current one-card hand
    pool: tuple[int, ...] = ()
    showdown: tuple[ShowdownHand, ...] = ()
    showdown_round: int = 0
    winners: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()
    end_reason: str = ""
    recitals: tuple[Recital, ...] = ()
    discard_windows: tuple[int, ...] = ()  # per seat: the size of its latest discard owed
