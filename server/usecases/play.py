"""Playing a move: who may, against which version, once per request id; and the legal
moves of a seat (with the last move, for 误操作).
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
from datetime import UTC, datetime
from typing import Any

from domain import table as tables
from domain.engine import MalformedCommand, Role, Viewer
from domain.table import records
from server.store.eventstore import GameAggregate
from server.usecases import justice
from server.usecases.games import Aborted, Games
from server.wire.seatsig import SignedCall
from server.wire.stored import StoredEvent

MAX_REQUEST_ID = 64  # characters of a Play request_id (idempotency key)
MAX_CONCURRENT = 3  # facts a stale Play may be behind and still be decided (a claim window)


class Play:
    """Play and LegalMoves."""

    def __init__(self, games: Games) -> None:
        """What Play touches: ``games`` only (parse, lock, load, check a seat's signature,
        the last move for 误操作, append, read a move back, the game store for the facts a
        stale Play was behind)."""
        self.games = games

    async def play(
        self,
        game_id: str,
        viewer: Viewer,
        expected_version: int,
        command: Any,
        request_id: str = "",
        signed: SignedCall | None = None,
    ) -> list[StoredEvent]:
        """Decide ``command`` for the viewer's seat against ``expected_version``.

        ``request_id`` is the client's idempotency key: it is stored in the move's cause, and
        a Play whose seat and request_id were already accepted is not decided again; the
        original move's events come back, whatever the game's version is now.

        A keyed seat's Play is ``signed`` for exactly ``expected_version`` and its chain hash
        (docs/api.md, "Seat signatures"), checked before anything is decided and recorded
        with the move; so is a ruling at a table with an arbiter key, by that key.
        """
        gid = self.games.parse_id(game_id)
        justice.check_sender(command, viewer)
        if len(request_id) > MAX_REQUEST_ID:
            raise MalformedCommand("request_id", f"at most {MAX_REQUEST_ID} characters")
        async with self.games.lock(gid):
            agg = await self.games.load(gid)
            if request_id and (done := await self._played(agg, command, request_id)):
                return done
            if expected_version != agg.version:
                agg = await self.games.load(gid, refresh=True)  # another replica may have moved
                if request_id and (done := await self._played(agg, command, request_id)):
                    return done
            seat = justice.sender_seat(command)
            recorded = await self.games.seat_signed(
                agg, seat, signed, play_version=expected_version, arbiter=seat is None
            )
            if expected_version != agg.version and not await self._concurrent(
                agg, expected_version, command
            ):
                raise Aborted(expected_version, agg.version)
            justice.check_budget(command, agg.table, agg.justice_times, datetime.now(UTC))
            last = await self.games.last_move(agg) if justice.needs_last_move(command) else None
            # a fresh secret for a 重新洗牌发牌 the command may order (drawn with the seats)
            redeal = isinstance(command, tables.REDEAL_COMMANDS)
            facts = tables.act(agg.table, command, last, secrets.token_hex(32) if redeal else "")
            cause = tables.cause("play", seat, command)
            if request_id:
                cause["request_id"] = request_id
            if recorded is not None:
                cause["signed"] = recorded
            try:
                return await self.games.append(agg, facts, cause)
            except Aborted:  # another replica stored a move first: this very request?
                if request_id:
                    latest = await self.games.load(gid)
                    if done := await self._played(latest, command, request_id):
                        return done
                raise

    async def _concurrent(self, agg: GameAggregate, expected_version: int, command: Any) -> bool:
        """The facts since ``expected_version`` leave the move as valid as it was (another
        seat's answer in the same 川南字牌 claim window): decide it on the current state."""
        gap = agg.version - expected_version
        if not 0 < gap <= MAX_CONCURRENT or isinstance(command, tables.ARBITER_COMMANDS):
            return False
        events = await asyncio.to_thread(
            self.games.store.stored_events, agg.id, expected_version, agg.version, None
        )
        return tables.concurrent(agg.table.kind, [e.fact for e in events], command.seat)

    async def _played(
        self, agg: GameAggregate, command: Any, request_id: str
    ) -> list[StoredEvent] | None:
        """The stored events of the move this seat (or the arbiter) already made with
        ``request_id``: the arbiter's commands are indexed under no seat, as their cause is."""
        first = agg.request_version(justice.sender_seat(command), request_id)
        if first is None:
            return None
        move = await self.games.move_from(agg.id, first)
        original = (move[0].cause or {}).get("command") if move else None
        if records.canonical(original) != records.canonical(tables.encode_event(command)):
            raise MalformedCommand("request_id", "was already used for a different move")
        return move

    def with_seat(self, command: Any, viewer: Viewer) -> Any:
        """Fill the command's seat from the token when the client left it unset (0)."""
        if viewer.role is Role.SEAT and command.seat == 0:
            return dataclasses.replace(command, seat=viewer.seat)
        return command

    async def legal_moves(
        self, game_id: str, viewer: Viewer, version: int | None = None
    ) -> tuple[tables.Table, int, list[Any]]:
        """The viewer's legal commands at ``version`` (the latest if None; a seat's stream
        asks at the version of the message it sends): the table, the version, them."""
        agg = await self.games.load(self.games.parse_id(game_id))
        if version is not None and version != agg.version:  # a past version (or refused)
            agg = await self.games.load_at(agg.id, version)
        table = agg.table
        if viewer.role is not Role.SEAT or table.phase is not tables.Phase.PLAYING:
            return table, agg.version, []
        assert viewer.seat is not None
        last = await self.games.last_move(agg)
        return table, agg.version, tables.legal_commands(table, viewer.seat, last)
