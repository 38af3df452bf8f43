"""Through a real server: two colluding seats at a 3-seat table cannot hold a hand paused past
its justice budget (issue 35; docs/threats.md, "the pause").

The colluders play the harness's longest-pause strategy on the wall clock: one reports the
honest seat, the honest seat votes "no" at once (what its client does), the other colluder
votes at the last moment (its vote moves the case's deadline, once), and when one
colluder's reports run out the other reports. Every case closes; the hand's cases together
pause it no longer than its budget (the record's own times, the server's timer latency
allowed), and once the budget is spent the next report is refused, nothing appended.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime

import grpc
import pytest

from clients.python.client import TableClient, reveal_and_start
from clients.python.seat import SeatClient
from clients.python.serverproc import ServerProcess
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.zipai.v1 import zipai_pb2
from tests.api.test_justice import report, vote

CASE_MS = 1000  # the table's case limit
BUDGET_MS = 2000  # its justice budget: spent before the colluders' reports run out (4)
LATE_MS = 150  # how long before a deadline the colluder votes
TIMER_SLACK_MS = 500  # the server's timer may fire this late on a loaded machine


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TableClient]:
    # a case limit of a second is allowed (the server's floor for clocks, lowered)
    proc = ServerProcess(tmp_path_factory.mktemp("pause"), extra=["--min-turn-time", "0.5"])
    with proc as server, TableClient(server.target) as c:
        yield c


def _open_case(viewer: SeatClient) -> pb.CaseView | None:
    cases = [c for c in viewer.view().cases if c.status == pb.CASE_STATUS_OPEN]
    return cases[0] if cases else None


def _wait_closed(viewer: SeatClient, until: float) -> None:
    while _open_case(viewer) is not None:
        assert time.monotonic() < until, "a case never closed"
        time.sleep(0.05)


def _paused_ms(history: list[pb.GameEvent]) -> float:
    """The hand's pause by the record: from each case's opening to its close."""
    total, opened = 0.0, None
    for e in history:
        kind = e.table.WhichOneof("kind") if e.HasField("table") else None
        at = e.recorded_at.ToDatetime()
        if kind in ("violation_reported", "appeal_filed"):
            opened = at
        elif kind == "case_closed" and opened is not None:
            total += (at - opened).total_seconds() * 1000
            opened = None
    assert opened is None, "a case is still open"
    return total


def test_two_colluders_cannot_pause_a_hand_past_its_budget(client: TableClient) -> None:
    created = client.create_game(
        pb.GameOptions(zipai=zipai_pb2.Options()),
        3,
        case_time_limit_ms=CASE_MS,
        justice_budget_ms=BUDGET_MS,
    )
    gid = created.game_id
    seats = [client.join(gid, s, f"p{s}") for s in range(3)]  # keyed, signing
    reveal_and_start(seats)
    honest, colluders = seats[2], seats[:2]
    viewer = client.as_viewer(gid, created.arbiter_token)
    refused: grpc.RpcError | None = None
    until = time.monotonic() + 60
    reports = 0
    while refused is None and time.monotonic() < until:
        reporter = colluders[reports // 2 % 2]  # two failed reports each, then the other
        partner = colluders[1 - reports // 2 % 2]
        version = viewer.view().version
        try:
            case = report(reporter, honest.seat, version)
        except grpc.RpcError as err:
            refused = err
            assert viewer.view().version == version, "a refused report appended events"
            break
        reports += 1
        opened = time.monotonic()
        vote(honest, case, False, honest.view().version)  # the honest seat: "no", at once
        open_case = _open_case(viewer)
        # the partner votes just before the deadline; a case the budget cuts short it lets
        # run out instead (whichever pauses longer)
        left = open_case.deadline.ToDatetime().timestamp() - time.time() if open_case else 0
        if left > 3 * LATE_MS / 1000:
            time.sleep(left - LATE_MS / 1000)
            if _open_case(viewer) is not None:
                try:
                    vote(partner, case, True, partner.view().version)
                except grpc.RpcError:
                    pass  # the case ran out at the budget first
        _wait_closed(viewer, opened + 30)
    paused = _paused_ms(list(viewer.history()))
    print(f"pause of the hand: {paused:.0f} ms over {reports} cases (budget {BUDGET_MS} ms)")
    assert refused is not None, f"the colluders reported {reports} times and were never stopped"
    assert reports >= 2, "the budget must be spent by the colluders' cases, not by nothing"
    assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "budget" in (refused.details() or ""), refused.details()
    assert paused <= BUDGET_MS + TIMER_SLACK_MS, f"{paused:.0f} ms paused past the budget"
    assert paused >= BUDGET_MS * 0.5, "the colluders did not stretch the cases at all"


def test_the_recorded_times_are_the_servers(client: TableClient) -> None:
    """The view's case deadline is the case limit after its opening (the clock the test
    above reads), to the millisecond."""
    created = client.create_game(
        pb.GameOptions(zipai=zipai_pb2.Options()),
        3,
        case_time_limit_ms=CASE_MS,
        justice_budget_ms=BUDGET_MS,
    )
    seats = [client.join(created.game_id, s, f"p{s}") for s in range(3)]
    reveal_and_start(seats)
    viewer = client.as_viewer(created.game_id, created.arbiter_token)
    report(seats[0], 2, viewer.view().version)
    opened = [
        e
        for e in viewer.history()
        if e.HasField("table") and e.table.HasField("violation_reported")
    ][-1]
    case = _open_case(viewer)
    assert case is not None
    due: datetime = case.deadline.ToDatetime()
    assert (due - opened.recorded_at.ToDatetime()).total_seconds() * 1000 == pytest.approx(
        CASE_MS, abs=1
    )
