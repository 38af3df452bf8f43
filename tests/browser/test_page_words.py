"""The referee's page in the game's words (issue 29): what a reader sees of a finished 川南字牌
game and a 花鸟风月 game holds no internal enum name and no English move word, at every
version and from more than one viewer; deep links open the version and viewer they name,
and a page without one opens at the deal."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient
from clients.python.replay_html import write_replay_page
from server.wire.page.terms import UI_ZH, enums_of
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2
from tabletop.zipai.v1 import zipai_pb2
from tests.api.helpers import seated_game
from tests.api.test_justice import report, table_move, vote
from tests.browser.pages import page_data
from tests.browser.test_console import new_game, press, retract_last_move
from tests.support.browser import screenshot

pytestmark = pytest.mark.xdist_group("browser")

# English move words a reader must not meet (the server's lines had them: "seat 0 ate 八").
MOVE_WORDS = (
    "ate", "ponged", "chowed", "konged", "drew", "discarded", "played", "passed", "flipped",
    "laid", "won", "declared", "declined", "claims", "claimed", "took", "answered", "dealt",
    "deals", "taken", "retracted", "appeals", "votes", "upholds", "rejects", "revoked",
    "timed", "opened", "started", "ran", "eat", "pong", "chow", "kong",
)  # fmt: skip
# Internal words the old page wrote around its values ("kind: peng group: triple").
LABEL_WORDS = ("kind:", "group:", "need ", "win kind", "peng group", "hand count", "to act")


@cache
def enum_words() -> tuple[list[str], list[str]]:
    """From the generated protos' descriptors: every enum value name (``WIN_KIND_DIAN_PAO``)
    and its part after the enum's prefix (``DIAN_PAO``), to find as they are; and their
    readable forms (``dian pao``, ``dian_pao``, ``peng``), to find as whole words in any case."""
    exact: set[str] = set()
    words: set[str] = set()
    for module in (tabletop_pb2, huaniao_pb2, zipai_pb2):
        for enum in enums_of(module.DESCRIPTOR):
            prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", enum.name).upper() + "_"
            for value in enum.values:
                short = value.name.removeprefix(prefix)
                exact |= {value.name, short} if "_" in short else {value.name}
                words |= {short.lower(), short.lower().replace("_", " ")}
    return sorted(exact), sorted(words)


KEYED = 4  # versions stepped by the keyboard before the rest are read through deep links
# Each version of arguments[0] shown for viewer arguments[1] through the page's own deep link
# (its hashchange handler), and the reader's text once the page shows that version.
READ_EACH_VERSION = """
const [versions, viewer, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
const texts = [];
const show = (i) => {
  if (i === versions.length) return done(texts);
  location.hash = `#v=${versions[i]}&viewer=${viewer}`;
  const read = () => {
    if (document.body.dataset.version !== String(versions[i])) return setTimeout(read, 2);
    texts.push(document.body.innerText);
    show(i + 1);
  };
  read();
};
show(0);
"""


@cache
def first_runs() -> list[tuple[str, str]]:
    """Each readable enum and move word with its first run of letters and digits: a word can
    only stand whole in a text where that run is one of the text's own runs."""
    return [(w, re.match(r"[a-z0-9]*", w).group()) for w in (*enum_words()[1], *MOVE_WORDS)]  # type: ignore[union-attr]


def leaks(text: str) -> list[str]:
    """The internal names and English move words in ``text``. (Only the words whose first
    run is in the text are searched for: a search a word was 25 ms a page's text, most of a
    words test's time.)"""
    exact, _ = enum_words()
    found = [w for w in exact if w in text]
    lowered = text.lower()
    runs = set(re.findall(r"[a-z0-9]+", lowered))
    for word, first in first_runs():
        if first in runs or not first:
            if re.search(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", lowered):
                found.append(word)
    found += [w for w in LABEL_WORDS if w in lowered]
    return found


def test_the_checker_finds_what_the_old_page_wrote() -> None:
    """The lines issue 29 quotes are caught; the game's words are not."""
    for old in (
        "kind: peng group: triple",
        "win kind fan pai",
        "DIAN_PAO",
        "need song",
        "kind: wu",
        "seat 0 ate 八 with 九十",
        "seat 1 ponged 五",
        "phase playing",
    ):
        assert leaks(old), old
    assert not leaks("1家 碰 五 · 胡 点炮 · 须 诵 · 舞 · 验证: 已验证 ✓ chain v12 z0")


def test_every_verify_check_has_its_words() -> None:
    from clients.python.replay_html import CHECKS

    for name in CHECKS:
        zh, en = UI_ZH[f"check {name}"]
        assert re.search(r"[\u4e00-\u9fff]", zh) and en == name


class HuBot(RandomBot):
    """A random seat that takes a 胡 whenever it may (so the 川南字牌 game ends in a win)."""

    def choose(self, legal: Any) -> Any:
        for move, label in zip(legal.moves, legal.labels, strict=False):
            if label.startswith("胡"):
                return move
        return super().choose(legal)


def finished_zipai(client: TableClient) -> str:
    """A finished 川南字牌 game, one that ends in a 胡 if a few seeds give one."""
    game_id = ""
    for seed in range(40, 52):
        game_id, seats, _ = new_game(client, "zipai", seed=seed)
        play_to_end([HuBot(s, seed + i) for i, s in enumerate(seats)])
        if client.as_viewer(game_id).view().zipai.HasField("winner"):
            break
    return game_id


def finished_huaniao(client: TableClient) -> str:
    game_id, seats, _ = new_game(client, "huaniao", seed=41)
    retract_last_move(client, game_id, seats)  # a justice event on the timeline
    play_to_end([RandomBot(s, 400 + i) for i, s in enumerate(seats)])
    return game_id


def reader_text(browser: Any) -> str:
    return browser.execute_script("return document.body.innerText")  # type: ignore[no-any-return]


def go_to(browser: Any, page: Path, fragment: str) -> None:
    browser.get("about:blank")  # a new fragment on the same file would not reload it
    browser.get(page.as_uri() + fragment)


@pytest.mark.parametrize("kind", ["zipai", "huaniao"])
def test_a_reader_sees_the_games_words_only(
    client: TableClient, browser: Any, tmp_path: Path, kind: str
) -> None:
    game_id = finished_zipai(client) if kind == "zipai" else finished_huaniao(client)
    page = tmp_path / f"{kind}.html"
    write_replay_page(page, game=client.as_viewer(game_id))
    data = page_data(page.read_text(encoding="utf-8"))
    checked = 0
    for viewer in ("arbiter", "seat-1", "spectator"):
        steps = next(v for v in data["viewers"] if v["key"] == viewer)["steps"]
        short = viewer.removeprefix("seat-")
        go_to(browser, page, f"#v=1&viewer={short}")
        browser.find_element(By.TAG_NAME, "body").click()
        press(browser, Keys.HOME)
        texts = []
        for i in range(KEYED):  # the first versions as a reader steps them, by the keyboard
            if i:
                press(browser, Keys.ARROW_RIGHT)
            version, text = browser.execute_script(
                "return [document.body.dataset.version, document.body.innerText]"
            )
            assert version == str(steps[i]["version"])
            texts.append(text)
        # the rest through the page's deep links, all in one script (why: two WebDriver round
        # trips a version were most of this test's time, 28 s for a 川南字牌 game)
        browser.set_script_timeout(120)
        rest = [s["version"] for s in steps[KEYED:]]
        texts += browser.execute_async_script(READ_EACH_VERSION, rest, short)
        for step, text in zip(steps, texts, strict=True):
            found = leaks(text)
            assert not found, f"{kind} {viewer} v{step['version']}: {found}"
            checked += 1
    assert checked > 30
    facts = [s["event"] for s in data["viewers"][0]["steps"] if s["event"]]
    if kind == "zipai":
        won = [e for e in facts if "hued" in e.get("zipai", {})]
        if won:  # the win, in the game's words: the win kind and the 胡 line
            go_to(browser, page, f"#v={won[0]['version']}&viewer=arbiter")
            text = reader_text(browser)
            assert "胡" in text and not leaks(text)
            # the win as the winning hand: its 列 as cards, its 胡, 番 and each seat's score
            hued = won[0]["zipai"]["hued"]
            win = browser.find_element(By.ID, "win")
            assert win.is_displayed() and "番" in win.text
            assert f"胡 {hued.get('hu_points', 0)}" in win.text
            in_groups = win.find_elements(By.CSS_SELECTOR, ".group .card[data-card]")
            assert len(in_groups) == sum(len(g["cards"]) for g in hued["groups"])
            screenshot(browser, "console-words-zipai-win")
        assert any("melds" in s for st in data["viewers"][0]["steps"] for s in _seats(st)), (
            "the game had a meld to show"
        )
    else:
        assert any("move_retracted" in e.get("table", {}) for e in facts)
        # the centre holds the last play: its seat, its kind and its cards
        at = next(
            s for s in data["viewers"][0]["steps"] if "last_play" in s["view"].get("huaniao", {})
        )
        go_to(browser, page, f"#v={at['version']}&viewer=arbiter")
        centre = browser.find_element(By.ID, "centre")
        last = at["view"]["huaniao"]["last_play"]
        ids = [
            int(c.get_attribute("data-card"))
            for c in centre.find_elements(By.CSS_SELECTOR, ".card")
        ]
        assert sorted(ids) == sorted(c.get("id", 0) for c in last["cards"])
        assert f"{last.get('seat', 0)}家" in centre.text
    screenshot(browser, f"console-words-{kind}")


def _seats(step: dict[str, Any]) -> list[dict[str, Any]]:
    return list(step["view"].get("zipai", {}).get("seats", []))


def test_the_played_row_and_the_penalty_badge_are_readable(
    client: TableClient, browser: Any, tmp_path: Path
) -> None:
    """The 川南字牌 played row is drawn as cards; every badge has a contrast of 4.5:1."""
    game_id = finished_zipai(client)
    page = tmp_path / "z.html"
    write_replay_page(page, game=client.as_viewer(game_id))
    data = page_data(page.read_text(encoding="utf-8"))
    steps = data["viewers"][0]["steps"]
    at = next(s["version"] for s in steps if any(seat.get("played") for seat in _seats(s)))
    go_to(browser, page, f"#v={at}&viewer=arbiter")
    played = browser.execute_script(
        "return [...document.querySelectorAll('#seats .row[data-key=played]')].map("
        "(r) => [r.querySelectorAll('.card').length, r.innerText])"
    )
    assert played, "a played row is shown"
    for count, text in played:
        assert count > 0 and not re.search(r"\d", text.split("\n", 1)[-1]), text
    retract = tmp_path / "h.html"
    write_replay_page(retract, game=client.as_viewer(finished_huaniao(client)))
    steps = page_data(retract.read_text(encoding="utf-8"))["viewers"][0]["steps"]
    at = next(
        s["version"]
        for s in steps
        if s["event"] and "move_retracted" in s["event"].get("table", {})
    )
    go_to(browser, retract, f"#v={at}&viewer=arbiter")
    ratios = browser.execute_script(CONTRAST)
    assert ratios and min(r for r, _ in ratios) >= 4.5, ratios


# Each badge's text colour against its background, as WCAG 2 contrast ratios.
CONTRAST = """
const rgb = (c) => c.match(/[\\d.]+/g).map(Number);
const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); })
  .reduce((a, v, i) => a + v * [0.2126, 0.7152, 0.0722][i], 0);
const bg = (e) => { for (; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor); if (c.length < 4 || c[3] > 0) return c.slice(0, 3); } return [255, 255, 255]; };
return [...document.querySelectorAll('.badge')].filter((b) => b.offsetParent).map((b) => {
  const a = lum(rgb(getComputedStyle(b).color)), z = lum(bg(b));
  return [(Math.max(a, z) + 0.05) / (Math.min(a, z) + 0.05), b.innerText];
});
"""


def test_deep_links_open_the_version_and_viewer_they_name_and_else_the_deal(
    client: TableClient, browser: Any, tmp_path: Path
) -> None:
    game_id, seats, _ = new_game(client, "huaniao", seed=43)
    play_to_end([RandomBot(s, 430 + i) for i, s in enumerate(seats)])
    page = tmp_path / "links.html"
    write_replay_page(page, game=client.as_viewer(game_id))
    data = page_data(page.read_text(encoding="utf-8"))
    arbiter = data["viewers"][0]["steps"]
    first_deal = next(
        s["version"] for s in arbiter if s["event"] and "dealt" in s["event"].get("huaniao", {})
    )
    last = arbiter[-1]["version"]
    assert first_deal < last
    shown = "return [document.body.dataset.version, document.body.dataset.viewer, location.hash]"
    go_to(browser, page, "")
    assert browser.execute_script(shown)[:2] == [str(first_deal), "arbiter"], "opens at the deal"
    for fragment, want in (
        ("#v=12&viewer=2", ["12", "seat-2"]),
        ("#v=20&viewer=spectator", ["20", "spectator"]),
        (f"#v={last}&viewer=arbiter", [str(last), "arbiter"]),
        ("#viewer=3", [str(first_deal), "seat-3"]),
        ("#v15", ["15", "arbiter"]),
    ):
        go_to(browser, page, fragment)
        assert browser.execute_script(shown)[:2] == want, fragment
        assert browser.find_element(By.ID, "viewer").get_attribute("value") == want[1]
    # stepping writes the link back, so the address bar can be shared
    go_to(browser, page, "#v=12&viewer=2")
    browser.find_element(By.TAG_NAME, "body").click()
    press(browser, Keys.ARROW_RIGHT)
    assert browser.execute_script(shown) == ["13", "seat-2", "#v=13&viewer=2"]
    # a new link on the open page moves it there
    browser.execute_script("location.hash = '#v=30&viewer=1'")
    assert browser.execute_script(shown)[:2] == ["30", "seat-1"]


def test_a_seat_page_ignores_a_link_to_another_viewer(
    client: TableClient, browser: Any, tmp_path: Path
) -> None:
    game_id, seats, arbiter_token = new_game(client, "huaniao", seed=44)
    bots = [RandomBot(s, 440 + i) for i, s in enumerate(seats)]
    for _ in range(3):
        for bot in bots:
            bot.step()
    page = tmp_path / "seat.html"
    write_replay_page(page, game=client.as_viewer(game_id, arbiter_token), as_seat=1)
    go_to(browser, page, "#v=9&viewer=arbiter")
    assert browser.execute_script("return document.body.dataset.viewer") == "seat-1"
    assert browser.execute_script("return document.body.dataset.version") == "9"


def judged_huaniao(client: TableClient) -> tuple[str, int, int]:
    """A finished 花鸟风月 game with a case of each kind: seat 0 reports seat 1, the arbiter
    upholds it, seat 1 appeals the penalty and seats 2 and 3 uphold the appeal."""
    game_id, seats, arbiter_token = seated_game(client, seed=45, arbitrated=True)
    arbiter = client.as_viewer(game_id, arbiter_token)
    case = report(seats[0], 1, arbiter.view().version)
    v = arbiter.play(table_move(rule=tabletop_pb2.Rule(case_id=case, uphold=True)), case).version
    appeal = seats[1].play(table_move(appeal=tabletop_pb2.Appeal(case_id=case, reason="我在想")), v)
    v = vote(seats[2], appeal.version, True, appeal.version)
    vote(seats[3], appeal.version, True, v)
    play_to_end([RandomBot(s, 450 + i) for i, s in enumerate(seats)])
    return game_id, case, int(appeal.version)


def test_a_judged_game_reads_in_the_games_words_at_every_version(
    client: TableClient, browser: Any, tmp_path: Path
) -> None:
    """Reports, rulings, appeals, votes and penalties, in the log and the panels."""
    game_id, _, _ = judged_huaniao(client)
    page = tmp_path / "judged.html"
    write_replay_page(page, game=client.as_viewer(game_id))
    data = page_data(page.read_text(encoding="utf-8"))
    for viewer in ("arbiter", "seat-1"):
        steps = next(v for v in data["viewers"] if v["key"] == viewer)["steps"]
        go_to(browser, page, f"#v=1&viewer={viewer.removeprefix('seat-')}")
        browser.find_element(By.TAG_NAME, "body").click()
        press(browser, Keys.HOME)
        for i, step in enumerate(steps):
            if i:
                press(browser, Keys.ARROW_RIGHT)
            found = leaks(reader_text(browser))
            assert not found, f"{viewer} v{step['version']}: {found}"
    log = browser.find_element(By.ID, "log").text
    assert "0家 举报 1家: 其他违规" in log and "裁判裁定 案" in log and "申诉 案" in log


def test_a_case_reads_as_the_tables_words(
    client: TableClient, browser: Any, tmp_path: Path
) -> None:
    """The justice panel: each report and appeal a card saying who reports whom for what, the
    evidence as links to its versions, the votes, the ruling and its penalty; no key: value."""
    game_id, case, appeal = judged_huaniao(client)
    page = tmp_path / "case.html"
    write_replay_page(page, game=client.as_viewer(game_id))
    steps = page_data(page.read_text(encoding="utf-8"))["viewers"][0]["steps"]
    settled = next(
        s["version"]
        for s in steps
        if len(s["view"].get("cases", [])) == 2
        and all(c["status"] != "CASE_STATUS_OPEN" for c in s["view"]["cases"])
        and any(p.get("revoked") for p in s["view"].get("penalties", []))
    )
    for viewer in ("arbiter", "2"):
        go_to(browser, page, f"#v={settled}&viewer={viewer}")
        panel = browser.find_element(By.ID, "justice")
        cards = panel.find_elements(By.CSS_SELECTOR, ".cases .case")
        assert [c.get_attribute("data-case") for c in cards] == [str(case), str(appeal)]
        reported, appealed = cards
        assert reported.find_element(By.CSS_SELECTOR, ".what").text == "0家 举报 1家：其他违规"
        assert f"案 {case} · 举报" in reported.text and "成立" in reported.text
        assert "警告 → 1家 (撤销)" in reported.text, reported.text
        assert "裁定者\n裁判" in reported.text, "no vote: the arbiter ruled"
        assert appealed.find_element(By.CSS_SELECTOR, ".what").text == f"1家 申诉 案 {case} 的处罚"
        assert "赞成\n2家、3家" in appealed.text and "我在想" in appealed.text
        assert (
            "0家"
            in appealed.find_element(By.XPATH, ".//dt[.='回避']/following-sibling::dd[1]").text
        )
        text = panel.text
        assert not leaks(text), leaks(text)
        for internal in ("case_id", "is_appeal", "upheld_by", "CASE_STATUS", "accused:", "by:"):
            assert internal not in text, internal
        # the evidence is a link to the version it names
        evidence = reported.find_element(By.CSS_SELECTOR, "button.link")
        wanted = evidence.get_attribute("data-version")
        evidence.click()
        assert browser.execute_script("return document.body.dataset.version") == wanted
    screenshot(browser, "console-case")


def test_a_huaniao_win_shows_each_seats_cards_left_and_points(
    client: TableClient, browser: Any, tmp_path: Path
) -> None:
    game_id = finished_huaniao(client)
    page = tmp_path / "win.html"
    write_replay_page(page, game=client.as_viewer(game_id))
    steps = page_data(page.read_text(encoding="utf-8"))["viewers"][0]["steps"]
    at = next(s for s in steps if s["event"] and "game_ended" in s["event"].get("huaniao", {}))
    ended = at["event"]["huaniao"]["game_ended"]
    go_to(browser, page, f"#v={steps[0]['version']}&viewer=arbiter")
    assert not browser.find_element(By.ID, "win").is_displayed(), "no win before the end"
    go_to(browser, page, f"#v={at['version']}&viewer=spectator")
    win = browser.find_element(By.ID, "win")
    assert win.is_displayed()
    winners = ended.get("winners", [])
    title = win.find_element(By.TAG_NAME, "h2").text
    assert all(f"{w}家" in title for w in winners) and "胜" in title
    reason = {"EMPTIED_HAND": "率先打完手牌", "LOWEST_SCORE": "分值小者胜利"}.get(ended["reason"])
    assert reason is None or reason in title, title
    seats = at["view"]["huaniao"]["seats"]
    rows = win.find_elements(By.CSS_SELECTOR, ".settle-row[data-seat]")
    assert len(rows) == len(at["view"]["seats"]) == 4
    scores = ended.get("scores", [0] * 4)
    for r in rows:
        seat = int(r.get_attribute("data-seat"))
        mine = next(s for j, s in enumerate(seats) if s.get("seat", j) == seat)
        shown = sorted(
            int(c.get_attribute("data-card"))
            for c in r.find_elements(By.CSS_SELECTOR, ".card[data-card]")
        )
        assert shown == sorted(c.get("id", 0) for c in mine.get("cards", [])), seat
        assert r.find_element(By.TAG_NAME, "b").text == str(
            scores[seat] if seat < len(scores) else 0
        )
        if not mine.get("cards"):
            assert "出完" in r.text
    if ended["reason"] == "EMPTIED_HAND":
        assert any("出完" in r.text for r in rows), "who went out"
    assert not leaks(win.text), leaks(win.text)
    screenshot(browser, "console-huaniao-win")


def test_the_page_speaks_english_on_a_toggle_that_it_remembers(
    client: TableClient, browser: Any, tmp_path: Path
) -> None:
    """Every label has its English: in its tooltip, and on the 中文/English toggle, which the
    page keeps in localStorage (a reload stays in English)."""
    game_id, seats, _ = new_game(client, "zipai", seed=46)
    play_to_end([HuBot(s, 460 + i) for i, s in enumerate(seats)])
    page = tmp_path / "lang.html"
    write_replay_page(page, game=client.as_viewer(game_id))
    steps = page_data(page.read_text(encoding="utf-8"))["viewers"][0]["steps"]
    mid = steps[len(steps) // 2]
    go_to(browser, page, f"#v={mid['version']}&viewer=arbiter")
    browser.execute_script("localStorage.clear()")
    go_to(browser, page, f"#v={mid['version']}&viewer=arbiter")
    labels = (
        "return [...document.querySelectorAll(arguments[0])].map((e) => [e.innerText, e.title])"
    )
    selector = ".row .k, .group .tag:not(.term), #facts > span > span, #table h2, #help summary"
    zh = browser.execute_script(labels, selector)
    assert len(zh) > 20
    for text, title in zh:  # each label in Chinese, its English in the tooltip
        assert re.search(r"[\u4e00-\u9fff]", text) and title and title != text, (text, title)
    toggle = browser.find_element(By.ID, "lang")
    assert toggle.text == "English"
    toggle.click()
    try:
        assert browser.execute_script("return document.documentElement.lang") == "en"
        en = browser.execute_script(labels, selector)
        assert [t for t, _ in en] != [t for t, _ in zh]
        for (zh_text, zh_title), (en_text, en_title) in zip(zh, en, strict=True):
            # (an h2 is drawn in capitals)
            assert en_text.lower().startswith(zh_title.lower().rstrip(":")), (en_text, zh_title)
            assert zh_text.startswith(en_title.rstrip(":")), (zh_text, en_title)
        assert browser.find_element(By.ID, "lang").text == "中文"
        assert browser.find_element(By.ID, "replay-position").text.startswith("version ")
        event = browser.find_element(By.CSS_SELECTOR, "#replay-event .t")
        assert event.text == (mid["event"] or {}).get("text", ""), "the server's own line"
        help_text = browser.find_element(By.CSS_SELECTOR, "#help summary").text
        assert help_text == UI_ZH["help"][1]
        # a reload keeps the language
        go_to(browser, page, f"#v={mid['version']}&viewer=1")
        assert browser.execute_script("return document.body.dataset.lang") == "en"
        assert browser.find_element(By.CSS_SELECTOR, "#seats .seat .seat-name").text.startswith(
            "seat "
        )
        screenshot(browser, "console-english")
    finally:
        browser.find_element(By.ID, "lang").click()
    assert browser.execute_script("return document.body.dataset.lang") == "zh"
    go_to(browser, page, f"#v={mid['version']}&viewer=1")
    assert browser.execute_script("return document.body.dataset.lang") == "zh"
    assert not leaks(reader_text(browser))


def test_the_help_names_the_referees_workflow(
    client: TableClient, browser: Any, tmp_path: Path
) -> None:
    game_id = finished_huaniao(client)
    page = tmp_path / "help.html"
    write_replay_page(page, game=client.as_viewer(game_id))
    go_to(browser, page, "")
    help_box = browser.find_element(By.ID, "help")
    help_box.find_element(By.TAG_NAME, "summary").click()
    steps = [b.text for b in help_box.find_elements(By.CSS_SELECTOR, "li b")]
    assert steps == ["找到有争议的一手", "逐版查看", "看每个视角", "读案件"]
    text = help_box.text
    for words in ("记录", "时间轴", "← →", "视角", "#v=版本&viewer=座位号", "仲裁", "证据"):
        assert words in text, words
    assert not leaks(text), leaks(text)
