"""The live spectator viewer over HTTP (``--http-port``): the referee's console, read-only.

For a big screen at a tournament: anyone may open ``/games/GAME_ID`` in a browser and follow
the table as a spectator sees it. Every response is the public view (and, from the end of the
game on, what the end shows everyone), whoever asks. A game's own seats and arbiter may name
themselves with their token (the ``X-Seat-Token`` header, or ``?token=`` on the steps URL,
which is how the page passes on a ``#token=`` in its own address: EventSource sends no
headers): it shows them nothing more, but their streams are never refused for the game's or
their network's limits (livefeed.StreamCounts), so a flood of viewers cannot lock a table's
own people out of it.

Routes:

* ``GET /games/{id}`` -- the page (server/wire/page, the same one as the replay file).
* ``GET /games/{id}/steps`` -- Server-Sent Events: one ``step`` event per version (its event
  and the spectator's view, as JSON) from ``?after=N`` (or the ``Last-Event-ID`` a
  reconnecting browser sends) on, live; an ``end`` event once the game is over.
* ``GET /games/{id}/steps.json?after=N&limit=M`` -- the same steps for polling clients.

aiohttp runs on the server's own asyncio loop, next to grpc.aio: the steps come from
``Watch.follow`` (the Watch fan-out and its no-gap, no-duplicate order), one feed per
game shared by all of its streams (server/transport/livefeed.py, which also counts streams
per network prefix and per game), and nothing here touches the store but through the
TableServer. Numbers in a request are 1 to 19 ASCII digits; anything else is a 400.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web as aio

from domain.engine import SPECTATOR, MalformedCommand, Role
from server.transport.livefeed import (
    Feeds,
    GameFeed,
    Place,
    StreamCounts,
    ViewerLimits,
    step_data,
)
from server.transport.verify_command import audit_command, grpc_target
from server.usecases.games import NotFound, PermissionDenied
from server.usecases.table_server import TableServer
from server.wire import page as web

log = logging.getLogger("tabletop.http")
MAX_POLL_STEPS = 500
NUMBER = re.compile(r"[0-9]{1,19}")  # ASCII only: str.isdigit also takes "²" and "٣"
# The page is inline and talks only to this server (a replay file: to nobody).
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}

Handler = Callable[[aio.Request], Awaitable[aio.StreamResponse]]


class LiveViewer:
    def __init__(
        self, tables: TableServer, limits: ViewerLimits | None = None, grpc_port: int = 0
    ) -> None:
        self.tables = tables
        self.grpc_port = grpc_port  # for the verify command the page shows
        self.limits = limits or ViewerLimits()
        self.streams = StreamCounts(self.limits)
        self.feeds = Feeds(tables, self.limits.feed_bytes)

    def app(self) -> aio.Application:
        app = aio.Application(middlewares=[_errors])
        app.router.add_get("/", self.index)
        app.router.add_get("/games/{game_id}", self.page)
        app.router.add_get("/games/{game_id}/steps", self.stream)
        app.router.add_get("/games/{game_id}/steps.json", self.poll)
        return app

    async def close(self) -> None:
        """End every open event stream (on shutdown; browsers reconnect elsewhere)."""
        await self.feeds.close()

    async def index(self, request: aio.Request) -> aio.Response:
        return aio.Response(
            text="tabletop live viewer: open /games/GAME_ID for a table's public view\n",
            headers=SECURITY_HEADERS,
        )

    async def page(self, request: aio.Request) -> aio.Response:
        game_id = request.match_info["game_id"]
        snap = await self.tables.watch.snapshot(game_id, SPECTATOR, None)
        target = grpc_target(request.url.host or "127.0.0.1", self.grpc_port)
        command = f"{audit_command(request.remote)} verify {snap.game_id} --target {target}"
        data = {
            "game_id": str(snap.game_id),
            "kind": snap.table.kind,
            "viewers": [{"key": "spectator", "label": "spectator (live)", "steps": []}],
            "default_viewer": "spectator",
            "verify": {
                "status": "live",
                "message": f"终局后用 {command} 验证",
                "command": command,  # runs as shown from any folder (verify_command.py)
            },
            "prepared_deal": None,
            "live": {"steps_url": f"/games/{snap.game_id}/steps"},
            "source": "live from the table server: the public view",
        }
        return aio.Response(
            text=web.page(data, live=True), content_type="text/html", headers=SECURITY_HEADERS
        )

    async def poll(self, request: aio.Request) -> aio.Response:
        game_id = request.match_info["game_id"]
        after = _number(request.query.get("after", "0"), "after")
        limit = min(_number(request.query.get("limit", "100"), "limit") or 1, MAX_POLL_STEPS)
        latest = await self.tables.watch.snapshot(game_id, SPECTATOR, None)
        steps = []
        if after < latest.version:
            last = min(latest.version, after + limit)
            async for event, snap in self.tables.watch.replay(game_id, SPECTATOR, after + 1, last):
                steps.append(step_data(snap.table.kind, event, snap))
        finished = latest.table.outcome is not None
        body = {"version": latest.version, "finished": finished, "steps": steps}
        return aio.json_response(body, headers=SECURITY_HEADERS, dumps=_dumps)

    async def stream(self, request: aio.Request) -> aio.StreamResponse:
        game_id = request.match_info["game_id"]
        resume = request.headers.get("Last-Event-ID") or request.query.get("after", "0")
        after = _number(resume, "after")
        latest = await self.tables.watch.snapshot(game_id, SPECTATOR, None)  # 404 before the stream
        if after > latest.version:
            raise MalformedCommand("after", f"must be 0..{latest.version}")
        game = str(latest.game_id)  # one count and one feed whatever the id's spelling
        place = Place.of(request.remote, game, await self._own(request, game))
        refused = self.streams.refusal(place)
        if refused:
            raise aio.HTTPTooManyRequests(text=refused + "\n", headers={"Retry-After": "10"})
        with self.streams.held(place), self.feeds.joined(game) as feed:
            return await self._stream(request, feed, after)

    async def _own(self, request: aio.Request, game_id: str) -> str:
        """Who of the game's own the request's token names ("seat 2", "arbiter"), or ""
        with no token; a token that is not the game's is a 403 (PermissionDenied)."""
        token = request.headers.get("X-Seat-Token") or request.query.get("token", "")
        if not token:
            return ""
        if len(token) > 256 or not token.isascii() or not token.isprintable():
            raise PermissionDenied("the token is not valid for this game")
        viewer = await self.tables.games.authenticate(game_id, token)
        if viewer.role == Role.ARBITER:
            return "arbiter"
        return f"seat {viewer.seat}" if viewer.role == Role.SEAT else ""

    async def _stream(self, request: aio.Request, feed: GameFeed, after: int) -> aio.StreamResponse:
        response = aio.StreamResponse(
            headers={
                **SECURITY_HEADERS,
                "Content-Type": "text/event-stream; charset=utf-8",
                "X-Accel-Buffering": "no",  # no buffering at an nginx in front
            }
        )
        await response.prepare(request)
        try:
            async for chunk in feed.chunks_after(after):
                await response.write(chunk)
        except ConnectionResetError:  # aiohttp's ClientConnectionResetError too
            # A closed tab, the commonest end of a stream: one quiet line, no traceback.
            log.info("live stream of %s closed by the viewer at %s", feed.game_id, request.remote)
        return response


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _number(value: str, name: str) -> int:
    if not NUMBER.fullmatch(value):
        raise MalformedCommand(name, "must be a number of 1 to 19 digits 0-9")
    return int(value)


@aio.middleware
async def _errors(request: aio.Request, handler: Handler) -> aio.StreamResponse:
    """The API's refusals as HTTP statuses with a JSON body naming the field."""
    try:
        return await handler(request)
    except NotFound as exc:
        return aio.json_response({"error": "NOT_FOUND", "message": str(exc)}, status=404)
    except PermissionDenied as exc:
        return aio.json_response({"error": "PERMISSION_DENIED", "message": str(exc)}, status=403)
    except MalformedCommand as exc:
        body = {"error": "INVALID_ARGUMENT", "field": exc.field, "message": exc.description}
        return aio.json_response(body, status=400)


async def start(
    tables: TableServer,
    host: str,
    port: int,
    limits: ViewerLimits | None = None,
    grpc_port: int = 0,
) -> tuple[LiveViewer, aio.AppRunner, int]:
    """Serve the live viewer on ``host:port`` (0: a free port); returns the bound port."""
    viewer = LiveViewer(tables, limits, grpc_port)
    runner = aio.AppRunner(viewer.app(), access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    await aio.TCPSite(runner, host, port).start()
    return viewer, runner, int(runner.addresses[0][1])


async def stop(viewer: LiveViewer, runner: aio.AppRunner) -> None:
    await viewer.close()
    await runner.cleanup()
