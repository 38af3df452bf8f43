"""P5 (write throughput with 1 and 2 PostgreSQL shards) and the raw save-rate baseline.

Baseline: eventsourcing's own ``Application.save`` with 1, 10 and 50 events per
transaction (new one-event aggregates), SQLite and PostgreSQL, one thread: the rate group
commit starts from.

P5: the server's write path without gRPC: ``Store`` (routing, group commit per shard,
snapshots) driven by two writer processes, like two replicas, each an asyncio loop keeping
C/2 bounded-state games (``bench.passgame``) moving one event per move, each move awaited
until durable, exactly as ``TableServer`` appends. Shards are two databases on the same
throwaway PostgreSQL server (durable commits). Measured with group commit (up to 64 games
per transaction) and without it (one game per transaction: the single-table lock is then
the ceiling that sharding lifts).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import statistics
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate

from bench import targets
from bench.common import pass_game, pass_move, pg_env, postgres, sized
from server.store.shards import Store
from tests.support.pgserver import PgServer

CONCURRENCY = 64
WRITERS = 2


class Thing(Aggregate):
    """The smallest aggregate: one Created event."""


def save_rate(env: dict[str, str], per_tx: int, seconds: float) -> float:
    app: Application[Any] = Application(env=env)
    try:
        events = 0
        stop = time.perf_counter() + seconds
        start = time.perf_counter()
        while time.perf_counter() < stop:
            app.save(*[Thing() for _ in range(per_tx)])
            events += per_tx
        return events / (time.perf_counter() - start)
    finally:
        app.close()


def baseline_section(quick: bool, pg: PgServer) -> list[str]:
    seconds = sized(quick, 4.0, 1.5, 0.2)
    lines = [
        "## Group commit baseline: raw eventsourcing saves",
        "",
        "`Application.save()` of N one-event aggregates per transaction, one thread, "
        "durable. Measured here earlier for SQLite: about 3k/s at 1, 12k/s at 10, 19k/s at 50.",
        "",
        "| store | events per transaction | events/s | vs 1 per transaction |",
        "|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        stores = {
            "SQLite": {
                "PERSISTENCE_MODULE": "eventsourcing.sqlite",
                "SQLITE_DBNAME": str(Path(tmp) / "raw.sqlite"),
            },
            "PostgreSQL": pg_env(pg),
        }
        for label, env in stores.items():
            one = 0.0
            for per_tx in (1, 10, 50):
                rate = save_rate(env, per_tx, seconds)
                one = one or rate
                lines.append(f"| {label} | {per_tx} | {rate:,.0f} | {rate / one:.1f}x |")
                print(lines[-1], flush=True)
    return lines


# --- P5 ------------------------------------------------------------------------------


async def _drive(store: Store, games: int, seconds: float) -> int:
    moves = 0

    async def game_loop() -> None:
        nonlocal moves
        agg = pass_game(1_000_000)
        await asyncio.wrap_future(store.submit(agg))
        stop = time.perf_counter() + seconds
        while time.perf_counter() < stop:
            fork = agg.fork()
            pass_move(fork)
            await asyncio.wrap_future(store.submit(fork))
            agg = fork
            moves += 1

    await asyncio.gather(*(game_loop() for _ in range(games)))
    return moves


def _writer(envs: list[dict[str, str]], max_batch: int, games: int, seconds: float,
            ready: Any, out: Any) -> None:
    store = Store.open([dict(e, CREATE_TABLE="n") for e in envs], max_batch=max_batch)
    try:
        ready.wait(120)  # every writer has opened its pools: all start together
        t0 = time.perf_counter()
        moves = asyncio.run(_drive(store, games, seconds))
        out.put((moves, time.perf_counter() - t0, store.batches))
    finally:
        store.close()


def _cpu_times() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine, from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


def write_rate(
    envs: list[dict[str, str]], max_batch: int, seconds: float
) -> tuple[float, float, float]:
    """Events/s over WRITERS processes, mean events per transaction, machine CPU busy."""
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    ready = ctx.Barrier(WRITERS + 1)  # passed once every writer has opened its pools
    procs = [
        ctx.Process(
            target=_writer, args=(envs, max_batch, CONCURRENCY // WRITERS, seconds, ready, out)
        )
        for _ in range(WRITERS)
    ]
    for p in procs:
        p.start()
    ready.wait(120)
    busy0, total0 = _cpu_times()
    results = [out.get(timeout=seconds + 120) for _ in procs]
    busy1, total1 = _cpu_times()
    for p in procs:
        p.join(30)
    moves = sum(r[0] for r in results)
    elapsed = max(r[1] for r in results)
    batches = sum(r[2] for r in results)
    cpu = (busy1 - busy0) / max(1, total1 - total0)
    return moves / elapsed, moves / max(1, batches), cpu


def shards_section(quick: bool, pg: PgServer, pg2: PgServer) -> list[str]:
    seconds = sized(quick, 8.0, 3.0, 0.3)
    lines = [
        "## P5: write throughput with 1 and 2 PostgreSQL shards",
        "",
        f"{WRITERS} writer processes (like {WRITERS} replicas), {CONCURRENCY} games moving at "
        "once, one event per move, each awaited until durable, through `Store` (group "
        "commit, snapshots); the median of 3 interleaved runs of each layout. Two layouts of 2 shards: two databases on one PostgreSQL server "
        "(one WAL, one fsync stream), and two PostgreSQL servers (as a real deployment "
        "would place them; here on the same disk and the same 2 cores). Target: 2 shards "
        ">= 1.8x of 1 shard.",
        "",
        "| games per transaction (max) | shards | events/s | events per transaction | "
        "vs 1 shard | machine CPU busy |",
        "|---|---|---|---|---|---|",
    ]
    from server.startup.migrate import migrate_shard

    first, same_server, other_server = pg_env(pg), pg_env(pg), pg_env(pg2)
    for env in (first, same_server, other_server):
        migrate_shard(env)
    layouts = [
        ("1", [first]),
        ("2 (databases on one server)", [first, same_server]),
        ("2 (two servers)", [first, other_server]),
    ]
    rounds = sized(quick, 3, 1, 1)  # interleaved, median: drift hits every layout alike
    for max_batch in (1, 64):
        runs: dict[str, list[tuple[float, float, float]]] = {label: [] for label, _ in layouts}
        for _ in range(rounds):
            for label, envs in layouts:
                runs[label].append(write_rate(envs, max_batch, seconds))
        one = 0.0
        for label, envs in layouts:
            rate = statistics.median(r[0] for r in runs[label])
            per_tx = statistics.median(r[1] for r in runs[label])
            cpu = statistics.median(r[2] for r in runs[label])
            one = one or rate
            if len(envs) == 2:
                targets.at_least(
                    f"P5 {label} vs 1 shard, up to {max_batch} games per transaction",
                    rate / one,
                    1.8,
                )
            lines.append(
                f"| {max_batch} | {label} | {rate:,.0f} | {per_tx:.1f} | {rate / one:.2f}x | "
                f"{cpu:.0%} |"
            )
            print(lines[-1], flush=True)
    return lines


def writes_sections(quick: bool) -> list[list[str]]:
    with ExitStack() as stack:
        pg = stack.enter_context(postgres())
        pg2 = stack.enter_context(postgres())
        return [baseline_section(quick, pg), shards_section(quick, pg, pg2)]
