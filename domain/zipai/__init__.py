"""川南字牌 (乐乐川南字牌, Sichuan 大二): the rules engine. ``RULES`` is the registered game."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.engine import InvalidOptions, Outcome, Viewer
from domain.zipai import rules as _rules
from domain.zipai import views as _views
from domain.zipai.cards import full_deck
from domain.zipai.commands import COMMAND_TYPES, DeclineBao, PassClaim
from domain.zipai.events import EVENT_TYPES
from domain.zipai.options import SEAT_COUNTS, Options, check_options
from domain.zipai.state import Phase, State
from domain.zipai.views import View


class ZipaiRules:
    """川南字牌 as a :class:`domain.engine.GameRules`."""

    name = "zipai"
    command_types: Sequence[type] = COMMAND_TYPES
    event_types: Sequence[type] = EVENT_TYPES
    state_type: type = State
    view_type: type = View
    options_type: type = Options

    def check_options(self, options: Any) -> Options:
        return check_options(options)

    def seat_counts(self, options: Any) -> tuple[int, ...]:
        return SEAT_COUNTS

    def new_deck(self, options: Any) -> tuple[int, ...]:
        return full_deck()

    def initial_state(
        self, options: Any, seat_count: int, deal: tuple[int, ...], seed: int
    ) -> State:
        opts = check_options(options)
        if seat_count not in SEAT_COUNTS:
            raise InvalidOptions("seat_count", "川南字牌 is played by 2, 3 or 4")
        if opts.dealer >= seat_count:
            raise InvalidOptions("dealer", f"no seat {opts.dealer} at a table of {seat_count}")
        return _rules.initial_state(opts, seat_count, tuple(deal), seed)

    def deal(self, state: State) -> list[Any]:
        return _rules.deal(state)

    def decide(self, state: State, command: Any) -> list[Any]:
        return _rules.decide(state, command)

    def evolve(self, state: State, event: Any) -> State:
        return _rules.evolve(state, event)

    def legal_commands(self, state: State, seat: int) -> list[Any]:
        return _rules.legal_commands(state, seat)

    def to_act(self, state: State) -> tuple[int, ...]:
        return _rules.to_act(state)

    def default_command(self, state: State, seat: int) -> Any:
        """What a seat that ran out of time does: pass a claim or a 爆 offer (过); when it
        must discard, its first legal discard."""
        legal = _rules.legal_commands(state, seat)
        for kind in (PassClaim, DeclineBao):
            for command in legal:
                if isinstance(command, kind):
                    return command
        return legal[0]

    def view(self, state: State, viewer: Viewer) -> View:
        return _views.view(state, viewer)

    def redact(self, event: Any, viewer: Viewer) -> Any:
        return _views.redact(event, viewer)

    def describe(self, event: Any) -> str:
        return _views.describe(event)

    def label(self, state: State, command: Any) -> str:
        return _views.label(state, command)

    def outcome(self, state: State) -> Outcome | None:
        if state.phase is not Phase.OVER:
            return None
        if state.winner is None:
            return Outcome((), state.scores, "HUANG_ZHUANG")
        return Outcome((state.winner,), state.scores, "HU")

    def next_dealer(self, options: Options, state: State) -> int:
        return _rules.next_dealer(options, state)


RULES = ZipaiRules()
next_dealer = _rules.next_dealer

__all__ = ["RULES", "ZipaiRules", "Options", "State", "View", "next_dealer"]
