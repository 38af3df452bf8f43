"""`tabletop bots --join GAME`: bots take the seats of a game that nobody has taken, and the
seats whose tokens they are given (`tabletop create --players` prints one per seat), deal
once every seat is taken, and play those seats to the end. So one person can play a table
of bots from another terminal: `tabletop play --game GAME --token THEIR_SEAT_TOKEN`.
"""

from __future__ import annotations

import hashlib
import hmac
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import grpc

from clients.python.bot import RandomBot, make_bot, play_by_streams
from clients.python.client import TableClient
from clients.python.seat import SeatClient
from server.wire import seatsig
from tabletop.v1 import tabletop_pb2 as pb

WAIT_SECONDS = 0.3  # between two looks at a table waiting for seats or reveals
GAME_HOURS = 24  # how long the bots wait for the people at the table to finish
SEAT_GONE = (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ALREADY_EXISTS)
NOT_YET = (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED)


@dataclass(frozen=True)
class LobbyBotSeat:
    """What a lobby table's bot sends to take its ``seat``, all derived from the table's
    secret: the JoinGame's idempotency key, the seat's Ed25519 key and its contribution to
    the deal. Every bot process given the secret sends the very same JoinGame, so one that
    starts again (its replica died: server/transport/lobbybots.py) gets the seat token back
    (the server derives it from the key), signs with the seat's key and reveals the
    contribution it committed to: it resumes the seat. As secret as the secret itself."""

    request_id: str
    seat_key: bytes
    contribution: str

    @classmethod
    def of(cls, secret: str, seat: int) -> LobbyBotSeat:
        def part(name: str) -> bytes:
            text = f"tabletop-lobby-bot-seat/1\n{name}\n{seat}".encode()
            return hmac.new(secret.encode(), text, hashlib.sha256).digest()

        request_id = str(uuid.UUID(bytes=part("request-id")[:16], version=4))
        return cls(request_id, part("seat-key"), part("contribution").hex()[:32])


def seat_bots(
    client: TableClient,
    game_id: str,
    tokens: Iterable[str],
    policy: str,
    seed: int,
    lobby_bot: str | None = None,
) -> list[RandomBot]:
    """Bots at the seats of ``tokens`` and at every seat still free (``ValueError`` when
    that leaves them none, or a token is not a seat's)."""
    view = client.as_viewer(game_id).view()
    if view.phase == pb.GAME_PHASE_FINISHED:
        raise ValueError(f"game {game_id} has ended: there is nothing left to play")
    seats = [given_seat(client, game_id, token) for token in tokens]
    for info in view.seats:
        ours = bool(lobby_bot) and bytes(info.public_key) == _lobby_key(lobby_bot, info.seat)
        if (info.taken and ours) or (not info.taken and view.phase == pb.GAME_PHASE_WAITING):
            taken = take_free_seat(client, game_id, info.seat, lobby_bot)  # (ours: resumed)
            if taken is not None:
                seats.append(taken)
    if not seats:
        raise ValueError(
            f"game {game_id} has no free seat: give the tokens of the seats the bots should "
            "play with --token (`tabletop create --players` prints them)"
        )
    return [make_bot(s, policy, seed + (s.seat or 0)) for s in seats]


def given_seat(client: TableClient, game_id: str, token: str) -> SeatClient:
    seat = client.as_viewer(game_id, token)
    view = seat.view()
    if view.role != pb.ROLE_SEAT or not view.HasField("seat"):
        raise ValueError("a --token is not a seat's token (the arbiter's plays no seat)")
    seat.seat = view.seat
    return seat


def take_free_seat(
    client: TableClient, game_id: str, seat: int, lobby_bot: str | None = None
) -> SeatClient | None:
    """Join ``seat`` as ``bot-N`` (committing to a fresh contribution); None if somebody
    took it first, or it is reserved for another. ``lobby_bot``: the table's secret, for
    the seats a lobby table reserved for the server's bots: the join is then derived from
    it (``LobbyBotSeat``), and resumes the seat if this bot's table took it already."""
    try:
        if lobby_bot:  # the same request every time: a seat already taken is resumed
            own = LobbyBotSeat.of(lobby_bot, seat)
            return client.join(
                game_id,
                seat,
                f"bot-{seat}",
                contribution=own.contribution,
                request_id=own.request_id,
                seat_key=own.seat_key,
                lobby_bot=lobby_bot,
            )
        return client.join(game_id, seat, f"bot-{seat}")
    except grpc.RpcError as err:
        if err.code() in SEAT_GONE:
            return None
        raise


def _lobby_key(secret: str | None, seat: int) -> bytes:
    """The public key a lobby bot's ``seat`` joins with (to find the seats it holds)."""
    return seatsig.public_bytes(LobbyBotSeat.of(secret, seat).seat_key) if secret else b""


def deal_when_seated(bots: list[RandomBot], say: Callable[[str], None]) -> None:
    """Wait until every seat is taken, reveal the bots' contributions, and deal (once every
    committed seat has revealed; nobody stands in for a seat); return once it is dealt, or
    once the draw was abandoned and the game is void."""
    viewer = bots[0].seat
    told = revealed = False
    while True:
        view = viewer.view()
        if view.phase != pb.GAME_PHASE_WAITING:
            return
        free = [str(s.seat) for s in view.seats if not s.taken]
        if free and not told:
            say(f"waiting for seats {', '.join(free)} to be taken before the deal")
            told = True
        if not free:
            if not revealed:
                for bot in bots:
                    bot.seat.reveal()
                revealed = True
            try:
                viewer.start()
            except grpc.RpcError as err:  # a person's reveal is pending, or they dealt first
                if err.code() not in NOT_YET:
                    raise
        time.sleep(WAIT_SECONDS)


def play_joined(bots: list[RandomBot], delay_ms: int = 0) -> int:
    """Play the bots' seats to the end, each from its own stream; returns their moves.
    ``delay_ms``: how long a bot waits before answering a person's move (误操作 stays
    possible meanwhile)."""
    return play_by_streams(bots, timeout=GAME_HOURS * 3600.0, delay_ms=delay_ms)
