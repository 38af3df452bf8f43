"""The referee's console in a real browser: a replay file stepped through version by version,
a seat's page searched for other seats' cards, and the live page following a game."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient
from clients.python.play import game_options
from clients.python.replay_html import write_replay_page
from clients.python.seat import SeatClient
from clients.python.serverproc import ServerProcess
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import card_ids, seated_game
from tests.browser.pages import expected, page_data, shown
from tests.support.browser import screenshot

pytestmark = pytest.mark.xdist_group("browser")
PHRASE = "風過無痕，月照無意"


def press(browser: Any, key: str) -> None:
    ActionChains(browser).send_keys(key).perform()


def retract_last_move(client: TableClient, game_id: str, seats: list[SeatClient]) -> int:
    """The leader plays its opening and takes it back (误操作): a justice event."""
    mover = seats[client.as_viewer(game_id).view().to_act[0]]
    legal = mover.legal_moves()
    play = next(
        m
        for m in legal.moves
        if m.WhichOneof("game") == "huaniao" and m.huaniao.WhichOneof("kind") == "play"
    )
    mover.play(play, legal.version)
    version = mover.view().version
    undo = pb.Move(table=pb.TableCommand(retract=pb.Retract(phrase=PHRASE)))
    return mover.play(undo, version).version


def new_game(client: TableClient, kind: str, seed: int) -> tuple[str, list[SeatClient], str]:
    if kind == "huaniao":
        return seated_game(client, seed=seed)
    created = client.create_game(game_options("zipai", ""), 3, seed=seed)
    seats = [client.join(created.game_id, s, f"z{s}", contribution="") for s in range(3)]
    seats[0].start()
    return created.game_id, seats, created.arbiter_token


@pytest.mark.parametrize("kind", ["huaniao", "zipai"])
def test_stepping_a_finished_game_shows_what_each_seat_saw(
    client: TableClient, browser: Any, tmp_path: Path, kind: str
) -> None:
    game_id, seats, _ = new_game(client, kind, seed=31)
    bots = [RandomBot(s, 100 + i) for i, s in enumerate(seats)]
    retracted_at = retract_last_move(client, game_id, seats) if kind == "huaniao" else None
    play_to_end(bots)
    spectator = client.as_viewer(game_id)  # no token: after the end every viewpoint is open
    page = tmp_path / "replay.html"
    write_replay_page(page, game=spectator)
    data = page_data(page.read_text(encoding="utf-8"))
    keys = [v["key"] for v in data["viewers"]]
    assert keys == ["arbiter", *(f"seat-{s}" for s in range(len(seats))), "spectator"]
    chosen = 2
    api = list(spectator.replay(as_seat=chosen))
    browser.get(page.as_uri())
    Select(browser.find_element(By.ID, "viewer")).select_by_value(f"seat-{chosen}")
    browser.find_element(By.TAG_NAME, "body").click()
    press(browser, Keys.HOME)
    dealt_seen = False
    for i, step in enumerate(api):
        if i:
            press(browser, Keys.ARROW_RIGHT)
        now = shown(browser)
        assert now["version"] == step.view.version and now["slider"] == i
        assert now["viewer"] == f"seat-{chosen}"
        want = expected(step.view) if step.view.WhichOneof("game") else None
        if want is None:
            assert now["everywhere"] == [], f"v{now['version']}: no card before the deal"
            continue
        assert {k: sorted(set(v)) for k, v in now["seats"].items()} == want["seats"], now["version"]
        assert sorted(set(now["board"])) == want["board"], f"v{now['version']}: the table"
        assert now["backs"] == want["backs"], f"v{now['version']}: face-down hands"
        fact = getattr(step.event, kind)
        if fact.WhichOneof("kind") == "dealt" and fact.dealt.seat == chosen:
            # the change is highlighted: the dealt cards are new in the seat's hand
            assert sorted(now["fresh"][str(chosen)]) == want["seats"][str(chosen)]
            dealt_seen = True
            screenshot(browser, f"console-{kind}-dealt")
    assert dealt_seen, "the chosen seat's deal was shown"
    now = shown(browser)
    if retracted_at is not None:
        assert retracted_at in now["markers"], "the 误操作 is marked on the timeline"
    justice = [s.view.version for s in api if s.event.table.WhichOneof("kind") in JUSTICE]
    end = next(s.view.version for s in api if s.view.HasField("outcome"))
    assert sorted(now["markers"]) == sorted([*justice, end])
    assert "验证: 已验证" in now["verify"] and "哈希链" in now["verify"]
    press(browser, Keys.ARROW_LEFT)
    assert shown(browser)["version"] == api[-2].view.version, "← steps back"
    screenshot(browser, f"console-{kind}-end")


JUSTICE = {
    "move_retracted",
    "violation_reported",
    "appeal_filed",
    "vote_cast",
    "arbiter_ruled",
    "case_closed",
    "penalty_applied",
    "penalty_revoked",
    "game_redealt",
    "turn_timed_out",
    "attempt_refereed",
}


@pytest.mark.parametrize("kind", ["huaniao", "zipai"])
def test_a_seat_page_holds_no_other_seats_hidden_card(
    client: TableClient, browser: Any, tmp_path: Path, kind: str
) -> None:
    """Mid-game, the arbiter makes seat 1's page (as_seat): seat 1's views only, and no card
    the API never showed seat 1 anywhere in the DOM at any version, nor in the page."""
    game_id, seats, arbiter_token = new_game(client, kind, seed=32)
    bots = [RandomBot(s, 200 + i) for i, s in enumerate(seats)]
    for _ in range(6):
        for bot in bots:
            bot.step()
    arbiter = client.as_viewer(game_id, arbiter_token)
    assert arbiter.view().phase == pb.GAME_PHASE_PLAYING
    page = tmp_path / "seat1.html"
    write_replay_page(page, game=arbiter, as_seat=1)
    html = page.read_text(encoding="utf-8")
    data = page_data(html)
    assert [v["key"] for v in data["viewers"]] == ["seat-1"], "only the seat's own views"
    assert data["prepared_deal"] is None and data["verify"]["status"] == "not yet"
    seen_by_seat: set[int] = set()
    for step in arbiter.replay(as_seat=1):
        seen_by_seat |= card_ids(step)
    # every card the arbiter sees now (other hands, face-down 拢 cards, the deck or stock)
    # that the API never showed seat 1 (a card it gave away is no secret to it)
    hidden = card_ids(arbiter.view()) - seen_by_seat
    assert hidden, "other seats hold cards seat 1 never saw"
    embedded: set[int] = set()
    for step in data["viewers"][0]["steps"]:
        embedded |= _ids(step)
    assert embedded <= seen_by_seat and not embedded & hidden, "the page embeds only seat 1's"
    browser.get(page.as_uri())
    options = browser.find_elements(By.CSS_SELECTOR, "#viewer option")
    assert [o.get_attribute("value") for o in options] == ["seat-1"]
    browser.find_element(By.TAG_NAME, "body").click()
    press(browser, Keys.HOME)
    in_dom: set[int] = set()
    for i in range(len(data["viewers"][0]["steps"])):
        if i:
            press(browser, Keys.ARROW_RIGHT)
        in_dom |= set(shown(browser)["everywhere"])
    assert in_dom and not in_dom & hidden, "no hidden card of another seat in the DOM"
    assert in_dom <= seen_by_seat
    screenshot(browser, f"console-{kind}-seat-page")


def _ids(data: Any) -> set[int]:
    """Card ids inside the page's JSON: every object shaped like a card."""
    found: set[int] = set()
    if isinstance(data, list):
        for item in data:
            found |= _ids(item)
    elif isinstance(data, dict):
        if "kind" in data and str(data["kind"]).startswith("CARD_KIND_") or "rank" in data:
            found.add(int(data.get("id", 0)))
        for value in data.values():
            found |= _ids(value)
    return found


def test_a_live_page_follows_the_game_as_it_is_played(
    server: ServerProcess, client: TableClient, browser: Any, tmp_path: Path
) -> None:
    game_id, seats, _ = seated_game(client, seed=33)
    spectator = client.as_viewer(game_id)
    browser.get(f"http://127.0.0.1:{server.http_port}/games/{game_id}")
    bots = [RandomBot(s, 300 + i) for i, s in enumerate(seats)]
    checked = 0
    while True:
        view = spectator.view()
        WebDriverWait(browser, 20).until(lambda b, v=view.version: shown(b)["version"] == v)
        now = shown(browser)
        want = expected(view)
        assert {k: sorted(set(v)) for k, v in now["seats"].items()} == want["seats"]
        assert sorted(set(now["board"])) == want["board"] and now["backs"] == want["backs"]
        checked += 1
        if checked == 3:
            screenshot(browser, "console-live")
        if view.HasField("outcome"):
            break
        for _ in range(2):
            play_step(bots, spectator)
    WebDriverWait(browser, 20).until(
        lambda b: b.find_element(By.ID, "live").get_attribute("data-state") == "ended"
    )
    assert browser.find_element(By.ID, "live").text == "终局"
    # after the end the verify line says how the game is verified, and the deal is known
    # (every view carries its deal source): no "live", no "not known to this viewer"
    verify = browser.find_element(By.ID, "verify")
    status = browser.find_element(By.ID, "verify-status")
    assert status.get_attribute("data-status") == "finished"
    # the command runs as shown, from any folder (issue 37 point 3: not the bare name)
    command = status.text.split(" — 用 ", 1)[1].rsplit(" 验证", 1)[0]
    assert command.endswith(f"-m clients.python.audit verify {game_id} --target {server.target}")
    done = subprocess.run(
        command,
        shell=True,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, (command, done.stdout, done.stderr)
    assert "finished" in (status.get_attribute("title") or "")
    assert "直播" not in verify.text and "live" not in verify.text
    deal = browser.find_element(By.ID, "deal")
    assert "此视角不可知" not in deal.text and "unknown" not in (deal.get_attribute("class") or "")
    assert deal.text == "发牌: 指定种子", "a seeded table's deal is a prepared one (a seed)"
    assert checked > 3, "the page followed several moves"
    screenshot(browser, "console-live-end")


def play_step(bots: list[RandomBot], spectator: SeatClient) -> None:
    view = spectator.view()
    if view.HasField("outcome"):
        return
    for seat in view.to_act:
        bots[seat].step()
    time.sleep(0.05)
