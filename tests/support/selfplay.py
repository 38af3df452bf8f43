"""Random self-play over any GameRules, with the invariants every game must keep.

Used by the domain tests of every game and by the engine benchmark. Pure: no store, no grpc.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from domain.codec import decode_tagged, encode_tagged
from domain.engine import GameRules


@dataclass
class PlayedGame:
    seed: int
    events: list[Any]
    states: list[Any]  # states[i] is the state after events[:i]
    commands: list[Any]


def play_random_game(
    rules: GameRules,
    options: Any,
    seat_count: int,
    seed: int,
    max_commands: int = 5000,
    check: Callable[[Any, Any], None] | None = None,
    roundtrip: bool = True,
) -> PlayedGame:
    """Play one game with uniformly random legal commands.

    After every event: ``check(state, event)`` (game-specific invariants) and, when
    ``roundtrip``, the stored form of the event (JSON data) is decoded and folded into a
    second state that must equal the live one -- i.e. the state rebuilt from the stored
    events equals the live state at every version.
    """
    rng = random.Random(seed)
    deck = list(rules.new_deck(options))
    rng.shuffle(deck)
    state = rules.initial_state(options, seat_count, tuple(deck), rng.getrandbits(63))
    rebuilt = state
    types_by_name = {t.__name__: t for t in rules.event_types}
    events: list[Any] = []
    states = [state]
    commands: list[Any] = []

    def apply(new_events: list[Any]) -> None:
        nonlocal state, rebuilt
        for event in new_events:
            state = rules.evolve(state, event)
            if roundtrip:
                stored = decode_tagged(types_by_name, encode_tagged(event))
                assert stored == event, f"seed={seed}: event does not survive storage: {event}"
                rebuilt = rules.evolve(rebuilt, stored)
                assert rebuilt == state, f"seed={seed}: rebuilt state differs after {event}"
            if check:
                check(state, event)
            events.append(event)
            states.append(state)

    apply(rules.deal(state))
    while rules.outcome(state) is None:
        assert len(commands) < max_commands, f"seed={seed}: game did not end in {max_commands}"
        seats = rules.to_act(state)
        assert seats, f"seed={seed}: nobody to act but no outcome"
        seat = rng.choice(seats)
        legal = rules.legal_commands(state, seat)
        assert legal, f"seed={seed}: seat {seat} must act but has no legal command"
        command = rng.choice(legal)
        commands.append(command)
        apply(rules.decide(state, command))
    return PlayedGame(seed, events, states, commands)
