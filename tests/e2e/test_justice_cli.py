"""Justice from the terminal: report, vote, appeal, the arbiter's ruling and the replay of
the disputed moment as a seat saw it, all with the `tabletop` CLI against a real server."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from clients.python.client import TableClient
from clients.python.serverproc import ServerProcess
from tests.api.helpers import seated_game


def cli(target: str, *args: str) -> list[dict]:  # type: ignore[type-arg]
    out = subprocess.run(
        [sys.executable, "-m", "clients.python.cli", "--target", target, "--json", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_report_vote_appeal_rule_and_replay_as_a_seat() -> None:
    with (
        ServerProcess(extra=["--allow-prepared-deals"]) as server,
        TableClient(server.target) as client,
    ):
        game_id, seats, arbiter = seated_game(client, seed=60, arbitrated=True)
        arbiter = client.arbiter_credential(arbiter)  # TOKEN:KEYHEX: the arbiter signs
        v = client.as_viewer(game_id).view().version
        t = server.target
        reported = cli(
            t,
            "report",
            game_id,
            "--token",
            seats[0].credential,
            "--accused",
            "1",
            "--violation",
            "OTHER",
            "--evidence",
            str(v),
            "--penalty",
            "WARNING",
        )
        case = int(reported[0]["version"])
        assert client.as_viewer(game_id).view().paused
        cli(t, "vote", game_id, "--token", seats[2].credential, "--case", str(case), "--uphold")
        cli(t, "vote", game_id, "--token", seats[3].credential, "--case", str(case), "--uphold")
        # 其他违规 is upheld only when every voter confirms it, the accused included
        voted = cli(
            t, "vote", game_id, "--token", seats[1].credential, "--case", str(case), "--uphold"
        )
        assert any("UPHELD" in e["text"] for e in voted)
        appealed = cli(
            t,
            "appeal",
            game_id,
            "--token",
            seats[1].credential,
            "--case",
            str(case),
            "--reason",
            "I was thinking",
        )
        appeal_case = int(appealed[0]["version"])
        ruled = cli(t, "rule", game_id, "--token", arbiter, "--case", str(appeal_case), "--reject")
        assert any("REJECTED" in e["text"] for e in ruled)
        view = client.as_viewer(game_id).view()
        assert list(view.violations) == [0, 1, 0, 0] and not view.paused
        as_seat = cli(
            t, "replay", game_id, "--token", arbiter, "--version", str(v), "--as-seat", "2"
        )
        step = as_seat if isinstance(as_seat, dict) else as_seat[0]
        assert step["view"]["role"] == "ROLE_SEAT" and step["view"]["seat"] == 2
        shown = [len(s.get("cards", [])) for s in step["view"]["huaniao"]["seats"]]
        assert shown[2] > 0 and shown[0] == shown[1] == shown[3] == 0, "only seat 2's cards"
