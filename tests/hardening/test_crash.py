"""SIGKILL at random points under load, on SQLite and on PostgreSQL: see crash.py."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from clients.python.serverproc import ServerProcess
from server.startup.migrate import migrate_shard
from server.store.eventstore import TableApplication
from tests.hardening.common import env_int, record_figure
from tests.hardening.crash import CrashRun
from tests.support.pgfixtures import PG
from tests.support.pgserver import PgServer

SEED = env_int("HARDENING_CRASH_SEED", 8_080)
KILLS = env_int("HARDENING_CRASH_KILLS", 8)
GAMES = env_int("HARDENING_CRASH_GAMES", 8)
NO_RATE = ["--move-rate", "0"]  # the bots move as fast as they can


@pytest.mark.timeout(300)
def test_sigkill_under_load_loses_nothing_sqlite(tmp_path: Path) -> None:
    proc = ServerProcess(tmp_path, extra=[*NO_RATE, "--allow-prepared-deals"]).start()
    db = tmp_path / "games.sqlite"

    def open_store() -> TableApplication:
        return TableApplication(
            env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(db)}
        )

    try:
        report = CrashRun(proc, open_store, SEED, GAMES, KILLS).run()
    finally:
        proc.cleanup()
    print("SQLite:", report.summary())
    record_figure("crash", store="sqlite", **report.figures())
    assert report.kills == KILLS, report.summary()
    assert report.ok, report.failures()


@PG
@pytest.mark.timeout(300)
def test_sigkill_under_load_loses_nothing_postgres(
    pg_server: PgServer, new_database: Callable[[], str], tmp_path: Path
) -> None:
    env = pg_server.env(new_database())
    migrate_shard({**env, "PERSISTENCE_MODULE": "eventsourcing.postgres"})
    proc = ServerProcess(
        tmp_path, store="postgres", env=env, extra=[*NO_RATE, "--allow-prepared-deals"]
    ).start()

    def open_store() -> TableApplication:
        return TableApplication(
            env={**env, "PERSISTENCE_MODULE": "eventsourcing.postgres", "CREATE_TABLE": "n"}
        )

    try:
        report = CrashRun(proc, open_store, SEED + 1, max(4, GAMES // 2), max(4, KILLS // 2)).run()
    finally:
        proc.cleanup()
    print("PostgreSQL:", report.summary())
    record_figure("crash", store="postgres", **report.figures())
    assert report.kills == max(4, KILLS // 2), report.summary()
    assert report.ok, report.failures()
