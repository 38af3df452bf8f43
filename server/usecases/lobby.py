"""The lobby (issue 40): players queue for a game kind, rules and seat count; a matchmaker
seats compatible ones at a new table and records each one's seat, which the player reads
back (a poll: docs/api.md, "Lobby"). Open tables are listed by game kind and rules.

The queues are in the store (server/store/lobby.py), so they outlive the process. Every
replica runs a matchmaker, but a queue is matched by one at a time: the one holding its
lease (server/store/leases.py). A replica that dies lets its leases go with its database
connection, and another takes them on its next pass. The lease saves work, not safety: a
formation is recorded only if every player still waits in that queue, in one transaction,
so even two matchmakers at once could not seat anyone twice. The bots of a table formed
with bot seats outlive this replica too: their secret is kept in the store before the
players are told of the table (server/transport/lobbybots.py takes them over).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from domain import lobby as rules
from domain.codec import canonical, from_data, to_data
from domain.engine import MalformedCommand
from domain.registry import rules_for
from server.store import lobby as queues
from server.store.leases import Leases
from server.usecases.games import Games, NotFound

log = logging.getLogger("tabletop.lobby")

# Opens a table: (kind, options, seat count, logins only, each seat's reserved player id or
# "" (() for none), the app whose table it is) -> game id
CreateTable = Callable[[str, Any, int, bool, tuple[str, ...], str], Awaitable[str]]
# The server's rating of a player at a game kind: (kind, player) -> OpenSkill's mu
RatingOf = Callable[[str, str], Awaitable[float]]


class BotRunner(Protocol):
    """Plays a formed table's bot seats (server/transport/lobbybots.py): bounded in number,
    and taken over by another replica when this one dies."""

    def has_room(self) -> bool: ...

    async def keep(self, game_id: str, secret: str) -> None:
        """Keep the table's ``secret`` in the store (the table's bots are this replica's
        to start): any replica can start them again once this one is gone."""

    async def drop(self, game_id: str) -> None:
        """The kept table is not used after all (nobody was seated at it)."""

    async def start(self, game_id: str, secret: str) -> None:
        """Start the bots of ``game_id``; ``secret`` makes the player ids its bot seats are
        reserved for (``domain.lobby.lobby_bot_player``)."""


MATCH_EVERY = 0.25  # seconds between two passes of the matchmaker
CARRY_AFTER = 64  # events after a queue's checkpoint before the matchmaker writes the next


@dataclass(frozen=True)
class OpenTable:
    game_id: str
    kind: str
    seat_count: int
    free_seats: tuple[int, ...]


def queue_of(kind: str, options: Any, seat_count: int, app: str = "") -> queues.QueueInfo:
    """The queue for this game kind, rules (options, checked and with defaults filled in),
    seat count and app (the players' logins' client id): its key is a hash of them, so equal
    wishes meet in one queue, and two apps' players never share a table (nor its webhooks).
    A queue of no app keeps the key it had before apps."""
    game = rules_for(kind)
    checked = game.check_options(options)
    rules.check_seat_count(seat_count, game.seat_counts(checked))
    data = to_data(checked)
    named = [kind, seat_count, data] + ([app] if app else [])
    digest = hashlib.sha256(canonical(named).encode()).hexdigest()
    return queues.QueueInfo(f"{kind}/{seat_count}/{digest[:32]}", kind, data, seat_count, app)


def _not_waiting(standing: queues.Standing) -> None:
    rules.may_queue(standing.state == "waiting")


def _waiting(standing: queues.Standing) -> None:
    rules.may_leave(standing.state == "waiting")


class Lobby:
    """Queue, leave, where-do-I-stand, the open tables, and the matchmaker's passes."""

    def __init__(
        self,
        games: Games,
        create_table: CreateTable,
        leases: Leases,
        rating_of: RatingOf,
        now_ms: Callable[[], int] = lambda: int(time.time() * 1000),
        bots: BotRunner | None = None,
    ) -> None:
        """``bots``: the server plays the bot seats of the tables it forms (None: it only
        names them, and a bot runner of the app's takes them: ``tabletop bots --join``)."""
        self.games = games
        self.rating_of = rating_of
        self.bots = bots
        self.store = games.store
        self.create_table = create_table
        self.leases = leases
        self.now_ms = now_ms
        self._task: asyncio.Task[None] | None = None
        self._matching: set[str] = set()  # the queues this replica holds the lease of

    async def queue(
        self,
        player: str,
        app: str,
        kind: str,
        options: Any,
        seat_count: int,
        claimed_rating: float = 0.0,
        window: float = 0.0,
        bot_wait_ms: int = 0,
    ) -> queues.Standing:
        """Queue ``player``, at the server's own rating of it at ``kind`` (read now, kept
        with its ticket); ``claimed_rating`` is the request's, refused unless 0."""
        rules.check_ticket(claimed_rating, window, bot_wait_ms)
        info = queue_of(kind, options, seat_count, app)
        rating = await self.rating_of(kind, player)
        ticket = rules.Ticket(player, rating, window, bot_wait_ms, self.now_ms())
        await asyncio.to_thread(queues.enqueue, self.store, info, ticket, _not_waiting)
        return await self.standing(player)

    async def leave(self, player: str) -> None:
        await asyncio.to_thread(queues.leave, self.store, player, _waiting)

    async def standing(self, player: str) -> queues.Standing:
        return await asyncio.to_thread(queues.standing, self.store, player)

    async def open_table(self, kind: str, options: Any, seat_count: int, app: str = "") -> str:
        """A table for players to find and join (logins only), listed under its game kind;
        ``app``: the opener's app, whose table it is."""
        info = queue_of(kind, options, seat_count)
        game_id = await self.create_table(kind, options, seat_count, True, (), app)
        await asyncio.to_thread(queues.list_table, self.store, info, game_id)
        return game_id

    async def open_tables(
        self, kind: str, options: Any | None, seat_count: int, before: int | None, size: int
    ) -> tuple[list[OpenTable], int | None]:
        """A page of the open tables listed under ``kind`` (and, with ``options``, these
        rules and seat count), newest first: kept only while the table has a free seat and
        has not started (the listing is a hint, the table decides). Returns the tables and
        where the next page starts (None after the last)."""
        wanted = queue_of(kind, options, seat_count).key if options is not None else None
        rules_for(kind)  # an unknown kind is INVALID_ARGUMENT
        found = await asyncio.to_thread(queues.listed, self.store, kind, before, size)
        kept: list[OpenTable] = []
        for entry in found:
            if wanted is not None and entry.queue != wanted:
                continue
            table = await self._table(entry.game_id)
            if table is None or table.game is not None:
                continue
            free = tuple(i for i, s in enumerate(table.seats) if s is None)
            if free:
                kept.append(OpenTable(entry.game_id, kind, entry.seat_count, free))
        more = len(found) == size and found[-1].position > 1
        return kept, (found[-1].position if more else None)

    async def _table(self, game_id: str) -> Any:
        try:
            return (await self.games.load(self.games.parse_id(game_id))).table
        except (NotFound, MalformedCommand):
            return None

    # --- the matchmaker -------------------------------------------------------------------

    async def match_once(self) -> int:
        """One pass over the queues this replica holds the lease of; returns the tables
        formed."""
        formed = 0
        for info in await asyncio.to_thread(queues.queues, self.store):
            if not await asyncio.to_thread(self.leases.hold, info.key):
                self._matching.discard(info.key)
                continue
            if info.key not in self._matching:  # (tests read this line: who matches what)
                log.info("lobby: this replica matches queue %s", info.key)
                self._matching.add(info.key)
            waiting = await asyncio.to_thread(queues.waiting, self.store, info.key)
            for formation in rules.form_tables(waiting.tickets, info.seat_count, self.now_ms()):
                if formation.bot_seats and self.bots is not None and not self.bots.has_room():
                    continue  # every bot process is busy: the players wait (one may come)
                formed += await self._form(info, formation)
            if waiting.since_checkpoint >= CARRY_AFTER:  # keep the next reads short
                await asyncio.to_thread(self._carry, info.key)
        return formed

    def _carry(self, key: str) -> None:
        queues.carry(self.store, key, queues.waiting(self.store, key))

    async def _form(self, info: queues.QueueInfo, formation: rules.Formation) -> int:
        options = from_data(rules_for(info.kind).options_type, info.options)
        # a table with bots admits seats without a login (the bots'); else logins only. Its
        # record reserves each player's seat for that player's login (GameCreated)
        # and each bot seat for the bot process this server starts (a secret it alone is
        # given); with no bot runner here (--lobby-bots 0) the app's own takes them: open
        secret = secrets.token_urlsafe(32) if self.bots is not None else ""
        bots = (rules.lobby_bot_player(secret, s) if secret else "" for s in formation.bot_seats)
        reserved = (*formation.players, *bots)
        game_id = await self.create_table(
            info.kind, options, info.seat_count, not formation.bot_seats, reserved, info.app
        )
        runner = self.bots if formation.bot_seats else None  # this server plays its bots
        if runner is not None:  # their secret kept before anyone is told of the table, so
            await runner.keep(game_id, secret)  # that any replica can play them
        seated = await asyncio.to_thread(queues.seat, self.store, info.key, game_id, formation)
        if not seated:  # someone left meanwhile: the table stays empty, nobody is told of it
            log.info("lobby: table %s not used (a player left the queue)", game_id)
            if runner is not None:
                await runner.drop(game_id)
        elif runner is not None:
            try:
                await runner.start(game_id, secret)
            except Exception:  # the players are seated: a replica's next look starts them
                log.exception("lobby: the bots of table %s did not start", game_id)
        return int(seated)

    async def run(self) -> None:
        """Match every MATCH_EVERY seconds until cancelled; a failing pass is logged, lets
        its leases go (another replica may do better) and the next one tries again."""
        pause = MATCH_EVERY
        while True:
            try:
                await self.match_once()
                pause = MATCH_EVERY
            except asyncio.CancelledError:
                raise
            except Exception:  # the store is down, say: wait longer each time, up to 5 s
                log.warning("lobby: a matchmaker pass failed", exc_info=True)
                await asyncio.to_thread(self.leases.release_all)
                self._matching.clear()
                pause = min(pause * 2, 5.0)
            await asyncio.sleep(pause)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self.run(), name="matchmaker")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        await asyncio.to_thread(self.leases.release_all)
