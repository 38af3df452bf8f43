"""Where games are stored: one or more shards, each an event store with its own group commit.

``Store`` is what ``TableServer`` talks to. It routes a game to its shard by game id, saves
through that shard's ``GroupCommitter`` and reads back through that shard's application, so
SQLite, one PostgreSQL database and several PostgreSQL shards share one code path.

On PostgreSQL, every shard also runs one ``Feed``: a single LISTEN/NOTIFY subscription
(eventsourcing's ``recorder.subscribe()``, the iterator ``ApplicationSubscription`` wraps)
read by one thread, which hands the events other processes stored to the event loop in
batches. That is how a move accepted on replica A reaches Watch streams on replica B, and how
B's cached games stay current. It is one database connection (two with the puller) per shard
per process, never one per stream. This process's own events are recognised by notification
id and skipped before they are even decoded.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse
from uuid import UUID

from eventsourcing.persistence import Notification

from domain import table as tables
from server.store import GameAggregate, GroupCommitter, StoredEvent, TableApplication

log = logging.getLogger("tabletop.storage")

# (game id, stored domain events in version order, the same decoded for the hub)
Deliver = Callable[[UUID, list[Any], list[StoredEvent]], None]
# A game id -> the game's kind if this process cares about the game ("" when the kind is
# not known here), None if it does not (then its events are not even decoded).
Wants = Callable[[UUID], str | None]

_PG_KEYS = {
    "host": "POSTGRES_HOST",
    "port": "POSTGRES_PORT",
    "user": "POSTGRES_USER",
    "password": "POSTGRES_PASSWORD",
    "dbname": "POSTGRES_DBNAME",
    "schema": "POSTGRES_SCHEMA",
}


def parse_shards(spec: str) -> list[dict[str, str]]:
    """TABLETOP_SHARDS: shards separated by commas, spaces or semicolons.

    Each shard is either a URL, ``postgresql://user:password@host:port/dbname?schema=name``
    (any part may be left out and then comes from the POSTGRES_* settings; other query
    parameters are eventsourcing settings such as ``pool_size``), or a bare schema name in
    the database the POSTGRES_* settings name.
    """
    shards = []
    for item in spec.replace(";", ",").replace(" ", ",").split(","):
        item = item.strip()
        if not item:
            continue
        if "://" not in item:
            shards.append({"POSTGRES_SCHEMA": item})
            continue
        url = urlparse(item)
        if url.scheme not in ("postgres", "postgresql"):
            raise ValueError(f"shard {item!r}: only postgresql:// URLs or schema names")
        env: dict[str, str] = {}
        if url.hostname:
            env["POSTGRES_HOST"] = url.hostname
        if url.port:
            env["POSTGRES_PORT"] = str(url.port)
        if url.username:
            env["POSTGRES_USER"] = unquote(url.username)
        if url.password is not None:
            env["POSTGRES_PASSWORD"] = unquote(url.password)
        if url.path.strip("/"):
            env["POSTGRES_DBNAME"] = url.path.strip("/")
        for key, values in parse_qs(url.query).items():
            name = _PG_KEYS.get(key, "POSTGRES_" + key.upper())
            env[name] = values[-1]
        shards.append(env)
    return shards


def shard_envs(base: Mapping[str, str], spec: str) -> list[dict[str, str]]:
    """One eventsourcing env per shard: ``base`` overridden by each shard's settings.

    Each key is also written with the application's prefix (``TABLETOP_POSTGRES_...``),
    which eventsourcing reads first, so a prefixed variable in the process environment
    cannot send every shard to the same place.
    """
    out = []
    for shard in parse_shards(spec) or [{}]:
        env = dict(base)
        for key, value in shard.items():
            env[key] = value
            env[f"{TableApplication.name.upper()}_{key}"] = value
        out.append(env)
    return out


def is_postgres(app: TableApplication) -> bool:
    return type(app.recorder).__module__ == "eventsourcing.postgres"


class Feed:
    """One shard's events stored by other processes, handed to the event loop in batches."""

    def __init__(
        self, app: TableApplication, loop: asyncio.AbstractEventLoop, deliver: Deliver, wants: Wants
    ) -> None:
        self.app = app
        self.loop = loop
        self.deliver = deliver
        self.wants = wants
        self.position: int = app.recorder.max_notification_id() or 0
        self._own: set[int] = set()
        self._own_lock = threading.Lock()
        self._pending: collections.deque[tuple[UUID, Any, StoredEvent | None]] = collections.deque()
        self._scheduled = False
        self._kinds: collections.OrderedDict[UUID, str] = collections.OrderedDict()
        self._stop = threading.Event()
        self._sub: Any = None
        self.received = 0  # events from other processes that this process cared about
        self.skipped_own = 0
        self._thread = threading.Thread(target=self._run, name="store-feed", daemon=True)
        self._thread.start()

    # --- called by the group committer thread -------------------------------------------

    def saved(self, recordings: list[Any]) -> None:
        """This process stored these: the subscription need not decode or deliver them."""
        with self._own_lock:
            for r in recordings:
                nid = r.notification.id
                if nid is not None and nid > self.position:
                    self._own.add(nid)

    # --- the subscription thread -------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                with self.app.recorder.subscribe(gt=self.position) as sub:
                    self._sub = sub
                    if self._stop.is_set():
                        return
                    for notification in sub:
                        self._handle(notification)
            except Exception:  # the database went away: resubscribe from where we were
                if self._stop.is_set():
                    return
                log.warning("store subscription failed; retrying in 1 s", exc_info=True)
                self._stop.wait(1.0)

    def _handle(self, n: Notification) -> None:
        self.position = n.id
        with self._own_lock:
            if n.id in self._own:
                self._own.discard(n.id)
                self.skipped_own += 1
                return
            if len(self._own) > 10_000:  # ids this feed will never see again
                self._own = {i for i in self._own if i > n.id}
        gid = n.originator_id
        assert isinstance(gid, UUID)
        kind = self.wants(gid)
        if kind is None:
            return
        event = self.app.mapper.to_domain_event(n)
        stored = self._decode(gid, kind, event)
        self._pending.append((gid, event, stored))
        self.received += 1
        if not self._scheduled:
            self._scheduled = True
            try:
                self.loop.call_soon_threadsafe(self._drain)
            except RuntimeError:  # the loop is closed: we are shutting down
                self._stop.set()

    def _decode(self, gid: UUID, kind: str, event: Any) -> StoredEvent | None:
        try:
            if isinstance(event, GameAggregate.Opened):
                kind = str(event.fact["data"]["kind"])
            elif not kind:
                kind = self._kinds.get(gid) or self.app.kind_of(gid)
            self._kinds[gid] = kind
            self._kinds.move_to_end(gid)
            if len(self._kinds) > 100_000:
                self._kinds.popitem(last=False)
            fact = tables.decode_event(kind, event.fact)
            return StoredEvent(
                event.originator_version, event.timestamp, fact, event.hash, event.fact, event.cause
            )
        except Exception:  # an unknown kind here (an older replica?): the cache still learns
            log.warning("cannot decode an event of game %s", gid, exc_info=True)
            return None

    # --- on the event loop -------------------------------------------------------------

    def _drain(self) -> None:
        self._scheduled = False
        by_game: dict[UUID, tuple[list[Any], list[StoredEvent]]] = {}
        while self._pending:
            gid, event, stored = self._pending.popleft()
            events, decoded = by_game.setdefault(gid, ([], []))
            events.append(event)
            if stored is not None:
                decoded.append(stored)
        for gid, (events, decoded) in by_game.items():
            try:
                self.deliver(gid, events, decoded)
            except Exception:
                log.exception("delivering events of game %s failed", gid)

    def stop(self) -> None:
        self._stop.set()
        sub = self._sub
        if sub is not None:
            sub.stop()
        self._thread.join(timeout=5)


class Store:
    """Games spread over shards by game id; each shard saves through its own group commit.

    A game's shard is ``game_id.int % len(shards)``: uuid4 ids spread games evenly, and every
    replica computes the same shard from configuration alone. The list of shards is part of
    the data: changing its length or order moves games, so it is fixed once games exist
    (see docs/operations.md).
    """

    def __init__(self, apps: list[TableApplication], max_batch: int = 64) -> None:
        if not apps:
            raise ValueError("a store needs at least one shard")
        self.shards = apps
        self.committers = [GroupCommitter(app, max_batch=max_batch) for app in apps]
        self.feeds: list[Feed] = []

    @classmethod
    def open(
        cls,
        envs: list[dict[str, str]],
        max_batch: int = 64,
        app_class: type[TableApplication] = TableApplication,
    ) -> Store:
        apps = [app_class(env=env) for env in envs]
        return cls(apps, max_batch=max_batch)

    # --- routing -----------------------------------------------------------------------

    def shard_of(self, game_id: UUID) -> int:
        return game_id.int % len(self.shards)

    def app_for(self, game_id: UUID) -> TableApplication:
        return self.shards[game_id.int % len(self.shards)]

    # --- the calls TableServer makes (blocking ones run in threads) ---------------------

    def submit(self, aggregate: GameAggregate) -> concurrent.futures.Future[None]:
        """Save ``aggregate``'s pending events; the future resolves once they are durable."""
        return self.committers[self.shard_of(aggregate.id)].submit(aggregate)

    def get(self, game_id: UUID, version: int | None = None) -> GameAggregate:
        """The game rebuilt from its nearest snapshot; AggregateNotFoundError if none."""
        agg: GameAggregate = self.app_for(game_id).repository.get(game_id, version=version)
        return agg

    def stored_events(
        self, game_id: UUID, gt: int | None = None, lte: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        return self.app_for(game_id).stored_events(game_id, gt, lte, limit)

    # --- live events from other processes -----------------------------------------------

    @property
    def shared(self) -> bool:
        """Whether other processes may write to these shards (PostgreSQL)."""
        return any(is_postgres(app) for app in self.shards)

    def start_feed(self, loop: asyncio.AbstractEventLoop, deliver: Deliver, wants: Wants) -> None:
        """Start one subscription per PostgreSQL shard; SQLite stays single-process."""
        for app, committer in zip(self.shards, self.committers, strict=True):
            if not is_postgres(app):
                continue
            feed = Feed(app, loop, deliver, wants)
            committer.on_saved = feed.saved
            self.feeds.append(feed)

    # --- figures ----------------------------------------------------------------------

    @property
    def batches(self) -> int:
        return sum(c.batches for c in self.committers)

    @property
    def saved_events(self) -> int:
        return sum(c.saved_events for c in self.committers)

    def close(self) -> None:
        for feed in self.feeds:
            feed.stop()
        for committer in self.committers:
            committer.close()
        for app in self.shards:
            app.close()


def check_tables(app: TableApplication) -> None:
    """Fail fast, and say what to do, when a PostgreSQL shard has no tables yet."""
    if not is_postgres(app):
        return
    try:
        app.recorder.max_notification_id()
    except Exception as exc:
        raise SystemExit(
            f"the event store tables are missing or unreachable ({exc}); create them once "
            "with `python -m server.migrate` (same settings) before starting replicas"
        ) from None
