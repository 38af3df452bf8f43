"""Given/when/then tests for the 川南字牌 readings of issue 14 (docs/rules/zipai.md, "Readings
offered as options" and clauses 50-57). ``zp:N`` is line N of chuannan-zipai-rules.txt.

Others live beside the rules they change: passing a 胡 (play ``test_zp54_*``, open
``test_three_long_with_a_complete_hand_is_offered_hu``, ``test_luzhou_*``), automatic 碰 / 拢
(claims ``test_a_seat_may_pong_its_own_flip``, play ``test_long_on_ones_own_flip_*``), the
own flip (claims ``test_an_unclaimed_flip_counts_*``), no prompt for no seat (claims
``test_nobody_can_claim_*``, open ``test_the_dealer_takes_a_21st_card_*``).
"""

from __future__ import annotations

import pytest

from domain import table as tables
from domain.engine import NotYourTurn, RuleViolation
from domain.zipai import RULES, Options
from domain.zipai.commands import Chi, Hu, PassClaim, Peng
from domain.zipai.events import Hued
from domain.zipai.hu import WIN_UNITS, hand_units, is_winning
from domain.zipai.options import FirstDealer, ScoringProfile
from tests.domain.zipai.helpers import Ids, discard, first, ids_of, kinds, play, table

LUZHOU = Options(scoring=ScoringProfile.LUZHOU)


def refusal(state, command) -> RuleViolation:  # type: ignore[no-untyped-def]
    with pytest.raises(RuleViolation) as e:
        play(state, command)
    return e.value


# --- 2. the first dealer: 首进入房间的玩家坐庄 (zp:9) -------------------------------------------


def _started(options: Options, order: tuple[int, ...]) -> tables.Table:
    (created,) = tables.create(RULES, options, 3, "arbiter", "secret")
    table = tables.evolve(None, created)
    for seat in order:
        for fact in tables.take_seat(table, seat, f"p{seat}", f"h{seat}"):
            table = tables.evolve(table, fact)
    for fact in tables.start(table):
        table = tables.evolve(table, fact)
    return table


def test_zp9_the_first_seat_taken_deals() -> None:
    """Given seats taken in the order 2, 0, 1; when the game starts; then seat 2 deals (it has
    21 cards) and the table's options name it."""
    table = _started(Options(), (2, 0, 1))
    assert table.game.dealer == 2 and len(table.game.seats[2].hand) >= 20
    assert table.options.dealer == 2 and table.options.first_dealer is FirstDealer.SEAT


def test_the_table_may_say_otherwise() -> None:
    """Given the table's dealer 1 (a non-zero ``dealer`` means first_dealer SEAT); then seat 1
    deals whoever sat first; seat 0 is chosen with first_dealer SEAT."""
    assert _started(Options(dealer=1), (2, 0, 1)).game.dealer == 1
    assert _started(Options(first_dealer=FirstDealer.SEAT), (2, 0, 1)).game.dealer == 0


# --- 3. claim windows, for client authors -----------------------------------------------------


def test_a_seat_left_out_for_guo_zhang_hears_the_rule() -> None:
    """Given seat 1 passed up eating 五 before (过张); when 五 is discarded and it tries to eat;
    then it hears GUO_ZHANG, not NOT_YOUR_TURN (seat 2, able to 胡, keeps the window open)."""
    s = table({0: "五九", 1: "四六 八", 2: "六七 八八"}, guo_zhang={1: tuple(kinds("五"))})
    s, _ = discard(s, 0, "五")
    assert RULES.to_act(s) == (2,)
    err = refusal(s, Chi(1, ids_of(s, 1, "四六")))
    assert err.reason == "GUO_ZHANG" and not isinstance(err, NotYourTurn)


def test_a_seat_left_out_for_bao_hears_the_rule() -> None:
    s = table({0: "五九", 1: "四六 八 九九九 一二三", 2: "六七 八八"}, bao=(1,))
    s, _ = discard(s, 0, "五")
    assert RULES.to_act(s) == (2,)
    assert reason(s, Chi(1, ids_of(s, 1, "四六"))) == "BAO_NO_CHI"


def test_a_seat_that_answered_hears_so() -> None:
    s = table({0: "五九", 1: "四六八", 2: "五五一"}, options=Options(optional_peng_long=True))
    s, _ = discard(s, 0, "五")
    s, _ = play(s, Peng(2))
    assert reason(s, PassClaim(2)) == "ALREADY_ANSWERED"


def test_a_seat_with_an_automatic_peng_hears_that_it_is_made() -> None:
    """Given seat 2 with a pair of the card and seat 1 able to eat it; then seat 2 is not
    asked (its 碰 is automatic) and a Peng from it hears AUTOMATIC_CLAIM; when seat 1 eats;
    then the 碰 outranks the 吃."""
    s = table({0: "五九", 1: "四六八", 2: "五五一"})
    s, _ = discard(s, 0, "五")
    assert RULES.to_act(s) == (1,)
    assert reason(s, Peng(2)) == "AUTOMATIC_CLAIM"
    s, ev = play(s, Chi(1, ids_of(s, 1, "四六")))
    assert [type(e).__name__ for e in ev][:2] == ["ClaimMade", "Penged"] and s.turn == 2


def reason(state, command) -> str:  # type: ignore[no-untyped-def]
    return refusal(state, command).reason


# --- 6. the win detector counts 列 (胡牌时必须是7列, zp:60) --------------------------------------


def test_zp60_a_hand_of_eight_lie_is_no_win() -> None:
    """Given 24 cards that split into 8 列 (no melds); then the detector calls it no win;
    21 cards of 7 列 win; 18 cards win only beside one meld."""
    ids = Ids()
    eight = ids.take("一二三 四五六 七八九 壹贰叁 肆伍陆 柒捌玖 二七十 贰柒拾")
    assert is_winning(eight) and not is_winning(eight, None, 0)  # structure alone is not all
    seven = eight[:21]
    assert is_winning(seven, None, 0) and hand_units(21) == WIN_UNITS
    assert is_winning(seven[:18], None, 1) and not is_winning(seven[:18], None, 0)


# --- 7. the 泸州 profile's 胡息 minimum -----------------------------------------------------------


def test_luzhou_needs_ten_hu_or_none() -> None:
    """Given a complete hand worth 3 胡 (一二三); then under 泸州 it is no 胡 (TOO_FEW_HU, not
    offered); without a profile it wins; a hand worth 0 胡 (乱) wins under 泸州 too."""
    hand = {0: "四九", 1: "三五 八", 2: "五六 一二三"}  # seat 1 may eat 四: the window stays
    s = table(hand, options=LUZHOU)
    s, _ = discard(s, 0, "四")
    assert RULES.to_act(s) == (1,) and Hu(2) not in RULES.legal_commands(s, 2)
    assert reason(s, Hu(2)) == "TOO_FEW_HU"
    free = table(hand)
    free, _ = discard(free, 0, "四")
    free, _ = play(free, Hu(2))
    free, ev = play(free, PassClaim(1))
    assert first(ev, Hued).hu_points == 3
    luan = table({0: "四九", 1: "二", 2: "五六 肆伍陆"}, options=LUZHOU)
    luan, _ = discard(luan, 0, "四")
    luan, ev = play(luan, Hu(2))
    assert first(ev, Hued).hu_points == 0
