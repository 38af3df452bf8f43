"""Given/when/then tests for 常规 / 完全 / 专业 modes: 吟诵 alternation, special combos, the
dynamic hand limit, the four seasons and the optional rules (phase B).

``part1:N`` is line N of huaniao-rules-part1.txt, ``part2:N`` of
huaniao-rules-part2-decoded.txt.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain.engine import InvalidOptions, NotYourTurn, RuleViolation, Viewer
from domain.huaniao import RULES, CardClass, Combo, Mode, Options, Perch, Play
from domain.huaniao.commands import ChangeSeason, Guess
from domain.huaniao.events import (
    CardsExchanged,
    DiscardRequired,
    Drew,
    GuessesRevealed,
    GuessingOpened,
    GuessMade,
    HandLimitChanged,
    PlayRestarted,
    SeasonChanged,
)
from domain.huaniao.rules import initial_state, seasons_of
from domain.huaniao.terms import Cause, Need, Phase, PlayKind, Season

from .tables import discard, hand_kinds, play, refusal, run, table, types

REGULAR = Options(mode=Mode.REGULAR)
SP = Season.SPRING


def regular(hands: list[str], deck: str = "", **kw) -> object:
    kw.setdefault("verse_due", False)
    kw.setdefault("need", Need.ANY)
    kw.setdefault("reference", 1)
    return table(hands, deck, mode=Mode.REGULAR, **kw)


def rule_of(err: Exception) -> tuple[str, str]:
    assert isinstance(err, RuleViolation), err
    return err.reason, err.rule


# --- 吟诵 alternation (part1:63-73) -------------------------------------------------------------


def test_part1_63_after_a_yin_the_next_must_song() -> None:
    """part1:63 吟 ... 下家须“诵”，也就是必须“加牌”."""
    state = regular(["鸟" * 8, "鸟" * 8, "鸟" * 8], reference=2)
    state, _ = run(state, play(state, 0, "鸟鸟"))
    assert state.need == Need.SONG
    assert rule_of(refusal(state, play(state, 1, "鸟鸟"))) == ("MUST_RAISE", "诵")
    run(state, play(state, 1, "鸟鸟鸟"))


def test_part1_65_after_a_song_the_next_must_yin() -> None:
    """part1:65 诵 ... 下家须“吟唱”，也就是必须“跟牌”."""
    state = regular(["鸟" * 8, "鸟" * 8, "鸟" * 8], reference=2)
    state, _ = run(state, play(state, 0, "鸟鸟鸟"))
    assert state.need == Need.YIN
    assert rule_of(refusal(state, play(state, 1, "鸟" * 4))) == ("MUST_FOLLOW", "吟")
    state, events = run(state, play(state, 1, "鸟鸟鸟"))
    assert events[0].kind == PlayKind.YIN and state.need == Need.SONG


def test_part1_73_first_seat_choosing_wu_passes_the_choice_of_yin_or_song_on() -> None:
    """part1:73 第一家如果选择“舞”的操作时，决定“吟诵”的权利顺延至下家."""
    state = table(["鸟" * 8, "风" + "鸟" * 7, "鸟" * 8], "鸟鸟鸟", mode=Mode.REGULAR)
    state, _ = run(
        state, play(state, 0, "鸟", verse="春来花友会，夏夜鸟啼时。风过秋思追，月寒冬雪依。")
    )
    assert state.need == Need.ANY  # seat 1 decides 吟 or 诵
    state, _ = run(state, play(state, 1, "风", target=0), discard(state, 0, "鸟"))
    assert state.turn == 2 and state.need == Need.ANY
    state, events = run(state, play(state, 2, "鸟"))  # a 吟 of 1 is allowed
    assert events[0].kind == PlayKind.YIN and state.need == Need.SONG


def test_part1_179_daylight_in_regular_keeps_the_alternation_but_restarts() -> None:
    """part1:179-183 白昼规则2 is for 简易/基本 only; 白昼规则3 applies in 常规 with 白昼."""
    opts = Options(mode=Mode.REGULAR, daylight=True)
    state = table(["鸟" * 5, "鸟" * 5, "鸟" * 5], "十十十", options=opts, verse_due=False)
    state = replace(state, need=Need.ANY, reference=2)
    state, _ = run(state, play(state, 0, "鸟鸟"))
    assert state.need == Need.SONG
    state = replace(state, reference=30)
    state, events = run(state, Perch(1), Perch(2))
    state, events = run(state, Perch(0))
    assert types(events)[-1] == "PlayRestarted" and events[-1] == PlayRestarted(0)


def test_without_daylight_all_perching_does_not_restart() -> None:
    """part1:183 白昼规则3 only applies where 白昼 is chosen."""
    state = regular(["鸟" * 5, "鸟" * 5], "十十十", reference=30)
    state, events = run(state, Perch(0), Perch(1))
    assert "PlayRestarted" not in types(events) and state.need == Need.ANY


# --- dynamic hand limit (part1:109-129) ----------------------------------------------------


def test_part1_113_hand_limit_starts_at_eight_and_draw_comes_before_discard() -> None:
    """part1:77 先摸牌，后弃牌; part1:113 基础上限8张: at a table holding the limit at all times
    (``hand_limit_always``), a 栖 at 8 cards draws, then discards."""
    always = Options(mode=Mode.REGULAR, hand_limit_always=True)
    state = regular(["鸟鸟鸟十十十十十", "鸟" * 8], "万", reference=30, options=always)
    assert state.hand_limit == 8
    state, events = run(state, Perch(0))
    assert types(events) == ["Perched", "Drew", "DiscardRequired"]
    assert events[2] == DiscardRequired(0, 1, (Cause.HAND_LIMIT,))
    err = refusal(state, discard(state, 0, "万"))
    assert rule_of(err) == ("DISCARD_ORDER", "弃牌保护")
    state, _ = run(state, discard(state, 0, "鸟"))
    assert hand_kinds(state, 0) == "鸟鸟十十十十十万" and state.turn == 1


def test_part1_117_limit_changes_accumulate_example() -> None:
    """part1:117 上限8 → 天上天下 6 → 花鸟风月 7; part1:121 持有7张及以上玩家需要弃牌."""
    state = regular(["十百千万鸟鸟鸟鸟鸟", "花风鸟鸟鸟鸟鸟", "鸟" * 8])
    state, events = run(
        state, play(state, 0, "十百千万", combo=Combo.TIANSHANG_TIANXIA, announce=2)
    )
    assert HandLimitChanged(6, -2, Combo.TIANSHANG_TIANXIA) in events
    assert [e for e in events if isinstance(e, DiscardRequired)] == [
        DiscardRequired(1, 1, (Cause.HAND_LIMIT,)),
        DiscardRequired(2, 2, (Cause.HAND_LIMIT,)),
    ]
    assert set(RULES.to_act(state)) == {1, 2}
    state, _ = run(state, discard(state, 2, "鸟鸟"), discard(state, 1, "鸟"))
    assert state.turn == 1 and state.phase == Phase.PLAYING
    state, events = run(state, play(state, 1, "花风", combo=Combo.HUA_NIAO_FENG_YUE))
    assert HandLimitChanged(7, 1, Combo.HUA_NIAO_FENG_YUE) in events


def test_part1_113_limit_stays_between_four_and_twelve() -> None:
    """part1:113 最高12张，最低4张."""
    state = regular(["风月十十鸟", "鸟"], hand_limit=11)
    _, events = run(state, play(state, 0, "风月十十", combo=Combo.LIANG_FENG_YOU_XING, target=1))
    assert HandLimitChanged(12, 1, Combo.LIANG_FENG_YOU_XING) in events
    state = regular(["十百千万鸟", "鸟"], hand_limit=4)
    _, events = run(state, play(state, 0, "十百千万", combo=Combo.TIANSHANG_TIANXIA, announce=1))
    assert not [e for e in events if isinstance(e, HandLimitChanged)]


# --- special combos (part1:91-105) ---------------------------------------------------------


def test_part1_97_tianshang_tianxia_announces_the_count_and_bans_wu_next_turn() -> None:
    """part1:97-99 天上天下：十+百+千+万，宣言1-3张出牌，下家根据宣告进行吟诵; 使用者下回合不可出
    功能牌和特殊牌组."""
    state = regular(["十百千万风花鸟鸟", "鸟" * 6, "鸟" * 4], need=Need.YIN, reference=7)
    state, events = run(
        state, play(state, 0, "十百千万", combo=Combo.TIANSHANG_TIANXIA, announce=2)
    )
    assert events[0].kind == PlayKind.WU and events[0].announce == 2
    assert state.reference == 2 and state.need == Need.YIN
    state, _ = run(state, play(state, 1, "鸟鸟"), play(state, 2, "鸟鸟鸟"))
    assert state.turn == 0 and state.need == Need.YIN
    assert rule_of(refusal(state, play(state, 0, "风", target=1))) == ("DANCE_BANNED", "天上天下")
    assert rule_of(refusal(state, play(state, 0, "花鸟鸟")))[0] == "DANCE_BANNED"
    state, _ = run(state, Perch(0))  # nothing else: 栖 is allowed
    state, _ = run(state, play(state, 1, "鸟鸟鸟"), Perch(2))
    assert state.turn == 0
    run(state, play(state, 0, "风", target=1))  # the ban lasted one turn


@pytest.mark.parametrize("announce", [None, 0, 4])
def test_part1_97_tianshang_tianxia_needs_an_announcement_of_one_to_three(announce) -> None:
    """part1:97 宣言1-3张."""
    state = regular(["十百千万鸟", "鸟"])
    err = refusal(
        state, play(state, 0, "十百千万", combo=Combo.TIANSHANG_TIANXIA, announce=announce)
    )
    assert rule_of(err) == ("ANNOUNCE_REQUIRED", "天上天下")


def test_part1_93_special_combos_must_be_declared() -> None:
    """part1:93 特殊牌组 ... 在舞的操作时打出 -- undeclared, 十百千万 is not a bird play."""
    state = regular(["十百千万鸟", "鸟"])
    assert rule_of(refusal(state, play(state, 0, "十百千万")))[0] == "COMBO_NOT_DECLARED"


def test_part2_34_wrongly_declared_combo_is_refused() -> None:
    """part2:34-36 错误宣告特效: declaring a combo the cards do not form."""
    state = regular(["十十百千万鸟", "鸟"])
    err = refusal(state, play(state, 0, "十十百千", combo=Combo.TIANSHANG_TIANXIA, announce=1))
    assert rule_of(err) == ("WRONG_DECLARATION", "错误宣告特效")


def test_part1_101_hua_niao_feng_yue_everyone_passes_a_random_card_on() -> None:
    """part1:101 花鸟风月：任意2种不重复的功能牌，全员按照逆时针交换1张随机手牌."""
    state = regular(["花月鸟鸟", "十十", "万万", "百百"], "千千")
    state, events = run(state, play(state, 0, "花月", combo=Combo.HUA_NIAO_FENG_YUE))
    (ex,) = [e for e in events if isinstance(e, CardsExchanged)]
    assert [(t.from_seat, t.to_seat) for t in ex.transfers] == [(0, 1), (1, 2), (2, 3), (3, 0)]
    assert hand_kinds(state, 1) == "鸟十" and hand_kinds(state, 3) == "百万"
    assert len(state.hands[0].cards) == 2
    same = regular(["花花鸟", "鸟"])
    err = refusal(same, play(same, 0, "花花", combo=Combo.HUA_NIAO_FENG_YUE))
    assert rule_of(err)[0] == "WRONG_DECLARATION"  # 不重复: two different function cards


def test_part1_103_que_wu_man_shan_everyone_draws_three() -> None:
    """part1:103 雀舞满山：6张以上鸟或花牌，全员补3张手牌; part1:125 上限 -1."""
    state = regular(["鸟鸟鸟鸟花鸟鸟", "鸟", "鸟"], "十" * 9, reference=9)
    state, events = run(state, play(state, 0, "鸟鸟鸟鸟花鸟", combo=Combo.QUE_WU_MAN_SHAN))
    draws = [e for e in events if isinstance(e, Drew)]
    assert [(d.seat, d.count, d.cause) for d in draws] == [
        (0, 3, Cause.QUE_WU_MAN_SHAN),
        (1, 3, Cause.QUE_WU_MAN_SHAN),
        (2, 3, Cause.QUE_WU_MAN_SHAN),
    ]
    assert state.hand_limit == 7 and state.reference == 9


def test_six_birds_undeclared_are_an_ordinary_song() -> None:
    """part1:63-65: without the declaration six birds are a 诵 of 6, not 雀舞满山."""
    state = regular(["鸟" * 7, "鸟"])
    _, events = run(state, play(state, 0, "鸟" * 6))
    assert events[0].kind == PlayKind.SONG and events[0].count == 6 and events[0].combo is None


def test_part1_105_liang_feng_you_xing_bans_the_next_seat_from_hua_niao_feng_yue_cards() -> None:
    """part1:105 凉风有幸：风+月+相同两张数量牌，指定下家禁止出包含花鸟风月四张牌的任何组合
    -- reading: the 下家's next turn may not contain 花, 鸟, 风 or 月 (so it 栖 unless it has a
    pure number combo); part1:129 上限 +2."""
    state = regular(["风月十十鸟", "鸟鸟风十百千万", "鸟"], "百百")
    err = refusal(state, play(state, 0, "风月十十", combo=Combo.LIANG_FENG_YOU_XING, target=2))
    assert rule_of(err) == ("TARGET_MUST_BE_NEXT", "凉风有幸")
    state, events = run(
        state, play(state, 0, "风月十十", combo=Combo.LIANG_FENG_YOU_XING, target=1)
    )
    assert events[0].target == 1 and state.hand_limit == 10
    assert rule_of(refusal(state, play(state, 1, "鸟")))[1] == "凉风有幸"
    legal = RULES.legal_commands(state, 1)
    assert legal and all(c.combo == Combo.TIANSHANG_TIANXIA for c in legal)


def test_part1_165_season_combos_are_illegal_without_seasons() -> None:
    """part1:165 风花雪月和万紫千红在不启用四季更替的模式时为非法组合; part2:38."""
    state = regular(["风风月月万万千千", "鸟"])
    err = refusal(state, play(state, 0, "风风月月", combo=Combo.FENG_HUA_XUE_YUE, chosen_season=SP))
    assert rule_of(err) == ("ILLEGAL_COMBO", "非法组合")
    err = refusal(state, play(state, 0, "万万千千", combo=Combo.WAN_ZI_QIAN_HONG, chosen_season=SP))
    assert rule_of(err) == ("ILLEGAL_COMBO", "非法组合")


def test_special_combos_are_illegal_in_basic_mode() -> None:
    """part2:14 基本模式: 停用所有特殊牌组."""
    state = table(["十百千万鸟", "鸟"], verse_due=False, need=Need.ANY, reference=1)
    err = refusal(state, play(state, 0, "十百千万", combo=Combo.TIANSHANG_TIANXIA, announce=1))
    assert rule_of(err) == ("ILLEGAL_COMBO", "非法组合")
    assert all(c.combo is None for c in RULES.legal_commands(state, 0))


def test_part1_187_silent_night_bans_chosen_combos() -> None:
    """part1:185-191 静夜: 禁用特殊卡组 (最多三个); part1:95 视为非法组合."""
    opts = Options(mode=Mode.REGULAR, silent_night=(Combo.TIANSHANG_TIANXIA,))
    state = table(["十百千万鸟", "鸟"], options=opts, verse_due=False, need=Need.ANY, reference=1)
    err = refusal(state, play(state, 0, "十百千万", combo=Combo.TIANSHANG_TIANXIA, announce=1))
    assert rule_of(err) == ("COMBO_BANNED", "静夜")
    assert all(c.combo is None for c in RULES.legal_commands(state, 0))


# --- four seasons (part1:131-165) ------------------------------------------------------------


def full(hands: list[str], deck: str = "", **kw) -> object:
    kw.setdefault("verse_due", False)
    kw.setdefault("need", Need.ANY)
    kw.setdefault("reference", 1)
    return table(hands, deck, mode=Mode.FULL, **kw)


def test_part1_143_every_play_declares_its_season() -> None:
    """part1:143 简化流程时，玩家仅需要在出牌前声明自己经历的季节."""
    state = full(["鸟" * 8, "鸟" * 8])
    assert state.season == SP
    assert rule_of(refusal(state, play(state, 0, "鸟")))[0] == "SEASON_NOT_DECLARED"
    err = refusal(state, play(state, 0, "鸟", season=Season.WINTER))
    assert rule_of(err) == ("WRONG_SEASON", "四季更替")
    _, events = run(state, play(state, 0, "鸟", season=SP))
    assert events[0].season == SP


def test_part1_135_the_last_seat_of_the_round_declares_the_change_of_season() -> None:
    """part1:135-139 最后一名玩家出完牌后，需要声明“换季”; 春→夏→秋→冬."""
    state = full(["鸟" * 8, "鸟" * 8, "鸟" * 8])
    state, _ = run(state, play(state, 0, "鸟", season=SP), play(state, 1, "鸟鸟", season=SP))
    state, _ = run(state, play(state, 2, "鸟鸟", season=SP))
    assert state.phase == Phase.CHANGING_SEASON and RULES.to_act(state) == (2,)
    assert RULES.legal_commands(state, 2) == [ChangeSeason(2)]
    assert isinstance(refusal(state, play(state, 0, "鸟鸟", season=SP)), NotYourTurn)
    state, events = run(state, ChangeSeason(2))
    assert events == [SeasonChanged(2, Season.SUMMER, 2)]
    assert state.turn == 0 and state.season == Season.SUMMER


def test_part1_147_summer_birds_count_one_more() -> None:
    """part1:147 夏，鸟牌的计算数量额外+1（例如，鸟+十在夏季规则下，算作3张）."""
    state = full(["鸟十鸟", "鸟"], season=Season.SUMMER)
    _, events = run(state, play(state, 0, "鸟十", season=Season.SUMMER))
    assert events[0].count == 3


def test_part1_145_spring_flower_carries_three_number_cards() -> None:
    """part1:145 春，花牌可以携带最多3张数量牌."""
    state = full(["花十百千鸟", "鸟"])
    _, events = run(state, play(state, 0, "花十百千", season=SP))
    assert events[0].count == 7
    summer = replace(state, season=Season.SUMMER)
    err = refusal(summer, play(summer, 0, "花十百千", season=Season.SUMMER))
    assert rule_of(err)[0] == "TOO_MANY_NUMBER_CARDS"


def test_part1_149_autumn_moon_draws_two_and_winter_wind_discards_two() -> None:
    """part1:149-151 秋，月牌效果翻倍（摸2张牌）; 冬，风牌效果翻倍（弃2张牌）."""
    state = full(["月风鸟", "鸟鸟鸟鸟"], "十十", season=Season.AUTUMN)
    _, events = run(state, play(state, 0, "月", target=1, season=Season.AUTUMN))
    assert events[1].count == 2 and events[1].cause == Cause.MOON
    state = replace(state, season=Season.WINTER)
    _, events = run(state, play(state, 0, "风", target=1, season=Season.WINTER))
    assert events[1] == DiscardRequired(1, 2, (Cause.WIND,))


def test_part1_155_feng_hua_xue_yue_chooses_the_users_season_for_two_rounds() -> None:
    """part1:155 风花雪月：任意四张功能牌，仅对使用者有效，两回合内可以指定自己遵守的季节."""
    state = full(["风花月月鸟鸟", "鸟" * 8])
    err = refusal(state, play(state, 0, "风花月月", combo=Combo.FENG_HUA_XUE_YUE, season=SP))
    assert rule_of(err)[0] == "CHOSEN_SEASON_REQUIRED"
    state, events = run(
        state,
        play(
            state,
            0,
            "风花月月",
            combo=Combo.FENG_HUA_XUE_YUE,
            season=SP,
            chosen_season=Season.AUTUMN,
        ),
    )
    assert seasons_of(state, 0) == (Season.AUTUMN,) and seasons_of(state, 1) == (SP,)
    for rnd in (2, 3):
        assert seasons_of(replace(state, round=rnd, season=Season.SUMMER), 0) == (Season.AUTUMN,)
    assert seasons_of(replace(state, round=4, season=Season.WINTER), 0) == (Season.WINTER,)


def test_part1_161_wan_zi_qian_hong_adds_a_second_season_next_round() -> None:
    """part1:161 万紫千红：万+万+千+千，下回合额外选择一个季节，同时遵守2个季节的效果."""
    state = full(["万万千千鸟鸟", "鸟" * 8])
    state, _ = run(
        state,
        play(
            state,
            0,
            "万万千千",
            combo=Combo.WAN_ZI_QIAN_HONG,
            season=SP,
            chosen_season=Season.SUMMER,
        ),
    )
    assert seasons_of(state, 0) == (SP,)
    # the example (p1:163): played in 春 choosing X, next round 春+X whatever the table's season
    nxt = replace(state, round=2, season=Season.SUMMER)
    assert seasons_of(nxt, 0) == (SP, Season.SUMMER)
    state2 = replace(state, round=2, season=Season.AUTUMN)
    assert seasons_of(state2, 0) == (SP, Season.SUMMER)
    assert seasons_of(replace(state, round=3, season=Season.WINTER), 0) == (Season.WINTER,)


# --- optional rules of 专业模式 ------------------------------------------------------------------


def pro(hands: list[str], deck: str = "", **kw) -> object:
    flags = {
        k: kw.pop(k)
        for k in list(kw)
        if k in ("continuo", "twin_swallows", "spring_snow", "lofty_tune", "blossoms")
    }
    kw.setdefault("verse_due", False)
    kw.setdefault("need", Need.ANY)
    kw.setdefault("reference", 1)
    return table(hands, deck, options=Options(mode=Mode.PRO, **flags), **kw)


def test_part1_195_continuo_no_yin_unlimited_numbers_and_perch_draws_two() -> None:
    """part1:193-197 连奏：不能“吟”，只许“诵”和“舞”，数量卡没有限制，“栖”摸2张卡."""
    state = pro(["鸟鸟十百千", "鸟" * 8], "万万万", continuo=True, reference=2)
    assert rule_of(refusal(state, play(state, 0, "鸟鸟")))[0] == "MUST_RAISE"
    _, events = run(state, play(state, 0, "鸟十百千", season=SP))
    assert events[0].count == 7
    state = replace(state, reference=40)
    _, events = run(state, Perch(0))
    assert [e for e in events if isinstance(e, Drew)][0].count == 2


def test_part1_201_twin_swallows_single_function_card_needs_two_birds() -> None:
    """part1:199-203 双飞燕：出单张功能牌时必须附带2张鸟牌，此消耗不可用花牌替代."""
    state = pro(["风鸟鸟花鸟", "鸟" * 8], twin_swallows=True)
    err = refusal(state, play(state, 0, "风", target=1, season=SP))
    assert rule_of(err) == ("TWIN_SWALLOWS_NEEDS_TWO_BIRDS", "双飞燕")
    err = refusal(state, play(state, 0, "风鸟花", target=1, season=SP))
    assert rule_of(err)[1] in ("双飞燕", "非法组合")
    _, events = run(state, play(state, 0, "风鸟鸟", target=1, season=SP))
    assert events[0].kind == PlayKind.WU


def test_part1_207_spring_snow_everyone_draws_in_spring_and_discards_in_autumn() -> None:
    """part1:205-211 阳春白雪：每打出一张卡，全体玩家根据季节摸牌（春/夏）和弃牌（秋/冬）."""
    state = pro(["鸟鸟鸟", "鸟鸟", "鸟鸟"], "十十十", spring_snow=True)
    _, events = run(state, play(state, 0, "鸟", season=SP))
    assert [(e.seat, e.cause) for e in events if isinstance(e, Drew)] == [
        (1, Cause.SPRING_SNOW),
        (2, Cause.SPRING_SNOW),
        (0, Cause.SPRING_SNOW),
    ]
    assert types(events).index("Played") == 3  # 在出牌前: the draws come first
    state = replace(state, season=Season.AUTUMN)
    state, events = run(state, play(state, 0, "鸟", season=Season.AUTUMN))
    owed = [e for e in events if isinstance(e, DiscardRequired)]
    assert [(e.seat, e.count) for e in owed] == [(0, 1), (1, 1), (2, 1)]


def test_part2_1_lofty_tune_others_guess_the_last_card_and_it_draws_per_right_guess() -> None:
    """part2:1-2 曲高和寡：手牌只剩1张时，剩余玩家猜手牌类型，根据猜对的人数决定摸牌数."""
    state = pro(["鸟鸟", "鸟鸟鸟", "鸟鸟鸟", "鸟鸟鸟"], "十十十", lofty_tune=True)
    state, events = run(state, play(state, 0, "鸟", season=SP))
    assert events[-1] == GuessingOpened(0)
    assert set(RULES.to_act(state)) == {1, 2, 3} and state.phase == Phase.GUESSING
    state, events = run(state, Guess(1, CardClass.BIRD))
    assert events == [GuessMade(1, CardClass.BIRD)]
    assert RULES.redact(events[0], Viewer.of_seat(2)).card_class is None
    state, events = run(state, Guess(2, CardClass.NUMBER), Guess(3, CardClass.BIRD))
    (revealed,) = [e for e in events if isinstance(e, GuessesRevealed)]
    assert revealed.card_class == CardClass.BIRD and revealed.correct == 2
    assert [(e.seat, e.count, e.cause) for e in events if isinstance(e, Drew)] == [
        (0, 2, Cause.LOFTY_TUNE)
    ]
    assert len(state.hands[0].cards) == 3 and state.phase == Phase.PLAYING


def test_part2_2_lofty_tune_short_deck_takes_from_the_guessers() -> None:
    """part2:2 若不够就从BCD手中随机取."""
    state = pro(["鸟鸟", "十十", "百百"], "", lofty_tune=True, more_deck=False)
    state, _ = run(state, play(state, 0, "鸟", season=SP))
    state, events = run(state, Guess(1, CardClass.BIRD), Guess(2, CardClass.BIRD))
    taken = [e for e in events if type(e).__name__ == "CardTaken"]
    assert len(taken) == 2 and all(t.transfer.to_seat == 0 for t in taken)
    assert len(state.hands[0].cards) == 3
    assert len(state.hands[1].cards) + len(state.hands[2].cards) == 2


def test_part2_4_blossoms_single_flower_gives_two_more_actions() -> None:
    """part2:4-6 繁花似锦: 花牌不再代替鸟牌; 出单张花牌的玩家可以在出完这张牌之后进行2次操作
    (春季3次); 花牌带数量牌为非法组合."""
    state = pro(["花鸟鸟鸟鸟鸟", "鸟" * 8], blossoms=True, season=Season.SUMMER)
    summer = Season.SUMMER
    err = refusal(state, play(state, 0, "花鸟", season=summer))
    assert rule_of(err)[0] == "ILLEGAL_COMBINATION"
    state, events = run(state, play(state, 0, "花", season=summer))
    assert events[0].kind == PlayKind.WU and state.turn == 0 and state.extra_actions == 2
    state, _ = run(state, play(state, 0, "鸟", season=summer))
    assert state.turn == 0
    state, _ = run(state, play(state, 0, "鸟", season=summer))  # 夏: 鸟 counts 2, a 吟
    assert state.turn == 1 and state.extra_actions == 0
    spring = pro(["花鸟鸟鸟鸟鸟", "鸟" * 8], blossoms=True)
    spring, _ = run(spring, play(spring, 0, "花", season=SP))
    assert spring.extra_actions == 3
    numbers = pro(["花十鸟", "鸟"], blossoms=True)
    assert (
        rule_of(refusal(numbers, play(numbers, 0, "花十", season=SP)))[0]
        == "FLOWER_CARRIES_NUMBERS"
    )


# --- options and modes (part2:7-28) -----------------------------------------------------------


@pytest.mark.parametrize(
    "options, field",
    [
        (Options(mode=Mode.SIMPLE, daylight=False), "daylight"),
        (Options(mode=Mode.BASIC, daylight=False), "daylight"),
        (Options(mode=Mode.FULL, daylight=True), "daylight"),
        (Options(mode=Mode.PRO, daylight=True, continuo=True), "daylight"),
        (Options(mode=Mode.BASIC, silent_night=(Combo.TIANSHANG_TIANXIA,)), "silent_night"),
        (
            Options(
                mode=Mode.FULL,
                silent_night=(
                    Combo.TIANSHANG_TIANXIA,
                    Combo.QUE_WU_MAN_SHAN,
                    Combo.HUA_NIAO_FENG_YUE,
                    Combo.LIANG_FENG_YOU_XING,
                ),
            ),
            "silent_night",
        ),
        (Options(mode=Mode.REGULAR, silent_night=(Combo.FENG_HUA_XUE_YUE,)), "silent_night"),
        (Options(mode=Mode.FULL, continuo=True), "continuo"),
        (Options(mode=Mode.REGULAR, blossoms=True), "blossoms"),
        (Options(mode=Mode.PRO), "mode"),
    ],
)
def test_part2_7_modes_forbid_options(options: Options, field: str) -> None:
    """part2:7-28 三、版本: which rules each mode enables, allows or forbids."""
    with pytest.raises(InvalidOptions) as err:
        RULES.check_options(options)
    assert err.value.field == field


def test_part2_7_mode_defaults_are_filled_in() -> None:
    """part2:11/15 简易/基本 启用白昼规则; 常规 may choose it; 完全/专业 forbid it."""
    assert RULES.check_options(Options(mode=Mode.SIMPLE)).daylight is True
    assert RULES.check_options(Options(mode=Mode.BASIC)).daylight is True
    assert RULES.check_options(Options(mode=Mode.REGULAR)).daylight is False
    assert RULES.check_options(Options(mode=Mode.FULL)).daylight is False
    assert RULES.check_options(None) == RULES.check_options(Options())
    ok = Options(mode=Mode.PRO, silent_night=(Combo.WAN_ZI_QIAN_HONG,), spring_snow=True)
    assert RULES.check_options(ok).silent_night == (Combo.WAN_ZI_QIAN_HONG,)


def test_part2_28_pro_with_silent_night_alone_is_pro() -> None:
    """part2:28 在完全模式的基础上增加（除了白昼规则以外）一个及以上其他规则: 静夜 is one of the
    其他规则 (part1:185), so 专业 with 静夜 as its only added rule is accepted; 专业 with none is
    refused, and the message names 静夜 among the rules it may add."""
    only_silent_night = Options(mode=Mode.PRO, silent_night=(Combo.FENG_HUA_XUE_YUE,))
    assert RULES.check_options(only_silent_night).silent_night == (Combo.FENG_HUA_XUE_YUE,)
    with pytest.raises(InvalidOptions) as err:
        RULES.check_options(Options(mode=Mode.PRO))
    assert err.value.field == "mode" and "静夜" in str(err.value)


def test_part1_5_seat_counts() -> None:
    """part1:5 建议游戏人数：4人 -- four suggested; 2-4 seats are accepted."""
    assert RULES.seat_counts(Options()) == (2, 3, 4)
    with pytest.raises(InvalidOptions):
        initial_state(Options(), 5, RULES.new_deck(Options()), 1)


def test_modes_choose_their_mechanisms() -> None:
    """part2:18-25: 常规 has the hand limit, 完全 adds seasons."""
    deck = RULES.new_deck(REGULAR)
    regular_state = initial_state(REGULAR, 4, deck, 1)
    assert regular_state.hand_limit == 8 and regular_state.season is None
    full_state = initial_state(Options(mode=Mode.FULL), 4, deck, 1)
    assert full_state.hand_limit == 8 and full_state.season == SP
    basic_state = initial_state(Options(mode=Mode.BASIC), 4, deck, 1)
    assert basic_state.hand_limit is None and basic_state.season is None


OPTION_SETS = [
    Options(mode=Mode.REGULAR),
    Options(mode=Mode.REGULAR, silent_night=(Combo.QUE_WU_MAN_SHAN,)),
    Options(mode=Mode.FULL),
    Options(mode=Mode.PRO, continuo=True),
    Options(mode=Mode.PRO, twin_swallows=True),
    Options(mode=Mode.PRO, blossoms=True, twin_swallows=True),
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: f"{o.mode.name}")
def test_legal_plays_are_exactly_the_accepted_plays_in_every_mode(options: Options) -> None:
    """One classifier: a (cards, combo) pair is accepted by decide iff legal_commands lists a
    play with the same kinds and combo -- across needs, seasons, bans and optional rules."""
    import random

    from domain.huaniao.cards import CARDS
    from domain.huaniao.rules import declared_season

    rng = random.Random(options.mode.value)
    kinds = "鸟鸟鸟鸟鸟十十百百千千万万花花风风月月"
    for _ in range(100):
        hand = "".join(rng.choice(kinds) for _ in range(rng.randint(2, 11)))
        state = table(
            [hand, "鸟鸟", "鸟鸟"],
            options=options,
            verse_due=False,
            need=rng.choice([Need.ANY, Need.YIN, Need.SONG, Need.OPENING]),
            reference=rng.randint(1, 9),
        )
        if state.season is not None:
            state = replace(state, season=rng.choice(list(Season)))
        bans = rng.random()
        if bans < 0.15:
            state = replace(state, dance_ban_at=(0, -1, -1))
        elif bans < 0.3:
            state = replace(state, cool_ban_at=(0, -1, -1))
        season = declared_season(state, 0)
        legal = RULES.legal_commands(state, 0)
        listed = {
            (tuple(sorted(CARDS[c].kind.value for c in p.cards)), p.combo)
            for p in legal
            if isinstance(p, Play)
        }
        for command in legal:
            RULES.decide(state, command)
        ids = list(state.hands[0].cards)
        for _ in range(12):
            subset = tuple(rng.sample(ids, rng.randint(1, len(ids))))
            combo = rng.choice([None, None, *Combo])
            command = Play(
                0, subset, combo=combo, target=1, announce=2, season=season, chosen_season=SP
            )
            try:
                RULES.decide(state, command)
                accepted = True
            except RuleViolation:
                accepted = False
            key = (tuple(sorted(CARDS[c].kind.value for c in subset)), combo)
            assert accepted == (key in listed), (hand, key, state.need, state.reference)
