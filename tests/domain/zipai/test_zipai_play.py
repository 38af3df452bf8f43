"""Play after the deal: 进张 then discard, 八块, 爆 and 招, 过胡 options, 荒庄, refusals."""

from __future__ import annotations

import pytest

from domain.engine import MalformedCommand, NotYourTurn, RuleViolation
from domain.zipai import RULES, Options
from domain.zipai.commands import Chi, Discard, Hu, Long, PassClaim, Peng, Zhao
from domain.zipai.events import (
    CardDiscarded,
    CardFlipped,
    ClaimMade,
    HuangZhuang,
    Hued,
    LongLaidDown,
    Penged,
    WinKind,
    Zhaoed,
)
from domain.zipai.melds import MeldKind
from domain.zipai.rules import win_fan
from domain.zipai.state import Phase
from tests.domain.zipai.helpers import discard, first, ids_of, play, table

GUO_HU = Options(guo_hu=True)  # the 过胡 checkbox: after a pass, only a 升番 胡
SHENG_FAN = Options(guo_hu=True, guo_zhang_sheng_fan=True)  # the same checkbox, both names
CLAIMED = Options(optional_peng_long=True)  # 碰 / in-play 拢 as claims, not automatic


# ---------------------------------------------------------------------------- 进张 then discard


def test_after_peng_the_claimer_discards() -> None:
    # 每进一张牌，就必须打一张; 碰牌自动碰下去: the 碰 is made as the card is shown
    s = table({0: "五九", 1: "一", 2: "五五 一二"})
    s, ev = discard(s, 0, "五")
    assert first(ev, Penged).seat == 2
    assert s.phase is Phase.DISCARD and s.turn == 2
    s, ev = discard(s, 2, "一")
    assert isinstance(ev[0], CardDiscarded)


def test_after_chi_the_eater_discards() -> None:
    s = table({0: "五九", 1: "四六 八 一", 2: "二"})
    s, _ = discard(s, 0, "五")
    s, _ = play(s, Chi(1, ids_of(s, 1, "四六")))
    assert s.phase is Phase.DISCARD and s.turn == 1


def test_a_kan_card_may_not_be_discarded_while_other_cards_are_left() -> None:
    s = table({0: "五五五 九", 1: "一", 2: "二"})
    with pytest.raises(RuleViolation) as e:
        discard(s, 0, "五")
    assert (e.value.reason, e.value.rule) == ("KAN_UNBREAKABLE", "一坎牌")
    assert {c.card for c in RULES.legal_commands(s, 0)} == set(ids_of(s, 0, "九"))


def test_a_hand_of_only_a_kan_may_discard_from_it() -> None:
    s = table({0: "五五五", 1: "一", 2: "二"})
    assert len(RULES.legal_commands(s, 0)) == 3


# ---------------------------------------------------------------------------- 八块


def test_first_zhao_discards_second_zhao_does_not() -> None:
    # 招的牌为第一次时，需从手中打出1张牌。第二次及以上招牌，不打牌 / 八块 → 下家摸牌
    s = table({0: "五九 一", 1: "二", 2: "五五五 八八八 三 十"}, "八")
    s, _ = discard(s, 0, "五")
    s, ev = play(s, Zhao(2))
    assert first(ev, Zhaoed).discard_required
    s, ev = discard(s, 2, "三")
    # nobody takes 三; seat 0 (seat 2's 下家) flips 八 and seat 2 konges it again
    assert first(ev, CardFlipped).seat == 0
    s, ev = play(s, Zhao(2))
    z = first(ev, Zhaoed)
    assert not z.discard_required
    assert first(ev, CardFlipped).seat == 0  # no discard: 下家 flips at once
    assert s.seats[2].long_zhao_count == 2


def test_an_opening_long_makes_the_first_zhao_ba_kuai() -> None:
    # 当招或者拢超过1次时，称为八块: a 拢 from the deal counts
    s = table(
        {0: "五九", 1: "二", 2: "五五五 三"},
        melds={2: [(MeldKind.LONG, "八八八八")]},
    )
    s, _ = discard(s, 0, "五")
    s, ev = play(s, Zhao(2))
    assert not first(ev, Zhaoed).discard_required
    assert first(ev, CardFlipped).seat == 0


def test_long_on_ones_own_flip_before_bao_is_laid_down_at_once() -> None:
    """zp:15 若未爆牌，补张的牌若还能与手里的一坎牌组成4张，则当做拢处理: automatic."""
    s = table({0: "一九", 1: "七七七 二三", 2: "十"}, "七")
    s, ev = discard(s, 0, "九")
    laid = first(ev, LongLaidDown)
    assert laid.seat == 1 and laid.taken and laid.discard_required
    assert RULES.to_act(s) == (1,) and s.phase is Phase.DISCARD


def test_long_on_ones_own_flip_before_bao() -> None:
    s = table({0: "一九", 1: "七七七 二三", 2: "十"}, "七", options=CLAIMED)
    s, _ = discard(s, 0, "九")
    assert RULES.legal_commands(s, 1)[0] == Long(1)
    with pytest.raises(RuleViolation) as e:
        play(s, Zhao(1))
    assert e.value.reason == "OWN_FLIP_IS_LONG"
    s, ev = play(s, Long(1))
    laid = first(ev, LongLaidDown)
    assert laid.taken and laid.discard_required and len(laid.hidden) == 3


def test_long_is_only_for_ones_own_flip() -> None:
    s = table({0: "七九", 1: "一", 2: "七七七 二"})
    s, _ = discard(s, 0, "七")
    with pytest.raises(RuleViolation) as e:
        play(s, Long(2))
    assert e.value.reason == "NOT_OWN_FLIP"


# ---------------------------------------------------------------------------- 爆


def test_after_bao_no_chi_and_no_peng() -> None:
    s = table({0: "五九", 1: "四六 五五 一二三 八八", 2: "二"}, bao=(1,), options=GUO_HU)
    s, _ = discard(s, 0, "五")
    assert 1 not in RULES.to_act(s)
    s2 = table({0: "五九", 1: "四六 五五 一二三 八八", 2: "二"}, options=GUO_HU)
    s2, _ = discard(s2, 0, "五")
    assert 1 in RULES.to_act(s2)


def test_bao_refusals_name_the_rule() -> None:
    # seat 1 is asked (it may 招 the 五) but may not 碰 or 吃 after 爆
    s = table({0: "五九", 1: "五五五 一二 七八九", 2: "二"}, bao=(1,))
    s, _ = discard(s, 0, "五")
    assert RULES.legal_commands(s, 1) == [Zhao(1), PassClaim(1)]
    with pytest.raises(RuleViolation) as e:
        play(s, Chi(1, ids_of(s, 1, "一二")))
    assert (e.value.reason, e.value.rule) == ("BAO_NO_CHI", "爆牌")
    with pytest.raises(RuleViolation) as e:
        play(s, Peng(1))
    assert e.value.reason in ("BAO_NO_PENG", "KAN_UNBREAKABLE")


def test_bao_then_zhao_needs_no_discard() -> None:
    # 爆牌后…可以招牌，招牌后不用出牌，继续下家拿牌 (even the first 招)
    s = table({0: "五九", 1: "二", 2: "五五五 七八 一二三"}, "十", bao=(2,))
    s, _ = discard(s, 0, "五")
    s, ev = play(s, Zhao(2))
    z = first(ev, Zhaoed)
    assert not z.discard_required
    assert first(ev, CardFlipped).seat == 0
    assert s.seats[2].bao


def test_after_bao_ones_own_flip_onto_a_kan_is_a_zhao() -> None:
    # 若已爆牌，补张的牌若还能与手里的一坎牌组成4张，则当做招处理
    auto = table({0: "一拾", 1: "五五五 七八 一二三", 2: "十"}, "五", bao=(1,))
    auto, ev = discard(auto, 0, "拾")
    assert first(ev, Zhaoed).seat == 1 and not first(ev, Zhaoed).discard_required
    s = table({0: "一拾", 1: "五五五 七八 一二三", 2: "十"}, "五", bao=(1,), options=CLAIMED)
    s, _ = discard(s, 0, "拾")
    assert first_legal(s, 1) == Zhao(1)
    with pytest.raises(RuleViolation) as e:
        play(s, Long(1))
    assert e.value.reason == "BAO_LONG_IS_ZHAO"
    s, ev = play(s, Zhao(1))
    assert not first(ev, Zhaoed).discard_required


def first_legal(s, seat):  # type: ignore[no-untyped-def]
    return RULES.legal_commands(s, seat)[0]


def test_bao_wins_on_the_card_it_needs() -> None:
    s = table({0: "六九", 1: "二", 2: "五五五 七八 一二三"}, bao=(2,))
    s, _ = discard(s, 0, "六")
    s, ev = play(s, Hu(2))
    won = first(ev, Hued)
    assert won.seat == 2 and won.win_kind is WinKind.DIAN_PAO


# ---------------------------------------------------------------------------- 过胡


def test_zp54_a_win_may_always_be_passed_and_nothing_is_remembered() -> None:
    """zp:53-54 过胡做勾选项…不勾选则没有过胡限制: given no 过胡 checkbox and seat 2 able to
    胡 (and to 碰, which is automatic); when it passes; then its 碰 is made and nothing is
    remembered; a later 胡 is open."""
    s = table({0: "五九", 1: "二", 2: "五五 六七八"})
    s, _ = discard(s, 0, "五")
    assert RULES.legal_commands(s, 2) == [Hu(2), PassClaim(2)]
    s, ev = play(s, PassClaim(2))
    assert first(ev, ClaimMade).guo_hu_fan is None and first(ev, Penged).seat == 2
    s2 = table({0: "五九", 1: "二", 2: "五五 六七八"}, options=CLAIMED, guo_hu_fan={2: 0})
    s2, _ = discard(s2, 0, "五")
    assert Hu(2) in RULES.legal_commands(s2, 2)


def test_zp53_guo_hu_and_guo_zhang_sheng_fan_are_one_checkbox() -> None:
    assert RULES.check_options(Options(guo_hu=True)).guo_zhang_sheng_fan
    assert RULES.check_options(Options(guo_zhang_sheng_fan=True)).guo_hu
    assert RULES.check_options(GUO_HU) == RULES.check_options(SHENG_FAN)


def test_guo_zhang_sheng_fan_remembers_the_fan_passed_up() -> None:
    s = table({0: "五九", 1: "二", 2: "五五 六七八"}, options=SHENG_FAN)
    s, _ = discard(s, 0, "五")
    fan = win_fan(s, 2, s.shown, WinKind.DIAN_PAO)
    s, ev = play(s, PassClaim(2))
    assert first(ev, ClaimMade).guo_hu_fan == fan
    assert s.seats[2].guo_hu_fan == fan


def test_guo_zhang_sheng_fan_blocks_a_win_of_no_more_fan() -> None:
    # passed a 点炮 worth 0 fan: the same 点炮 is refused … (碰 a claim, so seat 2 is asked)
    options = Options(guo_hu=True, optional_peng_long=True)
    s = table({0: "五九", 1: "二", 2: "五五 六七八"}, options=options, guo_hu_fan={2: 0})
    s, _ = discard(s, 0, "五")
    assert Hu(2) not in RULES.legal_commands(s, 2)
    with pytest.raises(RuleViolation) as e:
        play(s, Hu(2))
    assert (e.value.reason, e.value.rule) == ("GUO_HU", "过张升番胡")


def test_guo_zhang_sheng_fan_allows_zimo_after_passing_dianpao() -> None:
    # … but a 自摸 on the same card is worth one fan more (点炮点过后自摸)
    s = table({0: "一九", 1: "二", 2: "五五 六七八"}, "三五", options=SHENG_FAN, guo_hu_fan={2: 0})
    s, _ = discard(s, 0, "九")  # seat 1 flips 三, nobody takes it; seat 2 flips 五
    assert s.shown_by == 2 and s.shown_flipped
    assert Hu(2) in RULES.legal_commands(s, 2)
    s, ev = play(s, Hu(2))
    assert first(ev, Hued).win_kind is WinKind.ZI_MO


# ---------------------------------------------------------------------------- 荒庄


def test_huang_zhuang_when_the_stock_runs_out() -> None:
    s = table({0: "五九", 1: "一", 2: "二"}, "", full_stock=False)
    s, ev = discard(s, 0, "九")
    assert isinstance(ev[-1], HuangZhuang)
    out = RULES.outcome(s)
    assert out is not None and out.winners == () and out.reason == "HUANG_ZHUANG"
    assert RULES.to_act(s) == ()


def test_the_last_card_can_still_win() -> None:
    s = table({0: "四九", 1: "六七 一二三", 2: "二"}, "五", full_stock=False)
    s, ev = discard(s, 0, "九")
    s, ev = play(s, Hu(1))
    assert first(ev, Hued).win_kind is WinKind.ZI_MO
    out = RULES.outcome(s)
    assert out is not None and out.reason == "HU"


# ---------------------------------------------------------------------------- refusals


def test_not_your_turn() -> None:
    s = table({0: "五九", 1: "一", 2: "二"})
    with pytest.raises(NotYourTurn):
        play(s, Discard(1, ids_of(s, 1, "一")[0]))


def test_malformed_commands() -> None:
    s = table({0: "五九", 1: "一", 2: "二"})
    with pytest.raises(MalformedCommand) as e:
        play(s, Discard(7, 1))
    assert e.value.field == "seat"
    with pytest.raises(MalformedCommand) as e:
        play(s, Discard(0, 99))
    assert e.value.field == "card"
    with pytest.raises(RuleViolation) as e2:
        play(s, Discard(0, ids_of(s, 1, "一")[0]))
    assert e2.value.reason == "NOT_IN_HAND"


def test_wrong_command_for_the_moment() -> None:
    s = table({0: "五九", 1: "一", 2: "二"})
    with pytest.raises(RuleViolation) as e:
        play(s, Peng(0))
    assert e.value.reason == "NOT_NOW"


def test_nothing_after_the_hand_is_over() -> None:
    s = table({0: "五九", 1: "一", 2: "二"}, "", full_stock=False)
    s, _ = discard(s, 0, "九")
    with pytest.raises(RuleViolation) as e:
        play(s, Discard(0, ids_of(s, 0, "五")[0]))
    assert e.value.reason == "HAND_OVER"


def test_decide_never_mutates_the_state() -> None:
    import copy

    s = table({0: "五九", 1: "四六 八", 2: "五五一"})
    before = copy.deepcopy(s)
    RULES.decide(s, Discard(0, ids_of(s, 0, "五")[0]))
    assert s == before


# ---------------------------------------------------------------------------- 7列21张, 八块拢牌除外


def test_with_a_long_the_hand_wins_with_a_pair() -> None:
    # one 拢 on the table: 17 cards in hand (5 列 + a single) win on the single's pair
    s = table(
        {0: "十九", 1: "一", 2: "一二三 四五六 七八九 壹贰叁 肆伍陆 十"},
        melds={2: [(MeldKind.LONG, "捌捌捌捌")]},
    )
    s, _ = discard(s, 0, "十")
    s, ev = play(s, Hu(2))
    won = first(ev, Hued)
    assert [len(g.cards) for g in won.groups].count(2) == 1


def test_three_zhao_is_no_win_by_itself() -> None:
    # 不能三招胡: a third 招 after 爆 keeps the hand ready but does not win
    s = table(
        {0: "五九", 1: "二", 2: "五五五 七八 一二三"},
        melds={2: [(MeldKind.ZHAO, "捌捌捌捌"), (MeldKind.ZHAO, "玖玖玖玖")]},
        bao=(2,),
    )
    s, _ = discard(s, 0, "五")
    assert RULES.legal_commands(s, 2) == [Zhao(2), PassClaim(2)]
    s, ev = play(s, Zhao(2))
    assert s.phase is not Phase.OVER and s.seats[2].long_zhao_count == 3
