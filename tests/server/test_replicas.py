"""Two replicas in one process on one PostgreSQL database, and sharded stores.

Each "replica" is a ``TableServer`` with its own ``Store`` (its own connection pool, group
committer and subscription), which is all a replica process shares with another. The
cross-process versions of these tests, through gRPC, are in tests/e2e/.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from domain import table as tables
from domain.engine import Viewer
from domain.registry import register
from server.startup.compose import table_server
from server.store.eventstore import GameAggregate
from server.store.shards import Store, parse_shards, shard_envs
from server.usecases.games import Aborted
from server.usecases.table_server import TableServer
from server.usecases.watch import HandEvents
from server.wire.stored import StoredEvent
from tests.support import fakegame
from tests.support.pgfixtures import PG
from tests.support.pgserver import PgServer

register(fakegame.RULES)


async def seated(server: TableServer, hand: int = 6) -> str:
    game_id, _version, _arbiter = await server.seats.create_game(
        "fake", fakegame.Options(hand_size=hand), 2, allow_unkeyed_seats=True
    )
    for seat in range(2):
        await server.seats.join_game(game_id, seat, f"p{seat}")
    await server.deal.start_game(game_id, Viewer.of_seat(0))
    return game_id


async def next_move(server: TableServer, game_id: str) -> tuple[Viewer, Any, int]:
    snap = await server.watch.snapshot(game_id, Viewer.of_seat(0), None)
    state = snap.table.game
    (command, *_rest) = fakegame.RULES.legal_commands(state, state.turn)
    return Viewer.of_seat(state.turn), command, snap.version


async def eventually(check: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.01)


def replica(env: dict[str, str]) -> TableServer:
    return table_server(Store.open([dict(env, CREATE_TABLE="n")]))


@PG
def test_moves_on_one_replica_reach_watchers_and_cache_of_the_other(
    pg_env: dict[str, str],
) -> None:
    async def scenario() -> None:
        a = table_server(Store.open([pg_env]))
        b = replica(pg_env)
        try:
            game_id = await seated(a)
            gid = uuid.UUID(game_id)
            received: list[int] = []

            async def watch() -> None:
                async for events, _viewer, _batch in b.watch.watch(game_id, Viewer.of_seat(1), 0):
                    received.extend(e.version for e in events)

            watcher = asyncio.create_task(watch())
            await eventually(lambda: b.games.hub.watching(gid) and len(received) >= 4)
            for _move in range(8):
                viewer, command, version = await next_move(a, game_id)
                await a.play.play(game_id, viewer, version, command)
            final = (await a.watch.snapshot(game_id, Viewer.of_seat(0), None)).version
            await eventually(lambda: bool(received) and received[-1] == final)
            assert received == list(range(1, final + 1))  # no gap, no duplicate
            # B's cached game moved forward from the feed, without a store read
            assert b.games._latest[gid].version == final
            assert b.games._latest[gid].table == a.games._latest[gid].table
            # A recognised its own events by notification id (all of them, unless its
            # subscription overtook its committer's bookkeeping; the hub drops those)
            own = a.games.store.feeds[0]
            assert own.skipped_own > 0 and own.skipped_own + own.received <= final
            watcher.cancel()
        finally:
            a.games.close()
            b.games.close()

    asyncio.run(scenario())


@PG
def test_the_other_replica_knows_the_last_move_without_reading_the_store(
    pg_env: dict[str, str],
) -> None:
    """A seat's legal moves on the replica that did not make the move include its 误操作
    (Retract) exactly as on the replica that did, and as a fresh reader finds them in the
    store; the watching replica learns the last move from the feed, with no store read."""

    async def scenario() -> None:
        a = table_server(Store.open([pg_env]))
        b = replica(pg_env)
        fresh = replica(pg_env)
        try:
            game_id = await seated(a, hand=8)
            gid = uuid.UUID(game_id)

            received: list[int] = []

            async def watch() -> None:
                async for events, _viewer, _batch in b.watch.watch(game_id, Viewer.of_seat(0), 0):
                    received.extend(e.version for e in events)

            watcher = asyncio.create_task(watch())
            opened = a.games._latest[gid].version
            # the watch has read the history (its one store read) and waits for live events
            await eventually(lambda: b.games.hub.watching(gid) and received[-1:] == [opened])
            reads: list[Any] = []
            real = b.games.store.stored_events
            b.games.store.stored_events = lambda *a_, **k: reads.append(a_) or real(*a_, **k)  # type: ignore[method-assign]
            retractions = 0
            for _move in range(6):
                viewer, command, version = await next_move(a, game_id)
                stored = await a.play.play(game_id, viewer, version, command)
                final = stored[-1].version
                await eventually(lambda f=final: b.games._latest[gid].version == f)  # type: ignore[misc]
                fresh.games._latest.pop(gid, None)
                fresh.games._last_moves.pop(gid, None)
                for seat in range(2):
                    seen = Viewer.of_seat(seat)
                    on_a = (await a.play.legal_moves(game_id, seen))[1:]
                    on_b = (await b.play.legal_moves(game_id, seen))[1:]
                    assert on_b == on_a == (await fresh.play.legal_moves(game_id, seen))[1:]
                    retractions += any(type(c).__name__ == "Retract" for c in on_b[1])
            assert retractions > 0, "the mover may retract: the case under test came up"
            assert reads == [], f"B read the store for the last move: {reads}"
            watcher.cancel()
        finally:
            a.games.close()
            b.games.close()
            fresh.games.close()

    asyncio.run(scenario())


@PG
def test_a_race_between_replicas_has_exactly_one_winner(pg_env: dict[str, str]) -> None:
    async def scenario() -> None:
        a = table_server(Store.open([pg_env]))
        b = replica(pg_env)
        try:
            game_id = await seated(a)
            for _round in range(5):
                viewer, command, version = await next_move(a, game_id)
                await b.watch.snapshot(game_id, viewer, None)  # B has the game cached too
                results = await asyncio.gather(
                    a.play.play(game_id, viewer, version, command),
                    b.play.play(game_id, viewer, version, command),
                    return_exceptions=True,
                )
                won = [r for r in results if isinstance(r, list)]
                lost = [r for r in results if isinstance(r, Aborted)]
                assert len(won) == 1 and len(lost) == 1, results
                assert lost[0].expected == version
                assert lost[0].current == won[0][-1].version
                # the loser re-reads: its next view is the winner's version
                for server in (a, b):
                    await eventually(
                        lambda s=server: s.games._latest.get(uuid.UUID(game_id)) is not None
                    )
                    snap = await server.watch.snapshot(game_id, viewer, None)
                    assert snap.version == won[0][-1].version
        finally:
            a.games.close()
            b.games.close()

    asyncio.run(scenario())


@PG
def test_stale_cache_is_never_trusted_for_a_move(pg_env: dict[str, str]) -> None:
    """B's feed is stopped, so its cache is stale: its Play must still be judged by the store."""

    async def scenario() -> None:
        a = table_server(Store.open([pg_env]))
        b = replica(pg_env)
        try:
            game_id = await seated(a)
            await b.watch.snapshot(game_id, Viewer.of_seat(0), None)
            for feed in b.games.store.feeds:
                feed.stop()
            viewer, command, version = await next_move(a, game_id)
            won = await a.play.play(game_id, viewer, version, command)
            # B still believes ``version`` is current; its store write must lose
            with pytest.raises(Aborted) as lost:
                await b.play.play(game_id, viewer, version, command)
            assert lost.value.current == won[-1].version
            snap = await b.watch.snapshot(game_id, viewer, None)
            assert snap.version == won[-1].version
        finally:
            a.games.close()
            b.games.close()

    asyncio.run(scenario())


# --- sharding --------------------------------------------------------------------------


def test_shard_specs_parse() -> None:
    assert parse_shards("") == []
    assert parse_shards("s0, s1") == [{"POSTGRES_SCHEMA": "s0"}, {"POSTGRES_SCHEMA": "s1"}]
    (url,) = parse_shards("postgresql://u:p%40ss@db1:6543/games?schema=g&pool_size=3")
    assert url == {
        "POSTGRES_HOST": "db1",
        "POSTGRES_PORT": "6543",
        "POSTGRES_USER": "u",
        "POSTGRES_PASSWORD": "p@ss",
        "POSTGRES_DBNAME": "games",
        "POSTGRES_SCHEMA": "g",
        "POSTGRES_POOL_SIZE": "3",
    }
    envs = shard_envs({"PERSISTENCE_MODULE": "eventsourcing.postgres"}, "a;b")
    assert [e["TABLETOP_POSTGRES_SCHEMA"] for e in envs] == ["a", "b"]
    assert shard_envs({"X": "1"}, "") == [{"X": "1"}]


@pytest.mark.parametrize("layout", ["databases", "schemas"])
@PG
def test_games_spread_over_shards_and_read_back_from_theirs(
    layout: str, pg_server: PgServer, new_database: Callable[[], str]
) -> None:
    from server.startup.migrate import migrate_shard

    base = dict(pg_server.env(new_database()), PERSISTENCE_MODULE="eventsourcing.postgres")
    if layout == "databases":
        spec = ",".join(pg_server.url(new_database()) for _ in range(2))
    else:
        spec = "shard_a,shard_b"
    envs = shard_envs(dict(base, CREATE_TABLE="n"), spec)
    for env in envs * 2:  # idempotent
        migrate_shard(env)

    async def scenario() -> None:
        a = table_server(Store.open(envs))
        b = table_server(Store.open(envs))
        try:
            # a game's shard is its id's hash: twelve games all land on one shard once in
            # 2,048 runs, so more are made until both shards hold some
            game_ids: list[str] = []
            while (
                len(game_ids) < 12
                or len({a.games.store.shard_of(uuid.UUID(g)) for g in game_ids}) < 2
            ):
                assert len(game_ids) < 40, "forty new games all went to one shard"
                game_ids.append(await seated(a, hand=3))
            for game_id in game_ids:
                gid = uuid.UUID(game_id)
                home = a.games.store.app_for(gid)
                other = a.games.store.shards[1 - a.games.store.shard_of(gid)]
                assert [e.originator_version for e in home.events.get(gid)] == [1, 2, 3, 4, 5, 6]
                assert list(other.events.get(gid)) == []
            # play one game per shard to the end on A while B watches; history from B
            for game_id in game_ids[:4]:
                received: list[StoredEvent] = []

                async def watch(gid: str = game_id, out: list[StoredEvent] = received) -> None:
                    async for events, _v, _b in b.watch.watch(gid, Viewer.of_seat(0), 0):
                        out.extend(events)

                watcher = asyncio.create_task(watch())
                while True:
                    snap = await a.watch.snapshot(game_id, Viewer.of_seat(0), None)
                    version = snap.version
                    if snap.table.phase is tables.Phase.FINISHED:
                        break
                    viewer, command, version = await next_move(a, game_id)
                    await a.play.play(game_id, viewer, version, command)
                await asyncio.wait_for(watcher, 10)  # ends once the game is over
                history = await b.watch.history(game_id, Viewer.of_seat(0), 0, 1000)
                assert [e.version for e in received] == [e.version for e in history[1]]
                assert history[2] == version
        finally:
            a.games.close()
            b.games.close()

    asyncio.run(scenario())


def test_a_store_without_postgres_runs_no_feed(tmp_path: Any) -> None:
    async def scenario() -> None:
        server = table_server(
            Store.open(
                [
                    {
                        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
                        "SQLITE_DBNAME": str(tmp_path / "g.sqlite"),
                    }
                ]
            )
        )
        try:
            assert not server.games.store.shared and server.games.store.feeds == []
            game_id = await seated(server)
            assert isinstance(server.games._latest[uuid.UUID(game_id)], GameAggregate)
        finally:
            server.games.close()

    asyncio.run(scenario())


@PG
def test_replicas_ride_out_a_database_restart() -> None:
    """Moves fail at worst while the database is down; subscriptions come back on their own."""
    with PgServer() as pg:
        env = dict(
            pg.env(pg.create_database("restart")),
            PERSISTENCE_MODULE="eventsourcing.postgres",
            CREATE_TABLE="y",
        )

        async def scenario() -> None:
            a = table_server(Store.open([env]))
            b = replica(env)
            try:
                game_id = await seated(a)
                received: list[int] = []

                async def watch() -> None:
                    async for events, _v, _b in b.watch.watch(game_id, Viewer.of_seat(1), 0):
                        received.extend(e.version for e in events)

                watcher = asyncio.create_task(watch())
                await eventually(lambda: len(received) >= 6)
                await asyncio.to_thread(pg.restart, 0.5)
                viewer, command, version = await next_move(a, game_id)
                stored = await a.play.play(game_id, viewer, version, command)
                await eventually(lambda: received[-1] == stored[-1].version, timeout=15)
                assert received == list(range(1, stored[-1].version + 1))
                watcher.cancel()
            finally:
                a.games.close()
                b.games.close()

        asyncio.run(scenario())


def test_a_shard_url_may_list_hosts_like_libpq() -> None:
    """Several hosts (a Patroni cluster), the primary picked by target_session_attrs."""
    spec = (
        "postgresql://tt@127.0.0.1:5433,127.0.0.1:5434/games?target_session_attrs=read-write,"
        " postgresql://h1,[::1]:6000/other; s9"
    )
    first, second, third = parse_shards(spec)
    assert first == {
        "POSTGRES_USER": "tt",
        "POSTGRES_HOST": "127.0.0.1,127.0.0.1",
        "POSTGRES_PORT": "5433,5434",
        "POSTGRES_DBNAME": "games",
        "POSTGRES_TARGET_SESSION_ATTRS": "read-write",
    }
    assert second == {
        "POSTGRES_HOST": "h1,::1",
        "POSTGRES_PORT": "5432,6000",
        "POSTGRES_DBNAME": "other",
    }
    assert third == {"POSTGRES_SCHEMA": "s9"}
    with pytest.raises(ValueError):
        parse_shards("postgresql://h1:x/db")


async def play_out_match(server: TableServer, match_id: str) -> None:
    """Every hand of a fake-game match to its end, on ``server``."""
    for _hand in range(64):
        state = (await server.matches.match_record(match_id))[0]
        if state.finished:
            return
        assert state.current is not None
        game_id = state.current.game_id
        table = (await server.watch.snapshot(game_id, Viewer.of_seat(0), None)).table
        for seat in table.awaited_commitments:  # a later hand: its seats commit (to nothing)
            await server.deal.commit_contribution(game_id, Viewer.of_seat(seat), "")
        while (await server.watch.snapshot(game_id, Viewer.of_seat(0), None)).table.outcome is None:
            viewer, command, version = await next_move(server, game_id)
            await server.play.play(game_id, viewer, version, command)
    raise AssertionError("the match did not end")


async def seated_match(server: TableServer, hands: int) -> tuple[str, str]:
    options = fakegame.Options(hand_size=3)
    game_id, _v, _a, match_id = await server.seats.create_match(
        "fake", options, 2, hands, allow_unkeyed_seats=True
    )
    for seat in range(2):
        await server.seats.join_game(game_id, seat, f"p{seat}")
    await server.deal.start_game(game_id, Viewer.of_seat(0))
    return game_id, match_id


@PG
def test_a_watcher_on_one_replica_follows_a_match_played_on_the_other(
    pg_env: dict[str, str],
) -> None:
    async def scenario() -> None:
        a = table_server(Store.open([pg_env]))
        b = replica(pg_env)
        try:
            first, match_id = await seated_match(a, hands=3)
            seen: list[tuple[str, int]] = []
            moved: list[str] = []

            async def watch() -> None:
                async for item in b.watch.watch_match(first, Viewer.of_seat(1), 0):
                    if isinstance(item, HandEvents):
                        seen.extend((item.game_id, e.version) for e in item.events)
                    else:
                        moved.append(item.game_id)

            watcher = asyncio.create_task(watch())
            await eventually(lambda: len(seen) >= 4)
            await play_out_match(a, match_id)
            await asyncio.wait_for(watcher, 20)
            state, _facts = await a.matches.match_record(match_id)
            expected = []
            for h in state.hands:
                stored = a.games.store.stored_events(uuid.UUID(h.game_id))
                expected += [(h.game_id, e.version) for e in stored]
            assert seen == expected
            assert moved == [h.game_id for h in state.hands[1:]] + [""]
        finally:
            a.games.close()
            b.games.close()

    asyncio.run(scenario())


@PG
def test_two_replicas_moving_a_match_on_at_once_deal_one_next_hand(
    pg_env: dict[str, str],
) -> None:
    async def scenario() -> None:
        a = table_server(Store.open([pg_env]))
        b = replica(pg_env)

        async def stays(match_id: str) -> None:  # the hand ends; nobody moves the match yet
            return None

        a.games.hand_ended = stays
        try:
            first, match_id = await seated_match(a, hands=2)
            while (await a.watch.snapshot(first, Viewer.of_seat(0), None)).table.outcome is None:
                viewer, command, version = await next_move(a, first)
                await a.play.play(first, viewer, version, command)
            await asyncio.gather(
                a.matches.advance_match(match_id), b.matches.advance_match(match_id)
            )
            state, facts = await b.matches.match_record(match_id)
            kinds = [type(f.fact).__name__ for f in facts]
            assert kinds == ["MatchCreated", "HandOpened", "HandEnded", "HandOpened"], kinds
            second = state.hands[1].game_id
            assert (await b.watch.snapshot(second, Viewer.of_seat(0), None)).table.hand == 2
            a.games.hand_ended = (
                a.matches.hand_ended
            )  # the hook again: the match moves on when its hand ends
            await play_out_match(a, match_id)
            assert (await b.matches.match_record(match_id))[0].finished
        finally:
            a.games.close()
            b.games.close()

    asyncio.run(scenario())
