"""Where games are stored: one or more shards, each an event store with its own group commit.

``Store`` is what the use cases talk to (``Games``, server/usecases/games.py). It routes a
game to its shard by game id, saves through that shard's ``GroupCommitter`` and reads back
through that shard's application, so SQLite, one PostgreSQL database and several PostgreSQL
shards share one code path.

On PostgreSQL, every shard also runs one ``Feed``: a single LISTEN/NOTIFY subscription
on the event loop that delivers the events other processes stored, in batches. That is how a
move accepted on replica A reaches Watch streams on replica B, and how B's cached games stay
current. It is one database connection per shard per process, never one per stream. This
process's own events are recognised by notification id and skipped before they are even
decoded.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import logging
import os
import re
import threading
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import Notification

from server.store.commit import GroupCommitter
from server.store.eventstore import GameAggregate, MatchAggregate, TableApplication, stored_event
from server.wire.stored import StoredEvent, StoredMatchFact

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
    the database the POSTGRES_* settings name. As in libpq, a URL may list several hosts,
    ``postgresql://u@h1:5432,h2:5432/db?target_session_attrs=read-write``: each connection
    goes to the first that answers as the primary, which is how a replica follows a
    failover (docs/operations.md, "Failover"). ``added=yes`` marks a shard added after
    games were placed (``Store``), ``new_games=no`` one that takes no new games, and
    ``listen_host``/``listen_port`` where the store feed LISTENs when the other connections
    go through PgBouncer (``Feed``).
    """
    shards = []
    for item in _shard_items(spec):
        if "://" not in item:  # a schema name, maybe with settings: shard_c?added=yes
            name, _, query = item.partition("?")
            env = {"POSTGRES_SCHEMA": name}
            for key, values in parse_qs(query).items():
                env[_PG_KEYS.get(key, "POSTGRES_" + key.upper())] = values[-1]
            shards.append(env)
            continue
        scheme, _, rest = item.partition("://")
        if scheme not in ("postgres", "postgresql"):
            raise ValueError(f"shard {item!r}: only postgresql:// URLs or schema names")
        netloc = re.match(r"[^/?]*", rest).group(0)  # type: ignore[union-attr]
        url = urlparse(f"{scheme}://x{rest[len(netloc) :]}")  # the path and the query
        env = _netloc_env(item, netloc)
        if url.path.strip("/"):
            env["POSTGRES_DBNAME"] = url.path.strip("/")
        for key, values in parse_qs(url.query).items():
            name = _PG_KEYS.get(key, "POSTGRES_" + key.upper())
            env[name] = values[-1]
        shards.append(env)
    return shards


def _shard_items(spec: str) -> list[str]:
    """Split TABLETOP_SHARDS; a comma inside a URL's host list does not end the shard."""
    pattern = r"postgres(?:ql)?://(?:(?!,\s*postgres(?:ql)?://)[^/?\s;])*[^,;\s]*|[^,;\s]+"
    return re.findall(pattern, spec)


def _netloc_env(item: str, netloc: str) -> dict[str, str]:
    """``user:password@host:port,host:port`` as POSTGRES_* settings (lists for libpq)."""
    env: dict[str, str] = {}
    userinfo, at, hostlist = netloc.rpartition("@")
    if at:
        user, colon, password = userinfo.partition(":")
        if user:
            env["POSTGRES_USER"] = unquote(user)
        if colon:
            env["POSTGRES_PASSWORD"] = unquote(password)
    hosts, ports = [], []
    for part in hostlist.split(",") if hostlist else []:
        found = re.fullmatch(r"(\[[^\]]*\]|[^:\[\]]*)(?::(\d*))?", part)
        if found is None or not found.group(1):
            raise ValueError(f"shard {item!r}: {part!r} is not host[:port]")
        hosts.append(unquote(found.group(1).strip("[]")))
        ports.append(found.group(2) or "")
    if hosts:
        env["POSTGRES_HOST"] = ",".join(hosts)
    if any(ports):
        env["POSTGRES_PORT"] = ",".join(p or "5432" for p in ports)
    return env


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
    return any(c.__module__ == "eventsourcing.postgres" for c in type(app.recorder).__mro__)


class Feed:
    """One shard's events stored by other processes, delivered on the event loop.

    One PostgreSQL connection of its own per shard and process: it LISTENs on the events
    table's channel. Each commit's NOTIFY names the games and notification ids it stored
    (server/store/notify.py), so the feed reads, by notification id, only the rows of games
    this process wants (streams or caches) and not one row of the others: the rows a shard
    serves per commit do not grow with the number of replicas (docs/benchmarks.md, F1). A
    NOTIFY without that list (too long, or from an older writer), and every (re)connect,
    reads everything after the last row seen, as eventsourcing's
    ``ApplicationSubscription`` does. It runs on the event loop with psycopg's async
    connection rather than in threads: with the loop busy serving streams, each hand-over
    between threads waited for the GIL, which put tens of milliseconds on the tail of
    cross-replica delivery (see docs/benchmarks.md, P2).

    Behind PgBouncer in transaction mode LISTEN does not work: the feed then connects
    directly to PostgreSQL, at ``POSTGRES_LISTEN_HOST``/``POSTGRES_LISTEN_PORT`` (a shard
    URL's ``listen_host``/``listen_port``) when they are set.
    """

    SELECT_LIMIT = 500
    # The old feed, which reads every new row whatever its game (bench/feed_rows.py
    # compares the two); TABLETOP_FEED_READ_ALL=1 in the environment sets it.
    read_all = os.environ.get("TABLETOP_FEED_READ_ALL", "") not in ("", "0")

    def __init__(
        self, app: TableApplication, loop: asyncio.AbstractEventLoop, deliver: Deliver, wants: Wants
    ) -> None:
        from psycopg import sql

        from server.store import notify

        self.app = app
        self.deliver = deliver
        self.wants = wants
        recorder: Any = app.recorder
        self.position: int = recorder.max_notification_id() or 0
        datastore = recorder.datastore
        self._connect_kwargs = dict(datastore.pool.kwargs)
        for key in ("host", "port"):
            direct = app.env.get(f"POSTGRES_LISTEN_{key.upper()}")
            if direct:
                self._connect_kwargs[key] = direct
        self._connect_kwargs.pop("prepare_threshold", None)  # a direct connection
        self._get_password = getattr(datastore.pool, "get_password_func", None)
        table = sql.Identifier(datastore.schema, recorder.events_table_name)
        self._listen = sql.SQL("LISTEN {}").format(sql.Identifier(recorder.channel_name))
        columns = "notification_id, originator_id, originator_version, topic, state"
        self._select = sql.SQL(
            "SELECT " + columns + " FROM {} "
            "WHERE notification_id > %s ORDER BY notification_id LIMIT %s"
        ).format(table)
        self._select_ids = sql.SQL(
            "SELECT " + columns + " FROM {} "
            "WHERE notification_id = ANY(%s) ORDER BY notification_id"
        ).format(table)
        self._writer = notify.writer_of(recorder)
        self._schema = str(datastore.schema)
        self._own: set[int] = set()
        self._own_lock = threading.Lock()
        self._kinds: collections.OrderedDict[UUID, str] = collections.OrderedDict()
        self.received = 0  # events from other processes that this process cared about
        self.skipped_own = 0
        # figures: commits announced, rows read from the table, rows never read (not wanted)
        self.commits = 0
        self.rows_read = 0
        self.rows_passed = 0
        self.connected = asyncio.Event()
        self._task = loop.create_task(self._run(), name="store-feed")

    # --- called by the group committer thread -------------------------------------------

    def saved(self, recordings: list[Any]) -> None:
        """This process stored these: the feed need not read, decode or deliver them."""
        with self._own_lock:
            for r in recordings:
                nid = r.notification.id
                if nid is not None and nid > self.position:
                    self._own.add(nid)

    # --- on the event loop -------------------------------------------------------------

    async def _run(self) -> None:
        import psycopg

        while True:
            try:
                kwargs = dict(self._connect_kwargs)
                if self._get_password is not None:
                    kwargs["password"] = self._get_password()
                conn = await psycopg.AsyncConnection.connect(autocommit=True, **kwargs)
                async with conn:
                    await conn.execute(self._listen)
                    self.connected.set()
                    await self._pull(conn)  # everything after the last row seen
                    while True:
                        # Wait for the next NOTIFYs (those that came during a read are kept
                        # by psycopg and returned at once). The generator holds the
                        # connection, so it must end before the next read.
                        payloads = [
                            n.payload async for n in conn.notifies(timeout=5.0, stop_after=1)
                        ]
                        if payloads:
                            await self._announced(conn, payloads)
                        elif self.read_all:
                            await self._pull(conn)  # the old feed's safety net
            except asyncio.CancelledError:
                raise
            except Exception:  # the database went away: listen again from where we were
                self.connected.clear()
                log.warning("store feed lost its connection; retrying in 1 s", exc_info=True)
                await asyncio.sleep(1.0)

    async def _announced(self, conn: Any, payloads: list[str]) -> None:
        """Read the wanted rows of the commits these NOTIFYs announced, in commit order."""
        from server.store import notify

        self.commits += len(payloads)
        wanted: list[int] = []
        kinds: dict[UUID, str | None] = {}
        for payload in payloads:
            decoded = None if self.read_all else notify.decode(payload)
            if decoded is None:  # no list of rows: read them all
                await self._read_ids(conn, wanted, kinds)
                await self._pull(conn)
                return
            writer, schema, entries = decoded
            if schema != self._schema:  # a shard in another schema of this database
                continue
            own = writer == self._writer  # this process's own rows: never read
            with self._own_lock:
                for gid, first, last in entries:
                    for nid in range(max(first, self.position + 1), last + 1):
                        if own or nid in self._own:
                            self._own.discard(nid)
                            self.skipped_own += 1
                            continue
                        if gid not in kinds:
                            kinds[gid] = self.wants(gid)
                        if kinds[gid] is None:
                            self.rows_passed += 1
                        else:
                            wanted.append(nid)
                    self.position = max(self.position, last)
                if len(self._own) > 10_000:  # ids this feed will never see again
                    self._own = {i for i in self._own if i > self.position}
        await self._read_ids(conn, wanted, kinds)

    async def _read_ids(
        self, conn: Any, wanted: list[int], kinds: Mapping[UUID, str | None]
    ) -> None:
        for at in range(0, len(wanted), self.SELECT_LIMIT):
            cur = await conn.execute(self._select_ids, (wanted[at : at + self.SELECT_LIMIT],))
            rows = await cur.fetchall()
            self.rows_read += len(rows)
            await self._deliver(rows, kinds)

    async def _pull(self, conn: Any) -> None:
        while True:
            cur = await conn.execute(self._select, (self.position, self.SELECT_LIMIT))
            rows = await cur.fetchall()
            self.rows_read += len(rows)
            if not rows:
                return
            fresh = []
            kinds: dict[UUID, str | None] = {}
            with self._own_lock:
                for row in rows:
                    nid = row["notification_id"]
                    self.position = nid
                    if nid in self._own:
                        self._own.discard(nid)
                        self.skipped_own += 1
                        continue
                    gid = row["originator_id"]
                    if gid not in kinds:
                        kinds[gid] = self.wants(gid)
                    if kinds[gid] is None:
                        continue
                    fresh.append(row)
                if len(self._own) > 10_000:
                    self._own = {i for i in self._own if i > self.position}
            await self._deliver(fresh, kinds)
            if len(rows) < self.SELECT_LIMIT:
                return

    async def _deliver(self, rows: list[Any], kinds: Mapping[UUID, str | None]) -> None:
        by_game: dict[UUID, tuple[list[Any], list[StoredEvent]]] = {}
        for row in rows:
            gid = row["originator_id"]
            notification = Notification(
                id=row["notification_id"],
                originator_id=gid,
                originator_version=row["originator_version"],
                topic=row["topic"],
                state=bytes(row["state"]),
            )
            event = self.app.mapper.to_domain_event(notification)
            stored = await self._decode(gid, kinds.get(gid) or "", event)
            events, decoded = by_game.setdefault(gid, ([], []))
            events.append(event)
            if stored is not None:
                decoded.append(stored)
            self.received += 1
        for gid, (events, decoded) in by_game.items():
            try:
                self.deliver(gid, events, decoded)
            except Exception:
                log.exception("delivering events of game %s failed", gid)

    async def _decode(self, gid: UUID, kind: str, event: Any) -> StoredEvent | None:
        try:
            if isinstance(event, GameAggregate.Opened):
                kind = str(event.fact["data"]["kind"])
            elif not kind:
                known = self._kinds.get(gid)
                kind = known if known else await asyncio.to_thread(self.app.kind_of, gid)
            self._kinds[gid] = kind
            self._kinds.move_to_end(gid)
            if len(self._kinds) > 100_000:
                self._kinds.popitem(last=False)
            return stored_event(event, kind)
        except Exception:  # an unknown kind here (an older replica?): the cache still learns
            log.warning("cannot decode an event of game %s", gid, exc_info=True)
            return None

    def stop(self) -> None:
        self._task.cancel()


class Store:
    """Games spread over shards by game id; each shard saves through its own group commit.

    A game's shard is ``game_id.int % len(shards)``: uuid4 ids spread games evenly, and every
    replica computes the same shard from configuration alone. The list of shards is part of
    the data: its order never changes.

    Shards can be added (docs/operations.md, "Adding a shard"): a shard marked ``added``
    (``?added=yes`` in its TABLETOP_SHARDS entry) was not among the founding shards, whose
    count still places the games created before it (``id % founding``). A shard marked
    ``new_games=no`` takes no new games. Once the two differ from the list (the store has
    *grown*), a new game goes to ``open[id % len(open)]`` among the shards that take new
    games (``open_shards``), and a game this replica has not seen yet is looked up: its founding shard first,
    then its new-game shard, then every other one, one indexed read each; what is found is
    cached (``placements``), so each replica looks a game up once.
    """

    MAX_PLACEMENTS = 200_000

    def __init__(self, apps: list[TableApplication], max_batch: int = 64) -> None:
        if not apps:
            raise ValueError("a store needs at least one shard")
        self.shards = apps
        self.committers = [
            GroupCommitter(app, max_batch=max_batch, uncertain=is_postgres(app)) for app in apps
        ]
        self.feeds: list[Feed] = []
        every = list(range(len(apps)))
        self.founding = [i for i in every if not _flag(apps[i], "ADDED", False)] or every
        self.open_shards = [i for i in every if _flag(apps[i], "NEW_GAMES", True)] or every
        self.grown = self.founding != every or self.open_shards != every
        self.placements: collections.OrderedDict[UUID, int] = collections.OrderedDict()
        self._placements_lock = threading.Lock()
        self.lookups = 0  # games looked up over the shards (grown stores only)

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
        """The shard holding ``game_id`` (where a new game with that id would go, if none
        holds it). On a grown store this may read the shards: call it off the event loop,
        or after the game was read (then it is cached)."""
        if not self.grown:
            return game_id.int % len(self.shards)
        with self._placements_lock:
            known = self.placements.get(game_id)
            if known is not None:
                self.placements.move_to_end(game_id)
                return known
        self.lookups += 1
        founding = self.founding[game_id.int % len(self.founding)]
        fresh = self.new_shard(game_id)
        order = [founding] + [fresh] * (fresh != founding)
        order += [i for i in range(len(self.shards)) if i not in order]
        for index in order:
            if list(self.shards[index].recorder.select_events(game_id, limit=1)):
                self._place(game_id, index)
                return index
        return fresh  # in no shard yet

    def new_shard(self, game_id: UUID) -> int:
        """Where a new game goes: among the shards that take new games, by its id."""
        return self.open_shards[game_id.int % len(self.open_shards)]

    def _place(self, game_id: UUID, index: int) -> None:
        with self._placements_lock:
            self.placements[game_id] = index
            self.placements.move_to_end(game_id)
            if len(self.placements) > self.MAX_PLACEMENTS:
                self.placements.popitem(last=False)

    def app_for(self, game_id: UUID) -> TableApplication:
        return self.shards[self.shard_of(game_id)]

    # --- the calls the use cases make (blocking ones run in threads) -------------------

    def submit(self, aggregate: Aggregate) -> concurrent.futures.Future[None]:
        """Save ``aggregate``'s pending events; the future resolves once they are durable."""
        pending = aggregate.pending_events
        if self.grown and pending and pending[0].originator_version == 1:
            # a new game: no read (a retried creation read the game first and found it, see
            # Seats.create_game; two at once go to the same shard and one loses there)
            index = self.new_shard(aggregate.id)
            self._place(aggregate.id, index)
        else:
            index = self.shard_of(aggregate.id)
        return self.committers[index].submit(aggregate)

    def get(self, game_id: UUID, version: int | None = None) -> GameAggregate:
        """The game rebuilt from its nearest snapshot; AggregateNotFoundError if none."""
        agg: Aggregate = self.app_for(game_id).repository.get(game_id, version=version)
        if not isinstance(agg, GameAggregate):  # a match's id is no game's
            raise AggregateNotFoundError(game_id)
        return agg

    def stored_events(
        self, game_id: UUID, gt: int | None = None, lte: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        return self.app_for(game_id).stored_events(game_id, gt, lte, limit)

    def get_match(self, match_id: UUID) -> MatchAggregate:
        """A match rebuilt from its facts; AggregateNotFoundError if none."""
        agg: Aggregate = self.app_for(match_id).repository.get(match_id)
        if not isinstance(agg, MatchAggregate):  # a game's id is no match's
            raise AggregateNotFoundError(match_id)
        return agg

    def match_facts(self, match_id: UUID) -> list[StoredMatchFact]:
        return self.app_for(match_id).match_facts(match_id)

    def match_ids(self) -> list[UUID]:
        """Every match in every shard (read once at start-up, to move on open matches)."""
        topic = f"{MatchAggregate.__module__}:{MatchAggregate.Opened.__qualname__}"
        found: list[UUID] = []
        for app in self.shards:
            start = 1
            while True:
                page = app.recorder.select_notifications(start, 500, topics=[topic])
                found += [n.originator_id for n in page]  # type: ignore[misc]
                if len(page) < 500:
                    break
                start = page[-1].id + 1
        return [g if isinstance(g, UUID) else UUID(str(g)) for g in found]

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

    def feed_counts(self) -> dict[str, int]:
        """The store feeds' counters over every shard (for metrics): commits announced, rows
        read from the events tables, rows of unwanted games never read, events delivered,
        own rows skipped."""
        names = ("commits", "rows_read", "rows_passed", "received", "skipped_own")
        return {n: sum(int(getattr(f, n)) for f in self.feeds) for n in names}

    def close(self) -> None:
        for feed in self.feeds:
            feed.stop()
        for committer in self.committers:
            committer.close()
        for app in self.shards:
            app.close()


def _flag(app: TableApplication, name: str, default: bool) -> bool:
    """A shard's yes/no setting (POSTGRES_<NAME>, from ``?name=`` in its TABLETOP_SHARDS
    entry)."""
    value = (app.env.get(f"POSTGRES_{name}") or "").strip().lower()
    if not value:
        return default
    return value in ("y", "yes", "true", "on", "1")


def check_tables(app: TableApplication) -> None:
    """Fail fast, and say what to do, when a PostgreSQL shard has no tables yet."""
    if not is_postgres(app):
        return
    try:
        app.recorder.max_notification_id()
    except Exception as exc:
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]  # one line
        raise SystemExit(
            f"tabletop-server: the event store tables are missing or unreachable ({reason}); "
            "create them once "
            "with `python -m server.startup.migrate` (same settings) before starting replicas"
        ) from None
