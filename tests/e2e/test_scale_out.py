"""The whole deployment (issue 27): HAProxy → 3 replicas → PgBouncer → PostgreSQL.

Started from the shipped configs (deploy/haproxy.cfg, deploy/pgbouncer.ini; HAProxy and
PgBouncer from Debian, installed when missing, tests/support/scaleout.py). The replicas
reach PostgreSQL through PgBouncer in transaction mode (prepared statements off), their
store feeds straight (LISTEN cannot be pooled).

- routing: each call naming a game carries x-game-id (the Python SDK adds it), and HAProxy
  sends all of a game's calls to one replica, as the replicas' own metrics show; a call
  sent to another replica directly still answers the same;
- load: 32 games, 花鸟 and 字牌 alternating, played by bots through HAProxy, 8 of them
  followed by spectators' resuming Watch streams; one replica is SIGKILLed mid-game and
  restarted on its port. Then: every game finished, no acknowledged move is missing from
  its history, every stream has every version once and resumed within RESUME_SECONDS, and
  every game's export verifies against the server's key;
- a shard added mid-test: two shards, bots playing, a third created and the replicas
  restarted one at a time onto the longer list; old games keep playing where they are, new
  games land on the new shard, every game finishes and verifies.
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import grpc
import pytest

from clients.python.audit_verify import verify_game
from clients.python.client import TableClient, reveal_and_start
from clients.python.seat import SeatClient
from server.startup.migrate import migrate_shard
from server.store.shards import shard_envs
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.zipai.v1 import zipai_pb2
from tests.support import scaleout
from tests.support.pgserver import PgServer, free_port

pytestmark = [pytest.mark.timeout(300), pytest.mark.xdist_group("scale_out")]

GAMES = 32
WATCHED = 8
THINK = 0.3  # seconds a bot thinks before each move: games last long enough to span the kill
RESUME_SECONDS = 15.0  # a stream cut by the kill is following again within this
RETRYABLE = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.INTERNAL,  # a replica killed mid-call, seen through HAProxy
    grpc.StatusCode.UNKNOWN,
    grpc.StatusCode.CANCELLED,  # HAProxy resets the streams of a server connection it lost
}
RETRIES: dict[str, int] = {}  # retried calls by status, printed
T = TypeVar("T")


def retried(call: Callable[[], T], attempts: int = 60) -> T:
    """``call`` again while the deployment is between replicas (same request id, if any)."""
    for attempt in range(attempts):
        try:
            return call()
        except grpc.RpcError as err:
            code = err.code()  # type: ignore[attr-defined]
            if code not in RETRYABLE or attempt == attempts - 1:
                raise
            RETRIES[code.name] = RETRIES.get(code.name, 0) + 1
            time.sleep(0.25)
    raise AssertionError("unreachable")


class Replicas:
    """Three replica processes on fixed ports (so HAProxy's server lines stay right)."""

    def __init__(self, tmp: Path, env: dict[str, str]) -> None:
        from clients.python.serverproc import ServerProcess

        self.ports = [free_port() for _ in range(3)]
        self.metrics_ports = [free_port() for _ in range(3)]
        self.servers = [
            ServerProcess(tmp / f"r{i + 1}", store="postgres", env=env, extra=self._flags(i))
            for i in range(3)
        ]

    def _flags(self, i: int) -> list[str]:
        return ["--metrics-port", str(self.metrics_ports[i]), "--move-rate", "0"]

    def start(self, i: int) -> None:
        self.servers[i].start(port=self.ports[i], timeout=60)

    def kill(self, i: int) -> None:
        self.servers[i].stop(kill=True)

    @property
    def targets(self) -> list[str]:
        return [f"127.0.0.1:{p}" for p in self.ports]

    def started(self, i: int, method: str) -> float:
        """grpc_server_started_total for ``method`` on replica ``i``."""
        return self.metric(i, "grpc_server_started_total{", f'grpc_method="{method}"')

    def metric(self, i: int, prefix: str, label: str) -> float:
        """The sum of replica ``i``'s series that start with ``prefix`` and carry ``label``."""
        url = f"http://127.0.0.1:{self.metrics_ports[i]}/metrics"
        text = urllib.request.urlopen(url, timeout=5).read().decode()
        total = 0.0
        for line in text.splitlines():
            if line.startswith(prefix) and label in line:
                total += float(line.rsplit(" ", 1)[1])
        return total

    def stop(self) -> None:
        for s in self.servers:
            s.cleanup()


@contextlib.contextmanager
def deploy(
    pg_server: PgServer, dbname: str, tmp_path: Path, shards: str = ""
) -> Iterator[tuple[scaleout.HAProxy, Replicas]]:
    scaleout.ensure_installed()
    direct = dict(pg_server.env(dbname), PERSISTENCE_MODULE="eventsourcing.postgres")
    for env in shard_envs(direct, shards):
        migrate_shard(env)  # straight to PostgreSQL: it takes a session advisory lock
    with scaleout.PgBouncer(pg_server.port, dbname) as bouncer:
        env = dict(
            direct,
            POSTGRES_PORT=str(bouncer.port),  # writes and reads through PgBouncer
            POSTGRES_PREPARED_STATEMENTS="n",
            POSTGRES_LISTEN_PORT=str(pg_server.port),  # the feed's LISTEN, direct
        )
        del env["PERSISTENCE_MODULE"]
        if shards:
            env["TABLETOP_SHARDS"] = shards
        replicas = Replicas(tmp_path, env)
        try:
            for i in range(3):
                replicas.start(i)
            with scaleout.HAProxy(replicas.targets) as proxy:
                proxy.wait_up(["r1", "r2", "r3"])
                yield proxy, replicas
        finally:
            replicas.stop()


@pytest.fixture()
def deployment(
    pg_server: PgServer, new_database: Callable[[], str], tmp_path: Path
) -> Iterator[tuple[scaleout.HAProxy, Replicas]]:
    with deploy(pg_server, new_database(), tmp_path) as running:
        yield running


def test_the_shipped_health_check_is_the_grpc_health_call() -> None:
    """deploy/haproxy.cfg's tcp-check bytes are the HTTP/2 frames of Health/Check."""
    cfg = (scaleout.DEPLOY / "haproxy.cfg").read_text()
    assert f"tcp-check send-binary {scaleout.health_check_request().hex()}" in cfg
    assert f"tcp-check expect binary {scaleout.SERVING_REPLY.hex()}" in cfg


def _options(i: int) -> tuple[pb.GameOptions, int]:
    if i % 2:
        return pb.GameOptions(zipai=zipai_pb2.Options()), 3
    return pb.GameOptions(huaniao=huaniao_pb2.Options(mode=huaniao_pb2.MODE_BASIC)), 4


def stamp(event: pb.GameEvent) -> tuple[int, int, str]:
    return event.version, event.recorded_at.ToNanoseconds(), str(event.WhichOneof("body"))


class Game:
    def __init__(self, client: TableClient, i: int, seed: int) -> None:
        options, seats = _options(i)
        created = retried(lambda: client.create_game(options, seats, request_id=str(uuid.uuid4())))
        self.id = created.game_id
        self.seats = [
            retried(lambda s=s: client.join(self.id, s, f"bot{s}", request_id=str(uuid.uuid4())))  # type: ignore[misc]
            for s in range(seats)
        ]
        retried(lambda: reveal_and_start(self.seats))
        self.rng = random.Random(seed + i)
        # last version of a move -> its events as (version, time recorded, kind of event);
        # the history read after the end shows more of each event than the mover was shown
        self.acked: dict[int, list[tuple[int, int, str]]] = {}
        self.moves = 0

    def step(self) -> bool:
        """One move by whoever is to act; False once the game is over."""
        time.sleep(THINK)
        view = retried(lambda: self.seats[0].view())
        if view.phase == pb.GAME_PHASE_FINISHED:
            return False
        index = 0
        for index in list(view.to_act) or range(len(self.seats)):
            seat: SeatClient = self.seats[index]
            legal = retried(seat.legal_moves)
            if legal.moves:
                break
        else:  # nobody may act this instant (a deadline pending): look again shortly
            time.sleep(0.1)
            return True
        game_moves = [m for m in legal.moves if m.WhichOneof("game") is not None]
        move = self.rng.choice(game_moves or list(legal.moves))
        request_id = str(uuid.uuid4())
        try:
            reply = retried(lambda: seat.play(move, legal.version, request_id=request_id))
        except grpc.RpcError as err:
            if err.code() in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):  # type: ignore[attr-defined]
                return True  # the game moved meanwhile (a clock, a retry): look again
            raise
        self.acked[reply.version] = [stamp(e) for e in reply.events]
        self.moves += 1
        return True


class Spectator(threading.Thread):
    def __init__(self, target: str, game_id: str) -> None:
        super().__init__(daemon=True)
        self.client = TableClient(target)
        self.viewer = self.client.as_viewer(game_id)
        self.versions: list[int] = []
        self.cut_at: float | None = None
        self.gaps: list[float] = []  # seconds from a cut to the next event
        self.error: BaseException | None = None
        self.cuts = 0  # streams that ended without a status (the replica was killed)

    def run(self) -> None:
        def on_retry(_err: Any, _failures: int, _last: int) -> None:
            if self.cut_at is None:
                self.cut_at = time.monotonic()

        # The SDK itself resumes a cut stream from the last version seen: on UNAVAILABLE,
        # and on the UNKNOWN "Stream removed" that grpc reports when HAProxy loses the
        # replica (clients/python/channel.py, TRANSPORT_CUTS). No retry loop of our own.
        try:
            for reply in self.viewer.watch_replies(retries=200, backoff=0.1, on_retry=on_retry):
                if self.cut_at is not None:
                    self.gaps.append(time.monotonic() - self.cut_at)
                    self.cut_at = None
                    self.cuts += 1
                self.versions += [e.version for e in reply.events]
        except BaseException as exc:  # reported by the test
            self.error = exc


def test_three_replicas_behind_haproxy_and_pgbouncer_survive_a_killed_replica(
    deployment: tuple[scaleout.HAProxy, Replicas],
) -> None:
    proxy, replicas = deployment
    seed = random.randrange(1 << 30)
    print(f"seed {seed}")
    client = TableClient(proxy.target)

    # --- routing: a game's calls reach one replica; another replica answers the same ----
    for probe in range(3):
        game = Game(client, probe, seed)
        before = [replicas.started(i, "GetView") for i in range(3)]
        for _ in range(20):
            game.seats[0].view()
        grew = [replicas.started(i, "GetView") - before[i] for i in range(3)]
        assert sorted(grew) == [0, 0, 20], f"the game's calls were spread: {grew}"
        home = grew.index(20)
        other = TableClient(replicas.targets[(home + 1) % 3])
        direct = other.as_viewer(game.id, game.seats[0].credential).view()
        assert direct.version == game.seats[0].view().version, "correct off its home too"
        other.close()

    # --- load, a replica killed mid-game and restarted ----------------------------------
    games = [Game(client, i, seed) for i in range(GAMES)]
    spectators = [Spectator(proxy.target, g.id) for g in games[:WATCHED]]
    for s in spectators:
        s.start()
    killed = threading.Event()

    victims = [random.Random(seed).randrange(3)]

    def kill_and_restart() -> None:
        while sum(g.moves for g in games) < GAMES * 8:  # mid-game for all of them
            time.sleep(0.1)
        victim = victims[0]
        print(f"SIGKILL replica r{victim + 1} after {sum(g.moves for g in games)} moves")
        replicas.kill(victim)
        time.sleep(2.0)
        replicas.start(victim)
        proxy.wait_up(["r1", "r2", "r3"])
        killed.set()

    started = time.monotonic()
    finished: set[str] = set()

    def progress() -> None:
        while len(finished) < len(games):
            time.sleep(10)
            print(
                f"{time.monotonic() - started:.0f} s: {sum(g.moves for g in games)} moves, "
                f"{len(finished)} games over",
                flush=True,
            )

    def play(game: Game) -> None:
        while game.step():
            pass
        finished.add(game.id)

    threading.Thread(target=progress, daemon=True).start()
    with ThreadPoolExecutor(max_workers=GAMES) as pool:
        playing = [pool.submit(play, g) for g in games]
        # On the main thread: a server's parent-death signal (serverproc's trampoline) goes
        # with the thread that started it, and the pool's threads end with the pool.
        kill_and_restart()
        for done in playing:
            done.result(timeout=240)
    assert killed.is_set()
    print(f"{sum(g.moves for g in games)} moves in {time.monotonic() - started:.0f} s")
    print(f"calls retried, by status: {RETRIES}")

    # --- every game finished, no acknowledged move lost, every stream whole --------------
    for game in games:
        viewer = client.as_viewer(game.id, game.seats[0].credential)
        assert viewer.view().phase == pb.GAME_PHASE_FINISHED
        read = retried(lambda v=viewer: list(v.history()))  # type: ignore[misc]
        history = {e.version: stamp(e) for e in read}
        assert sorted(history) == list(range(1, max(history) + 1)), game.id
        for last, events in game.acked.items():
            assert last in history, f"{game.id}: acknowledged move at {last} is gone"
            first = last - len(events) + 1
            stored = [history[v] for v in range(first, last + 1)]
            assert stored == events, f"{game.id}: the move at {last} differs from its reply"
        verified = verify_game(client, game.id)  # raises on any failure
        assert verified.report.events == len(history) and verified.report.seals > 0
    print(
        f"spectators' streams cut: {[s.cuts for s in spectators]}, resumed after {[round(g, 2) for s in spectators for g in s.gaps]} s"
    )
    for s in spectators:
        s.join(timeout=30)
        assert s.error is None, s.error
        game = next(g for g in games if g.id == s.viewer.game_id)
        final = max(game.acked, default=0)
        assert s.versions == list(range(1, len(s.versions) + 1)), "no gap, no duplicate"
        assert s.versions[-1] >= final
        assert all(gap < RESUME_SECONDS for gap in s.gaps), s.gaps
    # --- each replica's feed left the rows of games it does not serve unread ---------------
    passed = [replicas.metric(i, "tabletop_feed_count{", 'count="rows_passed"') for i in range(3)]
    read = [replicas.metric(i, "tabletop_feed_count{", 'count="rows_read"') for i in range(3)]
    print(f"feed rows read {read}, left unread {passed}, by replica")
    # (the killed replica's counts start again at its restart, with a feed that first
    # catches up on every row it missed)
    kept = [p for i, p in enumerate(passed) if i != victims[0]]
    assert all(p > 0 for p in kept), "every replica skips the games routed elsewhere"
    client.close()


BEFORE = "s0,s1"
AFTER = "s0?new_games=no,s1?new_games=no,s2?added=yes"  # every new game on the new shard


def _games_in(pg_server: PgServer, dbname: str, schema: str) -> set[str]:
    import psycopg
    from psycopg import sql

    with psycopg.connect(pg_server.dsn(dbname), autocommit=True) as conn:
        query = sql.SQL("SELECT DISTINCT originator_id FROM {}.tabletop_events")
        rows = conn.execute(query.format(sql.Identifier(schema))).fetchall()
    return {str(r[0]) for r in rows}


def test_a_shard_added_mid_test_takes_the_new_games(
    pg_server: PgServer, new_database: Callable[[], str], tmp_path: Path
) -> None:
    """Two shards (schemas behind one PgBouncer); while bots play, a third is created and
    the replicas are restarted one at a time onto the longer list (SIGTERM, drained by
    HAProxy's health check). Old games keep playing where they are; new games land on the
    new shard; every game finishes and verifies."""
    seed = random.randrange(1 << 30)
    print(f"seed {seed}")
    dbname = new_database()
    with deploy(pg_server, dbname, tmp_path, BEFORE) as (proxy, replicas):
        client = TableClient(proxy.target)
        old = [Game(client, i, seed) for i in range(8)]
        placed = {s: _games_in(pg_server, dbname, s) for s in ("s0", "s1")}
        while not all(placed.values()) and len(old) < 40:  # 8 random ids on one shard: 1 in 128
            old.append(Game(client, len(old), seed))
            placed = {s: _games_in(pg_server, dbname, s) for s in ("s0", "s1")}
        assert {g.id for g in old} <= placed["s0"] | placed["s1"] and all(placed.values())

        def play(game: Game) -> None:
            while game.step():
                pass

        with ThreadPoolExecutor(max_workers=len(old)) as pool:
            playing = [pool.submit(play, g) for g in old]
            while sum(g.moves for g in old) < len(old) * 4:
                time.sleep(0.1)
            direct = dict(pg_server.env(dbname), PERSISTENCE_MODULE="eventsourcing.postgres")
            migrate_shard(shard_envs(direct, AFTER)[2])
            before = sum(g.moves for g in old)
            for i in range(3):  # the rolling restart, games going on
                replicas.servers[i].stop()  # SIGTERM: NOT_SERVING, then drain
                replicas.servers[i].env["TABLETOP_SHARDS"] = AFTER
                replicas.start(i)
                proxy.wait_up(["r1", "r2", "r3"])
            during = sum(g.moves for g in old) - before
            print(f"{during} moves of the old games during the rolling restart")
            assert during > 0, "the old games kept playing while the replicas restarted"
            new = [Game(client, 100 + i, seed) for i in range(8)]
            playing += [pool.submit(play, g) for g in new]
            for done in playing:
                done.result(timeout=180)
        print(f"calls retried, by status: {RETRIES}")
        on_new_shard = _games_in(pg_server, dbname, "s2")
        assert {g.id for g in new} <= on_new_shard, "every new game is on the new shard"
        assert not {g.id for g in old} & on_new_shard, "no old game moved"
        for game in old + new:
            viewer = client.as_viewer(game.id, game.seats[0].credential)
            assert viewer.view().phase == pb.GAME_PHASE_FINISHED
            history = {e.version: stamp(e) for e in viewer.history()}
            for last, events in game.acked.items():
                first = last - len(events) + 1
                assert [history[v] for v in range(first, last + 1)] == events, game.id
            verify_game(client, game.id)  # raises on any failure
        client.close()
