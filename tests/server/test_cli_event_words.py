"""What the terminal prints for a record's lines (``vocab.gloss_line``) is in the games' words:
no enum name (``FAN_PAI``, ``PROMPT_KIND_…``) and no raw ``… prompt for`` line, over every
event of random games of both kinds (seeds printed)."""

from __future__ import annotations

import random
import re

import pytest

from clients.python.vocab import gloss_line
from domain import huaniao, zipai
from domain.huaniao import views as huaniao_views
from domain.zipai import views as zipai_views
from tests.support.selfplay import play_random_game

ENUM_NAME = re.compile(r"\b[A-Z]{2,}(?:_[A-Z]+)+\b|\b(?:ZI|DIAN|FAN)_[A-Z]+\b")
GAMES = 12


@pytest.mark.parametrize(
    ("kind", "rules", "options", "describe"),
    [
        ("zipai", zipai.RULES, zipai.Options(), zipai_views.describe),
        ("huaniao", huaniao.RULES, huaniao.Options(), huaniao_views.describe),
    ],
)
def test_every_line_a_person_reads_is_in_the_games_words(kind, rules, options, describe) -> None:  # type: ignore[no-untyped-def]
    seed = random.randrange(1 << 30)
    print(f"seed={seed}")
    lines = 0
    for i in range(GAMES):
        game = play_random_game(rules, options, 3, seed + i, roundtrip=False)
        for event in game.events:
            shown = gloss_line(describe(event), kind)
            lines += 1
            assert not ENUM_NAME.search(shown), f"seed={seed + i}: an enum name in {shown!r}"
            assert " prompt for " not in shown, f"seed={seed + i}: a raw prompt line {shown!r}"
    assert lines > GAMES * 10


def test_the_three_ways_a_zipai_hand_is_won_read_as_words() -> None:
    for enum, word in (("ZI_MO", "自摸"), ("DIAN_PAO", "点炮"), ("FAN_PAI", "翻牌胡")):
        line = f"seat 2 won (胡) on 肆, {enum}: 肆肆 柒捌玖; 18 胡, 2 fan, scores [-6, -6, 12]"
        shown = gloss_line(line, "zipai")
        assert enum not in shown and f", {word} (" in shown, shown
