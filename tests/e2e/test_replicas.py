"""Replicas as separate server processes on one throwaway PostgreSQL server, through gRPC.

- moves played on replica A reach a Watch stream opened on replica B, with no gap and no
  duplicate (the raw stream is read, not the resuming client);
- the same move sent to both replicas at once: exactly one wins, the other is ABORTED with
  the current version in its details;
- replica A is SIGKILLed mid-game: the game goes on through B, and a stream resumed on B from
  the last version seen gets the rest, no gap, no duplicate;
- two shards: games land on both, and history and watch work the same on each.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from clients.python.client import TOKEN_HEADER, TableClient
from clients.python.seat import SeatClient
from clients.python.serverproc import ServerProcess
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import seated_game
from tests.support.pgfixtures import PG
from tests.support.pgserver import PgServer

pytestmark = [PG, pytest.mark.timeout(180)]
ROOT = Path(__file__).resolve().parents[2]


def migrate(env: dict[str, str], *flags: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "server.startup.migrate", "--store", "postgres", *flags],
        env={**os.environ, **env},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert "tables ready" in out.stdout


@pytest.fixture()
def replicas(
    pg_server: PgServer, new_database: Callable[[], str], tmp_path: Path
) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    env = pg_server.env(new_database())
    migrate(env)
    servers = [
        ServerProcess(
            tmp_path / name, store="postgres", env=env, extra=["--allow-prepared-deals"]
        ).start()
        for name in "ab"
    ]
    try:
        yield servers[0], servers[1]
    finally:
        for s in servers:
            s.stop()


def to_act(seat: SeatClient) -> list[int]:
    return list(seat.view().to_act)


def play_random(players: list[SeatClient], rng: random.Random, moves: int) -> int:
    """Play up to ``moves`` random legal moves; returns the version reached."""
    version = players[0].view().version
    for _ in range(moves):
        waiting = to_act(players[0])
        if not waiting:
            break
        seat = players[waiting[0]]
        legal = seat.legal_moves()
        version = seat.play(rng.choice(list(legal.moves)), legal.version).version
    return version


def collect(
    stub_target: str, game_id: str, token: str, after: int, out: list[int], stop: threading.Event
) -> threading.Thread:
    """Read a raw Watch stream (no client-side dedupe) into ``out`` until cancelled."""
    channel = grpc.insecure_channel(stub_target)
    from tabletop.v1 import tabletop_pb2_grpc as pb_grpc

    call = pb_grpc.TableServiceStub(channel).Watch(
        pb.WatchRequest(game_id=game_id, after_version=after), metadata=((TOKEN_HEADER, token),)
    )

    def run() -> None:
        try:
            for reply in call:
                if reply.HasField("event"):  # format 3: a message may carry a receipt alone
                    out.append(reply.event.version)
        except grpc.RpcError:
            pass
        finally:
            channel.close()

    def cancel_when_stopped() -> None:
        stop.wait()
        call.cancel()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    threading.Thread(target=cancel_when_stopped, daemon=True).start()
    return t


def wait_for(check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.02)


def test_watch_across_replicas_and_the_play_race(
    replicas: tuple[ServerProcess, ServerProcess],
) -> None:
    a, b = replicas
    rng = random.Random(3)
    with TableClient(a.target) as on_a, TableClient(b.target) as on_b:
        game_id, players, _arbiter = seated_game(on_a, seed=11)
        seen: list[int] = []
        stop = threading.Event()
        reader = collect(b.target, game_id, players[1].token or "", 0, seen, stop)
        version = play_random(players, rng, 100)  # to the end of the game
        assert not to_act(players[0])
        wait_for(lambda: bool(seen) and seen[-1] == version)
        reader.join(5)  # the stream ends with the game
        assert seen == list(range(1, version + 1))  # no gap, no duplicate
        # B serves the fresh game at once (its cache followed the feed)
        assert on_b.as_viewer(game_id, players[0].credential).view().version == version

        # the race: the same move at the same version on both replicas
        for round_ in range(4):
            game_id, players, _arbiter = seated_game(on_a, seed=30 + round_)
            play_random(players, rng, round_)
            waiting = to_act(players[0])
            token = players[waiting[0]].credential
            seat_a = on_a.as_viewer(game_id, token)
            seat_b = on_b.as_viewer(game_id, token)
            if round_ % 2:
                seat_b.view()  # B has the game cached too (else it reads it fresh)
            legal = seat_a.legal_moves()
            results = race(seat_a, seat_b, legal.moves[0], legal.version)
            won = [r for r in results if isinstance(r, pb.PlayResponse)]
            lost = [r for r in results if isinstance(r, grpc.RpcError)]
            assert len(won) == 1 and len(lost) == 1, results
            err = lost[0]
            assert isinstance(err, grpc.Call) and err.code() == grpc.StatusCode.ABORTED
            status = rpc_status.from_call(err)
            assert status is not None
            info = error_details_pb2.ErrorInfo()
            assert any(d.Unpack(info) for d in status.details)
            assert info.metadata["expected_version"] == str(legal.version)
            assert info.metadata["current_version"] == str(won[0].version)
            for seat in (seat_a, seat_b):  # neither replica trusts its old memory
                assert seat.view().version == won[0].version
        stop.set()


def race(seat_a: SeatClient, seat_b: SeatClient, move: pb.Move, version: int) -> list[object]:
    """Send the same Play to both at once; the replies or errors."""
    results: list[object] = [None, None]
    barrier = threading.Barrier(2)

    def send(i: int, seat: SeatClient) -> None:
        barrier.wait()
        try:
            results[i] = seat.play(move, version)
        except grpc.RpcError as err:
            results[i] = err

    threads = [threading.Thread(target=send, args=(i, s)) for i, s in enumerate((seat_a, seat_b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    return results


def test_a_killed_replica_loses_nothing(replicas: tuple[ServerProcess, ServerProcess]) -> None:
    a, b = replicas
    rng = random.Random(5)
    with TableClient(a.target) as on_a:
        game_id, players, arbiter = seated_game(on_a, seed=12)
        seen: list[int] = []
        stop = threading.Event()
        collect(a.target, game_id, arbiter, 0, seen, stop)
        version = play_random(players, rng, 3)
        wait_for(lambda: bool(seen) and seen[-1] == version)
        a.stop(kill=True)  # SIGKILL: no graceful anything
        stop.set()
    last_seen = seen[-1]
    with TableClient(b.target) as on_b:
        moved = [on_b.as_viewer(game_id, p.credential) for p in players]
        for seat, p in zip(moved, players, strict=True):
            seat.seat = p.seat
        assert moved[0].view().version == version  # every acknowledged move is there
        resumed: list[int] = []
        stop_b = threading.Event()
        reader = collect(b.target, game_id, arbiter, last_seen, resumed, stop_b)
        version = play_random(moved, rng, 100)  # to the end of the game
        wait_for(lambda: bool(resumed) and resumed[-1] == version)
        assert resumed == list(range(last_seen + 1, version + 1))  # resumed: no gap, no dup
        history = [e.version for e in on_b.as_viewer(game_id, arbiter).history()]
        assert history == list(range(1, version + 1))
        stop_b.set()
        reader.join(5)


@pytest.mark.parametrize("layout", ["databases", "schemas"])
def test_shards_serve_history_and_watch_alike(
    layout: str, pg_server: PgServer, new_database: Callable[[], str], tmp_path: Path
) -> None:
    env = pg_server.env(new_database())
    if layout == "databases":
        spec = ",".join(pg_server.url(new_database()) for _ in range(2))
    else:
        spec = "shard_0,shard_1"
    migrate(env, "--shards", spec)
    servers = [
        ServerProcess(
            tmp_path / n,
            store="postgres",
            env=env,
            extra=["--shards", spec, "--allow-prepared-deals"],
        ).start()
        for n in "ab"
    ]
    try:
        a, b = servers
        rng = random.Random(8)
        import uuid

        with TableClient(a.target) as on_a, TableClient(b.target) as on_b:
            games = [seated_game(on_a, seed=20 + i) for i in range(6)]
            while {uuid.UUID(g).int % 2 for g, _p, _t in games} != {0, 1}:  # ids are random:
                games.append(seated_game(on_a, seed=20 + len(games)))  # until both shards
            assert {uuid.UUID(g).int % 2 for g, _p, _t in games} == {0, 1}
            for game_id, players, arbiter in games:
                seen: list[int] = []
                stop = threading.Event()
                reader = collect(b.target, game_id, arbiter, 0, seen, stop)
                version = play_random(players, rng, 100)
                wait_for(lambda v=version, s=seen: bool(s) and s[-1] == v)
                assert seen == list(range(1, version + 1))
                history = [e.version for e in on_b.as_viewer(game_id, arbiter).history()]
                assert history == seen
                stop.set()
                reader.join(5)
    finally:
        for s in servers:
            s.stop()
