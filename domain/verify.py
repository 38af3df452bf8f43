"""Verification: the one place that replays a stored record through the table and the engine.

The published algorithms are in ``domain/table/deal.py`` (commitment, deck derivation) and
``domain/table/records.py`` (the keyed hash chain); docs/api.md, "Audit", specifies them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain import table as tables
from domain.table.deal import commitment
from domain.table.justice.decide import is_game_move
from domain.table.records import chain_hash, chain_key

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
    prepared_deal: str = ""  # "prepared deal: chosen by the table's creator (...)", or ""


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
    salt = revealed[-1].fact["data"].get("salt", "")
    if commitment(secret, salt, tuple(created["prepared_deck"])) != created["commitment"]:
        raise AuditFailure("the revealed secret does not match the published commitment")
    key = chain_key(secret)
    prev = ""
    for r in records:
        if chain_hash(key, prev, r.version, r.fact, r.cause) != r.hash:
            raise AuditFailure(f"chain hash mismatch at version {r.version}")
        prev = r.hash
    kind = created["kind"]
    facts = [tables.decode_event(kind, r.fact) for r in records]
    table, redecided = _replay(records, facts)
    outcome = table.outcome
    if outcome is None or not table.revealed:
        raise AuditFailure("the replayed game has not ended")
    marking = tables.prepared_marking(table.deal_source)
    return AuditReport(kind, len(records), redecided, outcome.winners, outcome.reason, marking)


def _replay(records: list[Record], facts: list[Any]) -> tuple[Any, int]:
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
            tables.last_move(table.kind, cause, (records[i].version, table.version), got, before)
            if is_game_move(cause)
            else None
        )
        i += len(expected)
        redecided += 1
    return table, redecided
