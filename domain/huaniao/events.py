"""Facts, in the past tense, carrying concrete cards. ``redact`` hides cards per viewer."""

from __future__ import annotations

from dataclasses import dataclass

from domain.huaniao.cards import Card, CardClass
from domain.huaniao.options import Combo
from domain.huaniao.terms import Cause, PlayKind, Season, ShowdownPattern, Verse


@dataclass(frozen=True)
class Dealt:
    """``seat`` was dealt ``count`` cards (``cards`` is empty for viewers who may not see them)."""

    seat: int
    cards: tuple[Card, ...]
    count: int


@dataclass(frozen=True)
class LeaderChosen:
    """``seat`` holds the most birds and opens with one bird. ``tied``: the seats tied for the
    most birds when the leader was drawn among them (``LeaderTie.RANDOM``), else empty."""

    seat: int
    tied: tuple[int, ...] = ()


@dataclass(frozen=True)
class Played:
    """``seat`` played ``cards`` as ``kind``; ``count`` is the play's bird count (0 for 舞)."""

    seat: int
    cards: tuple[Card, ...]
    kind: PlayKind
    count: int
    combo: Combo | None = None
    target: int | None = None
    announce: int | None = None
    verse: str | None = None
    season: Season | None = None
    chosen_season: Season | None = None


@dataclass(frozen=True)
class Perched:
    """``seat`` 栖: could not 吟, 诵 or 舞."""

    seat: int


@dataclass(frozen=True)
class Drew:
    """``seat`` drew ``count`` cards from the deck (``cards`` empty if hidden from the viewer).

    ``shown``: the seat's hand was open (公开手牌, a penalty), so everyone sees the cards."""

    seat: int
    cards: tuple[Card, ...]
    count: int
    cause: Cause
    shown: bool = False


@dataclass(frozen=True)
class DiscardRequired:
    """``seat`` must discard ``count`` cards (draw first, discard after: 先摸牌，后弃牌)."""

    seat: int
    count: int
    causes: tuple[Cause, ...]


@dataclass(frozen=True)
class Discarded:
    """``seat`` discarded ``cards`` face up."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class HandLimitChanged:
    """The hand limit moved by ``delta`` to ``limit`` (动态手牌上限, 4..12)."""

    limit: int
    delta: int
    combo: Combo


@dataclass(frozen=True)
class Transfer:
    """One card moving between hands; ``card`` is None for viewers who are neither side,
    unless ``shown``: one side's hand was open (公开手牌), so everyone sees the card."""

    from_seat: int
    to_seat: int
    card: Card | None
    shown: bool = False


@dataclass(frozen=True)
class CardsExchanged:
    """花鸟风月: every seat passed one random card to its 下家."""

    transfers: tuple[Transfer, ...]


@dataclass(frozen=True)
class PlayRestarted:
    """白昼规则3: every seat 栖 in a row; ``seat`` (the last to 栖) opens again with a bird."""

    seat: int


@dataclass(frozen=True)
class GuessingOpened:
    """曲高和寡: ``seat`` holds one card; the other seats guess its class."""

    seat: int


@dataclass(frozen=True)
class GuessMade:
    """``seat`` answered: guessed ``card_class``, or ``passed`` (guessing is optional). Both are
    hidden (None, False) from viewers other than the guesser until the guesses are revealed."""

    seat: int
    card_class: CardClass | None
    passed: bool = False


@dataclass(frozen=True)
class SeatGuess:
    seat: int
    card_class: CardClass


@dataclass(frozen=True)
class GuessesRevealed:
    """The guesses about ``seat``'s single card, its class, and how many were right;
    ``passed``: the seats that did not guess."""

    seat: int
    card_class: CardClass
    guesses: tuple[SeatGuess, ...]
    correct: int
    passed: tuple[int, ...] = ()


@dataclass(frozen=True)
class CardTaken:
    """A random card taken from another hand because the deck was short: 曲高和寡
    (``LOFTY_TUNE``), or the forced-discard penalty's 补足 from the fullest hand (``PENALTY``)."""

    transfer: Transfer
    cause: Cause = Cause.LOFTY_TUNE


@dataclass(frozen=True)
class SeasonChanged:
    """换季, declared by ``seat`` which closed the round; ``season`` is the new season."""

    seat: int
    season: Season
    round: int


@dataclass(frozen=True)
class SongEnded:
    """一曲终了: a hand was played out or a seat had to 栖 with the deck exhausted."""

    reason: str  # "HAND_EMPTIED" or "DECK_EXHAUSTED"
    verse: str


@dataclass(frozen=True)
class HandsRecovered:
    """花鸟风月大对决: all hands were taken back to form the showdown pool."""

    cards: tuple[Card, ...]


@dataclass(frozen=True)
class ShowdownHand:
    seat: int
    cards: tuple[Card, ...]
    pattern: ShowdownPattern
    score: int  # this hand's card score
    total: int  # all showdown hands' scores so far


@dataclass(frozen=True)
class ShowdownDealt:
    """One 大对决 round: four cards to each contender, opened at once.

    ``refilled``: the pool was too small, so discards and played cards were shuffled back in.
    ``chant``: what every seat calls before the cards open (所有玩家需要喊…以后开牌, p2:92-93):
    「天上天下，花鳥風月之雀舞」 in the first round, 「雀舞」 after it. A seat may record that it
    called it (``Recite``, after the game).
    """

    round: int
    hands: tuple[ShowdownHand, ...]
    refilled: bool
    chant: str = ""


@dataclass(frozen=True)
class GameEnded:
    """The result: ``scores`` are the hand scores at 一曲终了 (lower is better)."""

    winners: tuple[int, ...]
    scores: tuple[int, ...]
    reason: str  # EMPTIED_HAND, LOWEST_SCORE, TIE_BREAK, SHOWDOWN


# --- penalties (四、违规与仲裁; domain/huaniao/penalties.py) ------------------------------------


@dataclass(frozen=True)
class PenaltyDiscarded:
    """A penalty discarded ``cards`` of ``seat`` face up: from its hand, or (``from_table``) the
    cards of its forbidden play from the table. An owed discard is not settled by it."""

    seat: int
    cards: tuple[Card, ...]
    from_table: bool


@dataclass(frozen=True)
class DanceBanned:
    """未宣告或遵守季节规则: ``seat`` may not 舞 (function cards, special combos) on its turn
    number ``turn`` (its next turn)."""

    seat: int
    turn: int


@dataclass(frozen=True)
class HandOpened:
    """公开手牌1回合: ``seat``'s hand (``cards``) is open to every seat and spectator for the
    next ``turns`` turns at the table (one round); the cards it draws meanwhile are shown."""

    seat: int
    cards: tuple[Card, ...]
    turns: int


@dataclass(frozen=True)
class AttemptPlayed:
    """PLAYERS enforcement: ``seat`` made a play the rules forbid (``reason``), and it stands
    as played until reported: the cards lie on the table and the seat's action is over, but the
    play has no effect and no count (the next seat answers the last legal 吟/诵)."""

    seat: int
    cards: tuple[Card, ...]
    reason: str
    combo: Combo | None = None
    target: int | None = None
    announce: int | None = None
    season: Season | None = None
    chosen_season: Season | None = None


@dataclass(frozen=True)
class GuessingCancelled:
    """曲高和寡 lapsed: a penalty changed ``seat``'s single card before the guesses were
    revealed."""

    seat: int


@dataclass(frozen=True)
class ExtraActionsDeclined:
    """繁花似锦: ``seat`` ended its turn with ``unused`` extra actions left (they are optional)."""

    seat: int
    unused: int


@dataclass(frozen=True)
class Recited:
    """``seat`` recited ``verse`` (its words as sent in ``text``) after the song ended."""

    seat: int
    verse: Verse
    text: str


EVENT_TYPES: tuple[type, ...] = (
    Dealt,
    LeaderChosen,
    Played,
    Perched,
    Drew,
    DiscardRequired,
    Discarded,
    HandLimitChanged,
    CardsExchanged,
    PlayRestarted,
    GuessingOpened,
    GuessMade,
    GuessesRevealed,
    CardTaken,
    SeasonChanged,
    SongEnded,
    HandsRecovered,
    ShowdownDealt,
    GameEnded,
    PenaltyDiscarded,
    DanceBanned,
    HandOpened,
    AttemptPlayed,
    GuessingCancelled,
    ExtraActionsDeclined,
    Recited,
)
