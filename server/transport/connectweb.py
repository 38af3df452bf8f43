"""The API for browsers (``--web-port``): Connect and gRPC-Web, the play page, and bots.

Browsers cannot speak gRPC (they have no HTTP/2 trailers), so the web port serves the same
``protos/`` service over the Connect protocol and gRPC-Web with the ``connectrpc`` library,
on uvicorn, on the server's own asyncio loop. Routes, all on one origin:

* ``POST /tabletop.v1.TableService/METHOD`` -- every method of ``TableService``, unary and
  server streams (Watch, Replay), in Connect (``application/json``, ``application/proto``,
  ``application/connect+json|proto`` for streams) or gRPC-Web
  (``application/grpc-web+proto``, ``application/grpc-web+json``).
* ``POST /bots`` -- ``{"game_id": ..., "token": ...}``: bots take the game's free seats
  (``python -m clients.python.cli bots --join``, a gRPC client of its own), with
  ``--web-bots`` only.
* ``GET /...`` -- the play page's built files (``--web-root``, clients/web/dist).

**Identical to gRPC by construction.** Each call is forwarded, as the bytes the browser
sent, to this process's gRPC server over a loopback ``grpc.aio`` channel (one generic
forwarder per method, made from the service descriptor: no code per method), with the
request headers as call metadata (``x-seat-token`` among them) and the browser's deadline.
So the very interceptors and servicer that serve gRPC clients check the size, decode the
request (a malformed one: ``INVALID_ARGUMENT`` with its ``BadRequest``), count the
streams and games, authenticate the token, take the move rate and answer from the
idempotency keys. The gRPC status code, message and ``grpc-status-details-bin`` details
(``ErrorInfo``, ``BadRequest``, ``QuotaFailure``, ``RetryInfo``...) come back as a
``ConnectError`` carrying the same details, which each protocol encodes its own way
(Connect: the JSON error body's ``details``; gRPC-Web: the ``grpc-status-details-bin``
trailer). The limits see the browser, not the loopback connection: the forwarder names the
browser's address in a metadata entry only this process can make (server/transport/peers.py).

Binary requests are not decoded here at all; a JSON request (Connect's default in
browsers) is turned into the binary message first, and a JSON one that does not parse is
refused as the gRPC server refuses a malformed binary one.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import mimetypes
import os
import socket
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import grpc
import uvicorn
from connectrpc.code import Code
from connectrpc.errors import ConnectError, ErrorDetail
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import descriptor as pbd
from google.protobuf import json_format, message_factory
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2
from protobuf.wkt import Any as PyAny

from server.transport.peers import FORWARDED_HEADER, forwarded
from tabletop.v1 import tabletop_pb2 as pb

log = logging.getLogger("tabletop.web")

SERVICE = pb.DESCRIPTOR.services_by_name["TableService"]
PREFIX = f"/{SERVICE.full_name}/"
NOT_BUILT = "the play page is not built: run make web"
BOTS_BODY_MAX = 4096
BOTS_POLL_SECONDS = 2.0  # how often a bot process's game is looked at
BOTS_END_GRACE = 10.0  # seconds the bots get to leave after their game ended
DEFAULT_WEB_ROOT = Path(__file__).resolve().parents[2] / "clients" / "web" / "dist"

# Request headers that belong to HTTP or to the Connect/gRPC-Web framing, not to the call:
# never forwarded as metadata (gRPC reserves grpc-* and the pseudo-headers itself).
_HTTP_HEADERS = frozenset(
    {
        "host",
        "connection",
        "keep-alive",
        "transfer-encoding",
        "upgrade",
        "te",
        "trailer",
        "content-type",
        "content-length",
        "content-encoding",
        "accept",
        "accept-encoding",
        "accept-language",
        "cookie",
        "origin",
        "referer",
        "user-agent",
        "x-user-agent",
        "x-grpc-web",
        "priority",
        "pragma",
        "cache-control",
        "dnt",
        FORWARDED_HEADER,  # only the forwarder itself names a peer
    }
)
_HTTP_PREFIXES = ("grpc-", "connect-", "sec-", "access-control-", ":")
_METADATA_KEY = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_.")

# gRPC status -> Connect code (the same names but CANCELLED, which Connect spells CANCELED)
_CODES: dict[grpc.StatusCode, Code] = {
    s: Code(s.name.lower()) for s in grpc.StatusCode if s.name not in ("OK", "CANCELLED")
}
_CODES[grpc.StatusCode.CANCELLED] = Code.CANCELED


# --- the codecs: bytes through, JSON turned into bytes ------------------------------------


JSON_INLINE_BYTES = 64 << 10  # larger JSON requests are converted off the event loop


class Raw:
    """A message as bytes, with its protobuf class (for the JSON codec); a JSON request
    keeps its ``json`` text until ``binary()`` converts it."""

    __slots__ = ("data", "json", "type")

    def __init__(self, data: bytes, type: type[Message], json: bytes | None = None) -> None:
        self.data = data
        self.type = type
        self.json = json

    async def binary(self) -> bytes:
        """The binary message (a JSON one converted, large ones in a worker thread: the
        protobuf JSON parser is pure Python, about 0.1 s a megabyte)."""
        if self.json is None:
            return self.data
        text, self.json = self.json, None
        if len(text) <= JSON_INLINE_BYTES:
            self.data = _from_json(text, self.type)
        else:
            self.data = await asyncio.to_thread(_from_json, text, self.type)
        return self.data


def _from_json(text: bytes, message_class: type[Message]) -> bytes:
    message = message_class()
    try:
        json_format.Parse(text, message, ignore_unknown_fields=True)
    except (json_format.ParseError, ValueError, TypeError, RecursionError):
        raise malformed() from None
    return message.SerializeToString()


def malformed() -> ConnectError:
    """What the gRPC server answers a request that is not a message of its type
    (server/transport/limits.py): INVALID_ARGUMENT with a BadRequest."""
    description = "the request is not a valid message of its type"
    bad = error_details_pb2.BadRequest(
        field_violations=[error_details_pb2.BadRequest.FieldViolation(description=description)]
    )
    return ConnectError(Code.INVALID_ARGUMENT, description, [_detail(bad)])


class ProtoCodec:
    """Binary protobuf, passed through: the gRPC server decodes it (and refuses it)."""

    def name(self) -> str:
        return "proto"

    def encode(self, message: Raw) -> bytes:
        return message.data

    def decode(self, data: bytes | bytearray, message_class: type[Message]) -> Raw:
        return Raw(bytes(data), message_class)


class JsonCodec:
    """The protobuf JSON mapping (what connect-web sends by default)."""

    def name(self) -> str:
        return "json"

    def encode(self, message: Raw) -> bytes:
        decoded = message.type.FromString(message.data)
        text = json_format.MessageToJson(decoded, indent=None, ensure_ascii=False)
        return text.encode()

    def decode(self, data: bytes | bytearray, message_class: type[Message]) -> Raw:
        return Raw(b"", message_class, json=bytes(data))  # converted by the forwarder


# --- the forwarder -------------------------------------------------------------------------


def _detail(message: Message) -> ErrorDetail:
    return ErrorDetail(
        PyAny(
            type_url=f"type.googleapis.com/{message.DESCRIPTOR.full_name}",
            value=message.SerializeToString(),
        )
    )


def _browser_peer(address: str | None) -> str:
    """ASGI's ``host:port`` of the browser as a gRPC peer string (``ipv4:1.2.3.4:5``)."""
    if not address:
        return "web:unknown"
    host, _, port = address.rpartition(":")
    if ":" in host:
        return f"ipv6:[{host}]:{port}"
    return f"ipv4:{host}:{port}"


def _metadata(headers: Iterable[tuple[str, str]], peer: str) -> list[tuple[str, str | bytes]]:
    """The call's metadata: the request headers that are not HTTP's or the framing's."""
    out: list[tuple[str, str | bytes]] = []
    for key, value in headers:
        key = key.lower()
        if key in _HTTP_HEADERS or key.startswith(_HTTP_PREFIXES) or not key:
            continue
        if not set(key) <= _METADATA_KEY:
            continue
        if key.endswith("-bin"):  # binary metadata travels base64-encoded over HTTP/1.1
            try:
                out.append((key, base64.b64decode(value + "=" * (-len(value) % 4))))
            except ValueError:
                continue
        elif value.isascii() and value.isprintable():
            out.append((key, value))
    out.append((FORWARDED_HEADER, forwarded(peer)))
    return out


def to_connect_error(err: grpc.aio.AioRpcError) -> ConnectError:
    """The gRPC status as a ConnectError: same code, message and rich details."""
    details: list[ErrorDetail] = []
    for key, value in err.trailing_metadata() or ():
        if key == "grpc-status-details-bin" and isinstance(value, bytes):
            status = status_pb2.Status.FromString(value)
            details = [
                ErrorDetail(PyAny(type_url=d.type_url, value=d.value)) for d in status.details
            ]
    return ConnectError(_CODES.get(err.code(), Code.UNKNOWN), err.details() or "", details)


def _copy_metadata(metadata: Any, into: Any) -> None:
    """The call's response metadata as response headers (or trailers), but gRPC's own."""
    for key, value in metadata or ():
        if key in _HTTP_HEADERS or key.startswith(_HTTP_PREFIXES):
            continue
        if isinstance(value, bytes):
            value = base64.b64encode(value).decode()
        into.add(key, str(value))


class Forwarder:
    """Each method of ``service`` as a connectrpc endpoint that calls it over ``channel``."""

    def __init__(self, channel: grpc.aio.Channel, service: pbd.ServiceDescriptor = SERVICE):
        self.channel = channel
        self.service = service

    def endpoints(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for method in self.service.methods:
            path = f"/{self.service.full_name}/{method.name}"
            info: MethodInfo[Any, Any] = MethodInfo(
                name=method.name,
                service_name=self.service.full_name,
                input=message_factory.GetMessageClass(method.input_type),
                output=message_factory.GetMessageClass(method.output_type),
                idempotency_level=IdempotencyLevel.UNKNOWN,
                stream_type=StreamType.SERVER_STREAM
                if method.server_streaming
                else StreamType.UNARY,
            )
            if method.client_streaming:
                continue  # none in this service
            if method.server_streaming:
                out[path] = Endpoint.server_stream(method=info, function=self._stream(path, info))
            else:
                out[path] = Endpoint.unary(method=info, function=self._unary(path, info))
        return out

    @staticmethod
    def _call_args(ctx: Any) -> dict[str, Any]:
        timeout = ctx.timeout_ms
        if timeout is not None and timeout <= 0:
            raise ConnectError(Code.DEADLINE_EXCEEDED, "deadline exceeded")
        headers = ctx.request_headers.allitems()
        return {
            "metadata": _metadata(headers, _browser_peer(ctx.client_address)),
            "timeout": None if timeout is None else timeout / 1000,
        }

    def _unary(self, path: str, info: MethodInfo[Any, Any]) -> Callable[..., Awaitable[Raw]]:
        call_unary = self.channel.unary_unary(path)
        output = info.output

        async def forward(request: Raw, ctx: Any) -> Raw:
            call = call_unary(await request.binary(), **self._call_args(ctx))
            try:
                reply = await call
                _copy_metadata(await call.initial_metadata(), ctx.response_headers)
                _copy_metadata(await call.trailing_metadata(), ctx.response_trailers)
            except grpc.aio.AioRpcError as err:
                _copy_metadata(err.trailing_metadata(), ctx.response_trailers)
                raise to_connect_error(err) from None
            return Raw(reply, output)

        return forward

    def _stream(self, path: str, info: MethodInfo[Any, Any]) -> Callable[..., AsyncIterator[Raw]]:
        call_stream = self.channel.unary_stream(path)
        output = info.output

        async def forward(request: Raw, ctx: Any) -> AsyncIterator[Raw]:
            call = call_stream(await request.binary(), **self._call_args(ctx))
            try:
                _copy_metadata(await call.initial_metadata(), ctx.response_headers)
                async for reply in call:
                    yield Raw(reply, output)
                _copy_metadata(await call.trailing_metadata(), ctx.response_trailers)
            except grpc.aio.AioRpcError as err:
                _copy_metadata(err.trailing_metadata(), ctx.response_trailers)
                raise to_connect_error(err) from None
            finally:
                call.cancel()  # the browser went away: end the gRPC stream too (no-op once done)

        return forward


class ApiApp(ConnectASGIApplication[None]):
    """The Connect/gRPC-Web ASGI application of the forwarded service."""

    def __init__(self, forwarder: Forwarder, read_max_bytes: int) -> None:
        super().__init__(
            service=None,
            endpoints=lambda _svc: forwarder.endpoints(),
            read_max_bytes=read_max_bytes,
            codecs=[ProtoCodec(), JsonCodec()],  # type: ignore[list-item]
        )
        self._path = f"/{forwarder.service.full_name}"

    @property
    def path(self) -> str:
        return self._path


# --- bots ----------------------------------------------------------------------------------


@dataclass
class BotSettings:
    enabled: bool = False
    max_processes: int = 8  # bot processes at once, over all games
    timeout: float = 7200.0  # seconds a bot process may live


@dataclass
class _BotRun:
    game_id: str
    proc: asyncio.subprocess.Process
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
        self._starting: set[str] = set()  # games whose bots process is being started
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self, body: bytes, peer: str) -> dict[str, Any]:
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
        live = len(self._starting) + sum(1 for r in self.runs.values() if r.proc.returncode is None)
        if live >= self.settings.max_processes:
            most = self.settings.max_processes
            raise Refused(
                429,
                f"机器人桌数已满，请稍后再试 (bots play {most} tables already, the most at once)",
            )
        self._starting.add(game_id)
        try:
            proc = await self._spawn(game_id)
        finally:
            self._starting.discard(game_id)
        self.runs = {g: r for g, r in self.runs.items() if r.proc.returncode is None}
        self.runs[game_id] = _BotRun(game_id, proc)
        task = asyncio.create_task(self._watch(self.runs[game_id]))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        free = [s.seat for s in view.seats if not s.taken]
        log.info("bots started", extra={"game_id": game_id, "seats": free, "pid": proc.pid})
        return {"game_id": game_id, "seats": free}

    async def _spawn(self, game_id: str) -> asyncio.subprocess.Process:
        return await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "clients.python.cli",
            "bots",
            "--join",
            game_id,
            "--target",
            self.target,
            "--bot",
            "steady",  # the bots a person plays against (docs/bots.md), as `tabletop play`
            "--quiet",
            "--no-color",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            close_fds=False,  # posix_spawn, not fork: see clients/python/serverproc.py
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )

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
        """End the run's process when its game has ended (after a grace) or at the timeout."""
        ended_at: float | None = None
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
                if ended_at is None and await self._ended(run.game_id):
                    ended_at = now
                if ended_at is not None and now - ended_at > BOTS_END_GRACE:
                    why = "the game ended and they stayed"
                    break
        finally:
            await _end(run.proc)
            log.info(
                "bots ended: %s",
                why,
                extra={
                    "game_id": run.game_id,
                    "exit": run.proc.returncode,
                    "seconds": round(time.monotonic() - run.started, 1),
                },
            )

    async def _ended(self, game_id: str) -> bool:
        try:
            reply = await self.get_view(pb.GetViewRequest(game_id=game_id), timeout=10)
        except grpc.aio.AioRpcError:
            return False
        return bool(reply.view.phase == pb.GAME_PHASE_FINISHED)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*(_end(r.proc) for r in self.runs.values()), return_exceptions=True)


async def _end(proc: asyncio.subprocess.Process) -> None:
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


# --- the whole origin ------------------------------------------------------------------------

Send = Callable[[dict[str, Any]], Awaitable[None]]
Receive = Callable[[], Awaitable[dict[str, Any]]]

# The page and /bots answers: no sniffing, no framing, no token in a Referer.
PAGE_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]
_TYPES = {
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".map": "application/json",
    ".wasm": "application/wasm",
    ".webmanifest": "application/manifest+json",
}
CORS_ALLOW_HEADERS = (
    "content-type, connect-protocol-version, connect-timeout-ms, grpc-timeout, x-grpc-web, "
    "x-user-agent, x-seat-token"
)
CORS_EXPOSE_HEADERS = "grpc-status, grpc-message, grpc-status-details-bin"


class WebApp:
    """One origin: the API under ``/tabletop.v1.TableService/``, ``/bots``, the page."""

    def __init__(
        self,
        api: ApiApp,
        bots: Bots,
        web_root: Path,
        allow_origins: Iterable[str] = (),
        grpc_port: int = 0,
    ) -> None:
        self.api = api
        # GET /server.json: the gRPC port, for the page's `tabletop-audit verify` line
        self.server_json = json.dumps({"grpc_port": grpc_port}).encode()
        self.bots = bots
        self.web_root = web_root
        self.allow_origins = {o.rstrip("/") for o in allow_origins if o}

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        path: str = scope["path"]
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        origin = headers.get("origin")
        cors: list[tuple[bytes, bytes]] = []
        if origin is not None and not _same_origin(origin, headers.get("host", "")):
            if origin.rstrip("/") not in self.allow_origins and "*" not in self.allow_origins:
                await _text(
                    send,
                    403,
                    "不接受其他网站的调用 (cross-origin calls are not allowed: see --web-allow-origin)",
                )
                return
            cors = [
                (b"access-control-allow-origin", origin.encode("latin-1")),
                (b"access-control-expose-headers", CORS_EXPOSE_HEADERS.encode()),
                (b"vary", b"Origin"),
            ]
            if scope["method"] == "OPTIONS":
                await _respond(
                    send,
                    204,
                    b"",
                    cors
                    + [
                        (b"access-control-allow-methods", b"POST, GET, OPTIONS"),
                        (b"access-control-allow-headers", CORS_ALLOW_HEADERS.encode()),
                        (b"access-control-max-age", b"600"),
                    ],
                )
                return
        if path.startswith(PREFIX):
            ctype = headers.get("content-type", "")
            if ctype.startswith("application/grpc") and not ctype.startswith(
                "application/grpc-web"
            ):
                await _text(send, 415, "gRPC over HTTP/2 is served on the gRPC port, not here")
                return
            await self.api(scope, receive, _with_headers(send, cors) if cors else send)  # type: ignore[arg-type]
            return
        if path == "/bots":
            await self._bots(scope, receive, send, headers, cors)
            return
        if scope["method"] not in ("GET", "HEAD"):
            await _text(send, 405, "only GET here", cors)
            return
        if path == "/server.json":
            await _respond(
                send, 200, self.server_json, [(b"content-type", b"application/json"), *cors]
            )
            return
        await self._static(scope, send, path)

    async def _bots(
        self,
        scope: dict[str, Any],
        receive: Receive,
        send: Send,
        headers: dict[str, str],
        cors: list[tuple[bytes, bytes]],
    ) -> None:
        if scope["method"] != "POST":
            await _text(send, 405, 'POST a JSON {"game_id": ..., "token": ...} to /bots', cors)
            return
        if not headers.get("content-type", "").startswith("application/json"):
            await _text(send, 415, "请以 JSON 发送 (send the body as application/json)", cors)
            return
        body = b""
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > BOTS_BODY_MAX:
                await _text(send, 413, "请求过大 (the body is too large)", cors)
                return
            if not message.get("more_body"):
                break
        client = scope.get("client")
        peer = _browser_peer(f"{client[0]}:{client[1]}" if client else None)
        try:
            answer = await self.bots.start(body, peer)
        except Refused as refused:
            await _text(send, refused.status, refused.reason, cors)
            return
        data = json.dumps(answer).encode()
        await _respond(send, 202, data, [(b"content-type", b"application/json"), *cors])

    async def _static(self, scope: dict[str, Any], send: Send, path: str) -> None:
        root = self.web_root
        index = root / "index.html"
        if not index.is_file():
            await _text(send, 404, NOT_BUILT)
            return
        target = _inside(root, path)
        if target is None or not target.is_file():
            # paths with no file name extension are the page's own (links to a table or seat)
            last = path.rsplit("/", 1)[-1]
            if target is not None and "." not in last:
                target = index
            else:
                await _text(send, 404, "not found")
                return
        data = await asyncio.to_thread(target.read_bytes)
        kind = _TYPES.get(target.suffix) or mimetypes.guess_type(target.name)[0]
        kind = kind or "application/octet-stream"
        if kind.startswith("text/") or kind in ("application/json",):
            kind += "; charset=utf-8"
        headers = [(b"content-type", kind.encode()), (b"cache-control", b"no-cache"), *PAGE_HEADERS]
        await _respond(
            send, 200, b"" if scope["method"] == "HEAD" else data, headers, length=len(data)
        )


def _same_origin(origin: str, host: str) -> bool:
    try:
        netloc = urlsplit(origin).netloc
    except ValueError:
        return False
    return bool(netloc) and netloc.lower() == host.lower()


def _inside(root: Path, path: str) -> Path | None:
    """The file ``path`` names under ``root``, or None when it would leave it."""
    parts = [p for p in path.split("/") if p]
    if any(p in (".", "..") or "\\" in p or "\0" in p for p in parts):
        return None
    target = root.joinpath(*parts) if parts else root / "index.html"
    try:
        resolved = target.resolve()
        if not resolved.is_relative_to(root.resolve()):
            return None
    except (OSError, ValueError):
        return None
    return resolved / "index.html" if resolved.is_dir() else resolved


def _with_headers(send: Send, extra: list[tuple[bytes, bytes]]) -> Send:
    async def sending(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return sending


async def _respond(
    send: Send,
    status: int,
    body: bytes,
    headers: list[tuple[bytes, bytes]],
    length: int | None = None,
) -> None:
    size = len(body) if length is None else length
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [*headers, (b"content-length", str(size).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _text(
    send: Send, status: int, line: str, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    headers = [(b"content-type", b"text/plain; charset=utf-8"), *PAGE_HEADERS, *(extra or [])]
    await _respond(send, status, (line + "\n").encode(), headers)


# --- serving ---------------------------------------------------------------------------------


@dataclass
class WebSettings:
    port: int | None = None  # None: off; 0: a free port
    root: Path = DEFAULT_WEB_ROOT
    bots: BotSettings = field(default_factory=BotSettings)
    allow_origins: tuple[str, ...] = ()


def loopback(host: str, port: int) -> str:
    """The gRPC port's address as this process reaches it."""
    if host in ("", "0.0.0.0"):
        return f"127.0.0.1:{port}"
    if host == "::":
        return f"[::1]:{port}"
    if ":" in host and not host.startswith("["):
        return f"[{host}]:{port}"
    return f"{host}:{port}"


class WebServer:
    """uvicorn serving ``WebApp`` on the running loop (no signal handlers of its own)."""

    def __init__(
        self,
        settings: WebSettings,
        host: str,
        grpc_port: int,
        read_max_bytes: int,
        shutdown_grace: float = 5.0,
    ) -> None:
        target = loopback(host, grpc_port)
        self.channel = grpc.aio.insecure_channel(
            target,
            options=[
                ("grpc.max_receive_message_length", -1),
                ("grpc.max_send_message_length", -1),
                ("grpc.primary_user_agent", "tabletop-web-forwarder"),
            ],
        )
        self.bots = Bots(settings.bots, self.channel, target)
        api = ApiApp(Forwarder(self.channel), read_max_bytes)
        self.app = WebApp(api, self.bots, settings.root, settings.allow_origins, grpc_port)
        self.config = uvicorn.Config(
            self.app,  # type: ignore[arg-type]
            host=host,
            port=settings.port or 0,
            lifespan="off",
            log_config=None,
            access_log=False,
            ws="none",
            proxy_headers=False,  # the peer is the socket's (as for gRPC): no X-Forwarded-For
            server_header=False,
            timeout_graceful_shutdown=max(1, int(shutdown_grace)),
        )
        self.server = uvicorn.Server(self.config)
        self._ticks: asyncio.Task[None] | None = None

    async def start(self) -> int:
        """Listen; returns the bound port (OSError when it cannot)."""
        host = self.config.host
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.create_server((host, self.config.port), family=family)
        self.config.load()
        self.server.lifespan = self.config.lifespan_class(self.config)
        await self.server.startup(sockets=[sock])
        self._ticks = asyncio.create_task(self.server.main_loop())  # the Date header, once a second
        port: int = sock.getsockname()[1]
        return port

    async def stop(self) -> None:
        self.server.should_exit = True
        if self._ticks is not None:
            await self._ticks
        await self.bots.close()
        await self.server.shutdown()
        await self.channel.close()
