"""Hidden information (ARCHITECTURE: Hidden information): views and redacted events never
carry a card another seat holds or a card still in the deck -- not even its id."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from domain.codec import from_data, to_data
from domain.engine import ARBITER, SPECTATOR, Role, Viewer
from domain.huaniao import RULES, Card, CardClass, CardKind, Mode, Options, Perch
from domain.huaniao.events import (
    CardsExchanged,
    Dealt,
    Drew,
    GuessMade,
    HandsRecovered,
    ShowdownDealt,
    Transfer,
)
from domain.huaniao.state import HuaniaoState
from domain.huaniao.terms import Cause, Need
from domain.huaniao.views import View
from tests.support.selfplay import play_random_game

from .selfplay_support import TIMID
from .tables import play, run, table


def card_ids(value: Any) -> set[int]:
    """Every Card id anywhere inside a dataclass / tuple tree."""
    found: set[int] = set()

    def walk(v: Any) -> None:
        if isinstance(v, Card):
            found.add(v.id)
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            for f in dataclasses.fields(v):
                walk(getattr(v, f.name))
        elif isinstance(v, tuple | list):
            for x in v:
                walk(x)

    walk(value)
    return found


def hidden_from(s: HuaniaoState, viewer: Viewer) -> set[int]:
    """Cards the viewer may not see in state ``s``: the deck, the 大对决 pool and the other
    seats' hands."""
    hidden = set(s.deck) | set(s.pool)
    for seat, h in enumerate(s.hands):
        if viewer.role != Role.SEAT or seat != viewer.seat:
            hidden.update(h.cards)
    return hidden


OPTIONS = [
    Options(mode=Mode.SIMPLE),
    Options(mode=Mode.BASIC),
    Options(mode=Mode.REGULAR),
    Options(mode=Mode.FULL),
    Options(mode=Mode.PRO, lofty_tune=True, spring_snow=True),
]


@pytest.mark.parametrize("options", OPTIONS, ids=[o.mode.name for o in OPTIONS])
def test_no_view_or_redacted_event_leaks_a_hidden_card(options: Options) -> None:
    for seed in range(40):
        rules = TIMID if seed % 2 else RULES
        game = play_random_game(rules, options, 4, seed, roundtrip=False)
        for i, event in enumerate(game.events):
            before, after = game.states[i], game.states[i + 1]
            viewers = [Viewer.of_seat(s) for s in range(4)] + [SPECTATOR]
            for viewer in viewers:
                secret = hidden_from(before, viewer) & hidden_from(after, viewer)
                if isinstance(event, HandsRecovered):
                    secret = hidden_from(before, viewer)
                shown = card_ids(RULES.redact(event, viewer))
                assert not shown & secret, (
                    f"seed={seed}: {event} leaks {shown & secret} to {viewer}"
                )
                if i % 5 == 0 and RULES.outcome(after) is None:
                    seen = card_ids(RULES.view(after, viewer))
                    leak = seen & hidden_from(after, viewer)
                    assert not leak, f"seed={seed}: view leaks {leak} to {viewer}"


def test_seat_view_shows_own_hand_and_counts_only() -> None:
    state = table(["鸟鸟十", "鸟万万花", "风"], "月月")
    v = RULES.view(state, Viewer.of_seat(1))
    assert isinstance(v, View)
    assert [sv.hand_count for sv in v.seats] == [3, 4, 1]
    assert v.seats[0].cards == () and v.seats[2].cards == ()
    assert len(v.seats[1].cards) == 4
    assert v.deck == () and v.deck_size == len(state.deck)
    assert v.viewer_seat == 1 and v.to_act == (0,)


def test_spectator_sees_no_hand_and_arbiter_sees_everything() -> None:
    state = table(["鸟鸟十", "鸟万万花"], "月月")
    spectator = RULES.view(state, SPECTATOR)
    assert all(sv.cards == () for sv in spectator.seats) and spectator.deck == ()
    arbiter = RULES.view(state, ARBITER)
    assert [len(sv.cards) for sv in arbiter.seats] == [3, 4]
    assert [c.id for c in arbiter.deck] == list(state.deck)


def test_after_the_end_every_hand_is_open() -> None:
    """ARCHITECTURE: an arbiter sees everything, and so does everyone once the game is over."""
    game = play_random_game(RULES, Options(mode=Mode.BASIC), 4, 3, roundtrip=False)
    final = game.states[-1]
    v = RULES.view(final, Viewer.of_seat(0))
    assert [len(sv.cards) for sv in v.seats] == [len(h.cards) for h in final.hands]


def test_redaction_drops_hidden_cards_whole() -> None:
    dealt = Dealt(2, (Card(1, CardKind.BIRD),), 1)
    assert RULES.redact(dealt, Viewer.of_seat(2)) == dealt
    assert RULES.redact(dealt, Viewer.of_seat(0)) == dataclasses.replace(dealt, cards=())
    assert RULES.redact(dealt, SPECTATOR).cards == ()
    assert RULES.redact(dealt, ARBITER) == dealt
    drew = Drew(1, dealt.cards, 1, Cause.PERCH)
    assert RULES.redact(drew, Viewer.of_seat(0)).cards == ()
    ex = CardsExchanged((Transfer(0, 1, dealt.cards[0]), Transfer(1, 2, dealt.cards[0])))
    seen = RULES.redact(ex, Viewer.of_seat(0))
    assert seen.transfers[0].card is not None and seen.transfers[1].card is None
    guess = GuessMade(3, CardClass.BIRD)
    assert RULES.redact(guess, Viewer.of_seat(1)).card_class is None
    assert RULES.redact(guess, Viewer.of_seat(3)) == guess


def test_describe_reads_cards_by_chinese_name() -> None:
    state = table(["鸟万鸟鸟", "鸟鸟鸟"], verse_due=False)
    state = dataclasses.replace(state, need=Need.ANY, reference=1)
    _, events = run(state, play(state, 0, "鸟万"))
    assert RULES.describe(events[0]) == "seat 0 诵 鸟+万 (5)"
    hidden = RULES.redact(Drew(1, (Card(5, events[0].cards[0].kind),), 1, Cause.PERCH), SPECTATOR)
    assert RULES.describe(hidden) == "seat 1 摸 1 张 (栖)"


@pytest.mark.parametrize("options", OPTIONS, ids=[o.mode.name for o in OPTIONS])
def test_state_and_views_survive_the_codec(options: Options) -> None:
    """Snapshots store the state with domain/codec.py; views go over the wire the same way."""
    rng = random.Random(1)
    game = play_random_game(TIMID, options, 4, 5, roundtrip=False)
    for s in rng.sample(game.states, 20) + [game.states[-1]]:
        assert from_data(HuaniaoState, to_data(s)) == s
        for viewer in (Viewer.of_seat(0), SPECTATOR, ARBITER):
            v = RULES.view(s, viewer)
            assert from_data(View, to_data(v)) == v


def test_showdown_cards_are_for_the_arbiter_until_the_game_is_over() -> None:
    """The 大对决 facts precede GameEnded in the same batch; a seat sees them in full only
    once the game is over (effective_viewer), so redact hides their cards from non-arbiters."""
    state = table(["鸟鸟", "鸟", "万"], "", more_deck=False, verse_due=False)
    state = dataclasses.replace(state, need=Need.ANY, reference=40)
    _, events = run(state, Perch(0))
    recovered = next(e for e in events if isinstance(e, HandsRecovered))
    dealt = next(e for e in events if isinstance(e, ShowdownDealt))
    assert RULES.redact(recovered, Viewer.of_seat(0)).cards == ()
    assert all(h.cards == () for h in RULES.redact(dealt, SPECTATOR).hands)
    assert RULES.redact(dealt, ARBITER) == dealt
    assert "?" in RULES.describe(RULES.redact(dealt, Viewer.of_seat(1)))


@pytest.mark.parametrize("options", OPTIONS, ids=[o.mode.name for o in OPTIONS])
def test_every_fact_has_a_readable_line(options: Options) -> None:
    for seed in range(10):
        game = play_random_game(TIMID, options, 4, seed, roundtrip=False)
        for event in game.events:
            for viewer in (ARBITER, Viewer.of_seat(0), SPECTATOR):
                line = RULES.describe(RULES.redact(event, viewer))
                assert line and "(" not in line[:1] and "Card(" not in line, line
