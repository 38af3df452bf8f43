"""The table around every game: seats, start, redaction of table facts (given/when/then)."""

from __future__ import annotations

import pytest

from domain import table as tables
from domain.engine import ARBITER, SPECTATOR, MalformedCommand, RuleViolation, Viewer
from domain.registry import register
from domain.table import deal
from tests.support import fakegame

register(fakegame.RULES)


def given(*facts: object) -> tables.Table:
    table = None
    for fact in facts:
        table = tables.evolve(table, fact)
    assert table is not None
    return table


CREATED = tables.create(fakegame.RULES, fakegame.Options(), 2, "arbiter-hash", "s42")[0]
SEAT0 = tables.SeatTaken(0, "ann", "h0", "c0")
SEAT1 = tables.SeatTaken(1, "bob", "h1", "")


def test_create_checks_the_seat_count() -> None:
    with pytest.raises(MalformedCommand) as e:
        tables.create(fakegame.RULES, fakegame.Options(), 5, "h", 1)
    assert e.value.field == "seat_count"


def test_create_checks_a_prepared_deck_is_the_modes_deck() -> None:
    with pytest.raises(MalformedCommand) as e:
        tables.create(fakegame.RULES, fakegame.Options(), 2, "h", 1, (1, 2, 3))
    assert e.value.field == "deck"


def test_a_free_seat_can_be_taken() -> None:
    assert tables.take_seat(given(CREATED), 1, "bob", "h1") == [SEAT1]
    assert tables.take_seat(given(CREATED), 0, "ann", "h0", "c0") == [SEAT0]


def test_a_taken_seat_cannot_be_taken_again() -> None:
    with pytest.raises(RuleViolation) as e:
        tables.take_seat(given(CREATED, SEAT0), 0, "eve", "h2")
    assert e.value.reason == "SEAT_TAKEN"


def test_a_seat_out_of_range_is_malformed() -> None:
    with pytest.raises(MalformedCommand) as e:
        tables.take_seat(given(CREATED), 2, "eve", "h2")
    assert e.value.field == "seat"


def test_start_needs_every_seat() -> None:
    with pytest.raises(RuleViolation) as e:
        tables.start(given(CREATED, SEAT0))
    assert e.value.reason == "SEATS_NOT_FILLED"


def test_start_shuffles_from_the_secret_and_every_contribution() -> None:
    started, *dealt = tables.start(given(CREATED, SEAT0, SEAT1))
    seed = deal.shuffle_seed("s42", ("c0", ""))
    assert started == tables.GameStarted(deal.shuffle(tuple(range(9)), seed), seed)
    other, *_ = tables.start(given(CREATED, tables.SeatTaken(0, "ann", "h0", "c1"), SEAT1))
    assert other.seed != started.seed, "a seat's contribution changes the deal"
    assert sorted(started.deck) == list(range(9))
    assert dealt == fakegame.RULES.deal(tables.evolve(given(CREATED, SEAT0, SEAT1), started).game)


def test_a_prepared_deck_is_dealt_as_given() -> None:
    deck = tuple(reversed(range(9)))
    (created,) = tables.create(fakegame.RULES, fakegame.Options(), 2, "h", "s42", deck)
    assert created.commitment == deal.commitment("s42", deck)
    started, *_ = tables.start(given(created, SEAT0, SEAT1))
    assert started.deck == deck


def test_no_move_before_the_start_or_after_the_end() -> None:
    with pytest.raises(RuleViolation) as e:
        tables.play(given(CREATED, SEAT0, SEAT1), fakegame.Discard(0, 1))
    assert e.value.reason == "GAME_NOT_STARTED"
    table = given(CREATED, SEAT0, SEAT1)
    for fact in tables.start(table):
        table = tables.evolve(table, fact)
    while table.phase is tables.Phase.PLAYING:
        (cmd, *_r) = fakegame.RULES.legal_commands(table.game, table.game.turn)
        for fact in tables.play(table, cmd):
            table = tables.evolve(table, fact)
    with pytest.raises(RuleViolation) as e:
        tables.play(table, fakegame.Discard(0, 1))
    assert e.value.reason == "GAME_OVER"


@pytest.mark.parametrize("viewer", [SPECTATOR, Viewer.of_seat(0), Viewer.of_seat(1)])
def test_seed_deck_and_token_hashes_never_reach_a_seat_or_spectator(viewer: Viewer) -> None:
    started = tables.GameStarted((3, 1, 2), 99)
    assert tables.redact("fake", started, viewer) == tables.GameStarted((), 0)
    (prepared,) = tables.create(fakegame.RULES, fakegame.Options(), 2, "a", "s5", tuple(range(9)))
    created = tables.redact("fake", prepared, viewer)
    assert (created.secret, created.prepared_deck, created.arbiter_token_hash) == ("", (), "")
    assert created.commitment == prepared.commitment, "the commitment is public"
    assert tables.redact("fake", SEAT0, viewer).token_hash == ""


def test_the_arbiter_sees_the_deck() -> None:
    started = tables.GameStarted((3, 1, 2), 99)
    assert tables.redact("fake", started, ARBITER) == started


def test_everything_opens_once_the_game_is_over() -> None:
    table = given(CREATED, SEAT0, SEAT1)
    assert tables.viewer_for(table, Viewer.of_seat(0)) == Viewer.of_seat(0)
    for fact in tables.start(table):
        table = tables.evolve(table, fact)
    while table.phase is tables.Phase.PLAYING:
        (cmd, *_r) = fakegame.RULES.legal_commands(table.game, table.game.turn)
        facts = tables.play(table, cmd)
        for fact in facts:
            table = tables.evolve(table, fact)
    assert facts[-1] == tables.ShuffleRevealed("s42"), "the move that ends the game reveals"
    assert tables.viewer_for(table, Viewer.of_seat(0)) == ARBITER


def test_table_facts_and_states_survive_storage() -> None:
    table = given(CREATED, SEAT0, SEAT1)
    for fact in tables.start(table):
        assert tables.decode_event("fake", tables.encode_event(fact)) == fact
        table = tables.evolve(table, fact)
    assert tables.decode_event("fake", tables.encode_event(CREATED)) == CREATED
    assert tables.decode_table(tables.encode_table(table)) == table
