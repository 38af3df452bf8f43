"""Matchmaking through real servers (issue 40): two replicas on one PostgreSQL database, 12
players of mixed preferences (two game kinds, two rating bands of the server's own ratings,
seeded in its ledger, a lone player who accepts bots), the replica holding the matchmaker's leases SIGKILLed mid-queue. Every table formed
is compatible, nobody is seated twice, no queued player is lost (the survivor takes the
leases over and seats them), and the lone player gets bots after the wait it named."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from clients.python.client import TableClient
from clients.python.serverproc import ServerProcess
from domain.lobby import Ticket, compatible
from server.store import lobby as queues
from server.store.shards import Store
from server.transport.logins import player_id
from tabletop.v1 import lobby_pb2 as lpb
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import huaniao_options
from tests.e2e.test_replicas import migrate
from tests.support.lobby import SEATED, WAITING, Lobby, seed_ratings
from tests.support.oidc import ISSUER, IdentityProvider, server_flags
from tests.support.pgfixtures import PG
from tests.support.pgserver import PgServer

pytestmark = [PG, pytest.mark.timeout(240)]


@dataclass(frozen=True)
class Wish:
    group: str  # what it wants: the same group means the same game, rules and seats
    options: pb.GameOptions
    seats: int
    record: int  # rated two-seat games won (> 0) or lost (< 0) in the server's ledger
    window: float
    bot_wait_ms: int = 0


def zipai() -> pb.GameOptions:
    return pb.GameOptions(zipai=pb.GameOptions().zipai.__class__())


# the ratings (mu) these records give: low about 17-19, high about 35-36, alone about 40
WISHES = {
    **{f"sub-low-{i}": Wish("huaniao-4", huaniao_options("BASIC"), 4, -3 - i // 2, 5)
       for i in range(4)},
    **{f"sub-high-{i}": Wish("huaniao-4", huaniao_options("BASIC"), 4, 7 + i // 2, 3)
       for i in range(4)},
    **{f"sub-zipai-{i}": Wish("zipai-3", zipai(), 3, 0, 0) for i in range(3)},
    "sub-alone": Wish("huaniao-4", huaniao_options("BASIC"), 4, 20, 1, bot_wait_ms=500),
}  # fmt: skip
FIRST = ["sub-low-0", "sub-low-1", "sub-high-0", "sub-zipai-0", "sub-alone"]  # to A
SECOND = ["sub-low-2", "sub-high-1", "sub-zipai-1"]  # to B while A still lives
LAST = ["sub-low-3", "sub-high-2", "sub-high-3", "sub-zipai-2"]  # to B after A's death


def queue(lobby: Lobby, player: str) -> None:
    w = WISHES[player]
    status = lobby.queue(player, w.options, w.seats, w.window, w.bot_wait_ms)
    assert status.state == WAITING


def all_seated(lobby: Lobby, polls: int = 600) -> dict[str, lpb.QueueStatus]:
    """Poll every player until each is seated (bounded; no timing is asserted)."""
    found: dict[str, lpb.QueueStatus] = {}
    for _ in range(polls):
        for player in WISHES:
            if player not in found and (s := lobby.status(player)).state == SEATED:
                found[player] = s
        if len(found) == len(WISHES):
            return found
        time.sleep(0.05)
    missing = sorted(set(WISHES) - set(found))
    raise AssertionError(f"not seated: {missing}")


def matched_queues(server: ServerProcess) -> int:
    """How many queues the replica's log says it took the matchmaker's lease of."""
    return (server.data_dir / "server.log").read_text().count("this replica matches queue")


def formations(env: dict[str, str]) -> list[tuple[str, list[str], list[int]]]:
    """Every table the matchmakers recorded, read from the store itself."""
    store = Store.open([dict(env, PERSISTENCE_MODULE="eventsourcing.postgres", CREATE_TABLE="n")])
    try:
        app = store.shards[0]
        return [
            (e.game_id, list(e.players), list(e.bot_seats))
            for info in queues.queues(store)
            for e in app.events.get(queues.queue_id(info.key))
            if isinstance(e, queues.LobbyQueue.Formed)
        ]
    finally:
        store.close()


def test_twelve_players_two_replicas_one_killed_mid_queue(
    pg_server: PgServer, new_database: Callable[[], str], tmp_path: Path
) -> None:
    env = pg_server.env(new_database())
    migrate(env)
    store_env = dict(env, PERSISTENCE_MODULE="eventsourcing.postgres", CREATE_TABLE="n")
    mus = {p: 25.0 for p in WISHES}  # a player with no rated result: the model's default
    mus |= seed_ratings(store_env, "huaniao", {p: w.record for p, w in WISHES.items() if w.record})
    idp = IdentityProvider(tmp_path / "jwks.json")
    flags = server_flags(idp)
    a = ServerProcess(tmp_path / "a", store="postgres", env=env, extra=flags).start()
    b: ServerProcess | None = None
    try:
        on_a = Lobby(a.target, idp)
        for player in FIRST:  # A alone: its matchmaker takes every queue's lease
            queue(on_a, player)
        for _ in range(400):  # (bounded) until A's matchmaker took both queues' leases
            if matched_queues(a) == 2:
                break
            time.sleep(0.05)
        b = ServerProcess(tmp_path / "b", store="postgres", env=env, extra=flags).start()
        on_b = Lobby(b.target, idp)
        for player in SECOND:
            queue(on_b, player)
        # A matched both queues from its start; B, started later, could take neither lease
        assert matched_queues(a) == 2 and matched_queues(b) == 0
        a.stop(kill=True)  # SIGKILL: its leases go with its database connection
        on_a.close()
        for player in LAST:
            queue(on_b, player)
        statuses = all_seated(on_b)
        assert matched_queues(b) == 2  # B took both over

        tables: dict[str, dict[int, str]] = defaultdict(dict)
        for player, status in statuses.items():
            assert status.seat not in tables[status.game_id], "two players at one seat"
            tables[status.game_id][status.seat] = player
        for game_id, by_seat in tables.items():
            wishes = [WISHES[p] for p in by_seat.values()]
            assert len({w.group for w in wishes}) == 1, f"mixed wishes at {game_id}"
            tickets = [Ticket(p, mus[p], w.window, 0, 0) for p, w in zip(by_seat.values(), wishes, strict=True)]  # fmt: skip
            assert compatible(tickets), f"incompatible ratings at {game_id}"
            bots = set(statuses[by_seat[min(by_seat)]].bot_seats)
            assert set(by_seat) | bots == set(range(wishes[0].seats)), game_id
        assert statuses["sub-alone"].bot_seats == [1, 2, 3]
        assert len(tables) == 4  # low, high, zipai, the lone player with bots

        # nobody seated twice, in the store's own record, and nobody formed but these
        recorded = formations(env)
        seated_players = [p for _g, players, _b in recorded for p in players]
        assert sorted(seated_players) == sorted(player_id(ISSUER, sub) for sub in WISHES)
        assert {g for g, _p, _b in recorded} == set(tables)

        # each player takes the seat it was told of, with its login, on the survivor
        with TableClient(on_b.channel._channel.target().decode()) as client:  # type: ignore[attr-defined]
            for player, status in statuses.items():
                seat = client.join(status.game_id, status.seat, player, login=idp.token(player))
                assert seat.view().seat == status.seat
        on_b.close()
    finally:
        a.stop()
        if b is not None:
            b.stop()
