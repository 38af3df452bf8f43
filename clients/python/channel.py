"""The connection to a server: the metadata a call carries (the seat's token, the game a
balancer routes by), keepalives, and which dropped streams a client may resume.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Callable
from typing import Any

import grpc

TOKEN_HEADER = "x-seat-token"
# The game a call names, as metadata, so a balancer can send all of a game's calls to one
# replica (deploy/haproxy.cfg hashes it). Routing only: any replica answers any call.
GAME_HEADER = "x-game-id"
RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)

CHANNEL_OPTIONS = [
    ("grpc.keepalive_time_ms", 20_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
]


class _GameRouting(
    grpc.UnaryUnaryClientInterceptor,  # type: ignore[misc]
    grpc.UnaryStreamClientInterceptor,  # type: ignore[misc]
):
    """Adds ``x-game-id`` to every call whose request names a game (its ``game_id``)."""

    def _routed(self, details: grpc.ClientCallDetails, request: object) -> grpc.ClientCallDetails:
        game_id = getattr(request, "game_id", "")
        if not game_id or not isinstance(game_id, str):
            return details
        metadata = [*(details.metadata or ()), (GAME_HEADER, game_id)]
        return _CallDetails(
            details.method,
            details.timeout,
            metadata,
            details.credentials,
            getattr(details, "wait_for_ready", None),
            getattr(details, "compression", None),
        )

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._routed(details, request), request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._routed(details, request), request)


class _CallDetails(
    collections.namedtuple(
        "_CallDetails",
        ["method", "timeout", "metadata", "credentials", "wait_for_ready", "compression"],
    ),
    grpc.ClientCallDetails,  # type: ignore[misc]
):
    pass


def routed_channel(target: str) -> grpc.Channel:
    """A plaintext channel whose calls carry ``x-game-id`` when they name a game."""
    channel = grpc.insecure_channel(target, options=CHANNEL_OPTIONS)
    return grpc.intercept_channel(channel, _GameRouting())


# How grpc reports a stream whose HTTP/2 stream a proxy reset or dropped without trailers
# (a balancer losing the replica behind it): not UNAVAILABLE, but these codes with a
# transport message. A Watch resumes from its last version, so retrying it is safe.
TRANSPORT_CUTS = ("Stream removed", "RST_STREAM", "Socket closed", "Connection reset")


def _transport_cut(err: grpc.RpcError) -> bool:
    code = err.code()
    if code not in (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL, grpc.StatusCode.CANCELLED):
        return False
    details = err.details() or ""
    return any(cut in details for cut in TRANSPORT_CUTS)


def wait_to_retry(
    err: grpc.RpcError,
    failures: int,
    retries: int,
    backoff: float,
    on_retry: Callable[[grpc.RpcError, int, int], None] | None,
    last: int,
) -> int:
    """A stream dropped: raise ``err`` if it may not be retried (any more), else tell
    ``on_retry`` and back off. Returns the new failure count."""
    if not (err.code() in RETRYABLE or _transport_cut(err)) or failures >= retries:
        raise err
    failures += 1
    if on_retry is not None:
        on_retry(err, failures, last)
    time.sleep(backoff * failures)
    return failures
