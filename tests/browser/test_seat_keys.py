"""The play page's seat key (docs/api.md, "Seat signatures") in a real headless Chromium.

The page sits down with a WebCrypto Ed25519 key it made itself: non-extractable (even the
page cannot read it out), kept in IndexedDB by game and seat, the one the server shows for
the seat; its reveal is accepted at a table that refuses unsigned commands. The seat list
marks a seat that joined without a key (its commands stand on the server's word alone) and
a seat that was re-keyed. A browser that lost the key is told so and makes a new one
(RekeySeat), which the table then shows as a re-key.
"""

from __future__ import annotations

from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from clients.python.client import TableClient
from clients.python.serverproc import ServerProcess
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import huaniao_options
from tests.browser.test_play_page import DESKTOP, body, click, open_page, web  # noqa: F401

pytestmark = pytest.mark.xdist_group("browser")

# The seat's kept key, read from IndexedDB as the page keeps it: whether its private half
# can be exported (it must not), its algorithm and its public key in hex.
KEPT_KEY = """
const [slot, done] = arguments;
const open = indexedDB.open('tabletop-seat-keys', 1);
open.onerror = () => done({error: String(open.error)});
open.onsuccess = () => {
  const req = open.result.transaction('keys').objectStore('keys').get(slot);
  req.onerror = () => done({error: String(req.error)});
  req.onsuccess = async () => {
    const key = req.result;
    if (!key) return done(null);
    let exported = true;
    try { await crypto.subtle.exportKey('pkcs8', key.pair.privateKey); } catch (e) { exported = false; }
    done({extractable: key.pair.privateKey.extractable, exported,
      algorithm: key.pair.privateKey.algorithm.name,
      public: [...key.publicKey].map((b) => b.toString(16).padStart(2, '0')).join('')});
  };
};
"""

FORGET_KEY = """
const [slot, done] = arguments;
const open = indexedDB.open('tabletop-seat-keys', 1);
open.onsuccess = () => {
  const tx = open.result.transaction('keys', 'readwrite');
  tx.objectStore('keys').delete(slot);
  tx.oncomplete = () => done(true);
};
"""

MARKS = """
const out = {};
document.querySelectorAll('#waiting .seat-list li[data-seat]').forEach((li) => {
  out[li.dataset.seat] = [...li.querySelectorAll('[data-mark]')].map((m) => m.dataset.mark);
});
return out;
"""


def kept_key(browser: Any, game_id: str, seat: int) -> dict[str, Any] | None:
    return browser.execute_async_script(KEPT_KEY, f"{game_id}/{seat}")  # type: ignore[no-any-return]


def test_the_page_signs_with_its_own_key_and_marks_unkeyed_and_rekeyed_seats(
    web: ServerProcess,  # noqa: F811
    browser: Any,
) -> None:
    open_page(browser, web, DESKTOP)
    with TableClient(web.target) as client:
        gid = client.create_game(huaniao_options("BASIC"), 4, allow_unkeyed_seats=True).game_id
        bare = client.join(gid, 1, "bare", sign=False)  # on the server's word alone
        keyed = client.join(gid, 2, "keyed")
        keyed.rekey()  # seat 2 lost its key
        browser.get(f"http://127.0.0.1:{web.web_port}/?record=1#game={gid}")
        WebDriverWait(browser, 15).until(
            lambda b: b.find_elements(By.CSS_SELECTOR, "button[data-seat='0']")
        )
        click(browser, By.CSS_SELECTOR, "button[data-seat='0']")
        WebDriverWait(browser, 15).until(lambda b: body(b, "phase") == "waiting")

        # the key: made here, not extractable, kept by game and seat, the server's record of it
        kept = kept_key(browser, gid, 0)
        assert kept and not kept.get("error"), kept
        assert kept["algorithm"] == "Ed25519", kept
        assert kept["extractable"] is False and kept["exported"] is False, kept
        view = client.as_viewer(gid).view()
        assert kept["public"] == bytes(view.seats[0].public_key).hex(), kept
        assert not view.seats[1].public_key and list(view.seats[2].rekeyed_at)

        # the seat list marks the unkeyed seat and the re-keyed one, in the page's words
        WebDriverWait(browser, 10).until(lambda b: b.execute_script(MARKS).get("2"))
        marks = browser.execute_script(MARKS)
        assert marks["0"] == [] and marks["1"] == ["unkeyed"] and marks["2"] == ["rekeyed"], marks
        unkeyed = browser.find_element(By.CSS_SELECTOR, "[data-mark='unkeyed']")
        assert "服务器" in unkeyed.get_attribute("title"), unkeyed.get_attribute("title")

        # the page's signed reveal and start are taken: the game is dealt
        last = client.join(gid, 3, "last")
        for seat in (bare, keyed, last):
            seat.reveal()
        WebDriverWait(browser, 20).until(lambda b: body(b, "phase") == "playing")
        revealed = client.as_viewer(gid).view().seats[0]
        assert revealed.contribution_status == pb.CONTRIBUTION_STATUS_REVEALED, revealed

        # the key lost in this browser: the page says so, and makes a new one (a re-key)
        browser.execute_async_script(FORGET_KEY, f"{gid}/0")
        browser.refresh()
        WebDriverWait(browser, 15).until(lambda b: b.find_elements(By.ID, "no-seat-key"))
        click(browser, By.ID, "rekey")
        WebDriverWait(browser, 15).until(lambda b: not b.find_elements(By.ID, "no-seat-key"))
        seat0 = client.as_viewer(gid).view().seats[0]
        assert len(seat0.rekeyed_at) == 1, seat0
        renewed = kept_key(browser, gid, 0)
        assert renewed and renewed["public"] == bytes(seat0.public_key).hex() != kept["public"]
