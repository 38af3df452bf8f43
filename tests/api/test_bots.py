"""The heuristic bots: stronger than random by a clear margin, from their own view only.

Measured in process (bench/bots.py: the domain engine drives the game; each seat's policy
gets exactly the GameView and legal moves the API would give that seat). The full figures
(1,000 games per line) are in docs/bots.md; here a smaller seeded sample must clear
thresholds far enough below those figures that the sample cannot miss them by chance
(each is more than 3 standard errors below the measured rate).
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from bench.bots import default_options, match, play, seat_view
from clients.python.bots import heuristic_choice, random_choice
from domain.registry import rules_for
from server.wire.render_moves import move_proto

SEED = 20_000


@pytest.mark.parametrize(
    ("kind", "seats", "games", "least"),
    [("huaniao", 2, 200, 0.70), ("zipai", 2, 100, 0.70)],
)
def test_two_seats_the_heuristic_wins_most_games(
    kind: str, seats: int, games: int, least: float
) -> None:
    m = match(kind, seats, games, SEED)
    assert m.share >= least, f"seed={SEED}: {kind} heuristic won {m.wins}/{games}"


@pytest.mark.parametrize(("kind", "games"), [("huaniao", 200), ("zipai", 60)])
def test_four_seats_one_heuristic_wins_well_over_its_fair_share(kind: str, games: int) -> None:
    m = match(kind, 4, games, SEED)
    assert m.share >= 1.75 * m.fair, (
        f"seed={SEED}: {kind} heuristic won {m.wins}/{games}, fair share {m.fair:.1%}"
    )


def _shuffle_hidden(kind: str, state: object, seat: int, rng: random.Random) -> object:
    """The same game with everything ``seat`` cannot see dealt differently: the other
    seats' hands and the stock exchange cards, each keeping its size."""
    if kind == "huaniao":
        hidden = [c for i, h in enumerate(state.hands) if i != seat for c in h.cards]  # type: ignore[attr-defined]
        hidden += list(state.deck)  # type: ignore[attr-defined]
        rng.shuffle(hidden)
        hands = []
        for i, h in enumerate(state.hands):  # type: ignore[attr-defined]
            if i == seat:
                hands.append(h)
            else:
                hands.append(dataclasses.replace(h, cards=tuple(sorted(hidden[: len(h.cards)]))))
                hidden = hidden[len(h.cards) :]
        return dataclasses.replace(state, hands=tuple(hands), deck=tuple(hidden))  # type: ignore[type-var]
    seats = state.seats  # type: ignore[attr-defined]
    hidden = [c for s in seats if s.seat != seat for c in s.hand] + list(state.stock)  # type: ignore[attr-defined]
    rng.shuffle(hidden)
    new = []
    for s in seats:
        if s.seat == seat:
            new.append(s)
        else:
            new.append(dataclasses.replace(s, hand=tuple(sorted(hidden[: len(s.hand)]))))
            hidden = hidden[len(s.hand) :]
    return dataclasses.replace(state, seats=tuple(new), stock=tuple(hidden))  # type: ignore[type-var]


@pytest.mark.parametrize("kind", ["huaniao", "zipai"])
def test_the_bot_sees_only_its_own_view(kind: str) -> None:
    """The bot's input is the seat's redacted view: it holds no other seat's card and no
    stock, and re-dealing everything the seat cannot see changes neither its input nor its
    choice."""
    rules = rules_for(kind)
    options = default_options(kind)
    checked = 0
    for seed in range(SEED, SEED + 30):
        rng = random.Random(seed)
        deck = list(rules.new_deck(options))
        rng.shuffle(deck)
        state = rules.initial_state(options, 3, tuple(deck), seed)
        for event in rules.deal(state):
            state = rules.evolve(state, event)
        for _ in range(rng.randrange(1, 12)):  # a few random moves into the game
            if rules.outcome(state) is not None:
                break
            seat = rules.to_act(state)[0]
            for event in rules.decide(state, rng.choice(rules.legal_commands(state, seat))):
                state = rules.evolve(state, event)
        if rules.outcome(state) is not None:
            continue
        seat = rules.to_act(state)[0]
        view = seat_view(kind, rules, state, seat)
        g = getattr(view, kind)
        others = [s for s in g.seats if s.seat != seat]
        if kind == "huaniao":
            assert not any(s.cards for s in others) and not g.deck, f"seed={seed}"
        else:
            assert not any(s.hand for s in others) and not g.stock, f"seed={seed}"
        moves = [move_proto(kind, c) for c in rules.legal_commands(state, seat)]
        twin = _shuffle_hidden(kind, state, seat, random.Random(seed))
        assert twin != state, f"seed={seed}: the re-deal changed nothing"
        assert seat_view(kind, rules, twin, seat) == view, f"seed={seed}: the view leaks"
        assert [move_proto(kind, c) for c in rules.legal_commands(twin, seat)] == moves
        pick = heuristic_choice(view, moves, random.Random(1))
        assert pick == heuristic_choice(seat_view(kind, rules, twin, seat), moves, random.Random(1))
        checked += 1
    assert checked >= 20


def test_the_random_bot_is_still_there() -> None:
    result = play("huaniao", [random_choice] * 4, SEED)
    assert result.winners and result.moves > 0
