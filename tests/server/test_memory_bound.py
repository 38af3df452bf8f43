"""Games in memory are a cache of the store: the cache stays bounded and forgotten games are
read back from the store (found by the soak: the server used to keep every game forever)."""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta

from domain import table as tables
from domain.engine import Viewer
from domain.huaniao import Options
from domain.huaniao.options import Mode
from server.startup.compose import table_server
from server.store.eventstore import TableApplication


def test_the_game_cache_is_bounded_and_forgotten_games_still_play() -> None:
    async def scenario() -> None:
        app = TableApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
        server = table_server(app, max_cached_games=5, allow_prepared_deals=True)
        rng = random.Random(3)
        games = []
        for g in range(20):
            gid, _v, _a = await server.seats.create_game(
                "huaniao", Options(mode=Mode.BASIC), 4, seed=g, allow_unkeyed_seats=True
            )
            tokens = [(await server.seats.join_game(gid, s, ""))[0] for s in range(4)]
            await server.deal.start_game(gid, Viewer.of_seat(0))
            games.append((gid, tokens))
            assert len(server.games._latest) <= 5 and len(server.games._locks) <= 6
        for gid, tokens in games:  # every game, cached or not, is still there and playable
            snap = await server.watch.snapshot(gid, Viewer.of_seat(0), None)
            seat = tables.to_act(snap.table)[0]
            viewer = await server.games.authenticate(gid, tokens[seat])
            _table, version, legal = await server.play.legal_moves(gid, viewer)
            await server.play.play(gid, viewer, version, rng.choice(legal))
        assert len(server.games._latest) <= 5
        server.games.close()

    asyncio.run(scenario())


def test_the_game_cache_is_capped_in_bytes_as_games_grow() -> None:
    """The cache's byte cap (issue 38): a game's weight grows with its justice history, and
    the cache forgets other games to stay under the cap; each is read back on use."""
    from domain.table.justice import facts as J
    from server.usecases import gamecache

    async def scenario() -> None:
        app = TableApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
        cap = 6 * gamecache.GAME_BYTES
        server = table_server(app, allow_prepared_deals=True, max_cached_bytes=cap)
        games = []
        for g in range(4):
            gid, _v, _a = await server.seats.create_game(
                "huaniao", Options(mode=Mode.BASIC), 2, seed=g, allow_unkeyed_seats=True
            )
            tokens = [(await server.seats.join_game(gid, s, ""))[0] for s in range(2)]
            await server.deal.start_game(gid, Viewer.of_seat(0))
            games.append((gid, tokens))
        assert len(server.games._latest) == 4
        gid, tokens = games[0]
        warning = J.Penalty(J.PenaltyKind.WARNING, 0)
        for r in range(24):  # a justice history: 48 cases and penalties, about 48 KB more
            by, accused = r % 2, 1 - r % 2
            viewer = await server.games.authenticate(gid, tokens[by])
            version = await server.games.version_of(server.games.parse_id(gid))
            report = J.Report(by, accused, J.ViolationKind.OTHER, (version,), warning, "")
            await server.play.play(gid, viewer, version, report)
            viewer = await server.games.authenticate(gid, tokens[accused])
            await server.play.play(gid, viewer, version + 1, J.CastVote(accused, version + 1, True))
            assert server.games._latest.held <= cap
        assert len(server.games._latest) < 4, "other games were forgotten to make room"
        # the state read back from the store (a snapshot and the events after it) is the live one
        live = server.games._latest[server.games.parse_id(gid)]
        read = app.repository.get(server.games.parse_id(gid))
        assert read.version == live.version and read.table == live.table
        assert read.justice_times == live.justice_times
        assert read.justice_times.closed > timedelta(), "the closed cases' pause is kept"
        # a state kept before issue 38 (every case fact's time, no closed total) reads alike
        old = read.fork()
        every = app.stored_events(old.id)
        old.__dict__["justice_at"] = {
            str(e.version): e.recorded_at.isoformat()
            for e in every
            if isinstance(e.fact, tables.CLOCK_FACT_TYPES) and e.recorded_at is not None
        }
        del old.__dict__["justice_closed_us"]
        assert old.justice_times == live.justice_times
        assert server.games.parse_id(gid) in server.games._latest, "not the one in play"
        for other, _tokens in games[1:]:  # read back from the store on use
            snap = await server.watch.snapshot(other, Viewer.of_seat(0), None)
            assert snap.table.phase is tables.Phase.PLAYING
        server.games.close()

    asyncio.run(scenario())
