"""Justice at the table: misplay undo, reports, votes, the arbiter, penalties, appeals.

The seed's chapter 四、违规与仲裁 (huaniao-rules-part2-decoded.txt) read as table facts,
shared by every game kind. What a penalty does to the cards is the game's business: a game
that implements :class:`PenaltyRules` turns a :class:`Penalty` into its own facts; the table
only records, pauses, counts votes and restores.

Readings (docs/rules/huaniao.md, section 四):

* A report pauses the game. Every seat but the accused votes (the reporter's report is its
  vote); a strict majority of those seats decides. An arbiter's ruling settles at once.
  A tie with everyone voted is a deadlock: 重新洗牌发牌, a new deal at the same table, with
  the old game kept in the history.
* A confirmed report applies the penalty the seed gives for its kind; for 其他违规 the
  reporter proposes one of the graded penalties and the vote (or arbiter) confirms it.
* 弃牌违规 (p2:43-45): a warning the first time; each later one forces a discard of as
  many cards as the seat owed at its previous discard violation (上个回合违规时需要丢弃的牌的
  数量), which the table records at every discard violation (the game's ``discard_owed``).
* The penalised seat may appeal until the next game move (「處罰執行後立即提出申訴」). The
  other seats (or the arbiter) review; an upheld appeal revokes the penalty by restoring the
  game exactly as it was before it; a tie keeps the penalty (维持原判).
* Misplay (误操作): the seat that made the last game move may retract it once per game with
  「風過無痕，月照無意」 (or 「且慢」 in simplified play), before anyone else moves, and only if
  the move revealed nothing hidden (no card was drawn): the undone move is then exactly as
  if it had not happened, and nobody learned anything from it.
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


class Enforcement(enum.Enum):
    """How a table enforces the rules (chosen at CreateGame)."""

    REJECT = 1  # a forbidden move is refused and nothing is appended (apps)
    REFEREE = 2  # the server referees: a forbidden combo is taken as the attempt, penalised
    PLAYERS = 3  # honour system: moves stand as played until a player reports them


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


def seed_penalty(kind: ViolationKind, cards: tuple[int, ...], warned: bool) -> Penalty | None:
    """The penalty the seed fixes for a kind; None when the reporter must propose one."""
    if kind is ViolationKind.TIMEOUT:
        return Penalty(PenaltyKind.DRAW, 1)
    if kind is ViolationKind.WRONG_DECLARATION:
        return Penalty(PenaltyKind.DISCARD_AND_DRAW, 2, cards)
    if kind is ViolationKind.ILLEGAL_COMBO:
        return Penalty(PenaltyKind.DISCARD_AND_DRAW, 1, cards)
    if kind is ViolationKind.SEASON_RULE:
        return Penalty(PenaltyKind.NO_WU_NEXT_TURN)
    if kind is ViolationKind.DISCARD_ORDER and not warned:
        return Penalty(PenaltyKind.WARNING)  # 警告一次 first
    return None  # DISCARD_ORDER again (count given), OTHER, REPEATED_MISPLAY: graded


class CaseKind(enum.Enum):
    REPORT = 1
    APPEAL = 2


class CaseStatus(enum.Enum):
    OPEN = 1
    UPHELD = 2
    REJECTED = 3
    DEADLOCKED = 4


@dataclass(frozen=True)
class Vote:
    seat: int
    uphold: bool


@dataclass(frozen=True)
class Case:
    """A report of a violation, or an appeal against a penalty. ``id`` is the version of
    the fact that opened it."""

    id: int
    kind: CaseKind
    by: int  # the reporter or appellant
    accused: int  # the seat the case is about (for an appeal: the appellant)
    violation: ViolationKind
    evidence: tuple[int, ...]  # event versions the case points at
    penalty: Penalty  # what an upheld report applies (appeals: the penalty appealed)
    note: str
    votes: tuple[Vote, ...] = ()
    status: CaseStatus = CaseStatus.OPEN
    appeals_case: int | None = None  # for an appeal: the report whose penalty it contests


@dataclass(frozen=True)
class PenaltyRecord:
    """A penalty applied; ``before`` is the game state it changed, kept while it may be
    appealed so an upheld appeal can restore it exactly."""

    case_id: int
    seat: int
    penalty: Penalty
    before: Any  # the game's state before the penalty (None once it can no longer be appealed)
    revoked: bool = False


@dataclass(frozen=True)
class UndoPoint:
    """The last game move, while it may still be retracted."""

    seat: int
    first_version: int
    last_version: int
    before: Any  # the game's state before the move


MISPLAY_PHRASES = ("風過無痕，月照無意", "风过无痕，月照无意", "且慢")


# --- facts -------------------------------------------------------------------------------


@dataclass(frozen=True)
class MoveRetracted:
    """误操作: ``seat`` retracted its move (versions first..last) with the required phrase."""

    seat: int
    first_version: int
    last_version: int
    phrase: str
    restored: Any  # the game's state before the move (hidden from seats while it runs)


@dataclass(frozen=True)
class ViolationReported:
    """``by`` reported ``accused`` for a violation, pointing at event versions; the game
    pauses."""

    by: int
    accused: int
    violation: ViolationKind
    evidence: tuple[int, ...]
    penalty: Penalty
    note: str


@dataclass(frozen=True)
class AppealFiled:
    """``seat`` appealed the penalty of case ``case_id``; the game pauses."""

    seat: int
    case_id: int
    reason: str


@dataclass(frozen=True)
class VoteCast:
    seat: int
    case_id: int
    uphold: bool


@dataclass(frozen=True)
class ArbiterRuled:
    """The table's arbiter settled case ``case_id``."""

    case_id: int
    uphold: bool


@dataclass(frozen=True)
class CaseClosed:
    case_id: int
    status: CaseStatus


@dataclass(frozen=True)
class PenaltyApplied:
    """The penalty of case ``case_id`` was executed on ``seat``; the game's own facts for it
    follow."""

    case_id: int
    seat: int
    penalty: Penalty
    game_facts: int  # how many of the game's facts that follow execute it


@dataclass(frozen=True)
class PenaltyRevoked:
    """An upheld appeal revoked the penalty of case ``case_id``: the game is restored to the
    state before it."""

    case_id: int
    seat: int


@dataclass(frozen=True)
class GameRedealt:
    """重新洗牌发牌 after a deadlock: a new deal at the same table; the old game stays in the
    history. The game's opening facts follow."""

    deck: tuple[int, ...]
    seed: int
    round: int


@dataclass(frozen=True)
class AttemptRefereed:
    """REFEREE enforcement: ``seat`` attempted a move the rules forbid; the server took it as
    the attempt it was and penalises it (the penalty facts follow)."""

    seat: int
    violation: ViolationKind
    cards: tuple[int, ...]
    rule: str  # the rule the attempt broke (RuleViolation.rule)
    reason: str  # its stable code (RuleViolation.reason)


@dataclass(frozen=True)
class TurnTimedOut:
    """``seat`` did not act within the table's time limit (出牌超时)."""

    seat: int
    limit_ms: int


JUSTICE_EVENT_TYPES: tuple[type, ...] = (
    MoveRetracted,
    ViolationReported,
    AppealFiled,
    VoteCast,
    ArbiterRuled,
    CaseClosed,
    PenaltyApplied,
    PenaltyRevoked,
    GameRedealt,
    TurnTimedOut,
    AttemptRefereed,
)


# --- commands (the table's own, beside the game's) ---------------------------------------


@dataclass(frozen=True)
class Retract:
    """误操作: take back my last move (once per game)."""

    seat: int
    phrase: str


@dataclass(frozen=True)
class Report:
    """Report ``accused`` for ``violation``, pointing at event versions. For OTHER (and a
    repeated DISCARD_ORDER) ``penalty`` proposes the graded penalty."""

    seat: int
    accused: int
    violation: ViolationKind
    evidence: tuple[int, ...]
    penalty: Penalty | None
    note: str


@dataclass(frozen=True)
class CastVote:
    seat: int
    case_id: int
    uphold: bool


@dataclass(frozen=True)
class Appeal:
    seat: int
    case_id: int
    reason: str


@dataclass(frozen=True)
class Rule:
    """The arbiter's ruling on an open case (``seat`` is ignored: the arbiter has none)."""

    seat: int
    case_id: int
    uphold: bool


@dataclass(frozen=True)
class Redeal:
    """The arbiter declares the dispute unresolvable: 重新洗牌发牌."""

    seat: int


TABLE_COMMAND_TYPES: tuple[type, ...] = (Retract, Report, CastVote, Appeal, Rule, Redeal)


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

    def play_as_attempt(self, state: Any, command: Any) -> list[Any]:
        """PLAYERS: the facts of ``command`` as played, though the rules forbid it (only for
        commands ``violation_of`` classifies); a later report can penalise it."""

    def discard_owed(self, state: Any, seat: int) -> int:
        """How many cards ``seat``'s latest discard window asked for (what it owes now, or
        owed at its last discard). A repeated 弃牌违规 forces the count owed at the previous
        violation (p2:45), which the table reads from this at each discard violation."""
