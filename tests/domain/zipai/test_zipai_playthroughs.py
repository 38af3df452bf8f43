"""Frozen playthroughs: a deal, the commands, and the facts they caused, as readable text.

Each file under ``playthroughs/`` holds the shuffled deck and the game's seed, then every
command (stored JSON) followed by the facts it caused (``describe``, unredacted). The test
replays the commands and compares the text, so any rule change shows up as a diff. Regenerate::

    UPDATE_PLAYTHROUGHS=1 .venv/bin/pytest tests/domain/zipai/test_zipai_playthroughs.py
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

from domain.codec import decode_tagged, encode_tagged
from domain.zipai import RULES, Options
from domain.zipai.events import Hued
from domain.zipai.options import DealerRule, ScoringProfile, Variant
from tests.support.selfplay import play_random_game

HERE = Path(__file__).parent / "playthroughs"

PLAYTHROUGHS: dict[str, tuple[Options, int]] = {
    "two_seats_luzhou": (Options(scoring=ScoringProfile.LUZHOU), 2),
    "three_seats_hejiang_guo_hu": (
        Options(variant=Variant.HEJIANG, guo_hu=True, dealer_rule=DealerRule.ROTATE, dealer=1),
        3,
    ),
    "four_seats_sheng_fan": (
        Options(guo_hu=True, guo_zhang_sheng_fan=True, scoring=ScoringProfile.LUZHOU),
        4,
    ),
}


def _render(
    options: Options, seats: int, deal: tuple[int, ...], seed: int, commands: list[Any]
) -> str:
    lines = [
        f"# 川南字牌 playthrough: {json.dumps(encode_tagged(options)['data'], ensure_ascii=False)}",
        "# regenerate: UPDATE_PLAYTHROUGHS=1 .venv/bin/pytest tests/domain/zipai/test_zipai_playthroughs.py",
        f"seats: {seats}",
        f"seed: {seed}",
        "deal: " + " ".join(str(c) for c in deal),
    ]
    state = RULES.initial_state(options, seats, deal, seed)
    for event in RULES.deal(state):
        state = RULES.evolve(state, event)
        lines.append("  " + RULES.describe(event))
    for command in commands:
        lines.append("> " + json.dumps(encode_tagged(command), ensure_ascii=False))
        for event in RULES.decide(state, command):
            state = RULES.evolve(state, event)
            lines.append("  " + RULES.describe(event))
    lines.append(f"outcome: {RULES.outcome(state)}")
    return "\n".join(lines) + "\n"


def _parse(text: str) -> tuple[tuple[int, ...], int, list[Any]]:
    types = {t.__name__: t for t in RULES.command_types}
    deal: tuple[int, ...] = ()
    seed = 0
    commands = []
    for line in text.splitlines():
        if line.startswith("deal: "):
            deal = tuple(int(x) for x in line[6:].split())
        elif line.startswith("seed: "):
            seed = int(line[6:])
        elif line.startswith("> "):
            commands.append(decode_tagged(types, json.loads(line[2:])))
    return deal, seed, commands


def _generate(options: Options, seats: int) -> str:
    """The first seed whose game ends in 胡 after a 吃 with 比牌 or a 招 (a varied game)."""
    for seed in range(500):
        game = play_random_game(RULES, options, seats, seed, roundtrip=False)
        kinds = {type(e).__name__ for e in game.events}
        if (
            isinstance(game.events[-1], Hued)
            and ({"Zhaoed", "Penged"} & kinds)
            and "Chied" in kinds
        ):
            rng = random.Random(seed)  # the shuffle play_random_game made
            deck = list(RULES.new_deck(options))
            rng.shuffle(deck)
            return _render(options, seats, tuple(deck), rng.getrandbits(63), game.commands)
    raise AssertionError("no varied game found")


@pytest.mark.parametrize("name", sorted(PLAYTHROUGHS))
def test_playthrough_replays_to_the_same_text(name: str) -> None:
    options, seats = PLAYTHROUGHS[name]
    path = HERE / f"{name}.txt"
    if os.environ.get("UPDATE_PLAYTHROUGHS") == "1" or not path.exists():
        HERE.mkdir(exist_ok=True)
        path.write_text(_generate(options, seats), encoding="utf-8")
    text = path.read_text(encoding="utf-8")
    deal, seed, commands = _parse(text)
    assert _render(options, seats, deal, seed, commands) == text
