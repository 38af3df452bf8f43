"""The play page (clients/web, issue 28) in a real headless Chromium, served by the server's
web port (--web-port, Connect and gRPC-Web on the page's own origin).

A person creates a table on the page, fills the other seats with bots (POST /bots) and plays
a whole 花鸟风月 game and a whole 川南字牌 game from the legal moves the page offers, in a
desktop and a phone viewport; a screenshot of each is kept (tests/support/browser.ARTIFACTS).
On the way: axe-core finds no serious or critical violation (contrast included) at the start
and mid-game, and the leak check -- no card another seat held hidden reaches the page: not in
the DOM, not in localStorage or sessionStorage, not in any response the page received (the
page records every decoded response with ?record=1) -- against the deal the server knows
(Replay as the arbiter once the game has ended). At the end: the result, a verify line that
checked the shuffle and every receipt, the receipts file (checked here against the server's
key) and the replay. A second test plays the justice commands from the page against a seat
this test plays itself: 误操作, a report and its vote, a vote on a report against the page's
seat, and an appeal; and a closed tab comes back to its seat.
"""

from __future__ import annotations

import json
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from clients.python.client import TableClient
from clients.python.play import game_options
from clients.python.receipts import check_payload, check_signature, is_v3, parse_receipts
from clients.python.seat import SeatClient
from clients.python.serverproc import ServerProcess
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.zipai.v1 import zipai_pb2
from tests.api.helpers import card_ids
from tests.support.axe import axe_violations, format_violations
from tests.support.browser import screenshot

pytestmark = pytest.mark.xdist_group("browser")
ROOT = Path(__file__).parents[2]
DESKTOP = (1400, 1000)
PHONE = (360, 740)  # the smallest phone of issue 37's bar
SCREEN = 6  # clients/web/src/picker.ts: the most choices the picker shows at once
GAME_SECONDS = 60  # touches take a look each  # a whole game against the bots (they answer at once)
CARD_KEYS = {"card", "cards", "deck", "cardIds", "hidden", "hand", "stock"}


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server with the play page and its bots; the page built first (`make web`: a no-op
    when nothing changed)."""
    built = subprocess.run(
        ["make", "-s", "web"], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert built.returncode == 0, f"make web failed:\n{built.stdout[-3000:]}{built.stderr[-3000:]}"
    flags = ["--web-port", "0", "--web-bots", "--web-bots-delay-ms", "0", "--allow-prepared-deals"]
    proc = ServerProcess(tmp_path_factory.mktemp("web"), extra=flags).start()
    assert proc.web_port, "the server writes the web port"
    yield proc
    proc.stop()


# --- driving the page ------------------------------------------------------------------------


def open_page(
    browser: Any, web: ServerProcess, size: tuple[int, int], query: str = "?record=1"
) -> None:
    browser.set_window_size(*size)
    browser.get(f"http://127.0.0.1:{web.web_port}/{query}")
    browser.execute_script("localStorage.clear(); sessionStorage.clear();")
    browser.get(f"http://127.0.0.1:{web.web_port}/{query}")
    WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.ID, "create-button"))


def create_table(
    browser: Any,
    kind: str,
    seats: int | None = None,
    mode: str | None = None,
    toggle: tuple[str, ...] = (),
) -> str:
    Select(browser.find_element(By.ID, "kind")).select_by_value(kind)
    if seats is not None:
        Select(browser.find_element(By.ID, "seats")).select_by_value(str(seats))
    if mode is not None:
        Select(browser.find_element(By.ID, "mode")).select_by_value(mode)
    for rule in toggle:  # 专业's added rules
        browser.find_element(By.ID, f"rule-{rule}").click()
    browser.find_element(By.ID, "name").send_keys("ann")
    browser.find_element(By.ID, "create-button").click()
    WebDriverWait(browser, 15).until(lambda b: body(b, "phase") == "waiting")
    return game_id(browser)


def click(browser: Any, by: str, selector: str, timeout: float = 10) -> None:
    """Click an element, looking again when the page re-rendered it under the click."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            browser.find_element(by, selector).click()
            return
        except StaleElementReferenceException:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def js_text(browser: Any, selector: str, prop: str = "textContent") -> str:
    """An element's text (or value) read in one step: the page re-renders as events come."""
    return str(
        browser.execute_script(
            "const e = document.querySelector(arguments[0]); return e ? e[arguments[1]] : ''",
            selector,
            prop,
        )
    )


def body(browser: Any, key: str) -> str:
    return str(browser.execute_script(f"return document.body.dataset.{key} || ''"))


def game_id(browser: Any) -> str:
    found = browser.execute_script(
        "return new URLSearchParams(location.hash.slice(1)).get('game') || ''"
    )
    assert found, "the page's address names its table"
    return str(found)


SNAPSHOT = """
return {version: Number(document.body.dataset.version || 0), phase: document.body.dataset.phase,
  cards: [...document.querySelectorAll('[data-card]')].map((e) => Number(e.dataset.card)),
  moves: Number(document.querySelector('.moves-box')?.dataset.offered || 0)};
"""


def snapshot(browser: Any) -> dict[str, Any]:
    return dict(browser.execute_script(SNAPSHOT))


def click_move(browser: Any, largest: bool = True) -> bool:
    """One touch, as a person plays (issue 37, "play by touching cards"): press the play the
    page offers (the obvious one when there is one, else the one that sheds the most cards,
    or the first), or else touch the next card of the hand that some play can still use.
    True when a move was sent. Every look checks the picker's bound: one screen of choices."""
    try:
        shown = int(
            browser.execute_script(
                "return Number(document.querySelector('.moves-box')?.dataset.shown || 0)"
            )
        )
        assert shown <= SCREEN, f"the picker shows {shown} choices (one screen: {SCREEN})"
        moves = browser.find_elements(By.CSS_SELECTOR, "#moves button.move:not([disabled])")
        plays = [m for m in moves if (m.get_attribute("data-cards") or "").strip()]
        cards = browser.find_elements(
            By.CSS_SELECTOR, "#hand button.card:not(.dim):not([aria-pressed='true'])"
        )
        if plays:
            touched = {
                c.get_attribute("data-card")
                for c in browser.find_elements(
                    By.CSS_SELECTOR, "#hand button.card[aria-pressed='true']"
                )
            }
            for m in plays:
                assert touched <= set((m.get_attribute("data-cards") or "").split()), (
                    "an offered play uses every touched card"
                )
            obvious = [m for m in plays if "obvious" in (m.get_attribute("class") or "")]
            sizes = [len((m.get_attribute("data-cards") or "").split()) for m in plays]
            best = (
                obvious[0] if obvious else plays[sizes.index(max(sizes))] if largest else plays[0]
            )
            best.click()
            return True
        if cards:  # touch the next card some play can use: the page narrows the plays
            cards[0].click()
            return False
        if moves:  # no play with cards: 过, 栖, a pass
            moves[0].click()
            return True
        for clear in browser.find_elements(By.ID, "clear-touch"):
            clear.click()  # nothing left to touch: start again
        return False
    except StaleElementReferenceException:
        return False  # the table moved on under the click: look again


def play_to_end(
    browser: Any, name: str, on_turn: dict[int, Callable[[], None]] | None = None
) -> tuple[int, list[dict[str, Any]]]:
    """Click legal moves whenever the page offers them until the game ends; returns the
    page's moves and a DOM snapshot for every look at the page. ``on_turn[n]`` runs once, at
    the page's turn after its n-th move (0: its first turn)."""
    seen: list[dict[str, Any]] = []
    played = 0
    deadline = time.monotonic() + GAME_SECONDS
    while time.monotonic() < deadline:
        now = snapshot(browser)
        seen.append(now)
        if now["phase"] == "finished":
            return played, seen
        if now["moves"]:
            if on_turn and played in on_turn:
                on_turn.pop(played)()
            if click_move(browser):
                played += 1
                moved = time.monotonic() + 3  # until the page shows the table after it
                while time.monotonic() < moved and snapshot(browser)["version"] == now["version"]:
                    time.sleep(0.05)
                continue
        time.sleep(0.1)
    screenshot(browser, f"{name}-stuck")
    raise AssertionError(f"the game did not end in {GAME_SECONDS} s; the page made {played} moves")


def no_sideways(browser: Any, where: str) -> None:
    """Issue 37, phones first: nothing wider than the screen (long hex values wrap)."""
    wide = browser.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    wider = browser.execute_script(
        "return [...document.querySelectorAll('body *')].filter((e) => "
        "e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 5)"
        ".map((e) => e.tagName + '#' + e.id + '.' + e.className)"
    )
    assert wide <= 1, f"{where}: the page scrolls sideways by {wide}px: {wider}"


def fetch_status(req: urllib.request.Request) -> int:
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            return int(res.status)
    except urllib.error.HTTPError as err:
        return err.code


def check_axe(browser: Any, where: str) -> None:
    found = axe_violations(browser)
    assert not found, format_violations(found, where)


# --- what the page may hold ---------------------------------------------------------------------


def json_card_ids(data: Any) -> set[int]:
    """Card ids inside proto JSON: every object shaped like a card (a 花鸟风月 card has a
    ``kind``, a 川南字牌 card a ``rank``; an id of 0 is left out), and integers under
    card-named keys."""
    found: set[int] = set()
    if isinstance(data, list):
        for item in data:
            found |= json_card_ids(item)
    elif isinstance(data, dict):
        kind = data.get("kind")
        if (isinstance(kind, str) and kind.startswith("CARD_KIND_")) or "rank" in data:
            found.add(int(data.get("id", 0)))
        for key, value in data.items():
            if key in CARD_KEYS:
                items = value if isinstance(value, list) else [value]
                found |= {v for v in items if isinstance(v, int) and not isinstance(v, bool)}
            found |= json_card_ids(value)
    return found


def max_version(data: Any) -> int:
    """The highest ``version`` (or ``lastVersion``) inside proto JSON: int64s are strings."""
    best = 0
    if isinstance(data, list):
        for item in data:
            best = max(best, max_version(item))
    elif isinstance(data, dict):
        for key, value in data.items():
            if key in ("version", "lastVersion") and isinstance(value, str | int):
                best = max(best, int(value))
            else:
                best = max(best, max_version(value))
    return best


def hidden_from(client: TableClient, gid: str, seat: int) -> tuple[set[int], set[int], int]:
    """Once the game has ended: the cards ``seat`` was shown before the end, the cards the
    arbiter saw before the end that the seat never was (other hands, the deck), and the
    version that ended the game (from it on every hand is open to everyone)."""
    anyone = client.as_viewer(gid)
    as_seat = list(anyone.replay(as_seat=seat))
    end = min(s.view.version for s in as_seat if s.view.phase == pb.GAME_PHASE_FINISHED)
    seen: set[int] = set()
    for step in as_seat:
        if step.view.version < end:
            seen |= card_ids(step)
    everything: set[int] = set()
    for step in anyone.replay(as_arbiter=True):
        if step.view.version < end:
            everything |= card_ids(step)
    return seen, everything - seen, end


def check_no_leak(browser: Any, client: TableClient, gid: str, looks: list[dict[str, Any]]) -> int:
    seen, hidden, end = hidden_from(client, gid, 0)
    assert hidden, "the other seats held cards the page's seat never saw"
    in_dom: set[int] = set()
    for look in looks:
        if look["version"] < end:
            in_dom |= set(look["cards"])
    assert in_dom, "the page showed cards before the end"
    assert not in_dom & hidden, f"other seats' hidden cards in the DOM: {sorted(in_dom & hidden)}"
    assert in_dom <= seen, f"cards the seat was never shown in the DOM: {sorted(in_dom - seen)}"
    responses = browser.execute_script("return window.__tabletop.responses")
    assert responses, "the page recorded the responses it received (?record=1)"
    methods = {r["method"] for r in responses}
    assert {"CreateGame", "JoinGame", "GetView", "Watch", "Play"} <= methods, methods
    received: set[int] = set()
    for r in responses:
        assert "arbiterToken" not in json.dumps(r["json"]), "the page keeps no arbiter token"
        if max_version(r["json"]) < end:
            received |= json_card_ids(r["json"])
    assert received, "the responses before the end held the seat's own cards"
    assert not received & hidden, f"other seats' hidden cards received: {sorted(received & hidden)}"
    assert received <= seen, f"cards the seat was never shown received: {sorted(received - seen)}"
    storage = browser.execute_script(
        "const out = {}; for (const s of [localStorage, sessionStorage]) for (let i = 0; i < "
        "s.length; i++) out[s.key(i)] = s.getItem(s.key(i)); return out;"
    )
    seats = [json.loads(v) for k, v in storage.items() if k.startswith("tabletop.seat.")]
    assert [s["seat"] for s in seats] == [0], "one seat kept: the page's own"
    assert set(seats[0]) <= {"token", "seat", "name", "kind", "contribution"}, seats[0]
    assert all(
        not k.startswith("tabletop.")
        or k.startswith(
            (
                "tabletop.seat.",
                "tabletop.playing.",
                "tabletop.name",
                "tabletop.lang",
                "tabletop.hint.",
            )
        )
        for k in storage
    ), storage
    assert not json_card_ids([json.loads(v) for v in storage.values() if v.startswith("{")])
    return len(responses)


def check_receipts(browser: Any, client: TableClient, gid: str) -> int:
    """The page's receipts file: each line a receipt the server signed and the payload the
    page received, as `tabletop-audit verify --receipts` reads it."""
    assert js_text(browser, "#receipts-link", "download") == f"receipts-{gid}.jsonl"
    text = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(document.getElementById('receipts-link').href).then((r) => r.text())"
        ".then(done, (e) => done('ERROR ' + e));"
    )
    receipts = parse_receipts(text.splitlines())
    assert receipts, "the page kept its receipts"
    key = client.stub.GetSigningKey(pb.GetSigningKeyRequest()).public_key
    arbiter = len(client.as_viewer(gid).view().seats) + 1
    for receipt, payload in receipts:
        # the seat's own share; from the end on everyone is shown the arbiter's (n + 1)
        assert receipt.game_id == gid and receipt.viewer in (0, arbiter)
        if is_v3(receipt):  # --receipt-format 3: one signature over the bytes it covers
            check_signature(receipt, bytes(key), payload, gid)
            continue
        assert len(receipt.hashes) == arbiter + 1
        check_signature(receipt, bytes(key))
        assert check_payload(receipt, payload) == "events"
    return len(receipts)


def run_as_printed(browser: Any, command: str, folder: Path) -> None:
    """The end screen's verify command, run as shown (issue 37 point 3: it said
    `tabletop-audit`, which is only in .venv/bin) by a shell in a folder of its own, where
    the receipts were saved, with no .venv/bin on PATH."""
    text = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(document.getElementById('receipts-link').href).then((r) => r.text())"
        ".then(done, (e) => done('ERROR ' + e));"
    )
    name = js_text(browser, "#receipts-link", "download")
    (folder / name).write_text(text)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(folder)}
    done = subprocess.run(
        command, shell=True, cwd=folder, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, (command, done.stdout, done.stderr)
    assert "receipts" in done.stdout, done.stdout


# --- the tests -------------------------------------------------------------------------------------

GAMES = {
    # 花鸟风月 with two seats, so the page's seat moves at least once before a bot can go
    # out; 川南字牌 at the page's default, 3 seats
    "huaniao": {"seats": 2},
    "zipai": {},
}


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
@pytest.mark.parametrize("kind", ["huaniao", "zipai"])
def test_a_whole_game_against_bots_from_the_page(
    web: ServerProcess, browser: Any, kind: str, viewport: str, tmp_path: Path
) -> None:
    size = DESKTOP if viewport == "desktop" else PHONE
    name = f"play-page-{kind}-{viewport}"
    # the phone speaks gRPC-Web, the desktop the Connect protocol: both on the web port
    transport = "Connect" if viewport == "desktop" else "gRPC-Web"
    open_page(
        browser, web, size, "?record=1" + ("&transport=grpc-web" if viewport == "phone" else "")
    )
    assert browser.find_element(By.TAG_NAME, "footer").text.startswith(transport)
    check_axe(browser, f"{name}: the new-table form")
    if viewport == "phone":
        no_sideways(browser, f"{name}: the new-table form")
    if viewport == "desktop":  # English on a toggle, and back
        click(browser, By.ID, "lang")
        assert browser.find_element(By.CSS_SELECTOR, "#create h2").text == "New table"
        assert browser.execute_script("return document.documentElement.lang") == "en"
        click(browser, By.ID, "lang")
        assert browser.find_element(By.CSS_SELECTOR, "#create h2").text == "开桌"
    # 花鸟风月 on the phone in 基本; on the desktop in 专业 with 连奏 instead of the default
    # 阳春白雪 (which keeps games going: every card played makes every seat draw in spring)
    mode, toggle = ("2", ()) if viewport == "phone" else ("5", ("springSnow", "continuo"))
    if kind == "huaniao":
        gid = create_table(browser, kind, mode=mode, toggle=toggle, **GAMES[kind])
    else:
        gid = create_table(browser, kind, **GAMES[kind])
    assert js_text(browser, "#seat-link", "value").count("token=") == 1
    check_axe(browser, f"{name}: waiting for players")
    click(browser, By.ID, "bots")
    WebDriverWait(browser, 30).until(lambda b: body(b, "phase") in ("playing", "finished"))

    def mid_game() -> None:
        # the first-time hint: at the first turn, before any touch, in the hint's colours
        hint = browser.execute_script(
            "const e = document.getElementById('touch-hint'); return e ? e.className : null"
        )
        assert hint in (None, "hint"), f"the first turn's hint is the first-time one: {hint}"
        # a touch (and a second to take it back) tells the page the player has learnt it:
        # the bots' games may offer every play of the page's seat within one screen, so
        # the game itself need not make the player touch a card
        card = browser.find_elements(By.CSS_SELECTOR, "#hand button.card:not(.dim)")
        if card:
            card[0].click()
            card = browser.find_elements(By.CSS_SELECTOR, "#hand button.card[aria-pressed='true']")
            if card:
                card[0].click()
        screenshot(browser, f"{name}-mid")
        check_axe(browser, f"{name}: mid-game")
        if viewport == "phone":
            no_sideways(browser, f"{name}: mid-game")
            # the choices fit the screen with room for the hand: at most half of it, right
            # below the hand (scrolled to, both are in thumb reach)
            box = browser.execute_script(
                "const b = document.querySelector('.moves-box');"
                "const hand = document.querySelector('.hand-box').getBoundingClientRect();"
                "const r = b.getBoundingClientRect();"
                "return [r.height, r.top - hand.bottom, window.innerHeight]"
            )
            assert box[0] <= box[2] / 2 and 0 <= box[1] <= 20, f"the picker: {box}"

    checks = {0: mid_game}  # at the page's first turn: dealt, the game under way
    played, looks = play_to_end(browser, name, on_turn=checks)
    assert not checks, "the mid-game checks ran"
    assert played >= 1, "the page's seat played"
    told = browser.execute_script("return localStorage.getItem('tabletop.hint.touch')")
    assert told == "1", "once the player touched a card, the first-time hint is not shown again"
    WebDriverWait(browser, 15).until(lambda b: "✓" in js_text(b, "#verify-line"))
    verify = js_text(browser, "#verify-line")
    assert "✗" not in verify and "验证" in verify, verify
    # the whole record verified in the browser (issue 37): the verifier's worker reads the
    # record from the server, with the receipts this page kept, as the Node verifier would
    click(browser, By.ID, "verify-run")
    WebDriverWait(browser, 60).until(lambda b: b.find_elements(By.ID, "verify-result"))
    status = browser.execute_script(
        "return document.getElementById('verify-result').getAttribute('data-status')"
    )
    said = js_text(browser, "#verify-result pre")
    assert status == "0" and said.startswith("verified game ") and "receipts: " in said, said
    # the finished game's replay is kept on the device for offline viewing (/replays/GAME)
    WebDriverWait(browser, 15).until(
        lambda b: (
            b.execute_async_script(
                "const done = arguments[arguments.length - 1];"
                "caches.open('tabletop-replays-v1').then((c) => c.match('/replays/' + arguments[0]))"
                ".then((r) => (r ? r.text() : '')).then((t) => done(t.length), () => done(0));",
                gid,
            )
            > 1000
        )
    )
    command = js_text(browser, "#result code")  # runnable as shown: the server's gRPC port
    assert f"verify {gid} --target 127.0.0.1:{web.port} " in command, command
    assert js_text(browser, "#winners").startswith("胜者")
    with TableClient(web.target) as client:
        final = client.as_viewer(gid).view()
        outcome = final.outcome
        if kind == "huaniao" and viewport == "desktop":  # the rules chosen on the form
            rules = final.options.huaniao
            assert rules.mode == huaniao_pb2.MODE_PRO and rules.continuo and not rules.spring_snow
        if kind == "zipai":  # the page's defaults
            assert final.options.zipai.variant == zipai_pb2.VARIANT_LUZHOU
            assert len(final.seats) == 3
        scores = js_text(browser, "#scores", "innerText").splitlines()
        assert [s.rsplit(": ", 1)[1] for s in scores] == [str(x) for x in outcome.scores]
        check_no_leak(browser, client, gid, looks)
        assert check_receipts(browser, client, gid) > 0
        run_as_printed(browser, command, tmp_path)
    assert "replay=1" in js_text(browser, "#replay-link", "href")
    browser.execute_script("document.getElementById('result').scrollIntoView()")
    screenshot(browser, f"{name}-end")
    if viewport == "phone":
        no_sideways(browser, f"{name}: the end")
    check_axe(browser, f"{name}: the end")
    # the replay: every version as the seat saw it, stepped through
    click(browser, By.ID, "replay-link")
    WebDriverWait(browser, 15).until(lambda b: b.find_elements(By.ID, "replay-slider"))
    slider = browser.find_element(By.ID, "replay-slider")
    assert int(slider.get_attribute("max")) >= 10
    last = int(body(browser, "version"))
    for _ in range(3):
        click(browser, By.ID, "replay-prev")
    assert int(body(browser, "version")) == last - 3, "three steps back"
    if viewport == "phone":
        no_sideways(browser, f"{name}: the replay")
    if viewport == "desktop":
        check_axe(browser, f"{name}: the replay")
        screenshot(browser, f"{name}-replay")
    open_console(browser, web, gid, viewport, name)


def open_console(browser: Any, web: ServerProcess, gid: str, viewport: str, name: str) -> None:
    """The referee's console from the page (issue 37, "one front end, two doors"): the end's
    link opens it on the page's own origin, with every seat's hand; it steps back and forth."""
    click(browser, By.ID, "console-link")
    WebDriverWait(browser, 20).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#seats .seat"))
    assert browser.current_url.startswith(f"http://127.0.0.1:{web.web_port}/console/{gid}")
    seats = browser.find_elements(By.CSS_SELECTOR, "#seats .seat")
    assert len(seats) == (2 if "huaniao" in name else 3), "every seat, the arbiter's view"
    assert body(browser, "viewer") == "arbiter"
    click(browser, By.ID, "replay-last")
    last = int(body(browser, "version"))
    click(browser, By.ID, "replay-prev")
    click(browser, By.ID, "replay-prev")
    assert int(body(browser, "version")) < last, "the console steps back"
    click(browser, By.ID, "replay-next")
    assert int(body(browser, "version")) < last
    click(browser, By.ID, "replay-last")
    assert int(body(browser, "version")) == last
    if viewport == "phone":
        no_sideways(browser, f"{name}: the console")
    else:
        check_axe(browser, f"{name}: the console")
    screenshot(browser, f"{name}-console")


def test_the_console_is_the_arbiters_during_play_and_everyones_after(web: ServerProcess) -> None:
    """GET /console/GAME on the web port: before the end, a seat's token (a player who would
    see the other hands) and no token get 403 and the arbiter's token the console; after
    the end anyone gets it (the whole-game tests open it from the page)."""
    base = f"http://127.0.0.1:{web.web_port}/console/"
    with TableClient(web.target) as client:
        created = client.create_game(game_options("huaniao", "basic"), 2)
        gid, arbiter = created.game_id, created.arbiter_token
        seat = client.join(gid, 0, "ann", contribution="")
        for token, status in ((None, 403), (seat.token, 403), ("not-a-token", 403), (arbiter, 200)):
            req = urllib.request.Request(base + gid)
            if token:
                req.add_header("x-seat-token", token)
            assert fetch_status(req) == status, (token, status)
        link = f"{base}{gid}?token={arbiter}"
        page = urllib.request.urlopen(link, timeout=30).read().decode()
        assert 'id="tabletop-data"' in page and "arbiter" in page
        assert fetch_status(urllib.request.Request(base + "no-such-game")) == 404


def test_justice_and_coming_back_from_the_page(web: ServerProcess, browser: Any) -> None:
    """A 2-seat 花鸟风月 table: the page at seat 0, this test at seat 1. The page takes back
    its move (误操作), reports seat 1, votes on seat 1's report against it and appeals the
    penalty; then the tab is closed and the page comes back to its seat."""
    open_page(browser, web, DESKTOP)
    gid = create_table(browser, "huaniao", seats=2, mode="2")  # 基本
    with TableClient(web.target) as client:
        other = client.join(gid, 1, "bo", contribution="")
        WebDriverWait(browser, 20).until(lambda b: body(b, "phase") == "playing")
        first_turn(browser, other)
        # 误操作: the page plays, then takes it back while the game waits for seat 1
        version = int(body(browser, "version"))
        while not click_move(browser, largest=False):
            time.sleep(0.05)
        WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.ID, "retract"))
        click(browser, By.ID, "retract")
        WebDriverWait(browser, 10).until(lambda b: "误操作" in log_text(b))
        assert int(body(browser, "version")) > version
        WebDriverWait(browser, 10).until(lambda b: snapshot(b)["moves"] > 0)
        # a report of seat 1 (其他违规, a warning): seat 1, the only voter, confirms it
        click(browser, By.CSS_SELECTOR, "#report-box summary")
        kinds = browser.execute_script(
            "return [...document.querySelectorAll('#report-violation option')].map((o) => o.value)"
        )
        assert kinds == [str(pb.VIOLATION_KIND_TIMEOUT), str(pb.VIOLATION_KIND_OTHER)], kinds
        Select(browser.find_element(By.ID, "report-accused")).select_by_value("1")
        browser.find_element(By.ID, "report-note").send_keys("拖延")
        # the page re-renders (here: English and back): the half-written report stays
        click(browser, By.ID, "lang")
        click(browser, By.ID, "lang")
        assert js_text(browser, "#report-note", "value") == "拖延"
        assert js_text(browser, "#report-box", "open") == "True"
        click(browser, By.ID, "report-send")
        WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.CSS_SELECTOR, ".case.open"))
        assert "暂停" in js_text(browser, ".justice")
        # the pause says whom it waits for (seat 1, the only voter) and counts down
        waits = browser.execute_script(
            "const w = document.getElementById('waits'); const l = document.getElementById('waits-left');"
            "return w && l ? [w.dataset.seats, Number(l.dataset.left), w.textContent] : null"
        )
        assert waits and waits[0] == "1" and 0 < waits[1] <= 600, waits
        assert "等待 1家" in waits[2] and "剩" in waits[2], waits
        # the report form offered 花鸟风月's own kinds only (a REJECT table: 其他违规, 超时)
        kinds = browser.execute_script(
            "return [...document.querySelectorAll('#report-violation option')].map((o) => o.value)"
        )
        assert kinds == [], "the form closes while a case is open"
        # the open case shows its deadline (CaseView.deadline)
        assert "截止" in js_text(browser, ".case.open .case-deadline")
        assert js_text(browser, ".case.open .case-deadline", "title").endswith("Z")
        vote(other, uphold=True)
        WebDriverWait(browser, 10).until(
            lambda b: "成立" in js_text(b, ".cases")  # read in one step: the page re-renders
        )
        # seat 1 reports the page's seat: the page votes (it is the only voter) and appeals
        report = pb.Report(
            accused=0,
            violation=pb.VIOLATION_KIND_OTHER,
            note="test",
            evidence=[other.view().version],
        )
        report.penalty.kind = pb.PENALTY_KIND_WARNING
        other.play(pb.Move(table=pb.TableCommand(report=report)), other.view().version)
        WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.CSS_SELECTOR, "button.vote"))
        check_axe(browser, "play page: a case open")
        screenshot(browser, "play-page-justice-vote")
        click(browser, By.CSS_SELECTOR, "button.vote[data-uphold='true']")
        WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.CSS_SELECTOR, "form.appeal"))
        browser.find_element(By.CSS_SELECTOR, "form.appeal input").send_keys("我没有拖延")
        browser.find_element(By.CSS_SELECTOR, "form.appeal button").click()
        WebDriverWait(browser, 10).until(lambda b: "申诉" in log_text(b))
        cases = [c for c in other.view().cases]
        assert [c.is_appeal for c in cases] == [False, False, True], cases
        assert cases[2].by == 0 and cases[2].note == "我没有拖延"
        # the tab is closed; the page at the table's link comes back to its seat
        seat_link = js_text(browser, "#seat-link", "value")
        token = json.loads(
            browser.execute_script(f"return localStorage.getItem('tabletop.seat.{gid}/0')")
        )["token"]
        assert f"token={token}" in seat_link.replace("%2D", "-")
        browser.get("about:blank")
        browser.get(f"http://127.0.0.1:{web.web_port}/#game={gid}")
        WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#hand .card"))
        # the hand comes with the view; the log fills as the stream replays the history
        WebDriverWait(browser, 10).until(lambda b: "误操作" in log_text(b))
        assert body(browser, "phase") == "playing"
        # a fresh browser profile (no localStorage) comes back through the seat link
        browser.execute_script("localStorage.clear()")
        browser.get("about:blank")
        browser.get(seat_link)
        WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#hand .card"))
        assert "token=" not in browser.current_url, "the token leaves the address bar"
        assert body(browser, "phase") == "playing"
        # a link with a token that is no seat's: the browser keeps the seat it had ...
        bad = f"http://127.0.0.1:{web.web_port}/#game={gid}&seat=1&token=not-a-token"
        browser.get("about:blank")
        browser.get(bad)
        WebDriverWait(browser, 10).until(lambda b: "失效" in js_text(b, "#notice"))
        WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#hand .card"))
        kept = browser.execute_script(f"return localStorage.getItem('tabletop.seat.{gid}/0')")
        assert json.loads(kept)["token"] == token
        # ... and a browser with no seat forgets it: the table offers no free seat
        browser.execute_script("localStorage.clear()")
        browser.get("about:blank")
        browser.get(bad)
        WebDriverWait(browser, 10).until(lambda b: "失效" in js_text(b, "#notice"))
        assert body(browser, "screen") == "join" and "没有空位" in js_text(browser, "#app")
        assert not browser.execute_script(
            f"return Object.keys(localStorage).filter((k) => k.startsWith('tabletop.seat.{gid}'))"
            ".length"
        )


def first_turn(browser: Any, other: SeatClient) -> None:
    """Until the page's seat is to move: seat 1 plays its first legal move when it leads."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if snapshot(browser)["moves"]:
            return
        legal = other.legal_moves()
        game = [m for m in legal.moves if m.WhichOneof("game") == "huaniao"]
        if game:
            other.play(game[0], legal.version)
        time.sleep(0.1)
    raise AssertionError("the page's seat never got a move")


def vote(seat: SeatClient, uphold: bool) -> None:
    view = seat.view()
    case = next(c.id for c in view.cases if c.status == pb.CASE_STATUS_OPEN)
    seat.play(
        pb.Move(table=pb.TableCommand(cast_vote=pb.CastVote(case_id=case, uphold=uphold))),
        view.version,
    )


def log_text(browser: Any) -> str:
    try:
        return str(
            browser.execute_script(
                "return [...document.querySelectorAll('#log li')].map((e) => e.textContent).join('\\n')"
            )
        )
    except WebDriverException:
        return ""
