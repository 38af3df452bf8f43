"""Leases: which replica does a job that one replica at a time should do (issue 40: a
queue's matchmaker, a lobby table's bots).

On PostgreSQL a lease is a session advisory lock (``pg_try_advisory_lock``) taken on a
connection of this replica's own, kept open for as long as the replica lives: the lock is
the database's, so it holds across replicas, and it goes with the connection when the
replica dies (a SIGKILL, a lost host: the server notices the dead connection and frees its
locks), so another replica takes it on its next try without a timeout of ours. On SQLite a
single process uses the database, so it holds every lease.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from typing import Any, Protocol

from server.store.shards import Store, is_postgres

log = logging.getLogger("tabletop.leases")
NAMESPACE = b"tabletop-lease/1\n"  # lock ids of other uses of advisory locks never collide


class Leases(Protocol):
    def hold(self, name: str) -> bool:
        """Whether this replica holds the lease ``name`` now (taking it if it is free).
        Blocking."""

    def release(self, name: str) -> None:
        """Let the lease ``name`` go (its job is done), if this replica holds it. Blocking."""

    def release_all(self) -> None:
        """Let every lease go (the replica stops, or its connection failed). Blocking."""


class LocalLeases:
    """Every lease: one process uses the store (SQLite)."""

    def hold(self, name: str) -> bool:
        return True

    def release(self, name: str) -> None:
        pass

    def release_all(self) -> None:
        pass


def lock_id(name: str) -> int:
    """A signed 64-bit advisory lock id for ``name``."""
    digest = hashlib.sha256(NAMESPACE + name.encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


class AdvisoryLeases:
    """Leases as PostgreSQL session advisory locks on one connection of this replica."""

    def __init__(self, connect_kwargs: dict[str, Any]) -> None:
        self._kwargs = connect_kwargs
        self._conn: Any = None
        self._held: set[int] = set()  # the locks this connection's session holds
        self._lock = threading.Lock()  # one thread at a time on the connection

    def hold(self, name: str) -> bool:
        key = lock_id(name)
        with self._lock:
            conn = self._connection()
            if key in self._held:  # a round trip all the same: a dead connection's locks
                conn.execute("SELECT 1")  # went to another replica (this then raises)
                return True
            row = conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
            if row and row[0]:
                self._held.add(key)  # (taken once: a session's advisory locks stack)
                return True
            return False

    def release(self, name: str) -> None:
        key = lock_id(name)
        with self._lock:
            if key not in self._held:
                return
            self._held.discard(key)
            try:
                self._connection().execute("SELECT pg_advisory_unlock(%s)", (key,))
            except Exception:  # a broken session holds nothing any more
                log.debug("letting lease %s go failed", name, exc_info=True)

    def _connection(self) -> Any:
        import psycopg
        from psycopg.rows import tuple_row

        if self._conn is None or self._conn.closed or self._conn.broken:
            self._held.clear()  # a new session holds nothing
            self._conn = psycopg.connect(autocommit=True, **self._kwargs)
            self._conn.row_factory = tuple_row  # (the pool's settings may name another)
        return self._conn

    def release_all(self) -> None:
        with self._lock:
            self._held.clear()
            if self._conn is not None:
                try:  # at once (a closed session's locks go when its backend has ended)
                    self._conn.execute("SELECT pg_advisory_unlock_all()")
                    self._conn.close()
                except Exception:  # already broken: nothing to let go
                    log.debug("closing the lease connection failed", exc_info=True)
                self._conn = None


def leases_for(store: Store) -> Leases:
    """Advisory locks where the lobby's shard is PostgreSQL, else every lease."""
    app = store.shards[0]
    if not is_postgres(app):
        return LocalLeases()
    pool: Any = app.recorder.datastore.pool  # type: ignore[attr-defined]
    kwargs = dict(pool.kwargs)
    kwargs.pop("prepare_threshold", None)
    for key in ("host", "port"):  # past PgBouncer (transaction mode keeps no session lock)
        direct = app.env.get(f"POSTGRES_LISTEN_{key.upper()}")
        if direct:
            kwargs[key] = direct
    getter = getattr(pool, "get_password_func", None)
    if getter is not None:
        kwargs["password"] = getter()
    return AdvisoryLeases(kwargs)
