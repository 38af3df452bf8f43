"""The play page takes part in every draw (issue 35; docs/api.md "Every hand, every redeal"),
in a real headless Chromium.

A 3-seat 花鸟风月 table: the page at seat 0, this test's Python seats at 1 and 2. Seat 1
reports seat 2; on the open case every seat agrees to 重新洗牌发牌, the page through its own
button (AgreeRedeal is never offered as a legal move). The draw then needs every seat's fresh
entropy: the page commits to a fresh contribution by itself, says whom the draw waits for,
and reveals by itself once every seat has committed, each signed and acknowledged. The game
is redealt (GameRedealt), not void, played to its end, and its record shows the page's
commitment and reveal signed by the seat's key (the cause's "signed"), which the auditor
checks.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from clients.python import audit
from clients.python.bot import RandomBot, follow_and_play
from clients.python.client import TableClient
from clients.python.exports import export_lines
from clients.python.seat import SeatClient
from clients.python.serverproc import ServerProcess
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.test_justice import report, table_move
from tests.browser.test_play_page import (  # noqa: F401  (web: the fixture)
    DESKTOP,
    body,
    click,
    create_table,
    js_text,
    open_page,
    play_to_end,
    web,
)
from tests.support.browser import screenshot

pytestmark = pytest.mark.xdist_group("browser")


def agree(seat: SeatClient, case: int) -> None:
    seat.play(table_move(agree_redeal=pb.AgreeRedeal(case_id=case)), seat.view().version)


def statuses(seat: SeatClient) -> list[int]:
    return [s.contribution_status for s in seat.view().seats]


def test_the_page_agrees_commits_and_reveals_for_a_redeal(
    web: ServerProcess,  # noqa: F811
    browser: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    open_page(browser, web, DESKTOP)
    gid = create_table(browser, "huaniao", seats=3, mode="2")  # 基本
    with TableClient(web.target) as client:
        seats = [client.join(gid, s, f"p{s}") for s in (1, 2)]  # each commits at its join
        for seat in seats:
            seat.reveal()
        WebDriverWait(browser, 20).until(lambda b: body(b, "phase") == "playing")
        one, two = seats

        # a case: seat 1 reports seat 2; the page offers 同意重新洗牌发牌 on it
        case = report(one, 2, one.view().version)
        agree(one, case)
        WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.ID, "agree-redeal"))
        button = browser.find_element(By.ID, "agree-redeal")
        assert button.text == "同意重新洗牌发牌" and button.get_attribute("data-case") == str(case)
        click(browser, By.ID, "agree-redeal")
        WebDriverWait(browser, 10).until(
            lambda b: list(one.view().cases[-1].redeal_agreed) == [1, 0]
        )
        WebDriverWait(browser, 10).until(lambda b: not b.find_elements(By.ID, "agree-redeal"))
        assert "同意重新洗牌发牌: 1家、0家" in js_text(browser, ".cases")
        agree(two, case)  # the last agreement: the redeal's draw opens
        drawing = one.view()
        assert drawing.redeal_commitment and drawing.paused, drawing

        # seat 1 commits; the page commits by itself and then says the draw waits for seat 2
        one.commit_contribution()
        WebDriverWait(browser, 15).until(
            lambda b: statuses(one)[0] == pb.CONTRIBUTION_STATUS_PENDING
        )
        assert statuses(one) == [
            pb.CONTRIBUTION_STATUS_PENDING,
            pb.CONTRIBUTION_STATUS_PENDING,
            pb.CONTRIBUTION_STATUS_AWAITED,
        ]
        WebDriverWait(browser, 10).until(
            lambda b: js_text(b, "#draw-status") == "重新洗牌发牌：等待 2家"
        )
        assert js_text(browser, "#notice") == "", "no refusal, no 'not taken'"
        kept = json.loads(
            browser.execute_script(f"return localStorage.getItem('tabletop.seat.{gid}/0')")
        )
        assert kept["draw"]["for"] == drawing.redeal_commitment, kept
        assert len(kept["draw"]["contribution"]) == 32, "16 fresh bytes, hex"
        screenshot(browser, "play-page-redeal-waiting")

        # seat 2 commits; seats 1 and 2 reveal; the page reveals by itself: the deal is made
        two.commit_contribution()
        one.reveal()
        two.reveal()
        WebDriverWait(browser, 15).until(lambda b: not one.view().redeal_commitment)
        dealt = one.view()
        assert dealt.redeals == 1 and not dealt.void and not dealt.paused, dealt
        assert dealt.phase == pb.GAME_PHASE_PLAYING
        facts = [e.table.WhichOneof("kind") for e in one.history() if e.HasField("table")]
        assert "game_redealt" in facts and "deal_abandoned" not in facts, facts
        WebDriverWait(browser, 10).until(lambda b: not b.find_elements(By.ID, "draw"))

        # the game goes on to its end: the page plays its seat, the bots the others
        counts = [[0], [0]]
        threads = [
            threading.Thread(target=follow_and_play, args=(RandomBot(s, i), counts[i]), daemon=True)
            for i, s in enumerate(seats)
        ]
        for t in threads:
            t.start()
        play_to_end(browser, "play-page-redeal")
        for t in threads:
            t.join(timeout=10)
        ended = one.view()
        assert ended.phase == pb.GAME_PHASE_FINISHED and not ended.void, ended
        assert ended.outcome.reason.lower() != "void", ended.outcome

        # the record: after RedealOpened, the page's commitment and reveal, each signed
        lines = [json.loads(x) for x in export_lines(client.as_viewer(gid).history())]
        opened = next(x["version"] for x in lines if x["fact"]["type"] == "RedealOpened")
        page = [
            x["cause"]
            for x in lines
            if x["version"] > opened
            and (x.get("cause") or {}).get("seat") == 0
            and (x.get("cause") or {}).get("action") in ("commit", "reveal")
        ]
        assert [c["action"] for c in page] == ["commit", "reveal"], page
        assert all(c.get("signed") for c in page), page
        capsys.readouterr()
        assert audit.main(["--target", web.target, "verify", gid]) == 0
        out = capsys.readouterr().out
        assert "redeals 1 (seats)" in out, out
