"""Seats bound to players (issue 40), at the rule level: a login table seats signed-in
players only, a player holds one seat at a table, the binding is re-decided from the record
as it stands, and a match's later hands seat the same players. (The login itself is the
server's: tests/server/test_logins.py, tests/api/test_player_logins.py.)"""

from __future__ import annotations

import pytest

from domain import match
from domain import table as tables
from domain.engine import RuleViolation
from domain.registry import register, rules_for
from tests.support import fakegame

register(fakegame.RULES)
MID = "8f1c0a52-31c2-4f3e-9a53-3f2b1c9d0e11"
ALICE, BOB, CAROL = ("a" * 64, "b" * 64, "c" * 64)


def login_table(**kw: object) -> tables.Table:
    (created,) = tables.create(
        fakegame.RULES, fakegame.Options(), 3, "a", "s", player_login_required=True, **kw
    )
    return tables.evolve(None, created)


def seated(table: tables.Table, seat: int, player: str) -> tables.Table:
    for fact in tables.take_seat(table, seat, f"p{seat}", f"t{seat}", player=player):
        table = tables.evolve(table, fact)
    return table


def refusal(table: tables.Table, seat: int, player: str) -> str:
    with pytest.raises(RuleViolation) as refused:
        tables.take_seat(table, seat, "x", "t", player=player)
    return refused.value.reason


def test_a_login_table_seats_signed_in_players_only() -> None:
    table = login_table()
    assert refusal(table, 0, "") == "PLAYER_LOGIN_REQUIRED"
    (taken,) = tables.take_seat(table, 0, "A", "t0", player=ALICE)
    assert taken.player == ALICE
    assert tables.evolve(table, taken).seat_of(ALICE) == 0


def test_a_player_holds_one_seat_at_a_table() -> None:
    table = seated(login_table(), 0, ALICE)
    assert refusal(table, 1, ALICE) == "PLAYER_SEATED"
    assert seated(table, 1, BOB).seat_of(BOB) == 1


def test_a_table_without_logins_still_binds_a_player_who_joins_signed_in() -> None:
    (created,) = tables.create(fakegame.RULES, fakegame.Options(), 3, "a", "s")
    table = tables.evolve(None, created)
    assert not table.player_login_required
    assert seated(table, 2, "").seat_of("") is None  # a seat token alone: no player
    assert seated(table, 2, CAROL).seat_of(CAROL) == 2


def test_the_binding_is_re_decided_from_the_record() -> None:
    table = login_table()
    (taken,) = tables.take_seat(table, 1, "B", "t1", player=BOB)
    redecided = tables.redecide(table, tables.cause("join", 1), taken)
    assert redecided == [taken.__class__(**{**taken.__dict__, "token_hash": ""})]


def test_a_matchs_later_hand_seats_the_same_players() -> None:
    state = None
    for fact in match.create(rules_for("zipai"), MID, 3, 2, 0, match.Advance.AUTO):
        state = match.evolve(state, fact)
    assert state is not None
    deck = (6, 7, 8, 3, 4, 5, 0, 1, 2)
    (created,) = tables.create(
        fakegame.RULES, fakegame.Options(), 3, "a", "s", deck, match_id=MID, hand=1,
        player_login_required=True,
    )  # fmt: skip
    table = tables.evolve(None, created)
    for seat, player in enumerate((ALICE, BOB, CAROL)):
        table = seated(table, seat, player)
    for fact in tables.start(table):
        table = tables.evolve(table, fact)
    while table.phase is tables.Phase.PLAYING:
        (command, *_rest) = fakegame.RULES.legal_commands(table.game, table.game.turn)
        for fact in tables.play(table, command):
            table = tables.evolve(table, fact)
    for fact in match.end_hand(state, table, "head-1"):
        state = match.evolve(state, fact)
    moves = match.next_hand(state, table, "s2")
    (_, (created2,)), *joins = moves
    assert created2.player_login_required
    assert [facts[0].player for _, facts in joins] == [ALICE, BOB, CAROL]


# --- seats the lobby reserved (issue 40) -------------------------------------------------


def reserved_table(login: bool = True) -> tables.Table:
    """A table the lobby formed: ALICE at seat 0, BOB at seat 1, seat 2 a bot's (open)."""
    (created,) = tables.create(
        fakegame.RULES, fakegame.Options(), 3, "a", "s",
        player_login_required=login, reserved_players=(ALICE, BOB, ""),
    )  # fmt: skip
    return tables.evolve(None, created)


def test_a_reserved_seat_is_taken_by_its_player_only() -> None:
    table = reserved_table(login=False)  # a table with a bot seat admits seats without login
    assert refusal(table, 0, CAROL) == "SEAT_RESERVED"  # another login
    assert refusal(table, 0, "") == "SEAT_RESERVED"  # a seat token alone
    assert refusal(table, 2, ALICE) == "SEAT_RESERVED"  # its player, at another seat
    assert refusal(table, 1, ALICE) == "SEAT_RESERVED"
    table = seated(seated(table, 0, ALICE), 1, BOB)
    assert seated(table, 2, "").seats[2] is not None  # the open seat: anyone (the bot)


def test_a_reserved_seat_nobody_takes_ends_the_game_void_after_the_limit() -> None:
    """The draw waits for the reserved seats from the table's creation: the abandonment
    clock (GameCreated.abandon_after_ms) runs from version 1, and DealAbandoned names the
    empty reserved seats only (not the bot's open one)."""
    table = reserved_table(login=False)
    assert table.drawing and table.draw_opened == 1 and table.awaited_inputs == (0, 1)
    table = seated(table, 0, ALICE)
    assert table.awaited_inputs == (1,) and table.draw_opened == 1
    (abandoned, *_reveal) = tables.abandon(table)
    assert abandoned.waiting_for == (1,)
    table = seated(table, 1, BOB)  # every reserved player came: the usual wait for the bot
    assert not table.drawing
    with pytest.raises(RuleViolation):
        tables.abandon(table)
    table = seated(table, 2, "")
    assert table.drawing and table.draw_opened == table.version  # the draw's own clock


def test_reservations_are_one_distinct_player_per_seat() -> None:
    from domain.engine import MalformedCommand

    for bad in ((ALICE,), ("", "", ""), (ALICE, ALICE, "")):
        with pytest.raises(MalformedCommand) as refused:
            tables.create(fakegame.RULES, fakegame.Options(), 3, "a", "s", reserved_players=bad)
        assert refused.value.field == "reserved_players"
