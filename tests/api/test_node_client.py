"""The Node.js client (clients/node) against a real server, with Python bots in the same game.

The harness opens a 基本-mode 花鸟风月 table, seats Python RandomBots at seats 2 and 3 and
plays them from a thread, then runs ``clients/node/run-tests.sh``; its game test takes seats
0 and 1, starts the game and plays them. Both languages act in one game, and every seat
commits and reveals its contribution. The other Node tests (resuming a dropped Watch,
decoding rich errors, the deal test vectors) run in the same invocation. Then Node's
``bin/deal-check.js`` recomputes the deals of two real exports: the shared game, and a
川南字牌 game whose last seat withholds its reveal (and a tampered copy must fail).

Node.js and npm are required: without them this test fails, it never skips.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

import grpc
import pytest

from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient
from clients.python.exports import export_lines
from clients.python.seat import SeatClient
from clients.python.serverproc import ServerProcess
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.zipai.v1 import zipai_pb2
from tests.api.helpers import huaniao_options
from tests.support.nodejs import ensure_node_modules

NODE_DIR = Path(__file__).resolve().parents[2] / "clients" / "node"
RUN_TESTS = NODE_DIR / "run-tests.sh"
PY_SEATS = (2, 3)
NODE_SEATS = (0, 1)


class PythonSeats(threading.Thread):
    """Plays the Python seats of a shared table until the game ends (or ``stop`` is set)."""

    def __init__(self, seats: list[SeatClient], deadline: float) -> None:
        super().__init__(name="python-bots", daemon=True)
        self.bots = {s.seat: RandomBot(s, seed=40 + (s.seat or 0)) for s in seats}
        self.viewer = seats[0]
        self.deadline = deadline
        self.stop = threading.Event()
        self.seats = seats
        self.revealed = False
        self.moves = 0
        self.error: BaseException | None = None
        self.finished = False

    def run(self) -> None:
        try:
            while not self.stop.is_set() and time.monotonic() < self.deadline:
                view = self.viewer.view()
                if view.phase == pb.GAME_PHASE_FINISHED:
                    self.finished = True
                    return
                acted = False
                if not self.revealed and all(s.taken for s in view.seats):
                    for seat in self.seats:  # every seat has committed: reveal ours
                        seat.reveal()
                    self.revealed = True
                if view.phase == pb.GAME_PHASE_PLAYING:
                    for seat in view.to_act:
                        if seat in self.bots and self.bots[seat].step():
                            self.moves += 1
                            acted = True
                if not acted:
                    time.sleep(0.005)
        except grpc.RpcError as err:
            self.error = err
        except Exception as err:  # reported by the test
            self.error = err


def _need(tool: str) -> str:
    path = shutil.which(tool)
    assert path, f"{tool} is required for the Node client tests (install Node.js 18+ and npm)"
    return path


@pytest.mark.timeout(300)
def test_node_client_plays_with_python_bots_resumes_and_decodes_errors(tmp_path: Path) -> None:
    _need("node")
    _need("npm")
    assert RUN_TESTS.exists(), RUN_TESTS
    ensure_node_modules()  # and the verifier's words (clients/node/gen/words.json)
    # a server as deployed (no prepared deals), with a short reveal window for the game below
    # in which a seat withholds its reveal
    flags = ["--reveal-timeout", str(REVEAL_TIMEOUT)]
    with (
        ServerProcess(tmp_path / "server", extra=flags) as server,
        TableClient(server.target) as client,
    ):
        created = client.create_game(huaniao_options("BASIC"), 4)
        game_id = created.game_id
        python_seats = [client.join(game_id, s, f"py-{s}") for s in PY_SEATS]
        bots = PythonSeats(python_seats, deadline=time.monotonic() + 240)
        bots.start()
        env = {
            **os.environ,
            "TABLETOP_TARGET": server.target,
            "TABLETOP_MIXED_GAME": game_id,
            "TABLETOP_NODE_SEATS": ",".join(map(str, NODE_SEATS)),
        }
        started = time.monotonic()
        try:
            run = subprocess.run(
                ["bash", str(RUN_TESTS)],
                cwd=NODE_DIR,
                env=env,
                capture_output=True,
                text=True,
                timeout=240,
                stdin=subprocess.DEVNULL,
            )
        finally:
            bots.join(timeout=30)
            bots.stop.set()
        elapsed = time.monotonic() - started
        output = run.stdout + run.stderr
        assert run.returncode == 0, f"node tests failed ({elapsed:.1f}s):\n{output[-8000:]}"

        # The Node runner really ran the tests, and none failed or was skipped.
        counts = {
            k: int(v)
            for k, v in re.findall(r"^\S*\s*(tests|pass|fail|skipped) (\d+)$", output, re.M)
        }
        assert counts.get("fail") == 0 and counts.get("skipped") == 0, output[-4000:]
        assert counts.get("pass", 0) >= 7 and counts["pass"] == counts["tests"], output[-4000:]
        assert f"NODE_GAME game={game_id}" in output, "the Node bots played the shared game"

        # Both languages acted in the same, finished game.
        assert bots.error is None, f"python bots failed: {bots.error!r}"
        assert bots.finished, "the python bots saw the game end"
        assert bots.moves > 0, "the python seats played"
        view = client.as_viewer(game_id).view()
        assert view.phase == pb.GAME_PHASE_FINISHED
        names = {s.seat: s.player_name for s in view.seats}
        assert names == {0: "node-0", 1: "node-1", 2: "py-2", 3: "py-3"}

        # The Node implementation recomputes the deals of real exports: the shared game
        # (every seat revealed) and a 川南字牌 game whose last seat committed to nothing.
        assert deal_check(tmp_path / "mixed.jsonl", client, game_id).startswith(
            "deal verified: huaniao, 4 seats, 4 reveals, 1 deck(s) recomputed"
        )
        no_entropy = zipai_game_with_a_seat_adding_nothing(client)
        line = deal_check(tmp_path / "zipai.jsonl", client, no_entropy)
        assert line.startswith("deal verified: zipai, 3 seats, 2 reveals"), line
        assert "every deal from every seat's entropy (seat 2 added no entropy)" in line
        # and a tampered export fails in Node too: one card of the first deck moved
        lines = (tmp_path / "zipai.jsonl").read_text().splitlines()
        i, rec = next((i, json.loads(x)) for i, x in enumerate(lines) if '"GameStarted"' in x)
        deck = rec["fact"]["data"]["deck"]
        deck[0], deck[1] = deck[1], deck[0]
        lines[i] = json.dumps(rec)
        (tmp_path / "tampered.jsonl").write_text("\n".join(lines) + "\n")
        check = run_deal_check(tmp_path / "tampered.jsonl")
        assert check.returncode == 1 and "first deck" in check.stderr, check


REVEAL_TIMEOUT = 3.0  # seconds; long enough for the shared game's seats to reveal in


def zipai_game_with_a_seat_adding_nothing(client: TableClient) -> str:
    """Python bots play a 3-seat 川南字牌 game whose seat 2 commits to nothing (its own
    choice: named in every verify line)."""
    created = client.create_game(ZIPAI, 3)
    seats = [client.join(created.game_id, s, f"z{s}", "" if s == 2 else None) for s in range(3)]
    for seat in seats:
        seat.reveal()
    seats[0].start()
    play_to_end([RandomBot(s, 60 + i) for i, s in enumerate(seats)])
    return created.game_id


ZIPAI = pb.GameOptions(
    zipai=zipai_pb2.Options(
        variant=zipai_pb2.VARIANT_LUZHOU,
        dealer_rule=zipai_pb2.DEALER_RULE_WINNER,
        scoring=zipai_pb2.SCORING_PROFILE_LUZHOU,
    )
)


def run_deal_check(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_need("node"), str(NODE_DIR / "bin" / "deal-check.js"), str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def deal_check(path: Path, client: TableClient, game_id: str) -> str:
    """Export a finished game as `tabletop-audit export` does and check it with Node."""
    path.write_text(
        "".join(line + "\n" for line in export_lines(client.as_viewer(game_id).history()))
    )
    check = run_deal_check(path)
    assert check.returncode == 0, check.stdout + check.stderr
    return check.stdout.strip()
