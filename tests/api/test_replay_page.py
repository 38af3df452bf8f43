"""The replay page's data: what each viewer's steps hold, from the server and from an export,
and the two commands that write it (the browser tests look at the page itself)."""

from __future__ import annotations

import base64
import hashlib
import re
import subprocess
import sys
from pathlib import Path

from clients.python.audit_verify import parse_lines
from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient
from clients.python.exports import export_lines
from clients.python.replay_html import write_replay_page
from clients.python.serverproc import ServerProcess
from domain.engine import ARBITER, SPECTATOR, Viewer
from server.wire import page as web
from server.wire.offline import replay_records
from tests.api.helpers import seated_game
from tests.browser.pages import page_data


def finished_game(client: TableClient, seed: int) -> tuple[str, str]:
    game_id, seats, arbiter = seated_game(client, seed=seed)
    play_to_end([RandomBot(s, seed + i) for i, s in enumerate(seats)])
    return game_id, arbiter


def test_an_export_renders_exactly_as_the_server_replays_it(client: TableClient) -> None:
    """The page made from a file shows what the Replay RPC shows each viewer, times
    included (an export keeps them; only the game id is left out)."""
    game_id, _ = finished_game(client, seed=51)
    anyone = client.as_viewer(game_id)
    records = parse_lines(export_lines(anyone.history()))
    viewers = [ARBITER, SPECTATOR, *(Viewer.of_seat(s) for s in range(4))]
    offline = replay_records(records, viewers)
    for viewer in viewers:
        ask = {"as_arbiter": True} if viewer == ARBITER else {}
        if viewer.seat is not None:
            ask = {"as_seat": viewer.seat}
        served = list(anyone.replay(**ask))  # type: ignore[arg-type]
        assert len(served) == len(offline[viewer]) == len(records)
        for got, want in zip(offline[viewer], served, strict=True):
            want.view.ClearField("game_id")
            assert got == want, f"{viewer} v{want.view.version}"


def test_a_finished_game_page_has_every_viewpoint_and_the_verify_result(
    client: TableClient, tmp_path: Path
) -> None:
    game_id, _ = finished_game(client, seed=52)
    page = tmp_path / "p.html"
    summary = write_replay_page(page, game=client.as_viewer(game_id))
    assert "verify verified" in summary
    data = page_data(page.read_text(encoding="utf-8"))
    assert [v["key"] for v in data["viewers"]] == [
        "arbiter",
        "seat-0",
        "seat-1",
        "seat-2",
        "seat-3",
        "spectator",
    ]
    assert data["verify"]["status"] == "verified"
    # a seeded table: its deal is a prepared one, by a seed (issue 29: it read "shuffled")
    assert data["prepared_deal"] is True and data["deal_source"] == "DEAL_SOURCE_PREPARED_SEED"
    assert data["verify"]["report"]["events"] == len(data["viewers"][0]["steps"])
    served = list(client.as_viewer(game_id).replay(as_seat=3))
    steps = data["viewers"][4]["steps"]
    assert steps == [web.step(s.view.version, s.event, s.view) for s in served]


def test_a_running_game_page_shows_only_what_its_caller_may_see(
    client: TableClient, tmp_path: Path
) -> None:
    game_id, seats, arbiter = seated_game(client, seed=53)
    bots = [RandomBot(s, i) for i, s in enumerate(seats)]
    for _ in range(4):
        for seat in client.as_viewer(game_id).view().to_act:
            bots[seat].step()
    pages = {
        "seat": (seats[2], None),
        "spectator": (client.as_viewer(game_id), None),
        "arbiter": (client.as_viewer(game_id, arbiter), None),
        "as-seat": (client.as_viewer(game_id, arbiter), 2),
    }
    found = {}
    for name, (who, as_seat) in pages.items():
        write_replay_page(tmp_path / f"{name}.html", game=who, as_seat=as_seat)
        found[name] = page_data((tmp_path / f"{name}.html").read_text(encoding="utf-8"))
    assert [v["key"] for v in found["seat"]["viewers"]] == ["seat-2"]
    assert [v["key"] for v in found["spectator"]["viewers"]] == ["spectator"]
    assert [v["key"] for v in found["arbiter"]["viewers"]][:2] == ["arbiter", "seat-0"]
    assert found["as-seat"]["viewers"] == found["seat"]["viewers"], "as_seat == the seat's own"
    for name in ("seat", "spectator", "as-seat", "arbiter"):  # the arbiter too: no secret
        assert found[name]["prepared_deal"] is None, "the record is nobody's to see yet"
        assert found[name]["verify"]["status"] == "not yet"


def test_the_commands_write_the_page_from_the_server_and_from_an_export(
    server: ServerProcess, client: TableClient, tmp_path: Path
) -> None:
    game_id, _ = finished_game(client, seed=54)
    run = [sys.executable, "-m"]
    replay_page, export, audit_page = (tmp_path / n for n in ("r.html", "e.jsonl", "a.html"))
    cli = [*run, "clients.python.cli", "--target", server.target, "-q"]
    subprocess.run([*cli, "replay", game_id, "--html", str(replay_page)], check=True)
    audit = [*run, "clients.python.audit", "--target", server.target]
    subprocess.run([*audit, "export", game_id, "-o", str(export)], check=True)
    verified = subprocess.run(
        [*audit, "verify", "--file", str(export), "--html", str(audit_page)],
        capture_output=True,
        text=True,
    )
    assert verified.returncode == 0, verified.stderr
    assert "verified:" in verified.stdout and "wrote" in verified.stderr
    from_server = page_data(replay_page.read_text(encoding="utf-8"))
    from_file = page_data(audit_page.read_text(encoding="utf-8"))
    assert from_file["verify"]["status"] == from_server["verify"]["status"] == "verified"
    assert len(from_file["viewers"]) == len(from_server["viewers"]) == 6
    html = audit_page.read_text(encoding="utf-8")
    assert "connect-src 'none'" in html and "src=" not in html, "no network, nothing to load"
    assert_one_script_by_its_hash(html)
    # a tampered export: the page still shows the record, with the verifier's finding on top
    lines = export.read_text(encoding="utf-8").splitlines(keepends=True)
    at = lines[20].index('"hash":"') + len('"hash":"')  # one hex digit changed: still a hash
    lines[20] = lines[20][:at] + ("1" if lines[20][at] == "0" else "0") + lines[20][at + 1 :]
    tampered = tmp_path / "t.jsonl"
    tampered.write_text("".join(lines), encoding="utf-8")
    failed = subprocess.run(
        [*audit, "verify", "--file", str(tampered), "--html", str(audit_page)],
        capture_output=True,
        text=True,
    )
    assert failed.returncode == 1 and "VERIFY FAILED" in failed.stderr
    shown = page_data(audit_page.read_text(encoding="utf-8"))["verify"]
    assert shown["status"] == "failed" and "chain hash mismatch" in shown["message"]
    # an export the grammar refuses (a 65-digit hash) writes no page, and leaves no old one
    lines[20] = lines[20].replace('"hash":"', '"hash":"0', 1)
    tampered.write_text("".join(lines), encoding="utf-8")
    unreadable = subprocess.run(
        [*audit, "verify", "--file", str(tampered), "--html", str(audit_page)],
        capture_output=True,
        text=True,
    )
    assert unreadable.returncode == 1 and "VERIFY FAILED" in unreadable.stderr
    assert not audit_page.exists(), "a page from an earlier run still stands"


def assert_one_script_by_its_hash(html: str) -> None:
    """The page runs one script, the console's bundle (clients/web/dist/console.js) inlined,
    and its Content-Security-Policy allows exactly that script, by its sha256: no
    'unsafe-inline', so nothing injected into the page could run."""
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', html)
    assert csp, "the page carries its policy"
    script_src = next(d for d in csp.group(1).split(";") if d.strip().startswith("script-src"))
    assert "unsafe-inline" not in script_src and "'self'" not in script_src, script_src
    scripts = re.findall(r"<script>(.*?)</script>", html, re.S)
    assert len(scripts) == 1, "one executable script (the data is application/json)"
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode("utf-8")).digest()).decode()
    assert script_src.split() == ["script-src", f"'sha256-{digest}'"]
    bundle = (web.BUNDLE / "console.js").read_text(encoding="utf-8")
    assert len(scripts[0]) > 10_000 and scripts[0].strip()[:200] == bundle.strip()[:200], (
        "the shared front end's console bundle"
    )
