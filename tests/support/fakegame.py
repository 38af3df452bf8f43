"""A tiny game for store and server tests that must not depend on a real game's rules.

Two or three seats are dealt ``hand_size`` cards each from ids 0..3*hand_size-1 and take turns discarding one; the
lowest total of discards wins. It follows the engine conventions exactly.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from domain.engine import ARBITER, NotYourTurn, Outcome, RuleViolation, Viewer


@dataclass(frozen=True)
class Options:
    hand_size: int = 3


@dataclass(frozen=True)
class Dealt:
    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class Discarded:
    seat: int
    card: int


@dataclass(frozen=True)
class Discard:
    seat: int
    card: int


@dataclass(frozen=True)
class State:
    hand_size: int
    seat_count: int
    deck: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]
    discards: tuple[tuple[int, ...], ...]
    turn: int


@dataclass(frozen=True)
class View:
    hand: tuple[int, ...]
    counts: tuple[int, ...]


class FakeRules:
    name = "fake"
    command_types = (Discard,)
    event_types = (Dealt, Discarded)
    state_type = State
    view_type = View
    options_type = Options

    def check_options(self, options: Any) -> Any:
        return options

    def seat_counts(self, options: Any) -> tuple[int, ...]:
        return (2, 3)

    def new_deck(self, options: Any) -> tuple[int, ...]:
        return tuple(range(options.hand_size * 3))

    def initial_state(
        self, options: Any, seat_count: int, deal: tuple[int, ...], seed: int
    ) -> State:
        return State(options.hand_size, seat_count, deal, ((),) * seat_count, ((),) * seat_count, 0)

    def deal(self, state: State) -> list[Any]:
        n = state.hand_size
        return [Dealt(s, state.deck[s * n : s * n + n]) for s in range(state.seat_count)]

    def decide(self, state: State, command: Any) -> list[Any]:
        if command.seat != state.turn:
            raise NotYourTurn(command.seat)
        if command.card not in state.hands[command.seat]:
            raise RuleViolation("CARD_NOT_HELD", "discard", "you do not hold that card")
        return [Discarded(command.seat, command.card)]

    def evolve(self, state: State, event: Any) -> State:
        hands = list(state.hands)
        if isinstance(event, Dealt):
            hands[event.seat] = event.cards
            return dataclasses.replace(state, hands=tuple(hands))
        hands[event.seat] = tuple(c for c in hands[event.seat] if c != event.card)
        discards = list(state.discards)
        discards[event.seat] = discards[event.seat] + (event.card,)
        return dataclasses.replace(
            state,
            hands=tuple(hands),
            discards=tuple(discards),
            turn=(state.turn + 1) % state.seat_count,
        )

    def legal_commands(self, state: State, seat: int) -> list[Any]:
        if self.outcome(state) is not None or seat != state.turn:
            return []
        return [Discard(seat, c) for c in state.hands[seat]]

    def to_act(self, state: State) -> tuple[int, ...]:
        return () if self.outcome(state) is not None else (state.turn,)

    def view(self, state: State, viewer: Viewer) -> View:
        hand = state.hands[viewer.seat] if viewer.seat is not None else ()
        return View(hand, tuple(len(h) for h in state.hands))

    def redact(self, event: Any, viewer: Viewer) -> Any:
        if isinstance(event, Dealt) and viewer != ARBITER and viewer.seat != event.seat:
            return Dealt(event.seat, ())
        return event

    def describe(self, event: Any) -> str:
        return repr(event)

    def label(self, state: State, command: Any) -> str:
        return f"discard {command.card}"

    def outcome(self, state: State) -> Outcome | None:
        if any(state.hands) or not any(state.discards):
            return None
        totals = tuple(sum(d) for d in state.discards)
        best = min(totals)
        return Outcome(tuple(s for s, t in enumerate(totals) if t == best), totals, "LOWEST")


RULES = FakeRules()
