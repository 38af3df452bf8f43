"""Justice at the table, its vocabulary: cases, facts and commands.

Misplay undo, reports, votes, the arbiter, penalties, appeals.

The seed's chapter 四、违规与仲裁 (huaniao-rules-part2-decoded.txt) read as table facts,
shared by every game kind. What a penalty does to the cards is the game's business: a game
that implements :class:`PenaltyRules` turns a :class:`Penalty` into its own facts; the table
only records, pauses, counts votes and restores.

Readings (docs/rules/huaniao.md, section 四; THREATS.md: no one-sided procedure):

* A report pauses the game (p2:55 應立即暫停遊戲). 所有玩家共同確認 (p2:55, 57): every seat
  but the reporter votes, the accused included; the report is the reporter's own vote.
  What the seats' votes decide depends on who can check the report:

  - A report the engine cannot check (其他违规, and 出牌超时 at a table without a clock:
    ``UNCHECKED_KINDS``) is upheld only when *every* voter confirms it, the accused
    included: a majority that may be colluding never penalises a seat on its word alone,
    and the accused accepting alone upholds nothing either (a colluding "accused" could
    take a forced discard that helps it go out). It is rejected when every voter rejects
    it and at least one of them is not the accused (so at two seats the accused's "no" is
    a dispute, not a verdict).
  - A rule violation at a PLAYERS table is re-decided by the engine before the report is
    filed (``_violation_in``): the move *was* that violation. It is upheld when the
    accused accepts it or every other seat confirms it, rejected as above.

  Anything else is a dispute (若有爭議): at an arbitrated table the arbiter rules
  (可由第三方介入仲裁; the table's arbiter is that third party: a spectator cannot be, since
  anyone may watch without a token); at a table without an arbiter the case closes
  UNRESOLVED, nothing is applied and the game goes on. 判负 comes only from the arbiter.
* A case closes as soon as the votes still to come cannot change the seats' verdict (every
  way the missing votes could still go, lapsing included, gives the same verdict): e.g. an
  unchecked report with one "yes" and one "no" is a dispute at once, while one with only
  "no"s so far waits, since the rest may still make it REJECTED.
* Every case has a deadline at every table (``GameCreated.case_time_limit_ms``: the table's
  option or the server's default, at most ``MAX_CASE_TIME_LIMIT_MS``; the table's clock in
  records made before it). The clock runs from the case's opening and moves only when an
  awaited voter votes, at most once per voter (``Case.clock``, ``Case.clocked_by``), and once
  when the seats' time ran out and the arbiter is awaited (CaseTimedOut); nothing else moves
  it (an AgreeRedeal, any other fact). A vote not cast by then lapses and counts as not
  confirming (nor rejecting); a dispute then goes to the arbiter, and otherwise closes
  UNRESOLVED. Every case of a hand also draws on the hand's justice budget
  (``GameCreated.justice_budget_ms``): a case runs out at the budget at the latest, and once
  it is spent no report or appeal is filed (``clock.check_justice_budget``).
* A seat's reports are limited per match (a single game is a match of one hand): once
  ``FAILED_REPORTS_ALLOWED`` of its reports closed REJECTED, UNRESOLVED or DEADLOCKED (a
  report that ended in 重新洗牌发牌 failed too), in this hand or an earlier hand of the match
  (``GameCreated.match_failed_reports``), its further reports are refused (REPORT_LIMIT).
* 重新洗牌发牌 is a *may* (p2:70 若在遊戲中出現無法通過仲裁解決的爭議，可暫停遊戲，重新洗牌發牌):
  it happens only when every seat agrees (AgreeRedeal) on an open case. Neither the arbiter
  nor a majority redeals: the arbiter's ``Redeal`` is refused (REDEAL_NEEDS_EVERY_SEAT), so
  the honest seat refuses a redeal by not agreeing. At most ``max_redeals`` (up to
  ``MAX_REDEALS`` = 3) per match, counted over its hands (``GameCreated.match_redeals_used``).
  Records made before these rules (``GameCreated.justice_budget_ms`` 0) keep the rules they
  were played under: the arbiter's Redeal on a disputed case, a redeal not a failed report.
* Penalties follow the seed's table for the kind (p2:31-51). Only 其他違規 leaves a choice
  (警告、強制棄牌、公開手牌1回合或直接判負): the reporter proposes one of those four; the
  cards are never the reporter's choice (a forced discard follows 鳥→數量→功能). 判负 comes
  only from the arbiter (p2:72 經仲裁確認後，可直接判該玩家負).
* What the server itself enforces is not reportable: at a REJECT or REFEREE table the engine
  refused or refereed every rule violation, so only 其他違規 (and 出牌超時 at a table without
  a clock) can be reported. At a PLAYERS table a rule violation is reported right after the
  move (p2:55 立即), against the accused's last move; the engine then says whether it was
  that violation and which cards it involved.
* The penalised seat may appeal once, until the next game move (p2:61 處罰執行後立即提出申訴);
  the other seats re-deliberate (p2:62 由所有玩家重新審議) -- but never the seats that
  reported or confirmed the appealed case (``Case.recused``: its reporter and every seat
  that voted to uphold it). All voters agree → revoked; all disagree → 維持原處罰決定;
  split → the arbiter, or the penalty stands without one. With no voter left, the arbiter
  rules, or the appeal closes UNRESOLVED and the penalty stands.
  An upheld appeal restores the game as it was before the penalty, except that the deck is
  reshuffled from the committed randomness (``deal.reshuffle_unseen``), so that cards the
  penalised seat drew and put back tell it nothing about the next draws.
* Misplay (误操作, p2:64-68): the seat that made the last game move may retract it once per
  game with 「風過無痕，月照無意」 (or 「且慢」 in simplified play), before anyone else moves,
  and only if the move revealed nothing hidden (no card was drawn): the undone move is then
  exactly as if it had not happened, and nobody learned anything from it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

# the ground vocabulary (domain/violations.py), re-exported so justice reads as one namespace
from domain.violations import Penalty as Penalty
from domain.violations import PenaltyKind as PenaltyKind
from domain.violations import PenaltyRules as PenaltyRules
from domain.violations import ViolationKind as ViolationKind


class Enforcement(enum.Enum):
    """How a table enforces the rules (chosen at CreateGame)."""

    REJECT = 1  # a forbidden move is refused and nothing is appended (apps)
    REFEREE = 2  # the server referees: a forbidden combo is taken as the attempt, penalised
    PLAYERS = 3  # honour system: moves stand as played until a player reports them


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
    DEADLOCKED = 4  # 重新洗牌发牌: every seat agreed (in older records: or the arbiter ruled it)
    UNRESOLVED = 5  # a dispute nobody could settle: nothing applied, the game goes on


# bounds on what a seat may send (INVALID_ARGUMENT beyond them; nothing is appended)
MAX_EVIDENCE = 16  # event versions a report points at
MAX_TEXT = 500  # characters of a report's note or an appeal's reason
MAX_FORCED_DISCARD = 12  # cards a proposed 强制弃牌 may take (the largest hand limit)
GRADED_PENALTIES = (  # 其他违规: 警告、强制弃牌、公开手牌1回合或直接判负 (p2:51)
    PenaltyKind.WARNING,
    PenaltyKind.FORCED_DISCARD,
    PenaltyKind.OPEN_HAND,
    PenaltyKind.FORFEIT,
)
UNCHECKED_KINDS = (  # what the engine cannot check: upheld only when every voter confirms
    ViolationKind.OTHER,
    ViolationKind.TIMEOUT,  # reportable only at a table without a clock
)
# a seat's reports (per match) closed REJECTED, UNRESOLVED or DEADLOCKED, then REPORT_LIMIT
FAILED_REPORTS_ALLOWED = 2
# The bound on a hand's justice history: the reports one seat may file in one deal, upheld
# or not (then REPORTS_PER_DEAL). Upheld warnings count against nothing, so without it two
# seats could grow a history at will (issue 38). An honest report concerns something
# another seat did in a turn, and the longest deal of either game has fewer turns than this
# (docs/api.md, "The bound on a history"), so it never cuts an honest game short.
MAX_REPORTS_PER_DEAL = 256
CASE_TIME_LIMIT_MS = 120_000  # a case's deadline when the table names none (server default)
MAX_CASE_TIME_LIMIT_MS = 600_000  # the longest a table may give a case's step: ten minutes
DEFAULT_JUSTICE_BUDGET_MS = 1_800_000  # the time cases may pause one hand, by default: 30 min
MAX_JUSTICE_BUDGET_MS = 3_600_000  # the most a table may give them: one hour
REDEAL_RULE = "p2:70 重新洗牌发牌"  # named in the refusals of a redeal
BUDGET_RULE = "仲裁 time budget"  # named when a hand's justice budget is spent
RULE_KINDS = (  # violations of the rules themselves, which the engine can judge
    ViolationKind.WRONG_DECLARATION,
    ViolationKind.ILLEGAL_COMBO,
    ViolationKind.SEASON_RULE,
    ViolationKind.DISCARD_ORDER,
    ViolationKind.REPEATED_MISPLAY,
)


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
    redeal_agreed: tuple[int, ...] = ()  # seats that agreed to 重新洗牌发牌 on this case
    owed: int = 0  # 弃牌违规: the cards the accused owed at the reported discard
    # an appeal: the seats that may not decide it (the appealed case's reporter and every
    # seat that voted to uphold it)
    recused: tuple[int, ...] = ()
    lapsed: tuple[int, ...] = ()  # voters whose vote lapsed at the case's deadline
    # the version of the fact its deadline runs from: the opening, then an awaited voter's
    # vote (each voter's once: ``clocked_by``), then the seats' timeout (the arbiter's turn)
    clock: int = 0
    clocked_by: tuple[int, ...] = ()
    closed: int = 0  # the version of its CaseClosed (0 while open)

    @property
    def unchecked(self) -> bool:
        """A report the engine cannot check: only every voter together upholds it."""
        return self.kind is CaseKind.REPORT and self.violation in UNCHECKED_KINDS


@dataclass(frozen=True)
class PenaltyRecord:
    """A penalty applied; ``before`` is the game state it changed, kept while it may be
    appealed so an upheld appeal can restore it exactly."""

    case_id: int
    seat: int
    penalty: Penalty
    before: Any  # the game's state before the penalty (None once it can no longer be appealed)
    revoked: bool = False


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
    owed: int = 0  # 弃牌违规: the cards the accused owed at the reported discard


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
    state before it, with its deck in the order ``deck`` (reshuffled from the committed
    randomness, so the cards the seat drew for the penalty tell it nothing; hidden from
    everyone but the arbiter while the game runs)."""

    case_id: int
    seat: int
    deck: tuple[int, ...] = ()


@dataclass(frozen=True)
class RedealAgreed:
    """``seat`` agreed to 重新洗牌发牌 on case ``case_id``."""

    seat: int
    case_id: int


@dataclass(frozen=True)
class CaseTimedOut:
    """Case ``case_id`` passed its deadline; ``seats`` never voted, and their votes lapse
    (they count as not confirming). Empty when only the arbiter was awaited."""

    case_id: int
    seats: tuple[int, ...]


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
    owed: int = 0  # 弃牌违规: the cards the seat owed at this discard


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
    RedealAgreed,
    CaseTimedOut,
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
    """The arbiter asks for 重新洗牌发牌: refused (REDEAL_NEEDS_EVERY_SEAT), since only every
    seat's AgreeRedeal redeals; kept so that records made before that rule re-decide."""

    seat: int


@dataclass(frozen=True)
class AgreeRedeal:
    """A seat agrees to 重新洗牌发牌 on the open case; when every seat agrees, it happens."""

    seat: int
    case_id: int


TABLE_COMMAND_TYPES: tuple[type, ...] = (
    Retract,
    Report,
    CastVote,
    Appeal,
    Rule,
    Redeal,
    AgreeRedeal,
)
