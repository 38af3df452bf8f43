"""花鸟风月 (huaniao): the pure rules engine. ``RULES`` is the game registered with the server."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from domain import violations as V
from domain.engine import Outcome, RuleViolation, Viewer
from domain.huaniao import penalties, rules, views
from domain.huaniao.cards import CARDS, Card, CardClass, CardKind
from domain.huaniao.commands import (
    AFTER_END_COMMAND_TYPES,
    COMMAND_TYPES,
    ChangeSeason,
    Discard,
    EndTurn,
    Guess,
    PassGuess,
    Perch,
    Play,
    Recite,
)
from domain.huaniao.events import EVENT_TYPES
from domain.huaniao.options import Combo, Mode, Options, check_options
from domain.huaniao.state import HuaniaoState
from domain.huaniao.terms import Season
from domain.huaniao.views import View


class HuaniaoRules:
    """花鸟风月 as a :class:`domain.engine.GameRules` and a :class:`domain.justice.PenaltyRules`
    (penalties touch the cards, so the REFEREE and PLAYERS enforcement modes work)."""

    name = "huaniao"
    command_types = COMMAND_TYPES
    after_end_command_types = AFTER_END_COMMAND_TYPES  # ritual verses, after the song
    event_types = EVENT_TYPES
    state_type = HuaniaoState
    view_type = View
    options_type = Options
    # MatchRules: the hand's scores are the points left in hand (剩余牌面分值小者胜利,
    # p2:78–85), so the lower total leads a match; every hand is dealt with the table's
    # options and picks its own first player (鸟牌最多者先手, p1:53).
    lower_score_wins = True

    def first_hand(self, options: Options, first_seat: int) -> Options:
        return options

    def next_hand(self, options: Options, state: HuaniaoState) -> Options:
        return options

    def check_options(self, options: Any) -> Options:
        return check_options(options)

    def seat_counts(self, options: Any) -> tuple[int, ...]:
        return rules.seat_counts(options)

    def new_deck(self, options: Any) -> tuple[int, ...]:
        return rules.new_deck(options)

    def initial_state(
        self, options: Any, seat_count: int, deal: tuple[int, ...], seed: int
    ) -> HuaniaoState:
        return rules.initial_state(options, seat_count, deal, seed)

    def deal(self, state: HuaniaoState) -> list[Any]:
        return rules.deal(state)

    def decide(self, state: HuaniaoState, command: Any) -> list[Any]:
        return rules.decide(state, command)

    def evolve(self, state: HuaniaoState, event: Any) -> HuaniaoState:
        return rules.evolve(state, event)

    def legal_commands(self, state: HuaniaoState, seat: int) -> Sequence[Any]:
        return rules.legal_commands(state, seat)

    def to_act(self, state: HuaniaoState) -> tuple[int, ...]:
        return rules.to_act(state)

    def view(self, state: HuaniaoState, viewer: Viewer) -> View:
        return views.view(state, viewer)

    def redact(self, event: Any, viewer: Viewer) -> Any:
        return views.redact(event, viewer)

    def describe(self, event: Any) -> str:
        return views.describe(event)

    def label(self, state: HuaniaoState, command: Any) -> str:
        return views.label(state, command)

    def outcome(self, state: HuaniaoState) -> Outcome | None:
        if not state.end_reason:
            return None
        return Outcome(state.winners, state.scores, state.end_reason)

    # --- PenaltyRules (domain/huaniao/penalties.py) ---

    def penalty_facts(self, state: HuaniaoState, seat: int, penalty: V.Penalty) -> list[Any]:
        return penalties.penalty_facts(state, seat, penalty)

    def timeout_facts(self, state: HuaniaoState, seat: int) -> list[Any]:
        return penalties.timeout_facts(state, seat)

    def violation_of(
        self, state: HuaniaoState, command: Any, error: RuleViolation
    ) -> tuple[V.ViolationKind, tuple[int, ...]] | None:
        return penalties.violation_of(state, command, error)

    def penalised_turn_facts(self, state: HuaniaoState, seat: int) -> list[Any]:
        return penalties.penalised_turn_facts(state, seat)

    def deck_of(self, state: HuaniaoState) -> tuple[int, ...]:
        return state.deck

    def with_deck(self, state: HuaniaoState, deck: tuple[int, ...]) -> HuaniaoState:
        return dataclasses.replace(state, deck=deck)

    def play_as_attempt(self, state: HuaniaoState, command: Any) -> list[Any]:
        return penalties.play_as_attempt(state, command)

    def discard_owed(self, state: HuaniaoState, seat: int) -> int:
        return penalties.discard_owed(state, seat)


RULES = HuaniaoRules()

__all__ = [
    "CARDS",
    "RULES",
    "Card",
    "CardClass",
    "CardKind",
    "ChangeSeason",
    "Combo",
    "Discard",
    "EndTurn",
    "Guess",
    "HuaniaoRules",
    "HuaniaoState",
    "Mode",
    "Options",
    "PassGuess",
    "Perch",
    "Play",
    "Recite",
    "Season",
    "View",
]
