"""The standard gRPC services and operations, through standard clients on a real server.

Health (grpc.health.v1) with the stock stub, reflection with the stock reflection client,
every error path's status code and google.rpc detail type, the Prometheus endpoint and the
structured log, and a SIGTERM in the middle of a game: NOT_SERVING first, streams end with
a clean UNAVAILABLE, and nothing is lost or half-written.
"""

from __future__ import annotations

import signal
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.protobuf import descriptor_pool
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)
from grpc_status import rpc_status
from prometheus_client.parser import text_string_to_metric_families

from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient
from clients.python.seat import SeatClient
from clients.python.serverproc import ServerProcess
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import huaniao_options, seated_game
from tests.hardening.common import metrics_port

SERVICE = "tabletop.v1.TableService"
HEALTH = "grpc.health.v1.Health"
REFLECTION = "grpc.reflection.v1alpha.ServerReflection"
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(
        tmp_path_factory.mktemp("eco"),
        extra=["--metrics-port", "0", "--log-format", "text", "--allow-prepared-deals"],
    ).start()
    yield proc
    proc.cleanup()


@pytest.fixture()
def client(server: ServerProcess) -> Iterator[TableClient]:
    with TableClient(server.target) as c:
        yield c


def scrape(server: ServerProcess) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of the /metrics page, keyed by (name, sorted labels)."""
    url = f"http://127.0.0.1:{metrics_port(server)}/metrics"
    with urllib.request.urlopen(url, timeout=5) as reply:
        text = reply.read().decode()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def sample(samples: dict, name: str, **labels: str) -> float:  # type: ignore[type-arg]
    return float(samples.get((name, tuple(sorted(labels.items()))), 0.0))


def rich(err: grpc.RpcError, kind: type) -> object:
    status = rpc_status.from_call(err)  # type: ignore[arg-type]
    assert status is not None, f"no google.rpc.Status on {err.code()}: {err.details()}"
    for detail in status.details:
        if detail.Is(kind.DESCRIPTOR):
            msg = kind()
            detail.Unpack(msg)
            return msg
    raise AssertionError(f"no {kind.__name__} in {status}")


# --- health ---------------------------------------------------------------------------------


def test_health_check_through_the_standard_client(server: ServerProcess) -> None:
    with grpc.insecure_channel(server.target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for name in ("", SERVICE):
            reply = stub.Check(health_pb2.HealthCheckRequest(service=name), timeout=5)
            assert reply.status == SERVING, name
        with pytest.raises(grpc.RpcError) as e:
            stub.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=5)
        assert e.value.code() == grpc.StatusCode.NOT_FOUND


# --- reflection -----------------------------------------------------------------------------


def test_reflection_lists_and_describes_every_service(server: ServerProcess) -> None:
    with grpc.insecure_channel(server.target) as channel:
        db = ProtoReflectionDescriptorDatabase(channel)
        services = set(db.get_services())
        assert {SERVICE, HEALTH, REFLECTION} <= services, services
        pool = descriptor_pool.DescriptorPool(db)
        for name in services:
            assert pool.FindServiceByName(name).methods, name
        table = pool.FindServiceByName(SERVICE)
        expected = {m.name for m in pb.DESCRIPTOR.services_by_name["TableService"].methods}
        assert {m.name for m in table.methods} == expected
        # The game packages come along as dependencies, so a generic client can build moves.
        for message in ("tabletop.huaniao.v1.Command", "tabletop.zipai.v1.Command"):
            assert pool.FindMessageTypeByName(message).fields, message
        watch = table.FindMethodByName("Watch")
        assert watch.server_streaming and not watch.client_streaming


# --- rich errors: every path, its code and its detail type ----------------------------------


def _expect(call, code: grpc.StatusCode, kind: type) -> object:  # type: ignore[no-untyped-def]
    with pytest.raises(grpc.RpcError) as e:
        result = call()
        if hasattr(result, "__next__"):  # a stream fails on its first read
            next(result)
    assert e.value.code() == code, (e.value.code(), e.value.details())
    return rich(e.value, kind)


def test_every_error_path_has_its_code_and_detail(client: TableClient) -> None:
    game_id, seats, arbiter = seated_game(client, seed=17)
    stub = seats[0].stub
    view = client.as_viewer(game_id).view()
    actor = seats[view.to_act[0]]
    idle = next(s for s in seats if s.seat not in view.to_act)
    legal = actor.legal_moves()
    spectator = client.as_viewer(game_id)
    forged = client.as_viewer(game_id, "forged-token")
    BR, EI, RI = (
        error_details_pb2.BadRequest,
        error_details_pb2.ErrorInfo,
        error_details_pb2.ResourceInfo,
    )
    IA, FP, PD = (
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.PERMISSION_DENIED,
    )

    def field(call, name: str) -> None:  # type: ignore[no-untyped-def]
        bad = _expect(call, IA, BR)
        assert bad.field_violations[0].field == name  # type: ignore[attr-defined]

    def reason(call, code: grpc.StatusCode, name: str) -> None:  # type: ignore[no-untyped-def]
        info = _expect(call, code, EI)
        assert info.reason == name and info.domain == "tabletop.v1"  # type: ignore[attr-defined]

    # malformed input: BadRequest naming the field
    field(lambda: client.as_viewer("not-a-uuid").view(), "game_id")
    field(lambda: client.create_game(huaniao_options(), 9), "seat_count")
    field(lambda: client.create_game(huaniao_options(), 4, deck=[1, 2, 3]), "deck")
    field(lambda: client.join(game_id, 7, "x"), "seat")
    field(lambda: actor.play(pb.Move(), legal.version), "move")
    field(lambda: spectator.view(10_000), "version")
    field(
        lambda: stub.GetHistory(pb.GetHistoryRequest(game_id=game_id, page_size=5000)),
        "page_size",
    )
    field(
        lambda: stub.GetHistory(pb.GetHistoryRequest(game_id=game_id, page_token="zz")),
        "page_token",
    )
    field(lambda: stub.Watch(pb.WatchRequest(game_id=game_id, after_version=-1)), "after_version")
    # rule violations: ErrorInfo with the reason and the rule
    move = pb.Move()
    move.CopyFrom(next(m for m in legal.moves if m.WhichOneof("game") == "huaniao"))
    getattr(move.huaniao, move.huaniao.WhichOneof("kind")).seat = 0
    info = _expect(lambda: idle.play(move, legal.version), FP, EI)
    assert info.reason == "NOT_YOUR_TURN" and info.metadata["rule"]  # type: ignore[attr-defined]
    reason(lambda: client.join(game_id, 0, "late"), FP, "GAME_ALREADY_STARTED")
    reason(lambda: seats[0].start(), FP, "GAME_ALREADY_STARTED")
    # stale version: ABORTED with both versions
    info = _expect(
        lambda: actor.play(legal.moves[0], legal.version - 1), grpc.StatusCode.ABORTED, EI
    )
    assert info.reason == "STALE_VERSION"  # type: ignore[attr-defined]
    assert info.metadata["current_version"] == str(legal.version)  # type: ignore[attr-defined]
    # who may do what: PERMISSION_DENIED with ErrorInfo
    reason(lambda: forged.view(), PD, "PERMISSION_DENIED")
    reason(lambda: spectator.play(legal.moves[0], legal.version), PD, "PERMISSION_DENIED")
    reason(lambda: spectator.start(), PD, "PERMISSION_DENIED")
    reason(
        lambda: client.as_viewer(game_id, arbiter).play(legal.moves[0], legal.version),
        PD,
        "PERMISSION_DENIED",
    )
    # unknown game: NOT_FOUND with ResourceInfo
    found = _expect(
        lambda: client.as_viewer(str(uuid.uuid4())).view(), grpc.StatusCode.NOT_FOUND, RI
    )
    assert found.resource_type == "game"  # type: ignore[attr-defined]
    # and none of it was appended
    assert client.as_viewer(game_id).view().version == view.version


def test_a_table_that_is_not_full_cannot_start(client: TableClient) -> None:
    created = client.create_game(huaniao_options(), 4, seed=3)
    seat = client.join(created.game_id, 0, "alone")
    info = _expect(seat.start, grpc.StatusCode.FAILED_PRECONDITION, error_details_pb2.ErrorInfo)
    assert info.reason == "SEATS_NOT_FILLED"  # type: ignore[attr-defined]
    legal = seat.legal_moves()
    assert list(legal.moves) == []


# --- metrics and logs -----------------------------------------------------------------------


def test_metrics_count_rpcs_moves_streams_and_store_latency(
    server: ServerProcess, client: TableClient
) -> None:
    before = scrape(server)
    game_id, seats, _ = seated_game(client, seed=29)
    # one stream stays open while we look
    stream = seats[1].stub.Watch(pb.WatchRequest(game_id=game_id), metadata=seats[1].metadata)
    next(stream)
    deadline = time.monotonic() + 5
    while (
        sample(scrape(server), "tabletop_open_streams", grpc_service=SERVICE, grpc_method="Watch")
        < 1
    ):
        assert time.monotonic() < deadline, "open_streams never counted the Watch"
        time.sleep(0.05)
    moves = play_to_end([RandomBot(s, i) for i, s in enumerate(seats)])
    for _ in stream:  # the stream ends with the game
        pass
    with pytest.raises(grpc.RpcError):
        client.as_viewer(str(uuid.uuid4())).view()
    # the status leaves before the servicer's metrics are counted: wait for that count
    missing = {"grpc_method": "GetView", "grpc_code": "NOT_FOUND", "grpc_service": SERVICE}
    missing["grpc_type"] = "unary"
    deadline = time.monotonic() + 5
    after = scrape(server)
    while sample(after, "grpc_server_handled_total", **missing) <= sample(
        before, "grpc_server_handled_total", **missing
    ):
        assert time.monotonic() < deadline, "the NOT_FOUND GetView was never counted"
        time.sleep(0.05)
        after = scrape(server)

    def delta(name: str, **labels: str) -> float:
        return sample(after, name, **labels) - sample(before, name, **labels)

    unary = {"grpc_service": SERVICE, "grpc_type": "unary"}
    played_ok = delta("grpc_server_handled_total", grpc_method="Play", grpc_code="OK", **unary)
    assert played_ok >= moves > 0
    assert delta("tabletop_moves_appended_total", kind="huaniao") == played_ok
    assert (
        delta("grpc_server_handled_total", grpc_method="GetView", grpc_code="NOT_FOUND", **unary)
        >= 1
    )
    assert (
        delta("grpc_server_handling_seconds_count", grpc_method="Play", grpc_code="OK", **unary)
        == played_ok
    )
    assert delta("grpc_server_started_total", grpc_method="JoinGame", **unary) >= 4
    assert delta("tabletop_games_created_total", kind="huaniao") >= 1
    assert delta("tabletop_store_seconds_count", op="save") >= played_ok / 64
    assert delta("tabletop_events_appended_total") >= played_ok
    assert sample(after, "tabletop_store_up") == 1
    assert sample(after, "tabletop_open_streams", grpc_service=SERVICE, grpc_method="Watch") == 0
    assert (
        delta(
            "grpc_server_handled_total",
            grpc_service=SERVICE,
            grpc_type="server_stream",
            grpc_method="Watch",
            grpc_code="OK",
        )
        >= 1
    )

    # the structured log names the game, the version, the seat and the peer of every write
    # and stream; an accepted move (the hot path) is counted above, and logged only at DEBUG
    log = [line for line in (server.data_dir / "server.log").read_text().splitlines()]
    mine = [line for line in log if f"game_id={game_id}" in line and " msg=rpc " in line]
    joins = [line for line in mine if "method=JoinGame " in line]
    assert len(joins) >= 4 and all("version=" in j and "code=OK" in j for j in joins)
    assert all(" seat=" in j and " peer=ipv4:127.0.0.1:" in j for j in joins)
    (watch,) = [line for line in mine if "method=Watch " in line]
    assert " seat=1 " in watch and " sent=" in watch and " last_version=" in watch
    assert not [line for line in mine if "method=Play code=OK " in line]


# --- graceful shutdown ----------------------------------------------------------------------


class Collector(threading.Thread):
    """Runs ``body`` in a thread and keeps what it produced and how it ended."""

    def __init__(self, body) -> None:  # type: ignore[no-untyped-def]
        super().__init__(daemon=True)
        self.body = body
        self.items: list = []  # type: ignore[type-arg]
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            for item in self.body():
                self.items.append(item)
        except BaseException as err:  # the test inspects it
            self.error = err


def _play_forever(seats: list[SeatClient]) -> Iterator[tuple[int, pb.PlayResponse]]:
    """Play random legal moves until the server goes away; yield each acknowledged reply."""
    bots = {s.seat: RandomBot(s, 70 + (s.seat or 0)) for s in seats}
    viewer = seats[0]
    while True:
        view = viewer.view()
        if view.phase == pb.GAME_PHASE_FINISHED:
            return
        for seat in view.to_act:
            bot = bots[seat]
            legal = bot.seat.legal_moves()
            if legal.moves:
                try:
                    move = bot.rng.choice(list(legal.moves))
                    yield seat, bot.seat.play(move, legal.version)
                    time.sleep(0.05)  # a human pace: the game should outlive the shutdown
                except grpc.RpcError as err:
                    if err.code() != grpc.StatusCode.ABORTED:
                        raise


@pytest.mark.timeout(120)
def test_sigterm_during_a_game_loses_nothing(tmp_path: Path) -> None:
    server = ServerProcess(
        tmp_path, extra=["--shutdown-grace", "5", "--allow-prepared-deals"]
    ).start()
    try:
        with TableClient(server.target) as client:
            for attempt in range(20):  # a game still running after a few moves
                game_id, seats, arbiter = seated_game(client, seed=41 + attempt)
                bots = [RandomBot(s, i) for i, s in enumerate(seats)]
                for _ in range(2):
                    for seat in client.as_viewer(game_id).view().to_act:
                        bots[seat].step()
                before = client.as_viewer(game_id, arbiter).view()
                if before.phase == pb.GAME_PHASE_PLAYING:
                    break
            tokens = {s.seat: s.credential for s in seats}
            waiting = client.create_game(huaniao_options(), 4, seed=1).game_id

            channel = grpc.insecure_channel(server.target)
            health = health_pb2_grpc.HealthStub(channel)
            statuses = Collector(
                lambda: (r.status for r in health.Watch(health_pb2.HealthCheckRequest(service="")))
            )

            def watch(seat: SeatClient, gid: str) -> Iterator[int]:
                request = pb.WatchRequest(game_id=gid)
                return (r.event.version for r in seat.stub.Watch(request, metadata=seat.metadata))

            events = Collector(lambda: watch(seats[2], game_id))
            idle = Collector(lambda: watch(client.as_viewer(waiting), waiting))
            player = Collector(lambda: _play_forever(seats))
            for t in (statuses, events, idle):
                t.start()
            deadline = time.monotonic() + 10
            while not (statuses.items and idle.items and len(events.items) >= before.version):
                assert time.monotonic() < deadline, "streams did not start"
                time.sleep(0.02)
            player.start()
            while not player.items and player.is_alive():
                assert time.monotonic() < deadline, "no move was played"
                time.sleep(0.005)

            assert server.proc is not None
            server.proc.send_signal(signal.SIGTERM)  # while moves are being played
            assert server.proc.wait(timeout=20) == 0, "a clean exit on SIGTERM"
            for t in (statuses, events, idle, player):
                t.join(timeout=10)
                assert not t.is_alive()
            channel.close()
            server.proc = None
            server.log.close()

        # Health said NOT_SERVING before the end; open streams ended cleanly and retryable,
        # with the version to resume from.
        assert statuses.items[0] == SERVING and NOT_SERVING in statuses.items, statuses.items
        assert isinstance(idle.error, grpc.RpcError), idle.error
        assert idle.error.code() == grpc.StatusCode.UNAVAILABLE, idle.error
        assert "after_version=1" in (idle.error.details() or "")
        last_seen = events.items[-1]
        assert events.items == list(range(1, last_seen + 1))
        if events.error is not None:  # (None: the game happened to end before the signal)
            assert isinstance(events.error, grpc.RpcError)
            assert events.error.code() == grpc.StatusCode.UNAVAILABLE, events.error
            assert f"after_version={last_seen}" in (events.error.details() or "")

        server.start()
        with TableClient(server.target) as client:
            # Everything acknowledged is there, whole: the game is rebuilt and matches.
            assert client.as_viewer(game_id, arbiter).view(before.version) == before
            now = client.as_viewer(game_id, arbiter).view()
            acked: list[tuple[int, pb.PlayResponse]] = player.items
            assert now.version >= (acked[-1][1].version if acked else before.version)
            seats = [client.as_viewer(game_id, tokens[s]) for s in sorted(tokens)]
            for seat, s in zip(sorted(tokens), seats, strict=True):
                s.seat = seat
            full = [e.version for e in client.as_viewer(game_id, arbiter).history()]
            assert full == list(range(1, now.version + 1))
            seen_by = {s.seat: {e.version: e.text for e in s.history()} for s in seats}
            for seat, reply in acked:  # every acknowledged move's events are stored whole
                assert [e.version for e in reply.events] == list(
                    range(reply.version - len(reply.events) + 1, reply.version + 1)
                )
                if now.phase != pb.GAME_PHASE_FINISHED:  # (after the end everyone sees all)
                    assert [seen_by[seat][e.version] for e in reply.events] == [
                        e.text for e in reply.events
                    ]
            # the game goes on, and the dropped stream resumes after its last version
            if now.phase != pb.GAME_PHASE_FINISHED:
                play_to_end([RandomBot(s, 90 + i) for i, s in enumerate(seats)])
            final = client.as_viewer(game_id).view()
            assert final.phase == pb.GAME_PHASE_FINISHED
            rest = [e.version for e in seats[2].watch(after_version=last_seen, retries=0)]
            assert events.items + rest == list(range(1, final.version + 1))
    finally:
        server.cleanup()
