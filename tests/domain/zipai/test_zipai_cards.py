"""The cards (用牌张数), players (游戏人数) and options (勾选项)."""

from __future__ import annotations

import random

import pytest

from domain.engine import InvalidOptions
from domain.zipai import RULES, Options
from domain.zipai.cards import card, is_red, name
from domain.zipai.events import HandStarted
from tests.domain.zipai.helpers import first


def test_eighty_cards_four_of_each_face() -> None:
    deck = RULES.new_deck(Options())
    assert sorted(deck) == list(range(80))
    faces = [(card(i).rank, card(i).big) for i in deck]
    assert all(faces.count(f) == 4 for f in set(faces)) and len(set(faces)) == 20


def test_card_identity_and_face() -> None:
    assert card(0) == card(0) and (card(0).rank, card(0).big) == (1, False)
    assert (card(79).rank, card(79).big) == (10, True)
    assert [name(i * 4) for i in range(20)] == list("一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾")


def test_red_cards_are_two_seven_ten_of_either_size() -> None:
    red = sorted({name(i) for i in range(80) if is_red(i)})
    assert red == sorted("二七十贰柒拾")


def test_two_three_or_four_players() -> None:
    assert RULES.seat_counts(Options()) == (2, 3, 4)
    deck = tuple(range(80))
    with pytest.raises(InvalidOptions):
        RULES.initial_state(Options(), 5, deck, 1)


def test_the_dealer_is_a_table_option() -> None:
    # 首进入房间的玩家坐庄: seat 0 by default; a match carries the dealer on
    deck = list(range(80))
    random.Random(1).shuffle(deck)
    for dealer in (0, 2):
        state = RULES.initial_state(Options(dealer=dealer), 3, tuple(deck), 1)
        assert first(RULES.deal(state), HandStarted).dealer == dealer
    with pytest.raises(InvalidOptions) as e:
        RULES.initial_state(Options(dealer=3), 3, tuple(deck), 1)
    assert e.value.field == "dealer"


def test_options_are_checked() -> None:
    assert RULES.check_options(Options()) == Options()
    # one 过胡 checkbox under two names (zp:53-54): either turns both on
    assert RULES.check_options(Options(guo_zhang_sheng_fan=True)).guo_hu
    with pytest.raises(InvalidOptions) as e:
        RULES.check_options(Options(own_flip_is_played=1))  # type: ignore[arg-type]
    assert e.value.field == "own_flip_is_played"
    with pytest.raises(InvalidOptions):
        RULES.check_options("fast")
    with pytest.raises(InvalidOptions):
        RULES.check_options(Options(dealer=9))
