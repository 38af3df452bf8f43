"""Shared pieces of the hardening tests: servers with chosen limits, rich-status details."""

from __future__ import annotations

import os
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
from google.protobuf.message import Message
from grpc_status import rpc_status

from clients.python.serverproc import ServerProcess

BAD_CODES = (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN)


def env_int(name: str, default: int) -> int:
    """An iteration count a developer may raise (``HARDENING_FUZZ_REQUESTS=100000``)."""
    value = os.environ.get(name, "")
    return int(value) if value else default


@contextmanager
def server(data_dir: Path | None = None, *flags: str, **kw: Any) -> Iterator[ServerProcess]:
    # the hunts seed their tables (reproducible deals): prepared deals are allowed here
    proc = ServerProcess(data_dir, extra=["--allow-prepared-deals", *flags], **kw).start()
    try:
        yield proc
    finally:
        proc.cleanup()


def details(err: grpc.RpcError) -> list[Message]:
    """The google.rpc details of a failed call, unpacked (empty if it had none)."""
    from google.rpc import error_details_pb2

    status = rpc_status.from_call(err)  # type: ignore[arg-type]
    if status is None:
        return []
    out: list[Message] = []
    for any_detail in status.details:
        for name in (
            "BadRequest",
            "ErrorInfo",
            "QuotaFailure",
            "RetryInfo",
            "PreconditionFailure",
            "ResourceInfo",
        ):
            cls = getattr(error_details_pb2, name)
            if any_detail.Is(cls.DESCRIPTOR):
                msg = cls()
                any_detail.Unpack(msg)
                out.append(msg)
    return out


def detail(err: grpc.RpcError, cls: type) -> Any:
    for d in details(err):
        if isinstance(d, cls):
            return d
    raise AssertionError(f"no {cls.__name__} in the status of {err.code()}: {err.details()}")


def record_figure(name: str, **values: Any) -> None:
    """Append a test's figures to $HARDENING_FIGURES (JSON lines), when set: how the
    numbers of docs/reliability.md are collected from a run (xdist hides prints)."""
    path = os.environ.get("HARDENING_FIGURES")
    if path:
        import json

        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"figure": name, **values}, ensure_ascii=False) + "\n")


def metrics_port(server: ServerProcess) -> int:
    """The metrics port the server wrote next to its port file (``--metrics-port 0``)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for path in server.data_dir.glob("port.*.metrics"):
            text = path.read_text().strip()
            if text:
                return int(text)
        time.sleep(0.05)
    raise AssertionError("the server wrote no metrics port")


def counter(server: ServerProcess, name: str) -> dict[str, float]:
    """A labelled counter of the server's /metrics, by its first label's value."""
    from prometheus_client.parser import text_string_to_metric_families

    url = f"http://127.0.0.1:{metrics_port(server)}/metrics"
    with urllib.request.urlopen(url, timeout=5) as reply:
        text = reply.read().decode()
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == f"{name}_total":
                out[next(iter(sample.labels.values()), "")] = sample.value
    return out
