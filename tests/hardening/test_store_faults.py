"""Storage faults are named (issue 13, problem 4: a full disk or a locked SQLite file gave
the client INTERNAL, which docs/api.md defines as a bug, and health stayed SERVING).

Now a call that meets a store fault gets UNAVAILABLE with an ErrorInfo STORE_UNAVAILABLE and
a RetryInfo; health turns NOT_SERVING while the store fails and SERVING again once it works;
``tabletop_store_faults_total`` counts the faults; nothing is appended for a refused call,
and the same request (same request_id) succeeds once the store is back.

The full disk is a small tmpfs mounted for the test (root is needed to mount it, as in CI);
the lock is a second process holding ``BEGIN EXCLUSIVE`` on the SQLite file.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest
from eventsourcing.persistence import OperationalError
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from clients.python.client import TableClient
from clients.python.seat import SeatClient
from clients.python.serverproc import ServerProcess
from server.store.eventstore import TableApplication
from server.transport.health import StoreHealth
from tests.api.helpers import history_versions, huaniao_options, seated_game
from tests.api.test_ecosystem import scrape
from tests.hardening.common import BAD_CODES, detail, server
from tests.support.pgfixtures import PG

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


@pytest.fixture()
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 16 MiB tmpfs, unmounted after the test whatever happens."""
    if os.geteuid() != 0:
        pytest.fail("this test mounts a tmpfs and needs root (CI runs as root)")
    mount = tmp_path / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount)], check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path) -> Path:
    """Write a file until the disk is full; returns it (delete it to free the disk)."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 65536)
    except OSError:
        pass
    try:
        while True:  # the last few bytes too
            os.write(fd, b"\0")
    except OSError:
        pass
    os.close(fd)
    return filler


def health(proc: ServerProcess) -> int:
    with grpc.insecure_channel(proc.target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        return int(stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=5).status)


def wait_for(what: Callable[[], bool], seconds: float = 15) -> None:
    deadline = time.monotonic() + seconds
    while not what():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def unavailable(err: grpc.RpcError) -> float:
    """Checks a store-fault status; returns its retry delay in seconds."""
    assert err.code() == grpc.StatusCode.UNAVAILABLE, f"{err.code()}: {err.details()}"
    assert detail(err, error_details_pb2.ErrorInfo).reason == "STORE_UNAVAILABLE"
    delay = detail(err, error_details_pb2.RetryInfo).retry_delay.ToMilliseconds() / 1000
    assert delay > 0
    return float(delay)


def fault_count(proc: ServerProcess) -> float:
    return sum(v for (name, _), v in scrape(proc).items() if name == "tabletop_store_faults_total")


def refused_then_served(
    proc: ServerProcess, client: TableClient, fault: Callable[[], Callable[[], None]]
) -> None:
    """Start ``fault`` (it returns the function that ends it), check what the clients see
    while it lasts, end it, and check that the same requests then succeed."""
    game_id, seats, arbiter = seated_game(client, seed=21)
    spare = client.create_game(huaniao_options(), 4, seed=22).game_id
    actor: SeatClient = seats[client.as_viewer(game_id).view().to_act[0]]
    legal = actor.legal_moves()
    before = history_versions(client, game_id, arbiter)
    assert health(proc) == SERVING
    faults = fault_count(proc)
    request_id = uuid.uuid4().hex
    end = fault()
    try:
        with pytest.raises(grpc.RpcError) as e:
            actor.play(legal.moves[0], legal.version, request_id=request_id)
        unavailable(e.value)
        with pytest.raises(grpc.RpcError) as e:
            client.join(spare, 0, "late")
        unavailable(e.value)
        with pytest.raises(grpc.RpcError) as e:
            client.create_game(huaniao_options(), 4, seed=23)
        assert e.value.code() not in BAD_CODES
        unavailable(e.value)
        wait_for(lambda: health(proc) == NOT_SERVING)
        assert fault_count(proc) > faults
        samples = scrape(proc)
        assert samples[("tabletop_store_up", ())] == 0
        assert history_versions(client, game_id, arbiter) == before, "nothing appended"
    finally:
        end()
    wait_for(lambda: health(proc) == SERVING)
    reply = actor.play(legal.moves[0], legal.version, request_id=request_id)
    assert reply.version > legal.version
    after = history_versions(client, game_id, arbiter)
    assert after[: len(before)] == before and after[-1] == reply.version
    client.join(spare, 0, "late")
    assert client.as_viewer(spare).view().version == 2, "the refused join left nothing"


def test_a_full_disk(small_disk: Path, tmp_path: Path) -> None:
    # the server's log and port file stay on the real disk; only the store is on the tmpfs
    flags = ("--data-dir", str(small_disk), "--metrics-port", "0")
    with server(tmp_path / "run", *flags) as proc, TableClient(proc.target) as client:

        def full() -> Callable[[], None]:
            filler = fill(small_disk)
            return filler.unlink

        refused_then_served(proc, client, full)


def test_the_sqlite_file_locked_by_another_process(tmp_path: Path) -> None:
    env = {"SQLITE_LOCK_TIMEOUT": "1"}  # seconds a write waits for the lock (default 5)
    with (
        server(tmp_path, "--metrics-port", "0", env=env) as proc,
        TableClient(proc.target) as client,
    ):

        def locked() -> Callable[[], None]:
            holder = subprocess.Popen(
                [sys.executable, "-c", LOCK_HOLDER, str(proc.data_dir / "games.sqlite")],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"

            def release() -> None:
                assert holder.stdin is not None
                holder.stdin.close()
                holder.wait(timeout=10)

            return release

        refused_then_served(proc, client, locked)


# another process takes the write lock and holds it until its stdin closes
LOCK_HOLDER = (
    "import sqlite3, sys\n"
    "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
    "db.execute('BEGIN EXCLUSIVE')\n"
    "print('locked', flush=True)\n"
    "sys.stdin.read()\n"
    "db.execute('ROLLBACK')\n"
)


@PG
def test_health_recovers_through_the_write_probe_on_postgres(pg_env: dict[str, str]) -> None:
    """The write probe of a failing PostgreSQL shard commits a transaction with an id (so
    its commit writes WAL); a failed save marks the shard failing until it succeeds."""
    app = TableApplication(env=pg_env)
    try:
        store_health = StoreHealth([app])
        store_health.failed(0, "save", OperationalError("the connection was lost"))
        assert not store_health.ok
        assert store_health.probe(0) and store_health.ok
    finally:
        app.close()
