"""P1: Play throughput end to end over gRPC against a no-op RPC on the same server.

The server is a separate process on SQLite (durable commits). The load generator is one
grpc.aio client process with C concurrent games; every move is LegalMoves + Play, so the
baseline is two no-op RPCs (the standard health Check) per iteration at the same
concurrency. Both share the machine's 2 cores with the server.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from clients.python.client import TOKEN_HEADER
from clients.python.serverproc import ServerProcess
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.v1 import tabletop_pb2_grpc as pb_grpc


async def _noop_rate(target: str, concurrency: int, seconds: float) -> float:
    async with grpc.aio.insecure_channel(target) as ch:
        stub = health_pb2_grpc.HealthStub(ch)
        done = 0
        stop = time.perf_counter() + seconds

        async def worker() -> None:
            nonlocal done
            while time.perf_counter() < stop:
                await stub.Check(health_pb2.HealthCheckRequest())
                await stub.Check(health_pb2.HealthCheckRequest())
                done += 1

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return done / (time.perf_counter() - start)


async def _new_game(stub: pb_grpc.TableServiceStub, seed: int) -> tuple[str, list[str]]:
    options = pb.GameOptions(huaniao=huaniao_pb2.Options(mode=huaniao_pb2.MODE_BASIC))
    created = await stub.CreateGame(pb.CreateGameRequest(options=options, seat_count=4, seed=seed))
    tokens = []
    for s in range(4):
        joined = await stub.JoinGame(pb.JoinGameRequest(game_id=created.game_id, seat=s))
        tokens.append(joined.seat_token)
    await stub.StartGame(
        pb.StartGameRequest(game_id=created.game_id), metadata=((TOKEN_HEADER, tokens[0]),)
    )
    return created.game_id, tokens


async def _play_rate(target: str, concurrency: int, seconds: float) -> tuple[float, list[float]]:
    async with grpc.aio.insecure_channel(target) as ch:
        stub = pb_grpc.TableServiceStub(ch)
        moves = 0
        latencies: list[float] = []
        stop = time.perf_counter() + seconds
        games = await asyncio.gather(*(_new_game(stub, 1000 + i) for i in range(concurrency)))

        async def worker(i: int) -> None:
            nonlocal moves
            rng = random.Random(i)
            game_id, tokens = games[i]
            view = await stub.GetView(pb.GetViewRequest(game_id=game_id))
            to_act = list(view.view.to_act)
            while time.perf_counter() < stop:
                if not to_act:
                    game_id, tokens = await _new_game(stub, rng.randrange(1 << 30))
                    to_act = list(
                        (await stub.GetView(pb.GetViewRequest(game_id=game_id))).view.to_act
                    )
                    continue
                md = ((TOKEN_HEADER, tokens[to_act[0]]),)
                legal = await stub.LegalMoves(pb.LegalMovesRequest(game_id=game_id), metadata=md)
                t0 = time.perf_counter()
                reply = await stub.Play(
                    pb.PlayRequest(
                        game_id=game_id,
                        expected_version=legal.version,
                        move=rng.choice(list(legal.moves)),
                    ),
                    metadata=md,
                )
                latencies.append(time.perf_counter() - t0)
                moves += 1
                to_act = list(reply.to_act)

        start = time.perf_counter()
        await asyncio.gather(*(worker(i) for i in range(concurrency)))
        return moves / (time.perf_counter() - start), latencies


def api_section(quick: bool) -> list[str]:
    seconds = 3.0 if quick else 10.0
    lines = [
        "## P1: Play throughput over gRPC (SQLite, durable commits)",
        "",
        "Each move is LegalMoves + Play; the baseline is two no-op health Checks per "
        "iteration at the same concurrency on the same server. Target: ratio >= 0.6 and "
        "Play p99 < 20 ms at 200 concurrent games.",
        "",
        "| concurrent games | no-op pairs/s | moves/s | ratio | Play p50 ms | Play p99 ms |",
        "|---|---|---|---|---|---|",
    ]
    with ServerProcess() as server:
        for concurrency in (8, 64, 200):
            noop = asyncio.run(_noop_rate(server.target, concurrency, seconds))
            rate, lat = asyncio.run(_play_rate(server.target, concurrency, seconds))
            q = statistics.quantiles(lat, n=100)
            lines.append(
                f"| {concurrency} | {noop:,.0f} | {rate:,.0f} | {rate / noop:.2f} | "
                f"{q[49] * 1000:.1f} | {q[98] * 1000:.1f} |"
            )
            print(lines[-1], flush=True)
    return lines
