"""The table server's common ground: games and matches cached from the store, loading,
authenticating, appending a move (sealed, then durable, then published) and the store feed
of other replicas' moves. Each use case is a class in a file of its own beside this one
(seats.py, deal.py, play.py, watch.py, matches.py, timers.py), built with a ``Games`` and
what else it uses; server/startup/compose.py wires them into ``TableServer``
(table_server.py). A job reaches this common ground only through its public methods.

Rules come from ``domain``; this layer adds authentication, versions, persistence and
fan-out. Blocking store calls run in threads, never on the event loop.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import itertools
import logging
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, Protocol

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import IntegrityError

from domain import match as matches
from domain import table as tables
from domain.engine import ARBITER, SPECTATOR, MalformedCommand, RuleViolation, Viewer, replaced
from domain.table.justice.decide import LastMove, is_game_move
from server.store.eventstore import GameAggregate, MatchAggregate, TableApplication
from server.store.shards import Store
from server.usecases import gamecache
from server.usecases.hub import Hub
from server.usecases.ports import (
    AfterAppend,
    GameFinished,
    HandEnded,
    no_clock,
    no_match,
    no_rating,
)
from server.wire import seatsig
from server.wire.seatsig import SignedCall
from server.wire.stored import StoredEvent

log = logging.getLogger("tabletop.service")


class NotFound(Exception):
    pass


class PermissionDenied(Exception):
    """The caller may not do this (→ PERMISSION_DENIED with ``reason``)."""

    def __init__(self, message: str, reason: str = "PERMISSION_DENIED") -> None:
        super().__init__(message)
        self.reason = reason


SIGNATURE_REQUIRED = "SEAT_SIGNATURE_REQUIRED"
SIGNATURE_INVALID = "SEAT_SIGNATURE_INVALID"
ARBITER_SIGNATURE_REQUIRED = "ARBITER_SIGNATURE_REQUIRED"
ARBITER_SIGNATURE_INVALID = "ARBITER_SIGNATURE_INVALID"


class Aborted(Exception):
    """The move was made against a stale version; nothing was appended."""

    def __init__(self, expected: int, current: int) -> None:
        super().__init__(f"expected version {expected}, but the game is at {current}")
        self.expected = expected
        self.current = current


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Sealer(Protocol):
    """Signs a game's move and a match's move (server/wire/receipts.py ``Sealer``)."""

    def __call__(
        self, game_id: uuid.UUID, table: tables.Table, head: str, move: list[StoredEvent]
    ) -> dict[str, Any]: ...

    def seal_match(
        self, match_id: uuid.UUID, first: int, last: int, head: str
    ) -> dict[str, Any]: ...


class _MatchMoved(Exception):
    """Another writer appended to the match first; read it again."""


def _same_request(stored: dict[str, Any] | None, cause: dict[str, Any]) -> None:
    """A stored keyed request must be this very request: same key, same content."""
    stored = stored or {}
    if stored.get("request_key") != cause["request_key"]:
        raise MalformedCommand("request_id", "does not belong to this game")
    if not hmac.compare_digest(str(stored.get("request_check")), cause["request_check"]):
        raise MalformedCommand("request_id", "was already used for a different request")


@functools.lru_cache(maxsize=8192)
def _game_uuid(game_id: str) -> uuid.UUID:
    """A game id parsed (every call names its game, often several times a call: parsed once)."""
    return uuid.UUID(game_id)


class Games:
    """The cache of games and matches, and the one path by which a move is appended."""

    def __init__(
        self,
        store: Store | TableApplication,
        max_batch: int = 64,
        max_cached_games: int = 10_000,
        sealer: Sealer | None = None,
        max_cached_bytes: int = gamecache.DEFAULT_MAX_BYTES,
    ) -> None:
        """``store``: the game store (one shard or several); ``max_batch``: a shard's group
        commit; ``max_cached_games``: the cache's cap; ``sealer``: signs every move;
        ``max_cached_bytes``: the cache's cap in the bytes its games hold, estimated
        (server/usecases/gamecache.py).

        Three hooks are set once, by the composition root (server/startup/compose.py):
        ``after_append`` (the turn clock arms a game's deadline after each move),
        ``hand_ended`` (the match moves on when one of its hands ends here) and
        ``game_finished`` (a single game that ended here is rated)."""
        self.max_cached_games = max_cached_games
        self.max_cached_bytes = max_cached_bytes
        # Signs every move (server/wire/receipts.py). None only where nothing is signed: the
        # benchmark's unsigned baseline and tests of other things; server/startup/main.py always
        # passes one.
        self.sealer = sealer
        self.after_append: AfterAppend = no_clock
        self.hand_ended: HandEnded = no_match
        self.game_finished: GameFinished = no_rating
        self.store = store if isinstance(store, Store) else Store([store], max_batch=max_batch)
        self.app = self.store.shards[0]  # the first (often only) shard
        self.committer = self.store.committers[0]
        self.hub = Hub()
        self._latest = gamecache.GameCache()  # game id -> its latest GameAggregate
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
        after = self._latest.get(game_id)  # the game after these events, if it is known
        at_last = after is not None and after.version == events[-1].originator_version
        self.hub.publish(game_id, stored, after.table if at_last and after is not None else None)

    def _note_last_move(
        self,
        agg: GameAggregate,
        fresh: list[Any],
        decoded: dict[int, Any],
        started: tuple[int, tables.Table] | None,
    ) -> None:
        """Remember the last move of events another process stored, as ``append`` does for
        this process's own: without it every seat's stream on this replica (its turn's legal
        moves, for 误操作) read the move back from the store and rebuilt the game before it,
        once per move (profile of bench P2, two replicas)."""
        if started is None:
            return  # the move began in an earlier batch: last_move reads it if asked
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

    @staticmethod
    def parse_id(game_id: str) -> uuid.UUID:
        try:
            return _game_uuid(game_id)
        except (ValueError, AttributeError, TypeError):
            raise MalformedCommand("game_id", "is not a game id") from None

    async def load(self, game_id: uuid.UUID, refresh: bool = False) -> GameAggregate:
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

    def remember(self, agg: GameAggregate) -> None:
        """Cache a game just opened (CreateGame, a match's next hand): its first read."""
        self._latest[agg.id] = agg
        self._trim()

    def _over_cap(self) -> bool:
        return (
            len(self._latest) > self.max_cached_games or self._latest.held > self.max_cached_bytes
        )

    def _trim(self) -> None:
        """Keep memory bounded: games in memory are only a cache of the store. Past either
        cap (games, or their estimated bytes), forget finished games first, then the
        earliest cached, never a game in a move, down to 90% of the caps (so a full cache is
        not scanned on every new game)."""
        if not self._over_cap():
            return
        games = self.max_cached_games * 9 // 10
        held = self.max_cached_bytes * 9 // 10
        finished = [g for g, a in self._latest.items() if a.table.phase is tables.Phase.FINISHED]
        rest = [g for g in self._latest if g not in set(finished)]
        for gid in finished + rest:
            if len(self._latest) <= games and self._latest.held <= held:
                break
            lock = self._locks.get(gid)
            if (lock is not None and lock.locked()) or gid in self._loading:
                continue
            self._latest.pop(gid, None)
            self._locks.pop(gid, None)
            self._last_moves.pop(gid, None)

    async def load_at(self, game_id: uuid.UUID, version: int | None) -> GameAggregate:
        if version is None:
            return await self.load(game_id)
        latest = await self.load(game_id)
        if not 1 <= version <= latest.version:
            raise MalformedCommand("version", f"must be 1..{latest.version}")
        if version == latest.version:
            return latest
        agg: GameAggregate = await asyncio.to_thread(self.store.get, game_id, version)
        return agg

    async def authenticate(self, game_id: str, token: str | None, player: str = "") -> Viewer:
        """The viewer a token stands for at this game; no token is a spectator. ``player``
        (a login the transport checked, instead of a token): the seat bound to that player,
        or a spectator where it holds none."""
        agg = await self.load(self.parse_id(game_id))
        if player:
            seat = agg.table.seat_of(player)
            return SPECTATOR if seat is None else Viewer.of_seat(seat)
        if not token:
            return SPECTATOR
        presented = token_hash(token)
        if hmac.compare_digest(presented, agg.table.arbiter_token_hash):
            return ARBITER
        for seat, info in enumerate(agg.table.seats):
            if info is not None and hmac.compare_digest(presented, info.token_hash):
                return Viewer.of_seat(seat)
        raise PermissionDenied("the token is not valid for this game")

    async def seat_signed(
        self,
        agg: GameAggregate,
        seat: int | None,
        signed: SignedCall | None,
        key: str = "",
        play_version: int | None = None,
        arbiter: bool = False,
    ) -> dict[str, str] | None:
        """Check a seat's signature on its command (docs/api.md, "Seat signatures") under
        the game's lock, before anything is decided; returns what the move's cause records
        (``cause["signed"]``), or None for an unkeyed seat (its commands stand on the
        server's word: a signature it sent has no key to check against, so none is kept).
        ``key``: the key to check with instead of the seat's recorded one (JoinGame, RekeySeat:
        the key sent). ``play_version``: a Play's expected_version, which the signed command
        must name, with its chain hash. ``arbiter``: the arbiter's command, checked the same
        way against the table's arbiter key (none: it stands on the server's word)."""
        if arbiter:
            key = agg.table.arbiter_public_key
        elif not key:
            key = agg.table.seat_key(seat) if seat is not None else ""
        if not key:
            return None
        who = "the arbiter" if arbiter else f"seat {seat}"
        if signed is None:
            raise PermissionDenied(
                f"{who} is keyed: its commands must carry {who}'s signature (seat_signature)",
                ARBITER_SIGNATURE_REQUIRED if arbiter else SIGNATURE_REQUIRED,
            )
        if not seatsig.check_signature(key, signed.signed_command, signed.signature):
            raise PermissionDenied(
                f"the signature does not check against {who}'s key",
                ARBITER_SIGNATURE_INVALID if arbiter else SIGNATURE_INVALID,
            )
        if play_version is not None:
            if signed.expected_version != play_version:
                raise MalformedCommand(
                    seatsig.FIELD,
                    f"the signed command names version {signed.expected_version}, "
                    f"the Play {play_version}",
                )
            if not signed.head_hash:
                raise MalformedCommand(seatsig.FIELD, "head_hash is required on Play")
        await self._check_seen(agg, signed.expected_version, signed.head_hash)
        return signed.recorded()

    async def _check_seen(self, agg: GameAggregate, version: int, head_hash: str) -> None:
        """The version a signed command says its seat saw is one of the game's, and its
        chain hash (when given) the one stored there: a signed command cannot be moved to
        another version or table."""
        if version > agg.version:  # another replica may have moved the game on
            agg = await self.load(agg.id, refresh=True)
        if not 0 <= version <= agg.version:
            raise MalformedCommand(
                seatsig.FIELD,
                f"the signed command names version {version}; the game is at {agg.version}",
            )
        if not head_hash:
            return
        if version == agg.version:
            stored = agg.head_hash
        elif version == 0:
            stored = ""
        else:
            at = await asyncio.to_thread(self.store.stored_events, agg.id, version - 1, version)
            stored = at[0].hash if at else ""
        if not hmac.compare_digest(head_hash, stored):
            raise MalformedCommand(
                seatsig.FIELD,
                f"head_hash is not this game's chain hash at version {version}",
            )

    def lock(self, game_id: uuid.UUID) -> asyncio.Lock:
        return self._locks.setdefault(game_id, asyncio.Lock())

    async def append(
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
        stored = self.seal(fork, stored)
        done = asyncio.wrap_future(self.store.submit(fork))
        try:
            await asyncio.shield(done)
        except asyncio.CancelledError:
            # The caller went away mid-commit; the move may still be stored. Then forget
            # the old version here and tell the watchers, as if it came from elsewhere.
            def landed(f: asyncio.Future[None]) -> None:
                self._latest.pop(agg.id, None)
                if not f.cancelled() and f.exception() is None:
                    self.hub.publish(agg.id, stored, fork.table)

            done.add_done_callback(landed)
            raise
        except IntegrityError:
            self._latest.pop(agg.id, None)  # another writer won: never trust memory now
            current = (await self.load(agg.id)).version
            raise Aborted(agg.version, current) from None
        except Exception:  # e.g. OutcomeUnknown: the move may be stored, so re-read later
            self._latest.pop(agg.id, None)
            self._last_moves.pop(agg.id, None)
            raise
        cached = self._latest.get(agg.id)
        if cached is agg:
            self._latest[agg.id] = fork
            if self._latest.held > self.max_cached_bytes:
                self._trim()  # the move made the game heavier (its lock is held: it stays)
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
        self.hub.publish(agg.id, stored, fork.table)
        self.after_append(agg.id, fork)
        finished = tables.Phase.FINISHED
        if fork.table.phase is finished and agg.table.phase is not finished:
            if fork.table.match_id:
                await self.hand_ended(fork.table.match_id)
            else:
                await self.game_finished(fork)
        return stored

    def seal(self, agg: GameAggregate, move: list[StoredEvent]) -> list[StoredEvent]:
        """Sign the move (one seal covers every viewer's receipt) and store the seal with
        its last event."""
        if self.sealer is None:
            return move
        seal = self.sealer(agg.id, agg.table, agg.head_hash, move)
        agg.seal_move(seal)
        return [*move[:-1], replaced(move[-1], seal=seal)]

    async def once(
        self,
        gid: uuid.UUID,
        decide: Callable[[GameAggregate], list[Any]],
        cause: dict[str, Any],
        check: Callable[[GameAggregate], Awaitable[None]] | None = None,
    ) -> list[StoredEvent]:
        """Decide and append, once per idempotency key: a request whose key is stored gets
        its original events back. A refusal is checked against a fresh read first, since
        another replica may hold the answer (the retry went elsewhere). ``check`` runs
        under the lock before deciding (a seat's signature: it may complete the cause)."""
        digest = cause.get("request_key")
        async with self.lock(gid):
            agg = await self.load(gid)
            for fresh in (False, True):
                if fresh:
                    agg = await self.load(gid, refresh=True)
                if digest and (done := await self._requested(agg, digest, cause)):
                    return done
                if check is not None:
                    await check(agg)
                try:
                    facts = decide(agg)  # before the cause is stored: it may complete it
                    return await self.append(agg, facts, cause)
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
        move = await self.move_from(agg.id, first)
        _same_request(move[0].cause if move else None, cause)
        return move

    async def move_from(self, gid: uuid.UUID, first: int) -> list[StoredEvent]:
        """The events of the request whose first fact is at ``first`` (up to the next cause)."""
        events = await asyncio.to_thread(self.store.stored_events, gid, first - 1, None, 256)
        return events[:1] + list(itertools.takewhile(lambda e: e.cause is None, events[1:]))

    async def last_move(self, agg: GameAggregate) -> LastMove | None:
        """The latest game move of ``agg`` (at its version, which may be a past one) if it
        is the last thing that happened then (for 误操作)."""
        known = self._last_moves.get(agg.id)
        if known is not None and known[0] == agg.version:
            return known[1]
        if agg.table.phase is not tables.Phase.PLAYING:
            return None
        found = await self._read_last_move(agg)
        if known is None or known[0] < agg.version:  # (an older version's is not kept)
            self._last_moves[agg.id] = (agg.version, found)
        return found

    async def _read_last_move(self, agg: GameAggregate) -> LastMove | None:
        """``last_move`` from the store (after a restart, or a move another replica made)."""
        recent = await asyncio.to_thread(
            self.store.stored_events, agg.id, max(0, agg.version - 64), agg.version, None
        )
        caused = [i for i, e in enumerate(recent) if e.cause is not None]
        if not caused or not is_game_move(recent[caused[-1]].cause):
            return None
        move = recent[caused[-1] :]
        first = move[0].version
        before = (await self.load_at(agg.id, first - 1)).table.game
        cause = move[0].cause or {}
        facts = [e.fact for e in move]
        return tables.last_move(agg.table.kind, cause, (first, move[-1].version), facts, before)

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

    async def version_of(self, game_id: uuid.UUID) -> int:
        """The game's latest version, as this replica knows it."""
        return (await self.load(game_id)).version

    async def load_match(self, match_id: uuid.UUID, refresh: bool = False) -> MatchAggregate:
        agg = self._matches.get(match_id)
        if agg is None or refresh:
            try:
                agg = await asyncio.to_thread(self.store.get_match, match_id)
            except AggregateNotFoundError:
                raise NotFound(f"no match {match_id}") from None
            self._matches[match_id] = agg
            self._trim_matches()
        return agg

    def remember_match(self, agg: MatchAggregate) -> None:
        """Cache a match just opened (CreateGame with a match)."""
        self._matches[agg.id] = agg

    def _trim_matches(self) -> None:
        """Bounded like the games: past the cap, forget finished matches first."""
        excess = len(self._matches) - self.max_cached_games
        if excess <= 0:
            return
        finished = [m for m, a in self._matches.items() if a.match.finished]
        running = [m for m in self._matches if m not in set(finished)]
        for mid in (finished + running)[: excess + self.max_cached_games // 10]:
            del self._matches[mid]

    async def append_match(self, agg: MatchAggregate, facts: list[Any]) -> None:
        """Append to a fork of the match; a writer that came first makes it _MatchMoved."""
        if not facts:
            return
        fork = agg.fork()
        for fact in facts:
            fork.record(fact)
        self.seal_match(fork, agg.version + 1)
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

    def seal_match(self, agg: MatchAggregate, first: int) -> None:
        """Sign the match move just recorded on ``agg`` (its facts from ``first``) and store
        the seal with its last fact."""
        if self.sealer is not None:
            agg.seal_move(self.sealer.seal_match(agg.id, first, agg.version, agg.head_hash))

    async def match_of(self, table: tables.Table) -> matches.Match | None:
        """The match ``table`` is a hand of, read again from the store once the hand has
        ended or when the cached match is behind it (its standings may have moved)."""
        if not table.match_id:
            return None
        mid = uuid.UUID(table.match_id)
        cached = self._matches.get(mid)
        stale = cached is None or len(cached.match.hands) < table.hand
        refresh = stale or table.phase is tables.Phase.FINISHED
        return (await self.load_match(mid, refresh=refresh)).match
