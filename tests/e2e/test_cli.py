"""The CLI and the demo as a person would run them, against a real server."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from clients.python.serverproc import ServerProcess


def run(*args: str, timeout: float = 120) -> str:
    env = {**os.environ, "COLUMNS": "200"}  # rich tables: no truncation
    out = subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
        env=env,
    )
    return out.stdout


def test_demo_plays_a_whole_game_and_prints_the_stream_and_winner() -> None:
    with ServerProcess(extra=["--allow-prepared-deals"]) as server:  # --seed: prepared deals
        out = run("-m", "clients.python.demo", "--target", server.target, "--seed", "5")
    assert "seat 0's live stream" in out
    assert re.search(r"v\s+7\s+seat 0 发牌 \(dealt\) [鸟十百千万花风月+]+", out), (
        "seat 0 sees its own cards by name"
    )
    assert re.search(r"seat 1 发牌 \(dealt\) 8 张", out), (
        "seat 0 sees only a count of seat 1's cards"
    )
    assert re.search(r"winner\s+seat \d", out)
    assert re.search(r"game id\s+[0-9a-f-]{36}", out)
    assert "deck {" not in out and "kind: CARD_KIND" not in out, "a summary panel, not a proto dump"
    moves = int(re.search(r"moves\s+(\d+)", out).group(1))  # type: ignore[union-attr]
    assert f"({moves} moves, 4 joins, 1 start)" in out, "the move counts agree"
    assert "--html game.html" in out and "-m clients.python.audit verify" in out


def test_the_demos_commands_run_as_printed_from_another_folder(tmp_path: Path) -> None:
    """Issue 37 point 3: the summary printed `tabletop-audit verify ...`, which is only in
    .venv/bin (`command not found`). Each printed line is run as it stands, by a shell, in
    a folder of its own, with a PATH that holds no .venv/bin."""
    with ServerProcess(extra=["--allow-prepared-deals"]) as server:
        out = run("-m", "clients.python.demo", "--target", server.target, "--seed", "5")
        lines = dict(re.findall(r"^  (verify|replay):\s+(.+)$", out, re.MULTILINE))
        assert set(lines) == {"verify", "replay"}, out
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "COLUMNS": "200"}
        ran = {
            name: subprocess.run(
                line,
                shell=True,
                cwd=elsewhere,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            for name, line in lines.items()
        }
    for name, done in ran.items():
        assert done.returncode == 0, (name, lines[name], done.stdout, done.stderr)
    assert "verified" in ran["verify"].stdout, ran["verify"].stdout


def test_bots_then_replay_every_version() -> None:
    with ServerProcess(extra=["--allow-prepared-deals"]) as server:  # --seed: prepared deals
        out = run("-m", "clients.python.cli", "--target", server.target, "bots", "--seed", "3")
        game_id = re.search(r"([0-9a-f]{8}-[0-9a-f-]{27})", out).group(1)  # type: ignore[union-attr]
        replay = run(
            "-m",
            "clients.python.cli",
            "--target",
            server.target,
            "replay",
            game_id,
            "--all",
            "--full",
        )
        single = run(
            "-m",
            "clients.python.cli",
            "--target",
            server.target,
            "replay",
            game_id,
            "--version",
            "6",
        )
    versions = [int(v) for v in re.findall(r"version (\d+) of (\d+)", replay) for v in v[:1]]
    assert versions == list(range(1, versions[-1] + 1)) and len(versions) > 10
    assert "winners" in replay.split("version")[-1], "the last version shows the outcome"
    assert "version 6 of" in single and "version 7 of" not in single
