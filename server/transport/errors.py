"""Domain and application errors as gRPC statuses with google.rpc rich details."""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from domain.engine import MalformedCommand, RuleViolation
from server.store.eventstore import OutcomeUnknown
from server.transport.health import RETRY_AFTER, is_store_fault
from server.transport.limits import Exhausted
from server.transport.logins import KeysUnavailable, Unauthenticated
from server.usecases.games import Aborted, NotFound, PermissionDenied

DOMAIN = "tabletop.v1"


def _status(code: int, message: str, *details: object) -> grpc.Status:
    packed = []
    for d in details:
        a = any_pb2.Any()
        a.Pack(d)  # type: ignore[arg-type]
        packed.append(a)
    return rpc_status.to_status(status_pb2.Status(code=code, message=message, details=packed))


def to_status(exc: BaseException) -> grpc.Status | None:
    """The status for a known refusal, or None for an unexpected failure."""
    if isinstance(exc, MalformedCommand):
        return _status(
            code_pb2.INVALID_ARGUMENT,
            str(exc),
            error_details_pb2.BadRequest(
                field_violations=[
                    error_details_pb2.BadRequest.FieldViolation(
                        field=exc.field, description=exc.description
                    )
                ]
            ),
        )
    if isinstance(exc, RuleViolation):
        return _status(
            code_pb2.FAILED_PRECONDITION,
            exc.message,
            error_details_pb2.ErrorInfo(
                reason=exc.reason, domain=DOMAIN, metadata={"rule": exc.rule}
            ),
            error_details_pb2.PreconditionFailure(
                violations=[
                    error_details_pb2.PreconditionFailure.Violation(
                        type="RULE", subject=exc.rule, description=exc.message
                    )
                ]
            ),
        )
    if isinstance(exc, Aborted):
        return _status(
            code_pb2.ABORTED,
            str(exc),
            error_details_pb2.ErrorInfo(
                reason="STALE_VERSION",
                domain=DOMAIN,
                metadata={
                    "expected_version": str(exc.expected),
                    "current_version": str(exc.current),
                },
            ),
        )
    if isinstance(exc, PermissionDenied):
        return _status(
            code_pb2.PERMISSION_DENIED,
            str(exc),
            error_details_pb2.ErrorInfo(reason=exc.reason, domain=DOMAIN),
        )
    if isinstance(exc, KeysUnavailable):  # the identity provider's JWKS: retry later
        return _status(
            code_pb2.UNAVAILABLE,
            str(exc),
            error_details_pb2.ErrorInfo(reason=exc.reason, domain=DOMAIN),
            error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=5)),
        )
    if isinstance(exc, Unauthenticated):  # the app's login (server/transport/logins.py)
        return _status(
            code_pb2.UNAUTHENTICATED,
            str(exc),
            error_details_pb2.ErrorInfo(reason=exc.reason, domain=DOMAIN),
        )
    if isinstance(exc, Exhausted):  # a limit of server/transport/limits.py
        return exc.status()
    if isinstance(exc, OutcomeUnknown):  # may be stored: a retry with the same key settles it
        return _status(
            code_pb2.UNAVAILABLE,
            "the store did not say whether this write was stored; retry with the same "
            "request_id, or read the game before sending it again without one",
            error_details_pb2.ErrorInfo(reason="OUTCOME_UNKNOWN", domain=DOMAIN),
            error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=1)),
        )
    if isinstance(exc, NotFound):
        return _status(
            code_pb2.NOT_FOUND,
            str(exc),
            error_details_pb2.ResourceInfo(resource_type="game", description=str(exc)),
        )
    if is_store_fault(exc):  # server/transport/health.py: the transaction was rolled back
        delay = duration_pb2.Duration()
        delay.FromMilliseconds(int(RETRY_AFTER * 1000))
        return _status(
            code_pb2.UNAVAILABLE,
            "the event store is not available now; retry later (a Play with the same request_id)",
            error_details_pb2.ErrorInfo(reason="STORE_UNAVAILABLE", domain=DOMAIN),
            error_details_pb2.RetryInfo(retry_delay=delay),
        )
    return None
