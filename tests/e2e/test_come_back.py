"""Coming back to a game at a terminal: `tabletop play --resume` after Ctrl-C, a seat token of
`tabletop create` played with `play --game --token`, and `tabletop bots --join` filling the
other seats, each as a person runs them (pexpect on a pseudo-terminal, real processes, a
real server on a random loopback port)."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from clients.python import cli
from clients.python.client import TableClient
from clients.python.serverproc import ServerProcess
from tabletop.v1 import tabletop_pb2 as pb

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
PROMPT = r"your move \(number, help, quit\)> "
OVER = "game over"
GAME_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def plain(text: str) -> str:
    """Terminal output without its colours."""
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    with ServerProcess(extra=["--allow-prepared-deals"]) as proc:  # --seed tables
        yield proc


def env_for(server: ServerProcess, state: Path) -> dict[str, str]:
    """The person's environment: the test's server, and a state folder of its own (where
    `play` keeps its tokens file by default)."""
    return {
        **os.environ,
        "COLUMNS": "160",
        "TABLETOP_TARGET": server.target,
        "XDG_STATE_HOME": str(state),
    }


def as_a_shell_starts_it() -> None:
    """In the child: Ctrl-C as a person's shell leaves it (default, not blocked). The suite's
    worker process may not: a signal ignored or blocked there (by a library or another test)
    is inherited across exec, and the child would then never see the Ctrl-C this test
    sends (seen: the full suite timed out here, the file alone passed)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def spawn(args: list[str], env: dict[str, str]) -> pexpect.spawn:
    return pexpect.spawn(
        args[0],
        args[1:],
        env=env,
        encoding="utf-8",
        timeout=60,
        cwd=ROOT,
        preexec_fn=as_a_shell_starts_it,
    )


def play_to_the_end(child: pexpect.spawn) -> None:
    """Answer every prompt with the menu's first move until the game is over."""
    for _ in range(500):
        if child.expect([PROMPT, OVER]) == 1:
            child.expect(pexpect.EOF)
            return
        child.sendline("0")
    raise AssertionError("the game did not end")


def test_play_help_names_resume_and_where_the_tokens_are(
    capsys: pytest.CaptureFixture[str],
) -> None:
    cli.main(["play", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--resume" in out and "tabletop play --resume" in out
    assert "~/.local/state/tabletop/play.json" in out and "mode 0600" in out
    assert "--game GAME --token" in out and "bots --join GAME" in out


def test_a_game_left_with_ctrl_c_is_finished_after_resume(
    server: ServerProcess, tmp_path: Path
) -> None:
    env = env_for(server, tmp_path / "state")
    for seed in range(7, 40):  # a deal where the bots leave the person a turn
        child = spawn([str(BIN / "tabletop"), "play", "--seed", str(seed)], env)
        if child.expect([PROMPT, OVER]) == 0:
            break
        child.expect(pexpect.EOF)
    else:
        raise AssertionError("the bots ended every game before the person's first turn")
    game_id = GAME_ID.findall(plain(child.before))[0]
    child.sendintr()  # Ctrl-C at the prompt
    child.expect(pexpect.EOF)
    child.close()
    said = plain(child.before)
    assert "Traceback" not in said and child.exitstatus == 130
    command = said.split("come back to it with: ", 1)[1].splitlines()[0].strip()
    assert command.endswith("tabletop play --resume"), said
    saved = tmp_path / "state" / "tabletop" / "play.json"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600, "the tokens are the person's alone"
    assert json.loads(saved.read_text())["game_id"] == game_id
    with TableClient(server.target) as client:
        assert client.as_viewer(game_id).view().phase == pb.GAME_PHASE_PLAYING

    program, *args = shlex.split(command)  # exactly the command it printed
    resumed = spawn([str(ROOT / program), *args], env)
    resumed.expect(f"game {game_id}")
    play_to_the_end(resumed)
    with TableClient(server.target) as client:
        assert client.as_viewer(game_id).view().phase == pb.GAME_PHASE_FINISHED


def test_a_person_and_bots_join_finish_a_game(server: ServerProcess, tmp_path: Path) -> None:
    env = env_for(server, tmp_path / "state")
    created = json.loads(
        subprocess.run(
            [str(BIN / "tabletop"), "create", "--players", "ann", "--json"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
    )
    game_id, token = created["game_id"], created["seats"]["0"]
    person = spawn([str(BIN / "tabletop"), "play", "--game", game_id, "--token", token], env)
    person.expect("waiting for seats 1, 2, 3")
    bots = subprocess.Popen(
        [str(BIN / "tabletop"), "bots", "--join", game_id],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        play_to_the_end(person)
        out, err = bots.communicate(timeout=120)
    finally:
        bots.kill()
    assert bots.returncode == 0, err
    assert "play seats 1, 2, 3" in out and "game over: won by" in out
    with TableClient(server.target) as client:
        view = client.as_viewer(game_id).view()
    assert view.phase == pb.GAME_PHASE_FINISHED
    assert [s.player_name for s in view.seats] == ["ann", "bot-1", "bot-2", "bot-3"]
