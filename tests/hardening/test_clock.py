"""The turn clock cannot be turned into a load (issue 13, problem 7: a 1 ms clock made the
server play whole games by itself, 20,160 stored events for 360 client calls).

A table's clock has a minimum (``--min-turn-time``, 5 s by default: the seeds' 出牌超时,
p2:31-33, names no time), and a game's clock makes at most ``--max-clock-events`` events in
a row without a client call; then it waits for the next move. (The third bound, finished
games counting for a cool-down, is in test_limits.py.)
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2

from clients.python.client import TableClient
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.zipai.v1 import zipai_pb2 as zp
from tests.api.helpers import huaniao_options
from tests.hardening.common import detail, server


def stored_games(data_dir: Path) -> int:
    with sqlite3.connect(data_dir / "games.sqlite") as db:
        return int(
            db.execute("SELECT COUNT(DISTINCT originator_id) FROM stored_events").fetchone()[0]
        )


def test_a_clock_under_the_minimum_is_refused(tmp_path: Path) -> None:
    with server(tmp_path) as proc, TableClient(proc.target) as client:  # the defaults
        client.create_game(huaniao_options(), 4, seed=1)
        before = stored_games(proc.data_dir)
        for limit in (1, 40, 4_999):
            with pytest.raises(grpc.RpcError) as e:
                client.create_game(huaniao_options(), 4, seed=1, turn_time_limit_ms=limit)
            assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            bad = detail(e.value, error_details_pb2.BadRequest).field_violations[0]
            assert bad.field == "turn_time_limit_ms" and "5000" in bad.description
        assert stored_games(proc.data_dir) == before, "a refused table is not stored"
        for limit in (0, 5_000):
            created = client.create_game(huaniao_options(), 4, seed=1, turn_time_limit_ms=limit)
            assert client.as_viewer(created.game_id).view().turn_time_limit_ms == limit


def wait_until_still(client: TableClient, game_id: str, quiet: float = 1.0) -> pb.GameView:
    """The game's view once its version stopped moving for ``quiet`` seconds."""
    view = client.as_viewer(game_id).view()
    still_since = time.monotonic()
    deadline = time.monotonic() + 60
    while time.monotonic() - still_since < quiet and time.monotonic() < deadline:
        time.sleep(0.1)
        now = client.as_viewer(game_id).view()
        if now.version != view.version:
            view, still_since = now, time.monotonic()
    return view


def clock_made(client: TableClient, game_id: str, after: int) -> int:
    """Events after version ``after``: every one of them the clock's (nobody else acted)."""
    return sum(1 for e in client.as_viewer(game_id).history() if e.version > after)


def test_the_clock_stops_after_its_bound_until_a_client_moves(tmp_path: Path) -> None:
    bound = 12
    flags = ("--min-turn-time", "0.01", "--max-clock-events", str(bound))
    with server(tmp_path, *flags) as proc:
        with TableClient(proc.target) as client:
            created = client.create_game(
                pb.GameOptions(zipai=zp.Options()), 3, seed=48, turn_time_limit_ms=20
            )
            seats = [client.join(created.game_id, s, contribution="") for s in range(3)]
            seats[0].start()
            started = client.as_viewer(created.game_id).view().version
            view = wait_until_still(client, created.game_id)
            made = clock_made(client, created.game_id, started)
            assert view.phase == pb.GAME_PHASE_PLAYING, "the clock alone did not end the game"
            # one timeout may append a few facts: the bound is checked before each one
            assert bound <= made < bound + 8, made
            # a client's move starts the clock again
            actor = next(s for s in seats if s.legal_moves().moves)
            legal = actor.legal_moves()
            moved = actor.play(legal.moves[0], legal.version).version
            view = wait_until_still(client, created.game_id)
            again = clock_made(client, created.game_id, moved)
            assert bound <= again < bound + 8, again
        proc.stop()  # the count is part of the game's state: a restart does not reset it
        proc.start()
        with TableClient(proc.target) as client:
            assert wait_until_still(client, created.game_id, 1.5).version == view.version
