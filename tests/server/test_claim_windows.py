"""川南字牌 claim windows through the server (issue 14, zipai item 3): claims inside one window
are independent, so a second claimer's Play against the window's version is decided, not
ABORTED as stale."""

from __future__ import annotations

import asyncio
import random

from domain import table as tables
from domain.engine import ARBITER, Viewer
from domain.zipai import Options
from domain.zipai.commands import PassClaim
from domain.zipai.state import Phase
from server.startup.compose import table_server
from server.store.eventstore import TableApplication
from server.usecases.games import Aborted


def test_two_claimers_answer_the_same_window_against_the_same_version() -> None:
    """Given a claim window waiting for two seats; when both send their answer against the
    window's version; then both are accepted (the second one was not ABORTED); a Play whose
    version is behind anything else is still ABORTED."""

    async def scenario() -> None:
        server = table_server(
            TableApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}),
            allow_prepared_deals=True,  # seeded deals: each seed a reproducible window
        )
        rng = random.Random(5)
        try:
            for seed in range(40):
                gid, _v, _a = await server.seats.create_game(
                    "zipai", Options(), 3, seed=seed, allow_unkeyed_seats=True
                )
                tokens = [(await server.seats.join_game(gid, s, ""))[0] for s in range(3)]
                await server.deal.start_game(gid, Viewer.of_seat(0))
                for _ in range(200):
                    snap = await server.watch.snapshot(gid, ARBITER, None)
                    table = snap.table
                    if table.phase is not tables.Phase.PLAYING:
                        break
                    waiting = tables.to_act(table)
                    if table.game.phase is Phase.CLAIM and len(waiting) >= 2:
                        version = snap.version
                        first, second = waiting[:2]
                        await server.play.play(
                            gid, Viewer.of_seat(first), version, PassClaim(first)
                        )
                        stored = await server.play.play(
                            gid, Viewer.of_seat(second), version, PassClaim(second)
                        )
                        assert stored and stored[0].version == version + 2
                        try:
                            await server.play.play(
                                gid, Viewer.of_seat(second), version, PassClaim(second)
                            )
                        except Aborted:
                            return  # behind facts that are not another seat's answer: stale
                        raise AssertionError("a Play behind its own answer was not ABORTED")
                    seat = waiting[0]
                    viewer = await server.games.authenticate(gid, tokens[seat])
                    _table, version, legal = await server.play.legal_moves(gid, viewer)
                    await server.play.play(gid, viewer, version, rng.choice(legal))
            raise AssertionError("no claim window with two seats in 40 games")
        finally:
            server.games.close()

    asyncio.run(scenario())
