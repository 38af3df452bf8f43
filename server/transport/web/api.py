"""The API for browsers: Connect and gRPC-Web forwarded to this process's gRPC port.

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
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import Any

import grpc
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
from tabletop.v1 import lobby_pb2, ratings_pb2
from tabletop.v1 import tabletop_pb2 as pb

SERVICE = pb.DESCRIPTOR.services_by_name["TableService"]
LOBBY = lobby_pb2.DESCRIPTOR.services_by_name["LobbyService"]
RATINGS = ratings_pb2.DESCRIPTOR.services_by_name["RatingsService"]
PREFIX = f"/{SERVICE.full_name}/"
# the services browsers reach (issue 40: the lobby and the leaderboards)
PREFIXES = (PREFIX, f"/{LOBBY.full_name}/", f"/{RATINGS.full_name}/")

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
    """Each method of ``services`` as a connectrpc endpoint that calls it over ``channel``."""

    def __init__(
        self,
        channel: grpc.aio.Channel,
        service: pbd.ServiceDescriptor = SERVICE,
        more: tuple[pbd.ServiceDescriptor, ...] = (LOBBY, RATINGS),
    ):
        self.channel = channel
        self.service = service
        self.services = (service, *more)

    def endpoints(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for service, method in ((s, m) for s in self.services for m in s.methods):
            path = f"/{service.full_name}/{method.name}"
            info: MethodInfo[Any, Any] = MethodInfo(
                name=method.name,
                service_name=service.full_name,
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
