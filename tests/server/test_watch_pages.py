"""A Watch read from the store comes a page at a time: a page must end on a whole move (its
sealed last event), so a batched stream sends each move as one message with its receipt,
and a seat's own moves are left out whole (``exclude_own_moves``) across pages too."""

from __future__ import annotations

import asyncio
import random

import pytest

from domain.engine import Viewer
from server.usecases import watch
from server.wire.stored import StoredEvent
from tests.support.records import _short_options, in_memory_server, play_random


def _pages_and_causes(page_size: int, seed: int) -> tuple[list[list[StoredEvent]], int]:
    async def run() -> tuple[list[list[StoredEvent]], int]:
        ts = in_memory_server()
        try:
            gid = await play_random(ts, "zipai", _short_options("zipai"), 3, seed)
            pages = [events async for events, _, _ in ts.watch.watch(gid, Viewer.of_seat(0), 0)]
            latest = (await ts.watch.snapshot(gid, Viewer.of_seat(0), None)).version
            return pages, latest
        finally:
            ts.games.close()

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(watch, "STREAM_PAGE", page_size)
        return asyncio.run(run())


@pytest.mark.parametrize("page_size", [7, 100])
def test_every_page_ends_on_a_whole_move(page_size: int) -> None:
    seed = random.randrange(1 << 30)
    pages, latest = _pages_and_causes(page_size, seed)
    versions = [e.version for page in pages for e in page]
    assert versions == list(range(1, latest + 1)), seed  # no gap, no duplicate
    assert len(pages) > 1 or page_size >= latest, seed  # a game of exactly one page
    whole = True  # the page before ended a move
    for page in pages:
        # a page starts a move when the one before ended one, and ends one unless a single
        # move is longer than a page (the deal, at 7)
        assert (page[0].cause is not None) == whole, (page_size, page[0].version, seed)
        whole = page[-1].seal is not None
        assert whole or (len(page) == page_size and all(e.seal is None for e in page)), (
            page_size,
            page[-1].version,
            seed,
        )


def test_own_moves_are_left_out_whole_across_pages() -> None:
    """The filter keeps exactly the moves whose cause is not this seat's play, wherever the
    page boundaries fall (a page of 1 event splits every move)."""
    seed = random.randrange(1 << 30)
    pages, _ = _pages_and_causes(100, seed)
    events = [e for page in pages for e in page]
    moves: list[list[StoredEvent]] = []
    for e in events:
        if e.cause is not None:
            moves.append([])
        moves[-1].append(e)
    for seat in range(3):
        expected = [
            e.version
            for move in moves
            if not (move[0].cause["action"] == "play" and move[0].cause["seat"] == seat)
            for e in move
        ]
        assert len(expected) < len(events), (seat, seed)  # every seat played
        for size in (1, 5, len(events)):
            own = watch.OwnMovesLeftOut(seat)
            kept = [
                e.version
                for i in range(0, len(events), size)
                for e in own.keep(events[i : i + size])
            ]
            assert kept == expected, (seat, size, seed)


def test_a_resumed_watch_reads_its_pages_in_one_query_each() -> None:
    """A page that starts after version 1 names no kind in its first event; the game's kind
    is read once and remembered, not queried again for every page (each query is a
    transaction of its own on the store)."""
    seed = random.randrange(1 << 30)

    async def run() -> tuple[list[int], list[int]]:
        ts = in_memory_server()
        try:
            gid = await play_random(ts, "zipai", _short_options("zipai"), 3, seed)
            events = ts.games.app.events
            queries: list[int] = []
            pages: list[int] = []
            real_get = events.get

            def counted(*args: object, **kwargs: object) -> object:
                queries.append(1)
                return real_get(*args, **kwargs)  # type: ignore[arg-type]

            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(events, "get", counted)
                for seat in (1, 2):  # the same resumed stream, twice
                    before = len(queries)
                    pages.append(
                        len([e async for e, _, _ in ts.watch.watch(gid, Viewer.of_seat(seat), 5)])
                    )
                    pages.append(len(queries) - before)
            return pages[0::2], pages[1::2]
        finally:
            ts.games.close()

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(watch, "STREAM_PAGE", 7)
        patch.setattr(watch, "PREFIX_EVENTS", 0)  # every page read (the next tests keep some)
        pages, queries = asyncio.run(run())
    assert pages[0] == pages[1] > 1, (pages, seed)  # several pages, the same each time
    # the first resumed stream learns the kind (one query more); the second needs none
    assert queries[0] == queries[1] + 1, (queries, seed)
    assert queries[1] in (pages[1], pages[1] + 1), (queries, pages, seed)  # + a last empty read


def _counted_reads(ts: object) -> list[tuple[int, int | None]]:
    """The store's page reads from now on, as (after, last)."""
    reads: list[tuple[int, int | None]] = []
    store = ts.games.store  # type: ignore[attr-defined]
    real = store.stored_events

    def counted(gid: object, after: int, last: int | None, limit: int) -> object:
        reads.append((after, last))
        return real(gid, after, last, limit)

    store.stored_events = counted
    return reads


def test_a_young_game_played_here_is_watched_without_reading_the_store() -> None:
    """Its first events are kept as they are published: every seat's stream, opened at any
    point of them, reads nothing from the store, and gets exactly what the store holds."""
    seed = random.randrange(1 << 30)

    async def run() -> None:
        ts = in_memory_server()
        try:
            game = await play_random(ts, "zipai", _short_options("zipai"), 3, seed)
            gid = ts.games.parse_id(game)
            stored = ts.games.store.stored_events(gid, 0, None, 10_000)
            reads = _counted_reads(ts)
            for seat, after in ((0, 0), (1, 0), (2, 5)):
                got = [
                    e
                    async for es, _, _ in ts.watch.watch(game, Viewer.of_seat(seat), after)
                    for e in es
                ]
                assert got == stored[after:], (seat, seed)  # (as stored: the same values)
            assert reads == [], (reads, seed)
        finally:
            ts.games.close()

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(watch, "STREAM_PAGE", 7)
        patch.setattr(watch, "PREFIX_EVENTS", 10_000)
        asyncio.run(run())


@pytest.mark.parametrize("prefix_events", [10_000, 0])
def test_the_seats_opening_together_share_one_read_of_a_young_game(prefix_events: int) -> None:
    """A game this server did not see from its start (another replica's, or from before a
    restart): its seats open their streams together and read it from the start, and the
    store is read once (a stored range never changes); every seat gets the same events.
    With nothing kept (PREFIX_EVENTS 0: a game past its first events) every stream reads."""
    seed = random.randrange(1 << 30)

    async def run() -> tuple[list[list[int]], list[int]]:
        ts = in_memory_server()
        try:
            gid = await play_random(ts, "zipai", _short_options("zipai"), 3, seed)
            ts.watch._prefixes.clear()  # (not seen from its start here)
            reads = _counted_reads(ts)
            seen, per_seat = [], []
            for seat in (0, 1, 2, 0):
                before = len(reads)
                got = [e async for e, _, _ in ts.watch.watch(gid, Viewer.of_seat(seat), 0)]
                seen.append([e.version for page in got for e in page])
                per_seat.append(len(reads) - before)
            return seen, per_seat
        finally:
            ts.games.close()

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(watch, "STREAM_PAGE", 7)
        patch.setattr(watch, "PREFIX_EVENTS", prefix_events)
        seen, reads = asyncio.run(run())
    assert seen[0] == seen[1] == seen[2] == seen[3] and len(seen[0]) > 7, seed
    assert seen[0] == list(range(1, len(seen[0]) + 1)), seed
    if prefix_events:
        assert reads[0] > 1 and reads[1] == reads[2] == reads[3] == 0, (reads, seed)
    else:
        assert reads[0] == reads[1] == reads[2] == reads[3] > 1, (reads, seed)


def test_a_later_stream_of_a_young_game_reads_only_what_came_since() -> None:
    """A seat that opens after another seat moved reads the new events alone; a page asked
    for within what is kept is served without a read, and what is served is what the store
    holds at those versions."""
    seed = random.randrange(1 << 30)

    async def run() -> None:
        ts = in_memory_server()
        try:
            game = await play_random(ts, "zipai", _short_options("zipai"), 3, seed)
            gid = ts.games.parse_id(game)
            ts.watch._prefixes.clear()  # (not seen from its start here)
            page = ts.watch._page
            direct = ts.games.store.stored_events(gid, 0, 20, 100)
            reads = _counted_reads(ts)
            assert [e.version for e in await page(gid, 0, 8)] == list(range(1, 9))
            assert reads == [(0, 8)], seed
            assert [e.version for e in await page(gid, 0, 12)] == list(range(1, 13))
            assert reads[1:] == [(8, 12)], (reads, seed)  # only what came since
            assert await page(gid, 3, 10) == direct[3:10]  # kept, and as stored
            assert len(reads) == 2, seed
            assert [e.version for e in await page(gid, 0, 40)] == list(range(1, 41))
            assert reads[2:] == [(0, 40)], (reads, seed)  # past PREFIX_EVENTS: as before
        finally:
            ts.games.close()

    asyncio.run(run())
