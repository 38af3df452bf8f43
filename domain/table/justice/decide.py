"""Justice's decisions: misplay undo, reports, votes, rulings, appeals, timeouts, referee.

Each decision sees a :class:`Court`: justice's own state, the game's rules and state and the
table's settings, never the table itself. What a penalty does to the cards is asked of the
game (``PenaltyRules``). The readings are in the docstring of ``justice/facts.py``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from domain.engine import SPECTATOR, GameRules, MalformedCommand, RuleViolation
from domain.table.justice import facts as J
from domain.table.justice.state import JusticeState
from domain.table.justice.state import evolve as evolve_justice

RULE = "仲裁"  # the seed's term for arbitration, named in refusals


@dataclass(frozen=True)
class Court:
    """What justice knows of its table when it decides: its own state, the game's rules
    and state, the table's settings, and how the table deals anew (重新洗牌发牌)."""

    justice: JusticeState
    rules: GameRules
    game: Any
    seat_count: int
    version: int
    running: bool
    time_limit_ms: int
    enforcement: J.Enforcement
    redeal: Callable[[], list[Any]]


@dataclass(frozen=True)
class LastMove:
    """The latest game move, read from the history by the caller: who made it, which
    versions it produced, the facts, and the game state before it."""

    seat: int
    first_version: int
    last_version: int
    facts: tuple[Any, ...]
    before: Any


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


def report(court: Court, command: J.Report) -> list[Any]:
    _must_be_running(court)
    _no_open_case(court)
    version = court.version
    if not 0 <= command.accused < court.seat_count or command.accused == command.seat:
        raise MalformedCommand("accused", "name another seat")
    if not command.evidence or any(not 1 <= v <= version for v in command.evidence):
        raise MalformedCommand("evidence", f"name event versions within 1..{version}")
    if len(command.note) > 500:
        raise MalformedCommand("note", "at most 500 characters")
    warned = court.justice.warnings[command.accused] > 0
    penalty = J.seed_penalty(command.violation, _evidence_cards(command), warned)
    if penalty is None:
        if command.penalty is None:
            raise MalformedCommand("penalty", "this violation needs a proposed graded penalty")
        penalty = command.penalty
    reported = J.ViolationReported(
        command.seat,
        command.accused,
        command.violation,
        tuple(command.evidence),
        penalty,
        command.note,
    )
    # with two seats the reporter is the only voter: its report settles the case at once
    after, _ = evolve_justice(court.justice, reported, version + 1, court.game)
    return [reported, *_settle(court, after.cases[-1])]


def _evidence_cards(command: J.Report) -> tuple[int, ...]:
    return command.penalty.cards if command.penalty is not None else ()


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
    if len(command.reason) > 500:
        raise MalformedCommand("reason", "at most 500 characters")
    return [J.AppealFiled(command.seat, command.case_id, command.reason)]


def vote(court: Court, command: J.CastVote) -> list[Any]:
    case = court.justice.open_case
    if case is None or case.id != command.case_id:
        raise RuleViolation("NO_OPEN_CASE", RULE, f"case {command.case_id} is not open")
    if command.seat not in voters(court.seat_count, case):
        raise RuleViolation("NOT_A_VOTER", RULE, "the accused (or appellant) does not vote")
    if any(v.seat == command.seat for v in case.votes):
        raise RuleViolation("ALREADY_VOTED", RULE, "one vote per seat")
    cast = J.VoteCast(command.seat, case.id, command.uphold)
    after = dataclasses.replace(case, votes=(*case.votes, J.Vote(command.seat, command.uphold)))
    return [cast, *_settle(court, after)]


def rule(court: Court, command: J.Rule) -> list[Any]:
    case = court.justice.open_case
    if case is None or case.id != command.case_id:
        raise RuleViolation("NO_OPEN_CASE", RULE, f"case {command.case_id} is not open")
    return [J.ArbiterRuled(case.id, command.uphold), *_close(court, case, command.uphold)]


def redeal(court: Court) -> list[Any]:
    """The arbiter declares a dispute unresolvable: 重新洗牌发牌."""
    _must_be_running(court)
    case = court.justice.open_case
    closing = [J.CaseClosed(case.id, J.CaseStatus.DEADLOCKED)] if case else []
    return [*closing, *court.redeal()]


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


def referee(
    court: Court, seat: int, found: tuple[J.ViolationKind, tuple[int, ...]], error: RuleViolation
) -> list[Any]:
    """REFEREE enforcement: the forbidden attempt is recorded and the seed's penalty applied
    at once (illegal combo: discard + 摸1; wrong declaration: discard + 摸2; season rule: no
    舞 next turn; discard order: a warning first, then the forced discard)."""
    rules = court.rules
    assert isinstance(rules, J.PenaltyRules)
    kind, cards = found
    warned = court.justice.warnings[seat] > 0
    penalty = J.seed_penalty(kind, cards, warned) or J.Penalty(
        J.PenaltyKind.FORCED_DISCARD, max(1, len(cards)), cards
    )
    attempt = J.AttemptRefereed(seat, kind, cards, error.rule, error.reason)
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


def voters(seat_count: int, case: J.Case) -> tuple[int, ...]:
    return tuple(s for s in range(seat_count) if s != case.accused)


def awaited_voters(justice: JusticeState, seat_count: int) -> tuple[int, ...] | None:
    """The seats an open case still waits for, or None when no case is open."""
    case = justice.open_case
    if case is None:
        return None
    voted = {v.seat for v in votes_with_reporter(case)}
    return tuple(s for s in voters(seat_count, case) if s not in voted)


def _settle(court: Court, case: J.Case) -> list[Any]:
    """Close the case once a strict majority of the voters agree, or all voted (tie)."""
    seats = voters(court.seat_count, case)
    yes = sum(1 for v in votes_with_reporter(case) if v.uphold)
    no = sum(1 for v in votes_with_reporter(case) if not v.uphold)
    majority = len(seats) // 2 + 1
    if yes >= majority:
        return _close(court, case, True)
    if no >= majority:
        return _close(court, case, False)
    if yes + no == len(seats):  # everyone voted and it is a tie
        if case.kind is J.CaseKind.APPEAL:
            return _close(court, case, False)  # 维持原判
        return [J.CaseClosed(case.id, J.CaseStatus.DEADLOCKED), *court.redeal()]
    return []


def votes_with_reporter(case: J.Case) -> tuple[J.Vote, ...]:
    """A report counts as its reporter's vote to uphold it."""
    if case.kind is J.CaseKind.REPORT and all(v.seat != case.by for v in case.votes):
        return (J.Vote(case.by, True), *case.votes)
    return case.votes


def _close(court: Court, case: J.Case, uphold: bool) -> list[Any]:
    status = J.CaseStatus.UPHELD if uphold else J.CaseStatus.REJECTED
    facts: list[Any] = [J.CaseClosed(case.id, status)]
    if not uphold:
        return facts
    if case.kind is J.CaseKind.APPEAL:
        assert case.appeals_case is not None
        return [*facts, J.PenaltyRevoked(case.appeals_case, case.accused)]
    return [*facts, *_penalty_facts(court, case)]


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
            f"(evidence v{', v'.join(map(str, event.evidence))}); game paused"
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
    if isinstance(event, J.AttemptRefereed):
        return f"seat {event.seat}: {event.violation.name} refereed ({event.rule}: {event.reason})"
    return repr(event)
