"""Given/when/then tests for 花鸟风月's penalties (domain/huaniao/penalties.py): what each
penalty does to the cards, which refusal is which violation, what becomes of a turn after a
timeout or a refereed attempt, and a forbidden command as played (PLAYERS).

``part2:N`` is line N of huaniao-rules-part2-decoded.txt (四、违规与仲裁 is lines 29-72).
The table-level flows (reports, votes, appeals, ...) are in tests/domain/test_justice.py.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from domain.engine import SPECTATOR, RuleViolation, Viewer
from domain.huaniao import RULES, Combo, Discard, Mode, Options, Perch, Play
from domain.huaniao.cards import CARDS, DECK_SIZE, Card, CardKind, kind_counts
from domain.huaniao.commands import ChangeSeason
from domain.huaniao.events import (
    AttemptPlayed,
    CardTaken,
    DanceBanned,
    Discarded,
    DiscardRequired,
    Drew,
    GameEnded,
    GuessingCancelled,
    GuessingOpened,
    GuessMade,
    HandOpened,
    PenaltyDiscarded,
    Perched,
    SongEnded,
    Transfer,
)
from domain.huaniao.penalties import in_discard_order
from domain.huaniao.plays import discard_choices
from domain.huaniao.rules import dance_banned, hand_open
from domain.huaniao.state import HuaniaoState, PendingDiscard
from domain.huaniao.terms import Cause, Need, Phase, Season
from domain.table.justice import facts as J

from .justice_support import cards_in_play
from .tables import discard, hand_kinds, pick, play, refusal, run, table, types

K = J.ViolationKind
P = J.PenaltyKind


def fold(state: HuaniaoState, facts: list[Any]) -> HuaniaoState:
    for f in facts:
        state = RULES.evolve(state, f)
    return state


def penalise(state: HuaniaoState, seat: int, penalty: J.Penalty) -> tuple[HuaniaoState, list]:
    facts = RULES.penalty_facts(state, seat, penalty)
    after = fold(state, facts)
    assert cards_in_play(after) == list(range(DECK_SIZE)), "108 cards conserved"
    return after, facts


def answering(hands: list[str], deck: str = "", **kw: Any) -> HuaniaoState:
    """Seat 0 to play, the opening done, any count >= 1 answers."""
    kw.setdefault("verse_due", False)
    kw.setdefault("need", Need.ANY)
    kw.setdefault("reference", 1)
    return table(hands, deck, **kw)


# --- 摸 N 张 (part2:33 出牌超时 罚摸1张) -----------------------------------------------------------


def test_part2_33_draw_penalty_takes_from_the_deck() -> None:
    """part2:33 罚：(摸)1张牌 -- the penalised seat draws from the deck, cause 罚."""
    state = answering(["鸟鸟", "鸟鸟"], "万")
    after, facts = penalise(state, 1, J.Penalty(P.DRAW, 1))
    assert facts == [Drew(1, (CARDS[state.deck[0]],), 1, Cause.PENALTY)]
    assert hand_kinds(after, 1) == "鸟鸟万"
    assert after.turn == 0 and after.phase == Phase.PLAYING, "a penalty is not a move"


def test_a_draw_penalty_with_a_short_deck_draws_what_is_left() -> None:
    """Reading: as any draw (part1:89 当牌堆的数量不够摸牌时，停止摸牌), a penalty draw takes what
    the deck has; 取手牌最多的玩家1张 (part2:46) belongs to the forced discard only."""
    state = answering(["鸟鸟", "鸟鸟"], "万", more_deck=False)
    after, facts = penalise(state, 1, J.Penalty(P.DRAW, 2))
    assert types(facts) == ["Drew"] and facts[0].count == 1 and after.deck == ()
    _, none = penalise(after, 1, J.Penalty(P.DRAW, 2))
    assert none == []


ALWAYS = Options(mode=Mode.REGULAR, hand_limit_always=True)  # the limit holds at 8 too


def test_a_penalty_draw_over_the_hand_limit_is_discarded_down_at_once() -> None:
    """Clause 45 (先摸牌，后弃牌; here the limit always holds): a seat that is not acting now
    owes the excess at once."""
    state = answering(["鸟" * 8, "鸟" * 8], "万万", options=ALWAYS)
    after, facts = penalise(state, 1, J.Penalty(P.DRAW, 2))
    assert types(facts) == ["Drew", "DiscardRequired"]
    assert facts[1] == DiscardRequired(1, 2, (Cause.HAND_LIMIT,))
    assert after.phase == Phase.DISCARDING and RULES.to_act(after) == (1,)


def test_a_penalty_draw_of_the_seat_on_turn_is_discarded_after_its_action() -> None:
    """The seat about to act discards the excess right after its action, as with 栖's draw."""
    state = answering(["鸟" * 8, "鸟" * 8], "万十", options=ALWAYS)
    after, facts = penalise(state, 0, J.Penalty(P.DRAW, 1))
    assert types(facts) == ["Drew"] and after.phase == Phase.PLAYING and after.turn == 0
    after, events = run(after, play(after, 0, "鸟"))
    assert types(events) == ["Played"], "at 8 again after playing one: nothing owed"
    after, _ = penalise(after, 0, J.Penalty(P.DRAW, 1))
    assert RULES.to_act(after) == (0,) and after.pending_discards == (PendingDiscard(0, 1),)


def test_a_penalty_draw_adds_to_a_discard_already_owed() -> None:
    """One discard window per seat: the excess adds to what the seat owes (风 here)."""
    state = answering(["风鸟鸟", "鸟" * 8], "万", options=ALWAYS)
    state, _ = run(state, play(state, 0, "风", target=1))
    assert state.pending_discards == (PendingDiscard(1, 1),)
    after, facts = penalise(state, 1, J.Penalty(P.DRAW, 1))
    assert types(facts) == ["Drew"], "8+1 after discarding 1 is within the limit"
    after, facts = penalise(after, 1, J.Penalty(P.DRAW, 1))
    assert facts[-1] == DiscardRequired(1, 1, (Cause.HAND_LIMIT,))
    assert after.pending_discards == (PendingDiscard(1, 2),)


# --- 弃掉违规牌组中的所有牌，并摸 N 张 (part2:36, part2:39) ---------------------------------------


def test_part2_39_illegal_combo_cards_in_the_hand_are_discarded_then_one_drawn() -> None:
    """part2:39 棄掉違規組合中的所有牌，並(摸)1張 -- REFEREE: the attempt never left the hand."""
    state = answering(["花风月风鸟", "鸟鸟"], "万", mode=Mode.REGULAR)
    cards = pick(state, 0, "花风月风")
    after, facts = penalise(state, 0, J.Penalty(P.DISCARD_AND_DRAW, 1, cards))
    assert types(facts) == ["PenaltyDiscarded", "Drew"]
    assert facts[0] == PenaltyDiscarded(0, tuple(CARDS[c] for c in sorted(cards)), False)
    assert hand_kinds(after, 0) == "鸟万" and set(cards) <= set(after.discarded)


def test_part2_36_wrong_declaration_cards_on_the_table_are_discarded_then_two_drawn() -> None:
    """part2:36 棄掉違規牌組中的所有牌，並(摸)2張 -- PLAYERS: the play lies on the table."""
    state = answering(["十百千万鸟", "鸟鸟"], "万十", mode=Mode.REGULAR)
    attempt = play(state, 0, "十百千万", combo=Combo.TIANSHANG_TIANXIA, announce=4)
    state = fold(state, RULES.play_as_attempt(state, attempt))
    after, facts = penalise(state, 0, J.Penalty(P.DISCARD_AND_DRAW, 2, attempt.cards))
    assert types(facts) == ["PenaltyDiscarded", "Drew"] and facts[0].from_table
    assert not set(attempt.cards) & set(after.played) and hand_kinds(after, 0) == "鸟十万"


def test_cards_a_penalty_names_that_are_elsewhere_are_ignored() -> None:
    state = answering(["鸟鸟", "风鸟"], "万")
    other = pick(state, 1, "风")
    after, facts = penalise(state, 0, J.Penalty(P.DISCARD_AND_DRAW, 1, (*other, 9999)))
    assert types(facts) == ["Drew"] and hand_kinds(after, 1) == "鸟风"


# --- 下回合不可进行“舞” (part2:42) -------------------------------------------------------------


def test_part2_42_season_penalty_bans_wu_on_the_next_turn() -> None:
    """part2:42 下回合不可进行“舞”（即出功能牌和特殊牌组）: seat 1, not on turn, is banned on
    its coming turn: no 风/月/花 and no combo; a bird play is fine; the turn after is free."""
    state = answering(["鸟鸟鸟", "风月十百千万鸟鸟"], mode=Mode.REGULAR)
    after, facts = penalise(state, 1, J.Penalty(P.NO_WU_NEXT_TURN))
    assert facts == [DanceBanned(1, 0)]
    after, _ = run(after, play(after, 0, "鸟"))
    assert dance_banned(after, 1) and RULES.view(after, SPECTATOR).seats[1].dance_banned
    assert refusal(after, play(after, 1, "风", target=0)).reason == "DANCE_BANNED"
    combo = play(after, 1, "十百千万", combo=Combo.TIANSHANG_TIANXIA, announce=1)
    assert refusal(after, combo).reason == "DANCE_BANNED"
    kinds = {CARDS[c].kind for cmd in RULES.legal_commands(after, 1) for c in cmd.cards}
    assert CardKind.BIRD in kinds and not kinds & {CardKind.WIND, CardKind.MOON, CardKind.FLOWER}
    assert all(cmd.combo is None for cmd in RULES.legal_commands(after, 1))
    after, _ = run(after, play(after, 1, "鸟鸟"), play(after, 0, "鸟鸟"))
    assert not dance_banned(after, 1)


def test_part2_42_a_seat_penalised_mid_turn_is_banned_on_the_turn_after() -> None:
    state = answering(["风鸟鸟", "鸟鸟"], mode=Mode.REGULAR)
    after, facts = penalise(state, 0, J.Penalty(P.NO_WU_NEXT_TURN))
    assert facts == [DanceBanned(0, 1)] and not dance_banned(after, 0)
    after, _ = run(after, play(after, 0, "鸟"), play(after, 1, "鸟鸟"))
    assert dance_banned(after, 0)


# --- 强制按正确顺序弃 N 张 (part2:45-48) --------------------------------------------------------


def test_part2_47_forced_discard_follows_bird_number_function() -> None:
    """part2:47-48: A had to discard 3, held 2 birds, threw 3 number cards; next time 弃牌3张
    in the right order: the 2 birds, then a number card (the lowest kind first)."""
    state = answering(["鸟", "月万鸟千鸟百十"], "十")
    after, facts = penalise(state, 1, J.Penalty(P.FORCED_DISCARD, 3))
    assert types(facts) == ["PenaltyDiscarded"]
    assert [c.kind for c in facts[0].cards] == [CardKind.BIRD, CardKind.BIRD, CardKind.TEN]
    assert hand_kinds(after, 1) == "百千万月"


def test_part2_46_a_short_hand_is_discarded_whole_and_one_card_drawn() -> None:
    """part2:46 若手牌的数量小于需要弃置的牌，则需要弃完自己所有手牌以后(摸)1张手牌补足."""
    state = answering(["鸟鸟", "月十"], "万")
    after, facts = penalise(state, 1, J.Penalty(P.FORCED_DISCARD, 3))
    assert types(facts) == ["PenaltyDiscarded", "Drew"]
    assert hand_kinds(after, 1) == "万"


def test_part2_46_with_an_empty_deck_one_card_is_taken_from_the_fullest_hand() -> None:
    """part2:46 如果牌堆牌数不足则取手牌最多的玩家1张手牌 (a random card; ties: lowest seat)."""
    state = answering(["鸟鸟", "月", "鸟鸟鸟", "十十十"], more_deck=False)
    after, facts = penalise(state, 1, J.Penalty(P.FORCED_DISCARD, 2))
    assert types(facts) == ["PenaltyDiscarded", "CardTaken"]
    taken = facts[1]
    assert isinstance(taken, CardTaken) and taken.cause is Cause.PENALTY
    assert (taken.transfer.from_seat, taken.transfer.to_seat) == (2, 1)
    assert hand_kinds(after, 1) == "鸟" and len(after.hands[2].cards) == 2
    assert after.rng_counter == state.rng_counter + 1
    seen = RULES.redact(taken, Viewer.of_seat(0))
    assert seen.transfer.card is None and "罚" in RULES.describe(seen)


def test_a_forced_discard_does_not_settle_the_discard_owed() -> None:
    """The penalty comes on top (as in part2:47-48, where the wrong discard stood); what is
    owed never exceeds the hand."""
    state = answering(["风鸟", "鸟十百"], "")
    state, _ = run(state, play(state, 0, "风", target=1))
    after, _ = penalise(state, 1, J.Penalty(P.FORCED_DISCARD, 2))
    assert after.pending_discards == (PendingDiscard(1, 1),) and hand_kinds(after, 1) == "百"
    after, _ = penalise(state, 1, J.Penalty(P.FORCED_DISCARD, 3))
    assert after.pending_discards == () and after.phase == Phase.PLAYING


def test_the_timeout_discard_order_is_a_legal_discard() -> None:
    rng = random.Random(4)
    for _ in range(300):
        hand = tuple(rng.sample(range(DECK_SIZE), rng.randint(1, 10)))
        k = rng.randint(1, len(hand))
        chosen = in_discard_order(Options(), hand, k)
        assert kind_counts(chosen) in discard_choices(kind_counts(hand), k), (hand, k)


# --- 公开手牌1回合 (part2:51) -------------------------------------------------------------------


def test_part2_51_open_hand_shows_the_hand_and_its_draws_for_one_round() -> None:
    """part2:51 公开手牌1回合: every seat and spectator sees the hand -- and the cards it draws
    -- for the next N turns (N = seats); then it is hidden again."""
    state = answering(["鸟鸟鸟鸟", "鸟鸟鸟鸟", "月鸟鸟鸟"], "十百千万")
    after, facts = penalise(state, 2, J.Penalty(P.OPEN_HAND))
    assert facts == [HandOpened(2, tuple(CARDS[c] for c in state.hands[2].cards), 3)]
    for viewer in (Viewer.of_seat(0), SPECTATOR):
        v = RULES.view(after, viewer)
        assert v.seats[2].open_hand and len(v.seats[2].cards) == 4
        assert v.seats[1].cards == () and not v.seats[1].open_hand
    after, _ = run(after, play(after, 0, "鸟"), play(after, 1, "鸟"))
    assert hand_open(after, 2), "two of three turns so far"
    after, (drew,) = penalise(after, 2, J.Penalty(P.DRAW, 1))
    assert drew.shown and RULES.redact(drew, SPECTATOR) == drew
    assert RULES.describe(RULES.redact(drew, SPECTATOR)) == "seat 2 摸 十 (罚)"
    after, events = run(after, play(after, 2, "月", target=1))
    moon = [e for e in events if isinstance(e, Drew)]
    assert moon and not moon[0].shown, "seat 1's draw: its hand is not open"
    assert not hand_open(after, 2) and RULES.view(after, SPECTATOR).seats[2].cards == ()
    after, (hidden,) = penalise(after, 2, J.Penalty(P.DRAW, 1))
    assert RULES.redact(hidden, SPECTATOR).cards == ()


def test_open_hand_shows_the_cards_it_passes_in_an_exchange() -> None:
    state = answering(["花风鸟", "鸟鸟", "鸟鸟"], mode=Mode.REGULAR)
    after, _ = penalise(state, 1, J.Penalty(P.OPEN_HAND))
    after, events = run(after, play(after, 0, "花风", combo=Combo.HUA_NIAO_FENG_YUE))
    (ex,) = [e for e in events if type(e).__name__ == "CardsExchanged"]
    shown = RULES.redact(ex, SPECTATOR).transfers
    assert [t.card is not None for t in shown] == [True, True, False]


@pytest.mark.parametrize("kind", [P.WARNING, P.FORFEIT])
def test_warning_and_forfeit_have_no_game_facts(kind: J.PenaltyKind) -> None:
    """The table handles 警告 and 判负 itself."""
    state = answering(["鸟", "鸟"])
    with pytest.raises(RuleViolation) as e:
        RULES.penalty_facts(state, 0, J.Penalty(kind))
    assert e.value.reason == "PENALTY_NOT_SUPPORTED"


def test_a_penalty_that_changes_a_guessed_card_cancels_the_guess() -> None:
    """曲高和寡 is about a one-card hand; a penalty draw ends that, so the guess lapses."""
    options = Options(mode=Mode.PRO, lofty_tune=True)
    state = answering(["鸟鸟", "鸟鸟鸟", "鸟鸟鸟"], "十十十", options=options, season=Season.SPRING)
    state, events = run(state, play(state, 0, "鸟", season=Season.SPRING))
    assert isinstance(events[-1], GuessingOpened) and state.guess_target == 0
    state, _ = run(state, RULES.legal_commands(state, 1)[0])
    after, facts = penalise(state, 0, J.Penalty(P.DRAW, 1))
    assert types(facts) == ["Drew", "GuessingCancelled"] and facts[1] == GuessingCancelled(0)
    assert after.phase == Phase.PLAYING and after.guess_target is None and after.turn == 1
    same, facts = penalise(state, 2, J.Penalty(P.OPEN_HAND))
    assert same.phase == Phase.GUESSING, "a penalty that leaves the card alone keeps the guess"


# --- which refusal is which violation (part2:34-45) ---------------------------------------------

FULL = Options(mode=Mode.FULL)
SP = Season.SPRING

VIOLATIONS = [
    # (id, mode/options, hand of seat 0, command builder, reason, kind)
    (
        "风花雪月 without seasons",  # part2:38 the seed's own example
        Options(mode=Mode.REGULAR),
        "花风月风鸟",
        lambda s: play(s, 0, "花风月风", combo=Combo.FENG_HUA_XUE_YUE, chosen_season=SP),
        "ILLEGAL_COMBO",
        K.ILLEGAL_COMBO,
    ),
    (
        "静夜-banned combo",
        Options(mode=Mode.REGULAR, silent_night=(Combo.TIANSHANG_TIANXIA,)),
        "十百千万鸟",
        lambda s: play(s, 0, "十百千万", combo=Combo.TIANSHANG_TIANXIA, announce=1),
        "COMBO_BANNED",
        K.ILLEGAL_COMBO,
    ),
    (
        "bird with two number cards",
        Options(mode=Mode.BASIC),
        "鸟十十",
        lambda s: play(s, 0, "鸟十十"),
        "TOO_MANY_NUMBER_CARDS",
        K.ILLEGAL_COMBO,
    ),
    (
        "number card alone",
        Options(mode=Mode.BASIC),
        "鸟十",
        lambda s: play(s, 0, "十"),
        "NUMBER_CARDS_ALONE",
        K.ILLEGAL_COMBO,
    ),
    (
        "function card in a bird play",
        Options(mode=Mode.BASIC),
        "鸟风",
        lambda s: play(s, 0, "鸟风", target=1),
        "ILLEGAL_COMBINATION",
        K.ILLEGAL_COMBO,
    ),
    (
        "cards that are not the declared combo",
        Options(mode=Mode.REGULAR),
        "十百千千鸟",
        lambda s: play(s, 0, "十百千千", combo=Combo.TIANSHANG_TIANXIA, announce=1),
        "WRONG_DECLARATION",
        K.WRONG_DECLARATION,
    ),
    (
        "天上天下 announcing 4",
        Options(mode=Mode.REGULAR),
        "十百千万鸟",
        lambda s: play(s, 0, "十百千万", combo=Combo.TIANSHANG_TIANXIA, announce=4),
        "ANNOUNCE_REQUIRED",
        K.WRONG_DECLARATION,
    ),
    (
        "风 aimed at oneself",
        Options(mode=Mode.BASIC),
        "风鸟",
        lambda s: play(s, 0, "风", target=0),
        "TARGET_SELF",
        K.WRONG_DECLARATION,
    ),
    (
        "月 with no target",
        Options(mode=Mode.BASIC),
        "月鸟",
        lambda s: play(s, 0, "月"),
        "TARGET_REQUIRED",
        K.WRONG_DECLARATION,
    ),
    (
        "凉风有幸 aimed past the 下家",
        Options(mode=Mode.REGULAR),
        "风月十十鸟",
        lambda s: play(s, 0, "风月十十", combo=Combo.LIANG_FENG_YOU_XING, target=2),
        "TARGET_MUST_BE_NEXT",
        K.WRONG_DECLARATION,
    ),
    (
        "an undeclared combo",
        Options(mode=Mode.REGULAR),
        "十百千万鸟",
        lambda s: play(s, 0, "十百千万"),
        "COMBO_NOT_DECLARED",
        K.WRONG_DECLARATION,
    ),
    (
        "no season declared",  # part2:41 未宣告
        FULL,
        "鸟鸟",
        lambda s: play(s, 0, "鸟"),
        "SEASON_NOT_DECLARED",
        K.SEASON_RULE,
    ),
    (
        "the wrong season declared",
        FULL,
        "鸟鸟",
        lambda s: play(s, 0, "鸟", season=Season.WINTER),
        "WRONG_SEASON",
        K.SEASON_RULE,
    ),
    (
        "a flower with three number cards outside spring",  # 未遵守: only 春 allows it
        FULL,
        "花十十十",
        lambda s: play(s, 0, "花十十十", season=Season.SUMMER),
        "TOO_MANY_NUMBER_CARDS",
        K.SEASON_RULE,
    ),
]


@pytest.mark.parametrize(
    "name, options, hand, build, reason, kind", VIOLATIONS, ids=[v[0] for v in VIOLATIONS]
)
def test_part2_34_to_44_refusals_are_classified_as_the_seeds_violations(
    name: str, options: Options, hand: str, build: Any, reason: str, kind: J.ViolationKind
) -> None:
    """part2:35 错误宣告其效果, part2:38 不符合规则的牌组组合, part2:41 未按照当前季节规则出牌;
    the full table is in docs/rules/huaniao.md (四、违规与仲裁)."""
    state = answering([hand, "鸟鸟", "鸟鸟"], "万", options=options)
    if options.mode in (Mode.FULL, Mode.PRO):
        state = replace(state, season=Season.SUMMER if "spring" in name else SP)
    command = build(state)
    err = refusal(state, command)
    assert isinstance(err, RuleViolation) and err.reason == reason
    assert RULES.violation_of(state, command, err) == (kind, tuple(sorted(command.cards)))


@pytest.mark.parametrize("wrong", ["order", "count"])
def test_part2_44_discard_violations_are_classified(wrong: str) -> None:
    """part2:44 未按照规定的顺序（鸟→数量→功能）弃牌，或超限弃牌时未遵守规则."""
    state = answering(["风鸟", "鸟十百月"])
    state, _ = run(state, play(state, 0, "风", target=1))
    command = discard(state, 1, "十") if wrong == "order" else discard(state, 1, "鸟十")
    err = refusal(state, command)
    assert RULES.violation_of(state, command, err) == (K.DISCARD_ORDER, command.cards)


def test_protocol_problems_and_ordinary_refusals_are_no_violation() -> None:
    """Refused in every enforcement mode: not your turn, a card not held, the game over, and
    refusals the seed's chapter does not list (the count, the opening, 栖 with a play)."""
    state = answering(["鸟鸟鸟", "鸟鸟鸟"], reference=2, need=Need.YIN)
    cases = [
        play(state, 1, "鸟"),  # not your turn
        Play(0, (pick(state, 1, "鸟")[0],)),  # not held
        play(state, 0, "鸟"),  # MUST_FOLLOW
        Perch(0),  # MUST_PLAY
        Discard(0, pick(state, 0, "鸟")),  # owes no discard
    ]
    for command in cases:
        err = refusal(state, command)
        assert isinstance(err, RuleViolation)
        assert RULES.violation_of(state, command, err) is None, err.reason
    opening = table(["鸟十", "鸟"])
    err = refusal(opening, play(opening, 0, "鸟十"))
    assert RULES.violation_of(opening, play(opening, 0, "鸟十"), err) is None
    over = fold(state, [GameEnded((0,), (0, 0), "EMPTIED_HAND")])
    err = refusal(over, play(over, 0, "鸟鸟"))
    assert RULES.violation_of(over, play(over, 0, "鸟鸟"), err) is None


# --- what becomes of the turn (timeout: part2:31-33; REFEREE) ----------------------------------


def test_part2_32_a_timed_out_turn_is_taken_as_perch_without_its_draw() -> None:
    """Reading: after 出牌超时's 摸1张 the turn counts as 栖, with no second draw."""
    state = answering(["鸟鸟", "鸟鸟"], "万十")
    state, _ = penalise(state, 0, J.Penalty(P.DRAW, 1))
    facts = RULES.timeout_facts(state, 0)
    assert facts == [Perched(0)]
    after = fold(state, facts)
    assert after.turn == 1 and hand_kinds(after, 0) == "鸟鸟万" and after.deck[0] == state.deck[0]


def test_a_timed_out_turn_with_an_empty_deck_ends_the_song() -> None:
    """A seat that never acts cannot stall the game: 栖 with the deck exhausted → 一曲终了."""
    state = answering(["鸟鸟", "鸟十"], more_deck=False)
    facts = RULES.timeout_facts(state, 0)
    assert types(facts)[:2] == ["Perched", "SongEnded"] and isinstance(facts[-1], GameEnded)
    assert isinstance(facts[1], SongEnded) and facts[1].reason == "DECK_EXHAUSTED"


def test_a_timed_out_discard_is_made_in_order_a_guess_passed_and_the_season_changed() -> None:
    state = answering(["风鸟", "月十鸟"])
    state, _ = run(state, play(state, 0, "风", target=1))
    facts = RULES.timeout_facts(state, 1)
    assert types(facts) == ["Discarded"] and facts[0].cards[0].kind is CardKind.BIRD

    options = Options(mode=Mode.PRO, lofty_tune=True)
    guessing = answering(["鸟鸟", "鸟鸟", "鸟鸟"], options=options, season=SP)
    guessing, _ = run(guessing, play(guessing, 0, "鸟", season=SP))
    assert guessing.phase == Phase.GUESSING
    assert RULES.timeout_facts(guessing, 2)[0] == GuessMade(2, None, True)  # 可以猜: a pass

    closing = answering(["鸟鸟", "鸟鸟"], mode=Mode.FULL, season=SP, turn_in_round=1)
    closing, _ = run(closing, play(closing, 0, "鸟", season=SP))
    assert closing.phase == Phase.CHANGING_SEASON
    assert RULES.timeout_facts(closing, 0) == RULES.decide(closing, ChangeSeason(0))


def test_referee_a_penalised_play_ends_the_turn_a_penalised_discard_stays_owed() -> None:
    """Reading (REFEREE): a refereed play attempt was the seat's action: 栖 without a draw.
    A refereed discard attempt leaves the discard owed: the seat must still make it."""
    state = answering(["风鸟鸟", "鸟十百月"], "万")
    assert RULES.penalised_turn_facts(state, 0) == [Perched(0)]
    state, _ = run(state, play(state, 0, "风", target=1))
    assert RULES.penalised_turn_facts(state, 1) == []


# --- PLAYERS: a forbidden command as played ---------------------------------------------------


def test_players_a_forbidden_play_stands_without_effect_or_count() -> None:
    """Reading: the cards go to the table and the seat's action is over; the play has no
    effect (月 makes nobody draw) and no count (seat 1 still answers seat 0's last 吟/诵)."""
    state = answering(["月鸟鸟", "鸟鸟鸟"], "万", reference=2, need=Need.SONG)
    attempt = play(state, 0, "月", target=0)
    facts = RULES.play_as_attempt(state, attempt)
    assert facts == [AttemptPlayed(0, (CARDS[attempt.cards[0]],), "TARGET_SELF", target=0)]
    after = fold(state, facts)
    assert after.turn == 1 and (after.need, after.reference) == (Need.SONG, 2)
    assert after.played == state.played + attempt.cards and after.last_play == state.last_play
    assert after.deck == state.deck and RULES.redact(facts[0], SPECTATOR) == facts[0]
    assert "违规出牌" in RULES.describe(facts[0])


def test_players_a_forbidden_play_never_wins() -> None:
    """Emptying the hand with a forbidden play does not end the game (a report could not
    reach it then); the seat plays on with no cards and 栖s."""
    state = answering(["十", "鸟鸟"], "万")
    facts = RULES.play_as_attempt(state, Play(0, pick(state, 0, "十")))
    after = fold(state, facts)
    assert types(facts) == ["AttemptPlayed"] and after.phase == Phase.PLAYING
    after, _ = run(after, play(after, 1, "鸟"))
    assert RULES.legal_commands(after, 0) == [Perch(0)]


def test_players_a_forbidden_discard_stands_as_made() -> None:
    state = answering(["风鸟", "鸟十百月"])
    state, _ = run(state, play(state, 0, "风", target=1))
    wrong = discard(state, 1, "月")
    facts = RULES.play_as_attempt(state, wrong)
    assert facts == [Discarded(1, (CARDS[wrong.cards[0]],))]
    assert fold(state, facts).phase == Phase.PLAYING


def test_players_refuses_what_is_not_a_violation() -> None:
    state = answering(["鸟鸟", "鸟鸟"], reference=3, need=Need.YIN)
    with pytest.raises(RuleViolation) as e:
        RULES.play_as_attempt(state, play(state, 0, "鸟"))
    assert e.value.reason == "MUST_FOLLOW"


# --- the new facts: description, redaction, storage ------------------------------------------


def test_penalty_facts_are_public_readable_and_stored() -> None:
    from domain.codec import from_data, to_data

    card = Card(3, CardKind.BIRD)
    facts = [
        PenaltyDiscarded(1, (card,), True),
        DanceBanned(1, 4),
        HandOpened(2, (card,), 4),
        AttemptPlayed(0, (card,), "TARGET_SELF", Combo.TIANSHANG_TIANXIA, 0, 9, SP, SP),
        GuessingCancelled(3),
        CardTaken(Transfer(0, 1, card, True), Cause.PENALTY),
        Drew(0, (card,), 1, Cause.PENALTY, True),
    ]
    for f in facts:
        assert RULES.redact(f, Viewer.of_seat(3)) == f
        assert from_data(type(f), to_data(f)) == f
        line = RULES.describe(f)
        assert line and "(" not in line[:1] and "Card(" not in line, line


def test_referee_a_forced_discard_that_empties_the_hand_leaves_the_coming_turn_alone() -> None:
    """The seat hit by 风 is also next to play; its refereed discard forced its whole hand
    away: nothing is owed any more, and its own turn is still to come."""
    state = answering(["风鸟", "十百"], "万")
    state, _ = run(state, play(state, 0, "风", target=1))
    after, _ = penalise(state, 1, J.Penalty(P.FORCED_DISCARD, 2))
    assert after.pending_discards == () and after.turn == 1 and after.phase == Phase.PLAYING
    assert RULES.penalised_turn_facts(after, 1) == []
