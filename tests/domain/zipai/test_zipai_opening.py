"""The opening (起手流程): deal, 拢 and 补张, 三拢, 爆, the dealer's 21st card (泸州 / 合江).

Most deals are two-seat tables (stock 40) where the seat that is not under test holds JUNK:
ten pairs of small odd and big even cards, which form no 列, no 拢 and are never ready.
"""

from __future__ import annotations

import random

import pytest

from domain.zipai import RULES, Options
from domain.zipai.commands import DeclareBao, DeclineBao, Discard, Hu, Long, PassClaim
from domain.zipai.events import (
    BaoDeclared,
    CardDrawn,
    ClaimKind,
    ClaimMade,
    Dealt,
    DrawReason,
    HandStarted,
    Hued,
    LongLaidDown,
    Prompted,
    PromptKind,
    WinKind,
)
from domain.zipai.hu import is_ready
from domain.zipai.options import Variant
from domain.zipai.state import Phase
from tests.domain.zipai.helpers import dealt, first, ids_of, play, types_of

JUNK = "一一三三五五七七九九贰贰肆肆陆陆捌捌拾拾"
GUO_HU = Options(guo_hu=True)


def drawn(events, seat, reason):  # type: ignore[no-untyped-def]
    return [e for e in events if isinstance(e, CardDrawn) and e.seat == seat and e.reason is reason]


# ---------------------------------------------------------------------------- the deal


@pytest.mark.parametrize(("seats", "stock"), [(2, 40), (3, 20), (4, 20)])
def test_twenty_cards_each_and_the_rest_is_the_stock(seats: int, stock: int) -> None:
    rng = random.Random(seats)
    deck = list(range(80))
    rng.shuffle(deck)
    state = RULES.initial_state(Options(), seats, tuple(deck), 1)
    events = RULES.deal(state)
    started = first(events, HandStarted)
    assert started.stock_size == stock
    assert [e.count for e in events if isinstance(e, Dealt)] == [20] * (3 if seats == 4 else seats)
    if seats == 4:
        assert started.sitting_out == 2  # the dealer's opposite sits the hand out


def test_the_dealer_takes_a_21st_card_and_discards_first() -> None:
    for seed in range(50):  # find a deal with no 拢 and no ready hand
        rng = random.Random(seed)
        deck = list(range(80))
        rng.shuffle(deck)
        state = RULES.initial_state(Options(), 3, tuple(deck), 1)
        events = RULES.deal(state)
        if any(isinstance(e, LongLaidDown) for e in events) or any(
            isinstance(e, Prompted) and e.prompt is PromptKind.BAO and e.seats for e in events
        ):
            continue
        s = state
        for e in events:
            s = RULES.evolve(s, e)
        # no 爆 prompt for nobody: the 21st card follows the deal
        assert types_of(events)[-3:] == ["Dealt", "CardDrawn", "Prompted"]
        assert not any(isinstance(e, Prompted) and not e.seats for e in events)
        assert drawn(events, 0, DrawReason.DEALER_21ST)
        assert [len(x.hand) for x in s.seats] == [21, 20, 20]
        assert RULES.to_act(s) == (0,) and s.phase is Phase.DISCARD
        assert len(s.stock) == 19
        return
    raise AssertionError("no quiet deal found")


# ---------------------------------------------------------------------------- 拢 at the deal


def test_one_long_is_laid_down_without_a_replacement() -> None:
    s, ev = dealt({0: JUNK, 1: "二二二二 四六八十 壹叁伍柒玖 四六八十 壹叁伍"}, seat_count=2)
    laid = [e for e in ev if isinstance(e, LongLaidDown)]
    assert [(e.seat, e.taken, len(e.hidden)) for e in laid] == [(1, False, 3)]
    assert not drawn(ev, 1, DrawReason.REPLACEMENT)  # 1拢不补牌
    assert len(s.seats[1].hand) == 16


def test_long_shows_one_card_and_hides_three() -> None:
    from domain.engine import Viewer

    _s, ev = dealt({0: JUNK, 1: "二二二二 四六八十 壹叁伍柒玖 四六八十 壹叁伍"}, seat_count=2)
    laid = first(ev, LongLaidDown)
    other = RULES.redact(laid, Viewer.of_seat(0))
    assert other.hidden == () and other.hidden_size == 3 and other.face_up == laid.face_up


def test_a_non_dealer_with_two_long_draws_one_and_does_not_discard() -> None:
    s, ev = dealt({0: JUNK, 1: "二二二二 四四四四 六八十 壹叁伍柒玖 六八十 壹"}, "柒", seat_count=2)
    assert len(drawn(ev, 1, DrawReason.REPLACEMENT)) == 1
    assert len(s.seats[1].hand) == 13  # 8 laid down + 13 = 21
    assert s.phase is Phase.DISCARD and s.turn == 0


def test_the_dealer_with_two_long_draws_one_plus_its_21st_and_discards() -> None:
    s, ev = dealt(
        {0: "二二二二 四四四四 六八十 壹叁伍柒玖 六八十 壹", 1: JUNK}, "柒叁", seat_count=2
    )
    assert len(drawn(ev, 0, DrawReason.REPLACEMENT)) == 1
    assert len(drawn(ev, 0, DrawReason.DEALER_21ST)) == 1
    assert len(s.seats[0].hand) == 14  # 相当于有22张手牌，然后要打一张
    assert RULES.to_act(s) == (0,)


def test_three_long_with_a_complete_hand_is_offered_hu() -> None:
    # 三拢可提示胡: 12 laid down, 8 + 1 replacement = 八九十 壹贰叁 柒捌玖
    s, ev = dealt(
        {0: JUNK, 1: "二二二二 四四四四 六六六六 八九十 壹贰叁 柒捌"}, "玖柒", seat_count=2
    )
    assert ev[-1] == Prompted(PromptKind.HU_OR_PASS, (1,))
    assert RULES.legal_commands(s, 1) == [Hu(1), PassClaim(1)]  # 可提示胡: it may pass
    s, ev2 = play(s, Hu(1))
    won = first(ev2, Hued)
    assert won.seat == 1 and won.card is None and won.win_kind is WinKind.ZI_MO


def test_three_long_declining_hu_draws_one_more() -> None:
    # 3拢未胡时，再多摸一张
    s, ev = dealt(
        {0: JUNK, 1: "二二二二 四四四四 六六六六 八九十 壹贰叁 柒捌"},
        "玖柒",
        seat_count=2,
        options=GUO_HU,
    )
    assert RULES.legal_commands(s, 1) == [Hu(1), PassClaim(1)]
    s, ev2 = play(s, PassClaim(1))
    assert len(drawn(ev2, 1, DrawReason.REPLACEMENT)) == 1
    assert len(s.seats[1].hand) == 10


def test_a_replacement_that_completes_a_kan_is_another_long() -> None:
    # 若未爆牌，补张的牌若还能与手里的一坎牌组成4张，则当做拢处理
    s, ev = dealt(
        {0: JUNK, 1: "二二二二 四四四四 六六六 八十 壹叁伍柒玖 十八"}, "六叁", seat_count=2
    )
    laid = [e for e in ev if isinstance(e, LongLaidDown) and e.seat == 1]
    assert len(laid) == 3
    assert len(drawn(ev, 1, DrawReason.REPLACEMENT)) == 2  # three 拢: two replacements
    assert len(s.seats[1].hand) == 10


# ---------------------------------------------------------------------------- 爆


READY = "一二三 四五六 七八九 壹贰叁 肆伍陆 柒捌玖 十十"  # waits 十 or 拾


def test_a_ready_non_dealer_is_offered_bao_before_the_dealers_21st_card() -> None:
    junk = "三五七九 贰肆陆捌拾 三五七九 贰肆陆捌拾 二四"
    s, ev = dealt({0: junk, 1: READY}, seat_count=2)
    assert is_ready(s.seats[1].hand)
    assert ev[-1] == Prompted(PromptKind.BAO, (1,))
    assert not drawn(ev, 0, DrawReason.DEALER_21ST)
    assert RULES.legal_commands(s, 1) == [DeclareBao(1), DeclineBao(1)]
    s, ev2 = play(s, DeclareBao(1))
    assert isinstance(ev2[0], BaoDeclared) and s.seats[1].bao
    assert drawn(ev2, 0, DrawReason.DEALER_21ST)
    assert s.phase is Phase.DISCARD and s.turn == 0


def test_declining_bao() -> None:
    junk = "三五七九 贰肆陆捌拾 三五七九 贰肆陆捌拾 二四"
    s, _ = dealt({0: junk, 1: READY}, seat_count=2)
    s, _ = play(s, DeclineBao(1))
    assert not s.seats[1].bao


def test_the_dealer_is_offered_bao_after_its_first_discard() -> None:
    # 庄家不可天胡打一张出去检查是否可爆牌
    s, ev = dealt({0: READY, 1: JUNK}, "二", seat_count=2)
    assert s.phase is Phase.DISCARD
    s, ev = play(s, Discard(0, ids_of(s, 0, "二")[0]))
    assert ev[-1] == Prompted(PromptKind.BAO, (0,))
    s, ev = play(s, DeclareBao(0))
    assert s.seats[0].bao
    assert any(isinstance(e, Prompted) and e.prompt is PromptKind.CLAIM for e in ev)


def test_the_dealer_may_not_win_on_its_21st_card_alone() -> None:
    # 庄家不可天胡: 21 cards that are complete are not offered 胡 (no 拢 involved)
    hand = "三四五 五六 七八九 壹贰叁 肆伍陆 柒捌玖 二七十"
    s, ev = dealt({0: hand, 1: JUNK}, "四", seat_count=2)
    assert not any(isinstance(e, Prompted) and e.prompt is PromptKind.HU_OR_LONG for e in ev)
    assert s.phase is Phase.DISCARD and s.turn == 0


# ---------------------------------------------------------------------------- 21st card: 胡 or 拢


HU_OR_LONG = "四四四 五六 七八九 壹贰叁 肆伍陆 柒捌玖 二七十"  # + 四: 坎 + 四五六 …


def test_luzhou_offers_hu_first_when_the_21st_card_can_hu_or_long() -> None:
    s, ev = dealt({0: HU_OR_LONG, 1: JUNK}, "四", seat_count=2)
    assert ev[-1] == Prompted(PromptKind.HU_OR_LONG, (0,))
    assert RULES.legal_commands(s, 0) == [Hu(0), Long(0)]  # 先提示胡: offered, not forced
    s, ev2 = play(s, Hu(0))
    won = first(ev2, Hued)
    assert won.seat == 0 and won.card is not None and won.card.rank == 4


def test_luzhou_the_dealer_may_choose_long_instead_with_guo_hu() -> None:
    s, ev = dealt({0: HU_OR_LONG, 1: JUNK}, "四", seat_count=2, options=GUO_HU)
    assert RULES.legal_commands(s, 0) == [Hu(0), Long(0)]
    s, ev2 = play(s, Long(0))
    laid = first(ev2, LongLaidDown)
    assert laid.seat == 0 and not laid.taken
    assert len(s.seats[0].hand) == 17 and s.phase is Phase.DISCARD


def test_luzhou_the_dealer_may_choose_long_without_any_option() -> None:
    """zp:16 先提示胡 and zp:54 不勾选则没有过胡限制: the 拢 may be chosen; nothing is
    remembered without the 过胡 checkbox."""
    s, _ = dealt({0: HU_OR_LONG, 1: JUNK}, "四", seat_count=2)
    s, ev = play(s, Long(0))
    assert first(ev, LongLaidDown).seat == 0 and s.seats[0].guo_hu_fan is None


def test_hejiang_lays_the_long_down_at_once() -> None:
    opts = Options(variant=Variant.HEJIANG)
    s, ev = dealt({0: HU_OR_LONG, 1: JUNK}, "四", seat_count=2, options=opts)
    assert not any(isinstance(e, Prompted) and e.prompt is PromptKind.HU_OR_LONG for e in ev)
    laid = [e for e in ev if isinstance(e, LongLaidDown)]
    assert [x.seat for x in laid] == [0]
    assert s.phase is Phase.DISCARD and s.turn == 0


def test_the_21st_card_completing_a_kan_without_a_win_is_a_plain_long() -> None:
    hand = "四四四 五九 七八九 壹贰叁 肆伍陆 柒捌玖 二七十"
    s, ev = dealt({0: hand, 1: JUNK}, "四", seat_count=2)
    assert not any(isinstance(e, Prompted) and e.prompt is PromptKind.HU_OR_LONG for e in ev)
    assert first(ev, LongLaidDown).seat == 0


def test_luzhou_choosing_long_over_hu_is_a_guo_hu_under_sheng_fan() -> None:
    opts = Options(guo_hu=True, guo_zhang_sheng_fan=True)
    s, _ = dealt({0: HU_OR_LONG, 1: JUNK}, "四", seat_count=2, options=opts)
    s, ev = play(s, Long(0))
    made = first(ev, ClaimMade)
    # 自摸 with 四 ×4 in hand: 自摸 + 归 = 2 fan (red 七, 二, 十, 柒 — not all black)
    assert made.claim is not None and made.claim.kind is ClaimKind.LONG
    assert made.guo_hu_fan == 2 and s.seats[0].guo_hu_fan == 2
    assert first(ev, LongLaidDown).seat == 0
