"""Issue 38's peer benchmark (bench/peers) at smoke size: it starts this server (SQLite with
keyed and unkeyed seats, memory store), boardgame.io (FlatFile and in memory) and Colyseus, plays games on each with
real network clients, and reports every figure. It asserts what the run wrote, never a
timing. `make test` installs the npm packages first (`make peers`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SERVERS = (
    "this server, SQLite (durable), seats sign",
    "this server, SQLite (durable), unkeyed seats",
    "this server, memory store",
    "boardgame.io 0.50.2, FlatFile",
    "boardgame.io 0.50.2, in memory",
    "Colyseus 0.18.8",
)


def number(cell: str) -> float:
    """The first figure of a table cell: "1,234 (1,100–1,300)" -> 1234."""
    return float(cell.split()[0].replace(",", "").rstrip("x"))


@pytest.mark.timeout(300)
def test_the_peers_run_plays_on_every_server_and_reports_its_figures(tmp_path: Path) -> None:
    out = tmp_path / "benchmarks.md"
    run = subprocess.run(
        [sys.executable, "-m", "bench.run", "--only", "peers", "--smoke", "--output", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    text = out.read_text()
    rows = {
        name: [c.strip() for c in line.split("|")[1:-1]]
        for line in text.splitlines()
        for name in SERVERS
        if line.startswith(f"| {name}")
    }
    assert set(rows) == set(SERVERS), text
    for name, cells in rows.items():
        games, per_game, cpu, _, sent, rss = (number(c) for c in cells[1:7])
        assert games == 2 and per_game > 0, (name, cells)  # the smoke size: 2 games each
        assert cpu > 0 and sent > 0 and rss > 0, (name, cells)
    # both targets are judged, and what a seat of this server receives is broken down
    assert "| server CPU per move, signed and durable on SQLite" in text, text
    assert "| bytes a seat receives per move, receipts included, <= 300" in text, text
    assert "| receipt: its lists of hashes |" in text and "| legal moves |" in text, text
