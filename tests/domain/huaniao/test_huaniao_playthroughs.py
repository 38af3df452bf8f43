"""Frozen playthroughs: a seed, the commands, and the facts they caused, as readable text.

Each file under ``playthroughs/`` holds the shuffled deal and the game's own seed, then every
command (as stored JSON) followed by the facts it caused (``describe``, unredacted). The test
replays the commands through ``decide``/``evolve`` and compares the text, so any rule change
shows up as a diff to review. Regenerate with::

    UPDATE_PLAYTHROUGHS=1 .venv/bin/pytest tests/domain/huaniao/test_huaniao_playthroughs.py
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

from domain.codec import decode_tagged, encode_tagged
from domain.huaniao import RULES, Combo, Mode, Options
from tests.support.selfplay import play_random_game

from .selfplay_support import TIMID

HERE = Path(__file__).parent / "playthroughs"

PLAYTHROUGHS = {
    "simple": Options(mode=Mode.SIMPLE),
    "basic": Options(mode=Mode.BASIC),
    "regular": Options(mode=Mode.REGULAR, daylight=True, silent_night=(Combo.QUE_WU_MAN_SHAN,)),
    "full": Options(mode=Mode.FULL),
    "pro": Options(mode=Mode.PRO, lofty_tune=True, blossoms=True, twin_swallows=True),
}


def _render(options: Options, deal: tuple[int, ...], seed: int, commands: list[Any]) -> str:
    lines = [
        f"# 花鸟风月 playthrough: {json.dumps(encode_tagged(options)['data'], ensure_ascii=False)}",
        "# regenerate: UPDATE_PLAYTHROUGHS=1 .venv/bin/pytest "
        "tests/domain/huaniao/test_huaniao_playthroughs.py",
        "seats: 4",
        f"seed: {seed}",
        "deal: " + " ".join(str(c) for c in deal),
    ]
    state = RULES.initial_state(options, 4, deal, seed)
    for event in RULES.deal(state):
        state = RULES.evolve(state, event)
        lines.append("  " + RULES.describe(event))
    for command in commands:
        lines.append("> " + _command_json(command))
        for event in RULES.decide(state, command):
            state = RULES.evolve(state, event)
            lines.append("  " + RULES.describe(event))
    outcome = RULES.outcome(state)
    lines.append(f"outcome: {outcome}")
    return "\n".join(lines) + "\n"


def _command_json(command: Any) -> str:
    """The stored form of a command, leaving out fields at their default (None)."""
    tagged = encode_tagged(command)
    tagged["data"] = {k: v for k, v in tagged["data"].items() if v is not None}
    return json.dumps(tagged, ensure_ascii=False)


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


def _generate(name: str, options: Options) -> str:
    """Pick, among a few seeds, a game of moderate length with the most kinds of facts."""
    best: tuple[int, int] | None = None
    for seed in range(40):
        rules = TIMID if seed % 2 else RULES
        game = play_random_game(rules, options, 4, seed, roundtrip=False)
        if not 30 <= len(game.commands) <= 140:
            continue
        variety = len({type(e) for e in game.events})
        if best is None or variety > best[0]:
            best = (variety, seed)
    assert best is not None, name
    seed = best[1]
    rules = TIMID if seed % 2 else RULES
    game = play_random_game(rules, options, 4, seed, roundtrip=False)
    rng = random.Random(seed)  # the same shuffle play_random_game made
    deck = list(RULES.new_deck(options))
    rng.shuffle(deck)
    return _render(options, tuple(deck), rng.getrandbits(63), game.commands)


@pytest.mark.parametrize("name", sorted(PLAYTHROUGHS))
def test_playthrough_replays_to_the_same_text(name: str) -> None:
    options = PLAYTHROUGHS[name]
    path = HERE / f"{name}.txt"
    if os.environ.get("UPDATE_PLAYTHROUGHS") == "1" or not path.exists():
        HERE.mkdir(exist_ok=True)
        path.write_text(_generate(name, options), encoding="utf-8")
    text = path.read_text(encoding="utf-8")
    deal, seed, commands = _parse(text)
    assert _render(options, deal, seed, commands) == text


def test_prepared_deal_gives_the_same_events_twice() -> None:
    """A prepared deal (an explicit deck) and the same commands give identical facts."""
    options = Options(mode=Mode.BASIC)
    deck = tuple(reversed(RULES.new_deck(options)))
    runs = []
    for _ in range(2):
        state = RULES.initial_state(options, 4, deck, 12345)
        events = RULES.deal(state)
        for e in events:
            state = RULES.evolve(state, e)
        rng = random.Random(4)
        while RULES.outcome(state) is None:
            seat = rng.choice(RULES.to_act(state))
            command = rng.choice(RULES.legal_commands(state, seat))
            new = RULES.decide(state, command)
            for e in new:
                state = RULES.evolve(state, e)
            events.extend(new)
        runs.append(events)
    assert runs[0] == runs[1]
    assert [c.id for c in runs[0][0].cards] == list(deck[:8])  # seat 0 gets the top 8
