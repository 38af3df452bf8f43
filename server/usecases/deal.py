"""The deal's commit–reveal: seats reveal their contributions, then the game starts and
the cards are dealt from every revealed contribution (docs/api.md, *The deal*).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from domain import table as tables
from domain.engine import Role, RuleViolation, Viewer
from server.store.eventstore import GameAggregate
from server.usecases import idempotency
from server.usecases.games import (
    Games,
    PermissionDenied,
)
from server.wire.stored import StoredEvent


class Deal(Games):
    """RevealContribution and StartGame."""

    async def reveal(
        self, game_id: str, viewer: Viewer, contribution: str
    ) -> tuple[int, list[StoredEvent], tuple[int, ...], datetime | None]:
        """The seat reveals its contribution. Returns the version, the events appended (none
        for a repeat), the seats still awaited and the reveal deadline."""
        gid = self.parse_id(game_id)
        if viewer.role is not Role.SEAT or viewer.seat is None:
            raise PermissionDenied("only a seat reveals its contribution")
        async with self._lock(gid):
            agg = await self._load(gid)
            try:
                facts = tables.reveal(agg.table, viewer.seat, contribution)
            except RuleViolation:  # another replica may have taken the last seat: read again
                agg = await self._load(gid, refresh=True)
                facts = tables.reveal(agg.table, viewer.seat, contribution)
            stored: list[StoredEvent] = []
            if facts:
                stored = await self._append(agg, facts, tables.cause("reveal", viewer.seat))
                agg = await self._load(gid)
        deadline = tables.reveal_deadline(agg.table, agg.modified_on)
        return agg.version, stored, agg.table.pending_reveals, deadline

    async def start_game(self, game_id: str, viewer: Viewer, request_id: str = "") -> int:
        gid = self.parse_id(game_id)
        if viewer.role is Role.SPECTATOR:
            raise PermissionDenied("a seat or the arbiter starts the game")
        key = idempotency.parse(request_id)
        cause = tables.cause("start")
        if key is not None:
            cause.update(idempotency.cause_fields(key, "start", {"game_id": str(gid)}))

        def decide(agg: GameAggregate) -> list[Any]:
            deadline = tables.reveal_deadline(agg.table, agg.modified_on)
            closed = deadline is not None and datetime.now(UTC) >= deadline
            # the server's clock closed the window (trusted, like a turn timeout): recorded
            # in the cause, so the replay re-decides the same deal (and verify checks the time)
            cause.pop("reveals_closed", None)
            if closed:
                cause["reveals_closed"] = True
            return tables.start(agg.table, closed)

        stored = await self._once(gid, decide, cause)
        return stored[-1].version
