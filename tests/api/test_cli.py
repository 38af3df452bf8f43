"""The `tabletop` CLI against a real server: --json for scripts, rich tables for people."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clients.python import cli
from clients.python.serverproc import ServerProcess


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    cli.main(list(argv))
    return capsys.readouterr().out


@pytest.fixture(scope="module")
def game(server: ServerProcess) -> dict:  # type: ignore[type-arg]
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cli.main(["--target", server.target, "--json", "-q", "bots", "--games", "2", "--seed", "5"])
    summary = json.loads(out.getvalue())
    assert len(summary["games"]) == 2 and summary["moves"] > 0
    return summary["games"][0]  # type: ignore[no-any-return]


def test_bots_json_summary(game: dict) -> None:  # type: ignore[type-arg]
    assert game["winners"] and game["reason"] and game["version"] > game["moves"]


def test_zipai_bots(server: ServerProcess, capsys: pytest.CaptureFixture[str]) -> None:
    out = run(
        capsys,
        "--target",
        server.target,
        "-q",
        "bots",
        "--kind",
        "zipai",
        "--seats",
        "3",
        "--seed",
        "2",
        "--json",
    )
    assert json.loads(out)["games"][0]["reason"]


def test_view_history_export_and_replay_as_json(
    server: ServerProcess,
    game: dict,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,  # type: ignore[type-arg]
) -> None:
    t = ["--target", server.target, "--json", "-q"]
    gid = game["game_id"]
    view = json.loads(run(capsys, *t, "view", gid))
    assert view["phase"] == "GAME_PHASE_FINISHED" and view["game_id"] == gid
    past = json.loads(run(capsys, *t, "view", gid, "--version", "7"))
    assert past["version"] == "7"
    history = json.loads(run(capsys, *t, "history", gid))
    assert [int(e["version"]) for e in history] == list(range(1, game["version"] + 1))
    target = tmp_path / "game.jsonl"
    run(capsys, *t, "export", gid, "-o", str(target))
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert len(lines) == game["version"] + 1 and "view" in lines[-1]
    step = json.loads(run(capsys, *t, "replay", gid, "--version", "6"))
    assert step["version"] == 6 and step["event"]["version"] == "6"
    streamed = run(capsys, *t, "watch", gid).splitlines()
    assert [int(json.loads(line)["version"]) for line in streamed] == list(
        range(1, game["version"] + 1)
    )
    health = json.loads(run(capsys, "--target", server.target, "health", "--json"))
    assert health["status"] == "SERVING"


def test_tables_for_people(
    server: ServerProcess,
    game: dict,
    capsys: pytest.CaptureFixture[str],  # type: ignore[type-arg]
) -> None:
    t = ["--target", server.target, "-q"]
    gid = game["game_id"]
    view = run(capsys, *t, "view", gid)
    assert "seats" in view and "finished" in view and "bot-0" in view
    assert "table opened" in run(capsys, *t, "history", gid)
    replay = run(capsys, *t, "replay", gid, "--all")
    assert f"version {game['version']} of {game['version']}" in replay


def test_errors_exit_non_zero(server: ServerProcess, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        cli.main(["--target", server.target, "--json", "view", "not-a-game"])
    assert e.value.code == 1
    assert json.loads(capsys.readouterr().out)["error"] == "INVALID_ARGUMENT"


def test_card_names_are_coloured() -> None:
    text = cli.coloured("seat 0 诵 鸟+鸟+风 (5) 「风过秋思追」", "huaniao")
    styled = {text.plain[s.start : s.end] for s in text.spans}
    assert styled == {"鸟", "风"}
    spans = [(text.plain[s.start : s.end], s.start) for s in text.spans]
    assert all(start < text.plain.index("「") for _, start in spans), "the verse stays plain"
    zipai = cli.coloured("seat 1 was dealt 二四贰拾", "zipai")
    assert {str(s.style) for s in zipai.spans} >= {"red", "white", "bold red"}
