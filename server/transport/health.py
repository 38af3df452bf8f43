"""Whether the event store works: store faults named, counted and reported to health.

A *store fault* is an error of the store itself, not of the request: a full disk, a SQLite
file locked by another process, a lost database connection. Calls that meet one are
answered UNAVAILABLE with a RetryInfo (server/transport/errors.py), never INTERNAL, and nothing is
appended (the transaction was rolled back).

Reads keep working on a full disk or a write-locked SQLite file, so a read probe alone would
call such a store healthy. ``StoreHealth`` therefore also learns from every real save: a
shard whose save failed stays *failing* until a save succeeds or a *write probe* does
(a one-row write in its own transaction, which takes the write lock and needs disk space
as a save does). The server's health is NOT_SERVING while any shard fails.
"""

from __future__ import annotations

import functools
import logging
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from eventsourcing.persistence import IntegrityError, PersistenceError

log = logging.getLogger("tabletop.health")
RETRY_AFTER = 1.0  # seconds a client is told to wait after a store fault (RetryInfo)


def is_store_fault(exc: BaseException) -> bool:
    """Whether ``exc`` is the store failing (UNAVAILABLE), not a version conflict (ABORTED)."""
    if isinstance(exc, IntegrityError):
        return False
    if isinstance(exc, PersistenceError | sqlite3.Error):
        return True
    psycopg = sys.modules.get("psycopg")  # loaded once PostgreSQL is used; importing costs
    return psycopg is not None and isinstance(exc, psycopg.Error)


class StoreHealth:
    """Which shards fail now, from their saves and from probes. Thread-safe."""

    def __init__(self, shards: list[Any], metrics: Any = None) -> None:
        self.shards = shards
        self.metrics = metrics
        self._failing: dict[int, str] = {}  # shard index -> what failed
        self._lock = threading.Lock()
        self.on_change: Callable[[], None] | None = None  # called from any thread
        for index, app in enumerate(shards):
            app.save = self._tracked(index, app.save)

    @property
    def ok(self) -> bool:
        return not self._failing

    def failing(self) -> dict[int, str]:
        with self._lock:
            return dict(self._failing)

    def _tracked(self, index: int, save: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(save)
        def tracked(*args: Any, **kwargs: Any) -> Any:
            try:
                result = save(*args, **kwargs)
            except Exception as exc:
                if is_store_fault(exc):
                    self.failed(index, "save", exc)
                raise
            self.recovered(index)
            return result

        return tracked

    def failed(self, index: int, op: str, exc: BaseException) -> None:
        if self.metrics is not None:
            self.metrics.store_faults.labels(op).inc()
        with self._lock:
            new = index not in self._failing
            self._failing[index] = f"{op}: {exc}"
        if new:
            log.warning("store shard %d failing (%s): %s", index, op, exc)
            self._changed()

    def recovered(self, index: int) -> None:
        if index not in self._failing:  # the common case, without the lock
            return
        with self._lock:
            was = self._failing.pop(index, None)
        if was is not None:
            log.warning("store shard %d works again", index)
            self._changed()

    def _changed(self) -> None:
        if self.on_change is not None:
            try:
                self.on_change()
            except Exception:  # the loop is closing
                log.debug("health change not delivered", exc_info=True)

    def probe(self, index: int) -> bool:
        """Check one shard (blocking): a read, and a write while its saves fail."""
        app = self.shards[index]
        start = time.perf_counter()
        try:
            app.recorder.max_notification_id()
            if index in self._failing:
                write_probe(app)
        except Exception as exc:
            self.failed(index, "probe", exc)
            return False
        finally:
            if self.metrics is not None:
                self.metrics.store.labels("probe").observe(time.perf_counter() - start)
        self.recovered(index)
        return True


def write_probe(app: Any) -> None:
    """One small committed write, as a save would make it (the store's own tables aside)."""
    recorder = app.recorder
    module = type(recorder).__module__
    if module == "eventsourcing.sqlite":
        with recorder.datastore.transaction(commit=True) as cursor:
            cursor.execute(
                "CREATE TABLE IF NOT EXISTS tabletop_probe (id INTEGER PRIMARY KEY, at REAL)"
            )
            cursor.execute("INSERT OR REPLACE INTO tabletop_probe VALUES (1, ?)", (time.time(),))
    elif module == "eventsourcing.postgres":
        # a transaction id makes the commit write and flush WAL, as an insert's would
        with recorder.datastore.transaction(commit=True) as cursor:
            cursor.execute("SELECT pg_current_xact_id()")
