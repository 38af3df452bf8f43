"""Structured logs (structlog): ``key=value`` or JSON lines. Each RPC's line (``msg=rpc``) names
its method, code, time, game and version, the caller's ``seat`` (or ``role``) and ``peer``, and
for a refusal its ``reason`` with the ``rule`` or the ``field``.

Levels: reads and the hot path's successful writes (an accepted ``Play``: one per move, many a
second) at DEBUG, counted by ``grpc_server_handled_total`` and ``tabletop_moves_appended_total``
instead; the other writes, every refusal and every stream's end at INFO; server faults at
ERROR."""

from __future__ import annotations

import logging
import sys
from contextvars import ContextVar
from typing import Any, TextIO

import grpc
import structlog
from google.rpc import error_details_pb2, status_pb2
from structlog import processors, stdlib

from server.transport.peers import peer_of

# The fields the servicer adds to the line of the call it serves (each call is its own task).
CALL: ContextVar[dict[str, Any]] = ContextVar("tabletop_rpc_fields")
WRITES = frozenset(
    {
        "CreateGame",
        "JoinGame",
        "CommitContribution",
        "RevealContribution",
        "StartGame",
        "Play",
        "RekeySeat",
        "ResumeSeat",
    }
)
HOT = frozenset({"Play"})  # writes whose success is counted (metrics), not logged at INFO
SERIOUS = frozenset({"INTERNAL", "UNKNOWN", "DATA_LOSS"})
std = logging.getLogger("tabletop.rpc")  # its level says which calls are logged
ANY_LEVEL = structlog.make_filtering_bound_logger(logging.DEBUG)
log: Any = structlog.wrap_logger(structlog.WriteLogger(sys.stderr), wrapper_class=ANY_LEVEL)


def note(**fields: Any) -> None:
    """Add fields (who is calling) to the log line of the RPC being served."""
    CALL.get({}).update(fields)  # (outside a call: into a dict nobody reads)


def rpc(method: str, code: str, elapsed: float, stream: bool, *call: Any) -> None:
    """Log a finished RPC (``call``: request, response, context): reads and a hot write's
    success at DEBUG, other writes, refusals and streams at INFO, server faults at ERROR."""
    if code == "OK":
        hot = not stream and (method in HOT or method not in WRITES)
        level = logging.DEBUG if hot else logging.INFO
    else:
        level = logging.ERROR if code in SERIOUS else logging.INFO
    if not std.isEnabledFor(level):
        return
    request, response, context = call
    fields = {
        "game_id": getattr(request, "game_id", "") or getattr(response, "game_id", ""),
        "version": getattr(getattr(response, "view", response), "version", None),  # GetView
        "expected_version": getattr(request, "expected_version", None),
        "seat": getattr(request, "seat", None),  # JoinGame: the seat asked for
        **CALL.get({}),
        **(refusal(context) if code != "OK" else {}),
        "peer": peer_of(context),
    }
    fields = {k: v for k, v in fields.items() if v is not None and v != ""}
    log.log(level, "rpc", method=method, code=code, ms=round(elapsed * 1000, 2), **fields)


def refusal(context: grpc.aio.ServicerContext) -> dict[str, Any]:
    """The reason, rule and field named by a refused call's rich status details."""
    return _reasons(dict(context.trailing_metadata() or ()).get("grpc-status-details-bin"))


def session_refusal(status: grpc.Status, game_id: str) -> None:
    """A PlaySession's refused Play, logged as a refused Play call is (INFO, its reason);
    the session goes on, and its own line comes at its end."""
    if not std.isEnabledFor(logging.INFO):
        return
    details = dict(status.trailing_metadata or ()).get("grpc-status-details-bin")
    fields = {"game_id": game_id, **CALL.get({}), **_reasons(details)}
    fields = {k: v for k, v in fields.items() if v is not None and v != ""}
    log.log(
        logging.INFO, "rpc", method="PlaySession", play="refused", code=status.code.name, **fields
    )


def _reasons(details: bytes | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    info, bad = error_details_pb2.ErrorInfo(), error_details_pb2.BadRequest()
    for detail in status_pb2.Status.FromString(details).details if details else ():
        if detail.Unpack(info):
            out.update(reason=info.reason, rule=info.metadata.get("rule"))
        elif detail.Unpack(bad) and bad.field_violations:
            out["field"] = bad.field_violations[0].field
    return out


def configure_logging(
    style: str = "text", level: int = logging.INFO, to: TextIO | None = None
) -> None:
    """Send every log record to ``to`` (stderr) as ``key=value`` text (default) or JSON lines."""
    global log
    to = to or sys.stderr
    render: Any = processors.LogfmtRenderer(key_order=["ts", "level", "logger", "msg"])
    if style == "json":
        render = processors.JSONRenderer(ensure_ascii=False, default=str)
    tail = [processors.EventRenamer("msg"), processors.format_exc_info, render]
    stamp: list[Any] = [processors.TimeStamper(fmt="iso", key="ts"), processors.add_log_level]
    # RPC lines skip logging (a logging record costs twice the time); other records use it
    log = structlog.wrap_logger(structlog.WriteLogger(to), [*stamp, *tail], ANY_LEVEL)
    log = log.bind(logger=std.name)
    stamp += [stdlib.add_logger_name, stdlib.ProcessorFormatter.remove_processors_meta, *tail]
    extra = [stdlib.ExtraAdder()]  # the fields other modules pass as extra={...}
    handler = logging.StreamHandler(to)
    handler.setFormatter(stdlib.ProcessorFormatter(processors=stamp, foreign_pre_chain=extra))
    logging.basicConfig(handlers=[handler], level=level, force=True)
