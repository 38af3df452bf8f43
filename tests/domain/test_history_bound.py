"""The bound on a hand's justice history and the justice clock kept as the record is read
(issue 38), through domain.table.act and evolve (given/when/then).

Given a 2-seat table whose seats report each other for 其他违规 with a warning that the
accused confirms (upheld warnings cost nothing, so seats could do it at will): a seat's
reports stop at MAX_REPORTS_PER_DEAL, refused as REPORTS_PER_DEAL, while the other seat's
reports, votes and the game's moves go on; a redeal counts from none again.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from domain import table as tables
from domain.engine import RuleViolation
from domain.huaniao import Mode, Options
from domain.registry import rules_for
from domain.table import deal
from domain.table.justice import facts as J
from domain.table.justice.state import evolve as evolve_justice

WARNING = J.Penalty(J.PenaltyKind.WARNING, 0)


def seated_table(seats: int = 2) -> tables.Table:
    (created,) = tables.create(
        rules_for("huaniao"),
        Options(mode=Mode.BASIC),
        seats,
        "0" * 64,
        deal.secret_from_seed(7),
        (),
        J.Enforcement.REJECT,
        0,
    )
    table = tables.evolve(None, created)
    for seat in range(seats):
        for fact in tables.take_seat(table, seat, f"p{seat}", f"{seat:064}", ""):
            table = tables.evolve(table, fact)
    for fact in tables.start(table):
        table = tables.evolve(table, fact)
    return table


def act(table: tables.Table, command: object) -> tables.Table:
    for fact in tables.act(table, command, None):
        table = tables.evolve(table, fact)
    return table


def warned(table: tables.Table, by: int, accused: int) -> tables.Table:
    """``by`` reports ``accused`` (其他违规, a warning); the accused confirms."""
    report = J.Report(by, accused, J.ViolationKind.OTHER, (table.version,), WARNING, "")
    table = act(table, report)
    return act(table, J.CastVote(accused, table.version, True))


def test_a_seats_reports_stop_at_the_bound_and_the_game_goes_on() -> None:
    table = seated_table()
    for _ in range(J.MAX_REPORTS_PER_DEAL):
        table = warned(table, 0, 1)
    assert len(table.justice.cases) == J.MAX_REPORTS_PER_DEAL
    assert table.justice.open_case is None and table.phase is tables.Phase.PLAYING
    once_more = J.Report(0, 1, J.ViolationKind.OTHER, (table.version,), WARNING, "")
    with pytest.raises(RuleViolation) as refused:
        tables.act(table, once_more, None)
    assert refused.value.reason == "REPORTS_PER_DEAL"
    # the other seat still reports, and the game still moves
    table = warned(table, 1, 0)
    assert table.justice.reports_filed_in_deal(1) == 1
    seat = tables.to_act(table)[0]
    moves = [c for c in tables.legal_commands(table, seat) if type(c) not in J.TABLE_COMMAND_TYPES]
    before = table.version
    table = act(table, random.Random(1).choice(moves))
    assert table.version > before


def test_a_redeal_counts_the_reports_from_none() -> None:
    table = seated_table()
    table = warned(table, 0, 1)
    assert table.justice.reports_filed_in_deal(0) == 1
    after, _ = evolve_justice(table.justice, J.GameRedealt((), 0, 1), table.version + 1, table.game)
    assert after.reports_filed_in_deal(0) == 0


def test_the_kept_clock_sums_the_cases_as_every_recorded_time_does() -> None:
    """The justice clock kept as the record is read (CaseClock: the open case's times and
    the closed cases' pause) gives the same spent time, deadline and budget end as the
    times of every case fact (what the auditor keeps), after every command."""
    rng = random.Random(38)
    table = seated_table()
    now = datetime(2026, 1, 1, tzinfo=UTC)
    clock = tables.CaseClock()
    every: dict[int, datetime] = {}

    def timed(table: tables.Table, command: object) -> tables.Table:
        nonlocal clock, now
        for fact in tables.act(table, command, None):
            table = tables.evolve(table, fact)
            now += timedelta(milliseconds=rng.randint(1, 5000))
            if isinstance(fact, tables.CLOCK_FACT_TYPES):
                clock = tables.clock_after(clock, fact, table.version, now)
                every[table.version] = now
        later = now + timedelta(seconds=3)
        assert tables.justice_spent(table, clock, later) == tables.justice_spent(
            table, every, later
        )
        assert tables.budget_end(table, clock) == tables.budget_end(table, every)
        assert tables.case_deadline(table, clock) == tables.case_deadline(table, every)
        return table

    for round_no in range(40):
        by, accused = round_no % 2, 1 - round_no % 2
        report = J.Report(by, accused, J.ViolationKind.OTHER, (table.version,), WARNING, "")
        table = timed(table, report)
        assert table.justice.open_case is not None
        table = timed(table, J.CastVote(accused, table.justice.open_case.id, True))
    assert tables.justice_spent(table, clock, now) > timedelta()
    assert len(clock) == 0 and len(every) == 3 * 40, "the clock keeps the open case's only"
