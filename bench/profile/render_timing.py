"""Per-viewer render timing, in process: what the sealer's rendering of a move costs.

At the end of each move the sealer renders the move's events for every viewer (each seat,
a spectator, the arbiter: ``server.wire.receipts.render_move``), hashes those renderings and
signs (docs/benchmarks.md, P6); views are rendered and signed only when asked for (before
issue 26 every viewer's view was rendered too, and ``view`` parts were timed here). This plays the
bench's seeded random games of each game kind through an in-memory ``TableServer`` with a
real ``Sealer`` (the game loop of bench/receipts.py, on eventsourcing's in-memory store) and
times, in the CPU time of the rendering thread, each move's ``render_move`` and the whole
seal. Rounds are interleaved across the game kinds, each round playing the same seeds again
from scratch (new states, so no view is remembered from an earlier round); the figure is the
fastest round, the least disturbed by other work on the machine (the median is shown too).

Example: ``python -m bench.profile.render_timing --games 12 --rounds 5``.
"""

from __future__ import annotations

import asyncio
import statistics
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

from bench.profile import parser
from bench.receipts import GAMES
from bench.receipts import _play as play_bench_game
from domain import table as tables
from domain.engine import Viewer
from domain.table import records
from server.startup.compose import table_server
from server.store.eventstore import TableApplication
from server.wire import receipts, render
from server.wire.receipts import Sealer
from server.wire.signing import Signer
from server.wire.stored import StoredEvent


@dataclass
class Round:
    moves: int = 0  # moves sealed (the table's opening included: it is sealed too)
    render: float = 0.0  # CPU seconds in render_move
    seal: float = 0.0  # CPU seconds in the whole seal (render, hashes, signature)
    parts: dict[tuple[str, str], float] = field(default_factory=dict)  # (role, part): seconds


class TimedSealer(Sealer):
    """A ``Sealer`` that adds the CPU time of each seal to ``round``."""

    def __init__(self, signer: Signer) -> None:
        super().__init__(signer)
        self.round = Round()

    def __call__(
        self, game_id: uuid.UUID, table: tables.Table, head: str, move: list[StoredEvent]
    ) -> receipts.Seal:
        began = time.thread_time()
        try:
            return super().__call__(game_id, table, head, move)
        finally:
            self.round.seal += time.thread_time() - began
            self.round.moves += 1


@contextmanager
def timed_render(into: Callable[[], Round]) -> Iterator[None]:
    """``receipts.render_move`` (which the sealer calls) timed into ``into()``'s round, and
    within it each viewer's events and view (``render.events_proto``, ``render.view_proto``)
    by the viewer's role. The renderings made outside sealing (replies, views) are not
    counted."""
    render_move, events_proto, view_proto = (
        receipts.render_move,
        render.events_proto,
        render.view_proto,
    )
    sealing = [False]

    def timed(*args: Any) -> receipts.Rendered:
        began = time.thread_time()
        sealing[0] = True
        try:
            return render_move(*args)
        finally:
            sealing[0] = False
            into().render += time.thread_time() - began

    def part(name: str, fn: Callable[..., Any], viewer: Callable[..., Viewer]) -> Any:
        def timed_part(*args: Any, **kwargs: Any) -> Any:
            if not sealing[0]:
                return fn(*args, **kwargs)
            began = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                parts = into().parts
                key = (viewer(*args).role.name.lower(), name)
                parts[key] = parts.get(key, 0.0) + time.thread_time() - began

        return timed_part

    with (
        mock.patch.object(receipts, "render_move", timed),
        mock.patch.object(render, "events_proto", part("events", events_proto, lambda *a: a[2])),
        mock.patch.object(render, "view_proto", part("view", view_proto, lambda s: s.seen_by)),
    ):
        yield


def one_round(kind: str, seats: int, seeds: range, signer: Signer) -> Round:
    """The games ``seeds`` of ``kind`` played once, from a fresh server and store."""
    sealer = TimedSealer(signer)
    ts = table_server(
        TableApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}),
        sealer=sealer,
        allow_prepared_deals=True,  # seeded tables: the same games in every round
    )

    async def play() -> None:
        for seed in seeds:
            await play_bench_game(ts, kind, seats, seed, watched=False)

    try:
        with timed_render(lambda: sealer.round):
            asyncio.run(play())
    finally:
        ts.games.close()
    return sealer.round


def _us(rounds: list[Round], seconds: list[float], per: int = 1) -> str:
    """The fastest round's µs per move (and per ``per`` viewers), with the median:
    ``seconds`` holds each round's."""
    each = [s / r.moves / per * 1e6 for r, s in zip(rounds, seconds, strict=True)]
    return f"{min(each):,.0f} ({statistics.median(each):,.0f})"


def measure(games: int, rounds: int, seed: int) -> list[str]:
    seeds = range(seed, seed + games)
    signer = Signer.generate()
    kept: dict[str, list[Round]] = {kind: [] for kind, _ in GAMES}
    for _ in range(rounds):
        for kind, seats in GAMES:  # interleaved: each round plays every kind
            kept[kind].append(one_round(kind, seats, seeds, signer))
    lines = [
        f"Seeds {seeds.start}..{seeds.stop - 1} of each kind, {rounds} interleaved rounds. CPU "
        "µs of the rendering thread per sealed move (the table's opening included), in the "
        "fastest round (the median round in brackets).",
        "",
        "| game | seats | viewers | moves | render µs/move | render µs/viewer | seal µs/move |",
        "|---|---|---|---|---|---|---|",
    ]
    for kind, seats in GAMES:
        done, viewers = kept[kind], len(records.receipt_viewers(seats))
        render_s, seal_s = [r.render for r in done], [r.seal for r in done]
        lines.append(
            f"| {kind} | {seats} | {viewers} | {done[0].moves} | {_us(done, render_s)} | "
            f"{_us(done, render_s, viewers)} | {_us(done, seal_s)} |"
        )
    lines += [
        "",
        "Per viewer of each role, µs per move: its events and its view after the move (a "
        "fact every viewer sees alike is rendered for the first viewer, seat 0, and shared).",
        "",
        "| game | viewer | events µs | view µs |",
        "|---|---|---|---|",
    ]
    for kind, seats in GAMES:
        for role, count in (("seat", seats), ("spectator", 1), ("arbiter", 1)):
            done = kept[kind]
            events = [r.parts.get((role, "events"), 0.0) for r in done]
            view = [r.parts.get((role, "view"), 0.0) for r in done]
            lines.append(
                f"| {kind} | {role} | {_us(done, events, count)} | {_us(done, view, count)} |"
            )
    return lines


def main(argv: list[str] | None = None) -> None:
    p = parser("render_timing", __doc__)
    p.add_argument("--games", type=int, default=8, help="games per kind a round (default 8)")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    p.add_argument("--seed", type=int, default=1000, help="the first game's seed (default 1000)")
    args = p.parse_args(argv)
    print("\n".join(measure(args.games, args.rounds, args.seed)), flush=True)


if __name__ == "__main__":
    main()
