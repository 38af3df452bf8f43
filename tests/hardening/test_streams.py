"""Memory for streams is bounded (issue 13, problem 2: each ``Watch(after_version=0)`` read
and rendered the whole history before its first send; 40 streams that never read, on a
9,007-event history, took the server from 62 to 564 MB).

Watch and Replay now read the store a page at a time and send as they go, so an idle
stream holds one page and the transport's buffers, whatever the history's length; a
stream whose client does not read for ``--stream-stall-timeout`` seconds is ended with
UNAVAILABLE and the version to resume after.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2

from clients.python.client import TOKEN_HEADER, TableClient
from clients.python.serverproc import ServerProcess
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.v1 import tabletop_pb2_grpc as pb_grpc
from tests.api.test_ecosystem import scrape
from tests.hardening.common import detail, record_figure, server
from tests.support.longgame import write_long_game

EVENTS = 10_000
STREAMS = 40
# A Replay's warm-up reads this far: streams that never read get no further than their
# flow-control window (a few hundred steps), and a replay renders a view at every step, so
# the whole history (30 s) warms nothing more.
REPLAY_WARM_UP = 1_000
MB = 1 << 20


@pytest.fixture(scope="module")
def long_game(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    data = tmp_path_factory.mktemp("long")
    game_id, arbiter = write_long_game(data, EVENTS)
    return data, game_id, arbiter


def rss(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def settled_rss(pid: int, seconds: float = 1.5) -> int:
    """The server's RSS once it stopped growing for ``seconds`` (its streams are blocked)."""
    last, since = rss(pid), time.monotonic()
    deadline = time.monotonic() + 30
    while time.monotonic() - since < seconds and time.monotonic() < deadline:
        time.sleep(0.25)
        now = rss(pid)
        if now > last + 256 * 1024:
            last, since = now, time.monotonic()
    return rss(pid)


def open_streams(proc: ServerProcess) -> float:
    return sum(v for (name, _), v in scrape(proc).items() if name == "tabletop_open_streams")


@pytest.fixture()
def long_server(
    long_game: tuple[Path, str, str], tmp_path: Path
) -> Iterator[tuple[ServerProcess, str, str]]:
    data, game_id, arbiter = long_game
    # port files and the log in a directory of each server's own, the store shared
    with server(tmp_path, "--data-dir", str(data), "--metrics-port", "0") as proc:
        yield proc, game_id, arbiter


def idle_streams_cost(proc: ServerProcess, open_one: Callable[..., Any]) -> float:
    """Bytes of server memory per stream, for STREAMS streams that never read, each on its
    own connection (so no shared flow-control window limits what they could take)."""
    pid = proc.proc.pid  # type: ignore[union-attr]
    channels = [grpc.insecure_channel(proc.target, options=[("x.n", i)]) for i in range(STREAMS)]
    calls = []
    try:
        warm = open_one(pb_grpc.TableServiceStub(channels[0]), warm=True)  # imports, caches
        for _ in warm:  # type: ignore[attr-defined]
            pass
        before = settled_rss(pid)
        calls = [open_one(pb_grpc.TableServiceStub(c)) for c in channels]
        deadline = time.monotonic() + 20
        while open_streams(proc) < STREAMS and time.monotonic() < deadline:
            time.sleep(0.1)
        assert open_streams(proc) == STREAMS
        after = settled_rss(pid)
        return (after - before) / STREAMS
    finally:
        for call in calls:
            call.cancel()  # type: ignore[attr-defined]
        for c in channels:
            c.close()


def test_idle_watch_streams_on_a_long_history_hold_little_memory(
    long_server: tuple[ServerProcess, str, str],
) -> None:
    proc, game_id, arbiter = long_server
    with TableClient(proc.target) as client:
        assert client.as_viewer(game_id).view().version >= EVENTS

    def watch(stub: pb_grpc.TableServiceStub, warm: bool = False) -> object:
        # the arbiter's stream: every fact in full, with its stored JSON (the largest)
        request = pb.WatchRequest(game_id=game_id, after_version=0)
        call = stub.Watch(request, metadata=((TOKEN_HEADER, arbiter),))
        return _Until(call, EVENTS)

    per_stream = idle_streams_cost(proc, watch)
    record_figure("idle_watch_stream", events=EVENTS, streams=STREAMS, bytes=per_stream)
    print(f"{per_stream / MB:.2f} MB per idle Watch stream on {EVENTS} events")
    assert per_stream < 2 * MB, f"{per_stream / MB:.1f} MB per idle stream"


def test_idle_replay_streams_hold_little_memory(
    long_server: tuple[ServerProcess, str, str],
) -> None:
    proc, game_id, arbiter = long_server

    def replay(stub: pb_grpc.TableServiceStub, warm: bool = False) -> object:
        request = pb.ReplayRequest(game_id=game_id, from_version=1, to_version=EVENTS)
        call = stub.Replay(request, metadata=((TOKEN_HEADER, arbiter),))
        return _Until(call, REPLAY_WARM_UP if warm else EVENTS)

    per_stream = idle_streams_cost(proc, replay)
    record_figure("idle_replay_stream", events=EVENTS, streams=STREAMS, bytes=per_stream)
    print(f"{per_stream / MB:.2f} MB per idle Replay stream on {EVENTS} events")
    assert per_stream < 2 * MB, f"{per_stream / MB:.1f} MB per idle stream"


class _Until:
    """A stream call, iterated (for the warm-up) up to a version, cancellable."""

    def __init__(self, call: object, version: int) -> None:
        self.call = call
        self.version = version

    def __iter__(self) -> Iterator[object]:
        for msg in self.call:  # type: ignore[attr-defined]
            yield msg
            if msg.event.version >= self.version:
                self.call.cancel()  # type: ignore[attr-defined]
                return

    def cancel(self) -> None:
        self.call.cancel()  # type: ignore[attr-defined]


def test_a_reader_that_stops_reading_is_cut_off_with_where_to_resume(
    long_game: tuple[Path, str, str], tmp_path: Path
) -> None:
    data, game_id, arbiter = long_game
    flags = (
        "--data-dir",
        str(data),
        "--stream-stall-timeout",
        "1",
        "--metrics-port",
        "0",
        "--max-streams-per-client",
        "1",
    )
    with server(tmp_path, *flags) as proc:
        # a client with a small receive window (no BDP probing): it stops reading at once
        options = [("grpc.http2.bdp_probe", 0)]
        with grpc.insecure_channel(proc.target, options=options) as channel:
            stub = pb_grpc.TableServiceStub(channel)
            call = stub.Watch(
                pb.WatchRequest(game_id=game_id, after_version=0),
                metadata=((TOKEN_HEADER, arbiter),),
                timeout=60,  # a failure here must not hang the test
            )
            deadline = time.monotonic() + 30
            while open_streams(proc) < 1 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert open_streams(proc) == 1, "the stream did not start"
            while open_streams(proc) and time.monotonic() < deadline:
                time.sleep(0.2)  # the server gives up on the stream on its own
            assert open_streams(proc) == 0, "the stalled stream was not ended"
            with grpc.insecure_channel(proc.target) as other:  # its stream slot is free again
                fresh = pb_grpc.TableServiceStub(other).Watch(
                    pb.WatchRequest(game_id=game_id, after_version=EVENTS - 1), timeout=30
                )
                assert next(fresh).event.version == EVENTS
                fresh.cancel()
            time.sleep(0.3)  # the cancelled stream's slot is released
            got = []
            with pytest.raises(grpc.RpcError) as e:
                for msg in call:
                    got.append(msg.event.version)
            assert e.value.code() == grpc.StatusCode.UNAVAILABLE
            info = detail(e.value, error_details_pb2.ErrorInfo)
            assert info.reason == "STREAM_STALLED"
            resume = int(info.metadata["after_version"])
            assert f"after_version={resume}" in e.value.details()
            assert got and got == list(range(1, len(got) + 1)) and got[-1] < EVENTS
            # the hint is the last message whose send completed; the one that stalled may
            # still arrive (clients resume from their own last version, docs/api.md)
            assert got[-1] - 1 <= resume <= got[-1]
            again = stub.Watch(
                pb.WatchRequest(game_id=game_id, after_version=resume),
                metadata=((TOKEN_HEADER, arbiter),),
            )
            assert next(again).event.version == resume + 1, "resumed with no gap"
            again.cancel()
