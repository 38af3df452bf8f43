"""Where one move's server CPU goes, in µs per stage (issue 26).

Starts a server as the bench does (bench/api.py ``server_for``) and measures its CPU per
no-op health Check over ``--noop-seconds`` at ``--games`` concurrent callers (as bench/cpu.py:
utime + stime of the process, all threads, ÷ calls). Then it drives ``--games`` concurrent
games for ``--seconds`` (stream-driven by default: Watch + Play, bench P1's rows), reads the
server's CPU and each thread's (``/proc/PID/task/TID/stat``) over that window, and samples
the server with ``py-spy record --threads --format raw``. Each sample goes to one stage by
the table RULES below (idle ones are left out). Each thread's CPU is shared out over the
stages as its busy samples are (py-spy counts a thread that waits for the GIL as busy, so
samples alone would overweigh the threads that wait most); a thread with CPU but no busy
sample (gRPC's native threads) counts as gRPC core. A stage's µs per move is the window's
server CPU ÷ the moves made × its share, the group-commit thread included; the total is
measured as bench P1 measures it, and the no-op Check's CPU prints beside it: a move costs
X no-op RPCs.

How a sample finds its stage: first the ``leaf`` rules (the innermost frame only) and the
``thread`` rules (any frame of the stack), in table order; then, frame by frame from the
innermost outwards, the first ``tree`` rule that matches (a tree rule takes its frame's own
time and whatever it calls that no deeper rule claims); else ``other``. A rule is a regular
expression searched in py-spy's frame text, ``function (path/file.py:line)``.

py-spy needs ptrace rights over the server: root, ``CAP_SYS_PTRACE`` or
``kernel.yama.ptrace_scope=0`` (bench/profile/pyspy.py --help says more).

Example: ``python -m bench.profile.stages --games 8 --seconds 20`` (``--json`` for a
machine-readable result, ``--raw FILE`` to keep the stacks).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sys
import tempfile
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.api import SEATS, noop_rate, server_for
from bench.cpu import TICK, CpuMeter
from bench.profile import parser
from bench.profile.load import add_load_arguments, drive
from bench.profile.pyspy import Recording

# The stages in the order they are printed, and what each holds.
STAGES: dict[str, str] = {
    "idle": "left out: a thread waiting (epoll, a queue, a condition)",
    "decode": "request parsing, the limits interceptor, the token, the sender",
    "decide": "the domain's decide and evolve, legal commands",
    "record": "the facts onto the aggregate (eventstore), their StoredEvents",
    "chain": "the events' keyed hash chain",
    "group commit": "the store/commit.py thread: batching, transcoding, SQLite/psycopg",
    "render": "each viewer's events, view, receipt and legal moves as messages",
    "seal hashes": "the receipts' salted hashes of every viewer's bytes",
    "sign": "the seal's ed25519 signature",
    "send": "a stream message's context.write (serialise, send)",
    "gRPC core": "gRPC's Cython/C, no Python frame: receive, deserialise, a unary reply's "
    "serialise, completions; the poller thread",
    "store reads": "asyncio.to_thread reads: a game's load, a Watch's first page",
    "metrics & logs": "the metrics interceptor's own lines, Prometheus, the log line per RPC",
    "other": "the rest: the loop, the servicers' own lines, the hub, locks, timers",
}
OTHER = "other"
NATIVE = "gRPC core"  # where the CPU of a thread with no busy sample goes
NOT_IDLE = [name for name in STAGES if name != "idle"]

# The ordered rule table: (stage, scope, pattern); the module text says how it is read.
RULES: list[tuple[str, str, str]] = [
    ("idle", "leaf", r"^EpollSelector\.select \("),
    ("idle", "leaf", r"^Condition\.wait \(threading"),
    ("idle", "leaf", r"^_worker \(concurrent/futures/thread\.py"),
    ("idle", "leaf", r"^(Event\.wait|Thread\.join|_wait_for_tstate_lock) \(threading"),
    ("group commit", "thread", r"^GroupCommitter\._run \(server/store/commit\.py"),
    ("store reads", "thread", r"^_WorkItem\.run \(concurrent/futures/thread\.py"),
    ("gRPC core", "leaf", r"^Handle\._run \(asyncio/events\.py"),
    ("gRPC core", "leaf", r"^Thread\.run \(threading\.py"),
    ("send", "leaf", r"^RpcInterceptor\._pump \(server/startup/metrics\.py"),
    ("metrics & logs", "leaf", r"^RpcInterceptor\._call\.<locals>\.call \(server/startup/"),
    ("decode", "leaf", r"\(server/transport/limits\.py"),
    ("store reads", "tree", r"^Games\.load(_at)? \(server/usecases/games\.py"),
    ("metrics & logs", "tree", r"\((prometheus_client|structlog|logging)/"),
    ("metrics & logs", "tree", r"^rpc \(server/transport/logs\.py"),
    ("decode", "tree", r"^LimitsInterceptor\._deserializer\.<locals>\.read \("),
    ("decode", "tree", r"^Limits\.\w+ \(server/transport/limits\.py"),
    ("decode", "tree", r"^(read_move|read_options) \(server/wire/render_moves\.py"),
    ("decode", "tree", r"^(read|read_oneof|_read_value) \(server/wire/protoconv\.py"),
    ("decode", "tree", r"^(_token|TableServicer\._viewer) \(server/transport/servicer\.py"),
    ("decode", "tree", r"^(Games\.authenticate|token_hash|Games\.parse_id) \(server/usecases/"),
    ("decode", "tree", r"^check_sender \(server/usecases/justice\.py"),
    (
        "decide",
        "tree",
        r"^(act|_decide|play|_play|evolve|_apply|legal_commands|redecide|with_reveal|"
        r"concurrent|last_move|command_of|court) \(domain/table/(decider|evolution|draw)\.py",
    ),
    ("decide", "tree", r"\(domain/table/justice/decide\.py"),
    ("decide", "tree", r"^Play\.(legal_moves|_concurrent|with_seat) \("),
    ("decide", "tree", r"^Games\.last_move \(server/usecases/games\.py"),
    ("chain", "tree", r"^(chain_hash|chain_key) \("),
    ("record", "tree", r"^GameAggregate\.\w+ \(server/store/eventstore\.py"),
    ("record", "tree", r"^(_chained|stored_event) \(server/store/eventstore\.py"),
    ("record", "tree", r"\(eventsourcing/domain\.py"),
    ("record", "tree", r"^encode_event \(domain/table/records\.py"),
    ("record", "tree", r"^Games\.append\.<locals>\.<listcomp> \("),
    ("sign", "tree", r"^Signer\.sign \(server/wire/signing\.py"),
    ("sign", "tree", r"\(cryptography/"),
    ("seal hashes", "tree", r"^(move_hashes|payload_bytes) \(server/wire/receipts\.py"),
    ("seal hashes", "tree", r"^(seal_body|receipt_nonce|receipt_hash) \(domain/table/records"),
    ("render", "tree", r"\(server/wire/(render|render_moves|protoconv|receipts|stored)\.py"),
    ("render", "tree", r"^TableServicer\.(_turn|_legal_moves) \("),
    ("render", "tree", r"^TableServicer\.Watch\.<locals>\.render_for \("),
    ("render", "tree", r"^Batch\.render \(server/usecases/hub\.py"),
]


@dataclass
class Rules:
    """RULES compiled: the leaf and thread rules, and the tree rules, in table order."""

    outer: list[tuple[str, str, re.Pattern[str]]] = field(default_factory=list)
    tree: list[tuple[str, re.Pattern[str]]] = field(default_factory=list)

    @classmethod
    def of(cls, table: list[tuple[str, str, str]]) -> Rules:
        rules = cls()
        for name, scope, pattern in table:
            if scope == "tree":
                rules.tree.append((name, re.compile(pattern)))
            else:
                rules.outer.append((name, scope, re.compile(pattern)))
        return rules


COMPILED = Rules.of(RULES)


def stage_of(frames: list[str], rules: Rules = COMPILED) -> str:
    """The stage of one sample, ``frames`` outermost first (py-spy's order)."""
    for name, scope, pattern in rules.outer:
        if any(pattern.search(f) for f in (frames[-1:] if scope == "leaf" else frames)):
            return name
    for frame in reversed(frames):
        for name, pattern in rules.tree:
            if pattern.search(frame):
                return name
    return OTHER


@dataclass
class Thread:
    """One server thread in the window: its name, its samples per stage, its CPU seconds."""

    name: str = ""
    samples: Counter[str] = field(default_factory=Counter)
    cpu: float = 0.0


def attribute(raw: str, rules: Rules = COMPILED) -> dict[int, Thread]:
    """Samples per stage and thread from py-spy's raw output with ``--threads``: a line is
    ``thread (TID): NAME;frame;...;frame COUNT``, outermost frame first."""
    threads: dict[int, Thread] = {}
    for line in raw.splitlines():
        stack, _, n = line.rpartition(" ")
        head, _, frames = stack.partition(";")
        found = THREAD.match(head)
        if found and n.isdigit():
            thread = threads.setdefault(int(found[1], 0), Thread(found[2]))
            thread.samples[stage_of(frames.split(";"), rules)] += int(n)
    return threads


THREAD = re.compile(r"^thread \((\w+)\): ?(.*)$")


def thread_ticks(pid: int) -> dict[int, int]:
    """User + system clock ticks of each thread of process ``pid`` so far."""
    ticks = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except OSError:  # the thread ended meanwhile
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # as bench/cpu.py cpu_seconds
        ticks[int(task.name)] = int(fields[11]) + int(fields[12])
    return ticks


class ThreadMeter:
    """CPU seconds of each server thread over the window between ``start()`` and ``stop()``."""

    def __init__(self, pid: int) -> None:
        self.pid, self.seconds = pid, dict[int, float]()
        self._t0: dict[int, int] = {}

    def start(self) -> None:
        self._t0 = thread_ticks(self.pid)

    def stop(self) -> None:
        t1 = thread_ticks(self.pid)
        self.seconds = {t: (v - self._t0.get(t, 0)) / TICK for t, v in t1.items()}


class Window:
    """The timed window, told to each meter and the py-spy recording alike."""

    def __init__(self, *parts: Any) -> None:
        self.parts = parts

    def start(self) -> None:
        for part in self.parts:
            part.start()

    def stop(self) -> None:
        for part in reversed(self.parts):
            part.stop()


def say(progress: str) -> None:
    print(progress, file=sys.stderr, flush=True)  # stdout holds the result alone (--json)


def noop_cpu(pid: int, target: str, callers: int, seconds: float) -> float:
    """Server CPU seconds per no-op health Check at ``callers`` concurrent callers."""
    meter = CpuMeter(pid)
    rate = asyncio.run(noop_rate(target, callers, seconds, False, meter))
    return meter.seconds / max(1, round(rate * meter.wall))


def measure(args: Any, raw: Path) -> dict[str, Any]:
    """Run the server, the no-op window and the profiled window; the figures."""
    extra = ["--threads", "--rate", str(args.rate)]
    extra += ["--nonblocking"] if args.nonblocking else []
    with ExitStack() as stack, server_for(args.store, stack) as server:
        assert server.proc is not None
        pid = server.proc.pid
        say(f"server pid {pid} on {server.target}: no-op window")
        noop = noop_cpu(pid, server.target, args.games, args.noop_seconds)
        meter, per_thread = CpuMeter(pid), ThreadMeter(pid)
        recording = Recording(pid, raw, "raw", extra)
        say(f"opening games; then {args.seconds:g} s of {args.load} load")
        try:
            window = Window(recording, meter, per_thread)  # the meters stop first
            rate = asyncio.run(drive(server.target, args.load, args.games, args.seconds, window))
        finally:
            recording.stop()
    check_recording(recording, raw)
    threads = attribute(raw.read_text())
    for tid, seconds in per_thread.seconds.items():
        threads.setdefault(tid, Thread("(no Python frames)")).cpu = seconds
    moves = max(1, round(rate * meter.wall))
    return {"moves": moves, "rate": rate, "cpu": meter.seconds, "noop": noop, "threads": threads}


def check_recording(recording: Recording, raw: Path) -> None:
    said = recording.output().strip()
    proc = recording.proc
    if proc is not None and proc.returncode not in (0, -signal.SIGINT):
        raise SystemExit(f"py-spy failed ({proc.returncode}):\n{said}\n(ptrace rights: --help)")
    if not raw.exists() or raw.stat().st_size == 0:
        raise SystemExit(f"py-spy wrote no stacks:\n{said}")


def spread(threads: dict[int, Thread]) -> dict[str, float]:
    """CPU seconds per stage: each thread's CPU shared out as its busy samples are; a
    thread with CPU but no busy sample (gRPC's native threads) counts as gRPC core."""
    seconds = dict.fromkeys(NOT_IDLE, 0.0)
    for thread in threads.values():
        busy = sum(thread.samples[name] for name in NOT_IDLE)
        if not busy:
            seconds[NATIVE] += thread.cpu
            continue
        for name in NOT_IDLE:
            seconds[name] += thread.cpu * thread.samples[name] / busy
    return seconds


def result(args: Any, m: dict[str, Any]) -> dict[str, Any]:
    """The breakdown: per stage its share of server CPU and µs per move."""
    seconds = spread(m["threads"])
    total = sum(seconds.values()) or 1.0
    move_us = m["cpu"] / m["moves"] * 1e6
    rows = [
        {
            "stage": name,
            "share": seconds[name] / total,
            "us_per_move": move_us * seconds[name] / total,
        }
        for name in NOT_IDLE
    ]
    threads = sorted(m["threads"].items(), key=lambda kv: -kv[1].cpu)
    return {
        "load": args.load,
        "games": args.games,
        "seconds": args.seconds,
        "store": args.store,
        "moves": m["moves"],
        "moves_per_s": m["rate"],
        "server_cpu_s": m["cpu"],
        "stages": rows,
        "total_us_per_move": move_us,
        "noop_us": m["noop"] * 1e6,
        "moves_in_noops": move_us / (m["noop"] * 1e6) if m["noop"] else 0.0,
        "seats": seats_of(args.load),
        "viewers": seats_of(args.load) + 2,  # each seat, the spectators, the arbiter
        "threads": [
            {"tid": tid, "name": t.name, "cpu_s": t.cpu, "samples": dict(t.samples)}
            for tid, t in threads
        ],
        "load_average": os.getloadavg()[0],
    }


def seats_of(load: str) -> int:
    """The seats of the load's games: the peer bench's are 4-seat, the others bench P1's."""
    if load == "peers":
        from bench.peers.ours import SEATS as PEER_SEATS

        return PEER_SEATS
    return SEATS


def table(r: dict[str, Any]) -> list[str]:
    """The breakdown as a Markdown table and the lines under it."""
    lines = ["| stage | what it holds | % of server CPU | µs per move |", "|---|---|---|---|"]
    for row in r["stages"]:
        lines.append(
            f"| {row['stage']} | {STAGES[row['stage']]} | {row['share'] * 100:.1f} | "
            f"{row['us_per_move']:,.0f} |"
        )
    lines.append(f"| **total** | server CPU ÷ moves | 100 | **{r['total_us_per_move']:,.0f}** |")
    render = next(row for row in r["stages"] if row["stage"] == "render")["us_per_move"]
    busiest = ", ".join(
        f"{t['name'] or t['tid']} {t['cpu_s']:.2f} s" for t in r["threads"][:4] if t["cpu_s"]
    )
    return lines + [
        "",
        f"{r['load']} load, {r['games']} games, {r['seconds']:g} s, {r['store']}: "
        f"{r['moves']:,} moves ({r['moves_per_s']:,.0f}/s), {r['server_cpu_s']:.2f} s of "
        f"server CPU (busiest threads: {busiest}); load average {r['load_average']:.1f}.",
        f"No-op health Check: {r['noop_us']:,.0f} µs of server CPU; a move costs "
        f"{r['moves_in_noops']:.1f} no-op RPCs. Render per viewer: {render / r['viewers']:,.0f} "
        f"µs ({r['viewers']} viewers a move at {r['seats']} seats).",
    ]


def main(argv: list[str] | None = None) -> None:
    p = parser("stages", __doc__)
    add_load_arguments(p, "the profiled window")
    p.add_argument("--noop-seconds", type=float, default=5.0, help="no-op window (default 5)")
    p.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    p.add_argument("--rate", type=int, default=100, help="py-spy samples per second")
    p.add_argument("--nonblocking", action="store_true", help="sample without pausing the server")
    p.add_argument("--raw", type=Path, help="keep py-spy's raw stacks in this file")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    args = p.parse_args(argv)
    with ExitStack() as stack:
        raw = (
            args.raw
            or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="stages-")))
            / "stacks.txt"
        )
        r = result(args, measure(args, raw))
    print(json.dumps(r, indent=1) if args.json else "\n".join(table(r)), flush=True)


if __name__ == "__main__":
    main()
