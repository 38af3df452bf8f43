"""What each kind of call costs the server before any game work: the floors under P1 (issue 26).

One server process (as bench P1 starts it); ``--games`` concurrent callers; for each kind of
call below, the server's CPU (utime + stime of the process, all threads, ``/proc/PID/stat``)
over a window of ``--seconds``, divided by the calls. The kinds are interleaved round after
round (``--rounds``) and each figure is the median of the rounds', with the ratio to the
no-op health Check measured in the same round:

* ``no-op``: the standard health Check, the unit of bench P1.
* ``cheapest unary``: a spectator's LegalMoves on a started game (cached: it is answered
  with an empty list). Our whole call path (auth, limits, metrics, the log line, the
  servicer) with no game work.
* ``refused``: LegalMoves of a game id no game has (NOT_FOUND, with the store read that
  finds nothing and the rich status).
* ``Watch, 1 move``: a seat's Watch (batched, exclude_own_moves) opened after the game's
  last move but one, read until that move's message arrives, then cancelled.
* ``Watch, whole history``: the same from version 0: a fresh game's whole opening.
* ``raw grpc.aio ...``: the baseline of bench P2 (bench/fanout.py), a bare grpc.aio server in
  a process of its own: its health Check, a server stream read for its first message and
  cancelled, and a message sent on an open bidi stream and its answer read, in no-op RPCs
  of that server. What a stream costs gRPC itself, and what a call would cost as a message
  on a stream already open (issue 38: a Play is a unary call).

A stream-driven move (bench P1) is one Play, about one stream message to the other seat,
and its share of the Watch opens (two a game); this tool says how much of the target of 4
no-op RPCs those take before a move decides, records, seals or commits anything.

Example: ``python -m bench.profile.floors --games 16 --seconds 3 --rounds 3``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bench.api import open_games
from bench.common import SERVER_FLAGS
from bench.cpu import CpuMeter
from bench.fanout import ECHO, SUBSCRIBE, _identity, baseline_server
from clients.python.client import TOKEN_HEADER
from clients.python.serverproc import ServerProcess
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.v1 import tabletop_pb2_grpc as pb_grpc

UNKNOWN_GAME = "00000000-0000-4000-8000-000000000000"
Game = tuple[str, str, int]  # id, seat 0's token, latest version


def kinds(
    stub: pb_grpc.TableServiceStub, health: health_pb2_grpc.HealthStub
) -> dict[str, Callable[[Game], Awaitable[int]]]:
    """Each kind of call, made once on a game: returns the messages it received."""

    async def noop(game: Game) -> int:
        await health.Check(health_pb2.HealthCheckRequest())
        return 1

    async def cheapest(game: Game) -> int:
        await stub.LegalMoves(pb.LegalMovesRequest(game_id=game[0]))
        return 1

    async def refused(game: Game) -> int:
        try:
            await stub.LegalMoves(pb.LegalMovesRequest(game_id=UNKNOWN_GAME))
        except grpc.aio.AioRpcError as e:
            assert e.code() is grpc.StatusCode.NOT_FOUND, e
        return 1

    def watch(after: Callable[[int], int]) -> Callable[[Game], Awaitable[int]]:
        async def opened(game: Game) -> int:
            game_id, token, version = game
            call = stub.Watch(
                pb.WatchRequest(
                    game_id=game_id,
                    after_version=after(version),
                    batched=True,
                    exclude_own_moves=True,
                ),
                metadata=((TOKEN_HEADER, token),),
            )
            received = 0
            async for message in call:
                received += 1
                if message.events and message.events[-1].version >= version:
                    break
            call.cancel()
            return received

        return opened

    return {
        "no-op": noop,
        "cheapest unary": cheapest,
        "refused": refused,
        "Watch, 1 move": watch(lambda version: version - 1),
        "Watch, whole history": watch(lambda version: 0),
    }


def raw_kinds(channel: grpc.aio.Channel) -> dict[str, Callable[[Game], Awaitable[int]]]:
    """The baseline server's no-op, and its stream opened for one message."""
    health = health_pb2_grpc.HealthStub(channel)
    subscribe = channel.unary_stream(
        SUBSCRIBE, request_serializer=_identity, response_deserializer=_identity
    )

    async def noop(game: Game) -> int:
        await health.Check(health_pb2.HealthCheckRequest())
        return 1

    async def stream(game: Game) -> int:
        call = subscribe(game[0].encode()[:16])
        async for _ in call:  # its first message ("ready")
            break
        call.cancel()
        return 1

    echo = channel.stream_stream(
        ECHO, request_serializer=_identity, response_deserializer=_identity
    )
    echoes: dict[str, Any] = {}  # each caller's bidi stream, opened by its first message

    async def message(game: Game) -> int:
        call = echoes.get(game[0])
        if call is None:
            call = echoes[game[0]] = echo()
        await call.write(b"x" * 100)
        await call.read()
        return 1

    return {
        "raw grpc.aio: no-op": noop,
        "raw grpc.aio: a stream's first message": stream,
        "raw grpc.aio: a message and its answer on an open bidi stream": message,
    }


async def window(
    call: Callable[[Game], Awaitable[int]],
    games: list[Game],
    meter: CpuMeter,
    callers: int,
    seconds: float,
) -> tuple[float, float]:
    """Server CPU µs per call over one window, and the messages a call received."""
    calls = messages = 0
    stop = time.perf_counter() + seconds

    async def caller(i: int) -> None:
        nonlocal calls, messages
        n = i
        while time.perf_counter() < stop:
            got = await call(games[n % len(games)])  # (not += await: callers interleave)
            messages += got
            calls += 1
            n += callers

    meter.start()
    await asyncio.gather(*(caller(i) for i in range(callers)))
    meter.stop()
    return meter.seconds / max(1, calls) * 1e6, messages / max(1, calls)


async def measure(
    target: str, pid: int, raw: tuple[str, int], callers: int, seconds: float, rounds: int
) -> list[str]:
    async with (
        grpc.aio.insecure_channel(target) as channel,
        grpc.aio.insecure_channel(raw[0]) as raw_channel,
    ):
        stub = pb_grpc.TableServiceStub(channel)
        opened = await open_games(stub, max(64, callers), 100)
        games: list[Game] = []
        for game_id, tokens in opened:
            view = await stub.GetView(
                pb.GetViewRequest(game_id=game_id), metadata=((TOKEN_HEADER, tokens[0]),)
            )
            games.append((game_id, tokens[0], view.view.version))
        # each server's calls, read against that server's own no-op (the first of its calls)
        servers = [
            (kinds(stub, health_pb2_grpc.HealthStub(channel)), CpuMeter(pid)),
            (raw_kinds(raw_channel), CpuMeter(raw[1])),
        ]
        cost: dict[str, list[float]] = {name: [] for calls, _ in servers for name in calls}
        ratio: dict[str, list[float]] = {name: [] for name in cost}
        received: dict[str, float] = {}
        for _ in range(rounds):
            for calls, meter in servers:
                this_round: dict[str, float] = {}
                for name, call in calls.items():
                    this_round[name], received[name] = await window(
                        call, games, meter, callers, seconds
                    )
                noop = next(iter(this_round.values()))
                for name, us in this_round.items():
                    cost[name].append(us)
                    ratio[name].append(us / noop)
    lines = [
        f"{callers} callers, {rounds} rounds of {seconds:g} s windows; a fresh game's "
        f"latest version is {games[0][2]}.",
        "",
        "| call | server CPU µs per call | in no-op RPCs | messages per call | rounds (no-op RPCs) |",
        "|---|---|---|---|---|",
    ]
    for name in cost:
        rounds_text = ", ".join(f"{r:.2f}" for r in ratio[name])
        lines.append(
            f"| {name} | {statistics.median(cost[name]):,.0f} | "
            f"{statistics.median(ratio[name]):.2f} | {received[name]:.1f} | {rounds_text} |"
        )
    return lines


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        prog="python -m bench.profile.floors",
        description="Server CPU per call of each kind (no-op, our cheapest unary, a refusal, "
        "Watch opens), in no-op RPCs: the floors under bench P1.",
    )
    p.add_argument("--games", type=int, default=16, help="concurrent callers (default 16)")
    p.add_argument("--seconds", type=float, default=3.0, help="each window (default 3)")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    args = p.parse_args(argv)
    with ServerProcess(extra=SERVER_FLAGS) as server, baseline_server() as raw:
        assert server.proc is not None
        lines = asyncio.run(
            measure(server.target, server.proc.pid, raw, args.games, args.seconds, args.rounds)
        )
    print("\n".join(lines))


if __name__ == "__main__":
    main()
