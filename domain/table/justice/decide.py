"""Justice's decisions: misplay undo, reports, votes, rulings, appeals, timeouts, referee.

Each decision sees a :class:`Court`: justice's own state, the game's rules and state and the
table's settings, never the table itself. What a penalty does to the cards is asked of the
game (``PenaltyRules``). The readings are in the docstring of ``justice/facts.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from domain.engine import SPECTATOR, GameRules, MalformedCommand, RuleViolation, replaced
from domain.table.justice import facts as J
from domain.table.justice.state import JusticeState
from domain.table.justice.state import evolve as evolve_justice
from domain.table.justice.verdict import (
    Verdict,
    awaited,
    seats_verdict,
    voters,
)

RULE = "仲裁"  # the seed's term for arbitration, named in refusals


@dataclass(frozen=True)
class Court:
    """What justice knows of its table when it decides: its own state, the game's rules
    and state, the table's settings, how the table deals anew (重新洗牌发牌) and how it
    reshuffles cards from the committed randomness (``deal.reshuffle_unseen``)."""

    justice: JusticeState
    rules: GameRules
    game: Any
    seat_count: int
    version: int
    running: bool
    time_limit_ms: int
    enforcement: J.Enforcement
    arbitrated: bool
    redeal: Callable[[], list[Any]]
    reshuffle: Callable[[tuple[int, ...], str], tuple[int, ...]]
    case_time_limit_ms: int = 0  # the table's recorded case deadline (0: a record before it)
    # a record made before redeals needed every seat (justice_budget_ms 0): its arbiter's
    # Redeal re-decides as it was decided then
    legacy_redeal: bool = False
    redeals_left: int | None = None  # 重新洗牌发牌 the match still allows (None: no cap)
    redeal_cap: int = 0  # the table's max_redeals (per match)

    @property
    def case_limit_ms(self) -> int:
        """How long a case waits for its next step: the table's case limit, or in records
        made before it existed the table's clock (0: no deadline)."""
        return self.case_time_limit_ms or self.time_limit_ms


@dataclass(frozen=True)
class LastMove:
    """The latest game move, read from the history by the caller: who made it, which
    versions it produced, the facts, and the game state before it."""

    seat: int
    first_version: int
    last_version: int
    facts: tuple[Any, ...]
    before: Any
    command: Any = None  # the game command that made it (a rule-violation report re-decides it)


def is_game_move(cause: dict[str, Any] | None) -> bool:
    """Whether a stored cause is a game move (the kind a misplay may retract)."""
    if cause is None or cause.get("action") != "play" or cause.get("command") is None:
        return False
    return cause["command"]["type"] not in {t.__name__ for t in J.TABLE_COMMAND_TYPES}


# --- decide ------------------------------------------------------------------------------


def retract(court: Court, command: J.Retract, last: LastMove | None) -> list[Any]:
    """误操作: the last mover takes its move back, once per game, before anyone moves."""
    _must_be_running(court)
    if command.phrase.strip() not in J.MISPLAY_PHRASES:
        raise RuleViolation(
            "MISPLAY_PHRASE_REQUIRED", "误操作", "say 「風過無痕，月照無意」 (or 「且慢」)"
        )
    if last is None or last.seat != command.seat or last.last_version != court.version:
        raise RuleViolation(
            "NOTHING_TO_RETRACT", "误操作", "only the last move, before anyone else acts"
        )
    if court.justice.misplays[command.seat] >= 1:
        raise RuleViolation(
            "MISPLAY_ALREADY_USED",
            "误操作",
            "每局仅有一次误操作机会: a second misplay is an ordinary violation",
        )
    if any(court.rules.redact(f, SPECTATOR) != f for f in last.facts):
        raise RuleViolation(
            "MOVE_REVEALED_CARDS",
            "误操作",
            "the move showed a hidden card (a draw): it can no longer be undone",
        )
    return [
        J.MoveRetracted(
            command.seat, last.first_version, last.last_version, command.phrase, last.before
        )
    ]


def report(court: Court, command: J.Report, last: LastMove | None = None) -> list[Any]:
    """举报: pause the game on a report the table can judge (readings in justice/facts.py)."""
    _must_be_running(court)
    _no_open_case(court)
    if court.justice.reports_left(command.seat) == 0:
        raise RuleViolation(
            "REPORT_LIMIT",
            RULE,
            f"{J.FAILED_REPORTS_ALLOWED} of this seat's reports in this match were rejected, "
            "left unresolved or ended in 重新洗牌发牌: it may file no more in this match",
        )
    if court.justice.reports_filed_in_deal(command.seat) >= J.MAX_REPORTS_PER_DEAL:
        raise RuleViolation(
            "REPORTS_PER_DEAL",
            RULE,
            f"a seat may file at most {J.MAX_REPORTS_PER_DEAL} reports in one deal, the bound "
            "on a hand's history (more than the longest deal has turns): this seat has filed "
            "them all; the game goes on",
        )
    _check_report_fields(court, command)
    penalty = _report_penalty(court, command, last)
    reported = J.ViolationReported(
        command.seat,
        command.accused,
        command.violation,
        tuple(command.evidence),
        penalty,
        command.note,
        _owed(court, command.accused, command.violation),
    )
    after, _ = evolve_justice(court.justice, reported, court.version + 1, court.game)
    return [reported, *_settle(court, after.cases[-1])]


def _check_report_fields(court: Court, command: J.Report) -> None:
    version = court.version
    if not 0 <= command.accused < court.seat_count or command.accused == command.seat:
        raise MalformedCommand("accused", "name another seat")
    evidence = command.evidence
    if not 1 <= len(evidence) <= J.MAX_EVIDENCE or len(set(evidence)) != len(evidence):
        raise MalformedCommand("evidence", f"1 to {J.MAX_EVIDENCE} distinct event versions")
    if any(not 1 <= v <= version for v in evidence):
        raise MalformedCommand("evidence", f"name event versions within 1..{version}")
    if len(command.note) > J.MAX_TEXT:
        raise MalformedCommand("note", f"at most {J.MAX_TEXT} characters")


def _report_penalty(court: Court, command: J.Report, last: LastMove | None) -> J.Penalty:
    """The penalty the seed gives the reported violation; the reporter chooses only among
    the graded penalties of 其他违规, and never which cards."""
    kind = command.violation
    if kind is J.ViolationKind.OTHER:
        return _graded_penalty(court, command.penalty)
    if kind is J.ViolationKind.TIMEOUT:
        if court.time_limit_ms > 0:
            raise RuleViolation(
                "CLOCK_ENFORCED", RULE, "the table's clock times out late seats by itself"
            )
        return J.Penalty(J.PenaltyKind.DRAW, 1)
    if court.enforcement is not J.Enforcement.PLAYERS:
        raise RuleViolation(
            "ENGINE_ENFORCED",
            RULE,
            f"at a {court.enforcement.name} table the engine already refused or refereed "
            "every rule violation; only what the server cannot see (其他违规) is reportable",
        )
    kind, cards = _violation_in(court, command, last)
    warned = court.justice.warnings[command.accused] > 0
    return J.seed_penalty(kind, cards, warned) or _repeated_discard(
        court, command.accused, cards, ()
    )


def _owed(court: Court, seat: int, kind: J.ViolationKind) -> int:
    """The cards ``seat`` owes at this discard violation (0 for any other violation)."""
    owed = getattr(court.rules, "discard_owed", None)
    if kind is not J.ViolationKind.DISCARD_ORDER or owed is None:
        return 0
    return int(owed(court.game, seat))


def _repeated_discard(
    court: Court, seat: int, cards: tuple[int, ...], named: tuple[int, ...]
) -> J.Penalty:
    """若再次违规，则强制按正确顺序弃上个回合违规时需要丢弃的牌的数量 (p2:45): as many cards as
    the seat owed at its previous discard violation -- not the attempt's count."""
    counts = court.justice.discard_counts
    previous = counts[seat] if counts else 0
    return J.Penalty(J.PenaltyKind.FORCED_DISCARD, previous or max(1, len(cards)), named)


def _graded_penalty(court: Court, proposed: J.Penalty | None) -> J.Penalty:
    if proposed is None or proposed.kind not in J.GRADED_PENALTIES:
        names = ", ".join(k.name for k in J.GRADED_PENALTIES)
        raise MalformedCommand("penalty", f"其他违规 takes one of {names}")
    if proposed.cards:
        raise MalformedCommand("penalty.cards", "the seed decides which cards, not the reporter")
    if not isinstance(court.rules, J.PenaltyRules) and proposed.kind not in _NO_CARDS:
        raise RuleViolation(
            "PENALTY_NOT_SUPPORTED", RULE, f"{court.rules.name} takes WARNING or FORFEIT only"
        )
    if proposed.kind is J.PenaltyKind.FORFEIT and not court.arbitrated:
        raise RuleViolation("FORFEIT_NEEDS_ARBITER", RULE, "判负 only on the arbiter's ruling")
    if proposed.kind is J.PenaltyKind.FORCED_DISCARD:
        if not 1 <= proposed.count <= J.MAX_FORCED_DISCARD:
            raise MalformedCommand("penalty.count", f"1 to {J.MAX_FORCED_DISCARD} cards")
        return J.Penalty(J.PenaltyKind.FORCED_DISCARD, proposed.count)
    return J.Penalty(proposed.kind)


_NO_CARDS = (J.PenaltyKind.WARNING, J.PenaltyKind.FORFEIT)  # penalties that touch no card


def _violation_in(
    court: Court, command: J.Report, last: LastMove | None
) -> tuple[J.ViolationKind, tuple[int, ...]]:
    """At a PLAYERS table: the accused's last move re-decided; it must be the violation
    reported, and the engine names its cards."""
    if (
        last is None
        or last.command is None
        or last.seat != command.accused
        or last.last_version != court.version
        or any(not last.first_version <= v <= last.last_version for v in command.evidence)
    ):
        raise RuleViolation(
            "REPORT_THE_LAST_MOVE",
            RULE,
            "a rule violation is reported at once (立即): point at the accused's last move, "
            "before anyone acts",
        )
    try:
        court.rules.decide(last.before, last.command)
    except RuleViolation as error:
        found = court.rules.violation_of(last.before, last.command, error)  # type: ignore[attr-defined]
        if found is not None and found[0] is command.violation:
            return found
        raise RuleViolation(
            "NOT_THAT_VIOLATION", RULE, f"the move broke {error.rule}, not {command.violation.name}"
        ) from None
    raise RuleViolation("MOVE_WAS_LEGAL", RULE, "the rules allow that move")


def appeal(court: Court, command: J.Appeal) -> list[Any]:
    _must_be_running(court)
    _no_open_case(court)
    record = next((p for p in court.justice.penalties if p.case_id == command.case_id), None)
    if record is None or record.seat != command.seat:
        raise RuleViolation("NO_SUCH_PENALTY", RULE, "you may appeal only your own penalty")
    if record.before is None or record.revoked:
        raise RuleViolation(
            "APPEAL_TOO_LATE", RULE, "申诉 must come right after the penalty, before the next move"
        )
    if len(command.reason) > J.MAX_TEXT:
        raise MalformedCommand("reason", f"at most {J.MAX_TEXT} characters")
    filed = J.AppealFiled(command.seat, command.case_id, command.reason)
    after, _ = evolve_justice(court.justice, filed, court.version + 1, court.game)
    return [filed, *_settle(court, after.cases[-1])]  # with no voter left: settled at once


def vote(court: Court, command: J.CastVote) -> list[Any]:
    case = _the_open_case(court, command.case_id)
    if command.seat not in voters(court.seat_count, case):
        raise RuleViolation(
            "NOT_A_VOTER",
            RULE,
            "the reporter does not vote, nor on an appeal the appellant and the seats that "
            "reported or confirmed the appealed case",
        )
    if any(v.seat == command.seat for v in case.votes):
        raise RuleViolation("ALREADY_VOTED", RULE, "one vote per seat")
    if command.seat not in awaited(court.seat_count, case):
        raise RuleViolation(
            "VOTE_CLOSED",
            RULE,
            "this vote lapsed at the case's deadline, or the votes still to come can no "
            "longer change the seats' verdict: the arbiter rules",
        )
    cast = J.VoteCast(command.seat, case.id, command.uphold)
    after = replaced(case, votes=(*case.votes, J.Vote(command.seat, command.uphold)))
    return [cast, *_settle(court, after)]


def rule(court: Court, command: J.Rule) -> list[Any]:
    _must_have_arbiter(court)
    case = _the_open_case(court, command.case_id)
    return [J.ArbiterRuled(case.id, command.uphold), *_close(court, case, command.uphold)]


def redeal(court: Court) -> list[Any]:
    """The arbiter asks for 重新洗牌发牌: refused. p2:70 lets the table redeal a dispute it
    cannot settle, and only every seat together may say so (AgreeRedeal): an arbiter and a
    colluding seat could otherwise redeal until the deal suits them, over the honest seat.
    On a disputed case the arbiter rules (Rule). Records made before this rule re-decide
    as they were decided then (``legacy_redeal``)."""
    _must_be_running(court)
    _must_have_arbiter(court)
    if not court.legacy_redeal:
        raise RuleViolation(
            "REDEAL_NEEDS_EVERY_SEAT",
            J.REDEAL_RULE,
            "only every seat's AgreeRedeal redeals: the arbiter rules on the case (Rule) "
            "and cannot order 重新洗牌发牌",
        )
    case = court.justice.open_case
    if case is None:
        raise RuleViolation("NO_OPEN_CASE", RULE, "重新洗牌发牌 settles an open case only")
    if seats_verdict(court.seat_count, case) is not Verdict.DISPUTED:
        raise RuleViolation(
            "REDEAL_NOT_DISPUTED",
            RULE,
            "重新洗牌发牌 only for a dispute the seats' votes could not settle: the case "
            "must be disputed after the seats voted, not merely open",
        )
    return [J.CaseClosed(case.id, J.CaseStatus.DEADLOCKED), *court.redeal()]


def agree_redeal(court: Court, command: J.AgreeRedeal) -> list[Any]:
    """A seat agrees to 重新洗牌发牌 on the open case; the last seat to agree makes it happen.
    An agreement does not move the case's deadline (``Case.clock``)."""
    case = _the_open_case(court, command.case_id)
    if not 0 <= command.seat < court.seat_count:
        raise MalformedCommand("seat", f"seat must be 0..{court.seat_count - 1}")
    if command.seat in case.redeal_agreed:
        raise RuleViolation("ALREADY_AGREED", RULE, "one agreement per seat")
    if court.redeals_left == 0:  # refused at the first agreement, not only the last
        raise RuleViolation(
            "REDEAL_LIMIT",
            J.REDEAL_RULE,
            f"this table allows {court.redeal_cap} 重新洗牌发牌 per match, all used",
        )
    agreed = J.RedealAgreed(command.seat, case.id)
    if len(case.redeal_agreed) + 1 < court.seat_count:
        return [agreed]
    return [agreed, J.CaseClosed(case.id, J.CaseStatus.DEADLOCKED), *court.redeal()]


def case_timed_out(court: Court) -> list[Any]:
    """The open case passed its deadline, at any table (clockless ones too): the votes not
    cast lapse and count as not confirming, so the seats' verdict is a dispute. At an
    arbitrated table the arbiter then rules, on the case's deadline again; otherwise, or
    when only the arbiter was awaited, the case closes UNRESOLVED (nothing is applied; an
    appeal's penalty stands)."""
    case = court.justice.open_case
    if case is None or court.case_limit_ms <= 0:
        raise RuleViolation("NO_TIMER", "出牌超时", "no case is on the clock")
    missing = awaited(court.seat_count, case)
    timed = J.CaseTimedOut(case.id, missing)
    # (records made before case deadlines closed every timed-out case at once)
    if missing and court.arbitrated and court.case_time_limit_ms > 0:
        return [timed]
    return [timed, J.CaseClosed(case.id, J.CaseStatus.UNRESOLVED)]


def _the_open_case(court: Court, case_id: int) -> J.Case:
    case = court.justice.open_case
    if case is None or case.id != case_id:
        raise RuleViolation("NO_OPEN_CASE", RULE, f"case {case_id} is not open")
    return case


def _must_have_arbiter(court: Court) -> None:
    if not court.arbitrated:
        raise RuleViolation(
            "NO_ARBITER", RULE, "this table has no arbiter: disputes close unresolved"
        )


def timed_out(court: Court, seat: int) -> list[Any]:
    """出牌超时: the seed's penalty (摸1张), then the game decides what becomes of the turn.

    A game without penalty rules only has its turn played for it (its first legal
    command), with no penalty."""
    _must_be_running(court)
    rules, game = court.rules, court.game
    if court.time_limit_ms <= 0 or seat not in rules.to_act(game) or court.justice.paused:
        raise RuleViolation("NO_TIMER", "出牌超时", f"seat {seat} is not on the clock")
    timed = J.TurnTimedOut(seat, court.time_limit_ms)
    if not isinstance(rules, J.PenaltyRules):
        default = getattr(rules, "default_command", None)
        command = default(game, seat) if default else rules.legal_commands(game, seat)[0]
        return [timed, *rules.decide(game, command)]

    penalty = J.Penalty(J.PenaltyKind.DRAW, 1)
    penalty_facts = rules.penalty_facts(game, seat, penalty)
    turn_facts = rules.timeout_facts(_evolved(rules, game, penalty_facts), seat)
    # The case id is the TurnTimedOut's version, so the seat may appeal it like any penalty;
    # the turn taken for it counts as part of the penalty, so an upheld appeal gives it back.
    applied = J.PenaltyApplied(
        court.version + 1, seat, penalty, len(penalty_facts) + len(turn_facts)
    )
    return [timed, applied, *penalty_facts, *turn_facts]


# 其他违规 refereed: 根据情节轻重 (p2:51), the lightest penalty that costs the seat a card --
# 摸1张, as for 出牌超时 (p2:33), the other lapse in what a turn requires. Never a forced
# discard: in a shedding game fewer cards bring the offender closer to going out.
REFEREED_OTHER = J.Penalty(J.PenaltyKind.DRAW, 1)


def referee(
    court: Court, seat: int, found: tuple[J.ViolationKind, tuple[int, ...]], error: RuleViolation
) -> list[Any]:
    """REFEREE enforcement: the forbidden attempt is recorded and the seed's penalty applied
    at once (illegal combo: discard + 摸1; wrong declaration: discard + 摸2; season rule: no
    舞 next turn; discard order: a warning first, then the forced discard; 其他违规: 摸1)."""
    rules = court.rules
    assert isinstance(rules, J.PenaltyRules)
    kind, cards = found
    warned = court.justice.warnings[seat] > 0
    penalty = J.seed_penalty(kind, cards, warned)
    if penalty is None and kind is J.ViolationKind.DISCARD_ORDER:
        penalty = _repeated_discard(court, seat, cards, ())
    if penalty is None:  # 其他违规 (花鸟风月: the opening verse left out)
        penalty = REFEREED_OTHER
    attempt = J.AttemptRefereed(
        seat, kind, cards, error.rule, error.reason, _owed(court, seat, kind)
    )
    game_facts = (
        []
        if penalty.kind is J.PenaltyKind.WARNING
        else rules.penalty_facts(court.game, seat, penalty)
    )
    turn = rules.penalised_turn_facts(_evolved(rules, court.game, game_facts), seat)
    # the turn taken after the attempt belongs to the penalty: an upheld appeal gives it back
    applied = J.PenaltyApplied(court.version + 1, seat, penalty, len(game_facts) + len(turn))
    return [attempt, applied, *game_facts, *turn]


def _evolved(rules: GameRules, game: Any, facts: list[Any]) -> Any:
    for fact in facts:
        game = rules.evolve(game, fact)
    return game


# --- settling a case ---------------------------------------------------------------------


def _settle(court: Court, case: J.Case) -> list[Any]:
    """Close the case once the seats' verdict is certain (readings in facts.py)."""
    verdict = seats_verdict(court.seat_count, case)
    if verdict is None:
        return []  # votes still to come may change it
    if verdict is Verdict.UPHELD and case.penalty.kind is J.PenaltyKind.FORFEIT:
        return []  # 判负 only on the arbiter's ruling, whatever the seats say
    if verdict is not Verdict.DISPUTED:
        return _close(court, case, verdict is Verdict.UPHELD)
    if court.arbitrated:
        return []  # a dispute: the arbiter rules (可由第三方介入仲裁)
    # nobody can settle it: nothing is applied; an appealed penalty stands (维持原处罚决定)
    return [J.CaseClosed(case.id, J.CaseStatus.UNRESOLVED)]


def _close(court: Court, case: J.Case, uphold: bool) -> list[Any]:
    status = J.CaseStatus.UPHELD if uphold else J.CaseStatus.REJECTED
    facts: list[Any] = [J.CaseClosed(case.id, status)]
    if not uphold:
        return facts
    if case.kind is J.CaseKind.APPEAL:
        assert case.appeals_case is not None
        return [*facts, _revoked(court, case.appeals_case, case.accused)]
    return [*facts, *_penalty_facts(court, case)]


def _revoked(court: Court, case_id: int, seat: int) -> J.PenaltyRevoked:
    """The game goes back to its state before the penalty, with the deck reshuffled from
    the committed randomness: the cards the seat drew for the penalty return to it unknown."""
    record = next(p for p in court.justice.penalties if p.case_id == case_id)
    rules = court.rules
    if not isinstance(rules, J.PenaltyRules) or record.before is None:
        return J.PenaltyRevoked(case_id, seat)
    deck = court.reshuffle(rules.deck_of(record.before), f"revoke-{case_id}")
    return J.PenaltyRevoked(case_id, seat, deck)


def _penalty_facts(court: Court, case: J.Case) -> list[Any]:
    penalty = case.penalty
    rules = court.rules
    if penalty.kind in (J.PenaltyKind.WARNING, J.PenaltyKind.FORFEIT):
        game_facts: list[Any] = []
    elif isinstance(rules, J.PenaltyRules):
        game_facts = rules.penalty_facts(court.game, case.accused, penalty)
    else:
        raise RuleViolation(
            "PENALTY_NOT_SUPPORTED", RULE, f"{rules.name} cannot execute {penalty.kind.name}"
        )
    return [J.PenaltyApplied(case.id, case.accused, penalty, len(game_facts)), *game_facts]


def _must_be_running(court: Court) -> None:
    if not court.running:
        raise RuleViolation("GAME_NOT_RUNNING", RULE, "only during a game")


def _no_open_case(court: Court) -> None:
    case = court.justice.open_case
    if case is not None:
        raise RuleViolation("CASE_OPEN", RULE, f"case {case.id} must be settled first")


# --- describe ----------------------------------------------------------------------------


def describe(event: Any) -> str:
    if isinstance(event, J.MoveRetracted):
        return (
            f"seat {event.seat} 误操作「{event.phrase}」: retracted versions "
            f"{event.first_version}-{event.last_version}"
        )
    if isinstance(event, J.ViolationReported):
        return (
            f"seat {event.by} reports seat {event.accused}: {event.violation.name} "
            f"({len(event.evidence)} event(s) as evidence); game paused"
        )
    if isinstance(event, J.AppealFiled):
        return f"seat {event.seat} appeals the penalty of case {event.case_id}: {event.reason}"
    if isinstance(event, J.VoteCast):
        return f"seat {event.seat} votes {'to uphold' if event.uphold else 'to reject'} case {event.case_id}"
    if isinstance(event, J.ArbiterRuled):
        return f"the arbiter {'upholds' if event.uphold else 'rejects'} case {event.case_id}"
    if isinstance(event, J.CaseClosed):
        return f"case {event.case_id} closed: {event.status.name}"
    if isinstance(event, J.PenaltyApplied):
        p = event.penalty
        return f"penalty on seat {event.seat}: {p.kind.name}" + (f" {p.count}" if p.count else "")
    if isinstance(event, J.PenaltyRevoked):
        return f"the penalty of case {event.case_id} on seat {event.seat} is revoked"
    if isinstance(event, J.GameRedealt):
        return f"重新洗牌发牌: a new deal (round {event.round})"
    if isinstance(event, J.TurnTimedOut):
        return f"seat {event.seat} timed out ({event.limit_ms} ms)"
    if isinstance(event, J.RedealAgreed):
        return f"seat {event.seat} agrees to 重新洗牌发牌 on case {event.case_id}"
    if isinstance(event, J.CaseTimedOut):
        late = ", ".join(map(str, event.seats)) or "the arbiter"
        return f"case {event.case_id} ran out of time (never voted: {late})"
    if isinstance(event, J.AttemptRefereed):
        return f"seat {event.seat}: {event.violation.name} refereed ({event.rule}: {event.reason})"
    return repr(event)
