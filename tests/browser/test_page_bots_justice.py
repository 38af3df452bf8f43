"""Justice against the page's bots, as a person meets it (issue 37): on a server whose bots
wait a moment after a person's move (--web-bots-delay-ms), the page takes its move back
(误操作) before a bot answers it, then reports a bot; the bots vote (an unchecked report:
they reject it, as an honest player would) and the case closes in seconds, far inside the
case limit (120 s), with no vote of the test's."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait

from clients.python.serverproc import ServerProcess
from tests.browser.test_play_page import (
    DESKTOP,
    ROOT,
    body,
    click,
    click_move,
    create_table,
    js_text,
    log_text,
    open_page,
    snapshot,
)

pytestmark = pytest.mark.xdist_group("browser")

DELAY_MS = 1500  # the bots' wait after the person's move (the default of --web-bots-delay-ms)
CASE_LIMIT_S = 120  # the server's --case-timeout default


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    built = subprocess.run(
        ["make", "-s", "web"], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert built.returncode == 0, f"make web failed:\n{built.stdout[-3000:]}{built.stderr[-3000:]}"
    flags = ["--web-port", "0", "--web-bots", "--web-bots-delay-ms", str(DELAY_MS)]
    proc = ServerProcess(tmp_path_factory.mktemp("web-bots-justice"), extra=flags).start()
    yield proc
    proc.stop()


def test_misplay_and_a_report_against_the_pages_bots(web: ServerProcess, browser: Any) -> None:
    # 误操作: the page moves, and takes it back while the bots still wait to answer; on a
    # new table when the bots end a game first (their play is their own, not the test's)
    for _ in range(4):
        open_page(browser, web, DESKTOP)
        create_table(browser, "huaniao", seats=3, mode="2")  # 基本, the page at seat 0
        click(browser, By.ID, "bots")
        WebDriverWait(browser, 30).until(lambda b: body(b, "phase") == "playing")
        if takes_a_move_back(browser):
            break
    else:
        raise AssertionError("no move of the page's could be taken back before a bot answered")
    # a report of seat 1 (其他违规, a warning): the engine cannot check it, so both bots (the
    # accused and seat 2) reject it, and the case closes on their votes
    WebDriverWait(browser, 60).until(
        lambda b: b.find_elements(By.CSS_SELECTOR, "#report-box summary")
    )
    click(browser, By.CSS_SELECTOR, "#report-box summary")
    Select(browser.find_element(By.ID, "report-accused")).select_by_value("1")
    browser.find_element(By.ID, "report-note").send_keys("拖延")
    filed = time.monotonic()
    click(browser, By.ID, "report-send")
    WebDriverWait(browser, 10).until(lambda b: "举报" in log_text(b))
    WebDriverWait(browser, CASE_LIMIT_S / 4).until(lambda b: "不成立" in js_text(b, ".cases"))
    took = time.monotonic() - filed
    print(f"the bots' votes closed the case in {took:.1f} s (the limit: {CASE_LIMIT_S} s)")
    assert took < CASE_LIMIT_S / 4
    assert "超时" not in js_text(browser, ".cases"), "closed by the bots' votes, not the clock"


def takes_a_move_back(browser: Any) -> bool:
    """The page plays and takes the move back (误操作) before a bot answers it; False when
    the game ends first. A turn whose first touch only narrows the plays may leave the bot
    the faster: then the next turn."""
    for _ in range(8):
        WebDriverWait(browser, 60).until(
            lambda b: snapshot(b)["moves"] > 0 or body(b, "phase") != "playing"
        )
        if body(browser, "phase") != "playing":
            return False
        version = int(body(browser, "version"))
        deadline = time.monotonic() + 30
        while not click_move(browser, largest=False):
            assert time.monotonic() < deadline, "the page's seat found no move to play"
            time.sleep(0.05)
        try:
            WebDriverWait(browser, DELAY_MS / 1000).until(
                lambda b: b.find_elements(By.ID, "retract")
            )
            click(browser, By.ID, "retract")
            WebDriverWait(browser, 5).until(lambda b: "误操作" in log_text(b))
        except (TimeoutException, StaleElementReferenceException):
            continue
        return int(body(browser, "version")) > version
    return False
