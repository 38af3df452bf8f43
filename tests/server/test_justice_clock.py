"""Case clocks and the justice budget through the use cases (in process, no sockets): the
server times a case out on the deadline its record gives, refuses a report once the hand's
budget is spent (nothing appended), and the verifier refuses a record whose case was timed
out before its recorded deadline, even re-signed by the key holder (docs/api.md, "Justice").

No timing window is asserted: each test waits longer than the deadline it needs, so a
loaded machine only makes the recorded times later, never the outcome different."""

from __future__ import annotations

import asyncio
import dataclasses
import random
import uuid

import pytest

from domain import table as tables
from domain.engine import ARBITER, RuleViolation, Viewer
from domain.huaniao.options import Mode, Options
from domain.registry import rules_for
from domain.table import deal
from domain.table.justice import facts as J
from domain.verify import AuditFailure, parse_export, verify
from server.startup.compose import table_server
from server.store.eventstore import TableApplication
from server.usecases.table_server import TableServer
from server.usecases.timers import TurnClock
from server.wire.receipts import Sealer
from server.wire.signedcommands import read_signed_command
from server.wire.signing import Signer
from tests.api.test_audit import as_lines, rechain, reseal
from tests.support.records import export

CASE_S = 0.05  # the server's case limit here (50 ms); the tests wait well past it


def report(version: int) -> J.Report:
    return J.Report(0, 1, J.ViolationKind.OTHER, (version,), J.Penalty(J.PenaltyKind.WARNING), "")


async def dealt(ts: TableServer, **settings: int) -> str:
    gid, _, _ = await ts.seats.create_game(
        "huaniao", Options(mode=Mode.SIMPLE), 2, allow_unkeyed_seats=True, **settings
    )
    for s in range(2):
        await ts.seats.join_game(gid, s, f"p{s}", commitment=deal.contribution_commitment(f"c{s}"))
    for s in range(2):
        await ts.deal.reveal(gid, Viewer.of_seat(s), f"c{s}")
    await ts.deal.start_game(gid, ARBITER)
    return gid


async def timed_out_case(ts: TableServer, clock: TurnClock, gid: str) -> None:
    """Seat 0 reports seat 1, who never votes; once past the deadline the server's clock
    times the case out (UNRESOLVED: no arbiter)."""
    version = (await ts.watch.snapshot(gid, ARBITER, None)).version
    await ts.play.play(gid, Viewer.of_seat(0), version, report(version))
    await asyncio.sleep(4 * CASE_S)
    await clock.expire(uuid.UUID(gid), version + 1)
    table = (await ts.watch.snapshot(gid, ARBITER, None)).table
    assert table.justice.open_case is None, "the case timed out"
    assert table.justice.cases[-1].status is J.CaseStatus.UNRESOLVED


async def play_to_end(ts: TableServer, gid: str, seed: int) -> None:
    rng = random.Random(seed)
    rules = rules_for("huaniao")
    while True:
        table = (await ts.watch.snapshot(gid, ARBITER, None)).table
        if table.phase is not tables.Phase.PLAYING:
            return
        seat = rng.choice(list(rules.to_act(table.game)))
        _t, version, legal = await ts.play.legal_moves(gid, Viewer.of_seat(seat))
        moves = [c for c in legal if type(c) in rules.command_types]
        await ts.play.play(gid, Viewer.of_seat(seat), version, rng.choice(moves or legal))


def server(signer: Signer) -> TableServer:
    app = TableApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    return table_server(app, sealer=Sealer(signer), reveal_timeout=0.0, case_timeout=CASE_S)


def test_a_case_timed_out_before_its_recorded_deadline_fails_the_audit() -> None:
    """The honest record verifies; the same record with the timeout recorded at the
    report's time (re-chained and re-sealed by a forger, verified under the forger's key)
    is refused for its clock."""
    signer = Signer.generate()

    async def run() -> tuple[str, list[str]]:
        ts = server(signer)
        clock = TurnClock(ts.games)
        try:
            gid = await dealt(ts)
            await timed_out_case(ts, clock, gid)
            await play_to_end(ts, gid, seed=7)
            return gid, await export(ts, gid)
        finally:
            clock.close()
            ts.games.close()

    gid, lines = asyncio.run(run())
    assert verify(
        parse_export(lines), signer.public_key, gid, command_reader=read_signed_command
    ).events == len(lines)
    rs = parse_export(lines)
    i = next(k for k, r in enumerate(rs) if (r.cause or {}).get("action") == "timeout")
    rs[i] = dataclasses.replace(rs[i], recorded_at=rs[i - 1].recorded_at)  # a case cut short
    forger = Signer.generate()
    forged = as_lines(reseal(rechain(rs), forger, gid))
    with pytest.raises(AuditFailure) as e:
        verify(parse_export(forged), forger.public_key, gid, command_reader=read_signed_command)
    assert "timed out before its deadline" in str(e.value)


def test_once_the_hands_budget_is_spent_a_report_is_refused_and_nothing_appended() -> None:
    """A budget of 60 ms and a case limit of 50 ms: the first case runs out at its deadline
    (waited for well past it), which spends the budget; the next report is refused with
    JUSTICE_BUDGET_SPENT and the game goes on."""

    async def run() -> None:
        ts = server(Signer.generate())
        clock = TurnClock(ts.games)
        try:
            gid = await dealt(ts, justice_budget_ms=60)
            await timed_out_case(ts, clock, gid)
            version = (await ts.watch.snapshot(gid, ARBITER, None)).version
            with pytest.raises(RuleViolation) as e:
                await ts.play.play(gid, Viewer.of_seat(0), version, report(version))
            assert e.value.reason == "JUSTICE_BUDGET_SPENT"
            assert (await ts.watch.snapshot(gid, ARBITER, None)).version == version, "appended"
        finally:
            clock.close()
            ts.games.close()

    asyncio.run(run())


def test_a_case_opened_before_its_times_were_kept_keeps_the_rule_it_was_opened_under() -> None:
    """A game restored from a snapshot made before the case facts' times were kept: its open
    case's deadline is the table's latest event plus the case limit, not a crash."""
    from datetime import UTC, datetime, timedelta

    from server.wire.stored import open_case_deadline
    from tests.domain.test_justice import opened

    h = opened(seats=3)
    h.act(report(h.version))
    latest = datetime(2025, 1, 1, tzinfo=UTC)
    due = open_case_deadline(h.table, {}, latest)
    assert due == latest + timedelta(milliseconds=h.table.case_time_limit_ms)
    assert open_case_deadline(h.table, h.at, latest) == h.case_deadline()
