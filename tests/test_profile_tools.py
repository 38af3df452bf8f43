"""The profiling tools in bench/profile/ start, and the in-process one measures, so that they
cannot rot between the speed sessions that use them (issue 23). No timing is asserted."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.profile.stages import NOT_IDLE, Thread, attribute, spread, stage_of, table

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout


@pytest.mark.parametrize(
    ("tool", "says"),
    [
        ("pyspy", "ptrace"),
        ("collector", "gc.callbacks"),
        ("render_timing", "render_move"),
        ("stages", "µs per stage"),
        ("floors", "no-op RPCs"),
        ("ab", "alternating rounds"),
    ],
)
def test_each_tool_explains_itself(tool: str, says: str) -> None:
    out = run(f"bench.profile.{tool}", "--help")
    assert f"python -m bench.profile.{tool}" in out and says in out, out
    assert "--games" in out, out


def test_render_timing_times_every_game_kind_and_viewer_role() -> None:
    out = run("bench.profile.render_timing", "--games", "1", "--rounds", "1")
    for kind in ("huaniao", "zipai"):
        row = re.search(rf"^\| {kind} \| (\d) \| (\d) \| (\d+) \| ([\d,]+) ", out, re.M)
        assert row, out
        seats, viewers, moves, render_us = row.groups()
        assert int(viewers) == int(seats) + 2 and int(moves) > 0, out
        assert int(render_us.replace(",", "")) > 0, out
        for role in ("seat", "spectator", "arbiter"):
            assert re.search(rf"^\| {kind} \| {role} \| [\d,]+ \(", out, re.M), out


def test_stages_rules_put_each_frame_in_its_stage() -> None:
    loop = [
        "BaseEventLoop._run_once (asyncio/base_events.py:1922)",
        "Handle._run (asyncio/events.py:80)",
    ]
    play = [
        *loop,
        "TableServicer.Play (server/transport/servicer.py:221)",
        "Play.play (server/usecases/play.py:68)",
    ]
    append = [*play, "Games.append (server/usecases/games.py:292)"]
    seal = [*append, "Sealer.__call__ (server/wire/receipts.py:92)"]
    record = [*append, "GameAggregate.record (server/store/eventstore.py:143)"]
    commit = ["Thread.run (threading.py:982)", "GroupCommitter._run (server/store/commit.py:99)"]
    cases = [
        ([*seal, "Signer.sign (server/wire/signing.py:67)"], "sign"),
        (
            [
                *seal,
                "render_move (server/wire/receipts.py:50)",
                "view (domain/huaniao/views.py:122)",
            ],
            "render",
        ),
        (
            [
                *seal,
                "move_hashes (server/wire/receipts.py:66)",
                "payload_bytes (server/wire/receipts.py:37)",
            ],
            "seal hashes",
        ),
        (
            [*play, "act (domain/table/decider.py:370)", "cards_of (domain/huaniao/cards.py:123)"],
            "decide",
        ),
        (record, "record"),
        ([*record, "chain_hash (server/store/eventstore.py:70)"], "chain"),
        ([*commit, "FastJSONTranscoder.encode (server/store/eventstore.py:320)"], "group commit"),
        ([*commit, "SQLiteConnection.commit (eventsourcing/sqlite.py:86)"], "group commit"),
        ([*commit, "Queue.get (queue.py:171)", "Condition.wait (threading.py:327)"], "idle"),
        ([*loop, "_checked.<locals>.unary (server/transport/limits.py:468)"], "decode"),
        ([*loop, "RpcInterceptor._pump (server/startup/metrics.py:240)"], "send"),
        (loop, "gRPC core"),
        (["Thread.run (threading.py:982)"], "gRPC core"),
        ([*append, "Hub.publish (server/usecases/hub.py:74)"], "other"),
    ]
    for frames, stage in cases:
        assert stage_of(frames) == stage, frames


def test_stages_share_each_thread_cpu_by_its_own_samples() -> None:
    raw = "\n".join(
        [
            "thread (11): MainThread;Signer.sign (server/wire/signing.py:67) 3",
            "thread (11): MainThread;view_proto (server/wire/render.py:320) 1",
            "thread (11): MainThread;EpollSelector.select (selectors.py:468) 50",
            "thread (0x2a): group-commit;GroupCommitter._run (server/store/commit.py:99) 90",
        ]
    )
    threads = attribute(raw)
    assert set(threads) == {11, 42} and threads[11].name == "MainThread", threads
    threads[11].cpu, threads[42].cpu = 2.0, 0.5
    threads[7] = Thread("(no Python frames)", cpu=0.25)  # a native thread
    seconds = {stage: s for stage, s in spread(threads).items() if s}
    assert seconds == {"sign": 1.5, "render": 0.5, "group commit": 0.5, "gRPC core": 0.25}, seconds
    assert set(seconds) <= set(NOT_IDLE)


def _may_ptrace() -> bool:
    """py-spy reads the server's memory: root, or a kernel that lets a user trace its own
    processes (kernel.yama.ptrace_scope 0, or no Yama)."""
    scope = Path("/proc/sys/kernel/yama/ptrace_scope")
    return os.geteuid() == 0 or not scope.exists() or scope.read_text().strip() == "0"


def test_stages_prints_every_stage_and_a_positive_total() -> None:
    """One tiny run, ``--json``; its table is what the plain run prints (``table``)."""
    # the profiling tools are part of the project: without ptrace rights they cannot work,
    # and that fails here rather than passing unseen
    assert _may_ptrace(), (
        "py-spy needs ptrace rights: run as root or set kernel.yama.ptrace_scope=0"
    )
    tiny = ["--games", "2", "--seconds", "3", "--noop-seconds", "1", "--json"]
    done = subprocess.run(
        [sys.executable, "-m", "bench.profile.stages", *tiny],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert [row["stage"] for row in result["stages"]] == NOT_IDLE, result
    assert result["moves"] > 0 and result["total_us_per_move"] > 0, result
    assert result["noop_us"] > 0 and result["moves_in_noops"] > 0, result
    out = "\n".join(table(result))
    shares = []
    for stage in NOT_IDLE:
        row = re.search(rf"^\| {re.escape(stage)} \| [^|]+ \| ([\d.]+) \| ([\d,]+) \|$", out, re.M)
        assert row, (stage, out)
        shares.append(float(row[1]))
    assert 99 <= sum(shares) <= 101, out
    total = re.search(r"^\| \*\*total\*\* \| .* \| \*\*([\d,]+)\*\* \|$", out, re.M)
    assert total and int(total[1].replace(",", "")) > 0, out
    noop = re.search(r"No-op health Check: ([\d,]+) µs .* a move costs ([\d.]+) no-op RPCs", out)
    assert noop and int(noop[1].replace(",", "")) > 0 and float(noop[2]) > 0, out


def test_floors_measures_every_kind_of_call_against_the_noop() -> None:
    out = run("bench.profile.floors", "--games", "2", "--seconds", "0.2", "--rounds", "1")
    rows = dict(re.findall(r"^\| ([^|]+?) \| [\d,]+ \| ([\d.]+) \|", out, re.M))
    assert set(rows) == {
        "no-op",
        "cheapest unary",
        "refused",
        "Watch, 1 move",
        "Watch, whole history",
        "raw grpc.aio: no-op",
        "raw grpc.aio: a stream's first message",
        "raw grpc.aio: a message and its answer on an open bidi stream",
    }, out
    assert float(rows["no-op"]) == 1.0 and float(rows["raw grpc.aio: no-op"]) == 1.0, out
    # every call did something measurable; a stream's whole history is several messages with
    # receipts of format 2, and one with format 3 (the default: the stored history at a
    # batched stream's start comes in one message, docs/api.md)
    assert all(float(r) > 0 for r in rows.values()), out
    messages = dict(re.findall(r"^\| (Watch[^|]+?) \| [\d,]+ \| [\d.]+ \| ([\d.]+) \|", out, re.M))
    assert float(messages["Watch, 1 move"]) == 1.0 and float(messages["Watch, whole history"]) >= 1


def test_ab_measures_two_checkouts_in_alternating_rounds() -> None:
    """The same checkout twice: both servers play every round, and each round's ratio and
    the medians are printed."""
    out = run("bench.profile.ab", "--before", ".", "--after", ".", "--rounds", "2", "--games", "1")
    rounds = re.findall(
        r"^round (\d): before ([\d,]+) µs a move, after ([\d,]+), .* ([\d.]+)$", out, re.M
    )
    assert [r[0] for r in rounds] == ["0", "1"], out
    assert all(int(b.replace(",", "")) > 0 and int(a.replace(",", "")) > 0 for _, b, a, _ in rounds)
    assert re.search(
        r"^medians: before [\d,]+ µs a move, after [\d,]+; after ÷ before [\d.]+ ", out, re.M
    ), out
