"""A long justice history through a real server (issue 38): what one more event costs does
not grow with the history, and the bound on the history refuses cleanly.

A 2-seat table whose seats report each other for 其他违规 with a warning that the accused
confirms (four events a round, none counting against a seat), a spectator asking for the
table after every round, until the bound (``MAX_REPORTS_PER_DEAL`` reports per seat per
deal) refuses the next report. The server's RSS growth per event and its store reads per
round are compared between an early and the last stretch of the history: before issue 38
the signed-view cache held up to 1,024 views, each listing every case, and RSS per event
grew half again from one stretch to the other (32 -> 50 KB per event). Not timed: no
assertion is on a duration (bench/long_history.py prints those).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from bench.long_history import (
    EVENTS_PER_ROUND,
    Sample,
    grow,
    metrics_port_of,
    open_table,
    per_event,
    warn_round,
)
from clients.python.client import TableClient
from clients.python.serverproc import ServerProcess
from domain.table.justice import facts as J
from tests.api.test_justice import reason

EARLY = (500, 1000)  # events: after the server's warm-up
LATE_FROM = 1500  # to the end of the history (about 2,050 events)


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    # a small view cache, so that it is full within the early stretch: what is compared is
    # the growth that remains (--move-rate 0: the rounds are as fast as the server allows)
    with tempfile.TemporaryDirectory(prefix="long-history-") as tmp:
        proc = ServerProcess(
            Path(tmp),
            extra=["--metrics-port", "0", "--move-rate", "0", "--view-cache-mb", "4"],
        ).start()
        try:
            yield proc
        finally:
            proc.stop()


def stretch(samples: list[Sample], first: int, last: int) -> dict[str, float]:
    """Per event between the samples nearest ``first`` and ``last`` events."""
    a = min(samples, key=lambda s: abs(s.version - first))
    b = min(samples, key=lambda s: abs(s.version - last))
    return per_event(a, b)


def test_a_long_justice_history_costs_flat_and_stops_at_its_bound(server: ServerProcess) -> None:
    with TableClient(server.target) as client:
        game_id, seats = open_table(client)
        spectator = client.as_viewer(game_id)
        version = spectator.view().version
        samples = list(
            grow(server, metrics_port_of(server), seats, version, 10**6, 100, spectator.view)
        )
        end = samples[-1].version
        cases = 2 * J.MAX_REPORTS_PER_DEAL
        assert end >= version + cases * EVENTS_PER_ROUND, "the history ran to its bound"

        early = stretch(samples, *EARLY)
        late = stretch(samples, LATE_FROM, end)
        print(f"per event, early {early}, late {late}")  # the figures, in -s output
        # RSS per event may not grow with the history: half again (the old view cache) fails
        assert late["rss_bytes"] <= 1.25 * max(early["rss_bytes"], 0) + 2048, (early, late)
        # nor may the store reads of a round
        assert late["reads"] <= early["reads"] + 0.25, (early, late)

        # the bound: the next report is refused, naming it, and nothing is appended
        with pytest.raises(grpc.RpcError) as refused:
            warn_round(seats, 0, end)
        assert refused.value.code() is grpc.StatusCode.FAILED_PRECONDITION
        assert reason(refused.value) == "REPORTS_PER_DEAL"
        assert spectator.view().version == end, "nothing appended"

        # the game goes on: the seat to act plays
        view = spectator.view()
        mover = seats[view.to_act[0]]
        legal = mover.legal_moves()
        moves = [m for m in legal.moves if m.WhichOneof("game") == "huaniao"]
        moved = mover.play(moves[0], legal.version)
        assert moved.version > end
