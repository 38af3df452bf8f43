"""The webhook outbox: deliveries owed to the apps, written in the transaction of the events
that cause them (docs/operations.md, "Webhooks").

A move's events and its outbox rows are saved by one ``insert_events`` call of
eventsourcing's recorder: ``attach`` wraps the recorder's ``_insert_events`` (called with
the transaction's cursor, before the events' rows on PostgreSQL and after them on SQLite),
so the rows are stored if and only if the events are. A crash between the commit and the
delivery loses nothing: the rows wait in the table, beside eventsourcing's, until a
delivery worker (server/transport/webhooks.py) has had a 2xx for each, and are then deleted.

Rows of one app and one record (a game, or a match) are delivered one at a time, in the
order they were written (``seq``): only the oldest row of each such lane is ever handed
out (``claim``). Claiming pushes the row's ``due`` time past the delivery's time limit, so
two workers (replicas) never send the same row at once, and a worker that dies holding a
row only delays it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

TABLE = "tabletop_webhook_outbox"


@dataclass(frozen=True)
class OutboxRow:
    """One delivery owed: ``msg_id`` is the webhook-id (the receiver's idempotency key)."""

    app: str
    msg_id: str
    record_id: str  # the game's or the match's id: deliveries are in order per record
    type: str
    body: str  # the JSON text signed and sent


@dataclass(frozen=True)
class Claimed:
    seq: int
    row: OutboxRow
    attempts: int  # including this one


def store_kind(recorder: Any) -> str:
    module = type(recorder).__module__
    return {"eventsourcing.sqlite": "sqlite", "eventsourcing.postgres": "postgres"}.get(
        module, "memory"
    )


def _row_count(cursor: Any) -> int:
    """Rows the last statement changed (eventsourcing's SQLite cursor wraps sqlite3's)."""
    return int(getattr(cursor, "sqlite_cursor", cursor).rowcount)


def _rows_of(cursor: Any) -> list[tuple[Any, ...]]:
    return [tuple(r.values()) if isinstance(r, dict) else tuple(r) for r in cursor.fetchall()]


class Outbox:
    """One shard's outbox table (SQLite, PostgreSQL, or a list when the store is in memory)."""

    def __init__(self, recorder: Any) -> None:
        self.recorder = recorder
        self.kind = store_kind(recorder)
        self._lock = threading.Lock()  # the in-memory rows'
        self._memory: dict[int, tuple[OutboxRow, int, float]] = {}  # seq: row, attempts, due
        self._next_seq = 1
        self.table = TABLE
        if self.kind == "postgres":
            schema = str(recorder.datastore.schema or "public")
            self.table = f'"{schema}".{TABLE}'

    # --- the schema, and the rows written with the events ---------------------------------

    def create_table(self) -> None:
        if self.kind == "memory":
            return
        seq = "BIGSERIAL PRIMARY KEY" if self.kind == "postgres" else (
            "INTEGER PRIMARY KEY AUTOINCREMENT"
        )
        statements = [
            f"CREATE TABLE IF NOT EXISTS {self.table} (seq {seq}, app TEXT NOT NULL, "
            "msg_id TEXT NOT NULL, record_id TEXT NOT NULL, type TEXT NOT NULL, "
            "body TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, due DOUBLE PRECISION "
            "NOT NULL, UNIQUE (app, msg_id))",
            f"CREATE INDEX IF NOT EXISTS {TABLE}_lane ON {self.table} (app, record_id, seq)",
        ]
        with self.recorder.datastore.transaction(commit=True) as cursor:
            for text in statements:
                cursor.execute(text)

    def _sql(self, text: str) -> str:
        text = text.replace("T_", self.table)
        return text.replace("?", "%s") if self.kind == "postgres" else text

    def insert(self, cursor: Any, rows: Sequence[OutboxRow]) -> None:
        """Rows owed by the events being inserted, with the transaction's own cursor. A row
        already there (the same move written again after an unknown outcome) is kept."""
        now = time.time()
        if self.kind == "memory":
            for row in rows:
                self._memory[self._next_seq] = (row, 0, now)
                self._next_seq += 1
            return
        text = self._sql(
            "INSERT INTO T_ (app, msg_id, record_id, type, body, due) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT DO NOTHING"
        )
        for row in rows:
            cursor.execute(text, (row.app, row.msg_id, row.record_id, row.type, row.body, now))

    # --- the delivery worker's calls ------------------------------------------------------

    def _run(self, statements: Iterable[tuple[str, tuple[Any, ...]]]) -> tuple[list[Any], int]:
        """Run statements in one transaction: the last one's rows and row count."""
        with self.recorder.datastore.transaction(commit=True) as cursor:
            rows: list[Any] = []
            count = 0
            for text, args in statements:
                cursor.execute(self._sql(text), args)
                count = _row_count(cursor)
                rows = _rows_of(cursor) if text.lstrip().startswith("SELECT") else []
            return rows, count

    def claim(self, limit: int, lease: float, busy: set[tuple[str, str]]) -> list[Claimed]:
        """Up to ``limit`` rows now due, each the oldest of its lane (app and record) and
        not in a lane in ``busy``; each is leased for ``lease`` seconds."""
        now = time.time()
        if self.kind == "memory":
            return self._claim_memory(limit, lease, busy, now)
        heads, _ = self._run(
            [
                (
                    "SELECT o.seq, o.app, o.msg_id, o.record_id, o.type, o.body, o.attempts, "
                    "o.due FROM T_ o WHERE o.due <= ? AND o.seq = (SELECT MIN(i.seq) FROM T_ i "
                    "WHERE i.app = o.app AND i.record_id = o.record_id) ORDER BY o.due LIMIT ?",
                    (now, limit + len(busy)),
                )
            ]
        )
        claimed: list[Claimed] = []
        for seq, app, msg_id, record_id, type_, body, attempts, due in heads:
            if (app, record_id) in busy or len(claimed) >= limit:
                continue
            _, won = self._run(
                [
                    (
                        "UPDATE T_ SET due = ?, attempts = attempts + 1 WHERE seq = ? AND due = ?",
                        (now + lease, seq, due),
                    )
                ]
            )
            if won == 1:  # another worker did not take it first
                row = OutboxRow(app, msg_id, record_id, type_, body)
                claimed.append(Claimed(int(seq), row, int(attempts) + 1))
        return claimed

    def _claim_memory(
        self, limit: int, lease: float, busy: set[tuple[str, str]], now: float
    ) -> list[Claimed]:
        with self._lock:
            heads: dict[tuple[str, str], int] = {}
            for seq in sorted(self._memory):
                row = self._memory[seq][0]
                heads.setdefault((row.app, row.record_id), seq)
            claimed: list[Claimed] = []
            for lane, seq in heads.items():
                row, attempts, due = self._memory[seq]
                if lane in busy or due > now or len(claimed) >= limit:
                    continue
                self._memory[seq] = (row, attempts + 1, now + lease)
                claimed.append(Claimed(seq, row, attempts + 1))
            return claimed

    def delivered(self, seq: int) -> None:
        if self.kind == "memory":
            with self._lock:
                self._memory.pop(seq, None)
            return
        self._run([("DELETE FROM T_ WHERE seq = ?", (seq,))])

    def retry_at(self, seq: int, due: float) -> None:
        if self.kind == "memory":
            with self._lock:
                if seq in self._memory:
                    row, attempts, _ = self._memory[seq]
                    self._memory[seq] = (row, attempts, due)
            return
        self._run([("UPDATE T_ SET due = ? WHERE seq = ?", (due, seq))])

    def rows(self) -> list[OutboxRow]:
        """Every row not yet delivered, oldest first (for operators and tests)."""
        if self.kind == "memory":
            with self._lock:
                return [self._memory[seq][0] for seq in sorted(self._memory)]
        found, _ = self._run(
            [("SELECT app, msg_id, record_id, type, body FROM T_ ORDER BY seq", ())]
        )
        return [OutboxRow(*r) for r in found]

    def pending(self) -> int:
        """Rows not yet delivered (metrics, tests)."""
        if self.kind == "memory":
            with self._lock:
                return len(self._memory)
        rows, _ = self._run([("SELECT COUNT(*) FROM T_", ())])
        return int(rows[0][0])


def attach(recorder: Any, create: bool) -> Outbox:
    """Make ``recorder`` store the outbox rows passed to ``insert_events`` (``outbox=``) in
    the events' transaction. Done on the instance, as notify.py does, so the recorder stays
    the library's class."""
    outbox = Outbox(recorder)
    if create:
        outbox.create_table()
    library_insert = recorder._insert_events

    if outbox.kind == "memory":

        def insert_in_memory(stored_events: Any, **kwargs: Any) -> Any:
            rows = kwargs.pop("outbox", None) or ()
            with recorder._database_lock:  # the events' and the rows' one lock
                ids = library_insert(stored_events, **kwargs)
                outbox.insert(None, rows)
            return ids

        recorder.__dict__["_insert_events"] = insert_in_memory
    else:

        def insert_with_rows(cursor: Any, stored_events: Any, **kwargs: Any) -> Any:
            rows = kwargs.pop("outbox", None) or ()
            ids = library_insert(cursor, stored_events, **kwargs)
            outbox.insert(cursor, rows)
            return ids

        recorder.__dict__["_insert_events"] = insert_with_rows
    return outbox
