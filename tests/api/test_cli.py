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
    from clients.python.render import coloured

    text = coloured("seat 0 诵 鸟+鸟+风 (5) 「风过秋思追」", "huaniao")
    styled = {text.plain[s.start : s.end] for s in text.spans}
    assert styled == {"鸟", "风"}
    spans = [(text.plain[s.start : s.end], s.start) for s in text.spans]
    assert all(start < text.plain.index("「") for _, start in spans), "the verse stays plain"
    zipai = coloured("seat 1 was dealt 二四贰拾", "zipai")
    assert {str(s.style) for s in zipai.spans} >= {"red", "white", "bold red"}


def test_options_work_after_the_command_and_from_the_environment(
    server: ServerProcess,
    game: dict,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[type-arg]
) -> None:
    gid = game["game_id"]
    after = json.loads(run(capsys, "view", gid, "--target", server.target, "--json"))
    assert after["game_id"] == gid
    monkeypatch.setenv("TABLETOP_TARGET", server.target)
    monkeypatch.setenv("TABLETOP_JSON", "1")
    assert json.loads(run(capsys, "view", gid))["game_id"] == gid


def test_a_bad_value_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        cli.main(["play", "--mode", "basc"])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'basc' is not one of" in err[0] and "Traceback" not in err[0]


def test_every_option_shows_its_environment_variable(capsys: pytest.CaptureFixture[str]) -> None:
    import re

    for command in ("play", "replay", "bots", "create", "watch", "report"):
        cli.main([command, "--help"])
        out = capsys.readouterr().out.split("Options:")[1]
        options = [
            ln for ln in out.splitlines() if re.match(r"  (-\w, )?--", ln)
        ]  # not wrapped text
        options = [o for o in options if "--help" not in o]
        assert re.sub(r"\s+", " ", out).count("env var:") == len(options), command
        assert "TABLETOP_TARGET" in out


def test_replay_diff_full_and_past_the_end(
    server: ServerProcess,
    game: dict,
    capsys: pytest.CaptureFixture[str],  # type: ignore[type-arg]
) -> None:
    t = ["--target", server.target, "-q"]
    gid = game["game_id"]
    diff = run(capsys, *t, "replay", gid, "--from", "6", "--to", "7")
    full = run(capsys, *t, "replay", gid, "--version", "7", "--full")
    assert "version 7 of" in diff and "→" in diff and "seats" not in diff
    assert "seats" in full
    with pytest.raises(SystemExit) as e:
        cli.main([*t, "replay", gid, "--version", "999"])
    assert e.value.code == 1
    assert "past the end" in capsys.readouterr().err


def test_create_prints_and_saves_every_token(
    server: ServerProcess, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "tokens.json"
    out = run(
        capsys,
        "--target",
        server.target,
        "create",
        "--players",
        "a,b,c,d",
        "--tokens-file",
        str(path),
    )
    saved = json.loads(path.read_text())
    assert saved["arbiter_token"] in out and len(saved["seats"]) == 4
    assert all(t in out for t in saved["seats"].values())


def test_verify_reads_both_export_forms(
    server: ServerProcess,
    game: dict,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,  # type: ignore[type-arg]
) -> None:
    from clients.python import audit

    gid = game["game_id"]
    mine = tmp_path / "tabletop-export.jsonl"
    run(capsys, "--target", server.target, "-q", "export", gid, "-o", str(mine))
    canonical = tmp_path / "audit-export.jsonl"
    audit.main(["export", gid, "--target", server.target, "-o", str(canonical)])
    for path in (mine, canonical):
        audit.main(["verify", "--file", str(path), "--target", server.target])
        out = capsys.readouterr().out
        assert out.startswith("verified:") and "moves" in out, out
    reformatted = tmp_path / "pretty.jsonl"
    reformatted.write_text(
        "\n".join(json.dumps(json.loads(ln)) for ln in canonical.read_text().splitlines())
    )
    audit.main(["verify", "--file", str(reformatted), "--target", server.target])
    assert capsys.readouterr().out.startswith("verified:")
    with pytest.raises(SystemExit):
        audit.main(["verify", "--file", str(tmp_path / "pretty.jsonl"), "extra-game-id"])
