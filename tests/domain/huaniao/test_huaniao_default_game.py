"""The default game of `tabletop play` gives the person a few turns (issue 29).

Played in process: the domain engine drives `play`'s default table (clients/python/play.py
``game_options(DEFAULT_MODE)``, read as the server reads it), the other seats are played by
`play`'s default bots (``DEFAULT_BOT``) from the view and legal moves the API gives them, and
the person at seat 0 by a stand-in policy. docs/rules/huaniao.md, "Short games", has the
figures and why the easier modes cannot give this.
"""

from __future__ import annotations

import random
from typing import Any

from bench.bots import seat_view
from clients.python import play as playing
from clients.python.bots import POLICIES, Policy
from domain.huaniao.commands import Perch, Play
from domain.huaniao.options import Mode
from domain.registry import rules_for
from server.wire.render_moves import move_proto, read_options

SEEDS = 200
SEED = 29  # the deals are seeds SEED .. SEED + SEEDS - 1
ENOUGH = 3  # turns: "at least three turns in most deals"


def default_options() -> Any:
    kind, options = read_options(playing.game_options("huaniao", playing.DEFAULT_MODE))
    assert kind == "huaniao"
    return rules_for(kind).check_options(options)


def turns_of_seat_0(options: Any, person: Policy, bots: Policy, seed: int) -> int:
    """One 4-seat game; how many turns to play (a play or 栖) seat 0 was given."""
    rules = rules_for("huaniao")
    rng = random.Random(seed)
    deck = list(rules.new_deck(options))
    rng.shuffle(deck)
    state = rules.initial_state(options, 4, tuple(deck), rng.getrandbits(63))
    for event in rules.deal(state):
        state = rules.evolve(state, event)
    turns = 0
    for _ in range(5000):
        if rules.outcome(state) is not None:
            return turns
        seat = rules.to_act(state)[0]
        legal = rules.legal_commands(state, seat)
        turns += seat == 0 and any(isinstance(c, Play | Perch) for c in legal)
        policy = person if seat == 0 else bots
        pick = 0 if len(legal) == 1 else choose(policy, state, seat, legal, rng)
        assert pick is not None, f"seed={seed}: no game move chosen"
        for event in rules.decide(state, legal[pick]):
            state = rules.evolve(state, event)
    raise AssertionError(f"seed={seed}: no end in 5000 moves")


def choose(
    policy: Policy, state: Any, seat: int, legal: list[Any], rng: random.Random
) -> int | None:
    """What ``policy`` picks from the seat's view and legal moves, as the API gives them."""
    view = seat_view("huaniao", rules_for("huaniao"), state, seat)
    return policy(view, [move_proto("huaniao", c) for c in legal], rng)


def share_with_enough_turns(options: Any, person: Policy, bots: Policy) -> tuple[float, list[int]]:
    turns = [turns_of_seat_0(options, person, bots, SEED + i) for i in range(SEEDS)]
    return sum(t >= ENOUGH for t in turns) / SEEDS, turns


def test_the_default_play_game_gives_the_person_three_turns_in_most_deals() -> None:
    """Over 200 seeded deals of the default table, seat 0 -- played like the benchmarks' bot,
    which sheds the most it can and so ends games soonest -- against the default bots gets
    at least three turns in more than half of them."""
    options = default_options()
    assert options.mode is Mode.PRO and options.spring_snow, "the documented default"
    person, bots = POLICIES["heuristic"], POLICIES[playing.DEFAULT_BOT]
    share, turns = share_with_enough_turns(options, person, bots)
    assert share > 0.5, (
        f"seeds {SEED}..{SEED + SEEDS - 1}: seat 0 got {ENOUGH}+ turns in {share:.0%} of "
        f"deals; turns per deal: {turns}"
    )


def test_the_measure_can_fail_greedy_bots_in_basic_end_games_early() -> None:
    """The same measure on the old default (基本, the benchmarks' heuristic bots) finds short
    games: a hand whose number cards fit its birds goes out in one 诵 at its first turn."""
    basic = rules_for("huaniao").check_options(
        read_options(playing.game_options("huaniao", "basic"))[1]
    )
    heuristic = POLICIES["heuristic"]
    share, _ = share_with_enough_turns(basic, heuristic, heuristic)
    assert share < 0.5, f"seeds {SEED}..{SEED + SEEDS - 1}: {share:.0%}"
