"""The lobby's matchmaking rules (issue 40): who may sit with whom, and which tables a queue
forms now. Pure: the store keeps the queues, the server runs the matchmaker; both ask here.

A queue holds the players who want the same thing: one game kind, the same rules (options)
and the same seat count. Within it, two players are compatible when each one's rating
window (if it names one) holds the other's rating: the server's own rating of the player at
that game kind (its ratings ledger, as GetRating reads it: OpenSkill's mu, 25 for a player
with no rated result), never a number the client sends. A table is formed from the oldest waiting
player and the next compatible ones in queue order; when too few are compatible, and every
one of them has waited at least the bot wait it named (0: never), bots take the rest.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from domain.engine import MalformedCommand, RuleViolation

MAX_BOT_WAIT_MS = 600_000  # ten minutes: a longer wait is a player who went away
MAX_RATING = 1e6


@dataclass(frozen=True)
class Ticket:
    """A player waiting in a queue. ``rating``: its rating at the game kind when it queued,
    read by the server from its ratings ledger (``mu``); ``window``: the largest rating difference it accepts (0:
    any); ``bot_wait_ms``: how long it waits before bots may fill its table (0: never)."""

    player: str
    rating: float
    window: float
    bot_wait_ms: int
    queued_at_ms: int


@dataclass(frozen=True)
class Formation:
    """A table a queue forms: ``players`` by seat (seat 0 first), then ``bot_seats``."""

    players: tuple[str, ...]
    bot_seats: tuple[int, ...]


def check_ticket(claimed_rating: float, window: float, bot_wait_ms: int) -> None:
    """Refuse a ticket's numbers that no table could honour (MalformedCommand names the field).
    ``claimed_rating`` is JoinQueueRequest.rating, which the server no longer takes: a player
    is matched by the server's own rating of it, so a client that still sends one is told so
    (else a low-rated player could claim a high band, and an old client would believe its
    number was used)."""
    if claimed_rating != 0:
        raise MalformedCommand(
            "rating",
            "the server matches a player by its own rating of it (GetRating): send 0",
        )
    if not math.isfinite(window) or not 0 <= window <= MAX_RATING:
        raise MalformedCommand("rating_window", f"0 (any rating) up to {MAX_RATING:g}")
    if not 0 <= bot_wait_ms <= MAX_BOT_WAIT_MS:
        raise MalformedCommand("bot_wait_ms", f"0 (no bots) up to {MAX_BOT_WAIT_MS}")


def check_seat_count(seat_count: int, allowed: Iterable[int]) -> None:
    allowed = tuple(allowed)
    if seat_count not in allowed:
        raise MalformedCommand("seat_count", f"these rules seat one of {allowed}")


def accepts(a: Ticket, b: Ticket) -> bool:
    """Whether ``a``'s rating window holds ``b``'s rating."""
    return a.window == 0 or abs(a.rating - b.rating) <= a.window


def compatible(group: Sequence[Ticket]) -> bool:
    """Every two players of ``group`` accept each other."""
    return all(accepts(a, b) and accepts(b, a) for a in group for b in group if a is not b)


def may_queue(waiting: bool) -> None:
    """A player waits in one queue at a time (so it is never seated at two tables)."""
    if waiting:
        raise RuleViolation(
            "ALREADY_QUEUED", "queue", "this player already waits in a queue (LeaveQueue first)"
        )


def may_leave(waiting: bool) -> None:
    if not waiting:
        raise RuleViolation("NOT_QUEUED", "queue", "this player waits in no queue")


def form_tables(waiting: Sequence[Ticket], seat_count: int, now_ms: int) -> list[Formation]:
    """The tables to form now, oldest players first; each player in at most one."""
    taken: set[str] = set()
    formed: list[Formation] = []
    for first in waiting:
        if first.player in taken:
            continue
        group = [first]
        for other in waiting:
            if len(group) == seat_count:
                break
            if other.player not in taken and other is not first and compatible([*group, other]):
                group.append(other)
        if len(group) < seat_count and not all(_bots_due(t, now_ms) for t in group):
            continue
        taken.update(t.player for t in group)
        formed.append(
            Formation(tuple(t.player for t in group), tuple(range(len(group), seat_count)))
        )
    return formed


def _bots_due(ticket: Ticket, now_ms: int) -> bool:
    return ticket.bot_wait_ms > 0 and now_ms - ticket.queued_at_ms >= ticket.bot_wait_ms


def lobby_bot_player(secret: str, seat: int) -> str:
    """The player id a lobby table reserves for the server's own bot at ``seat``
    (GameCreated.reserved_players): derived from a secret only the server and the bot
    process it starts hold, so nobody else holding the game id takes a bot's seat (a
    seated player's friend sitting in as a "bot"). One id a seat, as a player holds at most
    one seat at a table."""
    return hashlib.sha256(f"tabletop-lobby-bot/1\n{secret}\n{seat}".encode()).hexdigest()
