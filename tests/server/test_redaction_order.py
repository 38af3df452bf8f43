"""No viewer sees less of a fact than a spectator: a fact a spectator is shown whole (its
redaction is the stored fact itself) is shown whole to every seat and to the arbiter. The
seal relies on it (``render.events_for_each`` renders such a fact once for every viewer
without asking each one's redaction), so a redaction that hid from a seat what a spectator
sees would put the wrong bytes under that seat's receipt. Random games of every game kind,
the table's own facts (creation, seats, reveals, start) included."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from domain import table as tables
from domain.engine import SPECTATOR
from domain.huaniao.options import Mode
from domain.huaniao.options import Options as HuaniaoOptions
from domain.table import records
from domain.zipai.options import Options as ZipaiOptions
from server.wire import receipts, render
from tests.support.records import in_memory_server, play_random

TABLES: list[tuple[str, Any, int]] = [
    ("huaniao", HuaniaoOptions(mode=Mode.BASIC), 4),
    ("huaniao", HuaniaoOptions(mode=Mode.FULL), 3),
    (
        "huaniao",
        HuaniaoOptions(
            mode=Mode.PRO, twin_swallows=True, spring_snow=True, lofty_tune=True, blossoms=True
        ),
        4,
    ),
    ("zipai", ZipaiOptions(), 2),
    ("zipai", ZipaiOptions(), 3),
    ("zipai", ZipaiOptions(), 4),
]


@pytest.mark.parametrize(("kind", "options", "seats"), TABLES)
def test_a_fact_a_spectator_sees_whole_is_whole_for_everyone(
    kind: str, options: Any, seats: int
) -> None:
    seed = random.randrange(1 << 30)

    async def run() -> tuple[int, int, list[Any]]:
        ts = in_memory_server()
        try:
            gid = await play_random(ts, kind, options, seats, seed)
            stored = ts.games.store.stored_events(ts.games.parse_id(gid), 0, None, None)
            public = hidden = 0
            for event in stored:
                if tables.redact(kind, event.fact, SPECTATOR) is not event.fact:
                    hidden += 1
                    continue
                public += 1
                for viewer in records.receipt_viewers(seats):
                    assert tables.redact(kind, event.fact, viewer) is event.fact, (
                        type(event.fact).__name__,
                        viewer,
                        seed,
                    )
            return public, hidden, stored
        finally:
            ts.games.close()

    public, hidden, stored = asyncio.run(run())
    assert public and hidden, (public, hidden, seed)  # both kinds of fact were met
    # and the seal's renderings equal each viewer's own rendering, message for message
    for start in range(0, len(stored), 7):
        move = stored[start : start + 7]
        each = render.events_for_each(kind, move, records.receipt_viewers(seats))
        for viewer, rendered in zip(records.receipt_viewers(seats), each, strict=True):
            assert rendered == render.events_proto(kind, move, viewer), (viewer, start, seed)
    assert receipts.render_move(kind, stored[:3], seats) == render.events_for_each(
        kind, stored[:3], records.receipt_viewers(seats)
    )
