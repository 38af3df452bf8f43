"""Lost COMMITs on PostgreSQL: unknown write outcomes are settled, never guessed.

A proxy between the server and PostgreSQL (tests/support/pgproxy.py) cuts the connection
around a share of all COMMITs, half before PostgreSQL sees them (nothing stored) and half
instead of passing on the reply (stored, but the server cannot know), while several games
are created, joined, started and played at once. Every call is retried on UNAVAILABLE
with the same idempotency key, as a client would. Then:

- no call ever answers ABORTED, INTERNAL or UNKNOWN: every game is played by one client
  against the version it saw, so a refusal could only come from a guessed outcome;
- every acknowledged write is stored, once: the history holds each acknowledged move's
  events (same versions and hashes), and no request's move twice;
- a retry with the same key returns the original reply (game id, tokens, versions, events).
"""

from __future__ import annotations

import random
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import grpc
import pytest

from clients.python.client import TableClient
from clients.python.seat import SeatClient
from clients.python.serverproc import ServerProcess
from server.store.eventstore import TableApplication
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import huaniao_options, the_move
from tests.hardening.common import counter, env_int, record_figure
from tests.support.pgfixtures import PG
from tests.support.pgproxy import PgProxy
from tests.support.pgserver import PgServer
from tests.support.records import acknowledged_hashes

pytestmark = [PG, pytest.mark.timeout(240)]
ROOT = Path(__file__).resolve().parents[2]
GAMES = 4
MOVES = 30  # per game
LOSS_RATE = 0.3  # share of COMMITs lost
RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
T = TypeVar("T")


class Log:
    """Every status any call answered, and every acknowledged write, across threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.codes: dict[str, int] = {}
        self.replies: list[tuple[str, Callable[[], Any], Any]] = []  # name, resend, reply
        self.plays: dict[str, list[pb.PlayResponse]] = {}  # game id -> acknowledged Plays

    def code(self, code: grpc.StatusCode) -> None:
        with self.lock:
            self.codes[code.name] = self.codes.get(code.name, 0) + 1


def retried(log: Log, send: Callable[[], T], budget: float = 60.0) -> T:
    """``send`` until it is answered; UNAVAILABLE and timeouts are retried as they are."""
    deadline = time.monotonic() + budget
    while True:
        try:
            reply = send()
        except grpc.RpcError as err:
            log.code(err.code())
            if err.code() in RETRYABLE and time.monotonic() < deadline:
                time.sleep(0.05)
                continue
            raise
        log.code(grpc.StatusCode.OK)
        return reply


def keyed(log: Log, name: str, send: Callable[[], T]) -> T:
    reply = retried(log, send)
    with log.lock:
        log.replies.append((name, send, reply))
    return reply


def one_game(client: TableClient, rng: random.Random, log: Log) -> None:
    key, seed = str(uuid.uuid4()), rng.randrange(1 << 30)
    created = keyed(log, "CreateGame", lambda: client.create_game(
        huaniao_options(), 4, seed=seed, request_id=key
    ))  # fmt: skip
    game = created.game_id
    seats: list[SeatClient] = []
    for seat in range(4):
        k = str(uuid.uuid4())
        seats.append(keyed(log, "JoinGame", lambda s=seat, k=k: client.join(  # type: ignore[misc]
            game, s, f"p{s}", f"c{s}", request_id=k
        )))  # fmt: skip
    for seat_client in seats:  # a repeated reveal changes nothing: safe to retry unkeyed
        retried(log, seat_client.reveal)
    start = str(uuid.uuid4())
    keyed(log, "StartGame", lambda: seats[0].start(request_id=start))
    arbiter = client.as_viewer(game, created.arbiter_token)
    acknowledged: list[pb.PlayResponse] = []
    for n in range(MOVES):
        waiting = retried(log, arbiter.view).to_act
        if not waiting:
            break
        actor = seats[waiting[0]]
        legal = retried(log, actor.legal_moves)
        move = rng.choice(list(legal.moves))
        if n % 2:  # with a key: retried until answered, and resent at the end
            rid = str(uuid.uuid4())
            reply = keyed(log, "Play", lambda a=actor, m=move, v=legal.version, r=rid: a.play(  # type: ignore[misc]
                m, v, request_id=r
            ))  # fmt: skip
        else:  # without one: an UNAVAILABLE is left as it is (the next view tells)
            try:
                reply = actor.play(move, legal.version)
            except grpc.RpcError as err:
                log.code(err.code())
                if err.code() not in RETRYABLE:
                    raise
                continue
            log.code(grpc.StatusCode.OK)
        acknowledged.append(reply)
    with log.lock:
        log.plays[game] = acknowledged


def stored_causes(database: dict[str, str], game: str) -> list[dict[str, Any] | None]:
    """Every event's cause, read from the store itself: the games do not end, and the
    stored form leaves the server only after the end (docs/api.md, "Audit")."""
    env = {"PERSISTENCE_MODULE": "eventsourcing.postgres", "CREATE_TABLE": "n", **database}
    app = TableApplication(env=env)
    try:
        return [e.cause for e in app.stored_events(uuid.UUID(game))]
    finally:
        app.close()


def history(client: TableClient, game: str, arbiter_token: str) -> list[pb.GameEvent]:
    return list(client.as_viewer(game, arbiter_token).history())


@pytest.fixture()
def database(pg_server: PgServer) -> Iterator[dict[str, str]]:
    env = pg_server.env(pg_server.create_database(f"lost_{uuid.uuid4().hex[:8]}"))
    out = subprocess.run(
        [sys.executable, "-m", "server.startup.migrate", "--store", "postgres"],
        env={**__import__("os").environ, **env}, cwd=ROOT, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    yield env


def test_lost_commits_are_resolved_and_retries_get_the_original_replies(
    database: dict[str, str], pg_server: PgServer, tmp_path: Path
) -> None:
    seed = env_int("HARDENING_SEED", 1313)
    rng = random.Random(seed)
    log = Log()
    with PgProxy(pg_server.port, seed=seed) as proxy:
        env = dict(database, POSTGRES_PORT=str(proxy.port))
        server = ServerProcess(
            tmp_path,
            store="postgres",
            env=env,
            extra=["--metrics-port", "0", "--allow-prepared-deals"],  # seeded: reproducible
        ).start()
        try:
            proxy.rate = LOSS_RATE
            started = time.monotonic()
            failures: list[BaseException] = []

            clients = [TableClient(server.target) for _ in range(GAMES)]

            def run(client: TableClient, r: random.Random) -> None:
                try:
                    one_game(client, r, log)
                except BaseException as exc:  # reported below, with the seed
                    failures.append(exc)

            threads = [
                threading.Thread(target=run, args=(c, random.Random(rng.random()))) for c in clients
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=150)
            assert not any(t.is_alive() for t in threads), f"a game hung (seed={seed})"
            seconds = time.monotonic() - started
            lost = dict(proxy.lost)
            proxy.rate = 0.0
            where = f"seed={seed}, codes={log.codes}, lost={lost}"
            assert not failures, f"{where}: {failures[0]!r}"
            assert lost["reply"] >= 3 and lost["request"] >= 3, f"too few faults: {where}"
            for bad in ("ABORTED", "INTERNAL", "UNKNOWN", "FAILED_PRECONDITION"):
                assert bad not in log.codes, f"a call answered {bad}: {where}"

            # every retry with the same key returns the original reply
            for name, resend, reply in log.replies:
                again = resend()
                if name == "JoinGame":
                    assert (again.seat, again.token) == (reply.seat, reply.token), where
                elif name == "Play":
                    assert the_move(again) == the_move(reply), f"{name}: {where}"
                else:
                    assert again == reply, f"{name}: {where}"

            # every acknowledged write is stored, once
            with TableClient(server.target) as client:
                creates = [r for n, _s, r in log.replies if n == "CreateGame"]
                assert len(creates) == GAMES
                moves = 0
                for created in creates:
                    events = history(client, created.game_id, created.arbiter_token)
                    assert [e.version for e in events] == list(range(1, len(events) + 1))
                    stored = {e.version: e.hash for e in events}
                    causes = stored_causes(database, created.game_id)
                    actions = [c["action"] for c in causes if c]
                    assert actions.count("join") == 4 and actions.count("start") == 1, where
                    keys = [c["request_id"] for c in causes if c and c.get("request_id")]
                    assert len(keys) == len(set(keys)), f"a request played twice: {where}"
                    for reply in log.plays[created.game_id]:
                        for version, acked in acknowledged_hashes(reply).items():
                            assert stored.get(version) == acked, (
                                f"acknowledged v{version} is not stored: {where}"
                            )
                    moves += actions.count("play")
            settled = counter(server, "tabletop_writes_settled")
            # the server read back every write whose COMMIT reply it lost (snapshots aside)
            assert settled.get("stored", 0) >= 1 and settled.get("unresolved", 0) == 0, settled
            record_figure(
                "lost_commits",
                settled=settled,
                seed=seed,
                commits=proxy.commits,
                lost_before_postgres=lost["request"],
                lost_reply=lost["reply"],
                acknowledged_moves=sum(len(p) for p in log.plays.values()),
                stored_moves=moves,
                codes=log.codes,
                seconds=round(seconds, 1),
            )
        finally:
            for c in clients:
                c.close()
            server.cleanup()
