"""Ratings in the server (server/usecases/ratings.py, server/store/ratings.py): a game's end
noted twice counts once, a game or match that ended while its noting was lost (the process
died between the two) is rated by the start-up sweep, once, however often it runs."""

from __future__ import annotations

import asyncio
import random
import uuid
from pathlib import Path

from domain.engine import Viewer
from domain.huaniao.options import Mode
from domain.huaniao.options import Options as HuaniaoOptions
from server.startup.compose import table_server
from server.store import ratings as ledger
from server.store.shards import Store
from server.usecases.table_server import TableServer
from tests.server.test_matches import SEALER, SEED, play_hand, play_match, sqlite

PLAYERS = ("a" * 64, "b" * 64)
OPTIONS = HuaniaoOptions(mode=Mode.BASIC)


async def login_game(server: TableServer, **match: int) -> tuple[str, str, dict[int, str]]:
    """A two-seat login table (a match's first hand with ``match``), dealt."""
    if match:
        game_id, _v, _a, match_id = await server.seats.create_match(
            "huaniao", OPTIONS, 2, allow_unkeyed_seats=True, require_player_login=True, **match
        )
    else:
        game_id, _v, _a = await server.seats.create_game(
            "huaniao", OPTIONS, 2, allow_unkeyed_seats=True, require_player_login=True
        )
        match_id = ""
    tokens = {
        s: (await server.seats.join_game(game_id, s, f"p{s}", player=PLAYERS[s]))[0] for s in (0, 1)
    }
    await server.deal.start_game(game_id, Viewer.of_seat(0))
    return game_id, match_id, tokens


async def dies(_subject: object) -> None:
    """The process died after the end was stored, before its rating was noted."""


def test_an_end_noted_twice_counts_once_and_a_lost_noting_is_swept_up(tmp_path: Path) -> None:
    async def scenario() -> None:
        db = tmp_path / "r.sqlite"
        rng = random.Random(SEED)
        server = table_server(sqlite(db), sealer=SEALER)
        assert server.ratings is not None
        rated, _, tokens = await login_game(server)
        await play_hand(server, rated, tokens, rng)
        again = await server.games.load(uuid.UUID(rated))
        await server.ratings.game_finished(again)  # the end seen again: a replay
        ledger.note(
            server.games.store, ledger.results_after(server.games.store, "huaniao", 0)[0][0]
        )
        board, total = await server.ratings.board("huaniao", 0, 10)
        assert total == 2 and [r.results for r in board] == [1, 1]  # once, though listed twice
        assert ledger.results_after(server.games.store, "huaniao", 0)[1] == 2

        server.games.game_finished = dies
        server.matches.match_finished = dies
        lost, _, tokens = await login_game(server)
        await play_hand(server, lost, tokens, rng)
        first, match_id, tokens = await login_game(server, hands=2)
        await play_match(server, match_id, tokens, rng)
        running, _, _tokens = await login_game(server)  # not ended: nothing to rate
        assert (await server.ratings.board("huaniao", 0, 10))[0][0].results == 1
        server.games.close()

        restarted = table_server(sqlite(db), sealer=SEALER)
        assert restarted.ratings is not None
        assert await restarted.ratings.sweep() == 2  # the lost game and the match
        assert await restarted.ratings.sweep() == 0  # and never again
        board, total = await restarted.ratings.board("huaniao", 0, 10)
        assert sorted(r.results for r in board) == [3, 3]
        folded = await restarted.ratings.rating("huaniao", PLAYERS[0])
        assert folded[0].results == 3 and folded[1] in (1, 2)
        assert running and first
        restarted.games.close()

    asyncio.run(scenario())


def test_a_result_noted_on_one_replica_is_on_the_others_board(pg_env: dict[str, str]) -> None:
    """Two replicas on one PostgreSQL store: each folds the ledger both write."""

    async def scenario() -> None:
        rng = random.Random(SEED)
        a = table_server(Store.open([pg_env]), sealer=SEALER)
        b = table_server(Store.open([dict(pg_env, CREATE_TABLE="n")]), sealer=SEALER)
        assert a.ratings is not None and b.ratings is not None
        assert (await b.ratings.board("huaniao", 0, 10))[1] == 0  # read before: cached empty
        game, _, tokens = await login_game(a)
        await play_hand(a, game, tokens, rng)
        board_a = await a.ratings.board("huaniao", 0, 10)
        board_b = await b.ratings.board("huaniao", 0, 10)
        assert board_b == board_a and board_a[1] == 2
        game, _, tokens = await login_game(b)
        await play_hand(b, game, tokens, rng)
        board_b = await b.ratings.board("huaniao", 0, 10)
        assert await a.ratings.board("huaniao", 0, 10) == board_b
        assert [r.results for r in board_b[0]] == [2, 2]
        a.games.close()
        b.games.close()

    asyncio.run(scenario())
