"""川南字牌 (乐乐川南字牌, Sichuan 大二): the rules engine. ``RULES`` is the registered game."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from domain.engine import InvalidOptions, Outcome, Viewer
from domain.zipai import rules as _rules
from domain.zipai import views as _views
from domain.zipai.cards import full_deck
from domain.zipai.commands import COMMAND_TYPES, DeclineBao, PassClaim
from domain.zipai.events import EVENT_TYPES, ClaimMade
from domain.zipai.options import SEAT_COUNTS, FirstDealer, Options, at_start, check_options
from domain.zipai.state import Phase, State
from domain.zipai.views import View

_OVER = Phase.OVER  # (read after every move: a member read through its class is slow)


class ZipaiRules:
    """川南字牌 as a :class:`domain.engine.GameRules` and a :class:`domain.engine.MatchRules`
    (a match of hands passes the deal by the table's dealer rule)."""

    name = "zipai"
    command_types: Sequence[type] = COMMAND_TYPES
    event_types: Sequence[type] = EVENT_TYPES
    state_type: type = State
    view_type: type = View
    options_type: type = Options
    lower_score_wins = False  # a 胡 scores (the 泸州 profile): the higher total leads a match

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

    def legal_commands(self, state: State, seat: int) -> Sequence[Any]:
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
        if state.phase is not _OVER:
            return None
        if state.winner is None:
            return Outcome((), state.scores, "HUANG_ZHUANG")
        return Outcome((state.winner,), state.scores, "HU")

    def sitting_out(self, state: State) -> tuple[int, ...]:
        """With four players the dealer's opposite sits the hand out (engine.SittingOut)."""
        return tuple(s.seat for s in state.seats if not s.active)

    def independent_of(self, event: Any, seat: int) -> bool:
        """Claims inside one window are independent (claims are simultaneous): another seat's
        answer leaves ``seat``'s own answer to the same card as it was."""
        return isinstance(event, ClaimMade) and event.seat != seat

    def next_dealer(self, options: Options, state: State) -> int:
        return _rules.next_dealer(options, state)

    def first_hand(self, options: Options, first_seat: int) -> Options:
        """首进入房间的玩家坐庄 (zp:9): the first seat taken deals the first hand, unless the
        table chose the dealer (``first_dealer`` SEAT)."""
        return at_start(check_options(options), first_seat)

    def next_hand(self, options: Options, state: State) -> Options:
        """根据勾选项胡牌者当庄、轮庄决定下局庄家 (zp:9–11): the next hand's dealer by the
        table's dealer rule, from the finished hand."""
        opts = check_options(options)
        dealer = _rules.next_dealer(opts, state)
        return dataclasses.replace(opts, dealer=dealer, first_dealer=FirstDealer.SEAT)


RULES = ZipaiRules()
next_dealer = _rules.next_dealer

__all__ = ["RULES", "ZipaiRules", "Options", "State", "View", "next_dealer"]
