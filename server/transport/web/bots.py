"""Bots for a browser's table: ``POST /bots`` starts a bot process that takes the game's free
seats (``python -m clients.python.cli bots --join``, a gRPC client of its own, with
``--web-bots`` only); each process is counted, watched and ended with its game.

Bot processes are a shared, costly resource, so one client must not hold them all: they are
counted in all, per asking network (a /24 or /64) and per asking address (the tables'
creator: the same key the gRPC limits count a client by), and a run ends when its game has
stood still for ``idle`` seconds (its person went away: bots move at once on their turns,
so a game that does not move is waiting for its person), not only at the 2-hour timeout.

The bots wait ``delay_ms`` (``--web-bots-delay-ms``, 1.5 s) before answering their person's
move, so that 误操作 (taking one's last move back, possible only before anyone else acts) can
be used against them, and they vote on cases as an honest player would
(clients/python/bots.py ``honest_vote``)."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import grpc

from clients.python.serverproc import dies_with_this_process
from server.transport.peers import FORWARDED_HEADER, forwarded, network_of
from tabletop.v1 import tabletop_pb2 as pb

log = logging.getLogger("tabletop.web")

SERVICE = pb.DESCRIPTOR.services_by_name["TableService"]
BOTS_BODY_MAX = 4096
BOTS_POLL_SECONDS = 2.0  # how often a bot process's game is looked at
BOTS_END_GRACE = 10.0  # seconds the bots get to leave after their game ended


@dataclass
class BotSettings:
    enabled: bool = False
    max_processes: int = 8  # bot processes at once, over all games
    timeout: float = 7200.0  # seconds a bot process may live
    per_network: int = 4  # bot processes at once asked for from one /24 or /64
    per_client: int = 2  # bot processes at once asked for from one address
    idle: float = 600.0  # seconds the game may stand still before its bots leave
    delay_ms: int = 1500  # how long a bot waits before answering its person's move (误操作)


@dataclass(frozen=True)
class Asker:
    """Who asked for bots: the address, and the network it is in."""

    address: str
    network: str

    @classmethod
    def of(cls, address: str) -> Asker:
        return cls(address, network_of(address))


@dataclass
class _BotRun:
    game_id: str
    proc: asyncio.subprocess.Process
    asker: Asker
    started: float = field(default_factory=time.monotonic)


class Refused(Exception):
    """An HTTP refusal with its one-line reason."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class Bots:
    """Bot processes started by ``POST /bots``: counted, watched, ended."""

    def __init__(self, settings: BotSettings, channel: grpc.aio.Channel, target: str) -> None:
        self.settings = settings
        self.target = target  # the gRPC address the bots play at
        self.get_view = channel.unary_unary(
            f"/{SERVICE.full_name}/GetView",
            request_serializer=pb.GetViewRequest.SerializeToString,
            response_deserializer=pb.GetViewResponse.FromString,
        )
        self.runs: dict[str, _BotRun] = {}
        self._starting: dict[str, Asker] = {}  # games whose bots process is being started
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self, body: bytes, peer: str, address: str) -> dict[str, Any]:
        """Start the bots ``body`` asks for, for the browser at ``address`` (its gRPC
        ``peer`` string too); raises ``Refused``."""
        if not self.settings.enabled:
            raise Refused(
                403,
                "本服务器未开启机器人 (bots are not enabled on this server: start it with --web-bots)",
            )
        try:
            asked = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            raise Refused(400, '请求不是 JSON (send {"game_id": ..., "token": ...})') from None
        if not isinstance(asked, dict):
            raise Refused(400, '请求不是 JSON 对象 (send {"game_id": ..., "token": ...})')
        game_id, token = asked.get("game_id"), asked.get("token")
        if not isinstance(game_id, str) or not game_id or len(game_id) > 64:
            raise Refused(400, "缺少牌局 (game_id: the game's id is missing)")
        if not isinstance(token, str) or not token:
            raise Refused(
                403,
                "需要本局的座位或裁判令牌 (token: a seat or arbiter token of that game is needed)",
            )
        if not token.isascii() or not token.isprintable() or len(token) > 256:
            raise Refused(403, "令牌不属于本局 (token: not a token of that game)")
        view = await self._view(game_id, token, peer)
        if view.role not in (pb.ROLE_SEAT, pb.ROLE_ARBITER):
            raise Refused(
                403, "令牌不属于本局的座位或裁判 (token: not a seat or arbiter token of that game)"
            )
        game_id = view.game_id or game_id
        if view.phase != pb.GAME_PHASE_WAITING or all(s.taken for s in view.seats):
            raise Refused(400, "本局没有空座位 (the game has no free seat for bots)")
        # checked and reserved with no await in between: two asks at once start one process
        run = self.runs.get(game_id)
        if game_id in self._starting or (run is not None and run.proc.returncode is None):
            raise Refused(409, "机器人已在入座 (bots are already taking this game's seats)")
        asker = Asker.of(address)
        self._check_quota(asker)
        self._starting[game_id] = asker
        try:
            proc = await self._spawn(game_id)
        finally:
            del self._starting[game_id]
        self.runs = {g: r for g, r in self.runs.items() if r.proc.returncode is None}
        self.runs[game_id] = _BotRun(game_id, proc, asker)
        task = asyncio.create_task(self._watch(self.runs[game_id]))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        free = [s.seat for s in view.seats if not s.taken]
        log.info("bots started", extra={"game_id": game_id, "seats": free, "pid": proc.pid})
        return {"game_id": game_id, "seats": free}

    def _live_askers(self) -> list[Asker]:
        running = [r.asker for r in self.runs.values() if r.proc.returncode is None]
        return running + list(self._starting.values())

    def _check_quota(self, asker: Asker) -> None:
        """Refuse (429) one more bots process in all, for the asker's network, or for the
        asker itself."""
        live = self._live_askers()
        most = self.settings
        if len(live) >= most.max_processes:
            raise Refused(
                429,
                "机器人桌数已满，请稍后再试 "
                f"(bots play {most.max_processes} tables already, the most at once)",
            )
        if sum(a.network == asker.network for a in live) >= most.per_network:
            raise Refused(
                429,
                "你的网络已有太多机器人桌，请先结束一桌 (bots play "
                f"{most.per_network} tables for your network {asker.network} already, the most "
                "at once: --web-bots-per-network)",
            )
        if sum(a.address == asker.address for a in live) >= most.per_client:
            raise Refused(
                429,
                "你已有太多机器人桌，请先结束一桌 (bots play "
                f"{most.per_client} tables for you already, the most at once: "
                "--web-bots-per-client)",
            )

    async def _spawn(self, game_id: str) -> asyncio.subprocess.Process:
        return await spawn(game_id, self.target, self.settings.delay_ms)

    async def _view(self, game_id: str, token: str, peer: str) -> pb.GameView:
        metadata = [("x-seat-token", token), (FORWARDED_HEADER, forwarded(peer))]
        try:
            reply = await self.get_view(
                pb.GetViewRequest(game_id=game_id), metadata=metadata, timeout=10
            )
        except grpc.aio.AioRpcError as err:
            status = (
                400
                if err.code() in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND)
                else 403
            )
            if err.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                status = 503
            said = {400: "找不到本局", 403: "令牌不属于本局", 503: "服务器暂不可用"}[status]
            why = (err.details() or err.code().name).splitlines()[0]
            raise Refused(status, f"{said} ({why})") from None
        return reply.view

    async def _watch(self, run: _BotRun) -> None:
        """End the run's process when its game has ended (after a grace), when the game has
        stood still for ``idle`` seconds, or at the timeout."""
        ended_at: float | None = None
        version, moved_at = -1, time.monotonic()
        why = "the bots left"
        try:
            while run.proc.returncode is None:
                try:
                    await asyncio.wait_for(run.proc.wait(), BOTS_POLL_SECONDS)
                    break
                except TimeoutError:
                    pass
                now = time.monotonic()
                if now - run.started > self.settings.timeout:
                    why = "timed out (--web-bots-timeout)"
                    break
                view = await self._public_view(run.game_id)
                if view is not None and view.version != version:
                    version, moved_at = view.version, now
                if now - moved_at > self.settings.idle:
                    why = "the game stood still (--web-bots-idle)"
                    break
                if ended_at is None and view is not None and view.phase == pb.GAME_PHASE_FINISHED:
                    ended_at = now
                if ended_at is not None and now - ended_at > BOTS_END_GRACE:
                    why = "the game ended and they stayed"
                    break
        finally:
            await end(run.proc)
            log.info(
                "bots ended: %s",
                why,
                extra={
                    "game_id": run.game_id,
                    "exit": run.proc.returncode,
                    "seconds": round(time.monotonic() - run.started, 1),
                },
            )

    async def _public_view(self, game_id: str) -> pb.GameView | None:
        """The game's public view, or None when it cannot be read now."""
        try:
            reply = await self.get_view(pb.GetViewRequest(game_id=game_id), timeout=10)
        except grpc.aio.AioRpcError:
            return None
        view: pb.GameView = reply.view
        return view

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*(end(r.proc) for r in self.runs.values()), return_exceptions=True)


async def end(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is not None:
        return
    try:
        proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), 5)
        except TimeoutError:
            proc.kill()
            await proc.wait()
    except ProcessLookupError:
        pass


# The bot process ends with the server (PR_SET_PDEATHSIG through the trampoline that starts
# test servers the same way, clients/python/serverproc.py): a SIGKILLed server leaves no
# bots behind, still playing its tables' seats against a port nobody serves, or against the
# next server on that port while another replica plays them.


async def spawn(
    game_id: str, target: str, delay_ms: int = 0, env: dict[str, str] | None = None
) -> asyncio.subprocess.Process:
    """A bot process that takes ``game_id``'s free seats at the gRPC ``target``, deals once
    every seat is taken and plays its seats to the end (``tabletop bots --join``); seats it
    is refused (reserved, taken) it leaves to their players; ``delay_ms`` after a move that
    was not a bot's. It ends with the server (on Linux)."""
    bots = [
        "-m",
        "clients.python.cli",
        "bots",
        "--join",
        game_id,
        "--target",
        target,
        "--bot",
        "steady",  # the bots a person plays against (docs/bots.md), as `tabletop play`
        "--bot-delay-ms",
        str(delay_ms),  # the person may still take a move back (误操作)
        "--quiet",
        "--no-color",
    ]
    return await asyncio.create_subprocess_exec(
        sys.executable,
        *dies_with_this_process(bots),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
        close_fds=False,  # posix_spawn, not fork: see clients/python/serverproc.py
        env={**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1"},
    )


def loopback(host: str, port: int) -> str:
    """The gRPC port's address as this process reaches it."""
    if host in ("", "0.0.0.0"):
        return f"127.0.0.1:{port}"
    if host == "::":
        return f"[::1]:{port}"
    if ":" in host and not host.startswith("["):
        return f"[{host}]:{port}"
    return f"{host}:{port}"
