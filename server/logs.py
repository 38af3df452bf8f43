"""Structured logs through structlog: one ``key=value`` or JSON line per record, on stderr.

Each RPC's line (``msg=rpc``) has its method, code, time, game id and version, the caller's
``seat`` (or ``role``) and ``peer``; a refusal names its ``reason`` and ``rule`` or ``field``.
"""

from __future__ import annotations

import logging
from contextvars import ContextVar
from typing import IO, Any

import grpc
import structlog
from google.rpc import error_details_pb2, status_pb2
from structlog import processors, stdlib

# What the servicer adds to the line of the call it serves (each call runs in its own task).
CALL: ContextVar[dict[str, Any] | None] = ContextVar("tabletop_rpc_fields", default=None)
SERIOUS = frozenset({"INTERNAL", "UNKNOWN", "DATA_LOSS"})  # logged at ERROR
std = logging.getLogger("tabletop.rpc")
log = structlog.wrap_logger(
    std, [stdlib.ProcessorFormatter.wrap_for_formatter], wrapper_class=stdlib.BoundLogger
)


def note(**fields: Any) -> None:
    """Add fields (who is calling) to the log line of the RPC being served."""
    call = CALL.get()
    if call is not None:
        call.update(fields)


def rpc(level: int, method: str, code: str, elapsed: float, *call: Any) -> None:
    """Log one finished RPC: ``call`` is its request, response, context and noted fields."""
    request, response, context, noted = call
    view = getattr(response, "view", None)
    fields = {
        "game_id": getattr(request, "game_id", "") or getattr(response, "game_id", ""),
        "version": getattr(response, "version", None) if view is None else view.version,
        "expected_version": getattr(request, "expected_version", None),
        "seat": getattr(request, "seat", None),  # JoinGame: the seat asked for
        **noted,
        **(refusal(context) if code != "OK" else {}),
        "peer": context.peer(),
    }
    fields = {k: v for k, v in fields.items() if v is not None and v != ""}
    log.log(level, "rpc", method=method, code=code, ms=round(elapsed * 1000, 2), **fields)


def refusal(context: grpc.aio.ServicerContext) -> dict[str, Any]:
    """The reason, rule and field named by a refused call's rich status details."""
    out: dict[str, Any] = {}
    info, bad = error_details_pb2.ErrorInfo(), error_details_pb2.BadRequest()
    details = dict(context.trailing_metadata() or ()).get("grpc-status-details-bin")
    for detail in status_pb2.Status.FromString(details).details if details else ():
        if detail.Unpack(info):
            out.update(reason=info.reason, rule=info.metadata.get("rule"))
        elif detail.Unpack(bad) and bad.field_violations:
            out["field"] = bad.field_violations[0].field
    return out


def configure_logging(
    style: str = "text", level: int = logging.INFO, stream: IO[str] | None = None
) -> None:
    """Send every log record to stderr (or ``stream``) as ``key=value`` text or JSON lines."""
    order = ["ts", "level", "logger", "msg"]
    render = processors.LogfmtRenderer(key_order=order, drop_missing=True)
    if style == "json":
        render = processors.JSONRenderer(ensure_ascii=False, default=str)  # type: ignore[assignment]
    handler = logging.StreamHandler(stream)
    handler.setFormatter(
        stdlib.ProcessorFormatter(
            foreign_pre_chain=[stdlib.ExtraAdder()],  # other modules' extra={...} fields
            processors=[
                processors.TimeStamper(fmt="iso", key="ts"),
                stdlib.add_log_level,
                stdlib.add_logger_name,
                stdlib.ProcessorFormatter.remove_processors_meta,
                processors.EventRenamer("msg"),
                processors.format_exc_info,
                render,
            ],
        )
    )
    logging.basicConfig(handlers=[handler], level=level, force=True)
