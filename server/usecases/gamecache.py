"""The games held in memory, weighed: ``Games`` keeps the latest state of each game it
serves here, capped by count and by an estimate of the bytes they hold (issue 38: one
table's justice history used to take a replica's memory).

A game's weight is an estimate from what grows in its state, not a measurement of its
objects (which would cost a walk of the state per move): a table's base and, per justice
case (with its penalty record) and per indexed request, the bytes measured for them
(docs/benchmarks.md, "A long justice history"). It is taken whenever the cache is given a
game, so the total follows every move.
"""

from __future__ import annotations

import uuid
from typing import Any

# measured with tracemalloc on a 2-seat 花鸟风月 table (docs/benchmarks.md): a running
# table about 14 KB, each warning case with its penalty record about 800 bytes
GAME_BYTES = 16 * 1024
CASE_BYTES = 1024
REQUEST_BYTES = 160  # an indexed request id (its key and version, in a dict)
DEFAULT_MAX_BYTES = 512 * 2**20


def weight(agg: Any) -> int:
    """The estimated bytes a cached game holds (``GameAggregate``)."""
    justice = agg.table.justice
    requests = agg.__dict__.get("requests", ())
    return (
        GAME_BYTES
        + CASE_BYTES * (len(justice.cases) + len(justice.penalties))
        + REQUEST_BYTES * len(requests)
    )


class GameCache(dict[uuid.UUID, Any]):
    """A dict of game id -> ``GameAggregate`` that keeps the sum of its games' weights
    (``held``). Reads are the dict's own; only setting and removing are counted."""

    def __init__(self) -> None:
        super().__init__()
        self._weights: dict[uuid.UUID, int] = {}
        self.held = 0  # estimated bytes of every game held

    def __setitem__(self, game_id: uuid.UUID, agg: Any) -> None:
        w = weight(agg)
        self.held += w - self._weights.get(game_id, 0)
        self._weights[game_id] = w
        super().__setitem__(game_id, agg)

    def pop(self, game_id: uuid.UUID, default: Any = None) -> Any:  # type: ignore[override]
        self.held -= self._weights.pop(game_id, 0)
        return super().pop(game_id, default)

    def __delitem__(self, game_id: uuid.UUID) -> None:
        self.held -= self._weights.pop(game_id, 0)
        super().__delitem__(game_id)
