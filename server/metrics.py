"""Prometheus metrics (prometheus_client) for every RPC and the event store; stream draining.

``RpcInterceptor`` counts and times every RPC, counts moves and tables, tracks open streams,
writes each call's log line (server/logs.py) and, on shutdown, ends open streams with
UNAVAILABLE (``Watch`` says which version to resume after). Metric names: docs/api.md.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import prometheus_client
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram

from server import logs

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
    1,
    2.5,
    5,
    10,
    30,
)
STORE_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1.0)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
RPC = ("grpc_service", "grpc_method", "grpc_type")
SERVICE = "tabletop.v1.TableService"
WRITES = frozenset({"CreateGame", "JoinGame", "StartGame", "Play"})  # INFO; other reads DEBUG
SHUTDOWN = "the server is shutting down; reconnect"


class Metrics:
    """Every metric of one server process, in one registry."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        prometheus_client.disable_created_metrics()  # no *_created series: they double the output for nothing
        r = self.registry = REGISTRY if registry is None else registry

        def new(kind: Any, name: str, doc: str, labels: Any = (), **kw: Any) -> Any:
            return kind(name, doc, labels, registry=r, **kw)

        coded, store = [*RPC, "grpc_code"], {"buckets": STORE_BUCKETS}
        self.started = new(Counter, "grpc_server_started_total", "RPCs started.", RPC)
        self.handled = new(Counter, "grpc_server_handled_total", "RPCs completed.", coded)
        self.latency = new(
            Histogram, "grpc_server_handling_seconds", "RPC time.", coded, buckets=LATENCY_BUCKETS
        )
        self.sent = new(Counter, "grpc_server_msg_sent_total", "Stream messages sent.", RPC)
        self.open_streams = new(Gauge, "tabletop_open_streams", "Streams open.", RPC[:2])
        self.moves = new(Counter, "tabletop_moves_appended_total", "Moves appended.", ["kind"])
        self.games = new(Counter, "tabletop_games_created_total", "Tables opened.", ["kind"])
        self.events = new(Counter, "tabletop_events_appended_total", "Events saved.")
        self.store = new(Histogram, "tabletop_store_seconds", "Store call time.", ["op"], **store)
        self.store_errors = new(Counter, "tabletop_store_errors_total", "Store errors.", ["op"])
        self.batch = new(
            Histogram, "tabletop_commit_batch_events", "Events per commit.", buckets=BATCH_BUCKETS
        )
        self.store_up = new(Gauge, "tabletop_store_up", "1 while the store answers.")


@functools.cache
def default_metrics() -> Metrics:
    """The process-wide metrics in prometheus_client's default registry (created once)."""
    return Metrics()


def _timed(metrics: Metrics, op: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    errors, latency = metrics.store_errors.labels(op), metrics.store.labels(op)

    @functools.wraps(fn)
    def timed(*args: Any, **kwargs: Any) -> Any:
        with errors.count_exceptions(), latency.time():
            return fn(*args, **kwargs)

    return timed


def instrument_store(app: Any, metrics: Metrics) -> None:
    """Time a ``TableApplication``'s store calls: ``save`` (one group commit), ``load`` (a
    game), ``load_version`` (a past version), ``read`` (stored events); count saved events."""
    save, get = _timed(metrics, "save", app.save), app.repository.get
    load, load_version = _timed(metrics, "load", get), _timed(metrics, "load_version", get)

    def counted_save(*events: Any, **kwargs: Any) -> Any:
        result = save(*events, **kwargs)
        metrics.events.inc(len(events))
        metrics.batch.observe(len(events))
        return result

    def timed_get(aggregate_id: Any, *args: Any, **kwargs: Any) -> Any:
        past = args or kwargs.get("version") is not None
        return (load_version if past else load)(aggregate_id, *args, **kwargs)

    app.save, app.repository.get = counted_save, timed_get
    app.stored_events = _timed(metrics, "read", app.stored_events)


def probe_store(app: Any, metrics: Metrics) -> bool:
    """One cheap read of the store (blocking): True when it answers. Records its latency."""
    try:
        _timed(metrics, "probe", app.recorder.max_notification_id)()
    except Exception:
        metrics.store_up.set(0)
        return False
    metrics.store_up.set(1)
    return True


def serve_metrics(port: int, host: str, metrics: Metrics) -> tuple[Any, int]:
    """Start the ``/metrics`` HTTP endpoint; returns the server and the bound port."""
    httpd, _thread = prometheus_client.start_http_server(port, addr=host, registry=metrics.registry)
    return httpd, int(httpd.server_port)


class _Stream:
    __slots__ = ("task", "waiting", "last", "sent")

    def __init__(self, last: int) -> None:
        self.task = asyncio.current_task()
        self.waiting = True  # inside the servicer (waiting for events), not sending
        self.last, self.sent = last, 0


class RpcInterceptor(grpc.aio.ServerInterceptor):
    """Metrics, the log line and shutdown draining for every RPC of a grpc.aio server."""

    def __init__(self, metrics: Metrics | None = None) -> None:
        self.metrics = metrics or default_metrics()
        self.closing = False
        self._streams: set[_Stream] = set()
        self._cache: dict[str, tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler]] = {}

    def close_streams(self) -> int:
        """End every open server stream with UNAVAILABLE, and refuse new ones: one waiting
        for events at once, one busy sending before its next message. Returns how many."""
        self.closing = True
        for stream in list(self._streams):
            if stream.waiting and stream.task is not None:
                stream.task.cancel()
        return len(self._streams)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        cached = self._cache.get(details.method)
        if handler is None or (cached is not None and cached[0] is handler):
            return cached[1] if cached is not None and handler is not None else handler
        service, _, method = details.method.lstrip("/").rpartition("/")
        wrapped, io = handler, (handler.request_deserializer, handler.response_serializer)
        if handler.unary_unary is not None:
            call = self._call(service, method, "unary", handler.unary_unary)
            wrapped = grpc.unary_unary_rpc_method_handler(call, *io)
        elif handler.unary_stream is not None:  # an async generator, or context.write
            call = self._call(service, method, "server_stream", handler.unary_stream)
            wrapped = grpc.unary_stream_rpc_method_handler(call, *io)
        self._cache[details.method] = (handler, wrapped)  # client streams (reflection): as is
        return wrapped

    def _call(self, service: str, method: str, kind: str, behavior: Any) -> Callable[..., Any]:
        labels, m = (service, method, kind), self.metrics
        started, sent = m.started.labels(*labels), m.sent.labels(*labels)
        gauge = m.open_streams.labels(service, method) if kind != "unary" else None
        pump, loud = inspect.isasyncgenfunction(behavior), method in WRITES or gauge is not None
        counted = (
            {"Play": m.moves, "CreateGame": m.games}.get(method) if service == SERVICE else None
        )

        async def call(request: Any, context: grpc.aio.ServicerContext) -> Any:
            started.inc()
            start, code, response, stream = time.perf_counter(), "UNKNOWN", None, None
            noted: dict[str, Any] = {}
            logs.CALL.set(noted)
            try:
                if gauge is None:
                    response = await behavior(request, context)
                else:
                    self._streams.add(stream := _Stream(getattr(request, "after_version", 0)))
                    gauge.inc()
                    if self.closing:
                        raise asyncio.CancelledError
                    if pump:
                        await self._pump(behavior(request, context), context, stream, sent)
                    else:
                        response = await behavior(request, context)
                code = getattr(context.code(), "name", "OK")  # a StatusCode, or None: OK
                return response
            except grpc.aio.AbortError:
                code = getattr(context.code(), "name", "UNKNOWN")
                raise
            except asyncio.CancelledError:
                if stream is None or not self.closing or context.cancelled():
                    code = "CANCELLED"
                    raise
                code = "UNAVAILABLE"
                resume = f" with after_version={stream.last}" if method == "Watch" else ""
                await context.abort(grpc.StatusCode.UNAVAILABLE, SHUTDOWN + resume)
            finally:
                elapsed = time.perf_counter() - start
                m.handled.labels(*labels, code).inc()
                m.latency.labels(*labels, code).observe(elapsed)
                if code == "OK" and counted is not None:
                    options = request.move if method == "Play" else request.options
                    counted.labels(options.WhichOneof("game") or "unknown").inc()
                if stream is not None:
                    self._streams.discard(stream)
                    gauge.dec()  # type: ignore[union-attr]
                    noted.update(sent=stream.sent, last_version=stream.last)
                level = logging.INFO if loud or code != "OK" else logging.DEBUG
                level = logging.ERROR if code in logs.SERIOUS else level
                if logs.std.isEnabledFor(level):
                    logs.rpc(level, method, code, elapsed, request, response, context, noted)

        return call

    async def _pump(self, agen: Any, context: Any, stream: _Stream, sent: Any) -> None:
        """Send a servicer's async generator with ``context.write``, noting the last version."""
        try:
            while not self.closing:
                stream.waiting = True
                try:
                    msg = await agen.__anext__()
                except StopAsyncIteration:
                    return
                stream.waiting = False
                event = getattr(msg, "event", None)
                stream.last = event.version if event is not None else stream.last
                stream.sent += 1
                sent.inc()
                await context.write(msg)
            raise asyncio.CancelledError  # closing: ends like a cancelled wait
        finally:
            await agen.aclose()  # the servicer's own cleanup (unsubscribe) runs now
