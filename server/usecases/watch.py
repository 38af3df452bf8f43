"""Seeing a game: a view at a version, through whose eyes, the history, a replay, and the
live stream (across a match's hands too).
"""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass

from domain import match as matches
from domain import table as tables
from domain.engine import ARBITER, MalformedCommand, Role, Viewer
from server.store.eventstore import GameAggregate
from server.usecases.games import (
    Games,
    NotFound,
    PermissionDenied,
)
from server.usecases.hub import Batch
from server.usecases.ports import HandEnded
from server.wire.stored import Snapshot, StoredEvent, seen_at

NEXT_HAND_POLL = 1.0  # seconds between a following watcher's looks at another replica's match
STREAM_PAGE = 100  # events a Watch or Replay reads from the store at a time
# A young game's first events, kept: its seats open their streams together (a seat may move
# before the last one opens) and each reads the game from the start. Versions never change
# once stored, so what is kept is never stale; the seats' streams share the StoredEvents, so
# what those render to is shared too (render.py, lean_event_proto). Bounded by games and by
# events a game.
PREFIX_GAMES = 64
PREFIX_EVENTS = 32


def _follows(prefix: list[StoredEvent], events: list[StoredEvent]) -> bool:
    """Whether ``events`` are exactly the versions after ``prefix``'s (1..len(prefix))."""
    n = len(prefix)
    return bool(events) and events[0].version == n + 1 and events[-1].version == n + len(events)


@dataclass(frozen=True)
class HandEvents:
    """Watch across a match: events of the hand ``game_id`` (see ``Watch.watch_match``)."""

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


class OwnMovesLeftOut:
    """A seat's stream without the moves that seat made with Play (WatchRequest's
    ``exclude_own_moves``): its Play replies carried them already.

    A move's first event carries its cause (what made it); the move's other events follow
    it, in the same batch or, read from the store a page at a time, in the next one."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self._own = False  # the move being read is one of this seat's plays

    def keep(self, events: list[StoredEvent]) -> list[StoredEvent]:
        kept: list[StoredEvent] = []
        for event in events:
            if event.cause is not None:
                self._own = event.cause["action"] == "play" and event.cause["seat"] == self.seat
            if not self._own:
                kept.append(event)
        return kept


class Watch:
    """GetView, GetHistory, Replay and Watch."""

    def __init__(self, games: Games, hand_ended: HandEnded) -> None:
        """What watching touches: ``games`` (parse, load a game or a match at a version,
        the match of a hand, the game store's pages, the hub's live batches) and
        ``hand_ended`` (Matches.hand_ended: a watcher waiting between two hands of a match
        whose last writer died moves it on)."""
        self.games = games
        self.hand_ended = hand_ended
        self._prefixes: OrderedDict[uuid.UUID, list[StoredEvent]] = OrderedDict()
        games.hub.listen(self._keep_young)

    def _keep_young(self, gid: uuid.UUID, events: list[StoredEvent]) -> None:
        """A game's first events, kept as they are published (durable, in version order):
        its seats' streams then read none of them from the store, however many moves
        were made before each opened (issue 38: a seat's stream opened after the first
        moves read those moves through a thread)."""
        prefix = self._prefixes.get(gid, [])  # (none: kept only if seen from version 1)
        if len(prefix) < PREFIX_EVENTS and _follows(prefix, events):
            self._keep(gid, prefix + events)  # (full, or a gap: kept as it is; read later)

    def _keep(self, gid: uuid.UUID, prefix: list[StoredEvent]) -> None:
        """Keep a young game's first events, forgetting the least recently used game's past
        ``PREFIX_GAMES``."""
        self._prefixes[gid] = prefix
        self._prefixes.move_to_end(gid)
        while len(self._prefixes) > PREFIX_GAMES:
            self._prefixes.popitem(last=False)

    async def snapshot(
        self, game_id: str, viewer: Viewer, version: int | None, with_match: bool = False
    ) -> Snapshot:
        """The game at ``version`` (latest if None) as ``viewer`` may see it, and, with
        ``with_match``, the match it is a hand of as the match stands now.

        A past version is rendered for the viewer as they were then: seats replay what
        they could see at the time, also after the end (a player can show what it saw at
        move 12). The versions from the end of the game on show everything.
        """
        gid = self.games.parse_id(game_id)
        agg = await self.games.load_at(gid, version)
        snap = seen_at(
            gid,
            agg.table,
            viewer,
            agg.head_hash,
            agg.latest_seal,
            agg.modified_on,
            opened_at=agg.draw_opened_at,
            justice_times=agg.justice_times,
        )
        if not with_match:
            return snap
        latest = await self.games.load(gid)
        return dataclasses.replace(snap, match=await self.games.match_of(latest.table))

    async def as_seat(self, game_id: str, viewer: Viewer, seat: int) -> Viewer:
        """Look through a seat's eyes: the arbiter at any time (disputes and appeals), anyone
        once the game is over (every viewpoint is open then)."""
        agg = await self.games.load(self.games.parse_id(game_id))
        if viewer.role is not Role.ARBITER and agg.table.phase is not tables.Phase.FINISHED:
            raise PermissionDenied("only the table's arbiter may view as a seat before the end")
        if not 0 <= seat < agg.table.seat_count:
            raise MalformedCommand("as_seat", f"must be 0..{agg.table.seat_count - 1}")
        return Viewer.of_seat(seat)

    async def as_arbiter(self, game_id: str, viewer: Viewer) -> Viewer:
        """The arbiter's view: the arbiter's own, and everyone's once the game is over."""
        agg = await self.games.load(self.games.parse_id(game_id))
        if viewer.role is not Role.ARBITER and agg.table.phase is not tables.Phase.FINISHED:
            raise PermissionDenied("only the table's arbiter sees everything before the end")
        return ARBITER

    async def replay(
        self, game_id: str, viewer: Viewer, first: int, last: int
    ) -> AsyncIterator[tuple[StoredEvent, Snapshot]]:
        """Each version from ``first`` to ``last`` with its event, as ``viewer`` may see it.

        The game is rebuilt once at ``first`` (from the nearest snapshot) and then evolved
        forward event by event, so a replay costs one rebuild plus the events."""
        gid = self.games.parse_id(game_id)
        latest = await self.games.load(gid)
        last = last or latest.version
        first = first or 1
        if not 1 <= first <= last <= latest.version:
            raise MalformedCommand("from_version", f"versions must be within 1..{latest.version}")
        agg = await self.games.load_at(gid, first)
        table, head = agg.table, agg.head_hash
        opened, times = agg.draw_opened_at, agg.justice_times
        async for page in self._pages(gid, first - 1, last):
            for event in page:
                if event.version > first:
                    table, head = tables.evolve(table, event.fact), event.hash
                    if table.draw_opened == event.version:  # a draw opened: its clock
                        opened = event.recorded_at
                    times = _keep_time(times, event)
                yield (
                    event,
                    seen_at(gid, table, viewer, head, None, event.recorded_at, opened, times),
                )

    async def follow(
        self, game_id: str, viewer: Viewer, after: int = 0
    ) -> AsyncIterator[tuple[StoredEvent, Snapshot]]:
        """Every version after ``after`` with its event, as ``viewer`` may see it: the stored
        ones, then each new one as it is stored (Watch's order: no gap, no duplicate). Ends
        once the game is over. The game is evolved here, once per event (the live viewer)."""
        gid = self.games.parse_id(game_id)
        start = await self.games.load_at(gid, after) if after else None
        table = None if start is None else start.table
        opened = None if start is None else start.draw_opened_at
        times = tables.CaseClock() if start is None else start.justice_times
        async for events, _seen_as, _batch in self.watch(game_id, viewer, after):
            for event in events:
                table = tables.evolve(table, event.fact)
                if table.draw_opened == event.version:  # a draw opened: its clock
                    opened = event.recorded_at
                times = _keep_time(times, event)
                yield (
                    event,
                    seen_at(gid, table, viewer, event.hash, None, event.recorded_at, opened, times),
                )

    async def _pages(
        self, gid: uuid.UUID, after: int, last: int | None = None
    ) -> AsyncIterator[list[StoredEvent]]:
        """The stored events after ``after`` (up to ``last``), about ``STREAM_PAGE`` at a time,
        so a stream holds one page whatever the length of the history. A full page ends
        with the last whole move in it (its sealed last event), so a batched stream sends a
        move as one message with its receipt here too; the rest of it starts the next page."""
        while last is None or after < last:
            page = await self._page(gid, after, last)
            if not page:
                return
            full = len(page) == STREAM_PAGE
            if full:
                page = _to_last_whole_move(page)
            yield page
            if not full:
                return
            after = page[-1].version

    async def _page(self, gid: uuid.UUID, after: int, last: int | None) -> list[StoredEvent]:
        """The stored events after ``after`` up to ``last`` (at most ``STREAM_PAGE``); a
        young game's (``last`` within its first ``PREFIX_EVENTS``) from what is kept of it."""
        if last is None or last > PREFIX_EVENTS:
            return await self._read(gid, after, last)
        prefix = self._prefixes.pop(gid, [])  # versions 1..len(prefix)
        end = min(last, after + STREAM_PAGE)
        while len(prefix) < end:
            more = await self._read(gid, len(prefix), last)
            if not _follows(prefix, more):
                break  # (a gap: not kept beyond it)
            prefix = prefix + more
        if prefix:
            self._keep(gid, prefix)
        if len(prefix) < end:
            return await self._read(gid, after, last)
        return prefix[after:end]

    async def _read(self, gid: uuid.UUID, after: int, last: int | None) -> list[StoredEvent]:
        return await asyncio.to_thread(
            self.games.store.stored_events, gid, after, last, STREAM_PAGE
        )

    async def history(
        self, game_id: str, viewer: Viewer, after: int, limit: int
    ) -> tuple[tables.Table, list[StoredEvent], int, Viewer]:
        gid = self.games.parse_id(game_id)
        latest = await self.games.load(gid)
        events = await asyncio.to_thread(self.games.store.stored_events, gid, after, None, limit)
        return latest.table, events, latest.version, tables.viewer_for(latest.table, viewer)

    async def watch(
        self, game_id: str, viewer: Viewer, after_version: int
    ) -> AsyncIterator[tuple[list[StoredEvent], Viewer, Batch | None]]:
        """Batches of events after ``after_version``: stored ones first, then live ones.

        Subscribing before reading the store and skipping what was already sent gives no gap
        and no duplicate. A version jump (a lagging subscriber) triggers a re-read from the
        store. Each batch comes with the viewer to render it for (opened up once the game
        is over). The stream ends once the game is over and everything was sent.

        Every batch yielded is at a version a load of the game already gives (GetView,
        LegalMoves and a seat's turn on the stream are decided from it): the store is read
        only up to the version the cache knows, never beyond. A move is durable in the store
        before ``Games.append`` resumes, moves the cache and publishes it; a stream opened in
        that window used to read the move from the store while the cache (so every load)
        still stood one version behind: the seat's turn at the move's version was judged
        against the older version and left out, and the move's live batch, already sent,
        was dropped as a duplicate, so the seat never learned it was its turn (issue 38:
        2 of 64 games hung at the first move; tests/server/test_watch_race.py). The events
        past that version are published after this subscription and come live.
        """
        gid = self.games.parse_id(game_id)
        await self.games.load(gid)
        sub = self.games.hub.subscribe(gid)
        last = after_version
        try:
            while True:
                # after the subscription: whatever the store holds beyond this comes live
                known = (await self.games.load(gid)).version
                async for stored in self._pages(gid, last, known):
                    latest = await self.games.load(gid)
                    last = stored[-1].version
                    ends_game = last >= latest.version
                    seen_as = tables.viewer_for(latest.table, viewer) if ends_game else viewer
                    yield stored, seen_as, None
                latest = await self.games.load(gid)
                if last >= latest.version and await self._over(latest):
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
                    latest = await self.games.load(gid)
                    # A live batch opens up only if it is the one that ended the game, so
                    # what a watcher sees does not depend on how fast it reads.
                    ends_game = fresh[-1].version >= latest.version
                    seen_as = tables.viewer_for(latest.table, viewer) if ends_game else viewer
                    yield fresh, seen_as, (batch if len(fresh) == len(batch.events) else None)
                    if last >= latest.version and await self._over(latest):
                        return  # the end, and everything was sent
        finally:
            sub.close()

    async def _over(self, agg: GameAggregate) -> bool:
        """Whether a watch of the game ends here: the game has ended and, a match's hand,
        has said what follows it (HandClosed, its last fact). A hand that ended unclosed
        nudges its match on (it closes the hand); one recorded before issue 36 is never
        closed: it is over once its match recorded its end."""
        table = agg.table
        if table.phase is not tables.Phase.FINISHED:
            return False
        if not table.match_id or table.closed is not None:
            return True
        match = await self.games.match_of(table)
        if match is not None and any(
            h.hand == table.hand and h.ended is not None for h in match.hands
        ):
            # An older record (its match moved on without closing it), or ``agg`` was read
            # before this hand's HandClosed and the match's HandEnded that follows it were
            # stored: read the hand again, and end only if nothing came after ``agg``.
            again = await self.games.load(agg.id, refresh=True)
            return again.version == agg.version and again.table.closed is None
        await self.hand_ended(table.match_id)  # idempotent: the hand's HandClosed follows
        return False

    async def watch_match(
        self, game_id: str, viewer: Viewer, after_version: int
    ) -> AsyncIterator[HandEvents | NextHand]:
        """``watch``, going on into the match's next hands: each hand's events, then a
        NextHand once the next hand is opened (its events follow from version 1: its
        commitment, its seats, their commitments and reveals, its deal), and a last
        NextHand without a game id when the match has ended. The viewer is the same in
        every hand (the same token)."""
        current = game_id
        after = after_version
        while True:
            async for events, seen_as, batch in self.watch(current, viewer, after):
                yield HandEvents(current, events, seen_as, batch)
            table = (await self.games.load(self.games.parse_id(current))).table
            if not table.match_id:
                return
            following = await self._following_hand(table)
            if following is None:
                match = (await self.games.load_match(uuid.UUID(table.match_id), refresh=True)).match
                yield NextHand("", 0, match)
                return
            then = await self.games.match_of(following.table)
            assert then is not None
            current, after = str(following.id), 0
            yield NextHand(current, following.table.hand, then)

    async def _following_hand(self, table: tables.Table) -> GameAggregate | None:
        """The hand after ``table`` once it is opened, or None when the match ended first.
        Waits on this process's hub (the next hand's id is known in advance) and looks at
        the store every NEXT_HAND_POLL seconds (another replica may deal it)."""
        mid = uuid.UUID(table.match_id)
        next_id = uuid.UUID(matches.hand_id(table.match_id, table.hand + 1))
        hand_sub = self.games.hub.subscribe(next_id)
        match_sub = self.games.hub.subscribe(("match", mid))
        nudged = False
        try:
            while True:
                try:
                    return await self.games.load(next_id, refresh=True)
                except NotFound:
                    pass
                state = (await self.games.load_match(mid, refresh=True)).match
                if state.finished:
                    return None
                if not nudged:  # a match whose last writer died moves on from here
                    nudged = True
                    await self.hand_ended(table.match_id)
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


def _to_last_whole_move(page: list[StoredEvent]) -> list[StoredEvent]:
    """``page`` up to its last sealed event (a move's last); all of it when none is sealed
    (a record from before seals, or one move longer than a page)."""
    for end in range(len(page), 0, -1):
        if page[end - 1].seal is not None:
            return page[:end]
    return page


def _keep_time(times: tables.CaseClock, event: StoredEvent) -> tables.CaseClock:
    """The justice clock after ``event`` (a case fact's recorded time, which an open case's
    deadline and the hand's budget follow from)."""
    if isinstance(event.fact, tables.CLOCK_FACT_TYPES) and event.recorded_at is not None:
        return tables.clock_after(times, event.fact, event.version, event.recorded_at)
    return times
