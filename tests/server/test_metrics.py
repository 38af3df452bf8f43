"""server.startup.metrics and server.transport.logs: store timing, the readiness probe, the structured log lines."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from prometheus_client import CollectorRegistry

from clients.python.client import TableClient
from clients.python.serverproc import ServerProcess
from domain.engine import MalformedCommand, RuleViolation
from server.startup.metrics import Metrics, instrument_store
from server.transport import logs
from server.transport.errors import to_status
from server.transport.health import StoreHealth
from server.transport.logs import configure_logging
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import seated_game


class FakeRecorder:
    def __init__(self) -> None:
        self.up = True

    def max_notification_id(self) -> int:
        if not self.up:
            raise ConnectionError("the database went away")
        return 7


class FakeRepository:
    def get(self, aggregate_id: Any, version: int | None = None) -> str:
        return f"{aggregate_id}@{version}"


class FakeApp:
    def __init__(self) -> None:
        self.recorder = FakeRecorder()
        self.repository = FakeRepository()
        self.saved: list[Any] = []

    def save(self, *events: Any) -> list[Any]:
        self.saved.extend(events)
        return list(events)

    def stored_events(self, game_id: Any, gt: int | None = None) -> list[int]:
        return [1, 2, 3]


def value(metrics: Metrics, name: str, **labels: str) -> float:
    return metrics.registry.get_sample_value(name, labels) or 0.0


def test_store_calls_are_timed_and_events_counted() -> None:
    metrics = Metrics(CollectorRegistry())
    app = FakeApp()
    instrument_store(app, metrics)
    assert app.save("a", "b", "c") == ["a", "b", "c"]
    assert app.repository.get("g") == "g@None"
    assert app.repository.get("g", version=3) == "g@3"
    assert app.stored_events("g", gt=1) == [1, 2, 3]
    assert value(metrics, "tabletop_events_appended_total") == 3
    assert value(metrics, "tabletop_commit_batch_events_count") == 1
    assert value(metrics, "tabletop_commit_batch_events_sum") == 3
    for op in ("save", "load", "load_version", "read"):
        assert value(metrics, "tabletop_store_seconds_count", op=op) == 1, op


def test_the_probe_reports_a_store_that_stops_answering() -> None:
    metrics = Metrics(CollectorRegistry())
    app = FakeApp()
    health = StoreHealth([app], metrics)
    assert health.probe(0) is True and health.ok
    app.recorder.up = False
    assert health.probe(0) is False and not health.ok
    assert value(metrics, "tabletop_store_faults_total", op="probe") == 1
    app.recorder.up = True
    assert health.probe(0) is True and health.ok
    assert value(metrics, "tabletop_store_seconds_count", op="probe") == 3


# --- logs -----------------------------------------------------------------------------------


class FakeContext:
    """What the log line reads from a grpc.aio context: the peer and the rich status."""

    def __init__(self, status: grpc.Status | None = None) -> None:
        self.status = status

    def peer(self) -> str:
        return "ipv4:10.1.2.3:5555"

    def trailing_metadata(self) -> Any:
        return self.status.trailing_metadata if self.status is not None else ()


@pytest.fixture()
def logged() -> Iterator[Callable[[str], io.StringIO]]:
    """configure_logging(style) writing into the buffer it returns (the root logger restored)."""
    root = logging.getLogger()
    saved, level = root.handlers[:], root.level

    def configure(style: str) -> io.StringIO:
        configure_logging(style, logging.DEBUG, buffer := io.StringIO())
        return buffer

    yield configure
    configure_logging()  # the rpc lines back on stderr
    root.handlers[:] = saved
    root.setLevel(level)


def play(seat: int, code: str = "OK", status: grpc.Status | None = None) -> None:
    """Log one Play call the way the interceptor does, with the seat the servicer noted."""
    request = pb.PlayRequest(game_id="g-1", expected_version=11)
    response = pb.PlayResponse(version=12) if code == "OK" else None
    token = logs.CALL.set({})  # what the interceptor does at the start of a call
    logs.note(seat=seat, role=None)
    logs.rpc("Play", code, 0.0014, False, request, response, FakeContext(status))
    logs.CALL.reset(token)


def test_a_play_line_names_the_game_the_seat_and_the_peer(logged: Any) -> None:
    out = logged("text")
    play(seat=2)
    (line,) = out.getvalue().splitlines()
    # an accepted move is the hot path: DEBUG (counted by the metrics), not INFO
    assert " level=debug logger=tabletop.rpc msg=rpc method=Play code=OK ms=1.4 " in line
    assert "game_id=g-1 version=12 expected_version=11 seat=2 peer=ipv4:10.1.2.3:5555" in line
    assert line.startswith("ts=") and "role" not in line


def test_a_refusal_names_the_rule_or_the_field(logged: Any) -> None:
    out = logged("text")
    rule = RuleViolation("NOT_YOUR_TURN", "turn order", "seat 3 is to act")
    play(seat=1, code="FAILED_PRECONDITION", status=to_status(rule))
    play(seat=1, code="INVALID_ARGUMENT", status=to_status(MalformedCommand("move", "empty")))
    refused, malformed = out.getvalue().splitlines()
    assert "code=FAILED_PRECONDITION ms=1.4 game_id=g-1 expected_version=11 seat=1" in refused
    assert 'reason=NOT_YOUR_TURN rule="turn order" peer=' in refused
    assert "version=12" not in refused  # nothing was appended
    assert "code=INVALID_ARGUMENT" in malformed and " field=move peer=" in malformed


def test_json_lines_parse_with_their_types(logged: Any) -> None:
    out = logged("json")
    play(seat=0)
    rule = RuleViolation("MUST_RAISE", "吟诵", "raise or pass")
    play(seat=3, code="FAILED_PRECONDITION", status=to_status(rule))
    logging.getLogger("tabletop.store").info("saved %d games", 3, extra={"batch": 3})
    try:
        raise ValueError("the disk is full")
    except ValueError:
        logging.getLogger("tabletop.store").exception("group commit failed")
    ok, refused, other, failed = (json.loads(line) for line in out.getvalue().splitlines())
    assert ok["msg"] == "rpc" and ok["level"] == "debug" and ok["logger"] == "tabletop.rpc"
    assert ok["seat"] == 0 and ok["version"] == 12 and ok["peer"] == "ipv4:10.1.2.3:5555"
    assert refused["rule"] == "吟诵" and refused["reason"] == "MUST_RAISE" and refused["seat"] == 3
    assert other["msg"] == "saved 3 games" and other["batch"] == 3
    assert failed["level"] == "error" and "ValueError: the disk is full" in failed["exception"]
    assert all(line["ts"].endswith("Z") for line in (ok, refused, other, failed))


def test_reads_and_accepted_moves_are_debug_streams_other_writes_and_refusals_info(
    logged: Any,
) -> None:
    out = logged("text")
    logging.getLogger().setLevel(logging.INFO)
    logs.rpc("GetView", "OK", 0.001, False, pb.GetViewRequest(), None, FakeContext())
    logs.rpc("Watch", "OK", 2.0, True, pb.WatchRequest(), None, FakeContext())
    play(seat=1)  # accepted: one a move, counted by the metrics, not logged at INFO
    logs.rpc("StartGame", "OK", 0.001, False, pb.StartGameRequest(), None, FakeContext())
    logs.rpc("Watch", "CANCELLED", 2.0, True, pb.WatchRequest(), None, FakeContext())
    rule = RuleViolation("NOT_YOUR_TURN", "turn order", "seat 3 is to act")
    play(seat=2, code="FAILED_PRECONDITION", status=to_status(rule))
    play(seat=2, code="INTERNAL")
    lines = out.getvalue().splitlines()
    methods = [line.split(" method=")[1].split()[0] for line in lines]
    assert methods == ["Watch", "StartGame", "Watch", "Play", "Play"]
    assert [line.split(" level=")[1].split()[0] for line in lines] == [
        *["info"] * 4,
        "error",
    ]


def test_a_real_server_logs_json_lines_with_seat_peer_rule_and_field(tmp_path: Path) -> None:
    # (an accepted Play logs at DEBUG: the hot path's line)
    flags = ["--log-format", "json", "--log-level", "debug", "--allow-prepared-deals"]
    server = ServerProcess(tmp_path, extra=flags).start()
    try:
        with TableClient(server.target) as client:
            game_id, seats, _ = seated_game(client, seed=29)
            view = client.as_viewer(game_id).view()
            actor = seats[view.to_act[0]]
            idle = next(s for s in seats if s.seat not in view.to_act)
            legal = actor.legal_moves()
            history = pb.GetHistoryRequest(game_id=game_id, page_size=5000)  # too large a page
            mine = pb.Move()  # the actor's move with its seat left 0: "my seat" for `idle`
            mine.CopyFrom(legal.moves[0])
            getattr(mine.huaniao, mine.huaniao.WhichOneof("kind")).seat = 0
            with pytest.raises(grpc.RpcError):
                idle.play(mine, legal.version)  # NOT_YOUR_TURN
            with pytest.raises(grpc.RpcError):
                actor.stub.GetHistory(history, metadata=actor.metadata)
            actor.play(legal.moves[0], legal.version)
    finally:
        server.stop()
    banner, records = [], []
    for line in (tmp_path / "server.log").read_text().splitlines():
        if line.startswith("{"):
            records.append(json.loads(line))
        else:
            banner.append(line)
    assert [b.startswith("tabletop server listening on") for b in banner] == [True]
    assert {"serving on", "stopped"} <= {r["msg"].split(" 127")[0] for r in records}
    plays = [r for r in records if r.get("method") == "Play" and r["game_id"] == game_id]
    refused, ok = plays
    assert refused["code"] == "FAILED_PRECONDITION" and refused["seat"] == idle.seat
    assert refused["reason"] == "NOT_YOUR_TURN" and refused["rule"]
    assert ok["code"] == "OK" and ok["seat"] == actor.seat and ok["version"] > legal.version
    assert all(p["peer"].startswith("ipv4:127.0.0.1:") for p in plays)
    (read,) = [r for r in records if r.get("method") == "GetHistory"]
    assert read["field"] == "page_size" and read["seat"] == actor.seat


def test_collector_pauses_are_timed_by_generation() -> None:
    """Each cyclic collection holds the interpreter (docs/operations.md, "Garbage
    collection"): every one is timed into tabletop_gc_pause_seconds, labelled with the
    generation it collected, and a full one over a large heap shows as a longer pause."""
    import gc

    from server.startup.metrics import watch_collector

    metrics = Metrics(CollectorRegistry())
    stop = watch_collector(metrics)
    try:
        gc.collect(0)
        heap = [[i] for i in range(200_000)]  # tracked objects a full collection must visit
        gc.collect(2)
    finally:
        stop()
    counted = value(metrics, "tabletop_gc_pause_seconds_count", generation="2")
    gc.collect(2)  # after stop(): not counted
    assert value(metrics, "tabletop_gc_pause_seconds_count", generation="2") == counted

    def count(generation: int) -> float:
        return value(metrics, "tabletop_gc_pause_seconds_count", generation=str(generation))

    assert count(0) >= 1 and count(2) >= 1, (count(0), count(2))
    full = value(metrics, "tabletop_gc_pause_seconds_sum", generation="2")
    assert full > 0.0 and len(heap) == 200_000
    # the full collection over 200,000 lists is not under the smallest bucket
    assert value(metrics, "tabletop_gc_pause_seconds_bucket", generation="2", le="0.0005") == 0


def test_a_real_server_exports_its_collector_pauses(tmp_path: Path) -> None:
    """The running server installs the hook: its /metrics has young-generation pauses once
    it has served some calls."""
    import urllib.request

    from tests.hardening.common import metrics_port

    flags = ["--metrics-port", "0", "--allow-prepared-deals"]
    with ServerProcess(tmp_path / "data", extra=flags) as server:
        port = metrics_port(server)
        with TableClient(server.target) as client:
            for seed in range(20):
                seated_game(client, seed)
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics").read().decode()
    young = [
        line
        for line in text.splitlines()
        if line.startswith('tabletop_gc_pause_seconds_count{generation="0"}')
    ]
    assert young and float(young[0].split()[-1]) > 0, young


# --- stream messages ------------------------------------------------------------------------


class StreamContext(FakeContext):
    """A server stream's context: what it was sent, as bytes on the wire."""

    def __init__(self, serialize: Callable[[Any], bytes]) -> None:
        super().__init__()
        self.serialize = serialize
        self.wire: list[bytes] = []

    async def write(self, msg: Any) -> None:
        self.wire.append(self.serialize(msg))  # what grpc does with the handler's serializer

    def code(self) -> None:
        return None

    def cancelled(self) -> bool:
        return False


def test_a_message_many_streams_send_is_serialised_once() -> None:
    """A live batch's messages are shared by every stream of one viewer (the hub renders
    them once): the interceptor serialises each once, and every stream sends the same bytes,
    counted and noted (sent, last_version) as before."""
    import asyncio
    import types

    from server.startup.metrics import RpcInterceptor

    shared = [pb.WatchResponse(game_id="g", events=[pb.GameEvent(version=v)]) for v in (3, 4)]
    page = pb.WatchResponse(events=[pb.GameEvent(version=v, text="字" * 99) for v in range(1, 99)])
    calls: list[Any] = []

    def serialize(msg: Any) -> bytes:
        calls.append(msg)
        return bytes(msg.SerializeToString())

    async def watch(request: Any, context: Any) -> Any:
        yield page  # shared too, but large (a first page): not kept
        for msg in shared:
            yield msg
        yield pb.WatchResponse(game_id="own", events=[pb.GameEvent(version=5)])  # not shared

    handler = grpc.unary_stream_rpc_method_handler(watch, response_serializer=serialize)

    async def main() -> list[StreamContext]:
        async def continuation(details: Any) -> Any:
            return handler

        metrics = Metrics(CollectorRegistry())
        interceptor = RpcInterceptor(metrics)
        details: Any = types.SimpleNamespace(method="/tabletop.v1.TableService/Watch")
        wrapped = await interceptor.intercept_service(continuation, details)
        contexts = [StreamContext(wrapped.response_serializer) for _ in range(3)]
        for context in contexts:
            await wrapped.unary_stream(pb.WatchRequest(), context)
        labels = {"grpc_service": "tabletop.v1.TableService", "grpc_method": "Watch"}
        sent = value(metrics, "grpc_server_msg_sent_total", grpc_type="server_stream", **labels)
        assert sent == 12 and interceptor.close_streams() == 0
        return contexts

    contexts = asyncio.run(main())
    want = [m.SerializeToString() for m in shared]
    for context in contexts:
        assert context.wire[0] == page.SerializeToString() and context.wire[1:3] == want
        assert pb.WatchResponse.FromString(context.wire[3]).game_id == "own"
    assert [id(m) for m in calls].count(id(shared[0])) == 1  # once, for the three streams
    assert [id(m) for m in calls].count(id(shared[1])) == 1
    assert [id(m) for m in calls].count(id(page)) == 3  # over 16 KiB: once a stream
    assert len(calls) == 3 + 2 + 3  # each stream's own message: once each
