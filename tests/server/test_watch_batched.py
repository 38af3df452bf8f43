"""A batched Watch message is built directly (one receipt copy a move, not one an event and
again a move): the same messages, byte for byte, as the plain way, every event on its own
with its move's receipt and then packed one move a message (``receipts._one_a_move``), for
every viewer, for whole histories and for batches cut anywhere (a page, a live batch, a
move split between two), with the seal's kept renderings and without a sealer."""

from __future__ import annotations

import asyncio
import random
import uuid
from pathlib import Path

import pytest

from bench.receipts import SIGNER, _play
from domain.table import records
from server.startup.compose import table_server
from server.store.eventstore import TableApplication
from server.wire import receipts
from server.wire.receipts import Sealer


@pytest.mark.parametrize(("kind", "seats", "seed"), [("huaniao", 4, 3), ("zipai", 3, 4)])
def test_batched_messages_are_the_plain_ones_packed(
    kind: str, seats: int, seed: int, tmp_path: Path
) -> None:
    print("kind", kind, "seed", seed)
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "g.db")}
    ts = table_server(TableApplication(env=env), sealer=Sealer(SIGNER), allow_prepared_deals=True)
    made: list[str] = []
    create = ts.seats.create_game

    async def remembered(*args: object, **kwargs: object) -> object:
        out = await create(*args, **kwargs)  # type: ignore[arg-type]
        made.append(out[0])
        return out

    ts.seats.create_game = remembered  # type: ignore[method-assign]
    try:
        asyncio.run(_play(ts, kind, seats, seed, False))
        gid = uuid.UUID(made[-1])
        table = asyncio.run(ts.games.load(gid)).table
        events = ts.games.store.stored_events(gid, 0, None, 100_000)
    finally:
        ts.games.close()
    rng = random.Random(seed)
    cuts = [(0, len(events))]
    cuts += [tuple(sorted(rng.sample(range(len(events) + 1), 2))) for _ in range(12)]
    compared = 0
    for sealer in (ts.games.sealer, None):
        for viewer in records.receipt_viewers(seats):
            for first, last in cuts:
                part = events[first:last]
                plain = receipts._one_a_move(
                    receipts._watch_messages(sealer, kind, table, viewer, part)
                )
                batched = receipts.watch_messages(sealer, kind, table, viewer, part, batched=True)
                assert [m.SerializeToString(deterministic=True) for m in batched] == [
                    m.SerializeToString(deterministic=True) for m in plain
                ], (viewer, first, last)
                compared += len(plain)
    assert compared > 100
