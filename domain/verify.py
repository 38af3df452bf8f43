"""Verification: the one place that replays a stored record through the table and the engine.

The published algorithms are in ``domain/table/deal.py`` (commitment, deck derivation) and
``domain/table/records.py`` (the keyed hash chain); docs/api.md, "Audit", specifies them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain import match
from domain import table as tables
from domain.engine import DomainError
from domain.registry import rules_for
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
    return replayed(records)[0]


def replayed(records: list[Record]) -> tuple[AuditReport, tables.Table]:
    """``verify``, with the replayed table at the end (a match checks what follows from it)."""
    try:
        return _verify(records)
    except AuditFailure:
        raise
    except Exception as exc:  # a malformed history fails loudly, never crashes the verifier
        raise AuditFailure(f"malformed history: {exc!r}") from exc


def _verify(records: list[Record]) -> tuple[AuditReport, tables.Table]:
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
    table, redecided = _replay(records, facts)
    outcome = table.outcome
    if outcome is None or not table.revealed:
        raise AuditFailure("the replayed game has not ended")
    report = AuditReport(kind, len(records), redecided, outcome.winners, outcome.reason)
    return report, table


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


# --- matches -----------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchRecord:
    """One stored fact of a match as exported: its version, stored fact and chain hash."""

    version: int
    fact: dict[str, Any]
    hash: str


@dataclass(frozen=True)
class MatchReport:
    match_id: str
    kind: str
    hands: tuple[AuditReport, ...]
    standings: tuple[match.Standing, ...]
    winners: tuple[int, ...]


def verify_match(
    match_id: str, records: list[MatchRecord], hands: dict[str, list[Record]]
) -> MatchReport:
    """Check a whole match: its own record, each hand, the links, and the standings.

    1. the match's versions run 1..N and every chain hash recomputes (its key comes from
       the match id: the facts are public);
    2. every hand the match links is given and verifies on its own (``verify``), and names
       this match and its number in its GameCreated;
    3. every fact of the match is re-decided: the opening and the first hand's link, each
       seat's ready, each hand's end (its outcome and the hash of its last event, read
       from the hand's record), each standing that follows and the end of the match;
    4. each hand after the first opened exactly as the match's rule says: the same seats,
       tokens, arbiter and settings as the hand before, the options the game's dealer rule
       gives after it, the seats' ready contributions, and the table's own deal;
    5. the match has ended.
    """
    try:
        return _verify_match(match_id, records, hands)
    except AuditFailure:
        raise
    except Exception as exc:
        raise AuditFailure(f"malformed match record: {exc!r}") from exc


def _verify_match(
    match_id: str, records: list[MatchRecord], hands: dict[str, list[Record]]
) -> MatchReport:
    if not records:
        raise AuditFailure("empty match record")
    prev = ""
    for i, r in enumerate(records, start=1):
        if r.version != i:
            raise AuditFailure(f"match fact {i} has version {r.version}: missing or reordered")
        if match.fact_hash(match_id, prev, r.version, r.fact) != r.hash:
            raise AuditFailure(f"match chain hash mismatch at version {r.version}")
        prev = r.hash
    facts = [match.decode_fact(r.fact) for r in records]
    created = facts[0]
    if not isinstance(created, match.MatchCreated) or created.match_id != match_id:
        raise AuditFailure("the first match fact is not the MatchCreated of this match")
    rules = rules_for(created.kind)
    opening = match.create(
        rules, match_id, created.seat_count, created.hands, created.target_score, created.advance
    )
    if facts[: len(opening)] != opening:
        raise AuditFailure("the match's opening differs from the engine's")
    state = match.evolve(None, facts[0])
    finals: dict[int, tables.Table] = {}
    reports: list[AuditReport] = []
    i = 1
    while i < len(facts):
        expected = _redecide_match(state, facts[i], finals, hands, reports)
        if i + len(expected) > len(facts):
            raise AuditFailure("the match record stops in the middle: the match has not ended")
        if facts[i : i + len(expected)] != expected:
            raise AuditFailure(f"match version {i + 1}: recorded facts differ from the engine's")
        for fact in expected:
            state = match.evolve(state, fact)
        i += len(expected)
    if state.ended is None:
        raise AuditFailure("the match has not ended")
    return MatchReport(
        match_id, created.kind, tuple(reports), state.ended.standings, state.ended.winners
    )


def _redecide_match(
    state: match.Match,
    fact: Any,
    finals: dict[int, tables.Table],
    hands: dict[str, list[Record]],
    reports: list[AuditReport],
) -> list[Any]:
    """The facts the match's engine decides where the record has ``fact``."""
    try:
        if isinstance(fact, match.SeatReady):
            return match.ready(state, fact.seat, fact.contribution)
        if isinstance(fact, match.HandEnded):
            current = state.current
            if current is None or current.hand not in finals:
                raise AuditFailure(f"hand {fact.hand} ended before it was opened")
            head = hands[current.game_id][-1].hash
            return match.end_hand(state, finals[current.hand], head)
        if isinstance(fact, match.HandOpened):
            expected = match.open_hand(state) if state.hands else [fact]
            _check_hand(state, fact, finals, hands, reports)
            return expected
    except DomainError as exc:
        raise AuditFailure(f"the match's engine refuses {type(fact).__name__}: {exc}") from exc
    raise AuditFailure(f"a {type(fact).__name__} where a match fact was expected")


def _check_hand(
    state: match.Match,
    opened: match.HandOpened,
    finals: dict[int, tables.Table],
    hands: dict[str, list[Record]],
    reports: list[AuditReport],
) -> None:
    """The linked hand verifies alone and opened as the match's rule says."""
    n, game_id = opened.hand, opened.game_id
    records = hands.get(game_id)
    if not records:
        raise AuditFailure(f"hand {n} ({game_id}) is missing from the export")
    try:
        report, final = replayed(records)
    except AuditFailure as exc:
        raise AuditFailure(f"hand {n} ({game_id}): {exc}") from exc
    if final.match_id != state.match_id or final.hand != n:
        raise AuditFailure(f"hand {n} ({game_id}) does not name this match and number")
    if final.kind != state.kind or final.seat_count != state.seat_count:
        raise AuditFailure(f"hand {n} ({game_id}) is not a {state.kind} table of this match")
    if n > 1:
        secret = records[0].fact["data"]["secret"]
        moves = match.next_hand(state, finals[n - 1], secret)
        _same_opening(n, records, moves)
    finals[n] = final
    reports.append(report)


def _same_opening(n: int, records: list[Record], moves: list[match.decide.Move]) -> None:
    kind = records[0].fact["data"]["kind"]
    at = 0
    for cause, facts in moves:
        got = records[at : at + len(facts)]
        if got[0].cause != cause or [tables.decode_event(kind, r.fact) for r in got] != facts:
            raise AuditFailure(
                f"hand {n} did not open as the match says (seats, tokens, settings, the "
                f"dealer rule's options, the ready contributions) at its version {at + 1}"
            )
        at += len(facts)
