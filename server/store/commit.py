"""Group commit: many games' pending events saved in one transaction, from one writer thread.

A write whose outcome the store did not report is settled on what is stored, never guessed
(``GroupCommitter``); see docs/reliability.md.
"""

from __future__ import annotations

import concurrent.futures
import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate
from eventsourcing.persistence import IntegrityError

from server.store.eventstore import (
    SNAPSHOT_INTERVAL,
    GameAggregate,
    OutcomeUnknown,
    TableApplication,
)
from server.store.outbox import OutboxRow

RESOLVE_SECONDS = 30.0  # how long a write of unknown outcome is worked on before giving up
log = logging.getLogger("tabletop.store")


Pending = tuple[Aggregate, list[Any], concurrent.futures.Future[None]]  # a game's or a match's


class GroupCommitter:
    """Saves pending events of many games in one transaction, from one writer thread.

    Each ``submit`` returns a future that resolves when that game's events are durable. A
    version conflict in one game of a batch must not fail the others, and a write whose
    outcome the store did not report (a connection lost around COMMIT, or the library's own
    retry clashing with the rows its first attempt stored) must not be guessed. Either way
    each game of the failed batch is read back and settled on what is stored (``_settle``):
    its own events there -> saved; another writer's events at its versions -> IntegrityError
    (nothing of it was appended); nothing there -> written again. ``uncertain`` says
    whether the store can lose a reply at all (PostgreSQL); on SQLite and in memory an error
    other than a conflict means nothing was stored, and is passed on at once.
    """

    resolve_seconds = RESOLVE_SECONDS

    def __init__(self, app: TableApplication, max_batch: int = 64, uncertain: bool = False) -> None:
        self.app = app
        self.max_batch = max_batch
        self.uncertain = uncertain
        self._queue: queue.Queue[tuple[Aggregate, concurrent.futures.Future[None]] | None] = (
            queue.Queue()
        )
        self.batches = 0
        self.saved_events = 0
        # writes settled by reading back, by result: stored, taken, rewritten, unresolved
        self.settled: dict[str, int] = {}
        self.snapshot_interval = SNAPSHOT_INTERVAL
        # Told the recordings (with notification ids) of every successful save, from the
        # writer thread, before any caller learns of it (the store feed uses this).
        self.on_saved: Callable[[list[Any]], None] | None = None
        self.on_settled: Callable[[str], None] | None = None  # metrics
        # The webhook deliveries a batch's moves owe (server/usecases/webhooks.py), stored in
        # the batch's transaction (server/store/outbox.py); None: no webhooks configured.
        self.outbox_for: Callable[[list[Pending]], list[OutboxRow]] | None = None
        self._thread = threading.Thread(target=self._run, name="group-commit", daemon=True)
        self._thread.start()

    def submit(self, aggregate: Aggregate) -> concurrent.futures.Future[None]:
        future: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._queue.put((aggregate, future))
        return future

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=10)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            batch = [item]
            while len(batch) < self.max_batch:
                try:
                    nxt = self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    self._queue.put(None)
                    break
                batch.append(nxt)
            # A caller that gave up before its save began (a cancelled call) is not saved;
            # once running, a future can no longer be cancelled, so resolving it is safe.
            batch = [(agg, fut) for agg, fut in batch if fut.set_running_or_notify_cancel()]
            if batch:
                try:
                    self._save([(agg, list(agg.collect_events()), fut) for agg, fut in batch])
                except Exception:  # never let the writer thread die: callers would hang
                    log.exception("group commit failed")
                    for _agg, fut in batch:
                        if not fut.done():
                            fut.set_exception(RuntimeError("group commit failed"))

    def _save(self, pending: list[Pending], deadline: float = 0.0) -> None:
        """Write, and settle every failed write on what the store holds, until all are
        answered (a rewrite waits a little longer each time, up to ``resolve_seconds``)."""
        deadline = deadline or time.monotonic() + self.resolve_seconds
        pause = 0.1
        while pending:
            try:
                events = [e for _, moved, _ in pending for e in moved]
                rows = self._outbox_rows(pending)
                recordings = self.app.save(*events, outbox=rows)
            except Exception as exc:
                if not isinstance(exc, IntegrityError) and not self.uncertain:
                    for _, _, fut in pending:  # nothing was stored: every caller learns it
                        fut.set_exception(exc)
                    return
                pending = self._settle(pending, exc, deadline)
                if isinstance(exc, IntegrityError) and len(pending) > 1:
                    # the conflict may be inside the batch (two moves of one game): one
                    # transaction per game, where a conflict is always with stored rows
                    for item in pending:
                        self._save([item], deadline)
                    return
                if pending and not isinstance(exc, IntegrityError):
                    time.sleep(pause)  # the store is failing: give it a moment
                    pause = min(pause * 2, 2.0)
                continue
            self.batches += 1
            self._saved(recordings)
            self._done(pending)
            return

    def _outbox_rows(self, pending: list[Pending]) -> list[OutboxRow]:
        """The webhook rows these writes owe. A failure to derive them is logged and the
        moves saved without them: a bug in the webhooks must not stop the tables."""
        if self.outbox_for is None:
            return []
        try:
            return self.outbox_for(pending)
        except Exception:
            log.exception("deriving webhook deliveries failed; the moves are saved without")
            return []

    def _settle(self, pending: list[Pending], exc: Exception, deadline: float) -> list[Pending]:
        """Answer each write of a failed transaction from what is stored; returns the writes
        to try again (nothing of theirs is stored, or the store could not be read)."""
        again: list[Pending] = []
        for item in pending:
            agg, events, fut = item
            try:
                found = self._stored_as(agg.id, events)
            except Exception:
                found = "unreadable"
            if found == "stored":
                self._count("stored")
                self._done([item])
            elif found == "taken":
                self._count("taken")
                fut.set_exception(
                    IntegrityError(
                        f"game {agg.id}: version {events[0].originator_version} is taken"
                    )
                )
            else:
                again.append(item)
        if again and time.monotonic() > deadline:
            for _agg, _events, fut in again:
                self._count("unresolved")
                fut.set_exception(
                    OutcomeUnknown("the store did not say whether the write was stored")
                )
            log.error(
                "%d writes of unknown outcome after %.0f s: %s",
                len(again),
                self.resolve_seconds,
                exc,
            )
            return []
        if again and not isinstance(exc, IntegrityError):
            self._count("rewritten", len(again))
        return again

    def _stored_as(self, game_id: UUID, events: list[Any]) -> str:
        """What the store holds at these events' versions: "stored" (these very events: same
        hash and timestamp, so never another writer's equal move), "taken" (another
        writer's) or "absent". A transaction is atomic, so the first version tells."""
        first, last = events[0].originator_version, events[-1].originator_version
        stored: list[Any] = list(self.app.events.get(game_id, gt=first - 1, lte=last))
        if not stored:
            return "absent"
        mine = len(stored) == len(events) and all(
            s.originator_version == e.originator_version
            and s.hash == e.hash
            and s.timestamp == e.timestamp
            for s, e in zip(stored, events, strict=True)
        )
        return "stored" if mine else "taken"

    def _done(self, pending: list[Pending]) -> None:
        for _agg, events, fut in pending:
            self.saved_events += len(events)
            fut.set_result(None)
        self._snapshot([a for a, events, _ in pending if self._crosses(a, events)])

    def _count(self, result: str, n: int = 1) -> None:
        self.settled[result] = self.settled.get(result, 0) + n
        if self.on_settled is not None:
            for _ in range(n):
                self.on_settled(result)

    def _saved(self, recordings: list[Any]) -> None:
        if self.on_saved is not None:
            try:
                self.on_saved(recordings)
            except Exception:
                log.exception("on_saved failed")

    def _crosses(self, aggregate: Aggregate, events: list[Any]) -> bool:
        return _crosses_snapshot(events, snapshot_interval(aggregate, self.snapshot_interval))

    def _snapshot(self, aggregates: list[Aggregate]) -> None:
        """Snapshots after the callers were answered, in one write; losing one is harmless."""
        if not aggregates or self.app.snapshots is None:  # (matches are short: no snapshots)
            return
        try:
            self.app.snapshots.put(
                [GameAggregate.Snapshot.take(a) for a in aggregates if isinstance(a, GameAggregate)]
            )
        except Exception:
            log.warning("taking %d snapshots failed", len(aggregates), exc_info=True)


CASES_PER_INTERVAL = 32  # a snapshot's interval grows by its base for every 32 cases


def snapshot_interval(aggregate: Aggregate, base: int) -> int:
    """Events between a game's snapshots: ``base``, and ``base`` more for every
    ``CASES_PER_INTERVAL`` justice cases its state holds. A snapshot holds every case (its
    encoding costs as many), so a long justice history is snapshotted less often and each
    event pays about the same share of it (issue 38); a rebuild replays at most the
    interval's events, each of which costs no more than a case's part of the decoding."""
    if not isinstance(aggregate, GameAggregate):
        return base
    return base * (1 + len(aggregate.table.justice.cases) // CASES_PER_INTERVAL)


def _crosses_snapshot(events: list[Any], interval: int) -> bool:
    """Whether these events end at or pass a multiple of ``interval``."""
    first, last = events[0].originator_version, events[-1].originator_version
    return last // interval > (first - 1) // interval
