"""The collector probe: what CPython's cyclic garbage collector does in the server under the
bench's load (bench/notes.md, P1 open-loop latency: "Found").

This process is the server (``server.startup.main``, as ``tabletop-server`` runs it, on
SQLite with the bench's flags), with a ``gc.callbacks`` probe installed before it starts; a
child process drives the bench's load against it (bench/profile/load.py), after ``--warmup``
seconds of closed-loop play if asked (the bench's P1 runs its open loop after its closed
windows, on a server that has filled its memos). Over the timed window it prints, per
generation: the collections, their total and longest pause, the objects they freed, and the
objects the collector tracks in that generation at the window's end (``gc.get_objects``),
with the objects ``gc.freeze()`` took out of its sight at startup.

Example: ``python -m bench.profile.collector --games 64 --seconds 20 --warmup 10``, and
again with ``--gc-full-every 10`` (CPython's own spacing of full collections) to compare.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.api import play_rate
from bench.common import SERVER_FLAGS
from bench.profile import parser
from bench.profile.load import add_load_arguments, drive, pool_size

START, STOP, RATE = "window start", "window stop", "moves/s "


class Probe:
    """A ``gc.callbacks`` entry: each collection's generation, pause and freed objects while
    ``on``."""

    def __init__(self) -> None:
        self.on = False
        self.pauses: list[list[float]] = [[], [], []]
        self.collected = [0, 0, 0]
        self._began = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        elif self.on:
            g = info["generation"]
            self.pauses[g].append(time.perf_counter() - self._began)
            self.collected[g] += info["collected"]


@dataclass
class Window:
    """What the driver thread saw of the child's window."""

    seconds: float = 0.0
    rate: float = 0.0
    tracked: list[int] = field(default_factory=list)
    frozen: int = 0
    failed: str = ""


def _port(port_file: Path, server: threading.Thread) -> int:
    while server.is_alive():
        if port_file.exists() and port_file.read_text().strip():
            return int(port_file.read_text())
        time.sleep(0.05)
    raise RuntimeError("the server did not start")


def _driver(
    port_file: Path, server: threading.Thread, child_args: list[str], probe: Probe, out: Window
) -> None:
    """Run the load in a child process, switch the probe on for its window, then stop the
    server (SIGTERM to this process: the server's own graceful stop)."""
    try:
        target = f"127.0.0.1:{_port(port_file, server)}"
        cmd = [sys.executable, "-m", "bench.profile.collector", "--drive", target, *child_args]
        # close_fds=False: posix_spawn, no fork() in a process that serves gRPC
        # (clients/python/serverproc.py says why)
        child = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, close_fds=False)
        assert child.stdout is not None
        began = 0.0
        for line in child.stdout:
            line = line.rstrip("\n")
            if line == START:
                began, probe.on = time.perf_counter(), True
            elif line == STOP:
                probe.on = False
                out.seconds = time.perf_counter() - began
                out.tracked = [len(gc.get_objects(generation=g)) for g in range(3)]
                out.frozen = gc.get_freeze_count()
            elif line.startswith(RATE):
                out.rate = float(line[len(RATE) :])
            else:
                print(line, flush=True)
        if child.wait() != 0:
            out.failed = f"the load exited with {child.returncode}"
    except Exception as exc:  # reported after the server stops
        out.failed = repr(exc)
    finally:
        os.kill(os.getpid(), signal.SIGTERM)


def report(probe: Probe, window: Window) -> list[str]:
    lines = [
        f"window {window.seconds:.1f} s, {window.rate:,.0f} moves/s; collector thresholds "
        f"{'/'.join(map(str, gc.get_threshold()))}; {window.frozen:,} objects frozen at start",
        "",
        "| generation | collections | per s | total pause ms | max pause ms | mean ms | "
        "freed objects | tracked at the end |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for g in range(3):
        pauses = probe.pauses[g]
        total, longest = sum(pauses) * 1e3, max(pauses, default=0.0) * 1e3
        lines.append(
            f"| {g} | {len(pauses):,} | {len(pauses) / max(window.seconds, 1e-9):.1f} | "
            f"{total:,.1f} | {longest:.1f} | {total / max(1, len(pauses)):.2f} | "
            f"{probe.collected[g]:,} | "
            f"{window.tracked[g] if window.tracked else 0:,} |"
        )
    return lines


class _Said:
    """The child's window, told to the probing parent on stdout."""

    def start(self) -> None:
        print(START, flush=True)

    def stop(self) -> None:
        print(STOP, flush=True)


def _drive(target: str, args: argparse.Namespace) -> None:
    """The child: warm-up, then the timed window, announced on stdout."""

    async def run() -> float:
        if args.warmup > 0:
            await play_rate(target, args.games, args.warmup, pool_size(args.warmup, args.games))
        return await drive(target, args.load, args.games, args.seconds, _Said())

    print(f"{RATE}{asyncio.run(run())}", flush=True)


def main(argv: list[str] | None = None) -> None:
    p = parser("collector", __doc__)
    add_load_arguments(p, "the probed window")
    p.add_argument(
        "--warmup",
        type=float,
        default=0.0,
        help="seconds of closed-loop play before the window, not probed (default 0)",
    )
    p.add_argument(
        "--gc-full-every",
        type=int,
        help="the server's --gc-full-every (default: the server's own default)",
    )
    p.add_argument("--drive", metavar="TARGET", help=argparse.SUPPRESS)  # the child's side
    args = p.parse_args(argv)
    if args.drive:
        _drive(args.drive, args)
        return
    from server.startup.main import main as serve

    child_args = ["--load", args.load, "--games", str(args.games)]
    child_args += ["--seconds", str(args.seconds), "--warmup", str(args.warmup)]
    probe, window = Probe(), Window()
    with tempfile.TemporaryDirectory(prefix="bench-collector-") as tmp:
        port_file = Path(tmp) / "port"
        flags = [*SERVER_FLAGS, "--port", "0", "--store", "sqlite", "--data-dir", tmp]
        flags += ["--port-file", str(port_file), "--log-level", "warning"]
        if args.gc_full_every:
            flags += ["--gc-full-every", str(args.gc_full_every)]
        gc.callbacks.append(probe)
        server = threading.current_thread()
        driver = threading.Thread(
            target=_driver, args=(port_file, server, child_args, probe, window), daemon=True
        )
        driver.start()
        serve(flags)  # returns on the driver's SIGTERM
        driver.join(timeout=30)
        gc.callbacks.remove(probe)
    if window.failed:
        raise SystemExit(f"collector probe: {window.failed}")
    print("\n".join(report(probe, window)), flush=True)


if __name__ == "__main__":
    main()
