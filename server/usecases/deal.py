"""The deal's commit–reveal: seats commit (a match's later hand, a redeal) and reveal
their contributions, then the game starts and the cards are dealt from every revealed
contribution (docs/api.md, *The deal*). Nobody stands in for a seat: a draw is dealt from
every seat's entropy, or abandoned by the clock (server/usecases/timers.py) and void.

Every commitment and reveal taken is acknowledged with the move that recorded it (its
events and the server's signed receipt, as a Play reply); a repeat gets that same move
back, so a seat holding no acknowledgement knows its input was refused.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from typing import Any

from domain import table as tables
from domain.engine import Role, RuleViolation, Viewer
from server.store.eventstore import GameAggregate
from server.usecases import idempotency
from server.usecases.games import (
    Games,
    PermissionDenied,
)
from server.wire.seatsig import SignedCall
from server.wire.stored import StoredEvent


class Deal:
    """CommitContribution, RevealContribution and StartGame."""

    def __init__(self, games: Games) -> None:
        """What the deal touches: ``games`` only (parse, lock, load, check a seat's
        signature, decide once per key, append, read a move back, the game store)."""
        self.games = games

    async def commit_contribution(
        self, game_id: str, viewer: Viewer, commitment: str, signed: SignedCall | None = None
    ) -> tuple[int, list[StoredEvent], tuple[int, ...], datetime | None]:
        """A seat already seated (a match's later hand, a 重新洗牌发牌) commits to its
        contribution. Returns the version, the events appended (none for a repeat), the
        seats whose commitments are still awaited and the window's deadline."""

        def decide(table: tables.Table, seat: int) -> list[Any]:
            return tables.commit(table, seat, commitment)

        agg, stored = await self._seat_input(
            game_id, viewer, "commit", decide, tables.SeatCommitted, signed
        )
        deadline = tables.reveal_deadline(agg.table, agg.modified_on)
        return agg.version, stored, agg.table.awaited_commitments, deadline

    async def _seat_input(
        self,
        game_id: str,
        viewer: Viewer,
        action: str,
        decide: Callable[[tables.Table, int], list[Any]],
        recorded_as: type,
        signed: SignedCall | None = None,
    ) -> tuple[GameAggregate, list[StoredEvent]]:
        """A seat's commitment or reveal: decided (again on a fresh read, since another
        replica may have moved the table on), appended, then the deal made once every input
        is in. Returns the game after it and the acknowledgement: the move that recorded
        the input (``recorded_as``), just appended or, for a repeat, found in the draw. A
        keyed seat's input is ``signed`` (checked before it is appended; a repeat appends
        nothing and gets the first acknowledgement back)."""
        gid = self.games.parse_id(game_id)
        if viewer.role is not Role.SEAT or viewer.seat is None:
            raise PermissionDenied(f"only a seat may {action} its contribution")
        async with self.games.lock(gid):
            agg = await self.games.load(gid)
            try:
                facts = decide(agg.table, viewer.seat)
            except RuleViolation:
                agg = await self.games.load(gid, refresh=True)
                facts = decide(agg.table, viewer.seat)
            if facts:
                cause = tables.cause(action, viewer.seat)
                recorded = await self.games.seat_signed(agg, viewer.seat, signed)
                if recorded is not None:
                    cause["signed"] = recorded
                stored = await self.games.append(agg, facts, cause)
            else:  # a repeat: the move that took it the first time
                stored = await self._recorded_input(gid, agg.table, viewer.seat, recorded_as)
        return await self._deal_when_inputs_in(gid), stored

    async def _recorded_input(
        self, gid: Any, table: tables.Table, seat: int, recorded_as: type
    ) -> list[StoredEvent]:
        """The move of the draw under way whose first fact took ``seat``'s input (the last
        one, in a draw that took several), or none."""
        after = max(table.draw_opened - 1, 0)
        events = await asyncio.to_thread(self.games.store.stored_events, gid, after, None, None)
        found = [
            e.version
            for e in events
            if isinstance(e.fact, recorded_as) and getattr(e.fact, "seat", None) == seat
        ]
        return await self.games.move_from(gid, found[-1]) if found else []

    async def _deal_when_inputs_in(self, gid: Any) -> GameAggregate:
        """Deal a match's later hand or a redeal as soon as every seat's input is in: the
        server moves them on by itself (hand 1 waits for StartGame, as it always has)."""
        async with self.games.lock(gid):
            agg = await self.games.load(gid)
            table = agg.table
            dealt_by_server = table.redraw is not None or table.hand >= 2
            if not (dealt_by_server and table.drawing):
                return agg
            if table.awaited_commitments or table.pending_reveals:
                return agg
            await self.games.append(agg, tables.start(table), tables.cause("start"))
            return await self.games.load(gid)

    async def reveal(
        self, game_id: str, viewer: Viewer, contribution: str, signed: SignedCall | None = None
    ) -> tuple[int, list[StoredEvent], tuple[int, ...], datetime | None]:
        """The seat reveals its contribution. Returns the version, the events appended (none
        for a repeat), the seats still awaited and the reveal deadline."""

        def decide(table: tables.Table, seat: int) -> list[Any]:
            return tables.reveal(table, seat, contribution)

        agg, stored = await self._seat_input(
            game_id, viewer, "reveal", decide, tables.ContributionRevealed, signed
        )
        deadline = tables.reveal_deadline(agg.table, agg.modified_on)
        return agg.version, stored, agg.table.pending_reveals, deadline

    async def start_game(
        self,
        game_id: str,
        viewer: Viewer,
        request_id: str = "",
        signed: SignedCall | None = None,
    ) -> int:
        """Deal hand 1 once every input is in. Sent by a keyed seat, it is ``signed`` and
        recorded in that seat's name; sent by the arbiter at a table with an arbiter key, it
        is signed by that key (recorded with no seat)."""
        gid = self.games.parse_id(game_id)
        if viewer.role is Role.SPECTATOR:
            raise PermissionDenied("a seat or the arbiter starts the game")
        key = idempotency.parse(request_id)
        cause = tables.cause("start")
        if key is not None:
            cause.update(idempotency.cause_fields(key, "start", {"game_id": str(gid)}))

        async def check(agg: GameAggregate) -> None:
            arbiter = viewer.role is Role.ARBITER
            recorded = await self.games.seat_signed(agg, viewer.seat, signed, arbiter=arbiter)
            if recorded is not None and arbiter:  # the keyed arbiter's start: no seat
                cause.update(signed=recorded)
            elif recorded is not None:  # a keyed seat's start: in its name
                cause.update(seat=viewer.seat, signed=recorded)

        def decide(agg: GameAggregate) -> list[Any]:
            # every seat's input, or no deal: a window that passed changes nothing here
            return tables.start(agg.table)

        stored = await self.games.once(gid, decide, cause, check)
        return stored[-1].version
