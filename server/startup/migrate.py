"""Create the event store's schemas and tables, once, before replicas start.

    python -m server.startup.migrate --store postgres [--shards ...]   (same flags and variables
                                                                as the server)

Replicas start with table creation off: several processes creating the same PostgreSQL
tables at once can fail ("tuple concurrently updated"). This command takes a PostgreSQL
advisory lock per shard while it creates, so running it from several places at once (say,
an init step of every replica) is safe too. It is idempotent.
"""

from __future__ import annotations

import os
import sys

from eventsourcing.utils import Environment

from server.startup.config import Settings, from_args
from server.store.eventstore import LIBPQ_PARAMETERS, TableApplication
from server.store.translog import create_tables

LOCK_KEY = 0x7AB1E70  # pg_advisory_lock key: "tabletop migrate"


def _pg_settings(env: dict[str, str]) -> Environment:
    merged = dict(os.environ)
    merged.update(env)
    return Environment(name=TableApplication.name, env=merged)


def migrate_shard(env: dict[str, str]) -> str:
    """Create one shard's schema and tables; returns a description of the shard."""
    env = dict(env, CREATE_TABLE="y", TABLETOP_CREATE_TABLE="y")
    if env.get("PERSISTENCE_MODULE") != "eventsourcing.postgres":
        _create(env)
        return env.get("SQLITE_DBNAME", "memory")
    import psycopg
    from psycopg import sql
    from psycopg.conninfo import make_conninfo

    pg = _pg_settings(env)
    schema = (pg.get("POSTGRES_SCHEMA") or "").strip() or "public"
    where = f"{pg.get('POSTGRES_HOST')}:{pg.get('POSTGRES_PORT') or 5432}/" + (
        f"{pg.get('POSTGRES_DBNAME')} schema {schema}"
    )
    libpq = {k: v for k in LIBPQ_PARAMETERS if (v := pg.get(f"POSTGRES_{k.upper()}"))}
    conninfo = make_conninfo(
        host=pg.get("POSTGRES_HOST"),
        port=pg.get("POSTGRES_PORT") or "5432",
        user=pg.get("POSTGRES_USER"),
        password=pg.get("POSTGRES_PASSWORD") or None,
        dbname=pg.get("POSTGRES_DBNAME"),
        **libpq,
    )
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (LOCK_KEY,))
        try:
            conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
            _create(env)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (LOCK_KEY,))
    return where


def _create(env: dict[str, str]) -> None:
    """The event store's tables and the transparency log's (server/store/translog.py)."""
    app = TableApplication(env=env)
    try:
        create_tables(app)
    finally:
        app.close()


def migrate(settings: Settings) -> list[str]:
    return [migrate_shard(env) for env in settings.store_envs()]


def main(argv: list[str] | None = None) -> None:
    settings, _args = from_args(argv)
    for i, where in enumerate(migrate(settings)):
        print(f"shard {i}: tables ready ({where})", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
