"""One small API surface over four transports, so one test body runs over each of them.

``grpc``: grpcio on the gRPC port. ``connect`` (binary), ``connect-json`` (the JSON that
connect-web sends by default) and ``grpc-web``: connectrpc's client (the code `make gen`
generates into gen/tabletop/v1/tabletop_connect.py) on the web port. Every refusal becomes
a ``Failure`` with the status code's name, the message and the rich details as
(type name, bytes), whatever the transport, so tests can compare them exactly.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import grpc
from connectrpc.compat import google_protobuf_json_codec
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType
from google.protobuf import message_factory
from google.protobuf.message import Message
from grpc_status import rpc_status

from tabletop.v1 import tabletop_pb2 as pb
from tabletop.v1.tabletop_connect import TableServiceClientSync

SERVICE = pb.DESCRIPTOR.services_by_name["TableService"]
TRANSPORTS = ["grpc", "connect", "connect-json", "grpc-web"]
WEB = TRANSPORTS[1:]
TIMEOUT_MS = 120_000


class Failure(Exception):
    """A refused call: ``code`` like ``failed_precondition``, its message and details."""

    def __init__(self, code: str, message: str, details: list[tuple[str, bytes]]) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.details = details

    def detail(self, cls: type[Message]) -> Any:
        """The first detail of type ``cls``, decoded (an AssertionError if there is none)."""
        for name, data in self.details:
            if name == cls.DESCRIPTOR.full_name:
                return cls.FromString(data)
        raise AssertionError(f"no {cls.DESCRIPTOR.full_name} in {self.details}")

    def same(self) -> tuple[str, str, list[tuple[str, bytes]]]:
        return self.code, self.message, self.details


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def _output(method: str) -> type[Message]:
    cls: type[Message] = message_factory.GetMessageClass(
        SERVICE.methods_by_name[method].output_type
    )
    return cls


class Api:
    """``call(method, request, token)`` and ``stream(...)`` over one transport."""

    name = ""

    def call(
        self,
        method: str,
        request: Message,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Any:
        raise NotImplementedError

    def stream(
        self,
        method: str,
        request: Message,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Iterator[Any]:
        raise NotImplementedError

    def close(self) -> None:
        pass

    @staticmethod
    def _headers(token: str | None, headers: dict[str, str] | None) -> dict[str, str]:
        out = dict(headers or {})
        if token is not None:
            out["x-seat-token"] = token
        return out


class GrpcApi(Api):
    name = "grpc"

    def __init__(self, target: str) -> None:
        self.channel = grpc.insecure_channel(target)

    def _callable(self, method: str, request: Message, streaming: bool) -> Any:
        make = self.channel.unary_stream if streaming else self.channel.unary_unary
        return make(
            f"/{SERVICE.full_name}/{method}",
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=_output(method).FromString,
        )

    def call(
        self,
        method: str,
        request: Message,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Any:
        metadata = tuple(self._headers(token, headers).items())
        try:
            return self._callable(method, request, False)(
                request, metadata=metadata, timeout=TIMEOUT_MS / 1000
            )
        except grpc.RpcError as err:
            raise _from_grpc(err) from None

    def stream(
        self,
        method: str,
        request: Message,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Iterator[Any]:
        metadata = tuple(self._headers(token, headers).items())
        call = self._callable(method, request, True)(
            request, metadata=metadata, timeout=TIMEOUT_MS / 1000
        )
        try:
            yield from call
        except grpc.RpcError as err:
            raise _from_grpc(err) from None
        finally:
            call.cancel()

    def close(self) -> None:
        self.channel.close()


def _from_grpc(err: grpc.RpcError) -> Failure:
    code = err.code()  # type: ignore[attr-defined]
    name = "canceled" if code == grpc.StatusCode.CANCELLED else code.name.lower()
    status = rpc_status.from_call(err)  # type: ignore[arg-type]
    details = (
        []
        if status is None
        else [(d.type_url.removeprefix("type.googleapis.com/"), d.value) for d in status.details]
    )
    return Failure(name, err.details() or "", details)  # type: ignore[attr-defined]


class ConnectApi(Api):
    def __init__(self, web_port: int, name: str) -> None:
        self.name = name
        protocol = ProtocolType.GRPC_WEB if name == "grpc-web" else ProtocolType.CONNECT
        kwargs: dict[str, Any] = {"protocol": protocol, "timeout_ms": TIMEOUT_MS}
        if name == "connect-json":
            kwargs["codec"] = google_protobuf_json_codec()
        self.client = TableServiceClientSync(f"http://127.0.0.1:{web_port}", **kwargs)

    def call(
        self,
        method: str,
        request: Message,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Any:
        try:
            return getattr(self.client, _snake(method))(
                request, headers=self._headers(token, headers)
            )
        except ConnectError as err:
            raise _from_connect(err) from None

    def stream(
        self,
        method: str,
        request: Message,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Iterator[Any]:
        try:
            yield from getattr(self.client, _snake(method))(
                request, headers=self._headers(token, headers)
            )
        except ConnectError as err:
            raise _from_connect(err) from None

    def close(self) -> None:
        self.client.close()


def _from_connect(err: ConnectError) -> Failure:
    details = [(d.type_name, d.message_bytes) for d in err.details]
    return Failure(err.code.value, err.message, details)


def open_api(name: str, target: str, web_port: int | None) -> Api:
    if name == "grpc":
        return GrpcApi(target)
    assert web_port is not None, "the server was started without --web-port"
    return ConnectApi(web_port, name)
