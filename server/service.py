"""The use cases of the table server, independent of gRPC.

Each method reads like the action a user takes (create a game, join, start, play, watch).
Rules come from ``domain``; this layer adds authentication, versions, persistence and
fan-out. Blocking store calls run in threads, never on the event loop.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import hmac
import itertools
import logging
import secrets
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import IntegrityError

from domain import match as matches
from domain import table as tables
from domain.codec import to_data
from domain.engine import ARBITER, SPECTATOR, MalformedCommand, Role, RuleViolation, Viewer
from domain.registry import rules_for
from domain.table import deal, records
from domain.table.justice import facts as J
from domain.table.justice.decide import LastMove, is_game_move
from server import idempotency
from server.eventstore import (
    GameAggregate,
    MatchAggregate,
    StoredEvent,
    StoredMatchFact,
    TableApplication,
)
from server.hub import Batch, Hub
from server.shards import Store

MAX_REQUEST_ID = 64  # characters of a Play request_id (idempotency key)
NEXT_HAND_POLL = 1.0  # seconds between a following watcher's looks at another replica's match
MAX_CONCURRENT = 3  # facts a stale Play may be behind and still be decided (a claim window)
PREPARED_DEALS_SETTING = "--allow-prepared-deals (TABLETOP_ALLOW_PREPARED_DEALS)"
STREAM_PAGE = 100  # events a Watch or Replay reads from the store at a time
log = logging.getLogger("tabletop.service")


class NotFound(Exception):
    pass


class PermissionDenied(Exception):
    pass


class Aborted(Exception):
    """The move was made against a stale version; nothing was appended."""

    def __init__(self, expected: int, current: int) -> None:
        super().__init__(f"expected version {expected}, but the game is at {current}")
        self.expected = expected
        self.current = current


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Snapshot:
    """A game as one viewer sees it at one version."""

    game_id: uuid.UUID
    version: int
    table: tables.Table
    viewer: Viewer  # what the contents are rendered for: opened up from the end on
    head_hash: str = ""
    seal: dict[str, Any] | None = None  # the latest move's seal at this version (receipts)
    identity: Viewer | None = None  # who is looking (the role a view reports); else viewer
    match: matches.Match | None = None  # the table's match, when asked for and in one
    reveal_deadline: datetime | None = None  # while seats' reveals are pending

    @property
    def seen_by(self) -> Viewer:
        return self.viewer if self.identity is None else self.identity


def seen_at(
    game_id: uuid.UUID,
    table: tables.Table,
    viewer: Viewer,
    head: str,
    seal: dict[str, Any] | None = None,
    at: datetime | None = None,
) -> Snapshot:
    """``table`` (the game at one version) as ``viewer`` saw it then: the viewer keeps its
    identity, and the contents open up only from the version that ended the game. ``seal``:
    the latest move's at this version (the receipt of a view at a move's end); ``at``: when
    that version was recorded (a pending reveal's deadline follows from it)."""
    contents = tables.viewer_for(table, viewer)
    deadline = None if at is None else tables.reveal_deadline(table, at)
    return Snapshot(
        game_id, table.version, table, contents, head, seal, viewer, reveal_deadline=deadline
    )


Sealer = Callable[[uuid.UUID, tables.Table, str, list[StoredEvent]], dict[str, Any]]
"""Makes a move's seal from the game after it, its head and its events (server/receipts.py)."""


@dataclass(frozen=True)
class HandEvents:
    """Watch across a match: events of the hand ``game_id`` (see ``TableServer.watch``)."""

    game_id: str
    events: list[StoredEvent]
    viewer: Viewer
    batch: Batch | None


@dataclass(frozen=True)
class NextHand:
    """Watch across a match: every event of the previous hand was sent; the stream goes on
    with the hand ``game_id`` from its first event (``game_id`` is "" once the match has
    ended and the stream ends)."""

    game_id: str
    hand: int  # its number (0 once the match has ended)
    match: matches.Match


@dataclass(frozen=True)
class MatchPlan:
    """A match asked for at CreateGame: its length, how it moves on, and its id."""

    hands: int
    target_score: int = 0
    advance: matches.Advance = matches.Advance.AUTO
    match_id: uuid.UUID = dataclasses.field(default_factory=uuid.uuid4)


class _MatchMoved(Exception):
    """Another writer appended to the match first; read it again."""


def _same_request(stored: dict[str, Any] | None, cause: dict[str, Any]) -> None:
    """A stored keyed request must be this very request: same key, same content."""
    stored = stored or {}
    if stored.get("request_key") != cause["request_key"]:
        raise MalformedCommand("request_id", "does not belong to this game")
    if not hmac.compare_digest(str(stored.get("request_check")), cause["request_check"]):
        raise MalformedCommand("request_id", "was already used for a different request")


class TableServer:
    def __init__(
        self,
        store: Store | TableApplication,
        max_batch: int = 64,
        max_cached_games: int = 10_000,
        min_turn_ms: int = 0,
        sealer: Sealer | None = None,
        allow_prepared_deals: bool = False,
        reveal_timeout: float = 30.0,
    ) -> None:
        self.max_cached_games = max_cached_games
        self.min_turn_ms = min_turn_ms  # the shortest turn clock a table may have (policy)
        # Signs every move (server/receipts.py). None only where nothing is signed: the
        # benchmark's unsigned baseline and tests of other things; server/main.py always
        # passes one.
        self.sealer = sealer
        self.allow_prepared_deals = allow_prepared_deals  # client seeds and decks
        # recorded in each new table (GameCreated), so its views' deadlines follow from it
        self.reveal_timeout_ms = round(reveal_timeout * 1000)
        self.store = store if isinstance(store, Store) else Store([store], max_batch=max_batch)
        self.app = self.store.shards[0]  # the first (often only) shard
        self.committer = self.store.committers[0]
        self.hub = Hub()
        self._latest: dict[uuid.UUID, GameAggregate] = {}
        self._locks: dict[uuid.UUID, asyncio.Lock] = {}
        # 误操作 needs the latest move: (the version it is known at, the move or None when the
        # last thing that happened was no game move), so LegalMoves need not read the store
        self._last_moves: dict[uuid.UUID, tuple[int, LastMove | None]] = {}
        self._loading: dict[uuid.UUID, list[int]] = {}
        self._matches: dict[uuid.UUID, MatchAggregate] = {}  # a cache of the store, as games
        try:  # other processes' events (PostgreSQL): one subscription per shard
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None and self.store.shared:
            self.store.start_feed(loop, self._stored_elsewhere, self._wants)

    def close(self) -> None:
        self.store.close()

    def _wants(self, game_id: uuid.UUID) -> str | None:
        """Whether the feed should decode a game's events (called from its thread)."""
        agg = self._latest.get(game_id)
        if agg is not None:
            return agg.table.kind
        watched = self.hub.watching(game_id) or game_id in self._loading
        return "" if watched else None

    def _stored_elsewhere(
        self, game_id: uuid.UUID, events: list[Any], stored: list[StoredEvent]
    ) -> None:
        """Events another process stored: bring the cached game forward, then fan out."""
        loading = self._loading.get(game_id)
        if loading is not None:
            loading[1] = max(loading[1], events[-1].originator_version)
        cached = self._latest.get(game_id)
        if cached is not None and events[-1].originator_version > cached.version:
            fresh = [e for e in events if e.originator_version > cached.version]
            if fresh[0].originator_version == cached.version + 1:
                moved = cached.fork()
                decoded = {e.version: e.fact for e in stored}
                started: tuple[int, tables.Table] | None = None  # the last move's start
                try:
                    for i, event in enumerate(fresh):
                        if event.cause is not None:
                            started = (i, moved.table)
                        # the feed decoded the fact already: let apply() use it (eventstore.py)
                        fact = decoded.get(event.originator_version)
                        if fact is not None:
                            moved.__dict__["_recording"] = fact
                        event.mutate(moved)
                    self._latest[game_id] = moved
                except Exception:
                    self._latest.pop(game_id, None)
                else:
                    self._note_last_move(moved, fresh, decoded, started)
                    # e.g. the turn clock: every replica holding the game arms its deadline;
                    # should several fire, the store lets one timeout in (by version)
                    self.after_append(game_id, moved)
            else:  # a gap: re-read on next use
                self._latest.pop(game_id, None)
        self.hub.publish(game_id, stored)

    def _note_last_move(
        self,
        agg: GameAggregate,
        fresh: list[Any],
        decoded: dict[int, Any],
        started: tuple[int, tables.Table] | None,
    ) -> None:
        """Remember the last move of events another process stored, as ``_append`` does for
        this process's own: without it every seat's stream on this replica (its turn's legal
        moves, for 误操作) read the move back from the store and rebuilt the game before it,
        once per move (profile of bench P2, two replicas)."""
        if started is None:
            return  # the move began in an earlier batch: _last_move reads it if asked
        i, before = started
        moved = fresh[i:]
        facts = [decoded.get(e.originator_version) for e in moved]
        if any(f is None for f in facts):
            return
        cause = moved[0].cause
        versions = (moved[0].originator_version, moved[-1].originator_version)
        self._last_moves[agg.id] = (
            agg.version,
            tables.last_move(before.kind, cause, versions, facts, before.game)
            if is_game_move(cause)
            else None,
        )

    # --- reading -------------------------------------------------------------------------

    @staticmethod
    def parse_id(game_id: str) -> uuid.UUID:
        try:
            return uuid.UUID(game_id)
        except (ValueError, AttributeError):
            raise MalformedCommand("game_id", "is not a game id") from None

    async def _load(self, game_id: uuid.UUID, refresh: bool = False) -> GameAggregate:
        agg = self._latest.get(game_id)
        if agg is None or refresh:
            # [reads in flight, newest version the store feed reported meanwhile]: the feed
            # reports every game being read, so a read never caches a version it overtook
            loading = self._loading.setdefault(game_id, [0, 0])
            loading[0] += 1
            try:
                for _attempt in range(3):
                    try:
                        read: GameAggregate = await asyncio.to_thread(self.store.get, game_id)
                    except AggregateNotFoundError:
                        raise NotFound(f"no game {game_id}") from None
                    if loading[1] <= read.version:
                        break  # else another replica moved while we read: read again
                cached = self._latest.get(game_id)
                agg = read
                if loading[1] > read.version:
                    pass  # still behind: serve it, but do not cache it
                elif cached is None or cached.version <= read.version:
                    self._latest[game_id] = read
                else:  # the feed brought the cache further meanwhile
                    agg = cached
            finally:
                loading[0] -= 1
                if loading[0] == 0:
                    del self._loading[game_id]
            self._trim()
        return agg

    def _trim(self) -> None:
        """Keep memory bounded: games in memory are only a cache of the store. Past the cap,
        forget finished games first, then the earliest cached, never a game in a move, down
        to 90% of the cap (so a full cache is not scanned on every new game)."""
        excess = len(self._latest) - self.max_cached_games
        if excess <= 0:
            return
        excess += self.max_cached_games // 10
        finished = [g for g, a in self._latest.items() if a.table.phase is tables.Phase.FINISHED]
        rest = [g for g in self._latest if g not in set(finished)]
        for gid in finished + rest:
            if excess <= 0:
                break
            lock = self._locks.get(gid)
            if (lock is not None and lock.locked()) or gid in self._loading:
                continue
            self._latest.pop(gid, None)
            self._locks.pop(gid, None)
            self._last_moves.pop(gid, None)
            excess -= 1

    async def _load_at(self, game_id: uuid.UUID, version: int | None) -> GameAggregate:
        if version is None:
            return await self._load(game_id)
        latest = await self._load(game_id)
        if not 1 <= version <= latest.version:
            raise MalformedCommand("version", f"must be 1..{latest.version}")
        if version == latest.version:
            return latest
        agg: GameAggregate = await asyncio.to_thread(self.store.get, game_id, version)
        return agg

    async def authenticate(self, game_id: str, token: str | None) -> Viewer:
        """The viewer a token stands for at this game; no token is a spectator."""
        agg = await self._load(self.parse_id(game_id))
        if not token:
            return SPECTATOR
        presented = token_hash(token)
        if hmac.compare_digest(presented, agg.table.arbiter_token_hash):
            return ARBITER
        for seat, info in enumerate(agg.table.seats):
            if info is not None and hmac.compare_digest(presented, info.token_hash):
                return Viewer.of_seat(seat)
        raise PermissionDenied("the token is not valid for this game")

    # --- writing -------------------------------------------------------------------------

    def _lock(self, game_id: uuid.UUID) -> asyncio.Lock:
        return self._locks.setdefault(game_id, asyncio.Lock())

    async def _append(
        self, agg: GameAggregate, facts: list[Any], cause: dict[str, Any]
    ) -> list[StoredEvent]:
        """Append facts to a fork of ``agg``, wait until durable, then publish.

        ``cause`` (the action and command, see domain.table.cause) is stored with the first
        fact so an auditor can re-decide every move."""
        fork = agg.fork()
        for i, fact in enumerate(facts):
            fork.record(fact, cause if i == 0 else None)
        pending: list[Any] = list(fork.pending_events)
        stored = [
            StoredEvent(e.originator_version, e.timestamp, fact, e.hash, e.fact, e.cause)
            for e, fact in zip(pending, facts, strict=True)
        ]
        stored = self._seal(fork, stored)
        done = asyncio.wrap_future(self.store.submit(fork))
        try:
            await asyncio.shield(done)
        except asyncio.CancelledError:
            # The caller went away mid-commit; the move may still be stored. Then forget
            # the old version here and tell the watchers, as if it came from elsewhere.
            def landed(f: asyncio.Future[None]) -> None:
                self._latest.pop(agg.id, None)
                if not f.cancelled() and f.exception() is None:
                    self.hub.publish(agg.id, stored)

            done.add_done_callback(landed)
            raise
        except IntegrityError:
            self._latest.pop(agg.id, None)  # another writer won: never trust memory now
            current = (await self._load(agg.id)).version
            raise Aborted(agg.version, current) from None
        except Exception:  # e.g. OutcomeUnknown: the move may be stored, so re-read later
            self._latest.pop(agg.id, None)
            self._last_moves.pop(agg.id, None)
            raise
        cached = self._latest.get(agg.id)
        if cached is agg:
            self._latest[agg.id] = fork
        elif cached is not None and cached.version < fork.version:
            # the store feed moved or dropped the entry meanwhile: re-read on next use
            self._latest.pop(agg.id, None)
        versions = (stored[0].version, stored[-1].version)
        self._last_moves[agg.id] = (
            fork.version,
            tables.last_move(agg.table.kind, cause, versions, facts, agg.table.game)
            if is_game_move(cause)
            else None,  # the last thing that happened is no game move: nothing to retract
        )
        self.hub.publish(agg.id, stored)
        self.after_append(agg.id, fork)
        finished = tables.Phase.FINISHED
        if fork.table.match_id and fork.table.phase is finished and agg.table.phase is not finished:
            await self._hand_ended(fork.table.match_id)
        return stored

    def _seal(self, agg: GameAggregate, move: list[StoredEvent]) -> list[StoredEvent]:
        """Sign the move (one seal covers every viewer's receipt) and store the seal with
        its last event."""
        if self.sealer is None:
            return move
        seal = self.sealer(agg.id, agg.table, agg.head_hash, move)
        agg.seal_move(seal)
        return [*move[:-1], dataclasses.replace(move[-1], seal=seal)]

    def after_append(self, game_id: uuid.UUID, agg: GameAggregate) -> None:
        """Hook for the turn clock (server/timers.py); nothing by default."""

    async def create_game(
        self,
        kind: str,
        options: Any,
        seat_count: int,
        seed: int | None = None,
        deck: tuple[int, ...] = (),
        enforcement: J.Enforcement = J.Enforcement.REJECT,
        time_limit_ms: int = 0,
        arbitrated: bool = False,
        request_id: str = "",
        match: MatchPlan | None = None,
    ) -> tuple[str, int, str]:
        """Open a table. Returns the game id, its version and the arbiter token. With
        ``match``, the table is the first hand of that new match (see ``create_match``).

        The shuffle secret and the commitment's salt are random. A ``seed`` (the secret
        derived from it) or a ``deck`` is a prepared deal: refused unless this server allows
        prepared deals, and marked in the table's facts. With a ``request_id``
        (server/idempotency.py) the game id and the arbiter token come from the key, so a
        retry finds the game and returns the same reply."""
        if (seed is not None or deck) and not self.allow_prepared_deals:
            raise RuleViolation(
                "PREPARED_DEALS_DISABLED",
                PREPARED_DEALS_SETTING,
                "this server refuses a seed or a deck: the table's creator would choose the "
                f"deal (start the server with {PREPARED_DEALS_SETTING} to allow them, marked)",
            )
        if 0 < time_limit_ms < self.min_turn_ms:  # a fast clock would play games by itself
            raise MalformedCommand(
                "turn_time_limit_ms",
                f"at least {self.min_turn_ms} ms on this server, or 0 for no clock",
            )
        rules = rules_for(kind)
        key = idempotency.parse(request_id)
        game_id, arbiter_token, cause = (
            uuid.uuid4(),
            secrets.token_urlsafe(24),
            tables.cause("create"),
        )
        match_id = str(match.match_id) if match is not None else ""
        if match is not None:
            game_id = uuid.UUID(matches.hand_id(match_id, 1))
        if key is not None:
            content = {
                "kind": kind, "options": to_data(options), "seat_count": seat_count,
                "seed": seed, "deck": list(deck), "enforcement": enforcement.name,
                "time_limit_ms": time_limit_ms, "arbitrated": arbitrated,
            }  # fmt: skip
            if match is not None:  # create_match derived the match id from the key
                content["match"] = {
                    "hands": match.hands,
                    "target_score": match.target_score,
                    "advance": match.advance.name,
                }
            else:
                game_id = idempotency.game_id(key)
            arbiter_token = idempotency.token(key, "arbiter", game_id)
            cause.update(idempotency.cause_fields(key, "create", content))
        async with self._lock(game_id):  # duplicates sent to this replica at once
            if key is not None and await self._created(game_id, cause):
                return str(game_id), 1, arbiter_token
            secret = deal.secret_from_seed(seed) if seed is not None else secrets.token_hex(32)
            (created,) = tables.create(
                rules,
                options,
                seat_count,
                token_hash(arbiter_token),
                secret,
                tuple(deck),
                enforcement,
                time_limit_ms,
                arbitrated,
                match_id=match_id,
                hand=1 if match is not None else 0,
                salt=secrets.token_hex(32),
                seeded=seed is not None,
                reveal_timeout_ms=self.reveal_timeout_ms,
            )
            if match is not None:
                await self._open_match(rules, seat_count, match, keyed=key is not None)
            agg = GameAggregate.open(game_id, created, cause)
            opened: Any = agg.pending_events[0]
            first = StoredEvent(
                1, opened.timestamp, created, agg.head_hash, opened.fact, opened.cause
            )
            self._seal(agg, [first])
            try:
                await asyncio.wrap_future(self.store.submit(agg))
            except IntegrityError:  # the same key on another replica, at the same time
                if key is not None and await self._created(game_id, cause):
                    return str(game_id), 1, arbiter_token
                raise
            self._latest[game_id] = agg
            self._trim()
        return str(game_id), agg.version, arbiter_token

    async def _open_match(self, rules: Any, seat_count: int, plan: MatchPlan, keyed: bool) -> None:
        """Store a new match's opening facts. A keyed CreateGame retried after its match was
        stored (but not its first hand) finds the same match and goes on; a match of the
        same id with another length is another request's."""
        match_id = str(plan.match_id)
        opening = matches.create(
            rules, match_id, seat_count, plan.hands, plan.target_score, plan.advance
        )
        opened = MatchAggregate.open(plan.match_id, opening)
        try:
            await asyncio.wrap_future(self.store.submit(opened))
        except IntegrityError:
            if not keyed:
                raise
            stored = [
                f.fact for f in await asyncio.to_thread(self.store.match_facts, plan.match_id)
            ]
            if stored != list(opening):
                raise MalformedCommand(
                    "request_id", "was already used for a different request"
                ) from None
            opened = await self._load_match(plan.match_id, refresh=True)
        self._matches[plan.match_id] = opened

    async def _created(self, game_id: uuid.UUID, cause: dict[str, Any]) -> bool:
        """Whether the keyed CreateGame behind ``cause`` already opened ``game_id``."""
        first = await asyncio.to_thread(self.store.stored_events, game_id, 0, 1)
        if not first:
            return False
        _same_request(first[0].cause, cause)
        return True

    async def join_game(
        self,
        game_id: str,
        seat: int,
        player_name: str,
        contribution: str = "",
        commitment: str = "",
        request_id: str = "",
    ) -> tuple[str, int]:
        """Take a seat, committing to a contribution. Returns the seat token (shown once, or
        to a retry with the same ``request_id``: the token is then derived from the key) and
        the new version."""
        gid = self.parse_id(game_id)
        key = idempotency.parse(request_id)
        cause = tables.cause("join", seat)
        if key is None:
            token = secrets.token_urlsafe(24)
        else:
            token = idempotency.token(key, "seat", gid, seat)
            content = {"game_id": str(gid), "seat": seat, "player_name": player_name,
                       "contribution": contribution, "commitment": commitment}  # fmt: skip
            cause.update(idempotency.cause_fields(key, "join", content))

        def decide(agg: GameAggregate) -> list[Any]:
            return tables.take_seat(
                agg.table, seat, player_name, token_hash(token), contribution, commitment
            )

        stored = await self._once(gid, decide, cause)
        return token, stored[-1].version

    async def reveal(
        self, game_id: str, viewer: Viewer, contribution: str
    ) -> tuple[int, list[StoredEvent], tuple[int, ...], datetime | None]:
        """The seat reveals its contribution. Returns the version, the events appended (none
        for a repeat), the seats still awaited and the reveal deadline."""
        gid = self.parse_id(game_id)
        if viewer.role is not Role.SEAT or viewer.seat is None:
            raise PermissionDenied("only a seat reveals its contribution")
        async with self._lock(gid):
            agg = await self._load(gid)
            try:
                facts = tables.reveal(agg.table, viewer.seat, contribution)
            except RuleViolation:  # another replica may have taken the last seat: read again
                agg = await self._load(gid, refresh=True)
                facts = tables.reveal(agg.table, viewer.seat, contribution)
            stored: list[StoredEvent] = []
            if facts:
                stored = await self._append(agg, facts, tables.cause("reveal", viewer.seat))
                agg = await self._load(gid)
        deadline = tables.reveal_deadline(agg.table, agg.modified_on)
        return agg.version, stored, agg.table.pending_reveals, deadline

    async def start_game(self, game_id: str, viewer: Viewer, request_id: str = "") -> int:
        gid = self.parse_id(game_id)
        if viewer.role is Role.SPECTATOR:
            raise PermissionDenied("a seat or the arbiter starts the game")
        key = idempotency.parse(request_id)
        cause = tables.cause("start")
        if key is not None:
            cause.update(idempotency.cause_fields(key, "start", {"game_id": str(gid)}))

        def decide(agg: GameAggregate) -> list[Any]:
            deadline = tables.reveal_deadline(agg.table, agg.modified_on)
            closed = deadline is not None and datetime.now(UTC) >= deadline
            # the server's clock closed the window (trusted, like a turn timeout): recorded
            # in the cause, so the replay re-decides the same deal (and verify checks the time)
            cause.pop("reveals_closed", None)
            if closed:
                cause["reveals_closed"] = True
            return tables.start(agg.table, closed)

        stored = await self._once(gid, decide, cause)
        return stored[-1].version

    async def _once(
        self, gid: uuid.UUID, decide: Callable[[GameAggregate], list[Any]], cause: dict[str, Any]
    ) -> list[StoredEvent]:
        """Decide and append, once per idempotency key: a request whose key is stored gets
        its original events back. A refusal is checked against a fresh read first, since
        another replica may hold the answer (the retry went elsewhere)."""
        digest = cause.get("request_key")
        async with self._lock(gid):
            agg = await self._load(gid)
            for fresh in (False, True):
                if fresh:
                    agg = await self._load(gid, refresh=True)
                if digest and (done := await self._requested(agg, digest, cause)):
                    return done
                try:
                    facts = decide(agg)  # before the cause is stored: it may complete it
                    return await self._append(agg, facts, cause)
                except (RuleViolation, Aborted):
                    if not digest or fresh:
                        raise
        raise AssertionError("unreachable")

    async def _requested(
        self, agg: GameAggregate, digest: str, cause: dict[str, Any]
    ) -> list[StoredEvent] | None:
        first = agg.keyed_version(digest)
        if first is None:
            return None
        move = await self._move_from(agg.id, first)
        _same_request(move[0].cause if move else None, cause)
        return move

    async def _move_from(self, gid: uuid.UUID, first: int) -> list[StoredEvent]:
        """The events of the request whose first fact is at ``first`` (up to the next cause)."""
        events = await asyncio.to_thread(self.store.stored_events, gid, first - 1, None, 256)
        return events[:1] + list(itertools.takewhile(lambda e: e.cause is None, events[1:]))

    async def play(
        self,
        game_id: str,
        viewer: Viewer,
        expected_version: int,
        command: Any,
        request_id: str = "",
    ) -> list[StoredEvent]:
        """Decide ``command`` for the viewer's seat against ``expected_version``.

        ``request_id`` is the client's idempotency key: it is stored in the move's cause, and
        a Play whose seat and request_id were already accepted is not decided again; the
        original move's events come back, whatever the game's version is now.
        """
        gid = self.parse_id(game_id)
        if isinstance(command, tables.ARBITER_COMMANDS):
            if viewer.role is not Role.ARBITER:
                raise PermissionDenied("only the table's arbiter rules on a case")
        elif viewer.role is not Role.SEAT:
            raise PermissionDenied("only a seated player plays moves")
        elif command.seat != viewer.seat:
            raise PermissionDenied(f"the token is for seat {viewer.seat}, not {command.seat}")
        if len(request_id) > MAX_REQUEST_ID:
            raise MalformedCommand("request_id", f"at most {MAX_REQUEST_ID} characters")
        async with self._lock(gid):
            agg = await self._load(gid)
            if request_id and (done := await self._played(agg, command, request_id)):
                return done
            if expected_version != agg.version:
                agg = await self._load(gid, refresh=True)  # another replica may have moved
                if request_id and (done := await self._played(agg, command, request_id)):
                    return done
            if expected_version != agg.version and not await self._concurrent(
                agg, expected_version, command
            ):
                raise Aborted(expected_version, agg.version)
            needs_last = isinstance(command, J.Retract | J.Report)  # 误操作, a reported move
            last = await self._last_move(agg) if needs_last else None
            facts = tables.act(agg.table, command, last)
            seat = None if isinstance(command, tables.ARBITER_COMMANDS) else command.seat
            cause = tables.cause("play", seat, command)
            if request_id:
                cause["request_id"] = request_id
            try:
                return await self._append(agg, facts, cause)
            except Aborted:  # another replica stored a move first: this very request?
                if request_id:
                    latest = await self._load(gid)
                    if done := await self._played(latest, command, request_id):
                        return done
                raise

    async def _concurrent(self, agg: GameAggregate, expected_version: int, command: Any) -> bool:
        """The facts since ``expected_version`` leave the move as valid as it was (another
        seat's answer in the same 川南字牌 claim window): decide it on the current state."""
        gap = agg.version - expected_version
        if not 0 < gap <= MAX_CONCURRENT or isinstance(command, tables.ARBITER_COMMANDS):
            return False
        events = await asyncio.to_thread(
            self.store.stored_events, agg.id, expected_version, agg.version, None
        )
        return tables.concurrent(agg.table.kind, [e.fact for e in events], command.seat)

    async def _played(
        self, agg: GameAggregate, command: Any, request_id: str
    ) -> list[StoredEvent] | None:
        """The stored events of the move this seat (or the arbiter) already made with
        ``request_id``: the arbiter's commands are indexed under no seat, as their cause is."""
        seat = None if isinstance(command, tables.ARBITER_COMMANDS) else command.seat
        first = agg.request_version(seat, request_id)
        if first is None:
            return None
        move = await self._move_from(agg.id, first)
        original = (move[0].cause or {}).get("command") if move else None
        if records.canonical(original) != records.canonical(tables.encode_event(command)):
            raise MalformedCommand("request_id", "was already used for a different move")
        return move

    def finished_for(self, game_id: uuid.UUID) -> float | None:
        """Seconds since the game finished, or None while it runs or is not cached (the
        open-games limit asks: a finished game still counts for a cool-down). The first
        hand of a match counts until its match is known to have ended."""
        agg = self._latest.get(game_id)
        if agg is None or agg.table.phase is not tables.Phase.FINISHED:
            return None
        ended: Any = agg
        if agg.table.match_id:
            ended = self._matches.get(uuid.UUID(agg.table.match_id))
            if ended is None or not ended.match.finished:
                return None
        return (datetime.now(UTC) - ended.modified_on).total_seconds()

    def with_seat(self, command: Any, viewer: Viewer) -> Any:
        """Fill the command's seat from the token when the client left it unset (0)."""
        if viewer.role is Role.SEAT and command.seat == 0:
            return dataclasses.replace(command, seat=viewer.seat)
        return command

    async def version_of(self, game_id: uuid.UUID) -> int:
        """The game's latest version, as this replica knows it."""
        return (await self._load(game_id)).version

    async def legal_moves(
        self, game_id: str, viewer: Viewer
    ) -> tuple[tables.Table, int, list[Any]]:
        """The viewer's legal commands at the latest version: the table, the version, them."""
        agg = await self._load(self.parse_id(game_id))
        table = agg.table
        if viewer.role is not Role.SEAT or table.phase is not tables.Phase.PLAYING:
            return table, agg.version, []
        assert viewer.seat is not None
        last = await self._last_move(agg)
        return table, agg.version, tables.legal_commands(table, viewer.seat, last)

    async def _last_move(self, agg: GameAggregate) -> LastMove | None:
        """The latest game move if it is the last thing that happened (for 误操作)."""
        known = self._last_moves.get(agg.id)
        if known is not None and known[0] == agg.version:
            return known[1]
        if agg.table.phase is not tables.Phase.PLAYING:
            return None
        found = await self._read_last_move(agg)
        self._last_moves[agg.id] = (agg.version, found)
        return found

    async def _read_last_move(self, agg: GameAggregate) -> LastMove | None:
        """``_last_move`` from the store (after a restart, or a move another replica made)."""
        recent = await asyncio.to_thread(
            self.store.stored_events, agg.id, max(0, agg.version - 64), None, None
        )
        caused = [i for i, e in enumerate(recent) if e.cause is not None]
        if not caused or not is_game_move(recent[caused[-1]].cause):
            return None
        move = recent[caused[-1] :]
        first = move[0].version
        before = (await self._load_at(agg.id, first - 1)).table.game
        cause = move[0].cause or {}
        facts = [e.fact for e in move]
        return tables.last_move(agg.table.kind, cause, (first, move[-1].version), facts, before)

    async def snapshot(
        self, game_id: str, viewer: Viewer, version: int | None, with_match: bool = False
    ) -> Snapshot:
        """The game at ``version`` (latest if None) as ``viewer`` may see it, and, with
        ``with_match``, the match it is a hand of as the match stands now.

        A past version is rendered for the viewer as they were then: seats replay what
        they could see at the time, also after the end (a player can show what it saw at
        move 12). The versions from the end of the game on show everything.
        """
        gid = self.parse_id(game_id)
        agg = await self._load_at(gid, version)
        snap = seen_at(gid, agg.table, viewer, agg.head_hash, agg.latest_seal, agg.modified_on)
        if not with_match:
            return snap
        latest = await self._load(gid)
        return dataclasses.replace(snap, match=await self.match_of(latest.table))

    async def as_seat(self, game_id: str, viewer: Viewer, seat: int) -> Viewer:
        """Look through a seat's eyes: the arbiter at any time (disputes and appeals), anyone
        once the game is over (every viewpoint is open then)."""
        agg = await self._load(self.parse_id(game_id))
        if viewer.role is not Role.ARBITER and agg.table.phase is not tables.Phase.FINISHED:
            raise PermissionDenied("only the table's arbiter may view as a seat before the end")
        if not 0 <= seat < agg.table.seat_count:
            raise MalformedCommand("as_seat", f"must be 0..{agg.table.seat_count - 1}")
        return Viewer.of_seat(seat)

    async def as_arbiter(self, game_id: str, viewer: Viewer) -> Viewer:
        """The arbiter's view: the arbiter's own, and everyone's once the game is over."""
        agg = await self._load(self.parse_id(game_id))
        if viewer.role is not Role.ARBITER and agg.table.phase is not tables.Phase.FINISHED:
            raise PermissionDenied("only the table's arbiter sees everything before the end")
        return ARBITER

    async def replay(
        self, game_id: str, viewer: Viewer, first: int, last: int
    ) -> AsyncIterator[tuple[StoredEvent, Snapshot]]:
        """Each version from ``first`` to ``last`` with its event, as ``viewer`` may see it.

        The game is rebuilt once at ``first`` (from the nearest snapshot) and then evolved
        forward event by event, so a replay costs one rebuild plus the events."""
        gid = self.parse_id(game_id)
        latest = await self._load(gid)
        last = last or latest.version
        first = first or 1
        if not 1 <= first <= last <= latest.version:
            raise MalformedCommand("from_version", f"versions must be within 1..{latest.version}")
        agg = await self._load_at(gid, first)
        table, head = agg.table, agg.head_hash
        async for page in self._pages(gid, first - 1, last):
            for event in page:
                if event.version > first:
                    table, head = tables.evolve(table, event.fact), event.hash
                yield event, seen_at(gid, table, viewer, head, at=event.recorded_at)

    async def follow(
        self, game_id: str, viewer: Viewer, after: int = 0
    ) -> AsyncIterator[tuple[StoredEvent, Snapshot]]:
        """Every version after ``after`` with its event, as ``viewer`` may see it: the stored
        ones, then each new one as it is stored (Watch's order: no gap, no duplicate). Ends
        once the game is over. The game is evolved here, once per event (the live viewer)."""
        gid = self.parse_id(game_id)
        table = (await self._load_at(gid, after)).table if after else None
        async for events, _seen_as, _batch in self.watch(game_id, viewer, after):
            for event in events:
                table = tables.evolve(table, event.fact)
                yield event, seen_at(gid, table, viewer, event.hash, at=event.recorded_at)

    async def _pages(
        self, gid: uuid.UUID, after: int, last: int | None = None
    ) -> AsyncIterator[list[StoredEvent]]:
        """The stored events after ``after`` (up to ``last``), ``STREAM_PAGE`` at a time, so a
        stream holds one page whatever the length of the history."""
        while last is None or after < last:
            page = await asyncio.to_thread(self.store.stored_events, gid, after, last, STREAM_PAGE)
            if not page:
                return
            yield page
            if len(page) < STREAM_PAGE:
                return
            after = page[-1].version

    async def history(
        self, game_id: str, viewer: Viewer, after: int, limit: int
    ) -> tuple[tables.Table, list[StoredEvent], int, Viewer]:
        gid = self.parse_id(game_id)
        latest = await self._load(gid)
        events = await asyncio.to_thread(self.store.stored_events, gid, after, None, limit)
        return latest.table, events, latest.version, tables.viewer_for(latest.table, viewer)

    async def watch(
        self, game_id: str, viewer: Viewer, after_version: int
    ) -> AsyncIterator[tuple[list[StoredEvent], Viewer, Batch | None]]:
        """Batches of events after ``after_version``: stored ones first, then live ones.

        Subscribing before reading the store and skipping what was already sent gives no gap
        and no duplicate. A version jump (a lagging subscriber) triggers a re-read from the
        store. Each batch comes with the viewer to render it for (opened up once the game
        is over). The stream ends once the game is over and everything was sent.
        """
        gid = self.parse_id(game_id)
        await self._load(gid)
        sub = self.hub.subscribe(gid)
        last = after_version
        try:
            while True:
                async for stored in self._pages(gid, last):
                    latest = await self._load(gid)
                    last = stored[-1].version
                    ends_game = last >= latest.version
                    seen_as = tables.viewer_for(latest.table, viewer) if ends_game else viewer
                    yield stored, seen_as, None
                latest = await self._load(gid)
                if latest.table.phase is tables.Phase.FINISHED and last >= latest.version:
                    return
                sub.lagging = False
                while not sub.lagging:
                    batch = await sub.next_batch()
                    fresh = [e for e in batch.events if e.version > last]
                    if not fresh:
                        continue
                    if fresh[0].version != last + 1:
                        break  # a gap: re-read from the store
                    last = fresh[-1].version
                    latest = await self._load(gid)
                    # A live batch opens up only if it is the one that ended the game, so
                    # what a watcher sees does not depend on how fast it reads.
                    ends_game = fresh[-1].version >= latest.version
                    seen_as = tables.viewer_for(latest.table, viewer) if ends_game else viewer
                    yield fresh, seen_as, (batch if len(fresh) == len(batch.events) else None)
                    if latest.table.phase is tables.Phase.FINISHED and last >= latest.version:
                        return  # the end, and everything was sent
        finally:
            sub.close()

    # --- matches (domain/match/): a series of hands at one table --------------------------

    async def create_match(
        self,
        kind: str,
        options: Any,
        seat_count: int,
        hands: int,
        target_score: int = 0,
        advance: matches.Advance = matches.Advance.AUTO,
        **table: Any,
    ) -> tuple[str, int, str, str]:
        """Open a match and its first hand's table (``table``: create_game's settings).
        Returns the first hand's game id and version, the arbiter token and the match id.
        Seats join and start the first hand as any table; the server deals the hands after
        it (``advance_match``). A seed or a prepared deck fixes the first hand only: every
        later hand has a fresh secret. With a ``request_id`` the match id comes from the
        key too (its first hand's id follows from it), so a retry finds both."""
        plan = MatchPlan(hands, target_score, advance)
        if key := idempotency.parse(table.get("request_id", "")):
            plan = dataclasses.replace(plan, match_id=idempotency.match_id(key))
        game_id, version, arbiter = await self.create_game(
            kind, options, seat_count, match=plan, **table
        )
        return game_id, version, arbiter, str(plan.match_id)

    async def _load_match(self, match_id: uuid.UUID, refresh: bool = False) -> MatchAggregate:
        agg = self._matches.get(match_id)
        if agg is None or refresh:
            try:
                agg = await asyncio.to_thread(self.store.get_match, match_id)
            except AggregateNotFoundError:
                raise NotFound(f"no match {match_id}") from None
            self._matches[match_id] = agg
            self._trim_matches()
        return agg

    def _trim_matches(self) -> None:
        """Bounded like the games: past the cap, forget finished matches first."""
        excess = len(self._matches) - self.max_cached_games
        if excess <= 0:
            return
        finished = [m for m, a in self._matches.items() if a.match.finished]
        running = [m for m in self._matches if m not in set(finished)]
        for mid in (finished + running)[: excess + self.max_cached_games // 10]:
            del self._matches[mid]

    async def _append_match(self, agg: MatchAggregate, facts: list[Any]) -> None:
        """Append to a fork of the match; a writer that came first makes it _MatchMoved."""
        if not facts:
            return
        fork = agg.fork()
        for fact in facts:
            fork.record(fact)
        try:
            await asyncio.wrap_future(self.store.submit(fork))
        except IntegrityError:
            self._matches.pop(agg.id, None)
            raise _MatchMoved from None
        if self._matches.get(agg.id) is agg:
            self._matches[agg.id] = fork
        else:
            self._matches.pop(agg.id, None)
        self.hub.wake(("match", agg.id))  # watchers waiting between hands look again

    async def _hand_ended(self, match_id: str) -> None:
        """A hand of a match ended here: move the match on. The hand's own facts are already
        durable, so a failure here loses nothing: the next look (a ready, a watcher between
        hands, the start-up recovery) moves the match on instead."""
        try:
            await self.advance_match(match_id)
        except Exception:
            log.exception("match %s did not move on after its hand ended", match_id)

    async def advance_match(self, match_id: str) -> None:
        """Bring the match forward from what is stored: record the hand that ended (and the
        end of the match after its last hand), then, when the next hand is due, open and
        deal it through the table's own path and link it. Idempotent, safe from any replica
        at any time: each step is an append the store lets in once (the next hand's id is
        derived from the match, so only one table can be that hand)."""
        mid = uuid.UUID(match_id)
        async with self._lock(mid):
            for _attempt in range(8 + 4 * matches.MAX_HANDS):
                agg = await self._load_match(mid)
                try:
                    if not await self._advance_step(agg):
                        return
                except _MatchMoved:
                    continue

    async def _advance_step(self, agg: MatchAggregate) -> bool:
        """One step of ``advance_match``; True when it wrote something."""
        state = agg.match
        current = state.current
        if state.finished or current is None:
            return False
        hand = await self._load(uuid.UUID(current.game_id))
        if current.ended is None:
            if hand.table.phase is not tables.Phase.FINISHED:
                return False
            await self._append_match(agg, matches.end_hand(state, hand.table, hand.head_hash))
            return True
        if not matches.next_due(state):
            return False
        next_id = uuid.UUID(matches.hand_id(state.match_id, state.next_number))
        if not await self._exists(next_id):
            moves = matches.next_hand(state, hand.table, secrets.token_hex(32))
            await self._open_hand(next_id, moves)
        await self._append_match(agg, matches.open_hand(state))
        return True

    async def _exists(self, game_id: uuid.UUID) -> bool:
        try:
            await self._load(game_id)
        except NotFound:
            return False
        return True

    async def _open_hand(self, game_id: uuid.UUID, moves: list[Any]) -> None:
        """Write a hand's opening moves (create, seats, deal) as one append; if another
        writer opened the hand first, theirs stands."""
        (first_cause, (created,)), *rest = moves
        agg = GameAggregate.open(game_id, created, first_cause)
        stored = self._stored_move(agg, [created], 0)
        for cause, move in rest:
            done = len(agg.pending_events)
            for i, fact in enumerate(move):
                agg.record(fact, cause if i == 0 else None)
            stored += self._stored_move(agg, move, done)
        try:
            await asyncio.wrap_future(self.store.submit(agg))
        except IntegrityError:
            return
        self._latest[game_id] = agg
        self._trim()
        self.hub.publish(game_id, stored)
        self.after_append(game_id, agg)  # the turn clock of the new hand

    def _stored_move(self, agg: GameAggregate, facts: list[Any], done: int) -> list[StoredEvent]:
        """The move just recorded on ``agg`` (its pending events after the first ``done``),
        sealed under the hand's own id as every single table's move is."""
        pending: list[Any] = list(agg.pending_events)[done:]
        move = [
            StoredEvent(e.originator_version, e.timestamp, fact, e.hash, e.fact, e.cause)
            for e, fact in zip(pending, facts, strict=True)
        ]
        return self._seal(agg, move)

    async def ready_next_hand(
        self, game_id: str, viewer: Viewer, contribution: str = ""
    ) -> matches.Match:
        """The viewer's seat is ready for the match's next hand (at any hand's id of the
        match: the same token acts in every hand) and adds its contribution to that deal."""
        if viewer.role is not Role.SEAT or viewer.seat is None:
            raise PermissionDenied("only a seated player says it is ready")
        table = (await self._load(self.parse_id(game_id))).table
        if not table.match_id:
            raise RuleViolation("NOT_A_MATCH", matches.decide.RULE, "this table plays one hand")
        mid = uuid.UUID(table.match_id)
        async with self._lock(mid):
            for _attempt in range(8):
                agg = await self._load_match(mid)
                try:
                    await self._append_match(
                        agg, matches.ready(agg.match, viewer.seat, contribution)
                    )
                    break
                except _MatchMoved:
                    continue
        await self.advance_match(table.match_id)
        return (await self._load_match(mid)).match

    async def match_of(self, table: tables.Table) -> matches.Match | None:
        """The match ``table`` is a hand of, read again from the store once the hand has
        ended or when the cached match is behind it (its standings may have moved)."""
        if not table.match_id:
            return None
        mid = uuid.UUID(table.match_id)
        cached = self._matches.get(mid)
        stale = cached is None or len(cached.match.hands) < table.hand
        refresh = stale or table.phase is tables.Phase.FINISHED
        return (await self._load_match(mid, refresh=refresh)).match

    async def match_record(self, match_id: str) -> tuple[matches.Match, list[StoredMatchFact]]:
        """A match and its stored facts (public: a match's facts hide nothing)."""
        try:
            mid = uuid.UUID(match_id)
        except ValueError:
            raise MalformedCommand("match_id", "is not a match id") from None
        agg = await self._load_match(mid, refresh=True)
        facts = await asyncio.to_thread(self.store.match_facts, mid)
        return agg.match, facts

    async def watch_match(
        self, game_id: str, viewer: Viewer, after_version: int
    ) -> AsyncIterator[HandEvents | NextHand]:
        """``watch``, going on into the match's next hands: each hand's events, then a
        NextHand once the next hand is dealt (its events follow from version 1), and a last
        NextHand without a game id when the match has ended. The viewer is the same in
        every hand (the same token)."""
        current = game_id
        after = after_version
        while True:
            async for events, seen_as, batch in self.watch(current, viewer, after):
                yield HandEvents(current, events, seen_as, batch)
            table = (await self._load(self.parse_id(current))).table
            if not table.match_id:
                return
            following = await self._following_hand(table)
            if following is None:
                match = (await self._load_match(uuid.UUID(table.match_id), refresh=True)).match
                yield NextHand("", 0, match)
                return
            then = await self.match_of(following.table)
            assert then is not None
            current, after = str(following.id), 0
            yield NextHand(current, following.table.hand, then)

    async def _following_hand(self, table: tables.Table) -> GameAggregate | None:
        """The hand after ``table`` once it is dealt, or None when the match ended first.
        Waits on this process's hub (the next hand's id is known in advance) and looks at
        the store every NEXT_HAND_POLL seconds (another replica may deal it)."""
        mid = uuid.UUID(table.match_id)
        next_id = uuid.UUID(matches.hand_id(table.match_id, table.hand + 1))
        hand_sub = self.hub.subscribe(next_id)
        match_sub = self.hub.subscribe(("match", mid))
        nudged = False
        try:
            while True:
                try:
                    return await self._load(next_id, refresh=True)
                except NotFound:
                    pass
                state = (await self._load_match(mid, refresh=True)).match
                if state.finished:
                    return None
                if not nudged:  # a match whose last writer died moves on from here
                    nudged = True
                    await self._hand_ended(table.match_id)
                    continue
                waits = [asyncio.ensure_future(sub.next_batch()) for sub in (hand_sub, match_sub)]
                try:
                    await asyncio.wait(
                        waits, timeout=NEXT_HAND_POLL, return_when=asyncio.FIRST_COMPLETED
                    )
                finally:
                    for waiting in waits:
                        waiting.cancel()
        finally:
            hand_sub.close()
            match_sub.close()

    async def recover_matches(self) -> int:
        """After a restart: move on every match that was left between two steps (a hand
        ended but not recorded, a next hand due but not dealt). Returns how many moved."""
        moved = 0
        for match_id in await asyncio.to_thread(self.store.match_ids):
            agg = await self._load_match(match_id, refresh=True)
            if agg.match.finished:
                continue
            before = agg.version
            await self.advance_match(str(match_id))
            moved += (await self._load_match(match_id)).version > before
        return moved
