"""Random self-play with tests.support.selfplay over every mode and optional rule.

Every game must end; cards are conserved; the state rebuilt from the stored events equals the
live one (``roundtrip``). Each failing assertion names the seed.
"""

from __future__ import annotations

import os
import random

import pytest

from domain.huaniao import RULES, Combo, Mode, Options
from domain.huaniao.options import LeaderTie, VerseRule
from tests.support.selfplay import play_random_game

from .selfplay_support import CHECKED, TIMID, invariants

CHUNK = 250

# (name, options, random games, of which with roundtrip, timid games)
CONFIGS = [
    ("simple", Options(mode=Mode.SIMPLE), 2000, 300, 100),
    ("basic", Options(mode=Mode.BASIC), 2000, 300, 100),
    ("regular", Options(mode=Mode.REGULAR), 500, 100, 40),
    ("regular-daylight", Options(mode=Mode.REGULAR, daylight=True), 500, 100, 40),
    (
        "regular-silent-night",
        Options(mode=Mode.REGULAR, silent_night=(Combo.TIANSHANG_TIANXIA, Combo.QUE_WU_MAN_SHAN)),
        500,
        100,
        40,
    ),
    ("full", Options(mode=Mode.FULL), 500, 100, 40),
    ("pro-continuo", Options(mode=Mode.PRO, continuo=True), 500, 100, 40),
    ("pro-twin-swallows", Options(mode=Mode.PRO, twin_swallows=True), 500, 100, 40),
    ("pro-spring-snow", Options(mode=Mode.PRO, spring_snow=True), 500, 100, 40),
    ("pro-lofty-tune", Options(mode=Mode.PRO, lofty_tune=True), 500, 100, 40),
    ("pro-blossoms", Options(mode=Mode.PRO, blossoms=True), 500, 100, 40),
    (
        "pro-all",
        Options(
            mode=Mode.PRO,
            silent_night=(Combo.FENG_HUA_XUE_YUE,),
            continuo=True,
            twin_swallows=True,
            spring_snow=True,
            lofty_tune=True,
            blossoms=True,
        ),
        500,
        100,
        40,
    ),
    # the other readings (issue 14), a smaller sample each
    ("regular-limit-always", Options(mode=Mode.REGULAR, hand_limit_always=True), 100, 20, 10),
    ("simple-90-cards", Options(mode=Mode.SIMPLE, simple_without_function_cards=True), 100, 20, 10),
    (
        "basic-tied-showdown-random-lead",
        Options(mode=Mode.BASIC, showdown_tied_only=True, leader_tie=LeaderTie.RANDOM),
        100,
        20,
        20,
    ),
    (
        "pro-spring-snow-once",
        Options(mode=Mode.PRO, spring_snow=True, spring_snow_once_after=True),
        100,
        20,
        10,
    ),
    ("regular-cool-all-four", Options(mode=Mode.REGULAR, cool_breeze_all_four=True), 100, 20, 10),
    ("basic-verse-optional", Options(mode=Mode.BASIC, verse=VerseRule.OPTIONAL), 100, 20, 10),
    ("full-verse-off", Options(mode=Mode.FULL, verse=VerseRule.OFF), 100, 20, 10),
]

# Every mode at every seat count with the defaults: SELFPLAY_GAMES games each (a small sample
# in make test; `make selfplay` runs SELFPLAY_GAMES=2000, about 8 minutes on 2 cores). The
# first tenth (at least two) also rebuild the state from the stored events after every event.
MODES = {
    "simple": Options(mode=Mode.SIMPLE),
    "basic": Options(mode=Mode.BASIC),
    "regular": Options(mode=Mode.REGULAR),
    "full": Options(mode=Mode.FULL),
    "pro": Options(
        mode=Mode.PRO,
        continuo=True,
        twin_swallows=True,
        spring_snow=True,
        lofty_tune=True,
        blossoms=True,
    ),
}
GAMES = int(os.environ.get("SELFPLAY_GAMES", "20"))


def _chunks() -> list[tuple[str, Options, int, int, int]]:
    out = []
    for name, options, games, with_roundtrip, _ in CONFIGS:
        for start in range(0, games, CHUNK):
            out.append((name, options, start, min(start + CHUNK, games), with_roundtrip))
    return out


def _seats(seed: int) -> int:
    """Mostly four seats (建议游戏人数：4人), some two- and three-seat tables."""
    return (4, 4, 4, 3, 2)[seed % 5]


def _play(rules, options: Options, seed: int, roundtrip: bool) -> None:
    deck = RULES.new_deck(options)
    game = play_random_game(
        rules,
        options,
        _seats(seed),
        seed,
        roundtrip=roundtrip,
        check=invariants(seed, deck),
    )
    final = game.states[-1]
    outcome = RULES.outcome(final)
    assert outcome is not None, f"seed={seed}: no outcome"
    assert all(0 <= w < final.seat_count for w in outcome.winners), f"seed={seed}: {outcome}"


@pytest.mark.parametrize(
    "name, options, start, stop, with_roundtrip",
    _chunks(),
    ids=[f"{c[0]}-{c[2]}-{c[3]}" for c in _chunks()],
)
def test_random_games_end_and_keep_invariants(
    name: str, options: Options, start: int, stop: int, with_roundtrip: int
) -> None:
    """The first ``with_roundtrip`` games of each configuration also rebuild the state from
    the stored events after every event (roundtrip); the others check the invariants only."""
    base = random.Random(name).randrange(1 << 30)
    for i in range(start, stop):
        _play(CHECKED, options, base + i, roundtrip=i < with_roundtrip)


@pytest.mark.parametrize(
    "name, options, games", [(c[0], c[1], c[4]) for c in CONFIGS], ids=[c[0] for c in CONFIGS]
)
def test_long_timid_games_end_and_keep_invariants(name: str, options: Options, games: int) -> None:
    base = random.Random("timid-" + name).randrange(1 << 30)
    for seed in range(base, base + games):
        _play(TIMID, options, seed, roundtrip=seed % 2 == 0)


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("mode", sorted(MODES))
def test_every_mode_and_seat_count_ends_and_keeps_invariants(mode: str, seats: int) -> None:
    """Cards conserved, the game ends with an outcome, and (on a subset) the state rebuilt from
    the stored events equals the live one at every version."""
    options = MODES[mode]
    deck = RULES.new_deck(options)
    base = random.Random(f"{mode}-{seats}").randrange(1 << 30)
    for i in range(GAMES):
        seed = base + i
        rules = TIMID if i % 4 == 3 else CHECKED
        game = play_random_game(
            rules,
            options,
            seats,
            seed,
            roundtrip=i < max(2, GAMES // 10),
            check=invariants(seed, deck),
        )
        outcome = RULES.outcome(game.states[-1])
        assert outcome is not None and outcome.winners, f"seed={seed}: {outcome}"


def test_timid_games_reach_the_end_of_the_deck_and_the_showdown() -> None:
    """Coverage check: the long games do exercise 一曲终了 by exhaustion, the tie-breaks and
    the 大对决, and 白昼规则3 restarts."""
    reasons: set[str] = set()
    restarts = 0
    for seed in range(150):
        game = play_random_game(TIMID, Options(mode=Mode.BASIC), 4, seed, roundtrip=False)
        reasons.add(RULES.outcome(game.states[-1]).reason)
        restarts += sum(type(e).__name__ == "PlayRestarted" for e in game.events)
    assert {"LOWEST_SCORE", "TIE_BREAK", "SHOWDOWN", "EMPTIED_HAND"} <= reasons
    assert restarts > 0
