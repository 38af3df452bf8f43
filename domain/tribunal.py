"""Deciding and applying the justice facts of ``domain/justice.py`` on a ``Table``.

Kept apart from ``domain/table.py`` (seats, start, moves, storage) so each reads on its
own. The readings are in the docstring of ``domain/justice.py``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from domain import justice as J
from domain.engine import SPECTATOR, MalformedCommand, RuleViolation
from domain.table import Phase, Table, evolve, registry_rules, with_reveal

RULE = "仲裁"  # the seed's term for arbitration, named in refusals


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


def open_case(table: Table) -> J.Case | None:
    return next((c for c in table.cases if c.status is J.CaseStatus.OPEN), None)


def retract(table: Table, command: J.Retract, last: LastMove | None, version: int) -> list[Any]:
    """误操作: the last mover takes its move back, once per game, before anyone moves."""
    _must_be_running(table)
    if command.phrase.strip() not in J.MISPLAY_PHRASES:
        raise RuleViolation(
            "MISPLAY_PHRASE_REQUIRED", "误操作", "say 「風過無痕，月照無意」 (or 「且慢」)"
        )
    if last is None or last.seat != command.seat or last.last_version != version:
        raise RuleViolation(
            "NOTHING_TO_RETRACT", "误操作", "only the last move, before anyone else acts"
        )
    if table.misplays[command.seat] >= 1:
        raise RuleViolation(
            "MISPLAY_ALREADY_USED",
            "误操作",
            "每局仅有一次误操作机会: a second misplay is an ordinary violation",
        )
    rules = registry_rules(table.kind)
    if any(rules.redact(f, SPECTATOR) != f for f in last.facts):
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


def report(table: Table, command: J.Report, version: int) -> list[Any]:
    _must_be_running(table)
    _no_open_case(table)
    if not 0 <= command.accused < table.seat_count or command.accused == command.seat:
        raise MalformedCommand("accused", "name another seat")
    if not command.evidence or any(not 1 <= v <= version for v in command.evidence):
        raise MalformedCommand("evidence", f"name event versions within 1..{version}")
    if len(command.note) > 500:
        raise MalformedCommand("note", "at most 500 characters")
    warned = table.warnings[command.accused] > 0
    penalty = J.seed_penalty(command.violation, _evidence_cards(command), warned)
    if penalty is None and command.violation is J.ViolationKind.DISCARD_ORDER:
        penalty = _repeated_discard(table, command.accused, command.penalty)
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
    after = evolve(table, reported)
    return [reported, *_settle(after, after.cases[-1])]


def _evidence_cards(command: J.Report) -> tuple[int, ...]:
    return command.penalty.cards if command.penalty is not None else ()


def appeal(table: Table, command: J.Appeal) -> list[Any]:
    _must_be_running(table)
    _no_open_case(table)
    record = next((p for p in table.penalties if p.case_id == command.case_id), None)
    if record is None or record.seat != command.seat:
        raise RuleViolation("NO_SUCH_PENALTY", RULE, "you may appeal only your own penalty")
    if record.before is None or record.revoked:
        raise RuleViolation(
            "APPEAL_TOO_LATE", RULE, "申诉 must come right after the penalty, before the next move"
        )
    if len(command.reason) > 500:
        raise MalformedCommand("reason", "at most 500 characters")
    return [J.AppealFiled(command.seat, command.case_id, command.reason)]


def vote(table: Table, command: J.CastVote) -> list[Any]:
    case = open_case(table)
    if case is None or case.id != command.case_id:
        raise RuleViolation("NO_OPEN_CASE", RULE, f"case {command.case_id} is not open")
    if command.seat not in voters(table, case):
        raise RuleViolation("NOT_A_VOTER", RULE, "the accused (or appellant) does not vote")
    if any(v.seat == command.seat for v in case.votes):
        raise RuleViolation("ALREADY_VOTED", RULE, "one vote per seat")
    cast = J.VoteCast(command.seat, case.id, command.uphold)
    after = dataclasses.replace(case, votes=(*case.votes, J.Vote(command.seat, command.uphold)))
    return [cast, *_settle(table, after)]


def rule(table: Table, command: J.Rule) -> list[Any]:
    case = open_case(table)
    if case is None or case.id != command.case_id:
        raise RuleViolation("NO_OPEN_CASE", RULE, f"case {command.case_id} is not open")
    return [J.ArbiterRuled(case.id, command.uphold), *_close(table, case, command.uphold)]


def redeal(table: Table) -> list[Any]:
    """The arbiter declares a dispute unresolvable: 重新洗牌发牌."""
    _must_be_running(table)
    case = open_case(table)
    closing = [J.CaseClosed(case.id, J.CaseStatus.DEADLOCKED)] if case else []
    return [*closing, *_redeal_facts(table)]


def timed_out(table: Table, seat: int, version: int) -> list[Any]:
    """出牌超时: the seed's penalty (摸1张), then the game decides what becomes of the turn.

    A game without penalty rules only has its turn played for it (its first legal
    command), with no penalty."""
    _must_be_running(table)
    rules = registry_rules(table.kind)
    if table.time_limit_ms <= 0 or seat not in rules.to_act(table.game) or open_case(table):
        raise RuleViolation("NO_TIMER", "出牌超时", f"seat {seat} is not on the clock")
    timed = J.TurnTimedOut(seat, table.time_limit_ms)
    if not isinstance(rules, J.PenaltyRules):
        default = getattr(rules, "default_command", None)
        command = (
            default(table.game, seat) if default else rules.legal_commands(table.game, seat)[0]
        )
        return with_reveal(table, [timed, *rules.decide(table.game, command)])

    penalty = J.Penalty(J.PenaltyKind.DRAW, 1)
    state = table.game
    penalty_facts = rules.penalty_facts(state, seat, penalty)
    for f in penalty_facts:
        state = rules.evolve(state, f)
    turn_facts = rules.timeout_facts(state, seat)
    # The case id is the TurnTimedOut's version, so the seat may appeal it like any penalty;
    # the turn taken for it counts as part of the penalty, so an upheld appeal gives it back.
    applied = J.PenaltyApplied(version + 1, seat, penalty, len(penalty_facts) + len(turn_facts))
    return with_reveal(table, [timed, applied, *penalty_facts, *turn_facts])


def referee(
    table: Table, seat: int, found: tuple[J.ViolationKind, tuple[int, ...]], error: RuleViolation
) -> list[Any]:
    """REFEREE enforcement: the forbidden attempt is recorded and the seed's penalty applied
    at once (illegal combo: discard + 摸1; wrong declaration: discard + 摸2; season rule: no
    舞 next turn; discard order: a warning first, then the forced discard)."""
    rules = registry_rules(table.kind)
    assert isinstance(rules, J.PenaltyRules)
    kind, cards = found
    warned = table.warnings[seat] > 0
    penalty = J.seed_penalty(kind, cards, warned)
    if penalty is None and kind is J.ViolationKind.DISCARD_ORDER:
        penalty = _repeated_discard(table, seat, None)
    if penalty is None:
        penalty = J.Penalty(J.PenaltyKind.FORCED_DISCARD, max(1, len(cards)), cards)
    attempt = J.AttemptRefereed(seat, kind, cards, error.rule, error.reason)
    state = table.game
    game_facts = (
        [] if penalty.kind is J.PenaltyKind.WARNING else rules.penalty_facts(state, seat, penalty)
    )
    for f in game_facts:
        state = rules.evolve(state, f)
    turn = rules.penalised_turn_facts(state, seat)
    # the turn taken after the attempt belongs to the penalty: an upheld appeal gives it back
    applied = J.PenaltyApplied(table.version + 1, seat, penalty, len(game_facts) + len(turn))
    return with_reveal(table, [attempt, applied, *game_facts, *turn])


def _repeated_discard(table: Table, seat: int, proposed: J.Penalty | None) -> J.Penalty | None:
    """若再次违规，则强制按正确顺序弃上个回合违规时需要丢弃的牌的数量 (p2:45): the count the
    seat owed at its previous discard violation, whatever the attempt or the reporter says
    (a proposal only counts where no previous count is known)."""
    count = table.discard_counts[seat] if table.discard_counts else 0
    if count > 0:
        return J.Penalty(J.PenaltyKind.FORCED_DISCARD, count)
    return proposed


def _note_discard_violation(table: Table, seat: int) -> Table:
    """Remember what ``seat`` owed at this discard violation (for the next one)."""
    owed = getattr(registry_rules(table.kind), "discard_owed", None)
    if owed is None or not table.discard_counts:
        return table
    counts = tuple(
        owed(table.game, seat) if i == seat else n for i, n in enumerate(table.discard_counts)
    )
    return dataclasses.replace(table, discard_counts=counts)


def time_out_all(table: Table) -> list[Any]:
    """Every awaited seat runs out of time at once (a claim window waits on several): each
    is timed out in turn, on the state the previous one left."""
    facts: list[Any] = []
    current = table
    for seat in registry_rules(table.kind).to_act(table.game):
        if current.phase is not Phase.PLAYING or seat not in registry_rules(table.kind).to_act(
            current.game
        ):
            continue
        step = timed_out(current, seat, current.version)
        for fact in step:
            current = evolve(current, fact)
        facts += step
    return facts


# --- settling a case ---------------------------------------------------------------------


def voters(table: Table, case: J.Case) -> tuple[int, ...]:
    return tuple(s for s in range(table.seat_count) if s != case.accused)


def _settle(table: Table, case: J.Case) -> list[Any]:
    """Close the case once a strict majority of the voters agree, or all voted (tie)."""
    seats = voters(table, case)
    yes = sum(1 for v in votes_with_reporter(case) if v.uphold)
    no = sum(1 for v in votes_with_reporter(case) if not v.uphold)
    majority = len(seats) // 2 + 1
    if yes >= majority:
        return _close(table, case, True)
    if no >= majority:
        return _close(table, case, False)
    if yes + no == len(seats):  # everyone voted and it is a tie
        if case.kind is J.CaseKind.APPEAL:
            return _close(table, case, False)  # 维持原判
        return [J.CaseClosed(case.id, J.CaseStatus.DEADLOCKED), *_redeal_facts(table)]
    return []


def votes_with_reporter(case: J.Case) -> tuple[J.Vote, ...]:
    """A report counts as its reporter's vote to uphold it."""
    if case.kind is J.CaseKind.REPORT and all(v.seat != case.by for v in case.votes):
        return (J.Vote(case.by, True), *case.votes)
    return case.votes


def _close(table: Table, case: J.Case, uphold: bool) -> list[Any]:
    status = J.CaseStatus.UPHELD if uphold else J.CaseStatus.REJECTED
    facts: list[Any] = [J.CaseClosed(case.id, status)]
    if not uphold:
        return facts
    if case.kind is J.CaseKind.APPEAL:
        assert case.appeals_case is not None
        return [*facts, J.PenaltyRevoked(case.appeals_case, case.accused)]
    return with_reveal(table, [*facts, *_penalty_facts(table, case)])


def _penalty_facts(table: Table, case: J.Case) -> list[Any]:
    penalty = case.penalty
    rules = registry_rules(table.kind)
    if penalty.kind in (J.PenaltyKind.WARNING, J.PenaltyKind.FORFEIT):
        game_facts: list[Any] = []
    elif isinstance(rules, J.PenaltyRules):
        game_facts = rules.penalty_facts(table.game, case.accused, penalty)
    else:
        raise RuleViolation(
            "PENALTY_NOT_SUPPORTED", RULE, f"{table.kind} cannot execute {penalty.kind.name}"
        )
    return [J.PenaltyApplied(case.id, case.accused, penalty, len(game_facts)), *game_facts]


def _redeal_facts(table: Table) -> list[Any]:
    from domain import audit
    from domain.table import shuffle

    rules = registry_rules(table.kind)
    contributions = tuple(s.contribution for s in table.seats if s is not None)
    n = table.redeals + 1
    seed = audit.shuffle_seed(table.secret, (*contributions, f"redeal-{n}"))
    deck = shuffle(rules.new_deck(table.options), seed)
    redealt = J.GameRedealt(deck, seed, n)
    fresh = evolve(table, redealt)
    return [redealt, *rules.deal(fresh.game)]


def _must_be_running(table: Table) -> None:
    if table.phase is not Phase.PLAYING:
        raise RuleViolation("GAME_NOT_RUNNING", RULE, "only during a game")


def _no_open_case(table: Table) -> None:
    case = open_case(table)
    if case is not None:
        raise RuleViolation("CASE_OPEN", RULE, f"case {case.id} must be settled first")


# --- evolve ------------------------------------------------------------------------------


def apply(table: Table, event: Any) -> Table:
    """Apply one justice fact. ``table.version`` is already this fact's version."""
    if isinstance(event, J.MoveRetracted):
        raise AssertionError("MoveRetracted is applied with its restored state (table.py)")
    if isinstance(event, J.ViolationReported):
        case = J.Case(
            id=table.version,
            kind=J.CaseKind.REPORT,
            by=event.by,
            accused=event.accused,
            violation=event.violation,
            evidence=event.evidence,
            penalty=event.penalty,
            note=event.note,
        )
        return dataclasses.replace(table, cases=(*table.cases, case))
    if isinstance(event, J.AppealFiled):
        record = next(p for p in table.penalties if p.case_id == event.case_id)
        case = J.Case(
            id=table.version,
            kind=J.CaseKind.APPEAL,
            by=event.seat,
            accused=event.seat,
            violation=_violation_of(table, event.case_id),
            evidence=(event.case_id,),
            penalty=record.penalty,
            note=event.reason,
            appeals_case=event.case_id,
        )
        return dataclasses.replace(table, cases=(*table.cases, case))
    if isinstance(event, J.VoteCast):
        return _update_case(
            table,
            event.case_id,
            lambda c: dataclasses.replace(c, votes=(*c.votes, J.Vote(event.seat, event.uphold))),
        )
    if isinstance(event, J.ArbiterRuled):
        return table
    if isinstance(event, J.CaseClosed):
        table = _update_case(
            table, event.case_id, lambda c: dataclasses.replace(c, status=event.status)
        )
        case = next(c for c in table.cases if c.id == event.case_id)
        if case.kind is J.CaseKind.REPORT and event.status is J.CaseStatus.UPHELD:
            violations = _bump(table.violations, case.accused)
            warnings = table.warnings
            if case.penalty.kind is J.PenaltyKind.WARNING:
                warnings = _bump(warnings, case.accused)
            table = dataclasses.replace(table, violations=violations, warnings=warnings)
            if case.violation is J.ViolationKind.DISCARD_ORDER:
                table = _note_discard_violation(table, case.accused)
            return table
        return table
    if isinstance(event, J.PenaltyApplied):
        record = J.PenaltyRecord(event.case_id, event.seat, event.penalty, table.game)
        violations = table.violations
        if not any(c.id == event.case_id for c in table.cases):  # a timeout: no case
            violations = _bump(violations, event.seat)
        forfeited = table.forfeited
        if event.penalty.kind is J.PenaltyKind.FORFEIT:
            forfeited = (*forfeited, event.seat)
        return dataclasses.replace(
            table,
            penalties=(*_close_appeal_windows(table.penalties), record),
            penalty_facts_pending=event.game_facts,
            forfeited=forfeited,
            violations=violations,
        )
    if isinstance(event, J.PenaltyRevoked):
        record = next(p for p in table.penalties if p.case_id == event.case_id)
        penalties = tuple(
            dataclasses.replace(p, revoked=True, before=None) if p.case_id == event.case_id else p
            for p in table.penalties
        )
        forfeited = tuple(
            s
            for s in table.forfeited
            if not (record.penalty.kind is J.PenaltyKind.FORFEIT and s == record.seat)
        )
        violations = _bump(table.violations, record.seat, -1)
        return dataclasses.replace(
            table,
            game=record.before,
            penalties=penalties,
            forfeited=forfeited,
            violations=violations,
        )
    if isinstance(event, J.GameRedealt):
        rules = registry_rules(table.kind)
        game = rules.initial_state(table.options, table.seat_count, event.deck, event.seed)
        return dataclasses.replace(
            table,
            game=game,
            redeals=event.round,
            penalties=_close_appeal_windows(table.penalties),
        )
    if isinstance(event, J.AttemptRefereed):
        if event.violation is not J.ViolationKind.DISCARD_ORDER:
            return table
        table = dataclasses.replace(table, warnings=_bump(table.warnings, event.seat))
        return _note_discard_violation(table, event.seat)
    if isinstance(event, J.TurnTimedOut):
        return table
    raise AssertionError(f"not a justice fact: {event!r}")


def after_game_fact(table: Table) -> Table:
    """A game fact arrived: it is either part of a penalty (counting down) or a move, which
    closes the appeal windows ("immediately after the penalty")."""
    if table.penalty_facts_pending > 0:
        return dataclasses.replace(table, penalty_facts_pending=table.penalty_facts_pending - 1)
    if any(p.before is not None for p in table.penalties):
        return dataclasses.replace(table, penalties=_close_appeal_windows(table.penalties))
    return table


def _close_appeal_windows(records: tuple[J.PenaltyRecord, ...]) -> tuple[J.PenaltyRecord, ...]:
    return tuple(
        dataclasses.replace(p, before=None) if p.before is not None else p for p in records
    )


def _violation_of(table: Table, case_id: int) -> J.ViolationKind:
    case = next((c for c in table.cases if c.id == case_id), None)
    return case.violation if case is not None else J.ViolationKind.TIMEOUT


def _update_case(table: Table, case_id: int, change: Any) -> Table:
    return dataclasses.replace(
        table, cases=tuple(change(c) if c.id == case_id else c for c in table.cases)
    )


def _bump(counts: tuple[int, ...], seat: int, by: int = 1) -> tuple[int, ...]:
    return tuple(n + by if i == seat else n for i, n in enumerate(counts))


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
