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
the server. A replica that dies takes its bot processes with it: their games stand still,
and a reserved seat's draw ends void at its abandonment limit.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from server.transport.web.bots import BOTS_END_GRACE, BOTS_POLL_SECONDS, end, loopback, spawn

__all__ = ["GameStatus", "LobbyBotSettings", "LobbyBots", "loopback"]

log = logging.getLogger("tabletop.lobby")

# The bot process's environment variable with its table's secret (`tabletop bots` reads it
# and sends it on JoinGame as the x-lobby-bot header: docs/api.md, "Lobby")
LOBBY_BOT_SECRET = "TABLETOP_LOBBY_BOT_SECRET"

# A game's (version, ended) now, or None when it cannot be read
GameStatus = Callable[[str], Awaitable[tuple[int, bool] | None]]


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
    """The lobby's ``BotRunner`` (server/usecases/lobby.py): starts, counts and ends them."""

    def __init__(
        self,
        settings: LobbyBotSettings,
        target: str,
        status: GameStatus,
        poll: float = BOTS_POLL_SECONDS,
    ) -> None:
        self.settings = settings
        self.target = target  # this server's gRPC address
        self.status = status
        self.poll = poll
        self.runs: dict[str, _Run] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def has_room(self) -> bool:
        return len(self.runs) < self.settings.max_processes

    async def start(self, game_id: str, secret: str) -> None:
        """Start the bots of ``game_id`` (the caller checked ``has_room``), given the table's
        secret in their environment (not their arguments, which every local user may read):
        the bot seats are reserved for the player ids it makes."""
        proc = await spawn(game_id, self.target, env={LOBBY_BOT_SECRET: secret})
        run = self.runs[game_id] = _Run(game_id, proc)
        task = asyncio.create_task(self._watch(run), name=f"lobby-bots {game_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        log.info("lobby: bots started", extra={"game_id": game_id, "pid": proc.pid})

    async def _watch(self, run: _Run) -> None:
        ended_at: float | None = None
        version, moved_at = -1, time.monotonic()
        why = "the bots left"
        try:
            while run.proc.returncode is None:
                try:
                    await asyncio.wait_for(run.proc.wait(), self.poll)
                    break
                except TimeoutError:
                    pass
                now = time.monotonic()
                if now - run.started > self.settings.timeout:
                    why = "timed out (--lobby-bots-timeout)"
                    break
                status = await self.status(run.game_id)
                if status is not None and status[0] != version:
                    version, moved_at = status[0], now
                if now - moved_at > self.settings.idle:
                    why = "the game stood still (--lobby-bots-idle)"
                    break
                if ended_at is None and status is not None and status[1]:
                    ended_at = now
                if ended_at is not None and now - ended_at > BOTS_END_GRACE:
                    why = "the game ended and they stayed"
                    break
        finally:
            await end(run.proc)
            self.runs.pop(run.game_id, None)
            log.info(
                "lobby: bots ended: %s",
                why,
                extra={"game_id": run.game_id, "exit": run.proc.returncode},
            )

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*(end(r.proc) for r in self.runs.values()), return_exceptions=True)
