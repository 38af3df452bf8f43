"""The "your turn" notification (issue 37, "phones first"), DISPLAYED while the page's tab is in
the background, in headless Chromium: the notifications permission granted for the page's origin
(CDP Browser.grantPermissions, what a person's "allow" does), the page hidden by switching to
another tab of the same browser (headless Chromium then really turns the page's
document.visibilityState to "hidden": the page's own visibilitychange events say so), and the
other seat moves so that it is the person's turn. The notification is observed through the
real API, the service worker registration's getNotifications() (the page shows it with
registration.showNotification), read from the other tab: no wrapper around Notification.
While the page is visible its turn is not notified."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.support.ui import WebDriverWait

from clients.python.client import TableClient
from clients.python.seat import SeatClient
from clients.python.serverproc import ServerProcess
from tests.browser.test_play_page import (
    DESKTOP,
    body,
    click_move,
    create_table,
    first_turn,
    open_page,
    snapshot,
)
from tests.support.browser import screenshot

pytestmark = pytest.mark.xdist_group("browser")
ROOT = Path(__file__).parents[2]
TAG = "tabletop-turn"  # clients/web/src/pwa/index.ts: one notification a game, replaced

# The notifications of the page's service worker registration (any tab of the origin).
NOTIFICATIONS = """
const done = arguments[arguments.length - 1];
(async () => {
  const reg = await navigator.serviceWorker.getRegistration('/');
  if (!reg) return done({error: 'no service worker registration'});
  const shown = await reg.getNotifications({tag: arguments[0]});
  done({shown: shown.map((n) => ({title: n.title, body: n.body, tag: n.tag}))});
})().catch((e) => done({error: String(e)}));
"""


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server with the play page (built first: `make web`, a no-op when nothing changed)."""
    built = subprocess.run(
        ["make", "-s", "web"], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert built.returncode == 0, f"make web failed:\n{built.stdout[-3000:]}{built.stderr[-3000:]}"
    proc = ServerProcess(tmp_path_factory.mktemp("notify"), extra=["--web-port", "0"]).start()
    assert proc.web_port
    yield proc
    proc.stop()


def notifications(browser: Any) -> list[dict[str, str]]:
    got = browser.execute_async_script(NOTIFICATIONS, TAG)
    assert "error" not in got, got
    return list(got["shown"])


def play_until_the_pages_turn(other: SeatClient, page_seat: int) -> int:
    """Seat 1 (this test's bot) plays until the page's seat is to move; its moves, counted."""
    played = 0
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        view = other.view()
        if page_seat in view.to_act:
            return played
        legal = other.legal_moves()
        game = [m for m in legal.moves if m.WhichOneof("game") == "huaniao"]
        if game:
            other.play(game[0], legal.version)
            played += 1
        time.sleep(0.05)
    raise AssertionError("it never became the page's turn")


def test_your_turn_is_notified_while_the_tab_is_in_the_background(
    web: ServerProcess, browser: Any
) -> None:
    origin = f"http://127.0.0.1:{web.web_port}"
    open_page(browser, web, DESKTOP, query="")
    browser.execute_cdp_cmd(
        "Browser.grantPermissions", {"origin": origin, "permissions": ["notifications"]}
    )
    assert browser.execute_script("return Notification.permission") == "granted"
    browser.set_script_timeout(20)
    # the page registers its service worker itself (registerPwa at start)
    assert (
        browser.execute_async_script(
            "const done = arguments[0]; navigator.serviceWorker.ready.then((r) => done(r.scope))"
        )
        == f"{origin}/"
    )
    browser.execute_script(
        "window.__seen = []; document.addEventListener('visibilitychange',"
        " () => window.__seen.push(document.visibilityState))"
    )
    gid = create_table(browser, "huaniao", seats=2, mode="2")  # 基本, the page at seat 0
    page = browser.current_window_handle
    with TableClient(web.target) as client:
        other = client.join(gid, 1, "bo", contribution="")
        WebDriverWait(browser, 20).until(lambda b: body(b, "phase") == "playing")
        first_turn(browser, other)
        # the page's turn while it is visible: told on the page, no notification
        assert browser.execute_script("return document.visibilityState") == "visible"
        time.sleep(0.5)  # (a notification would be shown right after the view arrived)
        assert notifications(browser) == [], "a visible page does not notify"
        # the person plays, and the page waits for seat 1
        while not click_move(browser):
            time.sleep(0.05)
        WebDriverWait(browser, 10).until(lambda b: snapshot(b)["moves"] == 0)
        WebDriverWait(browser, 10).until(lambda b: 0 not in other.view().to_act)
        # the tab goes to the background: another tab of the same browser in front
        browser.switch_to.new_window("tab")
        browser.get(f"{origin}/server.json")
        assert notifications(browser) == [], "nothing shown yet"
        # seat 1 moves: it is the person's turn, and the hidden page says so
        started = time.monotonic()
        assert play_until_the_pages_turn(other, 0) > 0
        WebDriverWait(browser, 15, poll_frequency=0.2).until(lambda b: notifications(b))
        print(f"the notification was shown {time.monotonic() - started:.1f} s after seat 1's move")
        shown = notifications(browser)
        assert shown == [{"title": "轮到你了", "body": "轮到你", "tag": TAG}], shown
        browser.close()
        browser.switch_to.window(page)
    # the page really was hidden (its own visibilitychange events), and is visible again
    seen = browser.execute_script("return window.__seen")
    assert seen[:2] == ["hidden", "visible"], seen
    assert browser.execute_script("return document.visibilityState") == "visible"
    screenshot(browser, "page-notified")
