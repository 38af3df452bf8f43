"""The lobby's matchmaking rules (domain/lobby.py): given waiting tickets and a time, which
tables form. Random queues print their seed."""

from __future__ import annotations

import random

import pytest

from domain.engine import MalformedCommand, RuleViolation
from domain.lobby import Ticket, check_ticket, compatible, form_tables, may_leave, may_queue


def t(player: str, rating: float = 0, window: float = 0, bots: int = 0, at: int = 0) -> Ticket:
    return Ticket(player, rating, window, bots, at)


def test_windows_must_hold_both_ways() -> None:
    assert compatible([t("a", 1000, 100), t("b", 1090, 100)])
    assert not compatible([t("a", 1000, 100), t("b", 1150)])  # a's window refuses b
    assert not compatible([t("a", 1000), t("b", 1150, 100)])  # b's window refuses a
    assert compatible([t("a", 1000), t("b", 5000)])  # neither names a window


def test_oldest_first_and_nobody_twice() -> None:
    waiting = [t("a", 1000, 50), t("b", 2000, 50), t("c", 1020, 50), t("d", 2010, 50),
               t("e", 1030, 50)]  # fmt: skip
    formed = form_tables(waiting, 2, now_ms=0)
    assert [f.players for f in formed] == [("a", "c"), ("b", "d")]  # e waits
    assert all(not f.bot_seats for f in formed)


def test_bots_only_once_every_player_of_the_table_waited_its_wait() -> None:
    waiting = [t("a", bots=1000, at=0), t("b", bots=5000, at=0)]
    assert form_tables(waiting, 4, now_ms=999) == []
    assert form_tables(waiting, 4, now_ms=1000) == []  # b has not waited its wait
    (table,) = form_tables(waiting, 4, now_ms=5000)
    assert (table.players, table.bot_seats) == (("a", "b"), (2, 3))
    assert form_tables([t("c")], 2, now_ms=10**9) == []  # 0: never bots


def test_refusals_name_the_field_or_rule() -> None:
    for claimed in (float("nan"), 1500, -1):  # the server rates players: no claim is taken
        with pytest.raises(MalformedCommand) as bad:
            check_ticket(claimed, 0, 0)
        assert bad.value.field == "rating"
    with pytest.raises(MalformedCommand) as bad:
        check_ticket(0, -1, 0)
    assert bad.value.field == "rating_window"
    with pytest.raises(MalformedCommand) as bad:
        check_ticket(0, 0, 600_001)
    assert bad.value.field == "bot_wait_ms"
    with pytest.raises(RuleViolation) as refused:
        may_queue(True)
    assert refused.value.reason == "ALREADY_QUEUED"
    with pytest.raises(RuleViolation) as refused:
        may_leave(False)
    assert refused.value.reason == "NOT_QUEUED"


@pytest.mark.parametrize("seed", range(20))
def test_random_queues_form_only_compatible_full_tables(seed: int) -> None:
    print(f"seed={seed}")
    rng = random.Random(seed)
    seats = rng.choice([2, 3, 4])
    waiting = [
        t(f"p{i}", rng.choice([1000, 1100, 1500]) + rng.randint(0, 50),
          rng.choice([0, 60, 200]), rng.choice([0, 100]), rng.randint(0, 200))
        for i in range(rng.randint(0, 14))
    ]  # fmt: skip
    now = rng.randint(0, 400)
    formed = form_tables(waiting, seats, now)
    players = [p for f in formed for p in f.players]
    assert len(players) == len(set(players))  # nobody twice
    by_name = {w.player: w for w in waiting}
    for f in formed:
        group = [by_name[p] for p in f.players]
        assert compatible(group)
        assert len(f.players) + len(f.bot_seats) == seats
        if f.bot_seats:
            assert all(w.bot_wait_ms and now - w.queued_at_ms >= w.bot_wait_ms for w in group)
