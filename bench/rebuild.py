"""P3: rebuild time of a game at a version: store read + nearest snapshot + evolve.

Games of 100, 1,000 and 5,000 events are made with the fake test game (its length is a
parameter; 花鸟风月 games end long before 5,000 events), stored on SQLite through the
group committer (which takes the snapshots), and rebuilt at the version just before a
snapshot, the worst case. The ratio is to the 100-event game in the same run.
"""

from __future__ import annotations

import statistics
import tempfile
import time
import uuid
from pathlib import Path

from domain import table as tables
from domain.registry import register
from server.store import SNAPSHOT_INTERVAL, GameAggregate, GroupCommitter, TableApplication
from tests.support import fakegame

register(fakegame.RULES)


def _game(committer: GroupCommitter, events: int) -> GameAggregate:
    seats = 2
    hand = (events - 4) // seats
    (created,) = tables.create(fakegame.RULES, fakegame.Options(hand_size=hand), seats, "h", 1)
    agg = GameAggregate.open(uuid.uuid4(), created)
    for seat in range(seats):
        agg.record(tables.SeatTaken(seat, f"p{seat}", f"t{seat}"))
    for fact in tables.start(agg.table):
        agg.record(fact)
    committer.submit(agg).result()
    while agg.table.phase is tables.Phase.PLAYING:
        agg = agg.fork()
        for _ in range(10):
            if agg.table.phase is not tables.Phase.PLAYING:
                break
            (cmd, *_r) = fakegame.RULES.legal_commands(agg.table.game, agg.table.game.turn)
            for fact in tables.play(agg.table, cmd):
                agg.record(fact)
        committer.submit(agg).result()
    return agg


def _median_ms(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1000


def rebuild_section(quick: bool) -> list[str]:
    lines = [
        "## P3: rebuild at a version",
        "",
        f"SQLite; snapshots every {SNAPSHOT_INTERVAL} events; each game rebuilt at the "
        "version just before its last snapshot (the most events to replay). Target: under "
        "3 ms at 5,000 events and 5,000 vs 100 within 1.5x.",
        "",
        "| events | version rebuilt | median ms | ratio to 100 events |",
        "|---|---|---|---|",
    ]
    repeat = 10 if quick else 50
    with tempfile.TemporaryDirectory() as tmp:
        app = TableApplication(
            env={
                "PERSISTENCE_MODULE": "eventsourcing.sqlite",
                "SQLITE_DBNAME": str(Path(tmp) / "b.sqlite"),
            }
        )
        committer = GroupCommitter(app)
        base = None
        for n in (100, 1000, 5000):
            agg = _game(committer, n)
            version = (agg.version // SNAPSHOT_INTERVAL) * SNAPSHOT_INTERVAL - 1
            ms = _median_ms(lambda a=agg, v=version: app.repository.get(a.id, version=v), repeat)
            base = base or ms
            lines.append(f"| {agg.version} | {version} | {ms:.2f} | {ms / base:.2f} |")
            print(lines[-1], flush=True)
        committer.close()
        app.close()
    return lines
