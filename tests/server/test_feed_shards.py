"""A shard added to a running two-replica deployment (issue 27): old games stay where they
are and keep playing, new games land on the new shard, and each replica's feed follows
every shard.

The replicas are ``TableServer``s in one process, each with its own ``Store``, restarted
one at a time onto the longer shard list as an operator would (docs/operations.md,
"Adding a shard"). The shards are schemas of one database, which also share one NOTIFY
channel.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Callable

from domain import table as tables
from domain.engine import Viewer
from server.startup.compose import table_server
from server.startup.migrate import migrate_shard
from server.store.shards import Store, shard_envs
from server.usecases.games import Aborted
from server.usecases.table_server import TableServer
from server.wire.stored import StoredEvent
from tests.server.test_replicas import eventually, next_move, seated
from tests.support.pgfixtures import PG
from tests.support.pgserver import PgServer

BEFORE = "s0,s1"
# the founding shards take no new games, so every new one goes to s2
AFTER = "s0?new_games=no,s1?new_games=no,s2?added=yes"


async def _move(server: TableServer, game_id: str) -> bool:
    """One move on ``server``; False once the game is over. A replica whose cache has not
    yet heard of the other's last move is refused (Aborted) and the move is sent again, as
    a client does."""
    for _attempt in range(50):
        snap = await server.watch.snapshot(game_id, Viewer.of_seat(0), None)
        if snap.table.phase is tables.Phase.FINISHED:
            return False
        viewer, command, version = await next_move(server, game_id)
        try:
            await server.play.play(game_id, viewer, version, command)
            return True
        except Aborted:
            await asyncio.sleep(0.01)
    raise AssertionError(f"no move got through in game {game_id}")


@PG
def test_a_shard_added_to_running_replicas_takes_the_new_games(
    pg_server: PgServer, new_database: Callable[[], str]
) -> None:
    seed = random.randrange(1 << 30)
    print(f"seed {seed}")
    rng = random.Random(seed)
    base = dict(
        pg_server.env(new_database()), PERSISTENCE_MODULE="eventsourcing.postgres", CREATE_TABLE="n"
    )
    for env in shard_envs(base, BEFORE):
        migrate_shard(env)

    def replica(spec: str) -> TableServer:
        return table_server(Store.open(shard_envs(base, spec)))

    async def scenario() -> None:
        a, b = replica(BEFORE), replica(BEFORE)
        watched: list[StoredEvent] = []
        watcher: asyncio.Task[None] | None = None
        try:
            # a game's shard is its id's hash: eight games all land on one shard once in
            # 128 runs, so more are made until both shards hold some (the test needs both)
            old: list[str] = []
            homes: dict[str, int] = {}
            while len(old) < 8 or set(homes.values()) != {0, 1}:
                assert len(old) < 40, "forty new games all went to one shard"
                old.append(await seated(a if len(old) % 2 else b, hand=4))
                homes[old[-1]] = a.games.store.shard_of(uuid.UUID(old[-1]))
            for g in old:
                await _move(rng.choice((a, b)), g)

            async def watch(server: TableServer, game_id: str) -> None:
                async for events, _v, _b in server.watch.watch(game_id, Viewer.of_seat(0), 0):
                    watched.extend(events)

            # the operator creates the new shard's tables, then restarts the replicas one
            # at a time onto the longer list; the other one keeps serving meanwhile
            migrate_shard(shard_envs(base, AFTER)[2])
            b.games.close()
            b = replica(AFTER)
            for g in old:
                await _move(a, g)  # the old replica still plays every old game
            a.games.close()
            a = replica(AFTER)
            assert a.games.store.grown and a.games.store.open_shards == [2]
            watcher = asyncio.create_task(watch(b, old[0]))  # across replicas
            new = [await seated(a if i % 2 else b, hand=4) for i in range(6)]
            for g in new:
                gid = uuid.UUID(g)
                assert a.games.store.shard_of(gid) == b.games.store.shard_of(gid) == 2
                assert len(list(a.games.store.shards[2].events.get(gid))) > 0
                assert not list(a.games.store.shards[0].events.get(gid))
                assert not list(a.games.store.shards[1].events.get(gid))
            # every game, old and new, plays to its end, moves alternating between replicas
            games = old + new
            while games:
                g = rng.choice(games)
                if not await _move(rng.choice((a, b)), g):
                    games.remove(g)
            for g in old:
                gid = uuid.UUID(g)
                assert a.games.store.shard_of(gid) == b.games.store.shard_of(gid) == homes[g]
                assert not list(a.games.store.shards[2].events.get(gid)), "old games never moved"
            for g in old + new:
                for server in (a, b):
                    history = await server.watch.history(g, Viewer.of_seat(0), 0, 1000)
                    versions = [e.version for e in history[1]]
                    assert versions == list(range(1, history[2] + 1))
            final = (await a.watch.history(old[0], Viewer.of_seat(0), 0, 1000))[2]
            await eventually(lambda: watched[-1:] != [] and watched[-1].version == final)
            assert [e.version for e in watched] == list(range(1, final + 1))
            assert a.games.store.lookups > 0 and len(a.games.store.placements) >= len(old)
        finally:
            if watcher is not None:
                watcher.cancel()
            a.games.close()
            b.games.close()

    asyncio.run(scenario())
