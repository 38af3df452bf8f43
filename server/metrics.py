"""Observability: Prometheus metrics, structured logs, stream draining and a store probe.

* ``RpcInterceptor`` (a grpc.aio server interceptor) counts and times every RPC by method
  and status code, counts moves appended, tracks open streams, writes one structured log
  line per call (with the game id and version), and ends open ``Watch`` streams with a
  clean UNAVAILABLE status when the server shuts down, so clients resume elsewhere.
* ``instrument_store`` wraps an application's store calls to time them.
* ``serve_metrics`` exposes everything on a separate HTTP port at ``/metrics``.
* ``configure_logging`` renders log records as ``key=value`` text or JSON lines.

Metric names (see docs/api.md, Observability):

    grpc_server_started_total{grpc_service,grpc_method,grpc_type}
    grpc_server_handled_total{grpc_service,grpc_method,grpc_type,grpc_code}
    grpc_server_handling_seconds{grpc_service,grpc_method,grpc_type,grpc_code}   histogram
    grpc_server_msg_sent_total{grpc_service,grpc_method,grpc_type}
    tabletop_open_streams{grpc_service,grpc_method}                              gauge
    tabletop_moves_appended_total{kind}
    tabletop_games_created_total{kind}
    tabletop_events_appended_total
    tabletop_store_seconds{op}             histogram; op: save, load, load_version, read, probe
    tabletop_store_errors_total{op}
    tabletop_commit_batch_events           histogram of events per group-commit transaction
    tabletop_store_up                      gauge, 1 while the store answers the health probe
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import grpc
from prometheus_client import REGISTRY as DEFAULT_REGISTRY
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    start_http_server,
)

log = logging.getLogger("tabletop.rpc")

LATENCY_BUCKETS = (
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
)
STORE_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1.0)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
# Calls that change a game: logged at INFO. Reads are logged at DEBUG unless they fail.
WRITES = frozenset({"CreateGame", "JoinGame", "RevealContribution", "StartGame", "Play"})
SHUTDOWN = "the server is shutting down; reconnect"
SHUTDOWN_WATCH = SHUTDOWN + " with after_version={last}"


class Metrics:
    """Every metric of one server process, in one registry."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        disable_created_metrics()  # no *_created series: they double the output for nothing
        r = self.registry = registry if registry is not None else DEFAULT_REGISTRY
        rpc = ["grpc_service", "grpc_method", "grpc_type"]
        self.started = Counter(
            "grpc_server_started_total", "RPCs started on the server.", rpc, registry=r
        )
        self.handled = Counter(
            "grpc_server_handled_total",
            "RPCs completed on the server, by status code.",
            [*rpc, "grpc_code"],
            registry=r,
        )
        self.latency = Histogram(
            "grpc_server_handling_seconds",
            "Time from the start of an RPC to its status, by status code.",
            [*rpc, "grpc_code"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.sent = Counter(
            "grpc_server_msg_sent_total", "Stream messages sent by the server.", rpc, registry=r
        )
        self.open_streams = Gauge(
            "tabletop_open_streams",
            "Server-streaming calls open now.",
            ["grpc_service", "grpc_method"],
            registry=r,
        )
        self.moves = Counter(
            "tabletop_moves_appended_total",
            "Moves accepted and durably appended, by game kind.",
            ["kind"],
            registry=r,
        )
        self.games = Counter(
            "tabletop_games_created_total", "Tables opened, by game kind.", ["kind"], registry=r
        )
        self.events = Counter(
            "tabletop_events_appended_total", "Events durably saved to the store.", registry=r
        )
        self.store = Histogram(
            "tabletop_store_seconds",
            "Latency of event store calls, by operation.",
            ["op"],
            buckets=STORE_BUCKETS,
            registry=r,
        )
        self.store_errors = Counter(
            "tabletop_store_errors_total", "Event store calls that raised.", ["op"], registry=r
        )
        self.batch = Histogram(
            "tabletop_commit_batch_events",
            "Events saved per group-commit transaction.",
            buckets=BATCH_BUCKETS,
            registry=r,
        )
        self.store_up = Gauge(
            "tabletop_store_up", "1 while the event store answers the health probe.", registry=r
        )


_default: Metrics | None = None


def default_metrics() -> Metrics:
    """The process-wide metrics in prometheus_client's default registry (created once)."""
    global _default
    if _default is None:
        _default = Metrics()
    return _default


# --- the event store ------------------------------------------------------------------------


def _timed(metrics: Metrics, op: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    hist = metrics.store.labels(op)
    errors = metrics.store_errors.labels(op)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        except Exception:
            errors.inc()
            raise
        finally:
            hist.observe(time.perf_counter() - start)

    return wrapper


def instrument_store(app: Any, metrics: Metrics) -> None:
    """Time the store calls of a ``TableApplication`` (wrapping its bound methods in place).

    ``save`` is one group-commit transaction; ``load`` rebuilds a game (``load_version`` a
    past version of it); ``read`` reads stored events for streams and history.
    """
    save = _timed(metrics, "save", app.save)

    @functools.wraps(app.save)
    def counted_save(*events: Any, **kwargs: Any) -> Any:
        result = save(*events, **kwargs)
        metrics.events.inc(len(events))
        metrics.batch.observe(len(events))
        return result

    app.save = counted_save
    get = app.repository.get
    load = _timed(metrics, "load", get)
    load_version = _timed(metrics, "load_version", get)

    @functools.wraps(get)
    def timed_get(aggregate_id: Any, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs.get("version") is not None:
            return load_version(aggregate_id, *args, **kwargs)
        return load(aggregate_id, *args, **kwargs)

    app.repository.get = timed_get
    app.stored_events = _timed(metrics, "read", app.stored_events)


def probe_store(app: Any, metrics: Metrics) -> bool:
    """One cheap read of the store (blocking): True when it answers. Records its latency."""
    start = time.perf_counter()
    try:
        app.recorder.max_notification_id()
    except Exception:
        metrics.store_errors.labels("probe").inc()
        metrics.store_up.set(0)
        return False
    finally:
        metrics.store.labels("probe").observe(time.perf_counter() - start)
    metrics.store_up.set(1)
    return True


def serve_metrics(port: int, host: str, metrics: Metrics) -> tuple[Any, int]:
    """Start the ``/metrics`` HTTP endpoint; returns the server and the bound port."""
    httpd, _thread = start_http_server(port, addr=host, registry=metrics.registry)
    return httpd, int(httpd.server_port)


# --- gRPC -----------------------------------------------------------------------------------


def _split(full_method: str) -> tuple[str, str]:
    service, _, method = full_method.lstrip("/").rpartition("/")
    return service, method


def _code_name(code: Any) -> str:
    if isinstance(code, grpc.StatusCode):
        return code.name
    if isinstance(code, int):
        for c in grpc.StatusCode:
            if c.value[0] == code:
                return c.name
    return "UNKNOWN"


def _reason(context: grpc.aio.ServicerContext) -> str | None:
    """The ErrorInfo reason of a failed call's rich status, if it has one."""
    try:
        trailers = context.trailing_metadata() or ()
    except Exception:  # pragma: no cover - not every context implementation has it
        return None
    for key, value in trailers:
        if key != "grpc-status-details-bin":
            continue
        from google.rpc import error_details_pb2, status_pb2

        status = status_pb2.Status.FromString(value)
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                return str(info.reason)
    return None


def _fields(request: Any, response: Any) -> dict[str, Any]:
    """The game id and version of a call, from its request and response, for the log."""
    out: dict[str, Any] = {}
    game_id = getattr(request, "game_id", "") or getattr(response, "game_id", "")
    if game_id:
        out["game_id"] = game_id
    if response is not None:
        version = getattr(response, "version", None)
        if version is None and hasattr(response, "view"):
            version = response.view.version
        if version is not None:
            out["version"] = int(version)
    if hasattr(request, "expected_version"):
        out["expected_version"] = int(request.expected_version)
    if hasattr(request, "seat") and isinstance(request.seat, int):
        out["seat"] = request.seat
    return out


class _Stream:
    __slots__ = ("task", "waiting", "last")

    def __init__(self, task: asyncio.Task[Any] | None) -> None:
        self.task = task
        self.waiting = False  # inside the servicer (waiting for events), not sending
        self.last = 0


class RpcInterceptor(grpc.aio.ServerInterceptor):
    """Metrics, structured logs and shutdown draining for every RPC of a grpc.aio server."""

    def __init__(self, metrics: Metrics | None = None) -> None:
        self.metrics = metrics or default_metrics()
        self.closing = False
        self._streams: set[_Stream] = set()
        self._cache: dict[str, tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler]] = {}

    @property
    def open_streams(self) -> int:
        return len(self._streams)

    def close_streams(self) -> int:
        """End every open server stream with UNAVAILABLE, and refuse new ones.

        Streams waiting for the next event are cancelled right away; a stream busy sending
        ends before its next message. ``Watch`` streams say which version to resume after.
        Returns how many streams were asked to end.
        """
        self.closing = True
        for stream in list(self._streams):
            if stream.waiting and stream.task is not None:
                stream.task.cancel()
        return len(self._streams)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        full = handler_call_details.method
        cached = self._cache.get(full)
        if cached is not None and cached[0] is handler:
            return cached[1]
        wrapped = self._wrap(full, handler)
        self._cache[full] = (handler, wrapped)
        return wrapped

    def _wrap(self, full: str, handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
        service, method = _split(full)
        ser = {
            "request_deserializer": handler.request_deserializer,
            "response_serializer": handler.response_serializer,
        }
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                self._unary(service, method, "unary", handler.unary_unary), **ser
            )
        if handler.unary_stream is not None:
            behavior = handler.unary_stream
            if inspect.isasyncgenfunction(behavior):
                return grpc.unary_stream_rpc_method_handler(
                    self._stream(service, method, behavior), **ser
                )
            return grpc.unary_stream_rpc_method_handler(
                self._unary(service, method, "server_stream", behavior, stream=True), **ser
            )
        if handler.stream_unary is not None:
            return grpc.stream_unary_rpc_method_handler(
                self._unary(service, method, "client_stream", handler.stream_unary), **ser
            )
        if handler.stream_stream is not None and not inspect.isasyncgenfunction(
            handler.stream_stream
        ):
            return grpc.stream_stream_rpc_method_handler(
                self._unary(service, method, "bidi_stream", handler.stream_stream), **ser
            )
        return handler  # an async-generator bidi stream (reflection): passed through

    def _finish(
        self,
        labels: tuple[str, str, str],
        start: float,
        code: str,
        context: grpc.aio.ServicerContext,
        request: Any,
        response: Any,
        extra: dict[str, Any] | None = None,
    ) -> None:
        elapsed = time.perf_counter() - start
        m = self.metrics
        m.handled.labels(*labels, code).inc()
        m.latency.labels(*labels, code).observe(elapsed)
        service, method, _ = labels
        fields: dict[str, Any] = {"method": method, "code": code, "ms": round(elapsed * 1000, 2)}
        fields.update(_fields(request, response))
        if extra:
            fields.update(extra)
        if code != "OK":
            reason = _reason(context)
            if reason:
                fields["reason"] = reason
        elif method == "Play" and service == "tabletop.v1.TableService":
            m.moves.labels(request.move.WhichOneof("game") or "unknown").inc()
        elif method == "CreateGame" and service == "tabletop.v1.TableService":
            m.games.labels(request.options.WhichOneof("game") or "unknown").inc()
        if code in ("INTERNAL", "UNKNOWN", "DATA_LOSS"):
            level = logging.ERROR
        elif method in WRITES or code != "OK" or labels[2] != "unary":
            level = logging.INFO
        else:
            level = logging.DEBUG
        if log.isEnabledFor(level):
            log.log(level, "rpc", extra={"fields": fields})

    def _unary(
        self,
        service: str,
        method: str,
        kind: str,
        behavior: Callable[..., Any],
        stream: bool = False,
    ) -> Callable[..., Any]:
        """A call that returns once: unary, or a stream written with ``context.write``."""
        labels = (service, method, kind)
        started = self.metrics.started.labels(*labels)
        gauge = self.metrics.open_streams.labels(service, method) if stream else None

        async def wrapper(request: Any, context: grpc.aio.ServicerContext) -> Any:
            started.inc()
            start = time.perf_counter()
            response = None
            code = "UNKNOWN"
            handle = None
            if gauge is not None:
                handle = _Stream(asyncio.current_task())
                handle.waiting = True  # it can be ended at any await
                self._streams.add(handle)
                gauge.inc()
            try:
                if handle is not None and self.closing:
                    raise asyncio.CancelledError
                response = await behavior(request, context)
                code = _code_name(context.code()) if context.code() is not None else "OK"
                return response
            except grpc.aio.AbortError:
                code = _code_name(context.code())
                raise
            except asyncio.CancelledError:
                if handle is None or not self.closing or context.cancelled():
                    code = "CANCELLED"
                    raise
                code = "UNAVAILABLE"
                await context.abort(grpc.StatusCode.UNAVAILABLE, SHUTDOWN)
            finally:
                if handle is not None and gauge is not None:
                    self._streams.discard(handle)
                    gauge.dec()
                self._finish(labels, start, code, context, request, response)

        return wrapper

    def _stream(
        self, service: str, method: str, behavior: Callable[..., AsyncGenerator[Any, None]]
    ) -> Callable[..., AsyncIterator[Any]]:
        labels = (service, method, "server_stream")
        started = self.metrics.started.labels(*labels)
        sent = self.metrics.sent.labels(*labels)
        gauge = self.metrics.open_streams.labels(service, method)
        resumable = method == "Watch"  # its requests carry after_version

        async def wrapper(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            started.inc()
            start = time.perf_counter()
            stream = _Stream(asyncio.current_task())
            stream.last = int(getattr(request, "after_version", 0))
            self._streams.add(stream)
            gauge.inc()
            code = "UNKNOWN"
            count = 0
            agen = behavior(request, context)
            try:
                while True:
                    if self.closing:
                        raise asyncio.CancelledError
                    stream.waiting = True
                    try:
                        msg = await agen.__anext__()
                    except StopAsyncIteration:
                        break
                    finally:
                        stream.waiting = False
                    count += 1
                    sent.inc()
                    event = getattr(msg, "event", None)
                    if event is not None:
                        stream.last = int(event.version)
                    yield msg
                code = "OK"
            except grpc.aio.AbortError:
                code = _code_name(context.code())
                raise
            except asyncio.CancelledError:
                if not self.closing or context.cancelled():
                    code = "CANCELLED"
                    raise
                code = "UNAVAILABLE"
                await agen.aclose()
                message = SHUTDOWN_WATCH.format(last=stream.last) if resumable else SHUTDOWN
                await context.abort(grpc.StatusCode.UNAVAILABLE, message)
            except GeneratorExit:  # the client went away while a message was being sent
                code = "CANCELLED"
                raise
            finally:
                await agen.aclose()  # the servicer's own cleanup (unsubscribe) runs now
                self._streams.discard(stream)
                gauge.dec()
                extra = {"sent": count, "last_version": stream.last}
                self._finish(labels, start, code, context, request, None, extra)

        return wrapper


# --- logs -----------------------------------------------------------------------------------


class StructuredFormatter(logging.Formatter):
    """One line per record: ``ts=… level=… logger=… msg=… key=value…`` or a JSON object.

    Structured fields come from ``extra={"fields": {...}}``; the RPC log carries ``method``,
    ``code``, ``ms``, ``game_id``, ``version`` (and ``reason`` for refusals).
    """

    def __init__(self, style: str = "text") -> None:
        super().__init__()
        self.json = style == "json"

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        data.update(getattr(record, "fields", None) or {})
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        if self.json:
            return json.dumps(data, ensure_ascii=False, default=str)
        return " ".join(f"{k}={_logfmt(v)}" for k, v in data.items())


def _logfmt(value: Any) -> str:
    text = str(value)
    if text and not any(c in text for c in ' "=\n\t'):
        return text
    return json.dumps(text, ensure_ascii=False)


def configure_logging(style: str = "text", level: int = logging.INFO) -> None:
    """Send every log record to stderr as ``key=value`` text (default) or JSON lines."""
    handler = logging.StreamHandler()
    handler.setFormatter(StructuredFormatter(style))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
