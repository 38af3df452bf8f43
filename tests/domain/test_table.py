"""The table around every game: seats, start, redaction of table facts (given/when/then)."""

from __future__ import annotations

import dataclasses

import pytest

from domain import table as tables
from domain.engine import (
    ARBITER,
    SPECTATOR,
    MalformedCommand,
    Outcome,
    RuleViolation,
    Viewer,
    replaced,
)
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
    key = deal.table_key("s42", (deal.entry("", "c0"), "n"))
    deck = deal.deck_for_round(key, range(9), 0)
    assert started == tables.GameStarted(deck, deal.seed_for_round(key, 0))
    other, *_ = tables.start(given(CREATED, tables.SeatTaken(0, "ann", "h0", "c1"), SEAT1))
    assert other.seed != started.seed, "a seat's contribution changes the deal"
    assert sorted(started.deck) == list(range(9))
    assert dealt == fakegame.RULES.deal(tables.evolve(given(CREATED, SEAT0, SEAT1), started).game)


def test_a_prepared_deck_is_dealt_as_given_and_marked() -> None:
    deck = tuple(reversed(range(9)))
    (created,) = tables.create(fakegame.RULES, fakegame.Options(), 2, "h", "s42", deck, salt="t")
    assert created.commitment == deal.commitment("s42", "t", deck)
    assert created.deal_source is deal.DealSource.PREPARED_DECK
    assert "prepared deal: chosen by the table's creator" in tables.describe("fake", created)
    started, *_ = tables.start(given(created, SEAT0, SEAT1))
    assert started.deck == deck


def test_a_seeded_table_is_marked_and_a_random_one_is_not() -> None:
    seeded = tables.create(fakegame.RULES, fakegame.Options(), 2, "h", "s", seeded=True)[0]
    assert seeded.deal_source is deal.DealSource.PREPARED_SEED
    assert "(a client-given seed)" in tables.describe("fake", seeded)
    assert CREATED.deal_source is deal.DealSource.SHUFFLED
    assert "prepared" not in tables.describe("fake", CREATED)


# --- commit–reveal ------------------------------------------------------------------------

C0, C1 = deal.contribution_commitment("r0"), deal.contribution_commitment("r1")
COMMIT0 = tables.SeatTaken(0, "ann", "h0", "", C0)
COMMIT1 = tables.SeatTaken(1, "bob", "h1", "", C1)


def test_a_seat_commits_with_a_sha256() -> None:
    assert tables.take_seat(given(CREATED), 0, "ann", "h0", commitment=C0) == [COMMIT0]
    for bad in ("abc", C0.upper(), C0[:-1] + "g"):
        with pytest.raises(MalformedCommand) as e:
            tables.take_seat(given(CREATED), 0, "ann", "h0", commitment=bad)
        assert e.value.field == "contribution_commitment"
    with pytest.raises(MalformedCommand):
        tables.take_seat(given(CREATED), 0, "ann", "h0", "r0", C0)


def test_reveals_come_after_every_seat_committed() -> None:
    with pytest.raises(RuleViolation) as e:
        tables.reveal(given(CREATED, COMMIT0), 0, "r0")
    assert e.value.reason == "REVEAL_TOO_EARLY"


def test_a_reveal_must_match_its_commitment() -> None:
    table = given(CREATED, COMMIT0, COMMIT1)
    for wrong in ("r1", "r0 ", "R0"):
        with pytest.raises(RuleViolation) as e:
            tables.reveal(table, 0, wrong)
        assert e.value.reason == "REVEAL_MISMATCH"
    assert tables.reveal(table, 0, "r0") == [tables.ContributionRevealed(0, "r0")]
    revealed = tables.evolve(table, tables.ContributionRevealed(0, "r0"))
    assert tables.reveal(revealed, 0, "r0") == [], "a retried reveal changes nothing"
    with pytest.raises(RuleViolation) as e:
        tables.reveal(given(CREATED, COMMIT0, SEAT1), 1, "x")
    assert e.value.reason == "NOTHING_TO_REVEAL"


def test_the_deal_waits_for_every_reveal_and_nobody_stands_in() -> None:
    """Given a seat that committed and has not revealed, when anyone asks to deal (the
    window passed or not), then it is refused naming the seat: no timeout stands a seat in."""
    table = given(CREATED, COMMIT0, COMMIT1, tables.ContributionRevealed(1, "r1"))
    assert table.pending_reveals == (0,) and table.awaited_inputs == (0,)
    with pytest.raises(RuleViolation) as e:
        tables.start(table)
    assert e.value.reason == "REVEALS_PENDING" and "seat(s) 0" in e.value.message
    assert tables.deal_status(table) == "waiting for seat(s) 0 to reveal"
    # a late reveal of the committed value is still taken, and then the one deal follows
    (late_reveal,) = tables.reveal(table, 0, "r0")
    late = tables.evolve(table, late_reveal)
    started, *_ = tables.start(late)
    key = deal.table_key("s42", (deal.entry(C0, "r0"), deal.entry(C1, "r1")))
    assert started.deck == deal.deck_for_round(key, range(9), 0)


def test_a_revealed_table_deals_from_every_reveal() -> None:
    table = given(
        CREATED,
        COMMIT0,
        COMMIT1,
        tables.ContributionRevealed(1, "r1"),
        tables.ContributionRevealed(0, "r0"),
    )
    started, *_ = tables.start(table)
    key = deal.table_key("s42", (deal.entry(C0, "r0"), deal.entry(C1, "r1")))
    assert started.deck == deal.deck_for_round(key, range(9), 0)
    with pytest.raises(RuleViolation) as e:
        tables.abandon(table)
    assert e.value.reason == "NOTHING_TO_ABANDON", "every input is in: it is dealt, not void"


def test_a_censored_draw_gives_the_one_deal_or_none() -> None:
    """Given two seats that committed, when an operator lets through any subset of their
    reveals (it withholds the others' calls), then the only outcomes are the deal of every
    reveal, or a void game once the draw is abandoned: never a deal without a seat."""
    committed = given(CREATED, COMMIT0, COMMIT1)
    reveals = {0: tables.ContributionRevealed(0, "r0"), 1: tables.ContributionRevealed(1, "r1")}
    decks = set()
    for through in ((), (0,), (1,), (0, 1)):
        table = given(CREATED, COMMIT0, COMMIT1, *(reveals[s] for s in through))
        try:
            facts = tables.start(table)
        except RuleViolation:
            facts = tables.abandon(table)
            (abandoned, revealed) = facts
            missing = tuple(s for s in (0, 1) if s not in through)
            assert abandoned == tables.DealAbandoned(missing, 0)
            assert revealed == tables.ShuffleRevealed("s42", ""), "the secret checks"
            after = given(CREATED, COMMIT0, COMMIT1, *(reveals[s] for s in through), *facts)
            assert after.phase is tables.Phase.FINISHED and after.game is None
            assert after.outcome == Outcome((), (), "VOID")
            assert "void: no deal, waiting for seat(s)" in tables.deal_status(after)
            continue
        decks.add(facts[0].deck)
    assert len(decks) == 1, "one deal, from every seat's entropy"
    assert committed.awaited_inputs == (0, 1)


def test_a_void_game_takes_no_move_and_no_deal() -> None:
    table = given(CREATED, COMMIT0, COMMIT1)
    void = given(CREATED, COMMIT0, COMMIT1, *tables.abandon(table))
    for refused in (
        lambda: tables.start(void),
        lambda: tables.play(void, fakegame.Discard(0, 1)),
        lambda: tables.abandon(void),
        lambda: tables.reveal(void, 0, "r0"),
    ):
        with pytest.raises(RuleViolation):
            refused()
    assert tables.describe("fake", tables.DealAbandoned((1,), 0)) == (
        "the deal abandoned; void: no deal, waiting for seat(s) 1"
    )


def test_a_seat_that_commits_to_nothing_is_named() -> None:
    table = given(CREATED, COMMIT0, SEAT1)
    assert table.no_entropy == (1,)
    assert tables.deal_status(table) == "waiting for seat(s) 0 to reveal; seat 1 added no entropy"


def test_the_abandonment_clock_runs_from_the_draws_opening() -> None:
    from datetime import UTC, datetime, timedelta

    table = given(CREATED, COMMIT0)
    assert table.draw_opened == 0 and not table.drawing
    table = given(CREATED, COMMIT0, COMMIT1, tables.ContributionRevealed(1, "r1"))
    assert table.draw_opened == 3, "the last seat taken opened the draw"
    at = datetime(2026, 1, 1, tzinfo=UTC)
    limit = timedelta(milliseconds=tables.DEFAULT_ABANDON_AFTER_MS)
    assert tables.abandon_deadline(table, at) == at + limit
    assert tables.DEFAULT_ABANDON_AFTER_MS == 600_000
    for bad in (1, tables.MAX_ABANDON_AFTER_MS + 1):
        with pytest.raises(MalformedCommand) as e:
            tables.create(fakegame.RULES, fakegame.Options(), 2, "h", "s", abandon_after_ms=bad)
        assert e.value.field == "abandon_after_ms"


def test_an_older_record_with_a_withheld_seat_still_replays() -> None:
    """A record made before issue 35 (a start whose cause closed the reveals) re-decides
    as it was made (verify then flags the deal): the old types still parse."""
    table = given(CREATED, COMMIT0, COMMIT1, tables.ContributionRevealed(1, "r1"))
    cause = {**tables.cause("start"), "reveals_closed": True}
    withheld, started, *_ = tables.redecide(table, cause, None)
    assert withheld == tables.RevealWithheld(0)
    key = deal.table_key("s42", ("w" + C0, deal.entry(C1, "r1")))
    assert started.deck == deal.deck_for_round(key, range(9), 0)


@pytest.mark.parametrize("viewer", [SPECTATOR, Viewer.of_seat(0), Viewer.of_seat(1), ARBITER])
def test_a_contribution_reaches_nobody_before_the_end(viewer: Viewer) -> None:
    """Not even the arbiter: the last seat to reveal learns nothing from the others."""
    revealed = tables.ContributionRevealed(0, "r0")
    assert tables.redact("fake", revealed, viewer) == tables.ContributionRevealed(0, "")
    assert tables.redact("fake", SEAT0, viewer).contribution == ""
    assert tables.redact("fake", COMMIT0, viewer).commitment == C0, "commitments are public"


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
    assert created.salt == ""
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
    assert facts[-1] == tables.ShuffleRevealed("s42", ""), "the move that ends the game reveals"
    assert tables.viewer_for(table, Viewer.of_seat(0)) == ARBITER


def test_table_facts_and_states_survive_storage() -> None:
    table = given(CREATED, COMMIT0, SEAT1)
    assert tables.decode_table(tables.encode_table(table)) == table
    with_reveal = [
        tables.ContributionRevealed(0, "r0"),
        tables.RevealWithheld(1),
        tables.DealAbandoned((0,), 0),
    ]
    for fact in with_reveal:
        assert tables.decode_event("fake", tables.encode_event(fact)) == fact
    for fact in tables.abandon(table):
        assert tables.decode_event("fake", tables.encode_event(fact)) == fact
        table = tables.evolve(table, fact)
    assert tables.decode_event("fake", tables.encode_event(CREATED)) == CREATED
    assert tables.decode_table(tables.encode_table(table)) == table


def test_the_table_is_replaced_as_dataclasses_would_replace_it() -> None:
    """``engine.replaced`` (the table's copy after every fact) gives what
    ``dataclasses.replace`` gives: an equal, frozen instance of the same class, the original
    unchanged; a name that is not a field is refused."""
    table = given(CREATED, SEAT0)
    moved = replaced(table, version=table.version + 5, hand=3)
    assert moved == dataclasses.replace(table, version=table.version + 5, hand=3)
    assert type(moved) is tables.Table and hash(moved) == hash(dataclasses.replace(moved))
    assert (table.version, table.hand) != (moved.version, moved.hand)
    with pytest.raises(dataclasses.FrozenInstanceError):
        moved.version = 1  # type: ignore[misc]
    with pytest.raises(TypeError, match="versoin"):
        replaced(table, versoin=1)
