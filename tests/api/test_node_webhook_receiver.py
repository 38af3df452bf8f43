"""The Node example receiver (clients/node/examples/webhook-receiver) against a real server:
it verifies the server's signatures with the npm ``standardwebhooks`` package and acts on a
table's opening and its first turns; its own tests (forged, stale, repeated) pass too."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path

import pytest

from clients.python.serverproc import ServerProcess
from tests.hardening.crash import CrashRun
from tests.support.webhooks import EXAMPLE_DIR, SECRET, ensure_example_modules, write_settings


@pytest.fixture(scope="module")
def example() -> Path:
    ensure_example_modules()
    return EXAMPLE_DIR


def test_the_example_s_own_tests_pass(example: Path) -> None:
    run = subprocess.run(
        ["node", "--test", "test/"], cwd=example, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.timeout(120)
def test_the_example_verifies_and_acts_on_a_real_server_s_webhooks(
    example: Path, tmp_path: Path
) -> None:
    node = subprocess.Popen(
        ["node", "receiver.js"],
        cwd=example,
        env={"PATH": "/usr/local/bin:/usr/bin:/bin", "WEBHOOK_SECRET": SECRET, "PORT": "0"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    try:
        assert node.stderr is not None and node.stdout is not None
        port = int(node.stderr.readline().split()[-1])  # "listening on PORT"
        out = node.stdout
        threading.Thread(target=lambda: [lines.put(x) for x in out], daemon=True).start()
        hooks = write_settings(tmp_path / "webhooks.toml", f"http://127.0.0.1:{port}/")
        flags = ["--allow-prepared-deals", "--webhooks", str(hooks)]
        proc = ServerProcess(tmp_path, extra=flags).start()
        try:
            run = CrashRun(proc, lambda: None, 7, games=1, kills=0)  # type: ignore[arg-type]
            game = run.new_game(0)  # created, every seat joined: the deal starts the game
            acted: list[dict[str, object]] = []
            while {"table.opened", "seat.turn"} - {a["type"] for a in acted}:
                acted.append(json.loads(lines.get(timeout=30)))
            run.channel.close()
        finally:
            proc.cleanup()
    finally:
        node.terminate()
        node.wait(timeout=10)
    assert all(a["data"]["game_id"] == game.game_id for a in acted)  # type: ignore[index]
    turn = next(a for a in acted if a["type"] == "seat.turn")
    assert "your turn in game" in str(turn["says"])
