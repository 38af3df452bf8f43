"""The referee page passes axe-core (issue 29): no serious or critical accessibility violation,
colour contrast included, on the HTML replay of a finished 川南字牌 game and of a 花鸟风月 game
(at the deal, mid-game, at a justice case and at the end, in both languages) and on the live
viewer page while a game is played and after it ends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from clients.python.bot import RandomBot
from clients.python.client import TableClient
from clients.python.replay_html import write_replay_page
from clients.python.serverproc import ServerProcess
from tests.api.helpers import seated_game
from tests.browser.pages import page_data, shown
from tests.browser.test_console import play_step
from tests.browser.test_page_words import (
    finished_huaniao,
    finished_zipai,
    go_to,
    judged_huaniao,
)
from tests.support.axe import axe_violations, format_violations
from tests.support.browser import screenshot

pytestmark = pytest.mark.xdist_group("browser")


def assert_clean(browser: Any, where: str) -> None:
    found = axe_violations(browser)
    if found:
        screenshot(browser, f"axe-{where.replace(' ', '-')}")
    assert not found, format_violations(found, where)


def test_the_checker_finds_a_violation(browser: Any, tmp_path: Path) -> None:
    """axe runs and reports: grey on grey text and an unlabelled input are caught."""
    page = tmp_path / "bad.html"
    page.write_text(
        "<!doctype html><html><head><title>x</title></head><body><main>"
        '<p style="color:#ccc;background:#ddd">淡色的字, pale words</p><input type="text"></main></body></html>',
        encoding="utf-8",
    )
    browser.get(page.as_uri())
    ids = {v["id"] for v in axe_violations(browser)}
    assert {"color-contrast", "label"} <= ids, ids


def set_language(browser: Any, lang: str) -> None:
    """The page's 中文/English toggle, pressed until the page speaks ``lang``."""
    if browser.execute_script("return document.body.dataset.lang") != lang:
        browser.find_element(By.ID, "lang").click()
    assert browser.execute_script("return document.body.dataset.lang") == lang


@pytest.mark.parametrize("kind", ["zipai", "huaniao", "cases"])
def test_the_replay_page_has_no_serious_violation(
    client: TableClient, browser: Any, tmp_path: Path, kind: str
) -> None:
    """At the first version, mid-game, the first fact of each kind the table recorded (the
    seating, the deal, each kind of report, ruling, appeal, vote and penalty), the win and
    the end; as the arbiter and as a seat; in Chinese and in English, with the help open."""
    if kind == "zipai":
        game_id = finished_zipai(client)
    else:
        game_id = finished_huaniao(client) if kind == "huaniao" else judged_huaniao(client)[0]
    page = tmp_path / f"{kind}.html"
    write_replay_page(page, game=client.as_viewer(game_id))
    steps = page_data(page.read_text(encoding="utf-8"))["viewers"][0]["steps"]
    versions = [s["version"] for s in steps]
    # the first step of each kind of table fact: the deal, and every kind of justice fact
    # (why: the first six table facts were all the seating, so no case was ever checked)
    marked: dict[str, int] = {}
    for s in steps:
        table = (s["event"] or {}).get("table")
        if table:
            marked.setdefault(next(iter(table)), s["version"])
    facts = [
        (s["version"], (s["event"] or {}).get("zipai" if kind == "zipai" else "huaniao"))
        for s in steps
    ]
    ends = [v for v, fact in facts if fact and {"hued", "game_ended"} & set(fact)]
    assert ends or kind == "zipai", "the win panel is checked"
    assert kind != "cases" or {"violation_reported", "appeal_filed", "vote_cast"} <= set(marked)
    picks = sorted(
        {versions[0], versions[len(versions) // 2], versions[-1], *marked.values(), *ends}
    )
    # one load, then the page's own deep links (#v=..&viewer=.., its hashchange handler), so
    # that axe is injected once; in each state both languages are checked
    go_to(browser, page, f"#v={picks[0]}&viewer=arbiter")
    try:
        for i, version in enumerate(picks):
            # both viewers at the first and the last version, else one, in turn (each is
            # still checked in every phase of the game)
            both = i in (0, len(picks) - 1)
            for viewer in ("arbiter", "1") if both else (("arbiter", "1")[i % 2],):
                browser.execute_script(
                    "location.hash = arguments[0]", f"#v={version}&viewer={viewer}"
                )
                key = "arbiter" if viewer == "arbiter" else f"seat-{viewer}"
                WebDriverWait(browser, 10).until(
                    lambda b, v=version, k=key: (
                        b.execute_script(
                            "return [document.body.dataset.version, document.body.dataset.viewer]"
                        )
                        == [str(v), k]
                    )
                )
                for lang in ("zh", "en"):
                    set_language(browser, lang)
                    # the help open at the first version only, as after a fresh load there
                    if (version == picks[0]) != browser.execute_script(
                        "return document.getElementById('help').open"
                    ):
                        browser.find_element(By.CSS_SELECTOR, "#help summary").click()
                    assert_clean(browser, f"{kind} {lang} v{version} viewer {viewer}")
    finally:
        set_language(browser, "zh")


def test_the_live_page_has_no_serious_violation(
    server: ServerProcess, client: TableClient, browser: Any
) -> None:
    game_id, seats, _ = seated_game(client, seed=53)
    spectator = client.as_viewer(game_id)
    browser.get(f"http://127.0.0.1:{server.http_port}/games/{game_id}")
    bots = [RandomBot(s, 530 + i) for i, s in enumerate(seats)]
    checked = 0
    while not spectator.view().HasField("outcome"):
        version = spectator.view().version
        WebDriverWait(browser, 20).until(lambda b, v=version: shown(b)["version"] == v)
        if checked < 2:
            assert_clean(browser, f"live v{version}")
            checked += 1
        play_step(bots, spectator)
    WebDriverWait(browser, 20).until(
        lambda b: b.find_element(By.ID, "live").get_attribute("data-state") == "ended"
    )
    assert_clean(browser, "live after the end")
