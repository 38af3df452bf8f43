"""pytest fixtures for a throwaway PostgreSQL server (import them into a conftest).

One server per xdist worker and session, started on first use; tests that use it carry
``@pytest.mark.xdist_group("postgres")`` so ``--dist loadgroup`` sends them all to one
worker and one server. Each test gets fresh databases. A machine without PostgreSQL makes
these tests fail with the reason, never skip.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest

from tests.support.pgserver import PgServer

PG = pytest.mark.xdist_group("postgres")


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    server = PgServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture()
def new_database(pg_server: PgServer) -> Callable[[], str]:
    """Make a fresh empty database; returns its name."""

    def make() -> str:
        return pg_server.create_database(f"t_{uuid.uuid4().hex[:12]}")

    return make


@pytest.fixture()
def pg_env(pg_server: PgServer, new_database: Callable[[], str]) -> dict[str, str]:
    """eventsourcing settings for a fresh database, tables created by the first app."""
    return dict(
        pg_server.env(new_database()),
        PERSISTENCE_MODULE="eventsourcing.postgres",
        CREATE_TABLE="y",
    )
