"""Justice's own state at a table, and its ``evolve``.

The table holds a :class:`JusticeState` beside the game's state. Justice facts change only
this part, except where the seed makes them touch the game as a whole: a retraction and an
upheld appeal put back a game state recorded earlier, and a penalty records the game state
it changes so that an appeal can restore it. Justice never looks inside a game state.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from domain.engine import replaced
from domain.table.justice import facts as J


@dataclass(frozen=True)
class JusticeState:
    cases: tuple[J.Case, ...] = ()  # reports and appeals
    penalties: tuple[J.PenaltyRecord, ...] = ()
    misplays: tuple[int, ...] = ()  # 误操作 used, per seat
    violations: tuple[int, ...] = ()  # the violation record, per seat
    warnings: tuple[int, ...] = ()  # 弃牌违规 warnings, per seat
    forfeited: tuple[int, ...] = ()  # seats declared lost (判负)
    redeals: int = 0  # 重新洗牌发牌 so far
    penalty_facts_pending: int = 0  # game facts still to come for the last penalty
    # 弃牌违规 (p2:45), per seat: the discard owed at its last discard violation (0: none)
    discard_counts: tuple[int, ...] = ()
    # per seat: its failed reports in the match's earlier hands (GameCreated.match_failed_reports)
    failed_before: tuple[int, ...] = ()
    # a record made before redeals needed every seat (GameCreated.justice_budget_ms 0): a
    # report that ended in a redeal did not fail then
    legacy: bool = False
    # per seat: the reports it filed since the deal (toward MAX_REPORTS_PER_DEAL; () until
    # its first report, and in a state stored before issue 38)
    reports_in_deal: tuple[int, ...] = ()

    @staticmethod
    def for_seats(
        seat_count: int, failed_before: tuple[int, ...] = (), legacy: bool = False
    ) -> JusticeState:
        zeros = (0,) * seat_count
        return JusticeState(
            misplays=zeros,
            violations=zeros,
            warnings=zeros,
            discard_counts=zeros,
            failed_before=failed_before,
            legacy=legacy,
        )

    @property
    def open_case(self) -> J.Case | None:
        """The open case: always the latest, since a case opens only when none is open
        (``decide._no_open_case``), so looking at the last is enough (a move's cost must
        not grow with the history: issue 38)."""
        if self.cases and self.cases[-1].status is J.CaseStatus.OPEN:
            return self.cases[-1]
        return None

    @property
    def paused(self) -> bool:
        """A report or appeal is open: no game move until it is settled."""
        return self.open_case is not None

    def failed_reports(self, seat: int) -> int:
        """``seat``'s reports in the match so far that closed REJECTED, UNRESOLVED or (a
        redeal) DEADLOCKED: the earlier hands' and this hand's (toward REPORT_LIMIT)."""
        failed: tuple[J.CaseStatus, ...] = (J.CaseStatus.REJECTED, J.CaseStatus.UNRESOLVED)
        if not self.legacy:
            failed += (J.CaseStatus.DEADLOCKED,)
        before = self.failed_before[seat] if seat < len(self.failed_before) else 0
        return before + sum(
            c.kind is J.CaseKind.REPORT and c.by == seat and c.status in failed for c in self.cases
        )

    def reports_filed_in_deal(self, seat: int) -> int:
        """``seat``'s reports since the deal (toward ``MAX_REPORTS_PER_DEAL``)."""
        return self.reports_in_deal[seat] if seat < len(self.reports_in_deal) else 0

    def reports_left(self, seat: int) -> int:
        """How many more reports ``seat`` may file (each may still fail)."""
        return max(0, J.FAILED_REPORTS_ALLOWED - self.failed_reports(seat))


def evolve(state: JusticeState, event: Any, version: int, game: Any) -> tuple[JusticeState, Any]:
    """Apply one justice fact (``version`` is its version). Returns the new justice state and
    the game state, which only a retraction or a revoked penalty replaces."""
    if isinstance(event, J.MoveRetracted):
        return replaced(state, misplays=_bump(state.misplays, event.seat)), event.restored
    if isinstance(event, J.PenaltyApplied):
        return _penalty_applied(state, event, game), game
    if isinstance(event, J.PenaltyRevoked):
        return _penalty_revoked(state, event)
    return _EVOLVE[type(event)](state, event, version), game


def after_game_fact(state: JusticeState) -> JusticeState:
    """A game fact arrived: it is either part of a penalty (counting down) or a move, which
    closes the appeal windows ("immediately after the penalty")."""
    if state.penalty_facts_pending > 0:
        return replaced(state, penalty_facts_pending=state.penalty_facts_pending - 1)
    if state.penalties and state.penalties[-1].before is not None:
        return replaced(state, penalties=_close_appeal_windows(state.penalties))
    return state


def _reported(state: JusticeState, event: J.ViolationReported, version: int) -> JusticeState:
    case = J.Case(
        id=version,
        kind=J.CaseKind.REPORT,
        by=event.by,
        accused=event.accused,
        violation=event.violation,
        evidence=event.evidence,
        penalty=event.penalty,
        note=event.note,
        owed=event.owed,
        clock=version,
    )
    filed = state.reports_in_deal or (0,) * len(state.misplays)
    return replaced(state, cases=(*state.cases, case), reports_in_deal=_bump(filed, event.by))


def _appealed(state: JusticeState, event: J.AppealFiled, version: int) -> JusticeState:
    record = next(p for p in state.penalties if p.case_id == event.case_id)
    appealed = _find_case(state, event.case_id)
    recused: tuple[
        int, ...
    ] = ()  # a penalty without a case (a timeout, a refereed attempt): nobody reported
    if appealed is not None:  # its reporter and every seat that voted to uphold it
        recused = (appealed.by, *(v.seat for v in appealed.votes if v.uphold))
    case = J.Case(
        id=version,
        kind=J.CaseKind.APPEAL,
        by=event.seat,
        accused=event.seat,
        violation=_violation_of(state, event.case_id),
        evidence=(event.case_id,),
        penalty=record.penalty,
        note=event.reason,
        appeals_case=event.case_id,
        recused=tuple(sorted(set(recused))),
        clock=version,
    )
    return replaced(state, cases=(*state.cases, case))


def _voted(state: JusticeState, event: J.VoteCast, version: int) -> JusticeState:
    """A vote (only an awaited voter's is decided) moves the case's clock, once per voter."""
    vote = J.Vote(event.seat, event.uphold)

    def cast(case: J.Case) -> J.Case:
        case = replaced(case, votes=(*case.votes, vote))
        if event.seat in case.clocked_by:
            return case
        return replaced(case, clock=version, clocked_by=(*case.clocked_by, event.seat))

    return _update_case(state, event.case_id, cast)


def _closed(state: JusticeState, event: J.CaseClosed, version: int) -> JusticeState:
    state = _update_case(
        state,
        event.case_id,
        lambda c: replaced(c, status=event.status, closed=version),
    )
    case = _find_case(state, event.case_id)
    assert case is not None
    if case.kind is J.CaseKind.APPEAL and event.status is not J.CaseStatus.UPHELD:
        return _appeal_spent(state, case.appeals_case)  # one appeal per penalty
    if case.kind is not J.CaseKind.REPORT or event.status is not J.CaseStatus.UPHELD:
        return state
    warnings = state.warnings
    if case.penalty.kind is J.PenaltyKind.WARNING:
        warnings = _bump(warnings, case.accused)
    if case.violation is J.ViolationKind.DISCARD_ORDER:
        state = _discard_violation(state, case.accused, case.owed)
    return replaced(state, violations=_bump(state.violations, case.accused), warnings=warnings)


def _appeal_spent(state: JusticeState, case_id: int | None) -> JusticeState:
    """The penalty of ``case_id`` was appealed and stands: it may not be appealed again
    (else one seat could pause the game appeal after appeal)."""
    penalties = tuple(
        replaced(p, before=None) if p.case_id == case_id else p for p in state.penalties
    )
    return replaced(state, penalties=penalties)


def _case_timed_out(state: JusticeState, event: J.CaseTimedOut, version: int) -> JusticeState:
    """The votes not cast by the deadline lapse: they count as not confirming. The clock
    moves once more: the arbiter, awaited now, gets the case limit (within the budget)."""
    return _update_case(
        state,
        event.case_id,
        lambda c: replaced(c, lapsed=(*c.lapsed, *event.seats), clock=version),
    )


def _discard_violation(state: JusticeState, seat: int, owed: int) -> JusticeState:
    """Remember what ``seat`` owed at this discard violation, for its next one."""
    counts = state.discard_counts or (0,) * len(state.warnings)
    counts = tuple(owed if i == seat else n for i, n in enumerate(counts))
    return replaced(state, discard_counts=counts)


def _penalty_applied(state: JusticeState, event: J.PenaltyApplied, game: Any) -> JusticeState:
    record = J.PenaltyRecord(event.case_id, event.seat, event.penalty, game)
    violations = state.violations
    if _find_case(state, event.case_id) is None:  # a timeout: no case
        violations = _bump(violations, event.seat)
    forfeited = state.forfeited
    if event.penalty.kind is J.PenaltyKind.FORFEIT:
        forfeited = (*forfeited, event.seat)
    return replaced(
        state,
        penalties=(*_close_appeal_windows(state.penalties), record),
        penalty_facts_pending=event.game_facts,
        forfeited=forfeited,
        violations=violations,
    )


def _penalty_revoked(state: JusticeState, event: J.PenaltyRevoked) -> tuple[JusticeState, Any]:
    record = next(p for p in state.penalties if p.case_id == event.case_id)
    penalties = tuple(
        replaced(p, revoked=True, before=None) if p.case_id == event.case_id else p
        for p in state.penalties
    )
    forfeited = tuple(
        s
        for s in state.forfeited
        if not (record.penalty.kind is J.PenaltyKind.FORFEIT and s == record.seat)
    )
    after = replaced(
        state,
        penalties=penalties,
        forfeited=forfeited,
        violations=_bump(state.violations, record.seat, -1),
    )
    return after, record.before


def _redealt(state: JusticeState, event: J.GameRedealt, version: int) -> JusticeState:
    """The table deals the new game; justice counts the redeal, closes appeal windows and
    counts the seats' reports in the new deal from none."""
    return replaced(
        state,
        redeals=event.round,
        penalties=_close_appeal_windows(state.penalties),
        reports_in_deal=(),  # a new deal: the seats' reports count from none again
    )


def _refereed(state: JusticeState, event: J.AttemptRefereed, version: int) -> JusticeState:
    if event.violation is J.ViolationKind.DISCARD_ORDER:
        state = replaced(state, warnings=_bump(state.warnings, event.seat))
        return _discard_violation(state, event.seat, event.owed)
    return state


def _redeal_agreed(state: JusticeState, event: J.RedealAgreed, version: int) -> JusticeState:
    return _update_case(
        state,
        event.case_id,
        lambda c: replaced(c, redeal_agreed=(*c.redeal_agreed, event.seat)),
    )


def _unchanged(state: JusticeState, event: Any, version: int) -> JusticeState:
    return state


_EVOLVE: dict[type, Callable[[JusticeState, Any, int], JusticeState]] = {
    J.ViolationReported: _reported,
    J.AppealFiled: _appealed,
    J.VoteCast: _voted,
    J.ArbiterRuled: _unchanged,
    J.CaseClosed: _closed,
    J.GameRedealt: _redealt,
    J.AttemptRefereed: _refereed,
    J.TurnTimedOut: _unchanged,
    J.RedealAgreed: _redeal_agreed,
    J.CaseTimedOut: _case_timed_out,
}


def _close_appeal_windows(records: tuple[J.PenaltyRecord, ...]) -> tuple[J.PenaltyRecord, ...]:
    """Only the latest penalty can still be appealed: each new penalty, game fact and
    redeal closes the window before it, so only the last record is looked at."""
    if not records or records[-1].before is None:
        return records
    return (*records[:-1], replaced(records[-1], before=None))


def _violation_of(state: JusticeState, case_id: int) -> J.ViolationKind:
    case = _find_case(state, case_id)
    return case.violation if case is not None else J.ViolationKind.TIMEOUT


def _case_index(cases: tuple[J.Case, ...], case_id: int) -> int | None:
    """Where the case ``case_id`` is, found by bisection: cases are kept in the order of
    their ids (each id is the version of the fact that opened it)."""
    i = bisect.bisect_left(cases, case_id, key=_case_id)
    return i if i < len(cases) and cases[i].id == case_id else None


def _case_id(case: J.Case) -> int:
    return case.id


def _find_case(state: JusticeState, case_id: int) -> J.Case | None:
    i = _case_index(state.cases, case_id)
    return None if i is None else state.cases[i]


def _update_case(state: JusticeState, case_id: int, change: Any) -> JusticeState:
    cases = state.cases
    i = _case_index(cases, case_id)
    if i is None:
        return state
    return replaced(state, cases=(*cases[:i], change(cases[i]), *cases[i + 1 :]))


def _bump(counts: tuple[int, ...], seat: int, by: int = 1) -> tuple[int, ...]:
    return tuple(n + by if i == seat else n for i, n in enumerate(counts))
