"""P3: rebuild time of a game at a version: store read + nearest snapshot + evolve.

Games of 100, 1,000 and 5,000 events are made with ``bench.passgame``, whose state does not
grow with its length (the test fake game keeps every discard, so its rebuild would grow for
reasons that have nothing to do with the store), saved through the group committer (which
takes the snapshots), and rebuilt at the version just before a snapshot, the worst case:
one snapshot plus SNAPSHOT_INTERVAL - 1 events to replay through ``evolve``. The ratio is to
the 100-event game in the same run; full replay without snapshots is shown for contrast.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from functools import partial
from pathlib import Path
from typing import cast

from eventsourcing.domain import CanMutateProtocol

from bench import targets
from bench.common import pass_game, pass_move, pg_env, postgres, sized
from server.store.commit import GroupCommitter
from server.store.eventstore import SNAPSHOT_INTERVAL, GameAggregate, TableApplication

SIZES = (100, 1000, 5000)


def _store_game(committer: GroupCommitter, events: int, step: int = 25) -> GameAggregate:
    """A pass game stored up to exactly ``events`` events, ``step`` moves per transaction."""
    agg = pass_game(events)  # long enough never to end here
    committer.submit(agg).result()
    while agg.version < events:
        agg = agg.fork()
        for _ in range(min(step, events - agg.version)):
            pass_move(agg)
        committer.submit(agg).result()
    assert agg.version == events, agg.version
    return agg


def _replay(app: TableApplication, agg: GameAggregate, version: int) -> GameAggregate:
    """Every event from the first, no snapshot: what snapshots save."""
    rebuilt: GameAggregate | None = None
    for event in app.events.get(agg.id, lte=version):
        # the store types its events as DomainEventProtocol; a game's mutate its aggregate
        rebuilt = cast("CanMutateProtocol[GameAggregate]", event).mutate(rebuilt)
    assert rebuilt is not None
    return rebuilt


def _interleaved_ms(fns: list[Callable[[], object]], repeat: int) -> list[float]:
    """Median ms of each fn, measured in interleaved rounds so drift hits all alike."""
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            samples[i].append(time.perf_counter() - t0)
    return [statistics.median(s) * 1000 for s in samples]


def _rows(app: TableApplication, label: str, repeat: int, sizes: tuple[int, ...]) -> list[str]:
    committer = GroupCommitter(app)
    try:
        games = [_store_game(committer, n) for n in sizes]
    finally:
        committer.close()
    get = app.repository.get
    worst = [(g.version // SNAPSHOT_INTERVAL) * SNAPSHOT_INTERVAL - 1 for g in games]
    pairs = list(zip(games, worst, strict=True))
    at_worst = _interleaved_ms([partial(get, g.id, version=v) for g, v in pairs], repeat)
    latest = _interleaved_ms([partial(get, g.id) for g in games], repeat)
    full = _interleaved_ms([partial(_replay, app, g, v) for g, v in pairs], max(3, repeat // 10))
    targets.at_most(f"P3 {label} worst-case rebuild at 5,000 events", at_worst[-1], 3, " ms")
    targets.at_most(f"P3 {label} rebuild 5,000 vs 100 events", at_worst[-1] / at_worst[0], 1.5)
    rows = []
    for i, g in enumerate(games):
        rows.append(
            f"| {label} | {g.version} | {worst[i]} | {at_worst[i]:.2f} | "
            f"{at_worst[i] / at_worst[0]:.2f} | {latest[i]:.2f} | {full[i]:.1f} |"
        )
        print(rows[-1], flush=True)
    return rows


def _tuning(app: TableApplication, repeat: int, events: int) -> list[str]:
    """Worst-case rebuild at 5,000 events and snapshot storage, per snapshot interval."""
    intervals = (10, 25, 50, 100)
    games = []
    for interval in intervals:
        committer = GroupCommitter(app)
        committer.snapshot_interval = interval
        try:
            games.append(_store_game(committer, events, step=1))
        finally:
            committer.close()
    worst = [(g.version // i) * i - 1 for g, i in zip(games, intervals, strict=True)]
    pairs = list(zip(games, worst, strict=True))
    get = app.repository.get
    ms = _interleaved_ms([partial(get, g.id, version=v) for g, v in pairs], repeat)
    assert app.snapshots is not None
    rows = []
    for i, interval in enumerate(intervals):
        snaps = list(app.snapshots.get(games[i].id))
        snap_bytes = sum(len(app.mapper.to_stored_event(x).state) for x in snaps)
        event_bytes = sum(
            len(app.mapper.to_stored_event(e).state) for e in app.events.get(games[i].id)
        )
        rows.append(
            f"| {interval} | {ms[i]:.2f} | {len(snaps)} | {snap_bytes / event_bytes:.0%} |"
        )
        print(rows[-1], flush=True)
    return rows


def rebuild_section(quick: bool) -> list[str]:
    lines = [
        "## P3: rebuild at a version",
        "",
        f"Snapshots every {SNAPSHOT_INTERVAL} events. Each game is rebuilt at the version just "
        "before its last snapshot (one snapshot + "
        f"{SNAPSHOT_INTERVAL - 1} events through `evolve`, the worst case), with the "
        "bounded-state benchmark game `bench/passgame.py`. Target: under 3 ms at 5,000 "
        "events, and 5,000 vs 100 within 1.5x.",
        "",
        "| store | events | version rebuilt | median ms | ratio to 100 events | latest ms | "
        "full replay ms (no snapshot) |",
        "|---|---|---|---|---|---|---|",
    ]
    repeat = sized(quick, 100, 20, 2)
    sizes = sized(quick, SIZES, SIZES, (50, 100, 200))  # 4 x sizes[-1] commits in _tuning
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        sqlite = TableApplication(
            env={
                "PERSISTENCE_MODULE": "eventsourcing.sqlite",
                "SQLITE_DBNAME": str(Path(tmp) / "b.sqlite"),
            }
        )
        stack.callback(sqlite.close)
        lines += _rows(sqlite, "SQLite", repeat, sizes)
        pg = stack.enter_context(postgres())
        app = TableApplication(env=pg_env(pg))
        stack.callback(app.close)
        lines += _rows(app, "PostgreSQL", repeat, sizes)
        lines += [
            "",
            "Choosing the interval (PostgreSQL, 5,000-event game saved one move per "
            "transaction, worst-case version): rebuild cost against the snapshots' storage, "
            "as a share of the events' own bytes.",
            "",
            "| interval | worst-case rebuild ms | snapshots | snapshot bytes / event bytes |",
            "|---|---|---|---|",
        ]
        lines += _tuning(app, repeat, sizes[-1])
    return lines
