"""`make bench --smoke` runs every benchmark section at tiny sizes (one test a section), so
the benchmark code cannot rot between benchmark runs (issue 16). It asserts what the run wrote, never a timing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Each section of bench/run.py and the headings its run must write. One test a section (why:
# as one run of every section it was the suite's longest test, 100 s, most of it waiting
# for servers and PostgreSQL to start, which the two workers now overlap with other tests).
SECTIONS = {
    "engine": ("## Targets", "## P4: engine speed"),
    "api": ("## P1: Play throughput over gRPC",),
    "browser": ("## B1: a browser seat's move against a gRPC seat's",),
    "cpu": ("## Targets", "## P1: server CPU per move, and open-loop latency"),
    "fanout": ("## Targets", "## P2: move-to-stream delivery latency"),
    "rebuild": ("## Targets", "## P3: rebuild at a version"),
    "writes": ("## Targets", "## Group commit baseline", "## P5: write throughput"),
    "receipts": ("## Targets", "## P6: signing and receipts per move"),
    "soak": ("## Soak:",),
    "feed": ("## F1: the store feed's reads per commit",),
    "procs": ("## Server processes:",),
    "peers": ("## Targets", "## I38: a move's cost against boardgame.io and Colyseus"),
    "history": ("## H1: a long justice history",),
}


def test_every_section_of_the_bench_is_smoked() -> None:
    from bench.run import SECTIONS as RUN_SECTIONS

    assert set(SECTIONS) == set(RUN_SECTIONS)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("section", sorted(SECTIONS))
def test_every_bench_section_runs_and_writes_its_table(tmp_path: Path, section: str) -> None:
    out = tmp_path / "benchmarks.md"
    docs = ROOT / "docs" / "benchmarks.md"
    before = docs.read_bytes() if docs.exists() else b""
    run = subprocess.run(
        [sys.executable, "-m", "bench.run", "--smoke", "--only", section, "--output", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=560,  # a minute on a loaded machine, seconds on a quiet one
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    text = out.read_text()
    missing = [s for s in SECTIONS[section] if s not in text]
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
