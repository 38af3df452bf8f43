"""Games in memory are a cache of the store: the cache stays bounded and forgotten games are
read back from the store (found by the soak: the server used to keep every game forever)."""

from __future__ import annotations

import asyncio
import random

from domain import table as tables
from domain.engine import Viewer
from domain.huaniao import Options
from domain.huaniao.options import Mode
from server.store.eventstore import TableApplication
from server.usecases.table_server import TableServer


def test_the_game_cache_is_bounded_and_forgotten_games_still_play() -> None:
    async def scenario() -> None:
        app = TableApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
        server = TableServer(app, max_cached_games=5, allow_prepared_deals=True)
        rng = random.Random(3)
        games = []
        for g in range(20):
            gid, _v, _a = await server.create_game(
                "huaniao", Options(mode=Mode.BASIC), 4, seed=g, allow_unkeyed_seats=True
            )
            tokens = [(await server.join_game(gid, s, ""))[0] for s in range(4)]
            await server.start_game(gid, Viewer.of_seat(0))
            games.append((gid, tokens))
            assert len(server._latest) <= 5 and len(server._locks) <= 6
        for gid, tokens in games:  # every game, cached or not, is still there and playable
            snap = await server.snapshot(gid, Viewer.of_seat(0), None)
            seat = tables.to_act(snap.table)[0]
            viewer = await server.authenticate(gid, tokens[seat])
            _table, version, legal = await server.legal_moves(gid, viewer)
            await server.play(gid, viewer, version, rng.choice(legal))
        assert len(server._latest) <= 5
        server.close()

    asyncio.run(scenario())
