"""The profiling tools in bench/profile/ start, and the in-process one measures, so that they
cannot rot between the speed sessions that use them (issue 23). No timing is asserted."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

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
