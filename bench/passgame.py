"""A benchmark game whose state does not grow with its length: seats pass one card around.

The store benchmarks (P3 rebuild, P5 write throughput, P2 in-process checks) need games of
any length whose per-event cost is constant, so what they measure is the store, the
snapshots and ``evolve``, not a state that grows with every move (the test fake game keeps
every discard). Here the state is four integers whatever the length; the game ends after
``length`` passes. It follows the engine conventions (domain/engine.py) exactly.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from domain.engine import NotYourTurn, Outcome, Viewer


@dataclass(frozen=True)
class Options:
    length: int = 100


@dataclass(frozen=True)
class Pass:
    seat: int


@dataclass(frozen=True)
class Passed:
    seat: int
    to: int
    card: int


@dataclass(frozen=True)
class State:
    length: int
    seat_count: int
    holder: int
    passes: int
    card: int


@dataclass(frozen=True)
class View:
    holder: int
    passes: int


class PassRules:
    name: str = "bench-pass"
    command_types: Sequence[type] = (Pass,)
    event_types: Sequence[type] = (Passed,)
    state_type: type = State
    view_type: type = View
    options_type: type = Options

    def check_options(self, options: Any) -> Any:
        return options

    def seat_counts(self, options: Any) -> tuple[int, ...]:
        return (2, 3, 4)

    def new_deck(self, options: Any) -> tuple[int, ...]:
        return (0, 1, 2, 3)

    def initial_state(
        self, options: Any, seat_count: int, deal: tuple[int, ...], seed: int
    ) -> State:
        return State(options.length, seat_count, 0, 0, deal[0])

    def deal(self, state: State) -> list[Any]:
        return []

    def decide(self, state: State, command: Any) -> list[Any]:
        if command.seat != state.holder:
            raise NotYourTurn(command.seat)
        return [Passed(command.seat, (command.seat + 1) % state.seat_count, state.card)]

    def evolve(self, state: State, event: Any) -> State:
        return dataclasses.replace(state, holder=event.to, passes=state.passes + 1)

    def legal_commands(self, state: State, seat: int) -> list[Any]:
        if self.outcome(state) is not None or seat != state.holder:
            return []
        return [Pass(seat)]

    def to_act(self, state: State) -> tuple[int, ...]:
        return () if self.outcome(state) is not None else (state.holder,)

    def view(self, state: State, viewer: Viewer) -> View:
        return View(state.holder, state.passes)

    def redact(self, event: Any, viewer: Viewer) -> Any:
        return event

    def describe(self, event: Any) -> str:
        return f"seat {event.seat} passes to seat {event.to}"

    def label(self, state: State, command: Any) -> str:
        return "pass"

    def outcome(self, state: State) -> Outcome | None:
        if state.passes < state.length:
            return None
        return Outcome((state.holder,), tuple(0 for _ in range(state.seat_count)), "PASSES")


RULES = PassRules()
