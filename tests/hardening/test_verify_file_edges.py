"""`tabletop-audit verify --file` on hostile files: one line, a non-zero status, bounded memory.

The auditor runs as its own process (as a user runs it), so a traceback, the exit status and
the process's peak memory (its VmHWM, read while it runs) are all seen. The first
line decides whether a file is a match export; it is read by the same bounded reader as
every other line (``read_lines`` and ``domain.verify.load_line``), so it is where each of
these inputs used to end in a traceback or, for a 200 MiB line, a 459 MiB peak.
"""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KEY = "ab" * 32  # any key: these files fail before a seal is checked
BOUND = 60.0  # seconds per run; each fails within about a second
PEAK_MB = 150  # the 200 MiB line's peak RSS must stay under this (measured: 48 MB; 1,075 MB before)


@dataclass(frozen=True)
class Run:
    status: int
    output: str
    peak_mb: float


def audit_file(path: Path) -> Run:
    """`tabletop-audit verify --file PATH` in a child process: its status, its output
    (stdout and stderr together) and its own peak resident memory.

    The peak is the child's VmHWM, read from /proc while it runs: its rusage would not do,
    since Linux folds the parent's high-water mark into a child's ru_maxrss at exec (a
    pytest worker of 450 MB made every child look that big)."""
    out = path.with_suffix(".out")
    with open(out, "w+b") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "clients.python.audit", "verify", "--file", str(path)]
            + ["--public-key", KEY],
            cwd=ROOT,
            stdout=sink,
            stderr=sink,
        )
        peak_kib = 0
        deadline = time.monotonic() + BOUND
        while proc.poll() is None:
            if time.monotonic() > deadline:
                proc.kill()  # a hang becomes a failure below
            peak_kib = max(peak_kib, _high_water_kib(proc.pid))
            time.sleep(0.005)
        sink.seek(0)
        output = sink.read().decode("utf-8", errors="replace")
    return Run(proc.returncode, output, peak_kib / 1024)


def _high_water_kib(pid: int) -> int:
    """The process's peak resident set (VmHWM) so far, or 0 once it has gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def assert_one_line_failure(run: Run, reason: str) -> None:
    assert run.status == 1, f"status {run.status}: {run.output[-2000:]}"
    assert "Traceback" not in run.output, run.output[-2000:]
    lines = run.output.splitlines()
    assert len(lines) == 1 and lines[0].startswith("VERIFY FAILED: "), run.output[-2000:]
    assert reason in lines[0], lines[0]


MATCH_LINE = b'{"fact":{},"hash":"00","match":"m","version":1}\n'

HOSTILE_FIRST_LINES = {
    "deep nesting": (b"[" * 100_000 + b"]" * 100_000 + b"\n", "nested too deeply"),
    "a 5,000-digit integer": (b'{"version":' + b"9" * 5000 + b"}\n", "integer of 5000 digits"),
    "invalid UTF-8": (b'{"version":1,\xff\xfe: 2}\n', "not a valid export line"),
    "invalid UTF-8 in a string": (b'{"match\xff":1}\n', "not UTF-8"),
    "a scalar": (b"7\n", "not a JSON object"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_FIRST_LINES))
def test_a_hostile_first_line_fails_in_one_line(tmp_path: Path, name: str) -> None:
    content, reason = HOSTILE_FIRST_LINES[name]
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(b"\n  \n" + content)  # blank lines first: the sniff skips them
    assert_one_line_failure(audit_file(path), reason)


@pytest.mark.parametrize("name", sorted(HOSTILE_FIRST_LINES))
def test_a_hostile_line_in_a_match_export_fails_in_one_line(tmp_path: Path, name: str) -> None:
    content, reason = HOSTILE_FIRST_LINES[name]
    path = tmp_path / "match.jsonl"
    path.write_bytes(MATCH_LINE + content)
    reason = "not a JSON object" if name == "a scalar" else reason
    assert_one_line_failure(audit_file(path), reason)


def test_a_200_mib_first_line_fails_in_one_line_with_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    chunk = b"1," * (1 << 20)  # 2 MiB
    with open(path, "wb") as f:
        f.write(b"[")
        for _ in range(100):
            f.write(chunk)
        f.write(b"1]\n")
    try:
        run = audit_file(path)
    finally:
        path.unlink()
    assert_one_line_failure(run, "line 1 is longer than 1048576 characters")
    print(f"peak RSS of the auditor on a 200 MiB first line: {run.peak_mb:.0f} MB")
    assert run.peak_mb < PEAK_MB, f"{run.peak_mb:.0f} MB: the line was held whole"
