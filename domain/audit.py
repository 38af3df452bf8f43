"""Audit: the shuffle commitment, the deck derivation and the keyed hash chain.

All published algorithms (docs/api.md, "Audit"):

* The server draws a 256-bit ``secret`` per table and publishes ``commitment(secret,
  prepared_deck)`` in GameCreated, before any seat joins.
* Each seat may add a ``contribution`` when it joins (SeatTaken, public).
* ``shuffle_seed(secret, contributions)`` seeds Python's Mersenne Twister, whose
  ``shuffle`` (Fisher-Yates) orders the mode's deck (``domain.table.shuffle``). Neither the
  server (committed before the contributions) nor any seat (blind to the secret) can
  choose the deal.
* Every stored event carries ``chain_hash``: HMAC-SHA256 keyed by ``chain_key(secret)``
  over the previous hash, the version, the fact and its cause. Keyed, so a hash reveals
  nothing about a hidden fact while the game runs and can be shown to everyone; verifiable
  by anyone once the secret is revealed (ShuffleRevealed, at the end).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import Any


def canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def commitment(secret: str, prepared_deck: tuple[int, ...] = ()) -> str:
    body = f"tabletop-commit|{secret}|{','.join(map(str, prepared_deck))}"
    return hashlib.sha256(body.encode()).hexdigest()


def shuffle_seed(secret: str, contributions: tuple[str, ...]) -> int:
    body = "tabletop-shuffle|" + "|".join((secret, *contributions))
    return int(hashlib.sha256(body.encode()).hexdigest()[:16], 16)


def secret_from_seed(seed: int) -> str:
    """A reproducible secret for tables created with an explicit seed (tests, replays)."""
    return hashlib.sha256(f"tabletop-seed|{seed}".encode()).hexdigest()


def chain_key(secret: str) -> bytes:
    return hashlib.sha256(f"tabletop-chain|{secret}".encode()).digest()


def chain_hash(
    key: bytes, prev_hash: str, version: int, fact: dict[str, Any], cause: dict[str, Any] | None
) -> str:
    body = f"{prev_hash}|{version}|{canonical(fact)}|{canonical(cause)}"
    return hmac.new(key, body.encode(), hashlib.sha256).hexdigest()


# --- verification ------------------------------------------------------------------------


class AuditFailure(Exception):
    """The history does not verify; the message says where and why."""


@dataclass(frozen=True)
class Record:
    """One stored event as exported: its version, stored fact, cause and chain hash."""

    version: int
    fact: dict[str, Any]
    cause: dict[str, Any] | None
    hash: str


@dataclass(frozen=True)
class AuditReport:
    kind: str
    events: int
    moves_redecided: int
    winners: tuple[int, ...]
    reason: str


def verify(records: list[Record]) -> AuditReport:
    """Check a complete history: the chain, the commitment, the deck and every move.

    1. versions run 1..N; the first fact is GameCreated and the game revealed its secret;
    2. the secret matches the published commitment;
    3. every chain hash recomputes with the revealed key (an altered byte, a dropped or a
       reordered event breaks it);
    4. replaying re-decides every recorded command through the engine (the deal from the
       secret and the seats' contributions included) and must give exactly the recorded
       facts, ending in the recorded outcome.
    """
    try:
        return _verify(records)
    except AuditFailure:
        raise
    except Exception as exc:  # a malformed history fails loudly, never crashes the verifier
        raise AuditFailure(f"malformed history: {exc!r}") from exc


def _verify(records: list[Record]) -> AuditReport:
    from domain import table as tables  # late: table imports this module

    if not records:
        raise AuditFailure("empty history")
    for i, r in enumerate(records, start=1):
        if r.version != i:
            raise AuditFailure(f"event {i} has version {r.version}: events missing or reordered")
    first = records[0].fact
    if first.get("type") != "GameCreated":
        raise AuditFailure("the first event is not GameCreated")
    created = first["data"]
    revealed = [r for r in records if r.fact.get("type") == "ShuffleRevealed"]
    if not revealed:
        raise AuditFailure("the shuffle secret was not revealed: the game has not ended")
    secret = revealed[-1].fact["data"]["secret"]
    if secret != created["secret"]:
        raise AuditFailure("the revealed secret is not the one stored at creation")
    if commitment(secret, tuple(created["prepared_deck"])) != created["commitment"]:
        raise AuditFailure("the revealed secret does not match the published commitment")
    key = chain_key(secret)
    prev = ""
    for r in records:
        if chain_hash(key, prev, r.version, r.fact, r.cause) != r.hash:
            raise AuditFailure(f"chain hash mismatch at version {r.version}")
        prev = r.hash
    kind = created["kind"]
    facts = [tables.decode_event(kind, r.fact) for r in records]
    table, redecided = _replay(tables, records, facts)
    outcome = table.outcome
    if outcome is None or not table.revealed:
        raise AuditFailure("the replayed game has not ended")
    return AuditReport(kind, len(records), redecided, outcome.winners, outcome.reason)


def _replay(tables: Any, records: list[Record], facts: list[Any]) -> tuple[Any, int]:
    from domain.tribunal import LastMove, is_game_move

    table = tables.evolve(None, facts[0])
    i, redecided = 1, 0
    last_move = None
    while i < len(records):
        cause = records[i].cause
        if cause is None:
            raise AuditFailure(f"version {records[i].version} has no cause")
        try:
            expected = tables.redecide(table, cause, facts[i], last_move)
        except Exception as exc:  # a refused command is a forged history
            raise AuditFailure(
                f"version {records[i].version}: the engine refuses it: {exc}"
            ) from exc
        got = facts[i : i + len(expected)]
        if got != expected:
            raise AuditFailure(
                f"version {records[i].version}: recorded facts differ from the engine's"
            )
        before = table.game
        for fact in got:
            table = tables.evolve(table, fact)
        last_move = (
            LastMove(cause["seat"], records[i].version, table.version, tuple(got), before)
            if is_game_move(cause)
            else None
        )
        i += len(expected)
        redecided += 1
    return table, redecided
