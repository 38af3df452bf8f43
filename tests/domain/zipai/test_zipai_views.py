"""Views, redaction and descriptions; a leak hunt over random games."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from domain.engine import ARBITER, SPECTATOR, Viewer
from domain.zipai import RULES, Options
from domain.zipai.cards import Card
from domain.zipai.commands import Peng
from domain.zipai.events import (
    CardDrawn,
    ClaimMade,
    Dealt,
    DrawReason,
    LongLaidDown,
    Prompted,
    PromptKind,
)
from domain.zipai.melds import MeldKind
from domain.zipai.options import ScoringProfile, Variant
from domain.zipai.state import Phase, State
from tests.domain.zipai.helpers import discard, kinds, play, table
from tests.support.selfplay import play_random_game


def card_ids(value: Any) -> set[int]:
    """Every card id inside a (redacted) event or view."""
    out: set[int] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, Card):
            out.add(v.id)
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            stack.extend(getattr(v, f.name) for f in dataclasses.fields(v))
        elif isinstance(v, tuple | list):
            stack.extend(v)
    return out


def hidden_from(state: State, viewer: Viewer) -> set[int]:
    """Card ids ``viewer`` must not see in ``state``."""
    out = set(state.stock)
    for s in state.seats:
        if viewer.seat == s.seat:
            continue
        out.update(s.hand)
        for m in s.melds:
            if m.kind is MeldKind.LONG:
                out.update(m.cards[:-1])  # the last card of a 拢 is face up
    return out


# ---------------------------------------------------------------------------- views


def test_a_seat_sees_its_own_hand_and_the_others_counts() -> None:
    s = table({0: "五九", 1: "四六八", 2: "五五一"})
    v = RULES.view(s, Viewer.of_seat(1))
    assert [c.rank for c in v.seats[1].hand] == [4, 6, 8]
    assert v.seats[0].hand == () and v.seats[0].hand_size == 2
    assert v.stock == ()


def test_a_spectator_sees_no_hand_and_an_arbiter_everything() -> None:
    s = table({0: "五九", 1: "四六八", 2: "五五一"})
    assert all(seat.hand == () for seat in RULES.view(s, SPECTATOR).seats)
    a = RULES.view(s, ARBITER)
    assert len(a.seats[2].hand) == 3 and len(a.stock) == len(s.stock)


def test_a_long_shows_one_face_to_others_and_all_to_its_owner() -> None:
    s = table({0: "五九", 1: "一", 2: "二"}, melds={2: [(MeldKind.LONG, "八八八八")]})
    other = RULES.view(s, Viewer.of_seat(0)).seats[2].melds[0]
    own = RULES.view(s, Viewer.of_seat(2)).seats[2].melds[0]
    assert len(other.cards) == 1 and other.hidden_size == 3
    assert len(own.cards) == 4 and own.hidden_size == 0


def test_guo_zhang_memory_is_private() -> None:
    s = table({0: "五九", 1: "一", 2: "二"}, guo_zhang={1: tuple(kinds("三"))})
    assert RULES.view(s, Viewer.of_seat(1)).seats[1].guo_zhang == tuple(kinds("三"))
    assert RULES.view(s, Viewer.of_seat(2)).seats[1].guo_zhang == ()


def test_who_is_asked_to_claim_is_shown_only_to_that_seat() -> None:
    s = table({0: "五九", 1: "四六八", 2: "五五一"}, options=Options(optional_peng_long=True))
    s, ev = discard(s, 0, "五")
    prompt = ev[-1]
    assert isinstance(prompt, Prompted) and prompt.seats == (1, 2)
    assert RULES.redact(prompt, Viewer.of_seat(1)).seats == (1,)
    assert RULES.redact(prompt, Viewer.of_seat(0)).seats == ()
    assert RULES.redact(prompt, SPECTATOR).seats == ()
    assert RULES.view(s, Viewer.of_seat(0)).awaiting == ()
    assert RULES.view(s, Viewer.of_seat(2)).awaiting == (2,)
    assert RULES.view(s, ARBITER).awaiting == (1, 2)


def test_redaction_of_hidden_cards() -> None:
    d = Dealt(1, (Card(0, 1, False),), 20)
    assert RULES.redact(d, Viewer.of_seat(0)).cards == ()
    assert RULES.redact(d, Viewer.of_seat(1)) == d
    assert RULES.redact(d, ARBITER) == d
    c = CardDrawn(1, Card(0, 1, False), DrawReason.REPLACEMENT)
    assert RULES.redact(c, SPECTATOR).card is None
    lg = LongLaidDown(1, Card(3, 1, False), (Card(0, 1, False),), 3, False, False)
    assert RULES.redact(lg, Viewer.of_seat(2)).hidden == ()
    discard_prompt = Prompted(PromptKind.DISCARD, (0,))
    assert RULES.redact(discard_prompt, SPECTATOR) == discard_prompt


def test_describe_names_the_cards() -> None:
    s = table({0: "五九", 1: "四六八", 2: "五五一"}, options=Options(optional_peng_long=True))
    s, ev = discard(s, 0, "五")
    assert RULES.describe(ev[0]) == "seat 0 discarded 五"
    s, ev = play(s, Peng(2))
    assert RULES.describe(ev[0]) == "seat 2 claims 碰"
    assert RULES.describe(RULES.redact(ev[0], Viewer.of_seat(1))) == "seat 2 answered"
    assert isinstance(ev[0], ClaimMade)


def test_describe_every_event_of_a_game() -> None:
    game = play_random_game(RULES, Options(scoring=ScoringProfile.LUZHOU), 3, 11, roundtrip=False)
    for e in game.events:
        line = RULES.describe(e)
        assert line and not line.startswith(type(e).__name__ + "(")
        assert RULES.describe(RULES.redact(e, Viewer.of_seat(0)))


# ---------------------------------------------------------------------------- the leak hunt


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_no_hidden_card_reaches_another_seat_or_a_spectator(seats: int) -> None:
    opts_cycle = [
        Options(),
        Options(variant=Variant.HEJIANG, guo_hu=True),
        Options(guo_hu=True, guo_zhang_sheng_fan=True, scoring=ScoringProfile.LUZHOU),
        Options(optional_peng_long=True, own_flip_is_played=True),
    ]
    for seed in range(40):
        opts = opts_cycle[seed % len(opts_cycle)]
        game = play_random_game(RULES, opts, seats, 1000 + seed, roundtrip=False)
        viewers = [Viewer.of_seat(s) for s in range(seats)] + [SPECTATOR]
        for i, event in enumerate(game.events):
            after = game.states[i + 1]
            if after.phase is Phase.OVER:
                continue  # every card is open once the hand is over
            for v in viewers:
                secret = hidden_from(after, v)
                leaked = card_ids(RULES.redact(event, v)) & secret
                assert not leaked, f"seed={1000 + seed} event {i} {event} leaks {leaked} to {v}"
                if i % 7 == 0 or isinstance(event, ClaimMade):
                    seen = card_ids(RULES.view(after, v)) & secret
                    assert not seen, f"seed={1000 + seed} view after {event} leaks {seen} to {v}"


def test_the_hunt_would_catch_a_leak() -> None:
    # the detector itself: an unredacted deal shows the other seat's cards
    rng = random.Random(3)
    deck = list(range(80))
    rng.shuffle(deck)
    state = RULES.initial_state(Options(), 2, tuple(deck), 1)
    events = RULES.deal(state)
    s = state
    for e in events:
        s = RULES.evolve(s, e)
    dealt1 = next(e for e in events if isinstance(e, Dealt) and e.seat == 1)
    assert card_ids(dealt1) & hidden_from(s, Viewer.of_seat(0))
