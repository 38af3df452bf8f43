"""The store feed reads only the rows of games its replica streams or caches (issue 27).

Each commit's NOTIFY names the games and notification ids it stored (server/store/notify.py);
a replica reads those rows by id for the games it wants and nothing of the others. The
replicas here are ``TableServer``s in one process, each with its own ``Store``, as in
tests/server/test_replicas.py.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from domain.engine import Viewer
from server.startup.compose import table_server
from server.store import notify
from server.store.shards import Store
from server.usecases.table_server import TableServer
from tests.server.test_replicas import eventually, next_move, replica, seated
from tests.support.pgfixtures import PG


def test_a_payload_names_each_games_runs_of_rows() -> None:
    g1, g2 = uuid.uuid4(), uuid.uuid4()
    payload = notify.encode("ab12:public", [g1, g1, g2, g1], [7, 8, 9, 10])
    assert payload == f"wab12:public {g1.hex}:7-8 {g2.hex}:9 {g1.hex}:10"
    assert notify.decode(payload) == ("ab12", "public", [(g1, 7, 8), (g2, 9, 9), (g1, 10, 10)])
    # a plain NOTIFY (an older writer) or a garbled one: read everything
    assert notify.decode("") is None
    assert notify.decode("wab12:public nonsense:1") is None
    # too long for NOTIFY: sent empty, so listeners read everything
    many = [uuid.uuid4() for _ in range(300)]
    assert notify.encode("ab12:public", many, list(range(1, 301))) == ""


async def _play(server: TableServer, game_id: str, moves: int) -> int:
    version = 0
    for _move in range(moves):
        viewer, command, version = await next_move(server, game_id)
        version = (await server.play.play(game_id, viewer, version, command))[-1].version
    return version


@PG
def test_a_replica_reads_no_row_of_a_game_it_does_not_serve(pg_env: dict[str, str]) -> None:
    """A plays two games; B streams one of them, C serves neither. B reads exactly the
    rows of its game that came after its stream opened, C reads none, A (the writer) none,
    and B's stream has every version once, in order."""

    async def scenario() -> None:
        a = table_server(Store.open([pg_env]))
        b = replica(pg_env)
        c = replica(pg_env)
        try:
            for server in (a, b, c):
                await asyncio.wait_for(server.games.store.feeds[0].connected.wait(), 10)
            watched = await seated(a)
            other = await seated(a)
            feeds = {name: s.games.store.feeds[0] for name, s in (("a", a), ("b", b), ("c", c))}
            before = {name: feed.rows_read for name, feed in feeds.items()}
            received: list[int] = []

            async def watch() -> None:
                async for events, _viewer, _batch in b.watch.watch(watched, Viewer.of_seat(1), 0):
                    received.extend(e.version for e in events)

            watcher = asyncio.create_task(watch())
            opened = a.games._latest[uuid.UUID(watched)].version
            await eventually(lambda: received[-1:] == [opened])
            final = await _play(a, watched, 6)
            await _play(a, other, 6)
            await eventually(lambda: received[-1:] == [final])
            await eventually(lambda: feeds["c"].position == feeds["a"].position)
            await eventually(lambda: feeds["b"].position == feeds["a"].position)
            read = {name: feed.rows_read - before[name] for name, feed in feeds.items()}
            assert received == list(range(1, final + 1))  # no gap, no duplicate
            assert read["c"] == 0, "C streams and caches nothing: it reads nothing"
            assert read["a"] == 0, "the writer never reads back its own rows"
            assert read["b"] == final - opened, "B reads its game's new rows, no other"
            assert feeds["c"].rows_passed >= 2 * 6 and feeds["c"].commits >= 12
            counts = c.games.store.feed_counts()
            assert counts["rows_read"] == feeds["c"].rows_read and counts["commits"] >= 12
            watcher.cancel()
        finally:
            for server in (a, b, c):
                server.games.close()

    asyncio.run(scenario())


@PG
def test_a_cached_game_follows_and_a_dropped_one_is_reread(pg_env: dict[str, str]) -> None:
    """B caches a game without streaming it: the feed keeps the cache current. Once B
    forgets the game, the feed reads none of its rows, and B's next call reads the store
    and serves the current version, never a stale one."""

    async def scenario() -> None:
        a = table_server(Store.open([pg_env]))
        b = replica(pg_env)
        try:
            await asyncio.wait_for(b.games.store.feeds[0].connected.wait(), 10)
            game_id = await seated(a)
            gid = uuid.UUID(game_id)
            await b.watch.snapshot(game_id, Viewer.of_seat(0), None)  # cached on B, no stream
            moved = await _play(a, game_id, 3)
            await eventually(
                lambda: gid in b.games._latest and b.games._latest[gid].version == moved
            )
            b.games._latest.pop(gid)  # trimmed from B's cache
            feed = b.games.store.feeds[0]
            read = feed.rows_read
            final = await _play(a, game_id, 3)
            await eventually(lambda: feed.position >= a.games.store.feeds[0].position)
            assert feed.rows_read == read, "a game B no longer caches costs it no read"
            assert (await b.watch.snapshot(game_id, Viewer.of_seat(0), None)).version == final
        finally:
            a.games.close()
            b.games.close()

    asyncio.run(scenario())


@PG
def test_a_writer_without_payloads_is_still_followed(pg_env: dict[str, str]) -> None:
    """A writer whose NOTIFY names no rows (the library's own, as an older replica sends)
    makes the feed read everything after its position: the watcher still gets every move."""

    async def scenario() -> None:
        a = table_server(Store.open([pg_env]))
        recorder: Any = a.games.store.shards[0].recorder
        del recorder.__dict__["_notify_channel"]  # back to eventsourcing's plain NOTIFY
        del recorder.__dict__["_fetch_ids_after_insert_events"]
        b = replica(pg_env)
        try:
            await asyncio.wait_for(b.games.store.feeds[0].connected.wait(), 10)
            game_id = await seated(a)
            received: list[int] = []

            async def watch() -> None:
                async for events, _viewer, _batch in b.watch.watch(game_id, Viewer.of_seat(0), 0):
                    received.extend(e.version for e in events)

            watcher = asyncio.create_task(watch())
            await eventually(lambda: bool(received))
            final = await _play(a, game_id, 5)
            await eventually(lambda: received[-1:] == [final])
            assert received == list(range(1, final + 1))
            watcher.cancel()
        finally:
            a.games.close()
            b.games.close()

    asyncio.run(scenario())
