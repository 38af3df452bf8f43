"""Planted weakenings: the rules issue 35 replaces, kept here as they were (main at 6f7799a)
so that a test can put each one back into the domain (monkeypatch) and see the harness's
count fail. A harness that passes with a rule loosened on purpose proves nothing.

Each plant names the domain functions it replaces (``*_TARGETS``: module, attribute); if
a branch moves the rule to another function, point the plant there.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest

import domain.table as table_package
from domain import verify as verifier
from domain.engine import RuleViolation
from domain.table import clock as table_clock
from domain.table import deal
from domain.table import decider as table_decider
from domain.table import draw as table_draw
from domain.table import evolution as table_evolution
from domain.table.justice import decide as justice_decide
from domain.table.justice import facts as J
from domain.table.justice import verdict as justice_verdict
from domain.table.state import Phase, Table
from tests.adversary import adapter

# --- the old timeout fallback: a withheld seat's commitment, or "n", stands in -------------


def old_entry(commitment: str, revealed: str, withheld: bool) -> str:
    """The old ``deal.entry``: a reveal, else (withheld) the commitment, else ``n``."""
    if revealed:
        return "r" + hashlib.sha256(f"tabletop-reveal|{revealed}".encode()).hexdigest()
    if commitment and withheld:
        return "w" + commitment
    return "n"


def _after(table: Table, facts: list[Any]) -> Table:
    for fact in facts:
        table = table_evolution.evolve(table, fact)
    return table


def old_start(table: Table, reveals_closed: bool = False) -> list[Any]:
    """The old ``tables.start``: once the window closes, every seat still awaited or
    pending is RevealWithheld and the deal goes ahead with what stands in for it."""
    if table.redraw is None and table.phase is not Phase.WAITING:
        raise RuleViolation("GAME_ALREADY_STARTED", "table", "the game was already dealt")
    if any(s is None for s in table.seats):
        raise RuleViolation("SEATS_NOT_FILLED", "table", "every seat must be taken first")
    awaited = table.awaited_commitments
    if awaited:
        if not reveals_closed:
            raise RuleViolation("COMMITMENTS_PENDING", "deal", "the deal waits")
        closed: list[Any] = [table_package.RevealWithheld(s) for s in awaited]
        after = _after(table, closed)
        return closed if after.pending_reveals else closed + _old_deal(after)
    pending = table.pending_reveals
    if pending and not reveals_closed:
        raise RuleViolation("REVEALS_PENDING", "deal", "the deal waits")
    facts: list[Any] = [table_package.RevealWithheld(s) for s in pending]
    return facts + _old_deal(_after(table, facts))


def _old_deal(table: Table) -> list[Any]:
    rules = table.rules
    inputs = table.draw_inputs()
    entries = tuple(
        "n" if s is None else old_entry(s.commitment, s.contribution, s.withheld) for s in inputs
    )
    cards = rules.new_deck(table.options)
    if table.redraw is not None:
        key, n = deal.table_key(table.redraw.secret, entries), table.redraw.round
        redealt = J.GameRedealt(deal.deck_for_round(key, cards, n), deal.seed_for_round(key, n), n)
        dealt = rules.deal(table_evolution.evolve(table, redealt).game)
        return table_draw.with_reveal(table, [redealt, *dealt])
    key = deal.table_key(table.secret, entries)
    deck = table.prepared_deck or deal.deck_for_round(key, cards, 0)
    started = table_package.GameStarted(deck, deal.seed_for_round(key, 0))
    return [started, *rules.deal(table_evolution.evolve(table, started).game)]


TIMEOUT_FALLBACK_TARGETS = ((table_package, "start"), (table_decider, "start"))
# where the window's end now abandons the draw (the game void), the old rule dealt instead
ABANDON_TARGETS = ((table_package, "abandon"), (table_decider, "abandon"))


def old_abandon(table: Table) -> list[Any]:
    """The old rule at the window's end: deal with what stands in for the missing seats."""
    return old_start(table, reveals_closed=True)


# --- the old redeal rule: the arbiter redeals alone on a disputed case ----------------------


def old_redeal(court: Any) -> list[Any]:
    """The old ``justice.redeal``: the arbiter alone, on any case the seats' votes left
    disputed (at 2 seats every unchecked report; at 3 the reporter's partner confirms)."""
    if not court.running or not court.arbitrated:
        raise RuleViolation("NO_ARBITER", "仲裁", "no running arbitrated game")
    case = court.justice.open_case
    if case is None:
        raise RuleViolation("NO_OPEN_CASE", "仲裁", "重新洗牌发牌 settles an open case only")
    verdict = justice_verdict.seats_verdict(court.seat_count, case)
    if verdict is not justice_verdict.Verdict.DISPUTED:
        raise RuleViolation("REDEAL_NOT_DISPUTED", "仲裁", "the case is not disputed")
    return [J.CaseClosed(case.id, J.CaseStatus.DEADLOCKED), *court.redeal()]


REDEAL_TARGETS = ((justice_decide, "redeal"),)


# --- the old case clock: any event restarts the deadline -----------------------------------


def old_case_deadline(table: Table, since: Any, *_: Any, **__: Any) -> datetime | None:
    """The old ``tables.case_deadline``: the case limit after the latest fact, whatever it
    was (``since`` a time, or every version's time: the latest counts)."""
    latest = since if isinstance(since, datetime) else max(since)
    limit = table.case_time_limit_ms or table.time_limit_ms
    if table.phase is not Phase.PLAYING or not table.justice.paused or limit <= 0:
        return None
    return latest + timedelta(milliseconds=limit)  # type: ignore[no-any-return]


def old_case_deadline_at_the_seam(table: Table, times: list[datetime]) -> datetime | None:
    """The old clock where the harness asks for a deadline (``adapter.case_deadline``),
    whatever the merged domain function's arguments turn out to be."""
    return old_case_deadline(table, times[-1])


CASE_CLOCK_TARGETS = ((table_package, "case_deadline"), (table_clock, "case_deadline"))
CASE_CLOCK_SEAM = ((adapter, "case_deadline"),)


# --- the old arbiter: a token, not a key (the operator rules in its place) ------------------


def old_by_arbiter(*_: Any, **__: Any) -> bool:
    """The verifier before arbiter keys: no cause is the arbiter's to check, so a ruling
    stands on the server's word (whoever runs the server rules, as with the arbiter's
    token alone)."""
    return False


ARBITER_SIGNATURE_TARGETS = ((verifier, "_by_arbiter"),)


def plant(
    monkeypatch: pytest.MonkeyPatch, targets: tuple[tuple[Any, str], ...], old: Callable[..., Any]
) -> None:
    for module, name in targets:
        monkeypatch.setattr(module, name, old)
