"""A refused call as one line a person can act on (the rule's reason from the rich details)."""

from __future__ import annotations

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status


def error_info(err: grpc.RpcError) -> error_details_pb2.ErrorInfo | None:
    status = rpc_status.from_call(err)  # type: ignore[arg-type]
    if status is None:
        return None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    return None


def error_line(err: grpc.RpcError, target: str = "") -> str:
    """``refused by the rule 诵 (MUST_RAISE): you must 诵: play more than 5``."""
    code = err.code()
    details = err.details() or ""
    if code == grpc.StatusCode.UNAVAILABLE:
        where = f" at {target}" if target else ""
        return (
            f"no server answers{where} ({details}); start one with `make run`, or point "
            "--target / TABLETOP_TARGET at it"
        )
    info = error_info(err) if code == grpc.StatusCode.FAILED_PRECONDITION else None
    if info is not None and info.metadata.get("rule"):
        return f"refused by the rule {info.metadata['rule']} ({info.reason}): {details}"
    return f"{code.name}: {details}"
