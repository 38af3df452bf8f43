"""Prometheus metrics for every RPC and the event store (names: docs/api.md); stream draining
and the bound on a stream's send (``--stream-stall-timeout``)."""

from __future__ import annotations

import asyncio
import functools
import gc
import inspect
import time
from collections.abc import Callable
from typing import Any

import grpc
import prometheus_client
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram

from server.transport import logs

RPC_TIMES = (5e-4, 1e-3, 2.5e-3, 5e-3, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
STORE_TIMES = (1e-4, 2.5e-4, 5e-4, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1.0)
BATCH = tuple(2**i for i in range(10))  # events per group commit: 1, 2, 4 ... 512
GC_PAUSES = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)  # seconds
RPC = ("grpc_service", "grpc_method", "grpc_type")
SHUTDOWN = "the server is shutting down; reconnect"
STALLED = "the stream was not read for {seconds} s; reconnect"
STALL_TIMEOUT = 30.0  # seconds a stream may wait for its reader (--stream-stall-timeout)


class Metrics:
    """Every metric of one server process, in one registry."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        prometheus_client.disable_created_metrics()  # no *_created series: twice the output
        r = self.registry = REGISTRY if registry is None else registry
        counter = functools.partial(Counter, registry=r)
        gauge = functools.partial(Gauge, registry=r)
        hist, coded = functools.partial(Histogram, registry=r), [*RPC, "grpc_code"]
        self.started = counter("grpc_server_started_total", "RPCs started.", RPC)
        self.handled = counter("grpc_server_handled_total", "RPCs finished, by code.", coded)
        self.latency = hist("grpc_server_handling_seconds", "RPC time.", coded, buckets=RPC_TIMES)
        self.sent = counter("grpc_server_msg_sent_total", "Stream messages sent.", RPC)
        self.open_streams = gauge("tabletop_open_streams", "Server streams open now.", RPC[:2])
        self.moves = counter("tabletop_moves_appended_total", "Moves durably appended.", ["kind"])
        self.games = counter("tabletop_games_created_total", "Tables opened.", ["kind"])
        self.events = counter("tabletop_events_appended_total", "Events durably saved.")
        self.store = hist("tabletop_store_seconds", "Store call time.", ["op"], buckets=STORE_TIMES)
        self.store_errors = counter("tabletop_store_errors_total", "Failed store calls.", ["op"])
        self.settled = counter(  # server/store/eventstore.py: writes of unknown outcome
            "tabletop_writes_settled_total",
            "Failed writes settled by reading back: stored, taken, rewritten, unresolved.",
            ["result"],
        )
        self.store_faults = counter(  # server/transport/health.py
            "tabletop_store_faults_total", "Store faults: full disk, lock, lost database.", ["op"]
        )
        self.batch = hist("tabletop_commit_batch_events", "Events per commit.", buckets=BATCH)
        self.store_up = gauge("tabletop_store_up", "1 while every shard of the store works.")
        self.feed = gauge(  # server/store/shards.py Feed: flat as replicas grow (docs, F1)
            "tabletop_feed_count",
            "The store feeds' counts since start: commits announced, rows read, rows of "
            "games not served here left unread, events delivered, own rows skipped.",
            ["count"],
        )
        self.gc_pause = hist(  # watch_collector: the tail of every call (docs/operations.md)
            "tabletop_gc_pause_seconds",
            "Cyclic garbage collections: how long each held the interpreter, by generation.",
            ["generation"],
            buckets=GC_PAUSES,
        )
        self._moves: dict[str, Any] = {}  # each game kind's series, looked up once

    def count_move(self, kind: str) -> None:
        """A Play was appended (a Play call's or a PlaySession's)."""
        series = self._moves.get(kind)
        if series is None:
            series = self._moves[kind] = self.moves.labels(kind)
        series.inc()


def watch_collector(metrics: Metrics) -> Callable[[], None]:
    """Time every collection of CPython's cyclic collector into ``tabletop_gc_pause_seconds``;
    returns what stops it. Why: a collection holds the GIL, so the event loop and every call
    in flight wait for it; a full one scans everything the server holds (docs/operations.md,
    "Garbage collection"), and this is how an operator sees those pauses grow."""
    by_generation = [metrics.gc_pause.labels(str(g)) for g in range(3)]
    began = [0.0]

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[0] = time.perf_counter()
        else:
            by_generation[info["generation"]].observe(time.perf_counter() - began[0])

    gc.callbacks.append(callback)
    return lambda: gc.callbacks.remove(callback)


def _timed(metrics: Metrics, op: str, fn: Any) -> Any:
    errors, latency = metrics.store_errors.labels(op), metrics.store.labels(op)

    @functools.wraps(fn)
    def timed(*args: Any, **kwargs: Any) -> Any:
        with errors.count_exceptions(), latency.time():
            return fn(*args, **kwargs)

    return timed


def instrument_store(app: Any, metrics: Metrics) -> None:
    """Time a TableApplication's store calls (save, load, load_version, read); count events."""
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


class _Stream:
    __slots__ = ("task", "waiting", "last", "sent", "writing_since", "stalled")

    def __init__(self, last: int) -> None:
        self.task = asyncio.current_task()
        self.waiting = True  # inside the servicer (waiting for events), not sending
        self.last, self.sent = last, 0
        self.writing_since: float | None = None  # loop time the send in flight began
        self.stalled = False  # the stall watchdog cancelled the send


class RpcInterceptor(grpc.aio.ServerInterceptor):
    """Metrics, the log line and shutdown draining for every RPC of a grpc.aio server."""

    def __init__(self, metrics: Metrics, stall_timeout: float = STALL_TIMEOUT) -> None:
        self.metrics = metrics
        self.stall_timeout = stall_timeout
        self.closing = False
        self._streams: set[_Stream] = set()
        self._cache: dict[str, tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler]] = {}
        self._watchdog: asyncio.Task[None] | None = None

    def close_streams(self) -> int:
        """End open streams with UNAVAILABLE (at once if waiting, else before the next send)."""
        self.closing = True
        for stream in list(self._streams):
            if stream.waiting and stream.task is not None:
                stream.task.cancel()
        return len(self._streams)

    async def intercept_service(self, continuation: Any, details: grpc.HandlerCallDetails) -> Any:
        handler = await continuation(details)  # wrapped once per method, then from the cache
        cached = self._cache.get(details.method, (None, None))
        if handler is None or cached[0] is handler:
            return None if handler is None else cached[1]
        service, _, method = details.method.lstrip("/").rpartition("/")
        wrapped, io = handler, (handler.request_deserializer, handler.response_serializer)
        if handler.unary_unary is not None:
            call = self._call(service, method, None, handler.unary_unary)
            wrapped = grpc.unary_unary_rpc_method_handler(call, *io)
        elif handler.unary_stream is not None:  # an async generator, or context.write
            gauge = self.metrics.open_streams.labels(service, method)
            call = self._call(service, method, gauge, handler.unary_stream, io[1])
            wrapped = grpc.unary_stream_rpc_method_handler(call, io[0], _passing_bytes(io[1]))
        elif handler.stream_stream is not None and inspect.isasyncgenfunction(
            handler.stream_stream
        ):  # PlaySession, reflection: each message its own (nothing shared to serialise once)
            gauge = self.metrics.open_streams.labels(service, method)
            call = self._call(service, method, gauge, handler.stream_stream, kind="bidi_stream")
            wrapped = grpc.stream_stream_rpc_method_handler(call, *io)
        self._cache[details.method] = (handler, wrapped)  # other client streams: as they are
        return wrapped

    def _call(
        self,
        service: str,
        method: str,
        gauge: Any,
        behavior: Any,
        serialize: Any = None,
        kind: str = "server_stream",
    ) -> Any:
        m, pump = self.metrics, inspect.isasyncgenfunction(behavior)
        wire = None if serialize is None else _Wire(serialize)
        labels = (service, method, "unary" if gauge is None else kind)
        started, sent = m.started.labels(*labels), m.sent.labels(*labels)
        # (moves are counted where they are played, a Play or a PlaySession's: the servicer)
        counted = {"CreateGame": m.games}.get(method)  # TableService's
        # each code's and kind's series, looked up once (labels() validates and locks)
        by_code: dict[str, tuple[Any, Any]] = {}
        by_kind: dict[str, Any] = {}

        def finished(code: str, elapsed: float) -> None:
            series = by_code.get(code)
            if series is None:
                series = by_code[code] = (
                    m.handled.labels(*labels, code),
                    m.latency.labels(*labels, code),
                )
            series[0].inc()
            series[1].observe(elapsed)

        def count(kind: str) -> None:
            assert counted is not None
            series = by_kind.get(kind)
            if series is None:
                series = by_kind[kind] = counted.labels(kind)
            series.inc()

        def release(stream: _Stream | None) -> None:
            if stream in self._streams:
                self._streams.discard(stream)
                gauge.dec()

        async def call(request: Any, context: grpc.aio.ServicerContext) -> Any:
            started.inc()
            start, code, response, stream = time.perf_counter(), "UNKNOWN", None, None
            logs.CALL.set(noted := dict[str, Any]())
            try:
                if gauge is not None:
                    self._streams.add(stream := _Stream(getattr(request, "after_version", 0)))
                    gauge.inc()
                    self._watch_stalls()
                    if self.closing:
                        raise asyncio.CancelledError
                if pump:  # (a server stream)
                    await self._pump(behavior(request, context), context, stream, sent, wire)
                else:
                    response = await behavior(request, context)
                code = getattr(context.code(), "name", "OK")  # a StatusCode, or None: OK
                return response
            except _Stalled:
                # What the stream held (its page, its subscription, its place in the stream
                # limits) is released; the status waits behind the message in flight, and
                # the client reads it when it reads again.
                code = "UNAVAILABLE"
                release(stream)
                stalled = STALLED.format(seconds=f"{self.stall_timeout:g}")
                assert stream is not None
                await context.abort_with_status(
                    resume_status(method, stalled, "STREAM_STALLED", stream.last)
                )
            except asyncio.CancelledError:
                if stream is None or not self.closing or context.cancelled():
                    code = "CANCELLED"
                    raise
                code = "UNAVAILABLE"
                await context.abort_with_status(
                    resume_status(method, SHUTDOWN, "SHUTTING_DOWN", stream.last)
                )
            finally:  # an abort has its code, a servicer's crash none (UNKNOWN)
                code = getattr(context.code(), "name", code) if code == "UNKNOWN" else code
                elapsed = time.perf_counter() - start
                finished(code, elapsed)
                if code == "OK" and counted is not None:
                    count(request.options.WhichOneof("game") or "unknown")
                if stream is not None:
                    release(stream)
                    noted.update(sent=stream.sent, last_version=stream.last)
                logs.rpc(method, code, elapsed, gauge is not None, request, response, context)

        return call

    async def _pump(
        self, agen: Any, context: Any, stream: Any, sent: Any, wire: _Wire | None = None
    ) -> None:
        """Send a servicer's async generator with ``context.write``, noting the last version
        sent. A send that waits ``stall_timeout`` seconds for the client (its flow-control
        window full) raises ``_Stalled``: a client that stops reading holds a stream, one
        page of events and the transport's buffers, for that long at most. The bound is
        kept by one watchdog for all streams (``_stall_watchdog``), not a timer per send.

        ``wire``: a message many streams send (a move's batch, rendered once per viewer and
        shared by each stream of that viewer, server/usecases/hub.py) is serialised once."""
        clock = asyncio.get_running_loop().time
        serialize = None if wire is None else wire.serialize
        known = {} if wire is None else wire.known
        write = context.write
        try:
            while not self.closing:
                stream.waiting = True
                msg = await anext(agen, None)
                stream.waiting = False
                if msg is None:
                    return
                data = msg
                if serialize is not None:  # (inline: this is the send, per message)
                    hit = known.get(id(msg))
                    if hit is not None and hit[0] is msg:
                        data = hit[1]
                    else:
                        data = serialize(msg)
                        if len(data) <= _Wire.LARGEST:
                            if len(known) >= _Wire.SIZE:
                                known.clear()
                            known[id(msg)] = (msg, data)
                stream.writing_since = clock()
                try:
                    await write(data)
                except asyncio.CancelledError:
                    if not stream.stalled:
                        raise
                    stream.task.uncancel()  # the watchdog's cancel, turned into _Stalled
                    raise _Stalled from None
                finally:
                    stream.writing_since = None
                stream.last = last_version(msg, stream.last)
                stream.sent += 1
                sent.inc()
            raise asyncio.CancelledError  # closing: ends like a cancelled wait
        finally:
            await agen.aclose()  # the servicer's own cleanup (unsubscribe) runs now

    def _watch_stalls(self) -> None:
        if self._watchdog is None or self._watchdog.done():
            self._watchdog = asyncio.get_running_loop().create_task(self._stall_watchdog())

    async def _stall_watchdog(self) -> None:
        """Every quarter of ``stall_timeout`` (at most a second), cancel each send that has
        waited ``stall_timeout`` for its reader; ends when no stream is open."""
        loop = asyncio.get_running_loop()
        while self._streams:
            await asyncio.sleep(min(1.0, self.stall_timeout / 4))
            now = loop.time()
            for stream in list(self._streams):
                since = stream.writing_since
                if since is not None and now - since >= self.stall_timeout and not stream.stalled:
                    stream.stalled = True
                    if stream.task is not None:
                        stream.task.cancel()


class _Wire:
    """A stream method's messages as bytes, each message object serialised once (by
    ``RpcInterceptor._pump``): the messages of a live batch are shared by every stream of
    one viewer (the hub renders them once per viewer), so the spectators of a table send
    one serialisation. Held by identity, and the message with its bytes, so an id is not
    reused while kept; a stream message is never changed once it is sent. Dropped whole
    when full. A large message (a new stream's page of history: its own) is not kept."""

    __slots__ = ("serialize", "known")
    SIZE = 512  # messages: a few moves' batches for every viewer of every game
    LARGEST = 1 << 14  # bytes: a move's batch is about 1 KB

    def __init__(self, serialize: Any) -> None:
        self.serialize = serialize
        self.known: dict[int, tuple[Any, bytes]] = {}


def _passing_bytes(serialize: Any) -> Any:
    """A response serialiser that sends bytes (serialised by ``_Wire``) as they are."""
    if serialize is None:
        return None

    def passing(msg: Any) -> bytes:
        return msg if type(msg) is bytes else serialize(msg)

    return passing


def last_version(msg: Any, before: int) -> int:
    """The last version a stream message carries (a Watch batch's last event's; a
    PlaySession's Watch message's)."""
    msg = getattr(msg, "watch", msg)
    batch = getattr(msg, "events", None)
    if batch:
        return int(batch[-1].version)
    return int(getattr(getattr(msg, "event", None), "version", before) or before)


class _Stalled(Exception):
    """The client did not read its stream for ``stall_timeout`` seconds."""


def resume_status(method: str, why: str, reason: str, last: int) -> grpc.Status:
    """UNAVAILABLE for a stream the server ends, saying where to resume: ``Watch`` with
    ``after_version`` = the last version sent, ``Replay`` from the version after it."""
    from google.protobuf import any_pb2
    from google.rpc import code_pb2, error_details_pb2, status_pb2
    from grpc_status import rpc_status

    metadata = {}
    if method in ("Watch", "PlaySession"):
        metadata["after_version"] = str(last)
        why += f" with after_version={last}"
    elif method == "Replay" and last:
        metadata["from_version"] = str(last + 1)
        why += f" with from_version={last + 1}"
    info = any_pb2.Any()
    info.Pack(error_details_pb2.ErrorInfo(reason=reason, domain="tabletop.v1", metadata=metadata))
    return rpc_status.to_status(
        status_pb2.Status(code=code_pb2.UNAVAILABLE, message=why, details=[info])
    )
