"""The composition root: the one place the use cases are built and wired together
(docs/architecture.md, "The composition root"). Each job is built with exactly what it
uses; a job that calls another gets that call here, and the common ground's two hooks
(after a move: the turn clock; after a hand: the match) are set here, once."""

from __future__ import annotations

from server.store.eventstore import TableApplication
from server.store.leases import leases_for
from server.store.shards import Store
from server.store.translog import TransparencyLogs
from server.usecases.deal import Deal
from server.usecases.gamecache import DEFAULT_MAX_BYTES
from server.usecases.games import Games, Sealer
from server.usecases.lobby import Lobby
from server.usecases.matches import Matches
from server.usecases.play import Play
from server.usecases.ratings import Ratings
from server.usecases.seats import Seats
from server.usecases.table_server import TableServer
from server.usecases.timers import MAX_RUN, TurnClock
from server.usecases.translog import Transparency
from server.usecases.watch import Watch


def table_server(
    store: Store | TableApplication,
    max_batch: int = 64,
    max_cached_games: int = 10_000,
    min_turn_ms: int = 0,
    sealer: Sealer | None = None,
    allow_prepared_deals: bool = False,
    reveal_timeout: float = 30.0,
    case_timeout: float = 120.0,
    clock: bool = False,
    max_clock_events: int = MAX_RUN,
    logs: TransparencyLogs | None = None,
    max_cached_bytes: int = DEFAULT_MAX_BYTES,
) -> TableServer:
    """Every use case over ``store``, wired. ``clock``: run the turn clock (the server
    does; tests of other things leave games to time out only when they say so), with
    ``max_clock_events`` clock-made events in a row at most. ``max_cached_games`` and
    ``max_cached_bytes``: the caps of the games held in memory (server/usecases/gamecache.py)."""
    games = Games(
        store,
        max_batch=max_batch,
        max_cached_games=max_cached_games,
        sealer=sealer,
        max_cached_bytes=max_cached_bytes,
    )
    # recorded in each new table (GameCreated), so its views' deadlines follow from it
    reveal_timeout_ms = round(reveal_timeout * 1000)
    seats = Seats(
        games,
        min_turn_ms=min_turn_ms,
        allow_prepared_deals=allow_prepared_deals,
        reveal_timeout_ms=reveal_timeout_ms,
        # a case's deadline at a table that names none (recorded in GameCreated as well)
        case_timeout_ms=max(1, round(case_timeout * 1000)),
    )
    deal = Deal(games)
    matches = Matches(games, deal.commit_contribution, reveal_timeout_ms=reveal_timeout_ms)
    games.hand_ended = matches.hand_ended
    ratings = Ratings(games)
    games.game_finished = ratings.game_finished
    matches.match_finished = ratings.match_finished
    turn_clock = TurnClock(games, max_run=max_clock_events) if clock else None
    if turn_clock is not None:
        games.after_append = turn_clock.schedule
    return TableServer(
        games=games,
        seats=seats,
        deal=deal,
        play=Play(games),
        watch=Watch(games, matches.hand_ended),
        matches=matches,
        clock=turn_clock,
        log=None if logs is None else Transparency(games, logs),
        ratings=ratings,
    )


def lobby(tables: TableServer, abandon_after_ms: int = 0) -> Lobby:
    """The lobby over the same store, opening its tables through CreateGame's use case:
    keyed seats, the server's own secret; logins only unless bots take seats;
    ``abandon_after_ms``: how long their draw waits for every seat (0: CreateGame's
    default)."""

    async def create_table(
        kind: str,
        options: object,
        seat_count: int,
        logins: bool,
        reserved: tuple[str, ...],
        app: str,
    ) -> str:
        game_id, _version, _arbiter = await tables.seats.create_game(
            kind,
            options,
            seat_count,
            require_player_login=logins,
            reserved_players=reserved,
            app=app,
            abandon_after_ms=abandon_after_ms,
        )
        return game_id

    async def rating_of(kind: str, player: str) -> float:
        assert tables.ratings is not None  # (wired by table_server)
        rating, _place = await tables.ratings.rating(kind, player)
        return rating.mu

    return Lobby(tables.games, create_table, leases_for(tables.games.store), rating_of)
