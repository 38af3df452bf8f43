"""Matches: a series of hands at one table (given/when/then on domain/match/), the dealer
rule between hands (zp:9–11), the standings, and whole matches played in process."""

from __future__ import annotations

import dataclasses

import pytest

from domain import match
from domain import table as tables
from domain.engine import MalformedCommand, RuleViolation
from domain.huaniao import rules as huaniao_rules
from domain.huaniao.cards import I_BIRD
from domain.huaniao.events import Dealt, LeaderChosen
from domain.huaniao.options import LeaderTie, Mode
from domain.huaniao.options import Options as HuaniaoOptions
from domain.match import Advance, HandEnded, HandOpened, MatchCreated, Standing
from domain.registry import register, rules_for
from domain.table import records
from domain.zipai.options import DealerRule, FirstDealer, ScoringProfile
from domain.zipai.options import Options as ZipaiOptions
from tests.support import fakegame, matchplay

register(fakegame.RULES)
MID = "8f1c0a52-31c2-4f3e-9a53-3f2b1c9d0e11"
ZIPAI = rules_for("zipai")
HUANIAO = rules_for("huaniao")


def given(*facts: object) -> match.Match:
    state = None
    for fact in facts:
        state = match.evolve(state, fact)
    assert state is not None
    return state


def opened(hands: int = 3, target: int = 0, advance: Advance = Advance.AUTO) -> list[object]:
    return match.create(ZIPAI, MID, 3, hands, target, advance)


def ended(hand: int, winners: tuple[int, ...], scores: tuple[int, ...]) -> HandEnded:
    return HandEnded(hand, match.hand_id(MID, hand), winners, scores, "HU", f"head-{hand}")


# --- opening -----------------------------------------------------------------------------


def test_a_match_opens_with_its_length_and_links_its_first_hand() -> None:
    assert opened(4) == [
        MatchCreated(MID, "zipai", 3, 4, 0, Advance.AUTO, False),
        HandOpened(1, match.hand_id(MID, 1)),
    ]


def test_the_hands_ids_are_derived_from_the_match_and_differ() -> None:
    ids = {match.hand_id(MID, n) for n in range(1, 10)}
    assert len(ids) == 9
    assert match.hand_id(MID, 2) == match.hand_id(MID, 2)


@pytest.mark.parametrize(
    ("hands", "target", "field"),
    [(0, 0, "match"), (match.MAX_HANDS + 1, 0, "match.hands"), (3, -1, "match.target_score")],
)
def test_a_match_needs_a_length_within_bounds(hands: int, target: int, field: str) -> None:
    with pytest.raises(MalformedCommand) as e:
        match.create(ZIPAI, MID, 3, hands, target)
    assert e.value.field == field


def test_huaniao_ranks_the_lower_total_first() -> None:
    created = match.create(HUANIAO, MID, 4, 3, 0)[0]
    assert isinstance(created, MatchCreated) and created.lower_score_wins


# --- standings ---------------------------------------------------------------------------


def test_a_hands_scores_add_up_and_the_higher_total_leads_in_zipai() -> None:
    state = given(*opened(3), ended(1, (2,), (-4, -4, 8)))
    assert state.standings == (Standing(0, -4, 0, 2), Standing(1, -4, 0, 2), Standing(2, 8, 1, 1))


def test_seats_level_on_total_are_ranked_by_hands_won() -> None:
    state = given(*opened(3), ended(1, (0,), (0, 0, 0)))
    assert [s.rank for s in state.standings] == [1, 2, 2]


def test_a_forfeit_never_helps_the_forfeited_seat_where_the_lower_total_leads() -> None:
    created, first = match.create(HUANIAO, MID, 2, 3, 0)
    forfeit = HandEnded(1, match.hand_id(MID, 1), (1,), (-1, 0), "FORFEIT", "h")
    state = given(created, first, forfeit)
    assert [(s.total, s.rank) for s in state.standings] == [(1, 2), (0, 1)]


# --- the end of the match ----------------------------------------------------------------


def _finished_hand(state: match.Match, deck: tuple[int, ...]) -> tables.Table:
    """The match's current hand played out at a 3-seat fake-game table: seat s is dealt
    ``deck[3s:3s+3]`` and its score is their sum (the lowest wins)."""
    assert state.current is not None
    rules = fakegame.RULES
    created = tables.create(
        rules, fakegame.Options(), 3, "a", "s", deck, match_id=MID, hand=state.current.hand
    )
    table = tables.evolve(None, created[0])
    for seat in range(3):
        table = tables.evolve(table, tables.take_seat(table, seat, "", f"t{seat}")[0])
    for seat in table.awaited_commitments:  # a later hand: its seats commit (here to nothing)
        table = tables.evolve(table, tables.commit(table, seat, "")[0])
    for fact in tables.start(table):
        table = tables.evolve(table, fact)
    while table.phase is tables.Phase.PLAYING:
        (command, *_rest) = rules.legal_commands(table.game, table.game.turn)
        for fact in tables.play(table, command):
            table = tables.evolve(table, fact)
    return table


def test_the_last_hand_ends_the_match_with_the_final_standing() -> None:
    state = given(*opened(2), ended(1, (1,), (-2, 4, -2)), HandOpened(2, match.hand_id(MID, 2)))
    facts = match.end_hand(state, _finished_hand(state, (6, 7, 8, 3, 4, 5, 0, 1, 2)), "head-2")
    assert facts[0] == HandEnded(2, match.hand_id(MID, 2), (2,), (21, 12, 3), "LOWEST", "head-2")
    final = facts[1]
    assert isinstance(final, match.MatchEnded)
    assert final.standings == (Standing(0, 19, 0, 1), Standing(1, 16, 1, 2), Standing(2, 1, 1, 3))
    assert final.winners == (0,)  # zipai's way: the higher total leads


def test_a_target_score_ends_the_match_after_the_hand_that_reaches_it() -> None:
    deck = (6, 7, 8, 3, 4, 5, 0, 1, 2)  # totals 21, 12, 3
    state = given(*opened(0, target=21))
    facts = match.end_hand(state, _finished_hand(state, deck), "h")
    assert [type(f).__name__ for f in facts] == ["HandEnded", "MatchEnded"]
    below = given(*opened(0, target=22))
    assert len(match.end_hand(below, _finished_hand(below, deck), "h")) == 1


def test_a_hand_still_running_cannot_end() -> None:
    state = given(*opened(2))
    hand = matchplay.first_hand("zipai", ZipaiOptions(), 3, MID, "s", [0, 1, 2])
    with pytest.raises(RuleViolation) as e:
        match.end_hand(state, hand.table, hand.head)
    assert e.value.reason == "HAND_RUNNING"


def test_a_table_of_another_match_cannot_end_this_matchs_hand() -> None:
    state = given(*opened(2))
    other = matchplay.first_hand("zipai", ZipaiOptions(), 3, match.hand_id(MID, 9), "s", [0, 1, 2])
    with pytest.raises(MalformedCommand):
        match.end_hand(state, other.table, other.head)


# --- ready and the next hand -------------------------------------------------------------


def test_auto_deals_the_next_hand_as_soon_as_one_ends() -> None:
    state = given(*opened(3))
    assert not match.next_due(state)
    state = given(*opened(3), ended(1, (0,), (2, -1, -1)))
    assert match.next_due(state)
    assert match.open_hand(state) == [HandOpened(2, match.hand_id(MID, 2))]


def test_a_ready_match_opens_the_next_hand_as_soon_as_one_ends_too() -> None:
    """The next hand's commitment must be public before any seat's entropy for it exists,
    so it opens at once in either mode; READY waits for the seats' commitments on it."""
    running = given(*opened(3, advance=Advance.READY))
    assert not match.next_due(running)
    with pytest.raises(RuleViolation) as e:
        match.open_hand(running)
    assert e.value.reason == "NEXT_HAND_NOT_DUE"
    state = given(*opened(3, advance=Advance.READY), ended(1, (0,), (2, -1, -1)))
    assert match.open_hand(state) == [HandOpened(2, match.hand_id(MID, 2))]


def test_a_ready_carries_a_commitment_never_a_plain_contribution() -> None:
    state = given(*opened(3), ended(1, (0,), (2, -1, -1)))
    with pytest.raises(RuleViolation) as e:
        match.check_ready(state, 1, "public-before-the-commitment")
    assert e.value.reason == "CONTRIBUTION_NOT_COMMITTED"
    match.check_ready(state, 1)  # a commitment (checked by the hand's table) or nothing


def test_no_ready_after_the_last_hand() -> None:
    state = given(*opened(1))
    with pytest.raises(RuleViolation) as e:
        match.check_ready(state, 0)
    assert e.value.reason == "MATCH_OVER"


def test_the_next_hand_keeps_seats_tokens_arbiter_settings_and_draws_fresh_reveals() -> None:
    played = matchplay.play_match(
        "zipai", ZipaiOptions(), 3, seed=5, hands=2, advance=Advance.READY
    )
    first, second = played.finals()
    assert second.hand == 2 and second.match_id == played.match.match_id
    assert [s.token_hash for s in second.seats] == [s.token_hash for s in first.seats]  # type: ignore[union-attr]
    assert [s.player_name for s in second.seats] == ["p0", "p1", "p2"]  # type: ignore[union-attr]
    # committed and revealed on hand 2's own stream, after its commitment (matchplay.draw_hand)
    assert [s.contribution for s in second.seats] == ["r0-2", "r1-2", "r2-2"]  # type: ignore[union-attr]
    assert second.arbiter_token_hash == first.arbiter_token_hash
    assert second.secret != first.secret and second.commitment != first.commitment


# --- the dealer across hands (zp:9–11) -----------------------------------------------------


def test_the_first_seat_taken_deals_the_first_hand() -> None:
    hand = matchplay.first_hand("zipai", ZipaiOptions(), 3, MID, "s", [2, 0, 1])
    assert hand.table.game.dealer == 2
    assert hand.table.options.dealer == 2  # the view shows the dealer the hand was dealt with


def test_the_table_may_name_the_first_dealer() -> None:
    options = ZipaiOptions(first_dealer=FirstDealer.SEAT, dealer=1)
    hand = matchplay.first_hand("zipai", options, 3, MID, "s", [2, 0, 1])
    assert hand.table.game.dealer == 1


def _dealers_and_winners(rule: DealerRule, seed: int) -> list[tuple[int, int | None]]:
    options = ZipaiOptions(dealer_rule=rule, scoring=ScoringProfile.LUZHOU)
    played = matchplay.play_match("zipai", options, 3, seed, hands=4, join_order=[1, 2, 0])
    return [(t.game.dealer, t.game.winner) for t in played.finals()]


def _covering(rule: DealerRule, needs: list[object]) -> tuple[int, list[tuple[int, int | None]]]:
    """The first seed whose 4 hands show every case in ``needs`` (a deterministic search,
    so the test sees the rule's branches, not only 荒庄)."""
    for seed in range(40):
        hands = _dealers_and_winners(rule, seed)
        if all(need(hands) for need in needs):  # type: ignore[operator]
            return seed, hands
    raise AssertionError(f"no seed under 40 shows every case of {rule.name}")


def _won_by_other(hands: list[tuple[int, int | None]]) -> bool:
    return any(w is not None and w != d for d, w in hands[:3])


def _won_by_dealer(hands: list[tuple[int, int | None]]) -> bool:
    return any(w is not None and w == d for d, w in hands[:3])


def _huang(hands: list[tuple[int, int | None]]) -> bool:
    return any(w is None for _, w in hands[:3])


def test_four_hands_under_winner_deals_the_winner_deals_next() -> None:
    """胡牌者当庄 (zp:10): the winner deals the next hand; after 荒庄 the dealer keeps it."""
    seed, hands = _covering(DealerRule.WINNER, [_won_by_other, _huang])
    assert hands[0][0] == 1, "the first seat taken (seat 1) deals the first hand"
    for (dealer, winner), (next_dealer, _) in zip(hands, hands[1:], strict=False):
        expected = winner if winner is not None else dealer
        assert next_dealer == expected, f"seed={seed}: {hands}"


def test_four_hands_under_rotation_the_dealer_keeps_it_on_a_win_else_the_next_seat_deals() -> None:
    """轮庄 (zp:11): 庄家胡牌则连庄，其他玩家胡牌则庄家下家坐庄 (and after 荒庄 too)."""
    seed, hands = _covering(DealerRule.ROTATE, [_won_by_other, _huang])
    assert hands[0][0] == 1
    for (dealer, winner), (next_dealer, _) in zip(hands, hands[1:], strict=False):
        expected = dealer if winner == dealer else (dealer + 1) % 3
        assert next_dealer == expected, f"seed={seed}: {hands}"


def _leaders(played: matchplay.PlayedMatch) -> list[tuple[tuple[int, ...], int, tuple[int, ...]]]:
    """Each hand's (seats with the most birds in its deal, LeaderChosen.seat, .tied)."""
    out = []
    for hand in played.hands.values():
        facts = [records.decode_event("huaniao", r.fact) for r in hand.records]
        options = hand.table.options
        birds = {
            f.seat: huaniao_rules.kinds(options, [c.id for c in f.cards])[I_BIRD]
            for f in facts
            if isinstance(f, Dealt)
        }
        most = max(birds.values())
        leader = next(f for f in facts if isinstance(f, LeaderChosen))
        out.append((tuple(s for s in sorted(birds) if birds[s] == most), leader.seat, leader.tied))
    return out


def _tied_match(tie: LeaderTie) -> tuple[int, list[tuple[tuple[int, ...], int, tuple[int, ...]]]]:
    """The first seed whose 3-hand match has a hand with a tie for most birds whose leader
    is not the lowest tied seat (RANDOM) or is (LOWEST_SEAT): the tie rule is seen at work."""
    options = HuaniaoOptions(mode=Mode.BASIC, leader_tie=tie)
    for seed in range(40):
        hands = _leaders(matchplay.play_match("huaniao", options, 4, seed=seed, hands=3))
        ties = [(most, seat) for most, seat, _ in hands if len(most) > 1]
        if any((seat != most[0]) == (tie is LeaderTie.RANDOM) for most, seat in ties):
            return seed, hands
    raise AssertionError(f"no seed under 40 shows a {tie.name} tie")


@pytest.mark.parametrize("tie", list(LeaderTie))
def test_huaniao_picks_every_hands_first_player_by_its_own_rule(tie: LeaderTie) -> None:
    """鸟牌最多者先手 (p1:73) in every hand of a match, from that hand's own deal; a tie goes
    by the table's ``leader_tie`` in every hand (LOWEST_SEAT: the lowest tied seat; RANDOM:
    one of the tied seats, drawn by the hand's own generator, LeaderChosen naming them)."""
    seed, hands = _tied_match(tie)
    for most, seat, tied in hands:
        assert seat in most, f"seed={seed}: {hands}"
        if tie is LeaderTie.LOWEST_SEAT:
            assert seat == most[0] and tied == (), f"seed={seed}: {hands}"
        else:
            assert tied == (most if len(most) > 1 else ()), f"seed={seed}: {hands}"


def test_huaniao_deals_every_hand_with_the_tables_options() -> None:
    options = HuaniaoOptions(mode=Mode.BASIC, leader_tie=LeaderTie.RANDOM)
    played = matchplay.play_match("huaniao", options, 4, seed=3, hands=3)
    finals = played.finals()
    assert [t.hand for t in finals] == [1, 2, 3]
    assert all(t.options == finals[0].options for t in finals)
    assert finals[0].options.leader_tie is LeaderTie.RANDOM


def test_a_three_hand_huaniao_match_sums_the_hands_and_ranks_the_lowest_first() -> None:
    played = matchplay.play_match("huaniao", HuaniaoOptions(mode=Mode.BASIC), 4, seed=8, hands=3)
    totals = [sum(t.outcome.scores[s] for t in played.finals()) for s in range(4)]
    final = played.state.ended
    assert final is not None
    assert [s.total for s in final.standings] == totals
    best = min(totals)
    leaders = [s for s in range(4) if totals[s] == best]
    assert set(final.winners) <= set(leaders)
    assert len(played.state.hands) == 3


def test_a_match_to_a_target_score_stops_at_the_first_hand_that_reaches_it() -> None:
    options = HuaniaoOptions(mode=Mode.BASIC)
    played = matchplay.play_match("huaniao", options, 3, seed=2, hands=0, target_score=15)
    totals = [0, 0, 0]
    for n, t in enumerate(played.finals(), start=1):
        totals = [a + b for a, b in zip(totals, t.outcome.scores, strict=True)]
        reached = max(totals) >= 15
        assert reached == (n == len(played.finals())), f"seed=2: totals {totals} after hand {n}"


def test_the_match_state_survives_storage() -> None:
    played = matchplay.play_match(
        "zipai", ZipaiOptions(), 2, seed=4, hands=2, advance=Advance.READY
    )
    state = played.state
    assert match.decode_match(match.encode_match(state)) == state
    for record in played.match.records:
        fact = match.decode_fact(record.fact)
        assert match.encode_fact(fact) == record.fact


def test_rebuilding_the_match_from_its_record_gives_the_same_state() -> None:
    played = matchplay.play_match("huaniao", HuaniaoOptions(mode=Mode.BASIC), 2, seed=6, hands=2)
    rebuilt = given(*[match.decode_fact(r.fact) for r in played.match.records])
    # the record blanks the match's chain secret (MatchCreated's is kept beside it)
    assert rebuilt == dataclasses.replace(played.state, secret="")
    assert dataclasses.replace(rebuilt, version=0) != dataclasses.replace(rebuilt, hands=())
