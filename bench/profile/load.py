"""The load the profiling tools put on a server: the bench's own (bench/api.py), so that a
profile shows what the P1 figures measure."""

from __future__ import annotations

import argparse
import time

from bench.api import Window, play_rate, stream_rate

LOADS = ("stream", "closed", "peers")


def add_load_arguments(p: argparse.ArgumentParser, window: str) -> None:
    """--games, --seconds (of ``window``) and --load, for the tools that drive a server."""
    p.add_argument("--games", type=int, default=64, help="concurrent games (default 64)")
    p.add_argument("--seconds", type=float, default=10.0, help=f"{window} (default 10)")
    p.add_argument(
        "--load",
        choices=LOADS,
        default="stream",
        help="stream (the default): each seat follows its Watch and plays from it (Watch + "
        "Play, bench P1's stream-driven rows); closed: LegalMoves + Play in a closed loop "
        "(bench P1's other rows); peers: the peer bench's 4-seat keyed games, set-up, "
        "connections and streams included (bench/peers/ours.py; --games at a time)",
    )


def pool_size(seconds: float, games: int) -> int:
    """Games opened before the window, so that it holds moves only (as bench/cpu.py)."""
    return int(seconds * 2500 / 50) + games


async def drive(
    target: str, load: str, games: int, seconds: float, window: Window | None = None
) -> float:
    """``load`` in ``games`` concurrent 2-seat 花鸟风月 games on ``target`` for ``seconds``
    after the pool of games is open; ``window`` is told when the timed part starts and
    stops. Returns moves per second."""
    if load == "peers":
        return await peers_rate(target, games, seconds, window)
    pool = pool_size(seconds, games)
    if load == "stream":
        rate, _ = await stream_rate(target, games, seconds, pool, window=window)
        return rate
    errors: list[str] = []
    rate, _ = await play_rate(target, games, seconds, pool, errors, window=window)
    if errors:
        print(f"{len(errors)} moves failed, e.g. {errors[0]}", flush=True)
    return rate


async def peers_rate(target: str, at_once: int, seconds: float, window: Window | None) -> float:
    """The peer bench's rounds (bench/peers/ours.py: 4-seat keyed games, ``at_once`` at a
    time, each from CreateGame to its streams' end) until ``seconds`` have passed: all of a
    game's cost is in the window, as in the I38 table. Returns moves per second."""
    from bench.peers.ours import play_round

    moves, rounds = 0, 0
    start = time.perf_counter()
    if window:
        window.start()
    while time.perf_counter() - start < seconds:
        tally = await play_round(target, at_once * 3, at_once, 3800 + 1000 * rounds, True)
        moves, rounds = moves + tally.moves, rounds + 1
    wall = time.perf_counter() - start
    if window:
        window.stop()
    return moves / wall
