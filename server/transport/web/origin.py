"""The whole origin: the API under ``/tabletop.v1.TableService/``, ``POST /bots``, the play
page's built files (``--web-root``, clients/web/dist) and ``/server.json``, for the host names
``--web-allow-host`` lets in (hosts.py: no DNS rebinding), with CORS for the origins
``--web-allow-origin`` names."""

from __future__ import annotations

import asyncio
import json
import mimetypes
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from server.transport.verify_command import audit_command
from server.transport.web.api import PREFIXES, ApiApp, _browser_peer
from server.transport.web.bots import BOTS_BODY_MAX, Bots, Refused
from server.transport.web.console import Console
from server.transport.web.hosts import HostAllowList

NOT_BUILT = "the play page is not built: run make web"
DEFAULT_WEB_ROOT = Path(__file__).resolve().parents[3] / "clients" / "web" / "dist"

Send = Callable[[dict[str, Any]], Awaitable[None]]
Receive = Callable[[], Awaitable[dict[str, Any]]]

# The page and /bots answers: no sniffing, no framing, no token in a Referer.
PAGE_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]
# The page's own files: scripts, styles, workers, manifest and connections from this origin
# only (the service worker at /sw.js, the manifest at /manifest.webmanifest; blob: for the
# files the page makes itself, its receipts); no eval, no plugins, no <base>, no framing.
# Inline styles stay allowed (components set style attributes); inline scripts do not.
PAGE_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; connect-src 'self' blob:; worker-src 'self'; manifest-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
# The in-browser verifier's worker (verify-worker.js) runs under its own policy: the Node
# verifier's protobufjs compiles its decoders with Function, so 'unsafe-eval' there, and in
# no document: the page only posts the record to the worker and reads its verdict.
VERIFIER_CSP = "default-src 'none'; script-src 'self' 'unsafe-eval'; connect-src 'self'"
VERIFIER_FILES = ("verify-worker.js",)
_TYPES = {
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".map": "application/json",
    ".wasm": "application/wasm",
    ".webmanifest": "application/manifest+json",
}
CORS_ALLOW_HEADERS = (
    "content-type, connect-protocol-version, connect-timeout-ms, grpc-timeout, x-grpc-web, "
    "x-user-agent, x-seat-token, authorization"
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
        allow_hosts: Iterable[str] = (),
        console: Console | None = None,
    ) -> None:
        self.api = api
        self.console = console  # GET /console/GAME: the referee's console on this origin
        self.grpc_port = grpc_port  # GET /server.json: for the page's verify command
        self.bots = bots
        self.web_root = web_root
        self.allow_origins = {o.rstrip("/") for o in allow_origins if o}
        self.hosts = HostAllowList(allow_hosts)

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
        if not self.hosts.allows(headers.get("host")):
            # before anything else, CORS included: a rebound name is "same-origin" to itself
            await _text(send, 421, self.hosts.refusal(headers.get("host")))
            return
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
        if path.startswith(PREFIXES):
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
            client = scope.get("client")
            data = server_json(self.grpc_port, client[0] if client else None)
            await _respond(send, 200, data, [(b"content-type", b"application/json"), *cors])
            return
        if path.startswith("/console/") and self.console is not None:
            await self._console(scope, send, path, headers)
            return
        await self._static(scope, send, path)

    async def _console(
        self, scope: dict[str, Any], send: Send, path: str, headers: dict[str, str]
    ) -> None:
        """The referee's console of a game (console.py): everyone's after the end, the
        arbiter's (its token) before."""
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        token = headers.get("x-seat-token") or (query.get("token") or [""])[0]
        client = scope.get("client")
        host = urlsplit(f"//{headers.get('host', '')}").hostname or "127.0.0.1"
        assert self.console is not None
        status, text = await self.console.page(
            path.removeprefix("/console/").strip("/"),
            token,
            host,
            client[0] if client else None,
            _browser_peer(f"{client[0]}:{client[1]}" if client else None),
        )
        if status != 200:
            await _text(send, status, text)
            return
        data = text.encode()
        page = [(b"content-type", b"text/html; charset=utf-8"), (b"cache-control", b"no-store")]
        await _respond(
            send, 200, b"" if scope["method"] == "HEAD" else data, [*page, *PAGE_HEADERS]
        )

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
            answer = await self.bots.start(body, peer, client[0] if client else "unknown")
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
        headers = [
            (b"content-type", kind.encode()),
            (b"cache-control", b"no-cache"),
            (b"content-security-policy", policy_of(target.name).encode()),
            *PAGE_HEADERS,
        ]
        await _respond(
            send, 200, b"" if scope["method"] == "HEAD" else data, headers, length=len(data)
        )


def policy_of(name: str) -> str:
    """The Content-Security-Policy a page file is served with."""
    return VERIFIER_CSP if name in VERIFIER_FILES else PAGE_CSP


def server_json(grpc_port: int, peer_address: str | None) -> bytes:
    """What the page needs for its verify command: the gRPC port, and how the browser's
    person runs ``tabletop-audit`` from any folder (server/transport/verify_command.py)."""
    return json.dumps(
        {"grpc_port": grpc_port, "audit_command": audit_command(peer_address)}
    ).encode()


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
