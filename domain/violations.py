"""The seed's violation and penalty vocabulary, and what a game implements for penalties.

Ground floor (beside ``engine.py``): a game names the violations its refusals are and turns
a :class:`Penalty` into its own facts through :class:`PenaltyRules`; it never sees the table
or its justice. The table's justice (``domain/table/justice``) decides which penalty applies.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable


class ViolationKind(enum.Enum):
    """The seed's violation kinds (四、1)."""

    TIMEOUT = 1  # 出牌超时
    WRONG_DECLARATION = 2  # 错误宣告特效
    ILLEGAL_COMBO = 3  # 非法组合
    SEASON_RULE = 4  # 未宣告或遵守季节规则
    DISCARD_ORDER = 5  # 弃牌违规
    OTHER = 6  # 其他违规行为 (cheating, stalling, disturbing)
    REPEATED_MISPLAY = 7  # a second 误操作 (每局仅有一次)


class PenaltyKind(enum.Enum):
    WARNING = 1  # 警告
    DRAW = 2  # 摸 N 张
    DISCARD_AND_DRAW = 3  # 弃掉违规牌组中的所有牌，并摸 N 张
    NO_WU_NEXT_TURN = 4  # 下回合不可进行「舞」
    FORCED_DISCARD = 5  # 强制按正确顺序弃 N 张
    OPEN_HAND = 6  # 公开手牌1回合
    FORFEIT = 7  # 判负


@dataclass(frozen=True)
class Penalty:
    kind: PenaltyKind
    count: int = 0  # cards to draw or discard
    cards: tuple[int, ...] = ()  # the violating cards (DISCARD_AND_DRAW)


@runtime_checkable
class PenaltyRules(Protocol):
    """What a game implements for its penalties to touch the cards."""

    def penalty_facts(self, state: Any, seat: int, penalty: Penalty) -> list[Any]:
        """The game's facts executing ``penalty`` on ``seat`` (must not raise for the kinds
        the game supports; raise RuleViolation PENALTY_NOT_SUPPORTED for others)."""

    def timeout_facts(self, state: Any, seat: int) -> list[Any]:
        """What happens to the turn of a seat that timed out, after its penalty."""

    def violation_of(
        self, state: Any, command: Any, error: Any
    ) -> tuple[ViolationKind, tuple[int, ...]] | None:
        """Which of the seed's violations a refused command is, and the cards it involves;
        None for protocol problems (not your turn, cards not held, malformed), which are
        refused in every enforcement mode."""

    def penalised_turn_facts(self, state: Any, seat: int) -> list[Any]:
        """REFEREE: what becomes of the turn after an attempt was penalised."""

    def deck_of(self, state: Any) -> tuple[int, ...]:
        """The unseen cards still to be drawn, in order (an upheld appeal reshuffles them)."""

    def with_deck(self, state: Any, deck: tuple[int, ...]) -> Any:
        """``state`` with its unseen cards in the order ``deck`` (a permutation of them)."""

    def play_as_attempt(self, state: Any, command: Any) -> list[Any]:
        """PLAYERS: the facts of ``command`` as played, though the rules forbid it (only for
        commands ``violation_of`` classifies); a later report can penalise it."""
