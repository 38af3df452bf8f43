"""The turn clock: durable per-action time limits.

A deadline is never kept only in memory: it is the recorded time of a game's latest event
plus the table's limit, both in the store. The clock schedules a wake-up after every append
and, at start-up, for every running game with a limit (found from the store), so a deadline
that passed while the server was down fires as soon as it is back.

On expiry the server appends the table's timeout (domain/table/justice/decide.py timed_out: the seed's
penalty, then the game's reading of what becomes of the turn) against the version the
deadline belonged to; a move that came first simply makes the wake-up stale.

A draw (the first deal, a match's later hand, a redeal) that still waits for a seat's
commitment or reveal when the table's abandonment limit has passed since it opened
(``tables.abandon_deadline``) is abandoned: DealAbandoned, and the game is void (a match
ends incomplete). The clock never deals without a seat: nobody stands in for one.

An open report or appeal has a deadline of its own at every table, clockless ones
included (``tables.case_deadline``: the table's recorded case limit after the case's
opening or its latest awaited voter's first vote, never past the hand's justice budget;
the recorded times of those facts are kept in the game's state, ``justice_times``); on
expiry the case times out (``case_timed_out``: the votes not cast lapse).

The clock cannot be turned into a load: tables have a minimum limit (``--min-turn-time``,
server/usecases/), and after ``max_run`` events made by the clock with no client call in
between (``GameAggregate.clock_run``, kept in the game's state) a game's clock waits for the
next move a client makes, so a table nobody plays stops costing anything.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from domain import table as tables
from domain.engine import DomainError
from server.store.eventstore import GameAggregate
from server.usecases.games import Aborted, Games
from server.wire.stored import open_case_deadline

log = logging.getLogger("tabletop.timers")


MAX_RUN = 200  # clock-made events in a row without a client call (--max-clock-events)


class TurnClock:
    def __init__(self, games: Games, max_run: int = MAX_RUN) -> None:
        """What the clock touches: ``games`` (lock, load and append a game; the store's
        shards, to find the clocked games at start-up) and ``max_run`` (clock-made events
        in a row before a game's clock waits for a client). The composition root
        (server/startup/compose.py) sets ``games.after_append`` to ``schedule``."""
        self.games = games
        self.max_run = max_run
        self._handles: dict[uuid.UUID, asyncio.TimerHandle] = {}
        self.fired = 0

    def close(self) -> None:
        for handle in self._handles.values():
            handle.cancel()
        self._handles.clear()

    def schedule(self, game_id: uuid.UUID, agg: GameAggregate) -> None:
        """(Re)arm the game's wake-up for the deadline of its latest version."""
        old = self._handles.pop(game_id, None)
        if old is not None:
            old.cancel()
        deadline = deadline_of(agg, self.max_run)
        if deadline is None:
            return
        delay = max(0.0, (deadline - datetime.now(UTC)).total_seconds())
        loop = asyncio.get_running_loop()
        self._handles[game_id] = loop.call_later(
            delay, lambda: asyncio.ensure_future(self.expire(game_id, agg.version))
        )

    async def expire(self, game_id: uuid.UUID, version: int) -> None:
        self._handles.pop(game_id, None)
        games = self.games
        try:
            async with games.lock(game_id):
                agg = await games.load(game_id)
                if agg.version != version or deadline_of(agg, self.max_run) is None:
                    return  # someone moved in time, or the clock stopped
                if agg.table.drawing:  # the draw waited its abandonment limit: void
                    facts = tables.abandon(agg.table)
                    cause = tables.cause("abandon")
                else:
                    facts = tables.time_out_all(agg.table)  # every awaited seat at once
                    cause = {"action": "timeout", "seat": None, "command": None}
                self.fired += 1
                await games.append(agg, facts, cause)
        except (Aborted, DomainError) as exc:  # another replica moved, or nothing to time
            log.info("timer for %s at v%d not applied: %s", game_id, version, exc)
        except Exception:
            log.exception("timer for %s at v%d failed", game_id, version)

    async def recover(self) -> int:
        """Arm the clock of every running game with a time limit or a case deadline (after a
        restart): a case left open while the server was down times out at once."""
        ids = await asyncio.to_thread(self._clocked_games)
        armed = 0
        for game_id in ids:
            agg = await self.games.load(game_id)
            if deadline_of(agg, self.max_run) is not None:
                self.schedule(game_id, agg)
                armed += 1
        return armed

    def _clocked_games(self) -> list[uuid.UUID]:
        found = []
        topic = f"{GameAggregate.__module__}:{GameAggregate.Opened.__qualname__}"
        for app in self.games.store.shards:
            start = 1
            while True:
                page = app.recorder.select_notifications(start, 500, topics=[topic])
                for n in page:
                    event: Any = app.mapper.to_domain_event(n)
                    data = event.fact["data"]
                    clocks = ("time_limit_ms", "case_time_limit_ms", "abandon_after_ms")
                    if any(data.get(name, 0) > 0 for name in clocks):
                        found.append(n.originator_id)
                if len(page) < 500:
                    break
                start = page[-1].id + 1
        return [g if isinstance(g, uuid.UUID) else uuid.UUID(str(g)) for g in found]


def deadline_of(agg: GameAggregate, max_run: int = MAX_RUN) -> datetime | None:
    """When the awaited seat's time runs out, or None when no clock runs (none set, not
    playing, or the clock already made ``max_run`` events in a row). An open case runs on
    its own deadline, at a table without a clock too."""
    table = agg.table
    if agg.clock_run >= max_run:
        return None
    if table.drawing:  # a draw waits for every seat, then is abandoned (never dealt short)
        opened = agg.draw_opened_at
        return None if opened is None else tables.abandon_deadline(table, opened)
    if table.justice.paused:  # while only the arbiter is awaited too
        return open_case_deadline(table, agg.justice_times, agg.modified_on)
    if table.time_limit_ms <= 0 or table.phase is not tables.Phase.PLAYING:
        return None
    if not table.paused and not tables.to_act(table):
        return None  # an open case runs on the clock even while only the arbiter is awaited
    return agg.modified_on + timedelta(milliseconds=table.time_limit_ms)
