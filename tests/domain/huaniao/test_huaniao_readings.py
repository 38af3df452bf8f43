"""Given/when/then tests for the readings of issue 14 (docs/rules/huaniao.md, "Readings offered
as options"): the seed's reading by default, the other reading as a table option.

``p1:N`` is line N of huaniao-rules-part1.txt, ``p2:N`` of huaniao-rules-part2-decoded.txt.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from domain import table as tables
from domain.engine import InvalidOptions, RuleViolation, Viewer
from domain.huaniao import RULES, CardClass, Combo, Mode, Options, Perch
from domain.huaniao.cards import CardKind
from domain.huaniao.commands import EndTurn, Guess, PassGuess, Recite
from domain.huaniao.events import (
    DiscardRequired,
    Drew,
    ExtraActionsDeclined,
    GameEnded,
    GuessesRevealed,
    GuessMade,
    LeaderChosen,
    Played,
    Recited,
    ShowdownDealt,
)
from domain.huaniao.options import LeaderTie, VerseRule
from domain.huaniao.penalties import violation_of
from domain.huaniao.plays import discard_choices
from domain.huaniao.rules import (
    chance_seed,
    deal,
    hand_vec,
    initial_state,
    kinds,
    score_of,
    seasons_of,
    showdown_pattern,
)
from domain.huaniao.terms import (
    CLOSING_VERSE,
    OPENING_VERSE,
    Cause,
    Need,
    Phase,
    Season,
    ShowdownPattern,
    Verse,
)
from domain.table.justice.facts import Enforcement
from domain.violations import ViolationKind
from tests.support.selfplay import play_random_game

from .justice_support import Harness
from .selfplay_support import TIMID
from .tables import hand_kinds, pick, play, refusal, run, table, types

SP = Season.SPRING


def answering(hands: list[str], deck: str = "", **kw: Any) -> Any:
    """Seat 0 to play, the opening done, any count >= 1 answers."""
    kw.setdefault("verse_due", False)
    kw.setdefault("need", Need.ANY)
    kw.setdefault("reference", 1)
    return table(hands, deck, **kw)


def reason(err: Exception) -> str:
    assert isinstance(err, RuleViolation), err
    return err.reason


# --- 1. 动态手牌上限: 如果在削减手牌上限期间，超出了手牌持有上限，需要…弃牌 (p1:119-121) ---------


def test_p1_119_at_its_base_the_hand_limit_asks_for_no_discard() -> None:
    """Given 常规 with the limit at its base (8) and seat 0 holding 8; when it 栖 and draws a
    ninth card; then it owes nothing (the limit binds only while it is reduced)."""
    state = answering(["鸟鸟鸟十十十十十", "鸟" * 8], "万", mode=Mode.REGULAR, reference=30)
    state, events = run(state, Perch(0))
    assert types(events) == ["Perched", "Drew"] and len(state.hands[0].cards) == 9
    assert not RULES.view(state, Viewer.of_seat(0)).hand_limit_enforced


def test_p1_121_after_tianshang_tianxia_the_seats_above_six_discard() -> None:
    """p1:121 在天上天下削减手牌上限为6张以后，持有7张及以上玩家需要弃牌. Given seat 1 holding 7
    and seat 2 holding 6; when seat 0 plays 天上天下 (8 → 6); then seat 1 owes one discard,
    seat 2 nothing."""
    state = answering(["十百千万鸟", "鸟" * 7, "鸟" * 6], mode=Mode.REGULAR)
    state, events = run(
        state, play(state, 0, "十百千万", combo=Combo.TIANSHANG_TIANXIA, announce=2)
    )
    assert state.hand_limit == 6
    assert [e for e in events if isinstance(e, DiscardRequired)] == [
        DiscardRequired(1, 1, (Cause.HAND_LIMIT,))
    ]
    assert RULES.view(state, Viewer.of_seat(2)).hand_limit_enforced


def test_hand_limit_always_option_keeps_the_limit_at_its_base_too() -> None:
    """Option ``hand_limit_always``: given the limit at 8 and seat 0 holding 8; when it 栖;
    then it draws and owes one discard."""
    always = Options(mode=Mode.REGULAR, hand_limit_always=True)
    state = answering(["鸟鸟鸟十十十十十", "鸟" * 8], "万", options=always, reference=30)
    _, events = run(state, Perch(0))
    assert events[-1] == DiscardRequired(0, 1, (Cause.HAND_LIMIT,))
    with pytest.raises(InvalidOptions) as e:
        RULES.check_options(Options(mode=Mode.BASIC, hand_limit_always=True))
    assert e.value.field == "hand_limit_always"


# --- 2. 简易 and 白昼规则1: 功能牌全部视为鸟牌，此条限简易模式 (p1:175-177, p2:9-10) --------------


def test_p1_175_simple_mode_keeps_the_function_cards_as_birds() -> None:
    """Given 简易; then the deck has all 108 cards, and a 风 is a bird in every respect: it
    counts 1 in a 吟 (with a 十, 2), is discarded before number cards, scores 0 and counts
    for the lead."""
    simple = Options(mode=Mode.SIMPLE)
    assert len(RULES.new_deck(simple)) == 108
    state = answering(["风十鸟", "鸟鸟"], options=simple)
    _, events = run(state, play(state, 0, "风十"))
    assert isinstance(events[0], Played) and events[0].count == 2
    assert CardKind.WIND in {c.kind for c in events[0].cards}  # still the 风 it is
    moon = answering(["月十", "鸟"], options=simple)
    assert kinds(moon.options, moon.hands[0].cards) == (1, 1, 0, 0, 0, 0, 0, 0)
    assert discard_choices(hand_vec(moon, 0), 1) == frozenset({(1, 0, 0, 0, 0, 0, 0, 0)})
    assert score_of(moon.options, moon.hands[0].cards) == 1  # 月 0 (a bird) + 十 1


def test_p1_175_in_simple_mode_the_leader_counts_function_cards_as_birds() -> None:
    """Given 简易 and a deal where seat 1 holds 花风月 + 2 birds and seat 0 four birds; when
    the cards are dealt; then seat 1 (five "birds") leads."""
    simple = Options(mode=Mode.SIMPLE)
    hands0 = [0, 1, 2, 3, *range(54, 58)]  # four birds, four number cards
    hands1 = [90, 96, 102, 4, 5, *range(58, 61)]  # 花风月 + two birds + three number cards
    rest = [c for c in range(108) if c not in hands0 + hands1]
    state = initial_state(simple, 2, tuple(hands0 + hands1 + rest), 1)
    assert deal(state)[-1] == LeaderChosen(1)


def test_simple_without_function_cards_option_takes_them_out() -> None:
    """Option ``simple_without_function_cards``: 停用所有功能牌 read as "out of the deck"."""
    assert len(RULES.new_deck(Options(mode=Mode.SIMPLE, simple_without_function_cards=True))) == 90
    with pytest.raises(InvalidOptions):
        RULES.check_options(Options(mode=Mode.BASIC, simple_without_function_cards=True))


def test_p2_95_in_simple_the_function_card_showdown_patterns_cannot_occur() -> None:
    """p2:95 四时归返 (four identical function cards) and p2:98 花好月圆 (花+鸟+风+月) need
    function cards; in 简易 花风月 are birds (白昼规则1, row 3), so those four cards are
    百鸟争鸣 (p2:99), and without the function cards (the option) they are not in the deck."""
    four_flowers, flower_bird_wind_moon = (90, 91, 92, 93), (90, 0, 96, 102)
    simple, basic = (RULES.check_options(Options(mode=m)) for m in (Mode.SIMPLE, Mode.BASIC))
    assert showdown_pattern(kinds(basic, four_flowers)) is ShowdownPattern.SI_SHI_GUI_FAN
    assert showdown_pattern(kinds(basic, flower_bird_wind_moon)) is (
        ShowdownPattern.HUA_HAO_YUE_YUAN
    )
    for cards in (four_flowers, flower_bird_wind_moon):
        assert showdown_pattern(kinds(simple, cards)) is ShowdownPattern.BAI_NIAO_ZHENG_MING
    without = Options(mode=Mode.SIMPLE, simple_without_function_cards=True)
    assert max(RULES.new_deck(without)) < 90, "no 花风月 to hold"


# --- 3. 大对决: 给每人发4张牌, 四人持有的全是散牌; the chants; a prepared deal (p2:88-106) -----


def _tie_at_the_end(**options: Any) -> Any:
    """Seats 0 and 1 tied at 0 points, seat 2 at 4; seat 0's 栖 with an empty deck ends it."""
    o = Options(mode=Mode.BASIC, **options)
    state = table(["鸟鸟", "鸟", "万"], "", options=o, more_deck=False, verse_due=False)
    return replace(state, need=Need.ANY, reference=40)


def test_p2_91_every_seat_is_dealt_in_the_showdown_and_the_chant_opens_it() -> None:
    """Given a tie at 一曲终了; when the song ends; then every seat (the one that lost on score
    too) is dealt 4 cards each round, and the first round is opened with 「天上天下，花鳥風月之
    雀舞」, later ones with 「雀舞」."""
    _, events = run(_tie_at_the_end(), Perch(0))
    rounds = [e for e in events if isinstance(e, ShowdownDealt)]
    assert all([h.seat for h in r.hands] == [0, 1, 2] for r in rounds)
    assert [r.chant for r in rounds] == ["天上天下，花鳥風月之雀舞"] + ["雀舞"] * (len(rounds) - 1)
    assert isinstance(events[-1], GameEnded) and events[-1].reason == "SHOWDOWN"


def test_showdown_tied_only_option_deals_the_tied_seats_only() -> None:
    """Option ``showdown_tied_only``: given the same tie; then only seats 0 and 1 contend."""
    _, events = run(_tie_at_the_end(showdown_tied_only=True), Perch(0))
    first = next(e for e in events if isinstance(e, ShowdownDealt))
    assert [h.seat for h in first.hands] == [0, 1]


def _showdown_game() -> tuple[Options, tuple[int, ...], list[Any]]:
    """A deal and commands of a 4-seat 基本 game that ends in the 大对决 (found by self-play)."""
    options = Options(mode=Mode.BASIC)
    for seed in range(200):
        game = play_random_game(TIMID, options, 4, seed, roundtrip=False)
        if RULES.outcome(game.states[-1]).reason == "SHOWDOWN":
            return options, game.states[0].deck, game.commands
    raise AssertionError("no showdown in 200 timid games")


def test_a_prepared_deal_reaches_the_same_showdown_at_any_table() -> None:
    """Given a prepared deal whose game ends in a tie; when it is played with the same commands
    at two tables with different secrets (so different shuffle seeds); then both 大对决 deal
    the same cards -- the game's chance comes from the deal (rules.chance_seed)."""
    options, deck, commands = _showdown_game()
    showdowns = []
    for secret in ("one secret", "another secret"):
        h = Harness.open(options, 4, Enforcement.REJECT, deck, secret=secret)
        facts: list[Any] = []
        for command in commands:
            facts += h.act(command)
        assert h.table.outcome is not None and h.table.outcome.reason == "SHOWDOWN"
        showdowns.append([f for f in facts if isinstance(f, ShowdownDealt)])
    assert showdowns[0] and showdowns[0] == showdowns[1]
    assert chance_seed(deck) != chance_seed(tuple(reversed(deck)))


# --- 4. 阳春白雪: 每打出一张卡，全体玩家在出牌前…摸牌和弃牌 (p1:205-211) ------------------------


def snowy(hands: list[str], deck: str = "", **kw: Any) -> Any:
    options = Options(mode=Mode.PRO, spring_snow=True, **kw.pop("options", {}))
    return answering(hands, deck, options=options, **kw)


def test_p1_207_in_spring_every_seat_draws_one_per_card_before_the_play() -> None:
    """Given 春 and 阳春白雪; when seat 0 plays two birds; then every seat draws two (下家 first,
    the player last), and only then the play is made."""
    state = snowy(["鸟鸟鸟", "鸟", "鸟"], "十" * 6, season=SP)
    _, events = run(state, play(state, 0, "鸟鸟", season=SP))
    assert types(events)[:4] == ["Drew", "Drew", "Drew", "Played"]
    assert [(e.seat, e.count) for e in events if isinstance(e, Drew)] == [(1, 2), (2, 2), (0, 2)]


def test_p1_209_in_spring_a_single_last_card_does_not_go_out() -> None:
    """Given 春 and seat 0 holding one card; when it plays it; then it drew one first, so it
    still holds a card and plays on."""
    state = snowy(["鸟", "鸟鸟"], "十十", season=SP)
    state, _ = run(state, play(state, 0, "鸟", season=SP))
    assert state.phase != Phase.ENDED and hand_kinds(state, 0) == "十"


def test_p1_211_in_autumn_a_seat_with_no_more_than_it_owes_discards_first_and_goes_out() -> None:
    """Given 秋 and seat 0 holding 鸟鸟鸟; when it plays two birds; then it owed two discards
    before the play: its one other card is discarded first, and the play empties its hand."""
    autumn = Season.AUTUMN
    state = snowy(["鸟鸟鸟", "鸟鸟鸟", "鸟"], season=autumn)
    _, events = run(state, play(state, 0, "鸟鸟", season=autumn))
    assert types(events)[:3] == ["DiscardRequired", "Discarded", "Played"]
    assert isinstance(events[-1], GameEnded) and events[-1].winners == (0,)


def test_p1_211_in_autumn_the_others_owe_one_discard_per_card() -> None:
    """Given 秋; when seat 0 plays two of its five birds; then every seat owes two discards."""
    autumn = Season.AUTUMN
    state = snowy(["鸟" * 5, "鸟鸟鸟", "鸟"], season=autumn)
    _, events = run(state, play(state, 0, "鸟鸟", season=autumn))
    owed = [(e.seat, e.count) for e in events if isinstance(e, DiscardRequired)]
    assert owed == [(0, 2), (1, 2), (2, 1)]  # seat 2 holds only one


def test_spring_snow_once_after_option_keeps_one_draw_after_the_play() -> None:
    """Option ``spring_snow_once_after``: given 春; when seat 0 plays two birds; then the play
    comes first and every seat draws one; a single last card goes out."""
    once = {"spring_snow_once_after": True}
    state = snowy(["鸟鸟鸟", "鸟", "鸟"], "十" * 6, season=SP, options=once)
    _, events = run(state, play(state, 0, "鸟鸟", season=SP))
    assert types(events)[0] == "Played"
    assert [(e.seat, e.count) for e in events if isinstance(e, Drew)] == [(1, 1), (2, 1), (0, 1)]
    last = snowy(["鸟", "鸟鸟"], "十十", season=SP, options=once)
    _, events = run(last, play(last, 0, "鸟", season=SP))
    assert isinstance(events[-1], GameEnded) and events[-1].winners == (0,)
    with pytest.raises(InvalidOptions):
        RULES.check_options(Options(mode=Mode.PRO, continuo=True, spring_snow_once_after=True))


# --- 5. 繁花似锦: 可以…进行2次吟/诵/舞/栖 (p2:5) -------------------------------------------------


def blossoming() -> Any:
    state = answering(
        ["花鸟鸟鸟鸟鸟", "鸟" * 8],
        "十十十",
        options=Options(mode=Mode.PRO, blossoms=True),
        season=Season.SUMMER,
    )
    state, _ = run(state, play(state, 0, "花", season=Season.SUMMER))
    assert state.extra_actions == 2 and state.turn == 0
    return state


def test_p2_5_the_extra_actions_are_a_may_the_seat_ends_its_turn() -> None:
    """Given a seat with 繁花似锦's two extra actions and birds to play; then it may 栖 or stop;
    when it stops; then its turn passes with two actions unused."""
    state = blossoming()
    legal = RULES.legal_commands(state, 0)
    assert Perch(0) in legal and EndTurn(0) in legal
    state, events = run(state, EndTurn(0))
    assert events == [ExtraActionsDeclined(0, 2)] and state.turn == 1 and state.extra_actions == 0
    assert reason(refusal(state, EndTurn(1))) == "NO_EXTRA_ACTIONS"


def test_p2_5_a_perch_is_one_of_the_extra_actions() -> None:
    """Given the extra actions and a playable hand; when the seat 栖; then it draws one and one
    action is left."""
    state, events = run(blossoming(), Perch(0))
    assert types(events) == ["Perched", "Drew"] and state.turn == 0 and state.extra_actions == 1


# --- 6. 双飞燕: 出单张功能牌（花，风，月）时必须附带2张鸟牌 (p1:201) -------------------------------


def test_p1_201_twin_swallows_a_lone_flower_needs_two_birds() -> None:
    """Given 双飞燕; when a seat plays a 花 alone, or 花+十; then it is refused; 花+鸟+鸟 is a
    legal play and no lone 花 is offered."""
    state = answering(["花十鸟鸟", "鸟"], options=Options(mode=Mode.PRO, twin_swallows=True))
    for spec in ("花", "花十", "花鸟"):
        err = refusal(state, play(state, 0, spec, season=SP))
        assert reason(err) == "TWIN_SWALLOWS_NEEDS_TWO_BIRDS", spec
        assert violation_of(state, play(state, 0, spec, season=SP), err) is not None
    _, events = run(state, play(state, 0, "花鸟鸟", season=SP))
    assert isinstance(events[0], Played) and events[0].count == 3
    offered = [c.cards for c in RULES.legal_commands(state, 0) if hasattr(c, "cards")]
    assert pick(state, 0, "花") not in offered


# --- 7. 曲高和寡: 剩余玩家可以猜 (p2:1) ---------------------------------------------------------


def test_p2_1_a_guesser_may_pass() -> None:
    """Given seat 0 down to one bird; when seat 1 passes and seat 2 guesses right; then the
    pass is hidden from the others until the reveal, and seat 0 draws one."""
    state = answering(
        ["鸟鸟", "鸟鸟", "鸟鸟"], "十十", options=Options(mode=Mode.PRO, lofty_tune=True)
    )
    state, _ = run(state, play(state, 0, "鸟", season=SP))
    assert PassGuess(1) in RULES.legal_commands(state, 1)
    state, events = run(state, PassGuess(1))
    assert events == [GuessMade(1, None, True)]
    assert RULES.redact(events[0], Viewer.of_seat(2)) == GuessMade(1, None, False)
    state, events = run(state, Guess(2, CardClass.BIRD))
    (revealed,) = [e for e in events if isinstance(e, GuessesRevealed)]
    assert revealed.passed == (1,) and revealed.correct == 1
    assert [e.count for e in events if isinstance(e, Drew)] == [1]


# --- 9. 凉风有幸: 指定下家禁止出包含花鸟风月四张牌的任何组合 (p1:105) ------------------------------


def _cooled(**options: Any) -> Any:
    state = answering(["风月十十鸟", "鸟鸟鸟"], options=Options(mode=Mode.REGULAR, **options))
    state, _ = run(state, play(state, 0, "风月十十", combo=Combo.LIANG_FENG_YOU_XING))
    assert state.turn == 1
    return state


def test_p1_105_cool_breeze_bans_anything_with_hua_niao_feng_or_yue() -> None:
    """Given 凉风有幸 aimed at seat 1; then a bird play is refused and seat 1 must 栖."""
    state = _cooled()
    assert reason(refusal(state, play(state, 1, "鸟"))) == "BANNED_BY_LIANG_FENG_YOU_XING"
    assert RULES.legal_commands(state, 1) == [Perch(1)]


def test_cool_breeze_all_four_option_bans_only_all_four_together() -> None:
    """Option ``cool_breeze_all_four``: given the same; then seat 1 may play its birds (no
    legal play holds 花, 鸟, 风 and 月 together)."""
    state = _cooled(cool_breeze_all_four=True)
    state, events = run(state, play(state, 1, "鸟"))
    assert isinstance(events[0], Played)


# --- 10. 万紫千红: the example 春+秋 (p1:161-163) ------------------------------------------------


def test_p1_163_wan_zi_qian_hong_follows_its_example() -> None:
    """Given seat 0 plays 万紫千红 in 春 choosing 秋; when the next round (夏) comes; then it
    follows 春+秋 and declares 春."""
    state = answering(["万万千千鸟鸟", "鸟" * 8], mode=Mode.FULL)
    state, _ = run(
        state,
        play(
            state,
            0,
            "万万千千",
            combo=Combo.WAN_ZI_QIAN_HONG,
            season=SP,
            chosen_season=Season.AUTUMN,
        ),
    )
    summer = replace(state, round=2, season=Season.SUMMER)
    assert seasons_of(summer, 0) == (SP, Season.AUTUMN)
    assert seasons_of(summer, 1) == (Season.SUMMER,)


# --- 11. 鸟牌最多者先手 (p1:53): the tie ------------------------------------------------------------


def _tied_deal(options: Options) -> Any:
    """Seats 0, 1 and 2 with four birds each; seat 3 with three."""
    birds = list(range(54))
    numbers = list(range(54, 90))
    hands = []
    for seat in range(4):
        n = 3 if seat == 3 else 4
        hands += birds[:n] + numbers[: 8 - n]
        birds, numbers = birds[n:], numbers[8 - n :]
    rest = [c for c in range(108) if c not in hands]
    return initial_state(options, 4, tuple(hands + rest), 0)


def test_p1_53_a_tie_for_most_birds_goes_to_the_lowest_seat() -> None:
    facts = deal(_tied_deal(Options(mode=Mode.BASIC)))
    assert facts[-1] == LeaderChosen(0)


def test_leader_tie_random_option_draws_among_the_tied_seats() -> None:
    """Option ``leader_tie=RANDOM``: given seats 0-2 tied; then the leader is one of them,
    drawn by the game's generator (the same deal always draws the same), and the fact names
    the tied seats."""
    state = _tied_deal(Options(mode=Mode.BASIC, leader_tie=LeaderTie.RANDOM))
    chosen = deal(state)[-1]
    assert chosen.tied == (0, 1, 2) and chosen.seat in chosen.tied
    assert deal(state)[-1] == chosen
    leaders = {deal(replace(state, chance=c))[-1].seat for c in range(30)}
    assert leaders == {0, 1, 2}


# --- 12. 念诵: required, optional or off; the chant and the closing verse (p1:55-59, p2:75, 92) -


def opening(verse: VerseRule) -> Any:
    return table(["鸟" * 8, "鸟" * 8], options=Options(mode=Mode.BASIC, verse=verse))


def test_p1_55_a_required_verse_is_a_violation_the_enforcement_mode_handles() -> None:
    """Given the verse REQUIRED; when the opening comes without it; then it is refused as
    VERSE_REQUIRED, which is 其他违规 for REFEREE and PLAYERS."""
    state = opening(VerseRule.REQUIRED)
    command = play(state, 0, "鸟")
    err = refusal(state, command)
    assert reason(err) == "VERSE_REQUIRED"
    assert violation_of(state, command, err)[0] is ViolationKind.OTHER


def test_an_optional_verse_is_recorded_when_sent_and_never_owed() -> None:
    state = opening(VerseRule.OPTIONAL)
    assert not state.verse_due
    _, events = run(state, play(state, 0, "鸟"))
    assert events[0].verse is None
    _, events = run(state, play(state, 0, "鸟", verse=OPENING_VERSE))
    assert events[0].verse == OPENING_VERSE


def test_with_the_verse_off_nothing_is_recorded() -> None:
    state = opening(VerseRule.OFF)
    _, events = run(state, play(state, 0, "鸟", verse=OPENING_VERSE))
    assert events[0].verse is None


def _ended(verse: VerseRule = VerseRule.REQUIRED) -> Any:
    state = table(["鸟", "鸟鸟"], options=Options(mode=Mode.BASIC, verse=verse))
    state, _ = run(state, play(state, 0, "鸟", verse=OPENING_VERSE))
    assert state.phase == Phase.ENDED
    return state


def test_p2_75_after_the_song_a_seat_may_record_the_closing_verse_once() -> None:
    """Given a game that ended; when seat 1 recites the closing verse; then it is recorded
    (once); a chant without a 大对决, another text, or a recital before the end is refused."""
    state = _ended()
    state, events = run(state, Recite(1, CLOSING_VERSE))
    assert events == [Recited(1, Verse.CLOSING, CLOSING_VERSE)]
    assert reason(refusal(state, Recite(1, CLOSING_VERSE))) == "ALREADY_RECITED"
    assert reason(refusal(state, Recite(0, "天上天下，花鸟风月之雀舞"))) == "NO_SHOWDOWN"
    assert reason(refusal(state, Recite(0, "hello"))) == "NOT_A_VERSE"
    running = table(["鸟鸟", "鸟鸟"])
    assert reason(refusal(running, Recite(0, CLOSING_VERSE))) == "NOT_NOW"
    assert reason(refusal(_ended(VerseRule.OFF), Recite(0, CLOSING_VERSE))) == "VERSES_OFF"


def test_p2_92_after_a_showdown_a_seat_may_record_the_chant() -> None:
    state, _ = run(_tie_at_the_end(), Perch(0))
    state, events = run(state, Recite(2, "天上天下，花鸟风月之雀舞"))
    assert events[0].verse is Verse.SHOWDOWN_CHANT


def test_the_table_takes_a_recital_after_the_end_but_no_move() -> None:
    """The table lets the game's after-end commands through (``after_end_command_types``)."""
    options = Options(mode=Mode.BASIC)
    h = Harness.open(options, 2, Enforcement.REJECT)
    while h.table.outcome is None:
        seat = tables.to_act(h.table)[0]
        h.act(tables.legal_commands(h.table, seat)[0])
    assert h.table.phase is tables.Phase.FINISHED
    assert [type(f) for f in h.act(Recite(0, CLOSING_VERSE))] == [Recited]
    with pytest.raises(RuleViolation) as e:
        tables.act(h.table, Perch(0))
    assert e.value.reason == "GAME_OVER"
