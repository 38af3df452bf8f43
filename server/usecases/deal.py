"""The deal's commit–reveal: seats commit (a match's later hand, a redeal) and reveal
their contributions, then the game starts and the cards are dealt from every revealed
contribution (docs/api.md, *The deal*).
"""

from __future__ import annotations

from collections.abc import Callable
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
    """CommitContribution, RevealContribution and StartGame."""

    async def commit_contribution(
        self, game_id: str, viewer: Viewer, commitment: str
    ) -> tuple[int, list[StoredEvent], tuple[int, ...], datetime | None]:
        """A seat already seated (a match's later hand, a 重新洗牌发牌) commits to its
        contribution. Returns the version, the events appended (none for a repeat), the
        seats whose commitments are still awaited and the window's deadline."""

        def decide(table: tables.Table, seat: int) -> list[Any]:
            return tables.commit(table, seat, commitment)

        agg, stored = await self._seat_input(game_id, viewer, "commit", decide)
        deadline = tables.reveal_deadline(agg.table, agg.modified_on)
        return agg.version, stored, agg.table.awaited_commitments, deadline

    async def _seat_input(
        self,
        game_id: str,
        viewer: Viewer,
        action: str,
        decide: Callable[[tables.Table, int], list[Any]],
    ) -> tuple[GameAggregate, list[StoredEvent]]:
        """A seat's commitment or reveal: decided (again on a fresh read, since another
        replica may have moved the table on), appended, then the deal made once every input
        is in. Returns the game after it and the events appended (none for a repeat)."""
        gid = self.parse_id(game_id)
        if viewer.role is not Role.SEAT or viewer.seat is None:
            raise PermissionDenied(f"only a seat may {action} its contribution")
        async with self._lock(gid):
            agg = await self._load(gid)
            try:
                facts = decide(agg.table, viewer.seat)
            except RuleViolation:
                agg = await self._load(gid, refresh=True)
                facts = decide(agg.table, viewer.seat)
            stored: list[StoredEvent] = []
            if facts:
                stored = await self._append(agg, facts, tables.cause(action, viewer.seat))
        return await self._deal_when_inputs_in(gid), stored

    async def _deal_when_inputs_in(self, gid: Any) -> GameAggregate:
        """Deal a match's later hand or a redeal as soon as every seat's input is in: the
        server moves them on by itself (hand 1 waits for StartGame, as it always has)."""
        async with self._lock(gid):
            agg = await self._load(gid)
            table = agg.table
            dealt_by_server = table.redraw is not None or table.hand >= 2
            if not (dealt_by_server and table.drawing):
                return agg
            if table.awaited_commitments or table.pending_reveals:
                return agg
            await self._append(agg, tables.start(table), tables.cause("start"))
            return await self._load(gid)

    async def reveal(
        self, game_id: str, viewer: Viewer, contribution: str
    ) -> tuple[int, list[StoredEvent], tuple[int, ...], datetime | None]:
        """The seat reveals its contribution. Returns the version, the events appended (none
        for a repeat), the seats still awaited and the reveal deadline."""

        def decide(table: tables.Table, seat: int) -> list[Any]:
            return tables.reveal(table, seat, contribution)

        agg, stored = await self._seat_input(game_id, viewer, "reveal", decide)
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
