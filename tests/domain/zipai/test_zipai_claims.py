"""Claim windows, priority 胡 > 拢 > 招 > 碰 > 吃, 自摸 then 上家, 吃 / 比牌 / 过张 (given/when/then).

Tables are three seats, seat 0 deals and is to discard unless said otherwise; seat 1 is
seat 0's 下家, seat 2 is seat 1's 下家.
"""

from __future__ import annotations

import pytest

from domain.engine import NotYourTurn, RuleViolation, Viewer
from domain.zipai import RULES, Options
from domain.zipai.claims import choose_seat
from domain.zipai.commands import BiGroup, Chi, Hu, Long, PassClaim, Peng, Zhao
from domain.zipai.events import (
    CardFlipped,
    Chied,
    ClaimKind,
    ClaimMade,
    Hued,
    LongLaidDown,
    NobodyClaimed,
    Penged,
    Prompted,
    PromptKind,
    WinKind,
    Zhaoed,
)
from domain.zipai.melds import GroupKind, MeldKind
from domain.zipai.state import PendingClaim, Phase
from tests.domain.zipai.helpers import discard, first, ids_of, kinds, play, table

GUO_HU = Options(guo_hu=True)
# 碰 and in-play 拢 as claims a seat chooses (the option; by default they are automatic)
CLAIMED = Options(optional_peng_long=True)


def chis(state, seat):  # type: ignore[no-untyped-def]
    return [c for c in RULES.legal_commands(state, seat) if isinstance(c, Chi)]


def names(state, ids):  # type: ignore[no-untyped-def]
    from domain.zipai.cards import name

    return "".join(name(i) for i in ids)


# ---------------------------------------------------------------------------- the window


def test_a_discard_opens_a_window_for_every_seat_that_can_claim_it() -> None:
    # given seat 1 (下家) can eat 五 and seat 2 can pong it (碰 as a claim)
    s = table({0: "五九", 1: "四六八", 2: "五五一"}, options=CLAIMED)
    # when seat 0 discards 五
    s, ev = discard(s, 0, "五")
    # then both are asked, in precedence order, and nothing resolves yet
    assert ev[-1] == Prompted(PromptKind.CLAIM, (1, 2))
    assert RULES.to_act(s) == (1, 2)
    assert s.phase is Phase.CLAIM


def test_claims_are_recorded_in_any_order_and_resolved_when_the_window_is_complete() -> None:
    s = table({0: "五九", 1: "四六八", 2: "五五一"}, options=CLAIMED)
    s, _ = discard(s, 0, "五")
    # seat 2 answers first: its claim is recorded, nothing resolves
    s, ev = play(s, Peng(2))
    assert [type(e) for e in ev] == [ClaimMade]
    assert RULES.to_act(s) == (1,)
    # seat 1 answers last: the window resolves — 碰 beats 吃
    s, ev = play(s, chis(s, 1)[0])
    assert isinstance(ev[0], ClaimMade)
    assert isinstance(ev[1], Penged) and ev[1].seat == 2
    assert RULES.to_act(s) == (2,) and s.phase is Phase.DISCARD


def test_a_claim_is_hidden_from_other_seats_until_resolved() -> None:
    s = table({0: "五九", 1: "四六八", 2: "五五一"}, options=CLAIMED)
    s, _ = discard(s, 0, "五")
    s, ev = play(s, Peng(2))
    made = ev[0]
    assert RULES.redact(made, Viewer.of_seat(1)).claim is None
    own = RULES.redact(made, Viewer.of_seat(2)).claim
    assert own is not None and own.kind is ClaimKind.PENG
    assert RULES.view(s, Viewer.of_seat(1)).my_claim is None
    mine = RULES.view(s, Viewer.of_seat(2)).my_claim
    assert mine is not None and mine.kind is ClaimKind.PENG


def test_nobody_can_claim_so_the_card_stays_and_the_next_seat_flips() -> None:
    s = table({0: "五九", 1: "一", 2: "二"}, "七")
    s, ev = discard(s, 0, "九")
    assert not any(isinstance(e, Prompted) for e in ev[: ev.index(first(ev, NobodyClaimed))])
    nobody = first(ev, NobodyClaimed)
    assert nobody.seat == 0 and not nobody.flipped
    flip = first(ev, CardFlipped)
    assert flip.seat == 1  # 由下家摸牌
    assert kinds("九") == [s.seats[0].discards[0] // 4]


def test_a_flipped_card_never_enters_the_hand() -> None:
    # seat 1 flips 七, which nobody can use: it stays in front of seat 1, seat 2 flips next
    s = table({0: "五九", 1: "一", 2: "二"}, "七三")
    s, ev = discard(s, 0, "九")
    flips = [e for e in ev if isinstance(e, CardFlipped)]
    assert [f.seat for f in flips[:2]] == [1, 2]
    assert len(s.seats[1].hand) == 1
    assert kinds("七") == [s.seats[1].discards[0] // 4]


def test_the_discarder_is_never_asked_about_its_own_discard() -> None:
    """Given nobody but the discarder could use the card; then no claim prompt is sent (no
    prompt for no seat: the card resolves at once)."""
    s = table({0: "五五五九", 1: "一", 2: "二"})
    s, ev = discard(s, 0, "九")
    assert isinstance(ev[1], NobodyClaimed)


def test_the_discarder_claiming_its_own_discard_hears_the_rule() -> None:
    s = table({0: "五九", 1: "四六八", 2: "一"})
    s, _ = discard(s, 0, "五")
    with pytest.raises(RuleViolation) as e:
        play(s, Hu(0))
    assert e.value.reason == "OWN_CARD" and not isinstance(e.value, NotYourTurn)


# ---------------------------------------------------------------------------- priority


def test_hu_beats_chi() -> None:
    s = table({0: "五九", 1: "四六八", 2: "六七 八八"})
    s, _ = discard(s, 0, "五")
    s, _ = play(s, Hu(2))
    s, ev = play(s, chis(s, 1)[0])
    won = first(ev, Hued)
    assert won.seat == 2 and won.win_kind is WinKind.DIAN_PAO and won.from_seat == 0


def test_hu_beats_peng() -> None:
    s = table({0: "五九", 1: "五五 一二三", 2: "六七 八八"}, options=CLAIMED)
    s, _ = discard(s, 0, "五")
    s, _ = play(s, Peng(1))
    s, ev = play(s, Hu(2))
    assert first(ev, Hued).seat == 2


def test_hu_beats_zhao() -> None:
    s = table({0: "五九", 1: "五五五 二", 2: "六七 八八"}, options=GUO_HU)
    s, _ = discard(s, 0, "五")
    s, _ = play(s, Zhao(1))
    s, ev = play(s, Hu(2))
    assert first(ev, Hued).seat == 2


def test_hu_beats_long_on_ones_own_flip() -> None:
    # seat 1 flips the fourth 七 onto its 坎 (拢, claimed) while seat 2 wins on it
    s = table({0: "五九", 1: "七七七 一", 2: "八九 三三"}, "七", options=CLAIMED)
    s, ev = discard(s, 0, "九")
    assert first(ev, CardFlipped).seat == 1
    assert RULES.to_act(s) == (1, 2)
    s, _ = play(s, Long(1))
    s, ev = play(s, Hu(2))
    won = first(ev, Hued)
    assert won.seat == 2 and won.win_kind is WinKind.FAN_PAI


def test_long_beats_chi() -> None:
    # seat 1 flips 五 onto its 坎; its 下家 seat 2 could eat it
    s = table({0: "一九", 1: "五五五 二三", 2: "四六 八"}, "五", options=CLAIMED)
    s, _ = discard(s, 0, "九")
    s, _ = play(s, chis(s, 2)[0])
    s, ev = play(s, Long(1))
    laid = first(ev, LongLaidDown)
    assert laid.seat == 1 and laid.taken and laid.discard_required
    assert RULES.to_act(s) == (1,)


def test_zhao_beats_chi() -> None:
    s = table({0: "五九", 1: "四六八", 2: "五五五 一二"})
    s, _ = discard(s, 0, "五")
    s, _ = play(s, chis(s, 1)[0])
    s, ev = play(s, Zhao(2))
    z = first(ev, Zhaoed)
    assert z.seat == 2 and z.discard_required  # the first 招 is followed by a discard
    assert RULES.to_act(s) == (2,)


def test_peng_beats_chi_whoever_answers_first() -> None:
    s = table({0: "五九", 1: "四六八", 2: "五五一"}, options=CLAIMED)
    s, _ = discard(s, 0, "五")
    s, _ = play(s, chis(s, 1)[0])
    s, ev = play(s, Peng(2))
    assert first(ev, Penged).seat == 2


def test_between_two_hu_the_upper_seat_wins_on_a_discard() -> None:
    s = table({0: "五九", 1: "六七 一二三", 2: "六七 八八"})
    s, _ = discard(s, 0, "五")
    s, _ = play(s, Hu(2))
    s, ev = play(s, Hu(1))
    assert first(ev, Hued).seat == 1  # 上家优先


def test_between_two_hu_zimo_wins_on_a_flip() -> None:
    s = table({0: "一九", 1: "六七 一二三", 2: "六七 八八"}, "五")
    s, _ = discard(s, 0, "九")
    s, _ = play(s, Hu(2))
    s, ev = play(s, Hu(1))
    won = first(ev, Hued)
    assert won.seat == 1 and won.win_kind is WinKind.ZI_MO  # 自摸优先


def test_between_two_hu_the_seat_after_the_flipper_wins_next() -> None:
    # seat 1 flips 五 and cannot use it; seats 2 and 0 both win on it: seat 2 is nearer
    s = table({0: "一 六七 八八", 1: "二", 2: "六七 玖玖"}, "五")
    s, _ = discard(s, 0, "一")
    s, _ = play(s, Hu(0))
    s, ev = play(s, Hu(2))
    assert first(ev, Hued).seat == 2


def test_between_two_chi_the_flipper_eats_before_its_lower_seat() -> None:
    # 上家翻的，上家和我都可以吃，但是上家优先
    s = table({0: "一九", 1: "四六 八", 2: "三四 九"}, "五")
    s, _ = discard(s, 0, "九")
    assert RULES.to_act(s) == (1, 2)
    s, _ = play(s, chis(s, 2)[0])
    s, ev = play(s, chis(s, 1)[0])
    assert first(ev, Chied).seat == 1


def test_seat_is_chosen_first_then_its_own_full_claim_is_carried_out() -> None:
    # seat 1 eats with 三四 (not 四六): the chosen seat's exact claim is what happens
    s = table({0: "五九", 1: "三四 六 八", 2: "一"})
    s, _ = discard(s, 0, "五")
    options = {names(s, c.cards) for c in chis(s, 1)}
    assert options == {"三四", "四六"}
    choice = next(c for c in chis(s, 1) if names(s, c.cards) == "三四")
    s, ev = play(s, choice)
    eaten = first(ev, Chied)
    assert names(s, [c.id for c in eaten.cards]) == "三四"


@pytest.mark.parametrize(
    ("a", "b", "winner"),
    [
        (ClaimKind.HU, ClaimKind.LONG, 2),
        (ClaimKind.HU, ClaimKind.ZHAO, 2),
        (ClaimKind.HU, ClaimKind.PENG, 2),
        (ClaimKind.HU, ClaimKind.CHI, 2),
        (ClaimKind.LONG, ClaimKind.ZHAO, 2),
        (ClaimKind.LONG, ClaimKind.PENG, 2),
        (ClaimKind.LONG, ClaimKind.CHI, 2),
        (ClaimKind.ZHAO, ClaimKind.PENG, 2),
        (ClaimKind.ZHAO, ClaimKind.CHI, 2),
        (ClaimKind.PENG, ClaimKind.CHI, 2),
        (ClaimKind.HU, ClaimKind.HU, 1),
        (ClaimKind.CHI, ClaimKind.CHI, 1),
        (ClaimKind.PASS, ClaimKind.PASS, None),
    ],
)
def test_priority_table(a: ClaimKind, b: ClaimKind, winner: int | None) -> None:
    # seat 2 claims ``a``, seat 1 (earlier in precedence) claims ``b``.
    # Some pairs cannot meet on one card (拢/招 need three alike, 碰 two more of the same
    # four cards): the choice of seat is still defined by kind first, precedence second.
    claims = [PendingClaim(2, a), PendingClaim(1, b)]
    assert choose_seat(claims, (1, 2)) == winner


# ---------------------------------------------------------------------------- who may eat


def test_only_the_lower_seat_may_eat_a_discard() -> None:
    s = table({0: "五九", 1: "一", 2: "四六 八"})
    s, ev = discard(s, 0, "五")
    assert 2 not in RULES.to_act(s)  # seat 2 is not seat 0's 下家


def test_the_flipper_and_its_lower_seat_may_eat_a_flip() -> None:
    s = table({0: "四六 九 一", 1: "四六 八", 2: "四六 八"}, "五")
    s, ev = discard(s, 0, "九")
    assert RULES.to_act(s) == (1, 2)  # not seat 0: it is 下家 of nobody here


def test_a_seat_may_pong_its_own_flip() -> None:
    s = table({0: "一九", 1: "五五 八", 2: "二"}, "五", options=CLAIMED)
    s, _ = discard(s, 0, "九")
    assert Peng(1) in RULES.legal_commands(s, 1)
    # by default the 碰 is made for it (碰牌自动碰下去)
    auto = table({0: "一九", 1: "五五 八", 2: "二"}, "五")
    auto, ev = discard(auto, 0, "九")
    assert first(ev, Penged).seat == 1 and RULES.to_act(auto) == (1,)


def test_a_card_one_discarded_may_never_be_eaten() -> None:
    # 自己打过的牌不能再吃: seat 1 once played a 五
    s = table({0: "五九", 1: "四六 八", 2: "一"}, played={1: tuple(kinds("五"))})
    s, _ = discard(s, 0, "五")
    assert 1 not in RULES.to_act(s)


def test_discarding_records_the_card_as_played() -> None:
    s = table({0: "五九", 1: "一", 2: "二"})
    s, _ = discard(s, 0, "九")
    assert s.seats[0].played == tuple(kinds("九"))


def test_an_unclaimed_flip_counts_as_the_flippers_play_with_the_option() -> None:
    """Option ``own_flip_is_played`` (zp:19 必须打出 read as the flipper's play): the face is
    never eaten by the flipper; by default it is not (zp:47 自己打过的牌: its discards)."""
    s = table({0: "五九", 1: "一", 2: "二"}, "七", options=Options(own_flip_is_played=True))
    s, _ = discard(s, 0, "九")
    assert kinds("七")[0] in s.seats[1].played
    default = table({0: "五九", 1: "一", 2: "二"}, "七")
    default, _ = discard(default, 0, "九")
    assert kinds("七")[0] not in default.seats[1].played


def test_chi_out_of_turn_is_refused() -> None:
    s = table({0: "五九", 1: "四六八", 2: "五五 四六 九"}, options=CLAIMED)
    s, _ = discard(s, 0, "五")
    with pytest.raises(RuleViolation) as e:
        play(s, Chi(2, ids_of(s, 2, "四六")))
    assert e.value.reason == "CHI_NOT_FROM_UPPER" and e.value.rule == "吃牌"


def test_a_seat_not_asked_may_not_claim() -> None:
    """A seat left out of the window hears the rule, not NOT_YOUR_TURN (its own cards)."""
    s = table({0: "五九", 1: "四六八", 2: "一"})
    s, _ = discard(s, 0, "五")
    with pytest.raises(RuleViolation) as e:
        play(s, Peng(2))
    assert e.value.reason == "NO_PAIR" and not isinstance(e.value, NotYourTurn)
    with pytest.raises(RuleViolation) as e:
        play(s, PassClaim(2))
    assert e.value.reason == "NOTHING_TO_CLAIM"


# ---------------------------------------------------------------------------- 比牌


def test_bi_pai_the_seeds_example() -> None:
    # 手中“三四四五五”…摸到1张“三”…“三”可跟手中“四五”组成“三四五”，而手中还有“三四五”
    s = table({0: "三九", 1: "三四四五五 八", 2: "一"})
    s, _ = discard(s, 0, "三")
    (choice,) = chis(s, 1)
    assert names(s, choice.cards) == "四五"
    assert [names(s, g.cards) for g in choice.bi] == ["三四五"]
    s, ev = play(s, choice)
    eaten = first(ev, Chied)
    assert eaten.group is GroupKind.RUN and len(eaten.bi) == 1
    assert [m.kind for m in s.seats[1].melds][-2:] == [MeldKind.CHI, MeldKind.BI]
    assert names(s, s.seats[1].hand) == "八"


def test_bi_pai_is_compulsory() -> None:
    s = table({0: "三九", 1: "三四四五五 八", 2: "一"})
    s, _ = discard(s, 0, "三")
    with pytest.raises(RuleViolation) as e:
        play(s, Chi(1, ids_of(s, 1, "四五")))
    assert (e.value.reason, e.value.rule) == ("BI_REQUIRED", "比牌")


def test_bi_pai_must_hold_the_eaten_card() -> None:
    s = table({0: "三九", 1: "三四四五五 六七八 十", 2: "一"})
    s, _ = discard(s, 0, "三")
    bad = Chi(1, ids_of(s, 1, "四五"), (BiGroup(ids_of(s, 1, "六七八")),))
    with pytest.raises(RuleViolation) as e:
        play(s, bad)
    assert e.value.reason == "BI_WITHOUT_CARD"


def test_no_bi_pai_when_eating_da_da_xiao() -> None:
    # 当用大大小，小小大方式吃牌时不用比牌: 叁叁 + 三 leaves a 三 in the hand, no 比
    s = table({0: "三九", 1: "三 叁叁 八", 2: "一"})
    s, _ = discard(s, 0, "三")
    assert {names(s, c.cards) for c in chis(s, 1)} == {"叁叁", "三叁"}
    (choice,) = [c for c in chis(s, 1) if names(s, c.cards) == "叁叁"]
    assert choice.bi == ()
    s, ev = play(s, choice)
    assert first(ev, Chied).group is GroupKind.DA_DA_XIAO
    assert names(s, s.seats[1].hand) == "三八"


def test_bi_pai_is_refused_when_not_needed() -> None:
    s = table({0: "三九", 1: "三 叁叁 四五 八", 2: "一"})
    s, _ = discard(s, 0, "三")
    bad = Chi(1, ids_of(s, 1, "叁叁"), (BiGroup(ids_of(s, 1, "三四五")),))
    with pytest.raises(RuleViolation) as e:
        play(s, bad)
    assert e.value.reason == "BI_NOT_NEEDED"


def test_two_copies_are_cleared_by_one_xiao_xiao_da() -> None:
    s = table({0: "三九", 1: "三三 四五 叁 九", 2: "一"}, options=CLAIMED)  # no automatic 碰
    s, _ = discard(s, 0, "三")
    (choice,) = [c for c in chis(s, 1) if names(s, c.cards) == "四五"]
    assert [names(s, g.cards) for g in choice.bi] == ["三三叁"]


def test_no_chi_when_bi_pai_is_impossible() -> None:
    s = table({0: "三九", 1: "三 四五 九", 2: "一"})
    s, _ = discard(s, 0, "三")
    assert 1 not in RULES.to_act(s)


def test_a_kan_is_never_broken_to_eat() -> None:
    s = table({0: "五九", 1: "四四四 六七 八", 2: "一"})
    s, _ = discard(s, 0, "五")
    assert {names(s, c.cards) for c in chis(s, 1)} == {"六七"}
    with pytest.raises(RuleViolation) as e:
        play(s, Chi(1, ids_of(s, 1, "四六")))
    assert (e.value.reason, e.value.rule) == ("KAN_UNBREAKABLE", "一坎牌")


def test_a_kan_of_the_card_rules_out_eating_it() -> None:
    s = table({0: "五九", 1: "五五五 四六 八", 2: "一"})
    s, _ = discard(s, 0, "五")
    assert chis(s, 1) == [] and Zhao(1) in RULES.legal_commands(s, 1)


# ---------------------------------------------------------------------------- 过张


def test_passing_up_an_eat_is_remembered_as_guo_zhang() -> None:
    s = table({0: "五九", 1: "四六 八", 2: "一"})
    s, _ = discard(s, 0, "五")
    s, ev = play(s, PassClaim(1))
    assert first(ev, ClaimMade).guo_zhang
    assert s.seats[1].guo_zhang == tuple(kinds("五"))


def test_guo_zhang_lasts_even_after_the_hand_changes() -> None:
    # 如果一二吃三时未吃，手牌变为二四也不能再吃三
    s = table({0: "三九", 1: "二四 八", 2: "一"}, guo_zhang={1: tuple(kinds("三"))})
    s, _ = discard(s, 0, "三")
    assert 1 not in RULES.to_act(s)


def test_guo_zhang_still_allows_hu_on_the_card() -> None:
    s = table({0: "五九", 1: "四六 七八九", 2: "一"}, guo_zhang={1: tuple(kinds("五"))})
    s, _ = discard(s, 0, "五")
    assert RULES.legal_commands(s, 1) == [Hu(1), PassClaim(1)]  # a 胡 may always be passed


def test_guo_zhang_is_not_recorded_for_pong_or_a_lost_claim() -> None:
    s = table({0: "五九", 1: "四六 五五 八", 2: "五 三"}, options=CLAIMED)
    s, _ = discard(s, 0, "五")
    s, ev = play(s, Peng(1))
    assert not first(ev, ClaimMade).guo_zhang


def test_chi_refused_after_guo_zhang_names_the_rule() -> None:
    # a seat asked for another reason (碰) still may not eat a 过张 card
    s = table(
        {0: "五九", 1: "四六 五五 八", 2: "一"},
        options=CLAIMED,
        guo_zhang={1: tuple(kinds("五"))},
    )
    s, _ = discard(s, 0, "五")
    with pytest.raises(RuleViolation) as e:
        play(s, Chi(1, ids_of(s, 1, "四六")))
    assert (e.value.reason, e.value.rule) == ("GUO_ZHANG", "过张")


def test_own_discard_refusal_names_the_rule() -> None:
    s = table(
        {0: "五九", 1: "四六 五五 八", 2: "一"}, options=CLAIMED, played={1: tuple(kinds("五"))}
    )
    s, _ = discard(s, 0, "五")
    with pytest.raises(RuleViolation) as e:
        play(s, Chi(1, ids_of(s, 1, "四六")))
    assert e.value.reason == "OWN_DISCARD"


# ---------------------------------------------------------------------------- 碰 then


def test_after_peng_the_fourth_card_may_be_eaten_or_won_but_never_konged() -> None:
    # 碰后可以胡或者吃这张牌，算1归，不可再招
    s = table(
        {0: "五九", 1: "四六 八", 2: "一"},
        melds={1: [(MeldKind.PENG, "五五五")]},
    )
    s, _ = discard(s, 0, "五")
    legal = RULES.legal_commands(s, 1)
    assert any(isinstance(c, Chi) for c in legal)
    assert not any(isinstance(c, Zhao) for c in legal)
    with pytest.raises(RuleViolation) as e:
        play(s, Zhao(1))
    assert (e.value.reason, e.value.rule) == ("PENG_THEN_NO_ZHAO", "碰牌")


def test_after_peng_the_fourth_card_wins_and_counts_as_gui() -> None:
    s = table(
        {0: "五九", 1: "四六 七八九", 2: "一"},
        melds={1: [(MeldKind.PENG, "五五五")]},
    )
    s, _ = discard(s, 0, "五")
    s, ev = play(s, Hu(1))
    won = first(ev, Hued)
    assert won.seat == 1
    # 归: all four 五 are the winner's — the only fan here (one red card, 点炮, no 爆)
    assert won.fan == 1
