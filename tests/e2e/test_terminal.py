"""A person at a terminal: `tabletop play` to the end of a game of each kind against the
heuristic bots (driven by pexpect on a pseudo-terminal), and the README's command lines run
exactly as written (those that need no person at the keyboard)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from clients.python.bot import make_bot, play_to_end
from clients.python.client import TableClient, reveal_and_start
from clients.python.play import game_options
from clients.python.serverproc import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
PROMPT = r"your move \(number, help, quit\)> "


@pytest.fixture(scope="module")
def server() -> ServerProcess:  # type: ignore[misc]
    with ServerProcess(extra=["--allow-prepared-deals"]) as proc:  # --seed tables
        yield proc


def env_for(server: ServerProcess) -> dict[str, str]:
    return {**os.environ, "COLUMNS": "160", "TABLETOP_TARGET": server.target}


@pytest.mark.parametrize("kind", ["huaniao", "zipai"])
def test_a_person_plays_a_game_to_the_end(server: ServerProcess, kind: str, tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.json"
    for seed in range(7, 40):  # a table where the bots leave the person a turn (基本 is short)
        child = pexpect.spawn(
            str(BIN / "tabletop"),
            ["play", "--kind", kind, "--seed", str(seed), "--tokens-file", str(tokens)],
            env=env_for(server),
            encoding="utf-8",
            timeout=60,
        )
        child.expect("arbiter token")
        if child.expect([PROMPT, "game over"]) == 0:
            break
        child.expect(pexpect.EOF)
    else:
        raise AssertionError("the bots ended every game before the person's first turn")
    child.sendline("?")
    child.expect("Now: ")
    child.expect("LOWEST hand score wins" if kind == "huaniao" else "荒庄")
    child.expect(PROMPT)
    child.sendline("99")
    child.expect("there is no move 99")
    child.expect(PROMPT)
    child.sendline("nonsense")
    child.expect("not understood")
    child.expect(PROMPT)
    if kind == "huaniao":  # an illegal entry shows the rule's reason
        child.sendline("play 十")
        child.expect(r"refused by the rule|you hold no")
        child.expect(PROMPT)
    moves = 0
    while True:
        child.sendline("0")
        moves += 1
        if child.expect([PROMPT, "game over"]) == 1:
            break
        assert moves < 500, "the game did not end"
    child.expect("-m clients.python.audit verify")  # runs as printed from any folder
    child.expect(pexpect.EOF)
    saved = json.loads(tokens.read_text())
    assert saved["arbiter_token"] and len(saved["seats"]) == (4 if kind == "huaniao" else 3)


def readme_lines() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    return [line.split("  #")[0].strip() for b in blocks for line in b.splitlines() if line.strip()]


def shell(line: str, env: dict[str, str], timeout: float = 180) -> str:
    out = subprocess.run(
        line, shell=True, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert out.returncode == 0, f"{line!r} failed: {out.stderr[-2000:]}"
    return out.stdout


def test_the_readme_commands_run_as_written(server: ServerProcess, tmp_path: Path) -> None:
    """Every README line but the ones that wait for a person (`play`), run for ever (`make
    run`, `watch` of a live game) or are the test suite itself; GAME_ID, SEAT_TOKEN and the
    documented port are filled in with a real game on the test's server."""
    lines = readme_lines()
    unattended = [
        line for line in lines if line not in ("make run", "make test") and " play" not in line
    ]
    assert ".venv/bin/tabletop replay GAME_ID --target 127.0.0.1:50051" in unattended
    env = {**env_for(server), "COLUMNS": "200"}
    with TableClient(server.target) as client:  # a finished game and one of its seat tokens
        game_id = client.create_game(game_options("huaniao"), 4, seed=3).game_id
        seats = [client.join(game_id, s, f"p{s}") for s in range(4)]
        reveal_and_start(seats)
        play_to_end([make_bot(s, "heuristic", 3) for s in seats])
    seat = seats[0].credential
    for line in unattended:
        line = line.replace("127.0.0.1:50051", server.target).replace("GAME_ID", game_id)
        line = line.replace("SEAT_TOKEN", seat).replace("tokens.json", str(tmp_path / "t.json"))
        line = line.replace("game.jsonl", str(tmp_path / "game.jsonl"))
        if line.startswith("make demo"):
            line = "make demo ARGS='--seed 5'"
        out = shell(line, env)
        if " -o " in line:  # a command that writes its file, as export -o does, prints nothing
            written = Path(line.split(" -o ")[1].split()[0])
            assert written.read_text().strip(), f"{line!r} wrote nothing"
        else:
            assert out.strip(), f"{line!r} printed nothing"
