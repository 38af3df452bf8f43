"""胡 detection: a table of concrete hands with their grouping, and property tests.

Each row: the hand (and the winning card, if any) and the expected grouping — 列 of three
and at most one pair, written by name — or ``None`` when the hand does not win. Rows marked
坎 exercise "一坎牌不能拆散": three alike in the hand must stay one 列.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.zipai.cards import kind_name
from domain.zipai.hu import (
    _is_winning_counts,
    best_grouping,
    is_complete_counts,
    is_ready,
    is_winning,
    is_winning_counts,
    may_complete,
    waits,
)
from domain.zipai.melds import ALL_GROUPS, GroupKind
from tests.domain.zipai.helpers import Ids, kinds

# (hand, winning card or "", expected grouping or None)
WIN = [
    # seven 列 of 21 cards
    (
        "一二三 四五六 七八九 二七十 壹贰叁 肆伍陆 柒捌玖",
        "",
        "一二三 四五六 七八九 二七十 壹贰叁 肆伍陆 柒捌玖",
    ),
    (
        "一二三 一二三 四五六 四五六 七八九 七八九 十十十",
        "",
        "一二三 一二三 四五六 四五六 七八九 七八九 十十十",
    ),
    (
        "贰柒拾 贰柒拾 叁肆伍 陆陆六 八九十 一一壹 四五六",
        "",
        "贰柒拾 贰柒拾 叁肆伍 陆陆六 八九十 一一壹 四五六",
    ),
    (
        "三三叁 四肆肆 五五伍 六陆陆 七七柒 八捌捌 九九玖",
        "",
        "三三叁 四肆肆 五五伍 六陆陆 七七柒 八捌捌 九九玖",
    ),
    (
        "二七十 二七十 贰柒拾 贰柒拾 三四五 叁肆伍 四五六",
        "",
        "二七十 二七十 贰柒拾 贰柒拾 三四五 叁肆伍 四五六",
    ),
    (
        "一一一 二二二 三三三 四四四 五五五 六六六 七七七",
        "",
        "一一一 二二二 三三三 四四四 五五五 六六六 七七七",
    ),
    (
        "壹壹壹 贰贰贰 叁叁叁 肆肆肆 伍伍伍 陆陆陆 柒柒柒",
        "",
        "壹壹壹 贰贰贰 叁叁叁 肆肆肆 伍伍伍 陆陆陆 柒柒柒",
    ),
    (
        "八九十 捌玖拾 六七八 陆柒捌 四五六 肆伍陆 二三四",
        "",
        "八九十 捌玖拾 六七八 陆柒捌 四五六 肆伍陆 二三四",
    ),
    # the winning card completes the seventh 列
    (
        "一二三 四五六 七八九 二七十 壹贰叁 肆伍陆 柒捌",
        "玖",
        "一二三 四五六 七八九 二七十 壹贰叁 肆伍陆 柒捌玖",
    ),
    (
        "一二三 四五六 七八九 二七十 壹贰叁 肆伍陆 柒玖",
        "捌",
        "一二三 四五六 七八九 二七十 壹贰叁 肆伍陆 柒捌玖",
    ),
    (
        "一二三 四五六 七八九 二七十 壹贰叁 肆伍陆 捌玖",
        "柒",
        "一二三 四五六 七八九 二七十 壹贰叁 肆伍陆 柒捌玖",
    ),
    (
        "一二三 四五六 七八九 壹贰叁 肆伍陆 柒捌玖 二七",
        "十",
        "一二三 四五六 七八九 壹贰叁 肆伍陆 柒捌玖 二七十",
    ),
    (
        "一二三 四五六 七八九 壹贰叁 肆伍陆 柒捌玖 贰拾",
        "柒",
        "一二三 四五六 七八九 壹贰叁 肆伍陆 柒捌玖 贰柒拾",
    ),
    (
        "一二三 四五六 七八九 壹贰叁 肆伍陆 柒捌玖 十十",
        "拾",
        "一二三 四五六 七八九 壹贰叁 肆伍陆 柒捌玖 十十拾",
    ),
    (
        "一二三 四五六 七八九 壹贰叁 肆伍陆 柒捌玖 拾拾",
        "十",
        "一二三 四五六 七八九 壹贰叁 肆伍陆 柒捌玖 十拾拾",
    ),
    (
        "一二三 四五六 七八九 壹贰叁 肆伍陆 柒捌玖 五伍",
        "伍",
        "一二三 四五六 七八九 壹贰叁 肆伍陆 柒捌玖 五伍伍",
    ),
    (
        "一二三 四五六 七八九 壹贰叁 肆伍陆 柒捌玖 十十",
        "十",
        "一二三 四五六 七八九 壹贰叁 肆伍陆 柒捌玖 十十十",
    ),
    (
        "一二三 四五六 七八九 壹贰叁 肆伍陆 柒捌玖 拾拾",
        "拾",
        "一二三 四五六 七八九 壹贰叁 肆伍陆 柒捌玖 拾拾拾",
    ),
    # a pair completes the hand (one 拢 or 招 on the table: 17 cards in hand)
    ("一二三 四五六 七八九 壹贰叁 肆伍陆 十", "十", "一二三 四五六 七八九 壹贰叁 肆伍陆 十十"),
    ("一二三 四五六 七八九 壹贰叁 肆伍陆 拾", "拾", "一二三 四五六 七八九 壹贰叁 肆伍陆 拾拾"),
    ("二七十 贰柒拾 五六七 伍陆柒 三四五 九", "九", "二七十 贰柒拾 五六七 伍陆柒 三四五 九九"),
    ("二七十 贰柒拾 五六七 伍陆柒 三三 四五", "六", "二七十 贰柒拾 五六七 伍陆柒 四五六 三三"),
    ("二七十 贰柒拾 五六七 伍陆柒 三三 四五", "三", "二七十 贰柒拾 五六七 伍陆柒 三四五 三三"),
    ("一一 二二 三三 四五六 七八九", "", "一二三 一二三 四五六 七八九"),
    ("一二三 三四五 九九", "", "一二三 三四五 九九"),
    ("四五六 四五六 八八", "", "四五六 四五六 八八"),
    # 大大小 / 小小大 / 二七十 choices
    ("一一壹 壹壹一", "", "一一一 壹壹壹"),  # two 坎
    ("二二贰 七七柒 十十拾", "", "二七十 二七十 贰柒拾"),  # 21 胡 beats 0
    ("二七十 二七十", "", "二七十 二七十"),
    ("二二七七十十", "", "二七十 二七十"),
    ("贰贰柒柒拾拾", "", "贰柒拾 贰柒拾"),
    ("三四五 叁肆伍", "", "三四五 叁肆伍"),
    ("一二三 四四", "", "一二三 四四"),
    ("九十 八", "", "八九十"),
    ("一二 三", "", "一二三"),
    ("二十", "七", "二七十"),
    ("柒拾", "贰", "贰柒拾"),
    ("三叁", "叁", "三叁叁"),
    ("三三", "叁", "三三叁"),
    ("五五", "", "五五"),
    ("", "", ""),
    # 坎 kept whole, the fourth card used elsewhere
    ("三三三 四五", "三", "三三三 三四五"),
    ("三三三 四五 六六", "三", "三三三 三四五 六六"),
    ("七七七 八九 一二三", "七", "七七七 七八九 一二三"),
    ("柒柒柒 七", "七", "柒柒柒 七七"),
    ("二二二 七十", "二", "二二二 二七十"),
    ("壹壹壹 贰叁 壹", "", "壹壹壹 壹贰叁"),
    # prefer the grouping worth more 胡: 一二三 (3) and 二七十 (6) over plain runs
    ("一二三 二七十 七八九", "", "一二三 二七十 七八九"),
    ("壹贰叁 贰柒拾", "", "壹贰叁 贰柒拾"),
    ("一一一 二二二 三三三", "", "一一一 二二二 三三三"),
    ("二三四 二三四 二三四", "", "二二二 三三三 四四四"),
    ("贰叁肆 贰叁肆 贰叁肆", "", "贰贰贰 叁叁叁 肆肆肆"),
    ("三四五 三四五 三四五", "", "三三三 四四四 五五五"),
    ("六七八 六七八 六七八", "", "六六六 七七七 八八八"),
    # longer mixes
    (
        "一二三 一二三 壹贰叁 壹贰叁 五六七 伍陆柒 四四",
        "",
        "一二三 一二三 壹贰叁 壹贰叁 五六七 伍陆柒 四四",
    ),
    (
        "五六七 伍陆柒 八八捌 九玖玖 十十拾 拾拾十",
        "",
        "五六七 伍陆柒 八八捌 九玖玖 十十十 拾拾拾",
    ),  # two 坎
    ("三四五 六七八 九十 贰贰", "八", "三四五 六七八 八九十 贰贰"),
    ("肆伍陆 柒捌玖 拾拾拾 三", "三", "肆伍陆 柒捌玖 拾拾拾 三三"),
    ("一二三 四五六 七八九 十十", "十", "一二三 四五六 七八九 十十十"),
]

LOSE = [
    # a wrong card count never wins
    ("一二三 四五六 七八九 二七十 壹贰叁 肆伍陆 柒捌玖 一", ""),
    ("一二三 四五六 七八九 二七十 壹贰叁 肆伍陆 柒捌", ""),
    ("一二三 四", ""),
    ("一", ""),
    ("一二三 四五", "七"),
    ("二二贰贰七柒", ""),
    ("五五五五", ""),
    # mixed sizes do not run
    ("一二叁", ""),
    ("三肆五", ""),
    ("二七拾", ""),
    ("贰七十", ""),
    ("八九拾", ""),
    ("一二三 四五陆", ""),
    # no wrap-around, no gaps
    ("九十一", ""),
    ("玖拾壹", ""),
    ("一三五", ""),
    ("二四六", ""),
    ("一二四", ""),
    ("三五七", ""),
    # 大大小 needs one rank
    ("一壹贰", ""),
    ("三三肆", ""),
    ("三叁四", ""),
    # two pairs are not allowed
    ("一二三 四四 五五", ""),
    ("一二三 四四 五五", "六"),
    ("三三 五五 七七 九九", ""),
    # 坎 cannot be broken (these win only by splitting three alike)
    ("七柒柒柒捌玖", ""),
    ("二二二三四陆柒捌", ""),
    ("四七七肆肆肆伍陆", ""),
    ("壹壹壹贰柒柒柒拾", ""),
    ("二七九九十十十玖拾", ""),
    ("二二二七十伍陆柒拾拾拾", ""),
    ("二二九贰贰贰柒捌玖玖玖", ""),
    ("三三三 四六", "三"),
    ("柒柒柒 捌玖", "七"),
    # almost hands
    ("一二三 四五六 七八九 二七十 壹贰叁 肆伍陆 柒捌", "拾"),
    ("一二三 四五六 七八九 二七十 壹贰叁 肆伍陆 柒捌", "七"),
    ("一二三 四五六 七八九 二七十 壹贰叁 肆伍陆 柒玖", "陆"),
    ("一二三 四五六 七八九 壹贰叁 肆伍陆 柒捌玖 二七", "九"),
    ("一二三 四五六 七八九 壹贰叁 肆伍陆 柒捌玖 五五", "六"),
    ("一二三 四五六 七八九 壹贰叁 肆伍陆 柒捌玖 五伍", "六"),
    ("一二三 四五六 七八九 壹贰叁 肆伍陆 十", "九"),
    ("二七十 贰柒拾 五六七 伍陆柒 三三 四五", "七"),
    ("二七十 贰柒拾 五六七 伍陆柒 三三 四五", "叁"),
    ("一二三 三四五 五六", ""),
    ("一一 二二 三三 四五六 七八", ""),
    ("四五六 四五六 六七", ""),
    ("一一壹 壹壹二", ""),
    ("二二贰 七七柒 十十玖", ""),
    ("二七十 二七九", ""),
    ("三四五 叁肆陆", ""),
    ("九十", "七"),
    ("一二", "四"),
    ("二十", "柒"),
    ("柒拾", "二"),
    ("三", "叁"),
]


def _canon(groups: str | None) -> list[tuple[int, ...]] | None:
    if groups is None:
        return None
    return sorted(tuple(sorted(kinds(g))) for g in groups.split())


def _hand(text: str, extra: str) -> tuple[tuple[int, ...], int | None]:
    ids = Ids()
    hand = ids.take(text)
    win = ids.take(extra)[0] if extra else None
    return hand, win


@pytest.mark.parametrize(
    ("hand", "extra", "expected"), WIN, ids=[f"win:{h}+{e}" for h, e, _ in WIN]
)
def test_winning_hand_table(hand: str, extra: str, expected: str | None) -> None:
    ids, win = _hand(hand, extra)
    got = best_grouping(ids, win)
    assert is_winning(ids, win) is (expected is not None)
    if expected is None:
        assert got is None
        return
    assert got is not None
    assert sorted(tuple(sorted(ks)) for ks, _gk in got) == _canon(expected)
    shapes = [gk for _ks, gk in got]
    assert shapes.count(GroupKind.PAIR) <= 1


@pytest.mark.parametrize(("hand", "extra"), LOSE, ids=[f"lose:{h}+{e}" for h, e in LOSE])
def test_losing_hand_table(hand: str, extra: str) -> None:
    ids, win = _hand(hand, extra)
    assert not is_winning(ids, win)
    assert best_grouping(ids, win) is None


def test_table_has_at_least_a_hundred_hands() -> None:
    assert len(WIN) + len(LOSE) >= 100


def test_waits_and_ready() -> None:
    ids, _ = _hand("一二三 四五六 七八九 二七十 壹贰叁 肆伍陆 柒捌", "")
    assert [kind_name(k) for k in waits(ids)] == ["叁", "陆", "玖"]
    assert is_ready(ids)
    ids, _ = _hand("一二三 四五六 七八九 二七十 壹贰叁 肆伍陆 壹拾", "")
    assert not is_ready(ids)
    # a single card waits for its pair (6 列 done and one pair short: 差1对)
    ids, _ = _hand("一二三 四五六 七八九 壹贰叁 肆伍陆 十", "")
    assert [kind_name(k) for k in waits(ids)] == ["一", "四", "七", "十"]


# ---------------------------------------------------------------------------- properties

_THREE = [g for g in ALL_GROUPS]


@st.composite
def winning_counts(
    draw: st.DrawFn,
) -> tuple[list[int], list[tuple[tuple[int, ...], GroupKind]], bool]:
    n = draw(st.integers(min_value=0, max_value=7))
    counts = [0] * 20
    groups = []
    for _ in range(n):
        ks, gk = draw(st.sampled_from(_THREE))
        if all(counts[k] + ks.count(k) <= 4 for k in ks):
            for k in ks:
                counts[k] += 1
            groups.append((ks, gk))
    pair = draw(st.booleans())
    if pair:
        k = draw(st.integers(min_value=0, max_value=19))
        if counts[k] <= 2:
            counts[k] += 2
            groups.append(((k, k), GroupKind.PAIR))
        else:
            pair = False
    return counts, groups, pair


def _ids(counts: list[int]) -> tuple[int, ...]:
    return tuple(k * 4 + j for k in range(20) for j in range(counts[k]))


@settings(
    derandomize=True, max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(winning_counts())
def test_every_generated_winning_hand_is_detected(
    sample: tuple[list[int], list[tuple[tuple[int, ...], GroupKind]], bool],
) -> None:
    counts, groups, _pair = sample
    assert is_complete_counts(counts), f"not detected: {groups}"
    # with every three-or-four alike generated as a three-alike 列, the 坎 rule agrees
    triples = {ks[0] for ks, gk in groups if gk is GroupKind.TRIPLE}
    if all(counts[k] < 3 or k in triples for k in range(20)):
        assert is_winning(_ids(counts)), f"坎-respecting hand not detected: {groups}"


@settings(
    derandomize=True, max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(winning_counts(), st.integers(min_value=0, max_value=19), st.booleans())
def test_no_hand_with_a_wrong_card_count_wins(
    sample: tuple[list[int], list[tuple[tuple[int, ...], GroupKind]], bool], k: int, add: bool
) -> None:
    counts, _groups, pair = sample
    c = list(counts)
    if pair:
        # 3n + 2 cards: one more card makes 3n + 3 - fine; one fewer makes 3n + 1 - never wins
        if c[k] == 0:
            return
        c[k] -= 1
    else:
        # 3n cards: one more makes 3n + 1 - never wins
        if c[k] == 4:
            return
        c[k] += 1
    assert sum(c) % 3 == 1
    assert not is_complete_counts(c)
    assert not is_winning(_ids(c))
    assert best_grouping(_ids(c)) is None


@settings(
    derandomize=True, max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(winning_counts(), st.integers(min_value=0, max_value=19), st.integers(0, 19))
def test_the_ting_pre_check_never_drops_a_winning_card(
    sample: tuple[list[int], list[tuple[tuple[int, ...], GroupKind]], bool], gone: int, extra: int
) -> None:
    """``may_complete`` (the kinds worth a search, found once per hand) keeps every kind the
    full search finds: a winning hand with one card taken out (and sometimes another added)
    wins with exactly the cards it wins with when every kind is searched."""
    counts, _groups, _pair = sample
    c = list(counts)
    if c[gone]:
        c[gone] -= 1
    if extra != gone and c[extra] < 4 and extra % 3 == 0:
        c[extra] += 1
    hand = tuple(c)
    searched = [k for k in range(20) if _is_winning_counts(hand, k)]
    assert [k for k in range(20) if is_winning_counts(hand, k)] == searched, hand
    assert set(searched) <= set(may_complete(hand)), hand
