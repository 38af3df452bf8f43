"""Seat links against the play page's stored tokens (issue 37, point 7), in headless Chromium.

The attack: a player sends its opponent a seat link of its own seat ("the invite"). The page
used to store the link's token in place of the one it held for that table, so the victim,
after a reload, no longer sat at its own seat (and its token was gone for good). Now tokens
are kept per game and seat (clients/web/src/seats.ts): a link for another seat of a table
where this browser sits is checked with the server, then the person is asked, and both
tokens stay kept whatever the answer.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from clients.python.client import TableClient
from clients.python.serverproc import ServerProcess
from tests.browser.test_play_page import (  # noqa: F401  (web: the fixture)
    DESKTOP,
    body,
    check_axe,
    click,
    create_table,
    js_text,
    open_page,
    web,
)

pytestmark = pytest.mark.xdist_group("browser")

HELD = """
const out = {};
for (const k of Object.keys(localStorage)) if (k.startsWith(arguments[0])) out[k] = localStorage.getItem(k);
return out;
"""


def held(browser: Any, gid: str) -> dict[int, str]:
    """Seat -> token, for every seat this browser keeps at ``gid``."""
    kept = browser.execute_script(HELD, f"tabletop.seat.{gid}")
    return {json.loads(v)["seat"]: json.loads(v)["token"] for v in kept.values()}


SEAT_SHOWN = """
if (document.body.dataset.screen !== 'table' || !document.body.dataset.phase) return -1;
const v = document.querySelector('#seat-link')?.value || '';
const m = v.match(/[#&]seat=(\\d+)/);
return m ? Number(m[1]) : -1;
"""


def playing(browser: Any, seat: int) -> bool:
    """Whether the page is at the table as ``seat`` (its own seat link names it): waited for,
    as the page re-renders."""
    try:
        WebDriverWait(browser, 15).until(lambda b: b.execute_script(SEAT_SHOWN) == seat)
    except TimeoutException:
        return False
    return True


def open_link(browser: Any, link: str) -> None:
    browser.get("about:blank")
    browser.get(link)


def test_an_opponents_seat_link_never_replaces_the_seat_this_browser_holds(
    web: ServerProcess,  # noqa: F811
    browser: Any,
) -> None:
    open_page(browser, web, DESKTOP)
    gid = create_table(browser, "huaniao", seats=3, mode="2")
    mine = held(browser, gid)
    assert list(mine) == [0]
    base = f"http://127.0.0.1:{web.web_port}/"
    with TableClient(web.target) as client:
        opponent = client.join(gid, 1, "mallory")
        theirs = opponent.token
        assert theirs and theirs != mine[0]
        # the opponent's "invite": its own seat's link (and a variant whose seat lies)
        for claimed in (1, 0):
            open_link(browser, f"{base}#game={gid}&seat={claimed}&token={theirs}")
            WebDriverWait(browser, 15).until(
                lambda b: b.find_elements(By.ID, "link-choice") or b.execute_script(SEAT_SHOWN) >= 0
            )
            assert "token=" not in browser.current_url, "the token leaves the address bar"
            assert held(browser, gid) == mine, "seat 0's token kept, nothing added unasked"
            assert browser.find_elements(By.ID, "link-choice"), "the person is asked"
            assert "1家" in js_text(browser, "#link-take"), "the seat the server says, not the link"
            if claimed == 1:
                check_axe(browser, "play page: a link for another seat")
            click(browser, By.ID, "link-stay")
            assert playing(browser, 0)
        # a reload: still at its own seat, with its own token
        browser.refresh()
        assert playing(browser, 0) and held(browser, gid) == mine
        # a link with a token that is no seat's: refused without a question
        open_link(browser, f"{base}#game={gid}&seat=1&token=not-a-token")
        WebDriverWait(browser, 10).until(lambda b: "失效" in js_text(b, "#notice"))
        assert playing(browser, 0) and held(browser, gid) == mine
        # the person may take the linked seat: both tokens are kept, and it switches back
        open_link(browser, f"{base}#game={gid}&seat=1&token={theirs}")
        WebDriverWait(browser, 15).until(lambda b: b.find_elements(By.ID, "link-take"))
        click(browser, By.ID, "link-take")
        assert playing(browser, 1)
        assert held(browser, gid) == {0: mine[0], 1: theirs}
        browser.refresh()
        assert playing(browser, 1), "the seat chosen is the one played after a reload"
        WebDriverWait(browser, 10).until(
            lambda b: b.find_elements(By.CSS_SELECTOR, "[data-switch-seat='0']")
        )
        click(browser, By.CSS_SELECTOR, "[data-switch-seat='0']")
        assert playing(browser, 0) and held(browser, gid) == {0: mine[0], 1: theirs}
