"""A py-spy profile of the server under the bench's load.

Starts a server as the bench does (bench/api.py ``server_for``: SQLite or a throwaway
PostgreSQL, the bench's flags), opens the games, then records the server process with
``py-spy record`` for the timed window only, while the load runs (bench/profile/load.py:
stream-driven by default, as in bench P1). The profile goes to ``--out``: a flamegraph
(.svg), a speedscope file (.json, open it at https://www.speedscope.app) or py-spy's raw
collapsed stacks (.txt); the format follows the suffix unless ``--format`` says.

py-spy reads another process's memory: it needs ptrace rights over the server. As root
(with CAP_SYS_PTRACE, e.g. ``docker run --cap-add SYS_PTRACE``) that is given; otherwise
set ``kernel.yama.ptrace_scope`` to 0 or run this under sudo. py-spy is in the dev extras
(``pip install -e '.[dev]'``).

Example: ``python -m bench.profile.pyspy --games 64 --seconds 20 --out /tmp/server.svg``.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

from bench.api import server_for
from bench.profile import parser
from bench.profile.load import add_load_arguments, drive

FORMATS = {".svg": "flamegraph", ".json": "speedscope", ".txt": "raw"}


def py_spy() -> str:
    """The py-spy next to this interpreter (the venv's), else the one on PATH."""
    beside = Path(sys.executable).parent / "py-spy"
    found = str(beside) if beside.exists() else shutil.which("py-spy")
    if found is None:
        raise SystemExit("py-spy is not installed: pip install py-spy (it is in the dev extras)")
    return found


class Recording:
    """``py-spy record`` of process ``pid`` from ``start()`` to ``stop()`` (a bench/api.py
    ``Window``): stopped with SIGINT, on which py-spy writes its file."""

    def __init__(self, pid: int, out: Path, fmt: str, extra: list[str]) -> None:
        self.cmd = [py_spy(), "record", "--pid", str(pid), "--output", str(out)]
        self.cmd += ["--format", fmt, *extra]
        self.log = tempfile.TemporaryFile()
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        # close_fds=False: posix_spawn, no fork() in a process that has used gRPC
        # (clients/python/serverproc.py says why)
        self.proc = subprocess.Popen(
            self.cmd, stdout=self.log, stderr=subprocess.STDOUT, close_fds=False
        )

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")


def main(argv: list[str] | None = None) -> None:
    p = parser("pyspy", __doc__)
    add_load_arguments(p, "the recorded window")
    p.add_argument("--out", type=Path, required=True, help="the profile to write (.svg/.json/.txt)")
    p.add_argument("--format", choices=sorted(set(FORMATS.values())), help="default: from --out")
    p.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    p.add_argument("--rate", type=int, default=100, help="py-spy samples per second")
    p.add_argument(
        "--nonblocking",
        action="store_true",
        help="do not pause the server to sample it (less overhead, less exact)",
    )
    p.add_argument("--idle", action="store_true", help="keep idle threads' stacks too")
    p.add_argument("--gil", action="store_true", help="only samples that hold the GIL")
    p.add_argument(
        "--native",
        action="store_true",
        help="C and Cython frames too (what gRPC's core and context.write spend)",
    )
    p.add_argument("--threads", action="store_true", help="each thread's stacks apart")
    args = p.parse_args(argv)
    fmt = args.format or FORMATS.get(args.out.suffix)
    if fmt is None:
        p.error(f"--format, or an --out ending in one of {', '.join(FORMATS)}")
    extra = ["--rate", str(args.rate)]
    extra += [
        f"--{flag}"
        for flag in ("nonblocking", "idle", "gil", "native", "threads")
        if getattr(args, flag)
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack, server_for(args.store, stack) as server:
        assert server.proc is not None
        recording = Recording(server.proc.pid, args.out, fmt, extra)
        print(f"server pid {server.proc.pid} on {server.target}; opening games", flush=True)
        try:
            rate = asyncio.run(drive(server.target, args.load, args.games, args.seconds, recording))
        finally:
            recording.stop()  # the window's end stopped it already, unless the load failed
    said = recording.output().strip()
    if recording.proc is not None and recording.proc.returncode not in (0, -signal.SIGINT):
        hint = ""
        if "ermission" in said or "ptrace" in said.lower():
            hint = "\npy-spy needs ptrace rights over the server: see --help"
        raise SystemExit(f"py-spy failed ({recording.proc.returncode}):\n{said}{hint}")
    if not args.out.exists() or os.path.getsize(args.out) == 0:
        raise SystemExit(f"py-spy wrote no profile:\n{said}")
    print(
        f"{args.load} load, {args.games} games, {args.seconds:g} s: {rate:,.0f} moves/s; "
        f"{fmt} profile of the server in {args.out}",
        flush=True,
    )


if __name__ == "__main__":
    main()
