"""Given/when/then tests for the core rules (简易 and 基本 modes, phase A).

Every test names the seed clause it checks: ``part1:N`` is line N of
huaniao-rules-part1.txt, ``part2:N`` of huaniao-rules-part2-decoded.txt.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from domain.engine import MalformedCommand, NotYourTurn, RuleViolation
from domain.huaniao import RULES, CardKind, Mode, Options, Perch, Play
from domain.huaniao.cards import CARDS
from domain.huaniao.commands import Discard
from domain.huaniao.events import (
    Dealt,
    Discarded,
    DiscardRequired,
    GameEnded,
    HandsRecovered,
    LeaderChosen,
    Played,
    PlayRestarted,
    ShowdownDealt,
    SongEnded,
)
from domain.huaniao.plays import PlayRules, discard_choices, legal_shapes, unit_count
from domain.huaniao.rules import initial_state, showdown_pattern
from domain.huaniao.terms import (
    CLOSING_VERSE,
    OPENING_VERSE,
    OPENING_VERSE_TRADITIONAL,
    Cause,
    Need,
    Phase,
    PlayKind,
    ShowdownPattern,
)

from .tables import discard, hand_kinds, pick, play, refusal, run, table, types

V = OPENING_VERSE
BASIC = Options(mode=Mode.BASIC)
SIMPLE = Options(mode=Mode.SIMPLE)


# --- 一（一）牌组构成 -------------------------------------------------------------------------


def test_part1_9_deck_has_108_cards_in_the_stated_kinds() -> None:
    """part1:9-29 牌组构成（共108张）: 鸟54, 十百千万各9, 花风月各6."""
    deck = RULES.new_deck(BASIC)
    assert len(deck) == 108 and len(set(deck)) == 108
    counts = Counter(CARDS[i].kind for i in deck)
    assert counts[CardKind.BIRD] == 54
    for k in (CardKind.TEN, CardKind.HUNDRED, CardKind.THOUSAND, CardKind.TEN_THOUSAND):
        assert counts[k] == 9
    for k in (CardKind.FLOWER, CardKind.WIND, CardKind.MOON):
        assert counts[k] == 6


def test_part2_9_simple_mode_uses_birds_and_number_cards_only() -> None:
    """part2:9-10 简易模式: 仅使用鸟+数量牌进行对局, 停用所有功能牌 -- read (option
    ``simple_without_function_cards``) as "take the function cards out"."""
    deck = RULES.new_deck(Options(mode=Mode.SIMPLE, simple_without_function_cards=True))
    assert len(deck) == 90
    assert {CARDS[i].kind for i in deck} == {
        CardKind.BIRD,
        CardKind.TEN,
        CardKind.HUNDRED,
        CardKind.THOUSAND,
        CardKind.TEN_THOUSAND,
    }


def test_card_ids_are_fixed_identities() -> None:
    """Card(id, kind): the same id is always the same kind, in every mode."""
    assert CARDS[0].kind == CardKind.BIRD and CARDS[53].kind == CardKind.BIRD
    assert CARDS[54].kind == CardKind.TEN and CARDS[89].kind == CardKind.TEN_THOUSAND
    assert CARDS[90].kind == CardKind.FLOWER and CARDS[107].kind == CardKind.MOON


# --- 二（一）1 起始 ----------------------------------------------------------------------------


def test_part1_53_deal_eight_each_and_most_birds_leads() -> None:
    """part1:53 每人发8张牌，鸟牌最多者先手."""
    deck = tuple(range(108))  # seat 0: 8 birds ... seat 3 too; all tie -> lowest seat
    rich_last = deck[54:62] + deck[62:70] + deck[70:78] + deck[0:8] + deck[8:54] + deck[78:]
    state = initial_state(BASIC, 4, rich_last, seed=1)
    events = RULES.deal(state)
    assert [type(e) for e in events] == [Dealt] * 4 + [LeaderChosen]
    assert all(e.count == 8 for e in events[:4])
    assert events[-1] == LeaderChosen(3)


def test_part1_53_tie_for_most_birds_goes_to_lowest_seat() -> None:
    """part1:53 鸟牌最多者先手 -- reading: among tied seats the lowest seat number leads."""
    state = initial_state(BASIC, 4, tuple(range(108)), seed=1)  # 8 birds each
    assert RULES.deal(state)[-1] == LeaderChosen(0)


def test_part1_53_leader_opens_with_one_bird_and_the_verse() -> None:
    """part1:53-59 出1张鸟牌; 出牌前需吟诵「春来花友会…」(简化流程: first play only)."""
    state = table(["鸟鸟十百千万鸟鸟", "鸟鸟鸟鸟鸟鸟鸟鸟", "鸟" * 8, "鸟" * 8])
    state, events = run(state, play(state, 0, "鸟", verse=V))
    (played,) = [e for e in events if isinstance(e, Played)]
    assert played.kind == PlayKind.OPENING and played.count == 1 and played.verse == V
    assert state.turn == 1 and state.need == Need.ANY and state.reference == 1
    assert not state.verse_due


@pytest.mark.parametrize(
    "verse", [None, "", "春来花友会", "春来花友会，夏夜鸟啼时。风过秋思追，月寒冬雪"]
)
def test_part1_57_opening_without_the_exact_verse_is_refused(verse: str | None) -> None:
    """part1:55-57 出牌前需吟诵 the whole verse."""
    state = table(["鸟" * 8, "鸟" * 8])
    err = refusal(state, play(state, 0, "鸟", verse=verse))
    assert isinstance(err, RuleViolation) and err.reason == "VERSE_REQUIRED"


def test_part1_57_verse_accepts_traditional_characters_and_ignores_punctuation() -> None:
    """part1:57 the verse; the traditional-character text and spacing variants are the same verse."""
    state = table(["鸟" * 8, "鸟" * 8])
    for verse in (OPENING_VERSE_TRADITIONAL, "春来花友会 夏夜鸟啼时 风过秋思追 月寒冬雪依"):
        run(state, play(state, 0, "鸟", verse=verse))


def test_part1_59_only_the_first_play_needs_the_verse() -> None:
    """part1:59 简化流程时，仅第一回合需要念诵 (reading: the game's opening play)."""
    state = table(["鸟" * 8, "鸟" * 8])
    state, _ = run(state, play(state, 0, "鸟", verse=V), play(state, 1, "鸟"))
    assert state.turn == 0


@pytest.mark.parametrize("spec", ["鸟十", "鸟鸟", "十"])
def test_part1_53_opening_is_exactly_one_bird(spec: str) -> None:
    """part1:53 先手出1张鸟牌."""
    state = table(["鸟鸟十百千万鸟鸟", "鸟" * 8])
    err = refusal(state, play(state, 0, spec, verse=V))
    assert isinstance(err, RuleViolation)
    assert err.reason in ("OPENING_NEEDS_BIRD", "NUMBER_CARDS_ALONE")


def test_part1_53_opening_refuses_a_function_card() -> None:
    """part1:53 先手出1张鸟牌 -- a 舞 cannot open."""
    state = table(["鸟风鸟鸟鸟鸟鸟鸟", "鸟" * 8])
    err = refusal(state, play(state, 0, "风", verse=V, target=1))
    assert isinstance(err, RuleViolation) and err.reason == "OPENING_NEEDS_BIRD"


def test_part1_41_a_flower_opens_only_for_a_seat_without_birds() -> None:
    """part1:53 出1张鸟牌 and part1:41 花牌可替代鸟牌作基础单位 -- reading: a flower stands in
    for the opening bird only when the seat holds no bird."""
    state = table(["花鸟鸟鸟鸟鸟鸟鸟", "鸟" * 8])
    err = refusal(state, play(state, 0, "花", verse=V))
    assert isinstance(err, RuleViolation) and err.reason == "OPENING_NEEDS_BIRD"
    state = table(["花十十十十十十十", "鸟" * 8])
    state, events = run(state, play(state, 0, "花", verse=V))
    assert events[0].kind == PlayKind.OPENING


# --- 一（二）牌型 / counting --------------------------------------------------------------------


def test_part1_25_bird_with_wan_counts_five() -> None:
    """part1:25 鸟+万=5张鸟牌."""
    state = table(["鸟" * 8, "鸟万鸟鸟鸟鸟鸟鸟"], verse_due=False, need=Need.ANY, reference=1)
    state = replace(state, turn=1)
    _, events = run(state, play(state, 1, "鸟万"))
    assert events[0].count == 5 and events[0].kind == PlayKind.SONG


def test_part1_43_flower_with_qian_equals_flower_ten_hundred_equals_four() -> None:
    """part1:43 花+千=花+十+百=4张."""
    rules = PlayRules()
    assert unit_count((0, 0, 0, 1, 0, 1, 0, 0), rules) == 4
    assert unit_count((0, 1, 1, 0, 0, 1, 0, 0), rules) == 4


def test_part1_39_bird_carries_at_most_one_number_card() -> None:
    """part1:39 鸟牌只可搭配0～1张数量牌，否则为非法组合."""
    state = table(["鸟十百鸟鸟鸟鸟鸟", "鸟" * 8], verse_due=False, need=Need.ANY, reference=1)
    err = refusal(state, play(state, 0, "鸟十百"))
    assert isinstance(err, RuleViolation) and err.reason == "TOO_MANY_NUMBER_CARDS"
    run(state, play(state, 0, "鸟鸟十百"))  # two birds carry one each


def test_part1_41_flower_carries_up_to_two_number_cards() -> None:
    """part1:41 花牌可以携带0-2张数量牌."""
    state = table(["花十百千鸟鸟鸟鸟", "鸟" * 8], verse_due=False, need=Need.ANY, reference=1)
    _, events = run(state, play(state, 0, "花十百"))
    assert events[0].count == 4
    err = refusal(state, play(state, 0, "花十百千"))
    assert isinstance(err, RuleViolation) and err.reason == "TOO_MANY_NUMBER_CARDS"


def test_part1_23_number_cards_cannot_be_played_alone() -> None:
    """part1:23/37 数量牌通常情况下不可单出."""
    state = table(["万十鸟鸟鸟鸟鸟鸟", "鸟" * 8], verse_due=False, need=Need.ANY, reference=1)
    err = refusal(state, play(state, 0, "万"))
    assert isinstance(err, RuleViolation) and err.reason == "NUMBER_CARDS_ALONE"


def test_part1_45_wind_cannot_be_mixed_into_a_bird_play() -> None:
    """part1:67 舞 is 功能牌或者特殊牌组 -- a 风 does not join a bird play."""
    state = table(["风鸟鸟鸟鸟鸟鸟鸟", "鸟" * 8], verse_due=False, need=Need.ANY, reference=1)
    err = refusal(state, Play(0, pick(state, 0, "风鸟"), target=1))
    assert isinstance(err, RuleViolation) and err.reason == "ILLEGAL_COMBINATION"


# --- 二（一）2 吟 / 诵 under 白昼规则2 -------------------------------------------------------------


def test_part1_179_daylight_rule2_yin_or_song_freely_in_simple_and_basic() -> None:
    """part1:179-181 白昼规则2 取消吟诵的限制 (简易/基本): after a 吟 another 吟 is fine."""
    for mode in (Mode.SIMPLE, Mode.BASIC):
        state = table(["鸟" * 8, "鸟" * 8, "鸟" * 8], mode=mode, verse_due=False)
        state = replace(state, need=Need.ANY, reference=2)
        state, events = run(state, play(state, 0, "鸟鸟"), play(state, 1, "鸟鸟"))
        assert [e.kind for e in events if isinstance(e, Played)] == [PlayKind.YIN, PlayKind.YIN]
        assert state.need == Need.ANY


def test_part1_63_a_play_below_the_count_is_refused() -> None:
    """part1:63-65 吟 = 出牌数等于上家数, 诵 = 多于: fewer is neither."""
    state = table(["鸟" * 8, "鸟" * 8], verse_due=False, need=Need.ANY, reference=3)
    err = refusal(state, play(state, 0, "鸟鸟"))
    assert isinstance(err, RuleViolation) and err.reason == "COUNT_TOO_LOW" and err.rule == "吟诵"


def test_part1_71_wu_does_not_change_what_the_next_seat_answers() -> None:
    """part1:71 下家按照最后一个“吟”或者“诵”的上家进行对应操作 (after a 舞)."""
    state = table(["鸟" * 8, "月鸟鸟鸟鸟鸟鸟鸟", "鸟" * 8], verse_due=False)
    state = replace(state, need=Need.ANY, reference=3, turn=1)
    state, events = run(state, play(state, 1, "月", target=0))
    assert events[0].kind == PlayKind.WU
    assert state.turn == 2 and state.reference == 3 and state.need == Need.ANY


# --- 舞: 风 / 月 ------------------------------------------------------------------------------


def test_part1_45_wind_makes_the_target_discard_one() -> None:
    """part1:45 风牌：指定一家弃1张手牌."""
    state = table(
        ["风鸟鸟鸟鸟鸟鸟鸟", "鸟十" + "鸟" * 6], verse_due=False, need=Need.ANY, reference=1
    )
    state, events = run(state, play(state, 0, "风", target=1))
    assert types(events) == ["Played", "DiscardRequired"]
    assert events[1] == DiscardRequired(1, 1, (Cause.WIND,))
    assert state.phase == Phase.DISCARDING and RULES.to_act(state) == (1,)
    state, events = run(state, discard(state, 1, "鸟"))
    assert isinstance(events[0], Discarded) and len(state.hands[1].cards) == 7
    assert state.phase == Phase.PLAYING and state.turn == 1


@pytest.mark.parametrize("target, reason", [(None, "TARGET_REQUIRED"), (0, "TARGET_SELF")])
def test_part1_45_wind_needs_a_target_other_than_oneself(target: int | None, reason: str) -> None:
    """part1:45 指定对象不可以是自己."""
    state = table(["风鸟鸟鸟鸟鸟鸟鸟", "鸟" * 8], verse_due=False, need=Need.ANY, reference=1)
    err = refusal(state, play(state, 0, "风", target=target))
    assert isinstance(err, RuleViolation) and err.reason == reason


def test_wind_target_outside_the_table_is_malformed() -> None:
    state = table(["风鸟鸟鸟鸟鸟鸟鸟", "鸟" * 8], verse_due=False, need=Need.ANY, reference=1)
    err = refusal(state, play(state, 0, "风", target=5))
    assert isinstance(err, MalformedCommand) and err.field == "target"


def test_part1_47_moon_makes_the_target_draw_one() -> None:
    """part1:47 月牌：指定一家摸1张手牌，指定对象不可以是自己."""
    state = table(["月鸟鸟鸟鸟鸟鸟鸟", "鸟" * 8, "鸟" * 8], "万", verse_due=False)
    state = replace(state, need=Need.ANY, reference=1)
    state, events = run(state, play(state, 0, "月", target=2))
    assert types(events) == ["Played", "Drew"]
    assert events[1].seat == 2 and events[1].cause == Cause.MOON
    assert hand_kinds(state, 2) == "鸟" * 8 + "万"
    err = refusal(table(["月鸟", "鸟"], verse_due=False, need=Need.ANY), Play(0, (102,), target=0))
    assert isinstance(err, RuleViolation)


# --- 栖 --------------------------------------------------------------------------------------


def test_part1_69_perch_is_refused_while_a_play_is_possible() -> None:
    """part1:69 栖：无法“吟”，“诵”或者“舞”时."""
    state = table(["鸟" * 8, "鸟" * 8], verse_due=False, need=Need.ANY, reference=3)
    err = refusal(state, Perch(0))
    assert isinstance(err, RuleViolation) and err.reason == "MUST_PLAY" and err.rule == "栖"


def test_part1_69_perch_draws_one() -> None:
    """part1:69 栖：即过牌 ... 摸1张牌."""
    state = table(["鸟鸟", "鸟" * 8, "鸟"], "十", verse_due=False, need=Need.ANY, reference=5)
    assert RULES.legal_commands(state, 0) == [Perch(0)]
    state, events = run(state, Perch(0))
    assert types(events) == ["Perched", "Drew"]
    assert events[1].cause == Cause.PERCH and hand_kinds(state, 0) == "鸟鸟十"
    assert state.turn == 1


def test_part1_183_daylight_rule3_all_perch_then_last_restarts_with_a_bird() -> None:
    """part1:183 白昼规则3 当一轮四个玩家全部“栖”时，以一张鸟牌重新以最后一个“栖”的玩家开始."""
    hands = ["鸟", "鸟", "鸟", "鸟"]
    state = table(hands, "十十十十", verse_due=False, need=Need.ANY, reference=5)
    state, events = run(state, Perch(0), Perch(1), Perch(2), Perch(3))
    assert events[-1] == PlayRestarted(3)
    assert state.turn == 3 and state.need == Need.OPENING and state.reference == 0
    state, events = run(state, play(state, 3, "鸟"))
    assert events[0].kind == PlayKind.OPENING and events[0].verse is None


def test_not_your_turn_is_refused() -> None:
    state = table(["鸟" * 8, "鸟" * 8])
    err = refusal(state, play(state, 1, "鸟", verse=V))
    assert isinstance(err, NotYourTurn)


# --- 弃牌保护 ---------------------------------------------------------------------------------


def test_part1_87_single_discard_counts_as_not_first_so_bird_goes_first() -> None:
    """part1:81-87 弃牌保护; 当丢弃手牌=1时，视作否的情况 -> order 鸟→数量→功能."""
    state = table(["风鸟鸟鸟鸟鸟鸟鸟", "鸟万花" + "十" * 5], verse_due=False, need=Need.ANY)
    state = replace(state, reference=1)
    state, _ = run(state, play(state, 0, "风", target=1))
    err = refusal(state, discard(state, 1, "万"))
    assert isinstance(err, RuleViolation) and err.reason == "DISCARD_ORDER"
    assert err.rule == "弃牌保护"
    run(state, discard(state, 1, "鸟"))


def test_part1_85_after_the_free_first_card_discards_follow_bird_number_function() -> None:
    """part1:83-85 首张可自由选择; 其后按鸟→数量→功能顺序弃牌."""
    hand = (2, 1, 0, 0, 1, 1, 0, 0)  # 鸟鸟 十 万 花
    legal = discard_choices(hand, 3)
    assert (0, 1, 0, 0, 1, 1, 0, 0) not in legal  # 十万花 skips both birds
    assert (1, 0, 0, 0, 1, 1, 0, 0) not in legal  # free 花, then 鸟 then 万 -- but a bird is left
    assert (2, 0, 0, 0, 0, 1, 0, 0) in legal  # free 花, then 鸟 鸟
    assert (2, 0, 0, 0, 1, 0, 0, 0) in legal  # free 万, then 鸟 鸟
    assert (2, 1, 0, 0, 0, 0, 0, 0) in legal


def test_part2_47_example_discarding_numbers_while_holding_birds_is_wrong() -> None:
    """part2:47 例: 手中有2张鸟牌的情况丢弃了3张数量牌，明显违规."""
    hand = (2, 1, 1, 1, 0, 0, 0, 0)
    assert (0, 1, 1, 1, 0, 0, 0, 0) not in discard_choices(hand, 3)


def test_discard_of_the_wrong_count_or_by_the_wrong_seat_is_refused() -> None:
    state = table(["风鸟鸟鸟鸟鸟鸟鸟", "鸟" * 8, "鸟" * 8], verse_due=False, need=Need.ANY)
    state = replace(state, reference=1)
    state, _ = run(state, play(state, 0, "风", target=1))
    err = refusal(state, discard(state, 1, "鸟鸟"))
    assert isinstance(err, RuleViolation) and err.reason == "WRONG_DISCARD_COUNT"
    assert isinstance(refusal(state, discard(state, 2, "鸟")), NotYourTurn)
    assert isinstance(refusal(state, Perch(1)), NotYourTurn)


# --- 摸牌 and deck exhaustion ------------------------------------------------------------------


def test_part1_89_draws_stop_when_the_deck_runs_out() -> None:
    """part1:89 当牌堆的数量不够摸牌时，停止摸牌并继续进行对局."""
    state = table(["月鸟", "鸟鸟"], "", more_deck=False, verse_due=False, need=Need.ANY)
    state = replace(state, reference=1)
    state, events = run(state, play(state, 0, "月", target=1))
    assert types(events) == ["Played"]
    assert state.phase == Phase.PLAYING and state.turn == 1


def test_part1_89_next_perch_after_exhaustion_ends_the_song() -> None:
    """part1:89 待有新的玩家需要“栖”时，进入“一曲终了”阶段; part2:75 closing verse."""
    state = table(["鸟万", "鸟鸟鸟"], "", more_deck=False, verse_due=False, need=Need.ANY)
    state = replace(state, reference=9)
    state, events = run(state, Perch(0))
    assert types(events) == ["Perched", "SongEnded", "GameEnded"]
    assert events[1] == SongEnded("DECK_EXHAUSTED", CLOSING_VERSE)
    # part2:78 剩余牌面分值小者胜利: seat 0 holds 万 (4), seat 1 three birds (0)
    assert events[2] == GameEnded((1,), (4, 0), "LOWEST_SCORE")
    assert RULES.outcome(state) is not None and RULES.outcome(state).winners == (1,)
    assert RULES.to_act(state) == () and RULES.legal_commands(state, 0) == []


# --- 胜利结算 ----------------------------------------------------------------------------------


def test_part2_77_first_to_empty_the_hand_wins() -> None:
    """part2:77 率先打完手牌的人胜利 (and 一曲终了 is sung)."""
    state = table(["鸟鸟", "鸟" * 8], verse_due=False, need=Need.ANY, reference=2)
    state, events = run(state, play(state, 0, "鸟鸟"))
    assert types(events) == ["Played", "SongEnded", "GameEnded"]
    assert events[-1].winners == (0,) and events[-1].reason == "EMPTIED_HAND"
    assert state.phase == Phase.ENDED


def test_part2_79_card_scores() -> None:
    """part2:79-85 功能牌5分，万4，千3，百2，十1，鸟0."""
    state = table(["鸟十百千万花风月", "鸟"], "", more_deck=False, verse_due=False)
    state = replace(state, need=Need.ANY, reference=40, turn=1)
    _, events = run(state, Perch(1))
    assert events[-1].scores == (25, 0)


def test_part2_87_tie_on_score_goes_to_the_holder_of_function_cards() -> None:
    """part2:86-87 其余情况判定胜利：功能牌者→数量牌者 -- reading: at equal score, more
    function cards wins, then more number cards."""
    # seat 0: 花 (5); seat 1: 万十 (5); seat 2: 千百 (5)
    state = table(["花", "万十", "千百"], "", more_deck=False, verse_due=False)
    state = replace(state, need=Need.ANY, reference=40)
    _, events = run(state, Perch(0))
    assert events[-1] == GameEnded((0,), (5, 5, 5), "TIE_BREAK")


def test_part2_87_then_the_holder_of_more_number_cards() -> None:
    """part2:87 功能牌者→数量牌者: at 5 points and no function cards, 百百十 (three number
    cards) beats 万十 (two)."""
    state = table(["万十", "百百十"], "", more_deck=False, verse_due=False)
    state = replace(state, need=Need.ANY, reference=40)
    _, events = run(state, Perch(0))
    assert events[-1] == GameEnded((1,), (5, 5), "TIE_BREAK")


def test_part2_89_unbreakable_tie_goes_to_the_showdown() -> None:
    """part2:88-106 花鸟风月大对决: 回收所有玩家的手牌，给每人发4张牌 ... until a winner."""
    state = table(["鸟鸟", "鸟", "万"], "", more_deck=False, verse_due=False)
    state = replace(state, need=Need.ANY, reference=40)
    state, events = run(state, Perch(0))
    assert types(events)[:3] == ["Perched", "SongEnded", "HandsRecovered"]
    assert isinstance(events[2], HandsRecovered) and len(events[2].cards) == 4
    rounds = [e for e in events if isinstance(e, ShowdownDealt)]
    assert rounds and rounds[0].round == 1
    # 给每人发4张牌: every seat is dealt, seat 2 (4 points) too
    assert [h.seat for h in rounds[0].hands] == [0, 1, 2]
    assert rounds[0].chant == "天上天下，花鳥風月之雀舞"
    assert all(len(h.cards) == 4 for r in rounds for h in r.hands)
    end = events[-1]
    assert isinstance(end, GameEnded) and end.reason == "SHOWDOWN" and len(end.winners) == 1
    assert end.scores == (0, 0, 4)
    # chance comes from the game's own seeded generator: the same state decides the same way
    before = table(["鸟鸟", "鸟", "万"], "", more_deck=False, verse_due=False)
    before = replace(before, need=Need.ANY, reference=40)
    assert RULES.decide(before, Perch(0)) == events


def test_part2_94_showdown_patterns_and_priorities() -> None:
    """part2:94-100 四时归返0 天上天下1 秋月无边2 花好月圆3 百鸟争鸣4 散牌5."""
    assert showdown_pattern((0, 0, 0, 0, 0, 0, 4, 0)) == ShowdownPattern.SI_SHI_GUI_FAN
    assert showdown_pattern((0, 1, 1, 1, 1, 0, 0, 0)) == ShowdownPattern.TIANSHANG_TIANXIA
    assert showdown_pattern((0, 0, 4, 0, 0, 0, 0, 0)) == ShowdownPattern.QIU_YUE_WU_BIAN
    assert showdown_pattern((1, 0, 0, 0, 0, 1, 1, 1)) == ShowdownPattern.HUA_HAO_YUE_YUAN
    assert showdown_pattern((4, 0, 0, 0, 0, 0, 0, 0)) == ShowdownPattern.BAI_NIAO_ZHENG_MING
    assert showdown_pattern((3, 1, 0, 0, 0, 0, 0, 0)) == ShowdownPattern.SAN_PAI


# --- malformed commands -----------------------------------------------------------------------


@pytest.mark.parametrize("cards", [(-1,), (108,), (0, 0), ("x",)])
def test_unknown_or_repeated_card_ids_are_malformed(cards: tuple) -> None:
    state = table(["鸟" * 8, "鸟" * 8])
    err = refusal(state, Play(0, cards, verse=V))
    assert isinstance(err, MalformedCommand) and err.field == "cards"


def test_simple_mode_has_no_function_card_ids() -> None:
    """With ``simple_without_function_cards`` 简易 has no ids 90-107."""
    options = Options(mode=Mode.SIMPLE, simple_without_function_cards=True)
    state = table(["鸟" * 8, "鸟" * 8], options=options)
    err = refusal(state, Play(0, (100,), verse=V))
    assert isinstance(err, MalformedCommand)


def test_card_not_held_is_a_rule_violation() -> None:
    state = table(["鸟" * 8, "鸟" * 8])
    other = state.hands[1].cards[0]
    err = refusal(state, Play(0, (other,), verse=V))
    assert isinstance(err, RuleViolation) and err.reason == "CARD_NOT_HELD"


def test_unknown_seat_is_malformed() -> None:
    state = table(["鸟" * 8, "鸟" * 8])
    err = refusal(state, Perch(4))
    assert isinstance(err, MalformedCommand) and err.field == "seat"


def test_decide_does_not_change_the_state() -> None:
    state = table(["风鸟鸟鸟鸟鸟鸟鸟", "鸟" * 8], verse_due=False, need=Need.ANY, reference=1)
    before = replace(state)
    RULES.decide(state, play(state, 0, "风", target=1))
    assert state == before


def test_game_over_refuses_commands() -> None:
    state = table(["鸟", "鸟" * 8], verse_due=False, need=Need.ANY, reference=1)
    state, _ = run(state, play(state, 0, "鸟"))
    err = refusal(state, Perch(1))
    assert isinstance(err, RuleViolation) and err.reason == "GAME_OVER"


# --- legal_commands ---------------------------------------------------------------------------


def test_legal_commands_dedupe_by_kind_and_include_targets() -> None:
    state = table(["鸟鸟鸟十十风", "鸟", "鸟"], verse_due=False, need=Need.ANY, reference=1)
    legal = RULES.legal_commands(state, 0)
    shapes = Counter(tuple(sorted(CARDS[c].kind.value for c in p.cards)) for p in legal)
    assert all(n == 1 for s, n in shapes.items() if CardKind.WIND.value not in s)
    winds = [p for p in legal if len(p.cards) == 1 and CARDS[p.cards[0]].kind == CardKind.WIND]
    assert sorted(p.target for p in winds) == [1, 2]
    assert RULES.legal_commands(state, 1) == []
    assert Discard not in {type(c) for c in legal}


def test_legal_shapes_are_exactly_the_accepted_plays() -> None:
    """Every enumerated play is accepted, and random other card sets are refused unless their
    kind vector is enumerated (the rule lives in one classifier)."""
    import random

    rng = random.Random(5)
    for _ in range(300):
        hand = "".join(rng.choice("鸟鸟鸟鸟十百千万花风月") for _ in range(rng.randint(1, 10)))
        state = table([hand, "鸟"], verse_due=False, need=rng.choice([Need.ANY, Need.OPENING]))
        state = replace(state, reference=rng.randint(1, 8))
        legal = RULES.legal_commands(state, 0)
        for command in legal:
            RULES.decide(state, command)
        vecs = {tuple(sorted(c.cards)) for c in legal if isinstance(c, Play)}
        ids = list(state.hands[0].cards)
        for _ in range(10):
            subset = tuple(sorted(rng.sample(ids, rng.randint(1, len(ids)))))
            try:
                RULES.decide(state, Play(0, subset, target=1))
                accepted = True
            except RuleViolation:
                accepted = False
            kinds = sorted(CARDS[c].kind.value for c in subset)
            listed = any(sorted(CARDS[c].kind.value for c in v) == kinds for v in vecs)
            assert accepted == listed, (hand, subset, state.need, state.reference)
    assert legal_shapes((0,) * 8, PlayRules(), Need.ANY, 1) == ()


def test_a_leader_without_birds_perches_and_the_opening_passes_on() -> None:
    """part1:53 出1张鸟牌 -- reading: a leader with neither bird nor flower must 栖, and the
    next seat owes the opening (still a single bird, still with the verse)."""
    state = table(["十十十十十十十十", "鸟" * 8], "百")
    assert RULES.legal_commands(state, 0) == [Perch(0)]
    state, _ = run(state, Perch(0))
    assert state.turn == 1 and state.need == Need.OPENING and state.verse_due
    state, events = run(state, play(state, 1, "鸟", verse=V))
    assert events[0].kind == PlayKind.OPENING


def test_a_hand_emptied_by_a_discard_does_not_win() -> None:
    """part2:77 率先打完手牌的人胜利 -- reading: 打完 means played out; a seat whose last card
    is discarded (风) keeps playing and draws when it has to 栖."""
    state = table(["风鸟鸟", "鸟", "鸟鸟"], "十", verse_due=False, need=Need.ANY, reference=1)
    state, _ = run(state, play(state, 0, "风", target=1), discard(state, 1, "鸟"))
    assert state.hands[1].cards == () and RULES.outcome(state) is None
    assert RULES.legal_commands(state, 1) == [Perch(1)]
    state, events = run(state, Perch(1))
    assert types(events) == ["Perched", "Drew"]
