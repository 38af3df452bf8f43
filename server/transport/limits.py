"""Limits that keep one client from exhausting the server, and safe request decoding.

Every limit is configurable (server/startup/config.py) and refuses with RESOURCE_EXHAUSTED carrying
a ``google.rpc.QuotaFailure`` (what was exceeded, by whom) and an ``ErrorInfo`` (a stable
reason and the limit); the move rate adds a ``RetryInfo``. Nothing a refused call asked for
happens.

| limit | default | reason |
|---|---|---|
| request size | 1 MiB | ``MESSAGE_TOO_LARGE`` |
| open streams (Watch, Replay, health Watch) per connection | 200 | ``TOO_MANY_STREAMS`` |
| open streams per client | 2000 | ``TOO_MANY_STREAMS`` |
| Play calls per seat | 50/s, bursts of 100 | ``MOVE_RATE_EXCEEDED`` |
| open games created per client (finished ones for a cool-down) | 1000 | ``TOO_MANY_OPEN_GAMES`` |

**Who is a client.** The peer's IP address (a browser's own, for calls made over Connect
or gRPC-Web: server/transport/peers.py), or, when the server is started with
``--client-id-header NAME``, the value of that call metadata (set it at a gateway that
authenticates callers; a client could otherwise claim any id). A *connection* is the peer
address with its port: one HTTP/2 connection (or a browser's connection to the web port). A
*seat* is a game id and seat index, known once the seat token is checked, so forged tokens
never create rate-limit state.

**Open games** are games a client created, counted for ``OPEN_GAME_TTL`` seconds after their
creation (so abandoned tables stop counting) unless they finished more than
``finished_game_cooldown`` seconds ago (so games finished at once, by a fast clock say, do
not free their slot at once), in this process's memory only.

**Ids.** Every per-game and per-seat key is the parsed game id (``uuid.UUID``), never the
client's spelling of it: upper case, no dashes, braces and ``urn:uuid:`` all name one game
and share one bucket.

**Decoding.** A request that is not a valid protobuf message of its type gets
INVALID_ARGUMENT with a ``BadRequest`` (gRPC's own deserialisation failure would be
UNKNOWN); one over the size limit gets RESOURCE_EXHAUSTED with a ``QuotaFailure``. The
transport itself refuses messages over ``TRANSPORT_FACTOR`` times the limit before reading
them whole (RESOURCE_EXHAUSTED, no detail).
"""

from __future__ import annotations

import inspect
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.protobuf.message import DecodeError
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from server.transport.peers import peer_of

DOMAIN = "tabletop.v1"
OPEN_GAME_TTL = 3600.0  # seconds a created, unfinished game counts against its creator
PRUNE_SLACK = 64  # a client's list of games may grow by this much before it is counted
TRANSPORT_FACTOR = 4  # the transport refuses outright messages over this many times the limit


@dataclass(frozen=True)
class LimitSettings:
    max_message_bytes: int = 1 << 20
    max_streams_per_connection: int = 200
    max_streams_per_client: int = 2000
    move_rate: float = 50.0  # Play calls per second per seat; 0 = unlimited
    move_burst: int = 100
    max_open_games_per_client: int = 1000
    finished_game_cooldown: float = 600.0  # seconds a finished game still counts
    client_id_header: str = ""  # metadata naming the client; "" = the peer's IP address

    @property
    def transport_max_bytes(self) -> int:
        return self.max_message_bytes * TRANSPORT_FACTOR


class Exhausted(Exception):
    """A limit refused the call (RESOURCE_EXHAUSTED)."""

    def __init__(
        self,
        reason: str,
        subject: str,
        description: str,
        limit: float,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(description)
        self.reason = reason
        self.subject = subject
        self.description = description
        self.limit = limit
        self.retry_after = retry_after

    def status(self) -> grpc.Status:
        details: list[Any] = [
            error_details_pb2.QuotaFailure(
                violations=[
                    error_details_pb2.QuotaFailure.Violation(
                        subject=self.subject, description=self.description
                    )
                ]
            ),
            error_details_pb2.ErrorInfo(
                reason=self.reason, domain=DOMAIN, metadata={"limit": f"{self.limit:g}"}
            ),
        ]
        if self.retry_after is not None:
            delay = duration_pb2.Duration()
            delay.FromMilliseconds(max(1, int(self.retry_after * 1000)))
            details.append(error_details_pb2.RetryInfo(retry_delay=delay))
        return _status(code_pb2.RESOURCE_EXHAUSTED, self.description, details)


def _status(code: int, message: str, details: list[Any]) -> grpc.Status:
    packed = []
    for d in details:
        a = any_pb2.Any()
        a.Pack(d)
        packed.append(a)
    return rpc_status.to_status(status_pb2.Status(code=code, message=message, details=packed))


def _bad_request(field: str, description: str) -> grpc.Status:
    violation = error_details_pb2.BadRequest.FieldViolation(field=field, description=description)
    return _status(
        code_pb2.INVALID_ARGUMENT,
        f"{field}: {description}" if field else description,
        [error_details_pb2.BadRequest(field_violations=[violation])],
    )


# --- who is calling -----------------------------------------------------------------------


def peer_host(peer: str) -> str:
    """The address part of a gRPC peer string: ``ipv4:1.2.3.4:5`` -> ``1.2.3.4``."""
    scheme, _, rest = peer.partition(":")
    if scheme in ("ipv4", "ipv6") and rest:
        host = rest.rsplit(":", 1)[0] if rest.count(":") >= 1 else rest
        return host.strip("[]")
    return peer or "unknown"


class Limits:
    """The counters behind every limit. One per server process, used on its event loop."""

    def __init__(
        self,
        settings: LimitSettings | None = None,
        finished_for: Callable[[uuid.UUID], float | None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings or LimitSettings()
        # seconds since a game finished, None while it runs (or is not known to have ended)
        self.finished_for = finished_for or (lambda game_id: None)
        self.clock = clock
        self._streams_by_connection: dict[str, int] = {}
        self._streams_by_client: dict[str, int] = {}
        self._buckets: dict[tuple[uuid.UUID, int], tuple[float, float]] = {}  # (tokens, at)
        self._takes = 0
        self._games: dict[str, dict[uuid.UUID, float]] = {}  # client -> game -> created at
        self._pruned: dict[str, int] = {}  # client -> its games still counted at the last count
        self.refused: dict[str, int] = {}  # reason -> count (for tests and the soak)

    # --- identities ---------------------------------------------------------------------

    def client_of(self, context: grpc.aio.ServicerContext) -> str:
        header = self.settings.client_id_header
        if header:
            for key, value in context.invocation_metadata() or ():
                if key == header and value:
                    return f"id:{str(value)[:128]}"
        return peer_host(peer_of(context))

    @staticmethod
    def connection_of(context: grpc.aio.ServicerContext) -> str:
        return peer_of(context) or "unknown"

    def _refuse(self, exc: Exhausted) -> Exhausted:
        self.refused[exc.reason] = self.refused.get(exc.reason, 0) + 1
        return exc

    # --- streams ------------------------------------------------------------------------

    def open_stream(self, context: grpc.aio.ServicerContext) -> Callable[[], None]:
        """Count a new stream; returns the function that uncounts it. Raises Exhausted."""
        s = self.settings
        conn, client = self.connection_of(context), self.client_of(context)
        if self._streams_by_connection.get(conn, 0) >= s.max_streams_per_connection:
            raise self._refuse(
                Exhausted(
                    "TOO_MANY_STREAMS",
                    f"connection:{conn}",
                    f"at most {s.max_streams_per_connection} open streams per connection",
                    s.max_streams_per_connection,
                )
            )
        if self._streams_by_client.get(client, 0) >= s.max_streams_per_client:
            raise self._refuse(
                Exhausted(
                    "TOO_MANY_STREAMS",
                    f"client:{client}",
                    f"at most {s.max_streams_per_client} open streams per client",
                    s.max_streams_per_client,
                )
            )
        _inc(self._streams_by_connection, conn)
        _inc(self._streams_by_client, client)
        done = False

        def close() -> None:
            nonlocal done
            if not done:
                done = True
                _dec(self._streams_by_connection, conn)
                _dec(self._streams_by_client, client)

        return close

    def open_streams(self) -> int:
        return sum(self._streams_by_connection.values())

    # --- moves --------------------------------------------------------------------------

    def take_move(self, game_id: uuid.UUID, seat: int) -> None:
        """One Play by a seat: a token from its bucket, or Exhausted with when to retry."""
        s = self.settings
        if s.move_rate <= 0:
            return
        now = self.clock()
        key = (game_id, seat)
        tokens, at = self._buckets.get(key, (float(s.move_burst), now))
        tokens = min(float(s.move_burst), tokens + (now - at) * s.move_rate)
        if tokens < 1.0:
            self._buckets[key] = (tokens, now)
            raise self._refuse(
                Exhausted(
                    "MOVE_RATE_EXCEEDED",
                    f"seat:{game_id}/{seat}",
                    f"at most {s.move_rate:g} moves per second per seat (bursts of {s.move_burst})",
                    s.move_rate,
                    retry_after=(1.0 - tokens) / s.move_rate,
                )
            )
        self._buckets[key] = (tokens - 1.0, now)
        self._takes += 1
        if self._takes % 4096 == 0:
            self._prune_buckets(now)

    def _prune_buckets(self, now: float) -> None:
        """Forget buckets that have refilled: they are the same as new ones."""
        s = self.settings
        full = s.move_burst / s.move_rate
        self._buckets = {k: v for k, v in self._buckets.items() if now - v[1] < full}

    # --- open games ---------------------------------------------------------------------

    def check_create(self, client: str) -> None:
        s = self.settings
        games = self._games.get(client)
        # Why not always count: counting asks the server about each of the client's games,
        # and a client allowed thousands of them (a bot farm, the load generator) paid for
        # that scan on every CreateGame (4% of the server's CPU in a py-spy profile). Below
        # the limit no count can refuse, so the games are counted only at the limit, or when
        # the list has doubled since it was last pruned (which keeps it bounded).
        if not games or (
            len(games) < s.max_open_games_per_client
            and len(games) < 2 * self._pruned.get(client, 0) + PRUNE_SLACK
        ):
            return
        now = self.clock()
        live = {g: t for g, t in games.items() if now - t < OPEN_GAME_TTL and self._counts(g)}
        self._games[client] = live
        self._pruned[client] = len(live)
        if len(live) >= s.max_open_games_per_client:
            raise self._refuse(
                Exhausted(
                    "TOO_MANY_OPEN_GAMES",
                    f"client:{client}",
                    f"at most {s.max_open_games_per_client} open games per client (a finished "
                    f"game counts for {s.finished_game_cooldown:g} s more); finish some first",
                    s.max_open_games_per_client,
                )
            )

    def _counts(self, game_id: uuid.UUID) -> bool:
        ended = self.finished_for(game_id)
        return ended is None or ended < self.settings.finished_game_cooldown

    def created(self, client: str, game_id: str) -> None:
        self._games.setdefault(client, {})[uuid.UUID(game_id)] = self.clock()


def _inc(counts: dict[str, int], key: str) -> None:
    counts[key] = counts.get(key, 0) + 1


def _dec(counts: dict[str, int], key: str) -> None:
    n = counts.get(key, 0) - 1
    if n > 0:
        counts[key] = n
    else:
        counts.pop(key, None)


# --- the interceptor ----------------------------------------------------------------------


class _Refused:
    """What a safe deserialiser hands the behaviour instead of a request it could not read."""

    __slots__ = ("status",)

    def __init__(self, status: grpc.Status) -> None:
        self.status = status


class LimitsInterceptor(grpc.aio.ServerInterceptor):
    """Safe decoding and size limit for every request; stream and open-game limits.

    Put it after the metrics interceptor in the server's list, so the refusals it makes are
    counted and logged like any other.
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._cache: dict[str, tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler]] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        method = handler_call_details.method
        cached = self._cache.get(method)
        if cached is not None and cached[0] is handler:
            return cached[1]
        wrapped = self._wrap(method, handler)
        self._cache[method] = (handler, wrapped)
        return wrapped

    def _deserializer(self, inner: Callable[[bytes], Any] | None) -> Callable[[bytes], Any]:
        limit = self.limits.settings.max_message_bytes
        limits = self.limits

        def read(data: bytes) -> Any:
            if len(data) > limit:
                exc = limits._refuse(
                    Exhausted(
                        "MESSAGE_TOO_LARGE",
                        "request",
                        f"the request is {len(data)} bytes; at most {limit}",
                        limit,
                    )
                )
                return _Refused(exc.status())
            if inner is None:
                return data
            try:
                return inner(data)
            except (DecodeError, ValueError, TypeError, RuntimeError):
                limits.refused["MALFORMED"] = limits.refused.get("MALFORMED", 0) + 1
                return _Refused(_bad_request("", "the request is not a valid message of its type"))

        return read

    def _wrap(self, method: str, handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
        ser = {
            "request_deserializer": self._deserializer(handler.request_deserializer),
            "response_serializer": handler.response_serializer,
        }
        if handler.unary_unary is not None:
            behavior = handler.unary_unary
            if method == "/tabletop.v1.TableService/CreateGame":
                behavior = self._creating(behavior)
            return grpc.unary_unary_rpc_method_handler(_checked(behavior), **ser)
        if handler.unary_stream is not None:
            stream = handler.unary_stream
            if inspect.isasyncgenfunction(stream):
                return grpc.unary_stream_rpc_method_handler(self._counted(stream), **ser)
            return grpc.unary_stream_rpc_method_handler(self._counted_writer(stream), **ser)
        if handler.stream_stream is not None and inspect.isasyncgenfunction(handler.stream_stream):
            # each request message is decoded safely, a bad one ends the call; a PlaySession
            # is a seat's stream (reflection's are not counted)
            both = _checked_requests(handler.stream_stream)
            if method == "/tabletop.v1.TableService/PlaySession":
                both = self._counted(both)
            return grpc.stream_stream_rpc_method_handler(both, **ser)
        return handler  # other client-streaming shapes: none are served

    def _creating(self, behavior: Callable[..., Awaitable[Any]]) -> Callable[..., Any]:
        limits = self.limits

        async def create(request: Any, context: grpc.aio.ServicerContext) -> Any:
            client = limits.client_of(context)
            try:
                limits.check_create(client)
            except Exhausted as exc:
                await context.abort_with_status(exc.status())
            response = await behavior(request, context)
            game_id = getattr(response, "game_id", "")
            if game_id:
                limits.created(client, game_id)
            return response

        return create

    def _counted(self, behavior: Callable[..., AsyncGenerator[Any, None]]) -> Callable[..., Any]:
        limits = self.limits

        async def stream(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            if isinstance(request, _Refused):
                await context.abort_with_status(request.status)
            try:
                close = limits.open_stream(context)
            except Exhausted as exc:
                await context.abort_with_status(exc.status())
            agen = behavior(request, context)
            try:
                async for msg in agen:
                    yield msg
            finally:
                close()
                await agen.aclose()

        return stream

    def _counted_writer(self, behavior: Callable[..., Awaitable[Any]]) -> Callable[..., Any]:
        limits = self.limits

        async def stream(request: Any, context: grpc.aio.ServicerContext) -> Any:
            if isinstance(request, _Refused):
                await context.abort_with_status(request.status)
            try:
                close = limits.open_stream(context)
            except Exhausted as exc:
                await context.abort_with_status(exc.status())
            try:
                return await behavior(request, context)
            finally:
                close()

        return stream


def _checked_requests(behavior: Callable[..., AsyncGenerator[Any, None]]) -> Callable[..., Any]:
    async def stream(requests: AsyncIterator[Any], context: grpc.aio.ServicerContext) -> Any:
        async def checked() -> AsyncIterator[Any]:
            async for request in requests:
                if isinstance(request, _Refused):
                    await context.abort_with_status(request.status)
                yield request

        async for msg in behavior(checked(), context):
            yield msg

    return stream


def _checked(behavior: Callable[..., Awaitable[Any]]) -> Callable[..., Any]:
    async def unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
        if isinstance(request, _Refused):
            await context.abort_with_status(request.status)
        return await behavior(request, context)

    return unary
