"""Shared pieces of the benchmarks: a durable throwaway PostgreSQL, stores, games."""

from __future__ import annotations

import statistics
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from bench import passgame
from domain import table as tables
from domain.registry import register
from server.store.eventstore import GameAggregate
from tests.support.pgserver import PgServer

register(passgame.RULES)

# The per-client limits (server/transport/limits.py) guard a public server; one load generator is one
# client opening thousands of games and streams, so benchmarks lift them.
SERVER_FLAGS = [
    "--max-open-games-per-client", "100000000",
    "--max-streams-per-client", "1000000",
    "--move-rate", "0",
    "--allow-prepared-deals",  # seeded tables: the same deals in every run
]


# ``--smoke`` (set by bench/run.py): tiny sizes, so `make test` runs every benchmark's code
# path in seconds; its figures mean nothing and it asserts no timing.
SMOKE = False


def sized(quick: bool, full: Any, fast: Any, smoke: Any) -> Any:
    """The size for this run: ``smoke`` under ``--smoke``, ``fast`` under ``--quick``."""
    return smoke if SMOKE else fast if quick else full


@contextmanager
def postgres() -> Iterator[PgServer]:
    """A PostgreSQL server with durable commits (fsync and synchronous_commit on)."""
    with PgServer(durable=True) as pg:
        yield pg


def pg_env(pg: PgServer, create: bool = True) -> dict[str, str]:
    """A fresh database on ``pg`` and the eventsourcing settings for it."""
    name = pg.create_database(f"b_{uuid.uuid4().hex[:10]}")
    return dict(
        pg.env(name),
        PERSISTENCE_MODULE="eventsourcing.postgres",
        CREATE_TABLE="y" if create else "n",
    )


def pass_game(length: int, seats: int = 2) -> GameAggregate:
    """A started pass game (not yet saved): 3 + seats events, then ``length`` moves to go."""
    (created,) = tables.create(passgame.RULES, passgame.Options(length), seats, "h", "s1")
    agg = GameAggregate.open(uuid.uuid4(), created)
    for seat in range(seats):
        agg.record(tables.SeatTaken(seat, f"p{seat}", f"t{seat}", ""))
    for fact in tables.start(agg.table):
        agg.record(fact)
    return agg


def pass_move(agg: GameAggregate) -> bool:
    """Record the next pass on ``agg``; False once the game is over."""
    if agg.table.phase is not tables.Phase.PLAYING:
        return False
    for fact in tables.play(agg.table, passgame.Pass(agg.table.game.holder)):
        agg.record(fact)
    return True


def median_ms(fn: Callable[[], Any], repeat: int) -> float:
    samples = []
    import time

    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1000


def quantile_ms(samples: list[float], q: int) -> float:
    """The q-th percentile (1..99) of samples in seconds, in ms."""
    if len(samples) < 2:
        return (samples[0] if samples else 0.0) * 1000
    return statistics.quantiles(samples, n=100)[q - 1] * 1000
