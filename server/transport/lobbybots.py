"""Bots the server starts itself for the lobby's tables (issue 40, ``--lobby-bots``).

When the matchmaker forms a table with bot seats (its players waited the bot wait they
named), the server starts one bot process for it: the web port's runner
(``tabletop bots --join GAME``, server/transport/web/bots.py ``spawn``), a gRPC client of
its own on this server's port, which takes the seats nobody reserved (the reserved ones are
refused to it: SEAT_RESERVED), deals once the players sat down and plays its seats to the
end. So an app team needs no bot command of its own.

Bounded: at most ``max_processes`` at once on this replica; while all are busy the
matchmaker forms no table that needs bots (its players keep waiting, and a player who
arrives may still fill the seat). Each process ends when its game has ended (after a short
grace), when the game has stood still for ``idle`` seconds (its players went away: the
reserved seats' abandonment ends such a table void anyway), or at ``timeout``; all end with
the server.

The bots outlive their replica: each table's secret is kept in the store
(server/store/lobbybots.py) and the table is played under a lease of its own
(server/store/leases.py, the matchmaker's kind: a PostgreSQL advisory lock that goes with
the replica's session; on SQLite the one process holds it). Every replica's loop looks at
the kept tables every ``poll`` seconds and takes over those whose lease is free and whose
game has not ended: it starts their bots again with the kept secret, and they resume the
seats they hold (``tabletop bots --join`` re-sends the very JoinGame the first process sent,
its key, request id and contribution derived from the secret, and gets the same seat token
back: clients/python/joining.py). A replica that no longer holds a table's lease (its
session was cut off, another took the table) ends its bots there. The kept secret goes
when the game has ended, or when its bots gave it up (idle, timeout).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from server.store.leases import Leases
from server.store.lobbybots import BotSecrets
from server.transport.web.bots import BOTS_END_GRACE, BOTS_POLL_SECONDS, end, loopback, spawn

__all__ = ["GameStatus", "LobbyBotSettings", "LobbyBots", "loopback"]

log = logging.getLogger("tabletop.lobby")

# The bot process's environment variable with its table's secret (`tabletop bots` reads it
# and sends it on JoinGame as the x-lobby-bot header: docs/api.md, "Lobby")
LOBBY_BOT_SECRET = "TABLETOP_LOBBY_BOT_SECRET"

# A game's (version, ended) now, or None when it cannot be read
GameStatus = Callable[[str], Awaitable[tuple[int, bool] | None]]
RESTART_AFTER = 10.0  # seconds before the bots of a table whose process left are started again
MAX_RESTARTS = 5  # times a table's bots may leave before its game ended: then it is given up


def lease_name(game_id: str) -> str:
    """The lease of a lobby table's bots (one replica plays them at a time)."""
    return f"lobby-bots\n{game_id}"


@dataclass(frozen=True)
class LobbyBotSettings:
    max_processes: int = 8  # bot processes at once on this replica (0: the server starts none)
    idle: float = 600.0  # seconds a game may stand still before its bots leave
    timeout: float = 7200.0  # seconds a bot process may live


@dataclass
class _Run:
    game_id: str
    proc: asyncio.subprocess.Process
    started: float = field(default_factory=time.monotonic)


class LobbyBots:
    """The lobby's ``BotRunner`` (server/usecases/lobby.py): starts, counts and ends them,
    and takes over the tables of a replica that died."""

    def __init__(
        self,
        settings: LobbyBotSettings,
        target: str,
        status: GameStatus,
        kept: BotSecrets,
        leases: Leases,
        poll: float = BOTS_POLL_SECONDS,
    ) -> None:
        self.settings = settings
        self.target = target  # this server's gRPC address
        self.status = status
        self.kept = kept  # the tables' secrets, in the store
        self.leases = leases  # one replica plays a table's bots at a time
        self.poll = poll
        self.runs: dict[str, _Run] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._loop: asyncio.Task[None] | None = None
        self._not_before: dict[str, float] = {}  # tables whose bots left: when to try again
        self._early: dict[str, int] = {}  # tables whose bots left before the end: how often
        self._starting: set[str] = set()  # kept by the matchmaker, being started by it
        self._closed = False

    def has_room(self) -> bool:
        return len(self.runs) < self.settings.max_processes

    async def keep(self, game_id: str, secret: str) -> None:
        """Keep a new table's secret, under the table's lease taken first, so that no
        replica's look (this one's neither) starts its bots before ``start`` does."""
        self._starting.add(game_id)
        await asyncio.to_thread(self.leases.hold, lease_name(game_id))  # (a new name: free)
        await asyncio.to_thread(self.kept.add, game_id, secret)

    async def drop(self, game_id: str) -> None:
        self._starting.discard(game_id)
        await self._forget(game_id)

    async def start(self, game_id: str, secret: str) -> None:
        """Start the bots of the kept table ``game_id`` (the caller checked ``has_room``),
        under its lease."""
        try:
            if self._closed or not await asyncio.to_thread(self.leases.hold, lease_name(game_id)):
                return  # stopping, or another replica plays it: the kept secret stays for it
            await self._spawn(game_id, secret)
        finally:
            self._starting.discard(game_id)  # (not started: a look starts it)

    async def _spawn(self, game_id: str, secret: str) -> None:
        """The table's secret goes in the bot process's environment (not its arguments,
        which every local user may read): the bot seats are reserved for the player ids
        it makes."""
        proc = await spawn(game_id, self.target, env={LOBBY_BOT_SECRET: secret})
        run = self.runs[game_id] = _Run(game_id, proc)
        task = asyncio.create_task(self._watch(run), name=f"lobby-bots {game_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        log.info("lobby: bots started", extra={"game_id": game_id, "pid": proc.pid})

    async def take_over(self) -> int:
        """One look at the kept tables: start the bots of each one nobody plays (its lease
        free) whose game has not ended; forget those that ended. Returns the bots started."""
        started = 0
        for table in await asyncio.to_thread(self.kept.tables):
            game_id, name = table.game_id, lease_name(table.game_id)
            if game_id in self.runs or game_id in self._starting:
                continue
            if self._not_before.get(game_id, 0.0) > time.monotonic():
                continue
            if not self.has_room():
                break
            if not await asyncio.to_thread(self.leases.hold, name):
                continue  # another replica plays it
            status = await self.status(game_id)
            if status is None:  # not readable now: the next look
                continue
            if status[1]:
                await self._forget(game_id)
                continue
            # (tests read this line: which replica took a table over)
            log.info("lobby: this replica plays the bots of table %s", game_id)
            await self._spawn(game_id, table.secret)
            started += 1
        return started

    async def _forget(self, game_id: str) -> None:
        """The table needs no bots any more: its secret and its lease go."""
        self._not_before.pop(game_id, None)
        self._early.pop(game_id, None)
        await asyncio.to_thread(self.kept.remove, game_id)
        await asyncio.to_thread(self.leases.release, lease_name(game_id))

    async def run(self) -> None:
        """Take tables over every ``poll`` seconds until cancelled (a failing look is logged
        and tried again)."""
        while True:
            try:
                await self.take_over()
            except asyncio.CancelledError:
                raise
            except Exception:  # the store is down, say
                log.warning("lobby: a look at the bot tables failed", exc_info=True)
            await asyncio.sleep(self.poll)

    def start_loop(self) -> None:
        self._loop = asyncio.get_running_loop().create_task(self.run(), name="lobby-bots")

    async def _watch(self, run: _Run) -> None:
        ended_at: float | None = None
        version, moved_at = -1, time.monotonic()
        why, done = "the bots left", False  # done: the table needs no bots any more
        lost = False  # another replica plays the table now
        try:
            while run.proc.returncode is None:
                try:
                    await asyncio.wait_for(run.proc.wait(), self.poll)
                    break
                except TimeoutError:
                    pass
                now = time.monotonic()
                if now - run.started > self.settings.timeout:
                    why, done = "timed out (--lobby-bots-timeout)", True
                    break
                if not await self._still_held(run.game_id):
                    why, lost = "this replica lost the table's lease (another plays it)", True
                    break
                status = await self.status(run.game_id)
                if status is not None and status[0] != version:
                    version, moved_at = status[0], now
                if now - moved_at > self.settings.idle:
                    why, done = "the game stood still (--lobby-bots-idle)", True
                    break
                if ended_at is None and status is not None and status[1]:
                    ended_at = now
                if ended_at is not None and now - ended_at > BOTS_END_GRACE:
                    why, done = "the game ended and they stayed", True
                    break
        finally:
            await end(run.proc)
            self.runs.pop(run.game_id, None)
            log.info(
                "lobby: bots ended: %s",
                why,
                extra={"game_id": run.game_id, "exit": run.proc.returncode},
            )
        if lost:
            return
        if not done:  # they left by themselves: the game ended, or they start again later
            status = await self.status(run.game_id)
            done = status is not None and status[1]
            early = self._early[run.game_id] = self._early.get(run.game_id, 0) + 1
            self._not_before[run.game_id] = time.monotonic() + RESTART_AFTER
            if not done and early > MAX_RESTARTS:
                log.warning("lobby: table %s given up: its bots keep leaving", run.game_id)
                done = True
        if done:
            try:
                await self._forget(run.game_id)
            except Exception:  # the next look forgets it
                log.warning("lobby: forgetting table %s failed", run.game_id, exc_info=True)

    async def _still_held(self, game_id: str) -> bool:
        """Whether this replica still holds the table's lease (a lease connection that
        failed held nothing: its session's locks went with it)."""
        try:
            return await asyncio.to_thread(self.leases.hold, lease_name(game_id))
        except Exception:
            log.warning("lobby: the lease of table %s could not be checked", game_id)
            return False

    async def close(self) -> None:
        """End every bot process of this replica (the server stops); their tables' secrets
        stay kept, for the next replica to take over."""
        self._closed = True
        if self._loop is not None:
            self._loop.cancel()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*(end(r.proc) for r in self.runs.values()), return_exceptions=True)
        await asyncio.to_thread(self.leases.release_all)  # another replica takes them at once
