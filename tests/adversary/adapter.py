"""The adversary harness's one seam to the rules issue 35 is still changing.

Everything the harness needs from a rule that another part of issue 35 adds (a void deal,
seat signatures, the case clock, the pause bound) goes through a function here, so that
wiring the harness to the merged API is an edit of this file alone. Each function says
what it does on the branch it was written on (main at 6f7799a: none of those rules yet)
and what it should call once the rule exists. The rest of the harness calls the domain's
own decide/evolve/verify through these functions and never restates a rule.

The functions look the domain's functions up at call time (``tables.start``, not a
reference taken at import), so a planted weakening (``plants.py``) that monkeypatches the
domain reaches them.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain import table as tables
from domain import verify as verifier
from domain.engine import DomainError
from domain.table.justice import facts as J
from server.wire.signedcommands import read_signed_command
from tests.support import seatsign
from tests.support.matchplay import HandRecorder

# --- the draw -----------------------------------------------------------------------------

# Fact types that end a draw with no deal (the game void, a match hand incomplete). None on
# this branch; the deal branch adds one (named like ``DealAbandoned``). Matched by name so
# that the harness needs no import of a type that may not exist.
VOID_FACTS = ("DealAbandoned", "GameVoided", "DealVoided", "HandAbandoned")


def close_windows(table: tables.Table) -> list[Any]:
    """The facts the table records when every window of the draw under way has closed
    (the abandonment limit passed, where there is one) with the inputs it holds: a deal
    (GameStarted / GameRedealt), no deal (a VOID_FACTS fact), or [] while it still waits.

    Here: ``tables.start(table, reveals_closed=True)``, which stands a withheld seat in.
    Re-wire to the deal branch's way of closing a draw for good: if it keeps
    ``start(table, reveals_closed=True)`` for the window and adds a separate call for the
    abandonment limit (e.g. ``tables.abandon(table)``), call that one when ``start`` waits
    or returns facts without a deal."""
    try:
        return list(tables.start(table))
    except DomainError:  # still waiting for a seat: at the limit the draw is abandoned
        pass
    try:
        return list(tables.abandon(table))
    except DomainError:  # nothing to abandon: the table deals nothing
        return []


def is_void(facts: list[Any]) -> bool:
    """Whether ``facts`` end the draw without a deal."""
    return any(type(f).__name__ in VOID_FACTS for f in facts)


# --- seat keys and signed commands ----------------------------------------------------------


def seat_key(label: str) -> Ed25519PrivateKey:
    """A seat's Ed25519 key, made from ``label`` (deterministic: the harness prints seeds)."""
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(label.encode()).digest())


def public_bytes(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes_raw()


def take_seat(
    table: tables.Table, seat: int, name: str, token_hash: str, commitment: str, key: Any
) -> list[Any]:
    """JoinGame decided: the seat taken with its commitment and its public key (hex, as
    SeatTaken records it; ``append_signed`` signs the join with the key)."""
    public_key = public_bytes(key).hex() if key is not None else ""
    return list(tables.take_seat(table, seat, name, token_hash, "", commitment, public_key))


def append_signed(
    hand: HandRecorder,
    facts: list[Any],
    cause: dict[str, Any],
    key: Ed25519PrivateKey | None,
    signs: dict[str, Any] | None = None,
) -> None:
    """Record a seat's command as the server records it: its facts and its cause, with the
    seat's signature made by ``key`` over the command ``signs`` (the cause itself unless a
    forger passes another command the key once signed); ``key`` None records no signature.

    The request is rendered as the seat sends it (``render_moves.move_proto`` for a move) and
    signed with ``seatsig.sign`` having seen the hand's latest version and its chain hash;
    the cause keeps it as ``signed`` (tests/support/seatsign.py)."""
    if key is not None:
        kind = hand.table.kind
        version, head = len(hand.records), hand.head
        signed = seatsign.signature(key, kind, hand.game_id, signs or cause, facts, version, head)
        cause = {**cause, "signed": signed}
    hand.append(facts, cause)


def verify(records: list[verifier.Record], server_key: bytes, seat_keys: list[bytes]) -> Any:
    """The verifier as an auditor runs it: raises ``verifier.AuditFailure`` for a record it
    refuses. ``seat_keys`` are the seats' public keys (each recorded at JoinGame): the
    record must key each seat with its own, and every keyed seat's command carries its
    signature (``verify`` with the reader of signed commands)."""
    report = verifier.verify(records, server_key, command_reader=read_signed_command)
    if report.seat_keys != tuple(k.hex() for k in seat_keys):
        raise verifier.AuditFailure("the record keys a seat with a key that is not the seat's")
    return report


# --- the case clock and the pause bound --------------------------------------------------


def case_deadline(table: tables.Table, times: list[datetime]) -> datetime | None:
    """When the open case's next step is due; ``times[i]`` is the recorded time of version
    ``i + 1`` (all the server knows of the clock).

    Here: what the server's timer uses, ``tables.case_deadline(table, modified_on)`` (the
    latest fact's time: any event restarts it). Re-wire to the justice branch's rule (the
    case's opening, moved only by an awaited voter's vote), with whatever it takes."""
    return tables.case_deadline(table, _by_version(times))  # type: ignore[no-any-return]


def _by_version(times: list[datetime]) -> dict[int, datetime]:
    return {i + 1: t for i, t in enumerate(times)}


def act_at(
    table: tables.Table, command: Any, times: list[datetime], now: datetime, redeal_secret: str
) -> list[Any]:
    """A justice command decided at ``now`` on the simulated clock (``times`` as for
    ``case_deadline``): the pause scenario sends every report, vote and ruling through here.

    Here: ``tables.act`` (no rule reads the clock). Re-wire if the justice branch's per-hand
    cap on the pause needs the time at decide (e.g. a report refused once the hand's pause
    is spent): pass it what the server passes."""
    if isinstance(command, J.Report | J.Appeal):  # the server's check before it decides
        tables.check_justice_budget(table, _by_version(times), now)
    return list(tables.act(table, command, redeal_secret=redeal_secret))


def time_out_at(table: tables.Table, times: list[datetime], now: datetime) -> list[Any]:
    """The server's timer at ``now``: ``tables.time_out_all`` here; re-wire as ``act_at``."""
    return list(tables.time_out_all(table))


def pause_bound_ms(table: tables.Table) -> int | None:
    """The documented bound on how long justice may pause one hand, at this table.

    Here: no bound exists (None: the pause test fails, naming this). Re-wire to the justice
    branch's per-hand cap (a constant, or a function of the table's case limit)."""
    return table.justice_budget_ms or None  # the hand's justice budget (docs/api.md)


def case_bound_ms(table: tables.Table) -> int | None:
    """The documented bound on how long one case may keep the game paused, at this table.

    Here: none (a case's deadline restarts with every event). Re-wire to the justice
    branch's rule: the case limit from the opening, moved once per awaited voter, and the
    arbiter's own limit after (e.g. ``case_time_limit_ms * (voters + 2)``), as its docs
    state it."""
    return table.seat_count * table.case_time_limit_ms  # n·L (docs/api.md, "Justice")


# --- the options a coalition that creates the table picks --------------------------------


def worst_options() -> dict[str, int]:
    """The table options that help a cheater most, as far as ``tables.create`` allows: the
    most redeals and the longest case limit. Read from the domain's own caps, so a lowered
    cap is followed without an edit (re-wire only if the names change)."""
    return {
        "max_redeals": tables.MAX_REDEALS,
        "case_time_limit_ms": J.MAX_CASE_TIME_LIMIT_MS,
        "justice_budget_ms": J.MAX_JUSTICE_BUDGET_MS,
    }
