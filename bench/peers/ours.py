"""This server's side of the peer benchmark: 4-seat 花鸟风月 basic games played by
stream-driven seats, each seat on its own gRPC connection (as each peer seat has its own
WebSocket), counting what every seat receives.

A seat follows its own stream (batched, its own moves left out) and plays a random legal
move whenever a message, or its own Play reply, carries its legal moves: bench/api.py's
``stream_game``, with four seats and bytes counted. It plays on one PlaySession, its stream
and its Plays on one call (docs/api.md, "Play session"); ``session=False``: a Watch and a
unary Play per move, as before issue 38's last change (bench/notes.md compares the two). Keyed seats (the shipped default) sign
each Play over the chain hash of the version they play at, as clients/python/seat.py does.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from dataclasses import dataclass, field

import grpc

from clients.python.client import TOKEN_HEADER
from clients.python.seat import new_seat_key
from server.wire import seatsig
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.v1 import tabletop_pb2_grpc as pb_grpc

SEATS = 4
GRPC_PREFIX = 5  # a gRPC message's length prefix on the wire (flag byte + 4-byte length)
# Channels to one address share one connection unless each has its own subchannel pool:
# with it, each seat has its own TCP connection, as each peer seat has its own WebSocket.
OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1)]
# A game with no message to any seat for this long is given up and counted (a seat that
# never learns it is its turn: issue 38's point 3), so that one stall cannot hang the bench.
STALL_S = 10.0


@dataclass
class Tally:
    """What one round's clients did: games finished, moves played, bytes the seats got."""

    games: int = 0
    moves: int = 0
    bytes: int = 0
    resyncs: int = 0  # the peers' stalled games that asked for the state again
    stalls: int = 0  # this server's games given up after STALL_S without news
    parts: Counter[str] = field(default_factory=Counter)  # this server's bytes by kind

    def received(
        self,
        message: pb.WatchResponse | pb.PlayResponse,
        outer: pb.PlaySessionResponse | None = None,
    ) -> None:
        """``message`` arrived (in ``outer``, a PlaySession's message: its bytes count)."""
        size = (outer or message).ByteSize() + GRPC_PREFIX
        self.bytes += size
        self.parts.update(parts(message, size))


def parts(message: pb.WatchResponse | pb.PlayResponse, size: int) -> Counter[str]:
    """``message``'s ``size`` bytes by what carries them (field tags and lengths, the
    version and the gRPC prefix go to "the rest"): what the bytes target is up against."""
    out: Counter[str] = Counter()
    if message.HasField("receipt"):
        receipt = message.receipt
        listed = sum(h.ByteSize() for h in receipt.hashes)
        signed = len(receipt.signature) + len(receipt.view_signature)
        out["receipt: its head (format 3)"] += len(receipt.head)
        out["receipt: its lists of hashes"] += listed
        out["receipt: its two signatures"] += signed
        out["receipt: the rest (game id, versions, head and view hashes, nonce, key id)"] += (
            receipt.ByteSize() - listed - signed - len(receipt.head)
        )
    if message.HasField("legal_moves"):
        out["legal moves"] += message.legal_moves.ByteSize()
    for event in message.events:
        out["event text (the readable line)"] += len(event.text.encode())
        out["event chain hash"] += len(event.hash.encode())
        out["event time"] += event.recorded_at.ByteSize()
        body = event.WhichOneof("body")
        out["event fact"] += getattr(event, body).ByteSize() if body else 0
    out["the rest (versions, tags, lengths, the 5-byte prefix)"] += size - sum(out.values())
    return out


@dataclass
class Seat:
    token: str
    key: bytes | None


async def new_game(
    stub: pb_grpc.TableServiceStub, seed: int, keyed: bool
) -> tuple[str, list[Seat]]:
    """A started 4-seat 花鸟风月 basic table (prepared deal ``seed``); keyed seats sign."""
    options = pb.GameOptions(huaniao=huaniao_pb2.Options(mode=huaniao_pb2.MODE_BASIC))
    created = await stub.CreateGame(
        pb.CreateGameRequest(
            options=options, seat_count=SEATS, seed=seed, allow_unkeyed_seats=not keyed
        )
    )
    game_id, seats = created.game_id, []
    for s in range(SEATS):
        request = pb.JoinGameRequest(game_id=game_id, seat=s)
        key = new_seat_key() if keyed else None
        if key is not None:
            request.seat_public_key = seatsig.public_bytes(key)
            request.seat_signature.CopyFrom(seatsig.sign(key, game_id, "JoinGame", 0, "", request))
        joined = await stub.JoinGame(request)
        seats.append(Seat(joined.seat_token, key))
    start = pb.StartGameRequest(game_id=game_id)
    if seats[0].key is not None:
        start.seat_signature.CopyFrom(
            seatsig.sign(seats[0].key, game_id, "StartGame", 0, "", start)
        )
    await stub.StartGame(start, metadata=((TOKEN_HEADER, seats[0].token),))
    return game_id, seats


async def play_game(
    target: str,
    game_id: str,
    seats: list[Seat],
    rng: random.Random,
    tally: Tally,
    session: bool = True,
) -> None:
    """The four seats, until their streams end with the game, or STALL_S without news."""
    news = [time.monotonic()]
    playing = [
        asyncio.create_task(play_seat(target, game_id, s, rng, tally, news, session))
        for s in seats
    ]
    try:
        while True:
            done, pending = await asyncio.wait(playing, timeout=1.0)
            for task in done:
                task.result()  # a seat's error ends the round
            if not pending:
                return
            if time.monotonic() - news[0] > STALL_S:
                tally.stalls += 1
                print(f"peers: game {game_id} stalled, given up", flush=True)
                return
    finally:
        for task in playing:
            task.cancel()
        await asyncio.gather(*playing, return_exceptions=True)


async def play_seat(
    target: str,
    game_id: str,
    seat: Seat,
    rng: random.Random,
    tally: Tally,
    news: list[float],
    session: bool = True,
) -> None:
    """One seat on its own connection, until its stream ends with the game; ``news[0]``:
    when any seat of the game last heard from the server."""
    if session:
        return await play_seat_session(target, game_id, seat, rng, tally, news)
    async with grpc.aio.insecure_channel(target, options=OWN_CONNECTION) as channel:
        stub = pb_grpc.TableServiceStub(channel)
        md = ((TOKEN_HEADER, seat.token),)
        hashes: dict[int, str] = {}  # version -> chain hash: what a keyed seat signs over
        call = stub.Watch(
            pb.WatchRequest(game_id=game_id, batched=True, exclude_own_moves=True), metadata=md
        )
        done = 0  # the latest version this seat played from: each turn is taken once
        async for reply in call:
            news[0] = time.monotonic()
            tally.received(reply)
            note_hashes(hashes, reply)
            turn = reply.legal_moves if reply.HasField("legal_moves") else None
            while turn is not None and turn.version > done:
                done = turn.version
                request = move_request(game_id, seat, turn, rng, hashes)
                try:
                    played = await stub.Play(request, metadata=md)
                except grpc.aio.AioRpcError as err:
                    if err.code() != grpc.StatusCode.ABORTED:
                        raise
                    break  # another seat moved first: the stream brings the next turn
                news[0] = time.monotonic()
                tally.received(played)
                tally.moves += 1
                note_hashes(hashes, played)
                turn = played.legal_moves if played.HasField("legal_moves") else None


async def play_round(
    target: str, games: int, at_once: int, seed: int, keyed: bool, session: bool = True
) -> Tally:
    """``games`` games, ``at_once`` at a time; table set-up (CreateGame, JoinGame,
    StartGame) goes over one lobby connection, as the peers' lobby calls do. ``session``:
    each seat plays on a PlaySession, else with a Watch and a Play a move."""
    tally = Tally()
    started = 0
    async with grpc.aio.insecure_channel(target) as lobby:
        stub = pb_grpc.TableServiceStub(lobby)

        async def worker() -> None:
            nonlocal started
            while started < games:
                started += 1
                rng = random.Random(seed + started)
                game_id, seats = await new_game(stub, rng.randrange(1 << 30), keyed)
                await play_game(target, game_id, seats, rng, tally, session)
                tally.games += 1

        await asyncio.gather(*(worker() for _ in range(at_once)))
    return tally


def note_hashes(hashes: dict[int, str], reply: pb.WatchResponse | pb.PlayResponse) -> None:
    """The chain hashes a message shows, by version (receipts of format 3: the receipt's
    head at its last version): what a keyed seat's next Play signs over."""
    hashes.update((e.version, e.hash) for e in reply.events)
    if reply.receipt.head:
        hashes[reply.receipt.last_version] = reply.receipt.head.hex()


def move_request(
    game_id: str,
    seat: Seat,
    turn: pb.LegalMovesResponse,
    rng: random.Random,
    hashes: dict[int, str],
) -> pb.PlayRequest:
    """A random legal move at ``turn``, signed by a keyed seat over the chain hash there."""
    request = pb.PlayRequest(
        game_id=game_id, expected_version=turn.version, move=rng.choice(list(turn.moves))
    )
    if seat.key is not None:
        head = hashes.get(turn.version, "")
        request.seat_signature.CopyFrom(
            seatsig.sign(seat.key, game_id, "Play", turn.version, head, request)
        )
    return request


async def play_seat_session(
    target: str, game_id: str, seat: Seat, rng: random.Random, tally: Tally, news: list[float]
) -> None:
    """``play_seat`` on one PlaySession: the Watch request first, then each Play on the same
    stream, its reply (or refusal) coming back on it."""
    async with grpc.aio.insecure_channel(target, options=OWN_CONNECTION) as channel:
        stub = pb_grpc.TableServiceStub(channel)
        call = stub.PlaySession(metadata=((TOKEN_HEADER, seat.token),))
        watch = pb.WatchRequest(game_id=game_id, batched=True, exclude_own_moves=True)
        await call.write(pb.PlaySessionRequest(watch=watch))
        hashes: dict[int, str] = {}  # version -> chain hash: what a keyed seat signs over
        done = 0  # the latest version this seat played from: each turn is taken once
        async for message in call:
            news[0] = time.monotonic()
            which = message.WhichOneof("response")
            if which == "refused":
                if message.refused.code != grpc.StatusCode.ABORTED.value[0]:
                    raise RuntimeError(f"a Play was refused: {message.refused.message}")
                continue  # another seat moved first: the stream brings the next turn
            reply = message.watch if which == "watch" else message.played
            tally.received(reply, message)
            if which == "played":
                tally.moves += 1
            note_hashes(hashes, reply)
            turn = reply.legal_moves if reply.HasField("legal_moves") else None
            if turn is not None and turn.version > done:
                done = turn.version
                play = move_request(game_id, seat, turn, rng, hashes)
                await call.write(pb.PlaySessionRequest(play=play))
