"""Given-helpers for 花鸟风月 rule tests: tables with chosen hands, cards picked by kind.

Cards are written as strings of kind names, e.g. ``"鸟鸟十万"``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from domain.engine import DomainError
from domain.huaniao import RULES
from domain.huaniao.cards import CARDS, KIND_OF, CardKind, cards_of
from domain.huaniao.commands import Discard, Play
from domain.huaniao.events import Dealt, LeaderChosen
from domain.huaniao.options import Mode, Options
from domain.huaniao.rules import evolve, initial_state, new_deck
from domain.huaniao.state import HuaniaoState

KIND_BY_CHAR = {
    "鸟": CardKind.BIRD,
    "十": CardKind.TEN,
    "百": CardKind.HUNDRED,
    "千": CardKind.THOUSAND,
    "万": CardKind.TEN_THOUSAND,
    "花": CardKind.FLOWER,
    "风": CardKind.WIND,
    "月": CardKind.MOON,
}


class _Ids:
    def __init__(self, deck: tuple[int, ...]) -> None:
        self.free = {k: [i for i in deck if KIND_OF[i] == k] for k in CardKind}

    def take(self, spec: str) -> tuple[int, ...]:
        return tuple(self.free[KIND_BY_CHAR[ch]].pop(0) for ch in spec if not ch.isspace())

    def rest(self) -> tuple[int, ...]:
        return tuple(sorted(i for ids in self.free.values() for i in ids))


def table(
    hands: list[str],
    deck: str = "",
    *,
    mode: Mode = Mode.BASIC,
    options: Options | None = None,
    leader: int = 0,
    more_deck: bool = True,
    **changes: Any,
) -> HuaniaoState:
    """A dealt table: seat i holds ``hands[i]``, the deck starts with ``deck`` (then the rest of
    the cards unless ``more_deck`` is False, in which case they are out of play), ``leader`` to
    open. ``changes`` replace state fields (e.g. ``need=Need.YIN, reference=3``)."""
    options = RULES.check_options(options or Options(mode=mode))
    full = new_deck(options)
    ids = _Ids(full)
    hand_ids = [ids.take(h) for h in hands]
    top = ids.take(deck)
    rest = ids.rest()
    deal = tuple(i for h in hand_ids for i in h) + top + rest
    state = initial_state(options, len(hands), deal, seed=7)
    for seat, h in enumerate(hand_ids):
        state = evolve(state, Dealt(seat, cards_of(h), len(h)))
    state = evolve(state, LeaderChosen(leader))
    if not more_deck:
        state = replace(state, deck=top, played=state.played + rest)
    if changes:
        state = replace(state, **changes)
    return state


def pick(state: HuaniaoState, seat: int, spec: str) -> tuple[int, ...]:
    """Card ids of the given kinds from ``seat``'s hand."""
    free = list(state.hands[seat].cards)
    out = []
    for ch in spec:
        if ch.isspace():
            continue
        kind = KIND_BY_CHAR[ch]
        cid = next(i for i in free if KIND_OF[i] == kind)
        free.remove(cid)
        out.append(cid)
    return tuple(out)


def play(state: HuaniaoState, seat: int, spec: str, **kw: Any) -> Play:
    return Play(seat, pick(state, seat, spec), **kw)


def discard(state: HuaniaoState, seat: int, spec: str) -> Discard:
    return Discard(seat, pick(state, seat, spec))


def run(state: HuaniaoState, *commands: Any) -> tuple[HuaniaoState, list[Any]]:
    """Decide and evolve each command; return the state and all events."""
    events: list[Any] = []
    for command in commands:
        new = RULES.decide(state, command)
        for e in new:
            state = RULES.evolve(state, e)
        events.extend(new)
    return state, events


def refusal(state: HuaniaoState, command: Any) -> DomainError:
    """The error ``decide`` raises (and check that it raised one)."""
    try:
        RULES.decide(state, command)
    except DomainError as err:
        return err
    raise AssertionError(f"{command} was accepted")


def hand_kinds(state: HuaniaoState, seat: int) -> str:
    names = {v: k for k, v in KIND_BY_CHAR.items()}
    return "".join(names[CARDS[i].kind] for i in state.hands[seat].cards)


def types(events: list[Any]) -> list[str]:
    return [type(e).__name__ for e in events]
