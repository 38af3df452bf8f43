"""A TCP proxy between a server and PostgreSQL that loses COMMITs (tests only, 127.0.0.1).

It speaks just enough of the PostgreSQL wire protocol to find transaction ends: after the
startup packet every message is a type byte, a length and a body. When armed (``rate`` > 0)
each COMMIT the client sends is, with that probability, lost one of two ways, chosen at
random from a seeded generator:

* ``request``: the connection is cut before the COMMIT reaches PostgreSQL, which then rolls
  the transaction back (nothing stored);
* ``reply``: the COMMIT is forwarded, and the connection is cut when PostgreSQL's
  CommandComplete("COMMIT") comes back, instead of passing it on (stored, but the client
  cannot know).

A client asking for TLS or GSS encryption is told "no" by the proxy itself, so the stream
stays readable. The proxy runs its own event loop in a daemon thread; ``stop()`` ends it.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import struct
import threading
from typing import Any

ENCRYPTION_REQUESTS = (80877103, 80877104)  # SSLRequest, GSSENCRequest


class PgProxy:
    def __init__(self, upstream_port: int, seed: int, rate: float = 0.0) -> None:
        self.upstream_port = upstream_port
        self.rng = random.Random(seed)
        self.rate = rate  # may be changed while running
        self.commits = 0
        self.lost = {"request": 0, "reply": 0}
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._server: asyncio.AbstractServer | None = None
        self._thread = threading.Thread(target=self._run, name="pg-proxy", daemon=True)

    # --- control, from the test's thread ---------------------------------------------

    def start(self) -> PgProxy:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the proxy did not start")
        return self

    def stop(self) -> None:
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)

    def __enter__(self) -> PgProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- the proxy's loop ----------------------------------------------------------------

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._serve, "127.0.0.1", 0)
        )
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            self._server.close()
            tasks = asyncio.all_tasks(self._loop)
            for task in tasks:
                task.cancel()
            self._loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            self._loop.close()

    async def _serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        server_w: asyncio.StreamWriter | None = None
        try:
            startup = await self._startup(client_r, client_w)
            server_r, server_w = await asyncio.open_connection("127.0.0.1", self.upstream_port)
            server_w.write(startup)
            conn = {"drop_reply": False}
            pumps = [
                asyncio.ensure_future(self._from_client(client_r, server_w, conn)),
                asyncio.ensure_future(self._from_server(server_r, client_w, conn)),
            ]
            await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
            for pump in pumps:
                pump.cancel()
        except (OSError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass  # a side hung up, or the proxy stops
        finally:
            for writer in (client_w, server_w):
                if writer is not None:
                    _cut(writer)

    async def _startup(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bytes:
        """The first untyped packet, after refusing any encryption request."""
        while True:
            head = await reader.readexactly(8)
            length, code = struct.unpack("!ii", head)
            rest = await reader.readexactly(length - 8)
            if code in ENCRYPTION_REQUESTS:
                writer.write(b"N")
                await writer.drain()
                continue
            return head + rest

    async def _from_client(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, conn: dict[str, Any]
    ) -> None:
        while True:
            kind, message = await _message(reader)
            if _is_commit_request(kind, message):
                self.commits += 1
                roll = self.rng.random()
                if roll < self.rate / 2:
                    self.lost["request"] += 1
                    return  # cut: PostgreSQL never sees the COMMIT
                if roll < self.rate:
                    conn["drop_reply"] = True
            writer.write(message)
            await writer.drain()

    async def _from_server(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, conn: dict[str, Any]
    ) -> None:
        while True:
            kind, message = await _message(reader)
            if conn["drop_reply"] and kind == b"C" and message[5:].startswith(b"COMMIT\0"):
                self.lost["reply"] += 1
                return  # cut: the COMMIT happened, the client never hears of it
            writer.write(message)
            await writer.drain()


async def _message(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    head = await reader.readexactly(5)
    (length,) = struct.unpack("!i", head[1:])
    return head[:1], head + await reader.readexactly(length - 4)


def _is_commit_request(kind: bytes, message: bytes) -> bool:
    """A simple-protocol Query or an extended-protocol Parse whose statement is COMMIT."""
    if kind == b"Q":
        return message[5:].strip(b"\0 ;").upper() == b"COMMIT"
    if kind == b"P":  # Parse: statement name \0, query \0, parameter types
        _name, _, rest = message[5:].partition(b"\0")
        query, _, _types = rest.partition(b"\0")
        return query.strip(b" ;").upper() == b"COMMIT"
    return False


def _cut(writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(Exception):
        transport: Any = writer.transport
        transport.abort()
