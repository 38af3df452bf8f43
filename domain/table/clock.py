"""The justice clock: when an open case's next step is due, and the hand's justice budget
(how long cases may pause one hand in all). Functions of the record, like the draw's
deadlines (``draw.reveal_deadline``)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime, timedelta
from typing import Any

from domain.engine import RuleViolation
from domain.table.justice import facts as J
from domain.table.state import Phase, Table

# the justice facts whose recorded times a case's deadline and the hand's budget follow from
CLOCK_FACT_TYPES = (J.ViolationReported, J.AppealFiled, J.VoteCast, J.CaseTimedOut, J.CaseClosed)


class CaseClock(Mapping[int, datetime]):
    """The recorded times a hand's justice clock follows from, kept as the record is read
    (``clock_after``): the times of the open case's facts, by version, and how long the
    closed cases paused the hand in all. Its size does not grow with the history, so
    neither does the cost of a deadline or of the budget (issue 38); a plain mapping of
    every case fact's time (the auditor's) gives the same answers, summed case by case."""

    __slots__ = ("_open", "closed")

    def __init__(
        self, open_times: Mapping[int, datetime] | None = None, closed: timedelta = timedelta()
    ) -> None:
        self._open: dict[int, datetime] = dict(open_times or {})
        self.closed = closed  # the closed cases' pauses, each from its opening to its close

    def __getitem__(self, version: int) -> datetime:
        return self._open[version]

    def __iter__(self) -> Iterator[int]:
        return iter(self._open)

    def __len__(self) -> int:
        return len(self._open)

    def __repr__(self) -> str:
        return f"CaseClock({self._open!r}, closed={self.closed!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CaseClock):
            return self._open == other._open and self.closed == other.closed
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


def clock_after(clock: CaseClock, fact: Any, version: int, at: datetime) -> CaseClock:
    """``clock`` after the fact at ``version``, recorded at ``at``: a report or an appeal
    opens a case's times, a vote or a timeout adds one, a close adds the case's pause to
    the closed total and forgets its times. Other facts leave it as it is."""
    if isinstance(fact, (J.ViolationReported, J.AppealFiled)):
        return CaseClock({version: at}, clock.closed)
    if isinstance(fact, (J.VoteCast, J.CaseTimedOut)):
        return CaseClock({**clock._open, version: at}, clock.closed)
    if isinstance(fact, J.CaseClosed):
        opened = clock._open.get(fact.case_id)
        paused = timedelta() if opened is None else max(timedelta(), at - opened)
        return CaseClock({}, clock.closed + paused)
    return clock


def case_deadline(table: Table, at: Mapping[int, datetime]) -> datetime | None:
    """When the open case's next step is due: the table's case limit after the fact its
    clock runs from (``Case.clock``: the opening, an awaited voter's first vote, the seats'
    timeout), and never after the hand's justice budget runs out (``budget_end``). ``at``
    maps versions to their recorded times (at least the ``CLOCK_FACT_TYPES`` facts'). At
    the deadline the server appends the case's timeout (``time_out_all``). None when no
    case is open or the table has no case deadline (records made before it, without a
    clock). A function of the record, like ``reveal_deadline``: no other fact (an
    AgreeRedeal, a seat's key, a retry) moves it."""
    limit = table.case_time_limit_ms or table.time_limit_ms
    case = table.justice.open_case
    if table.phase is not Phase.PLAYING or case is None or limit <= 0:
        return None
    deadline = at[case.clock or case.id] + timedelta(milliseconds=limit)
    end = budget_end(table, at)
    return deadline if end is None else min(deadline, end)


def justice_spent(table: Table, at: Mapping[int, datetime], now: datetime) -> timedelta:
    """How long the hand's cases have paused it by ``now``: each closed case from its
    opening to its close, and the open one up to ``now``."""
    if isinstance(at, CaseClock):  # the closed cases summed as they closed
        case = table.justice.open_case
        return at.closed + (
            max(timedelta(), now - at[case.id]) if case is not None else timedelta()
        )
    spent = timedelta()
    for case in table.justice.cases:
        end = at[case.closed] if case.closed else now
        spent += max(timedelta(), end - at[case.id])
    return spent


def budget_end(table: Table, at: Mapping[int, datetime]) -> datetime | None:
    """When the open case has used up the hand's justice budget (None: no budget, a record
    made before it, or no open case)."""
    case = table.justice.open_case
    if table.justice_budget_ms <= 0 or case is None:
        return None
    opened = at[case.id]
    before = justice_spent(table, at, opened)  # the earlier cases' (the open one's is 0)
    return opened + timedelta(milliseconds=table.justice_budget_ms) - before


def check_justice_budget(table: Table, at: Mapping[int, datetime], now: datetime) -> None:
    """A report or an appeal opens a case only while the hand's justice budget lasts: the
    bound on how long cases pause one hand (docs/api.md, "Justice")."""
    budget = table.justice_budget_ms
    if budget > 0 and justice_spent(table, at, now) >= timedelta(milliseconds=budget):
        raise RuleViolation(
            "JUSTICE_BUDGET_SPENT",
            J.BUDGET_RULE,
            f"this hand's cases have paused it for its whole budget ({budget} ms): "
            "no more reports or appeals in this hand",
        )
