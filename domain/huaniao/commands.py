"""What a seat may send. Every command carries ``seat`` (the server fills it from the token)."""

from __future__ import annotations

from dataclasses import dataclass

from domain.huaniao.cards import CardClass
from domain.huaniao.options import Combo
from domain.huaniao.terms import Season


@dataclass(frozen=True)
class Play:
    """吟, 诵 or 舞: put ``cards`` (card ids from the hand) on the table.

    * ``verse`` -- the opening verse 「春来花友会…」, required on the game's first play.
    * ``combo`` -- the special combo the seat declares (雀舞满山 and 风花雪月 card sets are also
      ordinary bird plays, so a combo is only a combo when declared).
    * ``target`` -- the seat 风/月 is aimed at (not oneself); for 凉风有幸 the 下家.
    * ``announce`` -- 天上天下's declared count (1-3) that the next seat answers.
    * ``season`` -- the season the seat declares it is playing in (四季更替 modes).
    * ``chosen_season`` -- the season chosen with 风花雪月 / 万紫千红.
    """

    seat: int
    cards: tuple[int, ...]
    verse: str | None = None
    combo: Combo | None = None
    target: int | None = None
    announce: int | None = None
    season: Season | None = None
    chosen_season: Season | None = None


@dataclass(frozen=True)
class Perch:
    """栖: pass and draw; only allowed when no 吟, 诵 or 舞 is possible."""

    seat: int


@dataclass(frozen=True)
class Discard:
    """Discard ``cards`` to settle a discard the seat owes (风, hand limit, 阳春白雪)."""

    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class Guess:
    """曲高和寡: guess the class of the single card another seat holds."""

    seat: int
    card_class: CardClass


@dataclass(frozen=True)
class ChangeSeason:
    """换季: declared by the seat that closed the round (四季更替 modes)."""

    seat: int


@dataclass(frozen=True)
class EndTurn:
    """繁花似锦: end the turn without the extra actions left (可以: they are optional)."""

    seat: int


@dataclass(frozen=True)
class PassGuess:
    """曲高和寡: do not guess (剩余玩家可以猜: guessing is optional)."""

    seat: int


@dataclass(frozen=True)
class Recite:
    """Record a verse recited once the song has ended: the closing verse 「春來花友常歡會…」
    (一曲终了) or the 大对决's chant 「天上天下，花鳥風月之雀舞」 / 「雀舞」. Ritual: optional,
    once per seat and verse, it changes nothing (refused when the table's verse rule is OFF)."""

    seat: int
    verse: str


COMMAND_TYPES: tuple[type, ...] = (
    Play,
    Perch,
    Discard,
    Guess,
    ChangeSeason,
    EndTurn,
    PassGuess,
    Recite,
)
# Commands a seat may still send once the game is over (the table lets them through).
AFTER_END_COMMAND_TYPES: tuple[type, ...] = (Recite,)
