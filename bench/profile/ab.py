"""Two versions of the server, one load: the server CPU a move of each, in alternating rounds.

A change's effect on a move's CPU is a few percent, and a round on these shared cores swings
by more (±15%), so the two versions are measured side by side: two server processes, each
started from its own checkout (``--before DIR``, ``--after DIR``: a ``git worktree`` of each
commit), on SQLite with the bench's flags, then rounds of the peer bench's own load
(bench/peers/ours.py ``play_round``: seeded 4-seat keyed 花鸟风月 games on their own
connections, ``--games`` a round, ``--at-once`` at a time) against each in turn, the order
alternating. Per round: each server's CPU (``/proc``, all threads) over its moves, and their
ratio; at the end the medians. Read the median of the ratios.

Example: ``git worktree add --detach /tmp/before HEAD~1`` then
``python -m bench.profile.ab --before /tmp/before --after . --rounds 8``.
"""

from __future__ import annotations

import asyncio
import statistics
from contextlib import ExitStack
from pathlib import Path

from bench.common import SERVER_FLAGS
from bench.cpu import cpu_seconds
from bench.peers import ours
from bench.profile import parser
from clients.python.serverproc import ServerProcess


def main(argv: list[str] | None = None) -> None:
    p = parser("ab", __doc__)
    p.add_argument("--before", type=Path, required=True, help="the checkout measured first")
    p.add_argument("--after", type=Path, required=True, help="the checkout compared with it")
    p.add_argument("--before-python", help="the interpreter of the first (default: this one)")
    p.add_argument("--after-python", help="the interpreter of the second (default: this one)")
    p.add_argument(
        "--before-plays",
        choices=("session", "unary"),
        default="session",
        help="how the first's seats play: on a PlaySession, or a Watch and a unary Play",
    )
    p.add_argument("--after-plays", choices=("session", "unary"), default="session")
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--games", type=int, default=24, help="games a round on each server")
    p.add_argument("--at-once", type=int, default=8)
    p.add_argument("--flags", default="", help="more server flags for both")
    args = p.parse_args(argv)
    flags = [*SERVER_FLAGS, *args.flags.split()]
    cpu: list[list[float]] = [[], []]
    with ExitStack() as stack:
        servers = [
            stack.enter_context(ServerProcess(extra=flags, cwd=checkout.resolve(), python=python))
            for checkout, python in (
                (args.before, args.before_python),
                (args.after, args.after_python),
            )
        ]
        for r in range(args.rounds):
            for i in (0, 1) if r % 2 == 0 else (1, 0):
                server = servers[i]
                assert server.proc is not None
                began = cpu_seconds(server.proc.pid)
                seed = 3800 + 1000 * r
                plays = (args.before_plays, args.after_plays)[i]
                tally = asyncio.run(
                    ours.play_round(
                        server.target, args.games, args.at_once, seed, True, plays == "session"
                    )
                )
                cpu[i].append((cpu_seconds(server.proc.pid) - began) / tally.moves * 1e6)
            before, after = cpu[0][-1], cpu[1][-1]
            print(f"round {r}: before {before:,.0f} µs a move, after {after:,.0f}, "
                  f"after ÷ before {after / before:.3f}", flush=True)  # fmt: skip
    ratios = [b / a for a, b in zip(*cpu, strict=True)]
    print(
        f"medians: before {statistics.median(cpu[0]):,.0f} µs a move, after "
        f"{statistics.median(cpu[1]):,.0f}; after ÷ before {statistics.median(ratios):.3f} "
        f"({min(ratios):.3f}–{max(ratios):.3f}) over {args.rounds} rounds"
    )


if __name__ == "__main__":
    main()
