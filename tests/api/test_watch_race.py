"""Four seat streams opened and the first move made at once, with no barrier between them,
through a real gRPC server (issue 38: 2 of 64 games used to hang at the first move, the
seat to act next never told on its stream). tests/server/test_watch_race.py holds the
deterministic and randomized versions of the race."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import grpc

from clients.python.client import TableClient
from clients.python.serverproc import ServerProcess
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.v1 import tabletop_pb2_grpc as pb_grpc
from tests.api.helpers import seated_game

GAMES = 64
AT_ONCE = 16
MOVES = 8  # moves played from the streams in each game after the first
GAME_TIMEOUT = 30.0  # seconds: a game that has not got there by then hangs


def _game_moves(legal: pb.LegalMovesResponse) -> list[pb.Move]:
    moves = list(legal.moves)
    return [m for m in moves if m.WhichOneof("game") != "table"] or moves


async def _one_game(stub: Any, gid: str, tokens: list[str], rng: random.Random) -> None:
    def token(seat: int) -> tuple[tuple[str, str]]:
        return (("x-seat-token", tokens[seat]),)

    # the first move is known before the streams open, and played as they open
    view = await stub.GetView(pb.GetViewRequest(game_id=gid), metadata=token(0))
    first = view.view.to_act[0]
    legal = await stub.LegalMoves(pb.LegalMovesRequest(game_id=gid), metadata=token(first))
    request = pb.WatchRequest(game_id=gid, batched=True)
    streams = [stub.Watch(request, metadata=token(s)) for s in range(len(tokens))]
    played: set[int] = set()  # the versions a move was played from (each turn once)
    goal: list[int] = []  # the version once MOVES moves were played
    moves = [0]

    async def play(seat: int, legal: pb.LegalMovesResponse) -> None:
        while legal.moves and legal.version not in played:  # (on past the goal: a stream
            # that got the goal's version before the goal was known reads on to the next)
            played.add(legal.version)
            move = rng.choice(_game_moves(legal))
            try:
                reply = await stub.Play(
                    pb.PlayRequest(game_id=gid, expected_version=legal.version, move=move),
                    metadata=token(seat),
                )
            except grpc.aio.AioRpcError as exc:
                assert exc.code() is grpc.StatusCode.ABORTED, exc
                return
            moves[0] += 1
            if moves[0] >= MOVES and not goal:
                goal.append(reply.version)
            legal = reply.legal_moves

    async def follow(seat: int) -> list[int]:
        versions: list[int] = []
        async for msg in streams[seat]:
            versions.extend(e.version for e in msg.events)
            if msg.HasField("legal_moves"):
                assert msg.legal_moves.version == versions[-1]
                await play(seat, msg.legal_moves)
            if goal and versions[-1] >= goal[0]:
                break
        streams[seat].cancel()
        return versions

    readers = [asyncio.ensure_future(follow(s)) for s in range(len(tokens))]
    await play(first, legal)  # at once: no barrier after opening the streams
    try:
        seen = await asyncio.wait_for(asyncio.gather(*readers), GAME_TIMEOUT)
    except TimeoutError:
        for reader in readers:
            reader.cancel()
        raise AssertionError(f"game {gid} hung after {moves[0]} moves") from None
    if not goal:  # the game ended first: every stream ended with it, at its last version
        end = await stub.GetView(pb.GetViewRequest(game_id=gid), metadata=token(0))
        assert end.view.phase == pb.GAME_PHASE_FINISHED
        goal.append(end.view.version)
    for versions in seen:
        assert versions == list(range(1, len(versions) + 1))  # no gap, no duplicate
        assert versions[-1] >= goal[0]


def test_four_streams_and_the_first_move_at_once_never_hang(server: ServerProcess) -> None:
    seed = random.randrange(1 << 30)
    print(f"seed {seed}")
    rng = random.Random(seed)
    with TableClient(server.target) as client:
        tables = []
        for i in range(GAMES):
            gid, players, _arbiter = seated_game(client, seed + i, keyed=False)
            tables.append((gid, [p.token or "" for p in players]))

    async def run() -> None:
        async with grpc.aio.insecure_channel(server.target) as channel:
            stub = pb_grpc.TableServiceStub(channel)
            for start in range(0, GAMES, AT_ONCE):
                await asyncio.gather(
                    *(_one_game(stub, gid, tokens, rng) for gid, tokens in tables[start:][:AT_ONCE])
                )

    asyncio.run(run())
