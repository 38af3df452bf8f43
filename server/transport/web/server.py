"""The web port's server: uvicorn serving the origin on the running loop, and the loopback
gRPC channel the forwarder and the bots call this process's own gRPC port over."""

from __future__ import annotations

import asyncio
import socket
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import uvicorn

from server.transport.web.api import ApiApp, Forwarder
from server.transport.web.bots import Bots, BotSettings, loopback
from server.transport.web.console import Console
from server.transport.web.origin import DEFAULT_WEB_ROOT, WebApp


@dataclass
class WebSettings:
    port: int | None = None  # None: off; 0: a free port
    root: Path = DEFAULT_WEB_ROOT
    bots: BotSettings = field(default_factory=BotSettings)
    allow_origins: tuple[str, ...] = ()
    allow_hosts: tuple[str, ...] = ()  # names served besides IP literals and localhost


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
        self.app = WebApp(
            api,
            self.bots,
            settings.root,
            settings.allow_origins,
            grpc_port,
            settings.allow_hosts,
            Console(self.channel, grpc_port),
        )
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
        # No Nagle: uvicorn writes a reply's headers and its body apart, and the body would
        # wait for the browser's delayed ACK of the headers (40 ms a call on Linux loopback,
        # bench B1). asyncio sets TCP_NODELAY only on sockets made with IPPROTO_TCP, which
        # create_server's are not; the accepted connections inherit it from the listener.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
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
