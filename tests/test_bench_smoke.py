"""`make bench --smoke` runs every benchmark section at tiny sizes, so the benchmark code
cannot rot between benchmark runs (issue 16). It asserts what the run wrote, never a timing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SECTIONS = (
    "## Targets",
    "## P4: engine speed",
    "## P1: Play throughput over gRPC",
    "## B1: a browser seat's move against a gRPC seat's",
    "## P1: server CPU per move, and open-loop latency",
    "## P2: move-to-stream delivery latency",
    "## P3: rebuild at a version",
    "## Group commit baseline",
    "## P5: write throughput",
    "## P6: signing and receipts per move",
    "## Soak:",
    "## Server processes:",
    "## I38: a move's cost against boardgame.io and Colyseus",
    "## H1: a long justice history",
)


@pytest.mark.timeout(600)
def test_every_bench_section_runs_and_writes_its_table(tmp_path: Path) -> None:
    out = tmp_path / "benchmarks.md"
    docs = ROOT / "docs" / "benchmarks.md"
    before = docs.read_bytes() if docs.exists() else b""
    run = subprocess.run(
        [sys.executable, "-m", "bench.run", "--smoke", "--output", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=560,  # minutes on a loaded machine, under one on a quiet one
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    text = out.read_text()
    missing = [s for s in SECTIONS if s not in text]
    assert not missing, f"sections not written: {missing}\n{text}"
    assert "moves failed" not in text, text
    # the smoke run never touches the published figures
    assert (docs.read_bytes() if docs.exists() else b"") == before


def test_a_merged_run_keeps_other_sections_and_takes_the_notes_as_they_are_now() -> None:
    """``make bench ARGS='--only X --merge'``: section X is replaced, the others keep their
    figures, a new section goes before the notes, and the notes are bench/notes.md's
    current text (they used to stay as the last full run left them)."""
    from bench.run import NOTES, _merged

    notes = NOTES.read_text().splitlines()
    old = ["# Benchmarks", "", "## A", "old a", "", "## B", "old b", "", notes[0], "stale notes"]
    out = _merged(old, [["## B", "new b"], ["## C", "new c"]])
    assert out[: out.index(notes[0])] == [
        "# Benchmarks",
        "",
        "## A",
        "old a",
        "",
        "## B",
        "new b",
        "",
        "## C",
        "new c",
        "",
    ]
    assert out[out.index(notes[0]) :] == notes and "stale notes" not in out
