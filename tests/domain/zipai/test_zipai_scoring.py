"""Scoring profiles (NONE / LUZHOU) and the dealer of the next hand."""

from __future__ import annotations

from domain.zipai import RULES, Options, next_dealer
from domain.zipai.commands import Hu
from domain.zipai.events import Hued, WinKind
from domain.zipai.melds import MeldKind
from domain.zipai.options import DealerRule, ScoringProfile
from domain.zipai.scoring import base_points, fan_of
from tests.domain.zipai.helpers import discard, first, kinds, play, table

LUZHOU = Options(scoring=ScoringProfile.LUZHOU)


def test_no_scoring_profile_reports_the_winner_only() -> None:
    s = table({0: "三九", 1: "一", 2: "一二 五五五 贰柒拾"})
    s, _ = discard(s, 0, "三")
    s, _ = play(s, Hu(2))
    out = RULES.outcome(s)
    assert out is not None
    assert out.winners == (2,) and out.scores == (0, 0, 0) and out.reason == "HU"


def test_luzhou_dian_pao_the_discarder_pays() -> None:
    # hand 一二三 (3) 五五五 坎 (6) 贰柒拾 (9) + 碰 拾拾拾 (9) = 27 胡 → base 3;
    # fan: 归 of 拾 (the 碰 and the 贰柒拾 hold all four) = 1 → 3 × (1 + 1) = 6
    s = table(
        {0: "三九", 1: "一", 2: "一二 五五五 贰柒拾"},
        options=LUZHOU,
        melds={2: [(MeldKind.PENG, "拾拾拾")]},
    )
    s, _ = discard(s, 0, "三")
    s, ev = play(s, Hu(2))
    won = first(ev, Hued)
    assert (won.hu_points, won.fan) == (27, 1)
    assert won.scores == (-6, 0, 6)
    out = RULES.outcome(s)
    assert out is not None and out.scores == (-6, 0, 6)


def test_luzhou_zi_mo_everyone_pays() -> None:
    # 五六七 (0) 一二三 (3) 十十十 坎 (9) = 12 胡 → base 2; fan 自摸 = 1 → 4 from each seat
    s = table({0: "四九", 1: "六七 一二三 十十十", 2: "二"}, "五", options=LUZHOU)
    s, _ = discard(s, 0, "九")
    s, ev = play(s, Hu(1))
    won = first(ev, Hued)
    assert won.win_kind is WinKind.ZI_MO and (won.hu_points, won.fan) == (12, 1)
    assert won.scores == (-4, 8, -4)


def test_luzhou_a_win_on_another_seats_flip_is_paid_by_all_without_zi_mo() -> None:
    s = table({0: "四九", 1: "二", 2: "六七 一二三 十十十"}, "五", options=LUZHOU)
    s, _ = discard(s, 0, "九")
    s, ev = play(s, Hu(2))
    won = first(ev, Hued)
    assert won.win_kind is WinKind.FAN_PAI and won.fan == 0
    assert won.scores == (-2, -2, 4)


def test_a_pair_completed_by_another_seats_card_counts_as_peng_not_kan() -> None:
    s = table({0: "五九", 1: "二", 2: "五五 六七八 十十十"}, options=LUZHOU)
    s, _ = discard(s, 0, "五")
    s, ev = play(s, Hu(2))
    assert first(ev, Hued).hu_points == 1 + 9  # 碰 of small black 五 (1), 坎 of 十 (9)


def test_fan_bonuses() -> None:
    black = [k * 4 for k in kinds("一三四五六八九")]
    assert fan_of(black, WinKind.DIAN_PAO, False) == 3  # all black (黑 = 3 fan, published)
    assert fan_of(black, WinKind.ZI_MO, True) == 5  # + 自摸 + 爆
    red = [k * 4 + j for k in kinds("二七十") for j in range(4)]
    assert fan_of(red, WinKind.DIAN_PAO, False) == 1 + 3  # ten red or more, three 归


def test_base_points_by_hu() -> None:
    assert [base_points(h) for h in (0, 19, 20, 29, 30, 39, 40, 90)] == [2, 2, 3, 3, 4, 4, 5, 5]


def _over(winner: int | None, dealer: int = 0, rule: DealerRule = DealerRule.WINNER):  # type: ignore[no-untyped-def]
    s = table({0: "五九", 1: "一", 2: "二"}, dealer=dealer)
    return Options(dealer_rule=rule), s.__class__(**{**s.__dict__, "winner": winner})


def test_next_dealer_winner_deals() -> None:
    opts, s = _over(2)
    assert next_dealer(opts, s) == 2
    opts, s = _over(None)
    assert next_dealer(opts, s) == 0  # 荒庄: the dealer deals again


def test_next_dealer_rotating() -> None:
    opts, s = _over(0, rule=DealerRule.ROTATE)
    assert next_dealer(opts, s) == 0  # 庄家胡牌则连庄
    opts, s = _over(2, rule=DealerRule.ROTATE)
    assert next_dealer(opts, s) == 1  # 其他玩家胡牌则庄家下家坐庄
    opts, s = _over(None, dealer=2, rule=DealerRule.ROTATE)
    assert next_dealer(opts, s) == 0  # 荒庄 passes the deal on
