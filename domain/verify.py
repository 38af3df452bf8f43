"""Verification: the one place that replays a stored record through the table and the engine.

The published algorithms are in ``domain/table/deal.py`` (commitment, deck derivation) and
``domain/table/records.py`` (the keyed hash chain, the seals); docs/api.md, "Audit",
specifies them.

A verifier is an input parser fed by whoever holds a file, so everything here is bounded:
``parse_export`` reads either export form line by line with limits on line length, line
count, nesting and number size, and checks every field's type before it is used; ``verify``
advances by at least one event per step and stops at the first problem. Every input ends in
an ``AuditReport`` or in one ``AuditFailure`` whose message is one line naming the problem.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import re
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from domain import match
from domain import table as tables
from domain.engine import DomainError
from domain.logaudit import HeadsOutOfOrder, LogFailure, LogProofs, parse_log_line
from domain.match import records as match_records
from domain.registry import rules_for
from domain.table.deal import commitment
from domain.table.justice.decide import is_game_move
from domain.table.records import chain_hash, chain_key, key_id, seal_body

MAX_LINE = 1 << 20  # characters in one line of an export
MAX_EVENTS = 100_000  # lines of an export
MAX_DEPTH = 48  # nesting of JSON arrays and objects (genuine records stay under 15)
MAX_DIGITS = 20  # of a JSON integer (genuine ones fit in 64 bits)
MAKE_EXPORT = "make one after the game has ended with `tabletop-audit export GAME_ID -o game.jsonl`"
RECORD_KEYS = frozenset(("version", "fact", "cause", "hash", "seal", "recorded_at"))
SEAL_KEYS = frozenset(("game_id", "first", "last", "head", "receipts", "signature"))
# a seal of format 3 (``tabletop-seal/3``): the head alone, each viewer's receipt signed apart
SEAL_KEYS_HEAD = SEAL_KEYS - {"receipts"}
SEAL_KEY_ID = "key_id"  # optional beside SEAL_KEYS (seals stored before keys had ids lack it)
PublicKeys = bytes | Sequence[bytes]  # one raw Ed25519 public key, or several (a key set)
_HEX16 = re.compile(r"[0-9a-f]{16}")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_HEX128 = re.compile(r"[0-9a-f]{128}")
_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z")
# a GameEvent's recorded_at as protobuf JSON writes it: UTC, "Z", 0 to 9 decimals
_EVENT_TIME = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2})(?:\.([0-9]{1,9}))?Z"
)
_VERSION_TEXT = re.compile(r"[0-9]{1,20}")
_BLANK = (
    " \t\r\n"  # JSON's whitespace (RFC 8259): all a blank line holds, all a line is stripped of
)
# a `tabletop export` line's event: GameEvent's JSON fields (the stored form in stored_json)
EVENT_KEYS = frozenset(("version", "recorded_at", "hash", "stored_json"))
EVENT_OPTIONAL_KEYS = frozenset(("text", "table", "huaniao", "zipai"))
_TIME_LIKE = "2026-01-31T23:59:59.000000Z"


class AuditFailure(Exception):
    """The history does not verify; the message says where and why, in one line."""

    def __init__(self, message: str) -> None:
        super().__init__(_one_line(message))


@dataclass(frozen=True)
class Record:
    """One stored event as exported: version, stored fact, cause, the time it was recorded,
    chain hash, and on the last event of a move the move's seal."""

    version: int
    fact: dict[str, Any]
    cause: dict[str, Any] | None
    hash: str
    seal: dict[str, Any] | None = None
    recorded_at: str = ""  # records.timestamp_text


@dataclass(frozen=True)
class AuditReport:
    kind: str
    events: int
    moves_redecided: int
    winners: tuple[int, ...]
    reason: str
    game_id: str = ""
    seals: int = 0  # moves whose seal verified with the given key
    # which key signed which moves: (key id, first version, last version) for each run of
    # moves that one key signed, in order
    signed_with: tuple[tuple[str, int, int], ...] = ()
    prepared_deal: str = ""  # "prepared deal: chosen by the table's creator (...)", or ""
    redeals: tuple[str, ...] = ()  # who asked for each 重新洗牌发牌 ("arbiter", "seats")
    max_redeals: int | None = None  # the table's cap (None: a record from before the cap)
    # every report and appeal and how it closed ("report 12 UNRESOLVED", "appeal 20 UPHELD")
    cases: tuple[str, ...] = ()
    # the seats' entropy, where a deal did not take every seat's reveal: "seat 1 added no
    # entropy" (its own choice), "seat 2's entropy did not go in (withheld: a record made
    # before issue 35)" (a deal made without it: not a fair deal)
    entropy: tuple[str, ...] = ()
    # False when a deal went ahead without a seat's entropy (RevealWithheld, older records)
    every_seat_entropy: bool = True
    # a void game (DealAbandoned): the seats its draw waited for; None when it was dealt
    void: tuple[int, ...] | None = None
    # each seat's Ed25519 public key as it took the seat (hex; "" for an unkeyed seat)
    seat_keys: tuple[str, ...] = ()
    # every re-key (SeatRekeyed): (version, seat)
    rekeys: tuple[tuple[int, int], ...] = ()
    # the seats' commands whose signature verified (seat_keys' seats)
    signed_commands: int = 0
    # None: a table without an arbiter; else the arbiter's Ed25519 key (hex; "": unkeyed, its
    # rulings stand on the server's word) and its commands whose signature verified
    arbiter_key: str | None = None
    arbiter_commands: int = 0
    # a match's hand: its match and number, and what its HandClosed says follows it
    # ((last, next game id); None: not closed, a hand recorded before issue 36)
    match_id: str = ""
    hand: int = 0
    closed: tuple[bool, str] | None = None

    @property
    def hand_words(self) -> str:
        """A match's hand in one clause ("" for a single game): "hand N of match M (the
        last)" or "(hand N+1 follows: GAME)", as its own signed stream says."""
        if not self.match_id:
            return ""
        if self.closed is None:
            return (
                f"hand {self.hand} of match {self.match_id} (NOT closed: recorded before "
                "issue 36, its stream does not say whether it is the last)"
            )
        return tables.hand_closed_words(self.hand, self.match_id, *self.closed)

    @property
    def keyed_seats(self) -> tuple[int, ...]:
        return tuple(s for s, key in enumerate(self.seat_keys) if key)

    @property
    def unkeyed_seats(self) -> tuple[int, ...]:
        return tuple(s for s, key in enumerate(self.seat_keys) if not key)

    @property
    def seat_words(self) -> str:
        """The seats' signatures in one clause: which seats are keyed (their every command
        checked against their key), which are not (their commands stand on the server's word
        alone), and every re-key (the commands after it stand on a key the server accepted
        on the token's word), and whether the arbiter signs its rulings."""
        return seat_words(
            self.keyed_seats,
            self.unkeyed_seats,
            self.rekeys,
            self.signed_commands,
            self.arbiter_key,
            self.arbiter_commands,
        )

    @property
    def deal_words(self) -> str:
        """The deal in one clause: fair, void, or made without a seat's entropy."""
        if self.void is not None:
            seats = ", ".join(map(str, self.void))
            return f"void: no deal, waiting for seat(s) {seats}"
        if not self.every_seat_entropy:
            return "NOT a fair deal: " + "; ".join(self.entropy)
        extra = f" ({'; '.join(self.entropy)})" if self.entropy else ""
        return "every deal from every seat's entropy" + extra


def seat_words(
    keyed: Sequence[int],
    unkeyed: Sequence[int],
    rekeys: Sequence[tuple[int, int]],
    signed: int,
    arbiter_key: str | None = None,
    arbiter_signed: int = 0,
) -> str:
    """``AuditReport.seat_words`` (a match says it per hand)."""
    parts = []
    if keyed:
        parts.append(f"{_seats(keyed)} keyed: all {signed} of their commands signed by the seat")
    if unkeyed:
        whose = "its" if len(unkeyed) == 1 else "their"
        parts.append(
            f"{_seats(unkeyed)} UNKEYED: {whose} commands stand on the server's word alone"
        )
    for version, seat in rekeys:
        parts.append(
            f"seat {seat} RE-KEYED at version {version}: its later commands stand on a key the "
            "server accepted on the seat token's word"
        )
    if arbiter_key:
        parts.append(f"the arbiter keyed: all {arbiter_signed} of its commands signed by it")
    elif arbiter_key is not None:
        parts.append("the arbiter UNKEYED: its rulings stand on the server's word alone")
    return "seat signatures: " + ("; ".join(parts) if parts else "no seat taken")


def _seats(seats: Sequence[int]) -> str:
    return ("seat " if len(seats) == 1 else "seats ") + ", ".join(map(str, seats))


# --- reading an export ---------------------------------------------------------------------


def parse_export(lines: Iterable[str]) -> list[Record]:
    """Records from either export form: ``tabletop-audit export`` (one record per
    line) or ``tabletop export`` (``{"event": ...}`` lines, then one ``{"view": ...}``), read
    by the grammar docs/api.md gives ("The export grammar"): one form per file (its first
    line's), every line's keys exactly, versions 1..N in line order. A final log line is
    read by its grammar and left out (``parse_export_log`` returns it)."""
    try:
        return parse_export_log(lines)[0]
    except HeadsOutOfOrder as exc:  # a reader without the keys: the grammar's refusal
        raise AuditFailure(str(exc)) from None


def parse_export_log(lines: Iterable[str]) -> tuple[list[Record], LogProofs | None]:
    """``parse_export``'s records, and the export's log line (``tabletop-audit export --log``:
    the last line, ``{"log": ...}``; docs/api.md, "Transparency log") if it has one."""
    records: list[Record] = []
    form, viewed = "", False
    logged: LogProofs | None = None
    for n, line in enumerate(lines, start=1):
        if n > MAX_EVENTS + 1:
            raise AuditFailure(f"more than {MAX_EVENTS} lines: not an export of one game")
        if len(line) > MAX_LINE:
            raise AuditFailure(f"line {n} is longer than {MAX_LINE} characters")
        text = line.strip(_BLANK)
        if not text:
            continue
        data = _load(text, f"line {n}")
        if not isinstance(data, dict):
            raise AuditFailure(f"line {n} is not a JSON object; {MAKE_EXPORT}")
        if logged is not None:
            raise AuditFailure(f"line {n} follows the log line, which ends an export")
        if "log" in data:
            if form == "events":
                raise AuditFailure(
                    f"line {n}: a `tabletop export` (event and view lines) has no log line"
                )
            if not form:
                raise AuditFailure(f"line {n}: the log line ends the file, after the record")
            try:
                logged = parse_log_line(data, f"line {n}")
            except HeadsOutOfOrder:
                raise  # perhaps a proof of a forked log: the verifier holds it against its keys
            except LogFailure as exc:
                raise AuditFailure(str(exc)) from None
            continue
        this = "events" if "event" in data or "view" in data else "stored"
        if form and this != form:
            raise AuditFailure(f"line {n} is in another export form than line 1: one form a file")
        form = this
        if viewed:
            raise AuditFailure(f"line {n} follows the view line, which ends a `tabletop export`")
        record = _record(data, n)
        if record is None:
            viewed = True
            continue
        if record.version != len(records) + 1:
            raise AuditFailure(
                f"line {n} has version {record.version}: versions must run 1..N in line order"
            )
        records.append(record)
    return records, logged


def load_line(text: str, where: str) -> Any:
    """One line of an export (at most MAX_LINE characters) as JSON, read as ``parse_export``
    reads every line: bounded nesting and integers, no floats, no repeated keys; anything
    else is one AuditFailure naming ``where``. The auditor sniffs a file's form with it."""
    return _load(text, where)


def strict_json(text: str) -> Any:
    """JSON as the verifier reads it (an export line, a key set): no floats, no repeated
    keys, bounded integers and nesting; ValueError (or RecursionError) otherwise."""
    data = _json(text)
    if _depth(data) > MAX_DEPTH:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    return data


def _json(text: str) -> Any:
    return json.loads(
        text,
        parse_int=_int,
        parse_float=_no_float,
        parse_constant=_no_float,
        object_pairs_hook=_no_repeats,
    )


def _load(text: str, where: str) -> Any:
    try:
        data = _json(text)
    except RecursionError:
        raise AuditFailure(f"{where} is nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, and the hooks' refusals
        raise AuditFailure(
            f"{where} is not a valid export line (not valid JSON: {exc}); {MAKE_EXPORT}"
        ) from None
    if _depth(data) > MAX_DEPTH:
        raise AuditFailure(f"{where} is nested deeper than {MAX_DEPTH} levels")
    return data


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose keys repeat means two things to two readers (most keep the last):
    refused. Otherwise the layout does not matter: the chain hashes the canonical form of
    what was read, so a re-formatted export verifies and an altered one fails on its hash."""
    data = dict(pairs)
    if len(data) != len(pairs):
        raise ValueError("a key repeats in an object")
    return data


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"an integer of {len(text)} digits")
    return int(text)


def _no_float(text: str) -> Any:
    raise ValueError(f"the number {text[:20]} is not an integer")


def _depth(data: Any) -> int:
    """Nesting depth, without recursion (the input decides how deep it is)."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            deepest = max(deepest, depth)
            if depth > MAX_DEPTH:
                return depth
            items = value.values() if isinstance(value, dict) else value
            stack.extend((v, depth + 1) for v in items)
    return deepest


def _record(data: dict[str, Any], n: int) -> Record | None:
    if "event" in data or "view" in data:  # `tabletop export`
        if len(data) != 1:
            raise AuditFailure(f"line {n} holds more than its event or its view")
        if "event" in data:
            return _from_event(data["event"], n)
        if not isinstance(data["view"], dict):
            raise AuditFailure(f"line {n}: `view` is not an object")
        return None  # `tabletop export` ends with the final view
    if "redacted" in data:
        raise AuditFailure(
            f"line {n} is a redacted event (exported while the game was running): it cannot "
            f"be verified; {MAKE_EXPORT}"
        )
    if set(data) != RECORD_KEYS:
        raise AuditFailure(
            f"line {n} is not a stored event {{{', '.join(sorted(RECORD_KEYS))}}}; {MAKE_EXPORT}"
        )
    return _checked(data, n)


def _from_event(event: Any, n: int) -> Record:
    """A ``tabletop export`` line: the GameEvent as JSON, its stored form in stored_json."""
    if not isinstance(event, dict):
        raise AuditFailure(f"line {n}: `event` is not an object")
    if not set(event) <= EVENT_KEYS | EVENT_OPTIONAL_KEYS:
        extra = ", ".join(sorted(set(event) - EVENT_KEYS - EVENT_OPTIONAL_KEYS))[:80]
        raise AuditFailure(f"line {n}: the event holds keys a GameEvent has not ({extra})")
    stored = event.get("stored_json")
    if not stored:
        raise AuditFailure(
            f"line {n}: this `tabletop export` was made while the game was running, so its "
            f"events are redacted and cannot be verified; {MAKE_EXPORT}"
        )
    if not isinstance(stored, str) or len(stored) > MAX_LINE:
        raise AuditFailure(f"line {n}: stored_json is not a string of at most {MAX_LINE}")
    inner = _load(stored, f"line {n} stored_json")
    if not isinstance(inner, dict) or set(inner) != {"fact", "cause", "seal"}:
        raise AuditFailure(f"line {n}: stored_json is not a stored event")
    version = event.get("version")
    if not isinstance(version, str) or not _VERSION_TEXT.fullmatch(version):
        raise AuditFailure(f"line {n}: the event's version is not a number of ASCII digits")
    data = {
        **inner,
        "version": int(version),
        "hash": event.get("hash"),
        "recorded_at": _time(event.get("recorded_at"), n),
    }
    return _checked(data, n)


def _time(value: Any, n: int) -> str:
    """A GameEvent's recorded_at as protobuf JSON writes it (UTC, "Z", 0-9 decimals), in
    the chained form (six decimals)."""
    found = _EVENT_TIME.fullmatch(value) if isinstance(value, str) else None
    if not found or not _real_time(found.group(1)):
        raise AuditFailure(f"line {n}: recorded_at is not a timestamp like {_TIME_LIKE}")
    return f"{found.group(1)}.{(found.group(2) or '').ljust(9, '0')[:6]}Z"


def _real_time(text: str) -> bool:
    """Whether ``YYYY-MM-DDTHH:MM:SS`` (ASCII digits) names a real instant."""
    try:
        datetime.strptime(text, "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return False
    return True


def _checked(data: dict[str, Any], n: int) -> Record:
    """A Record once every field has the type verification relies on."""
    version, fact, cause, digest = data["version"], data["fact"], data["cause"], data["hash"]
    seal, recorded_at = data["seal"], data["recorded_at"]
    if type(version) is not int or not 1 <= version <= MAX_EVENTS:
        raise AuditFailure(f"line {n}: version is not a number from 1 to {MAX_EVENTS}")
    if not (
        isinstance(fact, dict)
        and set(fact) == {"type", "data"}
        and isinstance(fact["type"], str)
        and isinstance(fact["data"], dict)
    ):
        raise AuditFailure(f"line {n}: fact is not a {{type, data}} object")
    if cause is not None and not (isinstance(cause, dict) and isinstance(cause.get("action"), str)):
        raise AuditFailure(f"line {n}: cause is neither null nor an object with an action")
    if not isinstance(digest, str) or not _HEX64.fullmatch(digest):
        raise AuditFailure(f"line {n}: hash is not 64 lowercase hex digits")
    if seal is not None and not (
        isinstance(seal, dict) and set(seal) - {SEAL_KEY_ID} in (SEAL_KEYS, SEAL_KEYS_HEAD)
    ):
        raise AuditFailure(
            f"line {n}: seal is neither null nor a seal {{{', '.join(sorted(SEAL_KEYS))}"
            f"[, {SEAL_KEY_ID}]}}"
        )
    if (
        not isinstance(recorded_at, str)
        or not _TIME.fullmatch(recorded_at)
        or not _real_time(recorded_at[:19])
    ):
        raise AuditFailure(f"line {n}: recorded_at is not a timestamp like {_TIME_LIKE}")
    return Record(version, fact, cause, digest, seal, recorded_at)


# --- verification --------------------------------------------------------------------------


def verify(
    records: list[Record],
    public_key: PublicKeys,
    game_id: str | None = None,
    *,
    command_reader: CommandReader | None = None,
) -> AuditReport:
    """Check a complete history against the server's public key (from outside the file):

    1. versions run 1..N; the first fact is GameCreated and the game revealed its secret;
    2. the secret matches the published commitment;
    3. every chain hash recomputes with the revealed key (an altered byte, a dropped or a
       reordered event breaks it);
    4. every move (the events one command appended) ends in a seal signed with
       ``public_key`` (or, given several, the one its ``key_id`` names) over the game id (``game_id`` if given), the move's versions, the chain
       head and the receipt hashes: a history re-keyed or re-played by anyone without the
       server's key fails here, and so does another game's record;
    5. every command in a keyed seat's name carries the seat's signature, by its key at that
       point of the record, over a command for this game, of the method that fits the cause,
       made at an earlier version whose chain hash it names, whose request is the command
       recorded (``command_reader``, server/wire/signedcommands.py, decodes the signed
       protobuf bytes: without it a record with a keyed seat fails);
    6. replaying re-decides every recorded command through the engine (the deal from the
       secret and the seats' contributions included) and must give exactly the recorded
       facts, ending in the recorded outcome, with nothing after the end.
    """
    return replayed(records, public_key, game_id, command_reader=command_reader)[0]


def replayed(
    records: list[Record],
    public_key: PublicKeys,
    game_id: str | None = None,
    *,
    command_reader: CommandReader | None = None,
) -> tuple[AuditReport, tables.Table]:
    """``verify``, with the replayed table at the end (a match checks what follows from it)."""
    try:
        return _verify(records, public_key, game_id, command_reader)
    except AuditFailure:
        raise
    except Exception as exc:  # a malformed history fails with a reason, never a traceback
        raise AuditFailure(f"malformed history: {type(exc).__name__}: {exc}") from exc


def _verify(
    records: list[Record],
    public_key: PublicKeys,
    game_id: str | None,
    command_reader: CommandReader | None,
) -> tuple[AuditReport, tables.Table]:
    if not records:
        raise AuditFailure("empty history")
    for i, r in enumerate(records, start=1):
        if r.version != i:
            raise AuditFailure(f"event {i} has version {r.version}: events missing or reordered")
    first = records[0].fact
    if first["type"] != "GameCreated":
        raise AuditFailure("the first event is not GameCreated")
    created = first["data"]
    revealed = [r for r in records if r.fact["type"] == "ShuffleRevealed"]
    if not revealed:
        raise AuditFailure("the shuffle secret was not revealed: the game has not ended")
    secret = revealed[-1].fact["data"]["secret"]
    if not isinstance(secret, str) or secret != created["secret"]:
        raise AuditFailure("the revealed secret is not the one stored at creation")
    salt = revealed[-1].fact["data"].get("salt", "")
    if not isinstance(salt, str) or salt != created.get("salt", ""):
        raise AuditFailure("the revealed salt is not the one stored at creation")
    if commitment(secret, salt, tuple(created["prepared_deck"])) != created["commitment"]:
        raise AuditFailure("the revealed secret does not match the published commitment")
    if created.get("arbiter_token_hash"):
        raise AuditFailure("GameCreated carries a token hash: token hashes never leave a server")
    key = chain_key(secret, salt)
    prev = ""
    for r in records:
        if chain_hash(key, prev, r.version, r.fact, r.cause, r.recorded_at) != r.hash:
            raise AuditFailure(f"chain hash mismatch at version {r.version}")
        prev = r.hash
    named, signers = _check_seals(records, public_key, game_id, created["seat_count"])
    kind = created["kind"]
    seats = check_seat_signatures(records, named, command_reader)
    facts = [tables.decode_event(kind, r.fact) for r in records]
    table, redecided = _replay(records, facts)
    outcome = table.outcome
    if outcome is None or not table.revealed:
        raise AuditFailure("the replayed game has not ended")
    report = AuditReport(
        kind,
        len(records),
        redecided,
        outcome.winners,
        outcome.reason,
        game_id=named,
        seals=len(moves(records)),
        signed_with=signers,
        prepared_deal=tables.prepared_marking(table.deal_source),
        redeals=table.redeals_requested_by,
        max_redeals=table.max_redeals,
        cases=tuple(f"{c.kind.name.lower()} {c.id} {c.status.name}" for c in table.justice.cases),
        entropy=entropy_lines(facts),
        every_seat_entropy=not any(isinstance(f, tables.RevealWithheld) for f in facts),
        void=table.abandoned,
        seat_keys=tuple(seats.taken.get(s, "") for s in range(table.seat_count)),
        rekeys=seats.rekeys,
        signed_commands=seats.signed,
        arbiter_key=table.arbiter_public_key if table.arbitrated else None,
        arbiter_commands=seats.arbiter_signed,
        match_id=table.match_id,
        hand=table.hand,
        closed=table.closed,
    )
    return report, table


def entropy_lines(facts: list[Any]) -> tuple[str, ...]:
    """What each draw took of the seats' entropy, where not every seat's reveal: the seats
    that committed to nothing (an explicit choice) and, in records made before issue 35,
    the seats whose entropy did not go in (RevealWithheld)."""
    lines: list[str] = []
    draw = ""
    seated_first = False  # a match's later hand: its seats commit after (SeatCommitted)
    for fact in facts:
        if isinstance(fact, tables.RedealOpened):
            draw = f" to 重新洗牌发牌 {fact.round}"
        elif isinstance(fact, tables.GameCreated):
            seated_first = fact.hand >= 2
        if isinstance(fact, tables.SeatTaken) and seated_first:
            continue
        if isinstance(fact, tables.SeatTaken) and not (fact.commitment or fact.contribution):
            lines.append(f"seat {fact.seat} added no entropy")
        elif isinstance(fact, tables.SeatCommitted) and not fact.commitment:
            lines.append(f"seat {fact.seat} added no entropy{draw}")
        elif isinstance(fact, tables.RevealWithheld):
            lines.append(
                f"seat {fact.seat}'s entropy did not go in{draw} (withheld: a record made "
                "before issue 35)"
            )
    return tuple(lines)


def moves(records: list[Record]) -> list[tuple[int, int]]:
    """The (first, last) versions of each move: a move starts at a recorded cause (the
    creation at version 1) and runs up to the next one."""
    starts = [r.version for r in records if r.cause is not None or r.version == 1]
    ends = [s - 1 for s in starts[1:]] + [records[-1].version]
    return list(zip(starts, ends, strict=True))


def key_ring(public_key: PublicKeys) -> dict[str, Ed25519PublicKey]:
    """The given public keys by key id (``records.key_id``)."""
    given = [public_key] if isinstance(public_key, bytes) else list(public_key)
    ring = {}
    for raw in given:
        try:
            ring[key_id(raw)] = Ed25519PublicKey.from_public_bytes(raw)
        except ValueError:
            raise AuditFailure("the public key is not a 32-byte Ed25519 key") from None
    if not ring:
        raise AuditFailure("no public key given")
    return ring


def signed_by(
    ring: dict[str, Ed25519PublicKey], named: Any, signature: bytes, body: bytes
) -> str | None:
    """The id of the key that made ``signature`` over ``body``: the key ``named`` (a key id),
    or, where a seal names none (stored before keys had ids), any given key that verifies."""
    if named:
        candidates = [named] if named in ring else []
    else:
        candidates = list(ring)
    for kid in candidates:
        try:
            ring[kid].verify(signature, body)
            return kid
        except InvalidSignature:
            continue
    return None


def _is_int(value: Any, expected: int) -> bool:
    """``value`` is the JSON integer ``expected``: not ``true`` for 1 (Python's bool is an int,
    JavaScript's is not, and the two verifiers must refuse the same files)."""
    return type(value) is int and value == expected


def _check_seals(
    records: list[Record], public_key: PublicKeys, game_id: str | None, seat_count: Any
) -> tuple[str, tuple[tuple[str, int, int], ...]]:
    """Every move's seal: on its last event only, naming this game, the move's versions and
    the head, with the receipts of every viewer, signed with one of the given keys (the one
    its ``key_id`` names). Returns the game id the seals name, and which key signed which
    moves (``AuditReport.signed_with``)."""
    ring = key_ring(public_key)
    if type(seat_count) is not int or not 0 < seat_count <= 16:
        raise AuditFailure("GameCreated has no valid seat_count")
    bounds = moves(records)
    ends = {last for _, last in bounds}
    for r in records:
        if r.seal is not None and r.version not in ends:
            raise AuditFailure(f"version {r.version} carries a seal but does not end a move")
    named = game_id
    runs: list[tuple[str, int, int]] = []
    for first, last in bounds:
        seal = records[last - 1].seal
        if seal is None:
            raise AuditFailure(f"the move at versions {first}..{last} is not signed (no seal)")
        where = f"the seal of versions {first}..{last}"
        if set(seal) - {SEAL_KEY_ID} not in (SEAL_KEYS, SEAL_KEYS_HEAD):
            raise AuditFailure(f"{where} is not a seal")
        if named is None:
            named = seal["game_id"]
        if not isinstance(seal["game_id"], str) or seal["game_id"] != named:
            raise AuditFailure(
                f"{where} names game {_short(seal['game_id'])}, not {_short(named)}: this "
                "record is not that game's"
            )
        if not (_is_int(seal["first"], first) and _is_int(seal["last"], last)):
            raise AuditFailure(f"{where} covers other versions: the moves were re-cut")
        if seal["head"] != records[last - 1].hash:
            raise AuditFailure(
                f"{where} signs another chain head than the record's: the record was "
                "rewritten after the server signed it"
            )
        receipts = seal.get("receipts")  # None: a seal of format 3 (the head alone)
        if receipts is not None and not _viewer_hashes(receipts, seat_count):
            raise AuditFailure(f"{where} does not list every viewer's receipt hashes")
        signature = seal["signature"]
        if not isinstance(signature, str) or not _HEX128.fullmatch(signature):
            raise AuditFailure(f"{where} has no 64-byte signature")
        kid = seal.get(SEAL_KEY_ID, "")
        if not isinstance(kid, str) or (kid and not _HEX16.fullmatch(kid)):
            raise AuditFailure(f"{where} has a key_id that is not 16 hex digits")
        if kid and kid not in ring:
            raise AuditFailure(
                f"{where} is not signed by the given server key: it names key {kid}, not "
                f"among the given keys ({', '.join(ring)}); give that key too"
            )
        body = seal_body(named, first, last, seal["head"], receipts)
        signer = signed_by(ring, kid, bytes.fromhex(signature), body)
        if signer is None:
            raise AuditFailure(
                f"{where} is not signed by the given server key: the record was forged or "
                "re-signed, or the key is another server's"
            )
        if runs and runs[-1][0] == signer:
            runs[-1] = (signer, runs[-1][1], last)
        else:
            runs.append((signer, first, last))
    assert named is not None
    return named, tuple(runs)


def _viewer_hashes(receipts: Any, seat_count: int) -> bool:
    """A seal's receipt hashes: per viewer ``[events]`` (``tabletop-seal/2``), or ``[events,
    view]`` in a seal made before views were signed on demand, every viewer alike."""
    return (
        isinstance(receipts, list)
        and len(receipts) == seat_count + 2
        and all(isinstance(hashes, list) for hashes in receipts)
        and len({len(hashes) for hashes in receipts}) == 1
        and len(receipts[0]) in (1, 2)
        and all(isinstance(h, str) and _HEX64.fullmatch(h) for hs in receipts for h in hs)
    )


# --- seat signatures (docs/api.md, "Seat signatures") --------------------------------------

SEAT_COMMAND_PREFIX = b"tabletop-seat-command/1\n"
# the methods whose command a cause's action records (ReadyNextHand commits into its hand)
SEAT_METHODS = {
    "join": ("JoinGame",),
    "play": ("Play",),
    "commit": ("CommitContribution", "ReadyNextHand"),
    "reveal": ("RevealContribution",),
    "start": ("StartGame",),
    "rekey": ("RekeySeat",),
}
# the fact a seat's input move starts with, which names the seat
_INPUT_FACTS = {
    "join": "SeatTaken",
    "commit": "SeatCommitted",
    "reveal": "ContributionRevealed",
    "rekey": "SeatRekeyed",
}


@dataclass(frozen=True)
class SignedCommand:
    """A seat's signed command as a ``CommandReader`` decodes its protobuf bytes.

    ``request`` is the request's content the record must match, by method: ``Play``:
    ``game_id``, ``expected_version``, ``command`` (the move as a domain command, None when
    the request has none), ``request_id``; ``JoinGame``: ``game_id``, ``seat``,
    ``player_name``, ``contribution``, ``commitment``, ``public_key`` (hex), ``request_id``;
    ``CommitContribution``: ``game_id``, ``commitment``; ``ReadyNextHand``: ``game_id``,
    ``commitment``, ``contribution``; ``RevealContribution``: ``game_id``, ``contribution``;
    ``StartGame``: ``game_id``, ``request_id``; ``RekeySeat``: ``game_id``, ``public_key``
    (hex)."""

    game_id: str
    method: str
    expected_version: int
    head_hash: str
    request: Mapping[str, Any]


# (SignedCommand bytes, the game's kind) -> the command; raises for bytes that do not decode.
# The domain knows no protobuf: server/wire/signedcommands.py ``read_signed_command`` is one.
CommandReader = Callable[[bytes, str], SignedCommand]


@dataclass
class SeatSignatures:
    """What the seat-signature check found: each seat's key as it took the seat (hex, ""
    unkeyed), every re-key (version, seat), and the commands whose signature verified."""

    taken: dict[int, str] = dataclasses.field(default_factory=dict)
    rekeys: tuple[tuple[int, int], ...] = ()
    signed: int = 0
    arbiter_signed: int = 0  # the arbiter's commands whose signature verified


def check_seat_signatures(
    records: list[Record], game_id: str, command_reader: CommandReader | None
) -> SeatSignatures:
    """Every cause in a keyed seat's name carries that seat's signature (its key as the
    record stands at that point: from SeatTaken, replaced by SeatRekeyed), over a command
    that is this one (``_check_signed``). A seat that joined without a key is reported, its
    commands unchecked; the seats of a match's later hand are seated by the match (its
    opening, which ``verify_match`` re-decides from the hand before), not by a JoinGame.
    At a table with an arbiter key, every ruling and a signed start in nobody's name carry
    the arbiter's signature, checked the same way."""
    created = records[0].fact["data"]
    kind, later_hand = created["kind"], created.get("hand", 0) >= 2
    arbiter_key = _hex_key(created, records[0], "arbiter_public_key")
    found = SeatSignatures()
    keys: dict[int, str] = {}  # each seat's key now
    rekeys: list[tuple[int, int]] = []
    used: dict[bytes, int] = {}  # signed command -> the version it caused
    for r in records:
        cause = r.cause
        if cause is not None and r.version > 1 and not (later_hand and cause["action"] == "join"):
            seat = _named_seat(r, kind)
            key = _signing_key(r, seat, keys)
            if key and seat is not None:
                _check_signed(records, r, seat, key, game_id, kind, command_reader, used)
                found.signed += 1
            elif arbiter_key and seat is None and _by_arbiter(r, kind):
                _check_signed(records, r, None, arbiter_key, game_id, kind, command_reader, used)
                found.arbiter_signed += 1
        fact_type, data = r.fact["type"], r.fact["data"]
        if fact_type == "SeatTaken":
            keys[data["seat"]] = found.taken[data["seat"]] = _hex_key(data, r, "public_key")
        elif fact_type == "SeatRekeyed":
            keys[data["seat"]] = _hex_key(data, r, "public_key")
            rekeys.append((r.version, data["seat"]))
    found.rekeys = tuple(rekeys)
    return found


def _named_seat(r: Record, kind: str) -> int | None:
    """The seat a cause is in the name of: a play's sender (none for the arbiter's rulings),
    the seat its input fact names, a start's seat (a keyed seat's StartGame), none for the
    server's own (the creation, a timeout, an abandoned draw). The cause's ``seat`` must
    say the same: the engine re-decides a play with no seat, or a join, from the command."""
    assert r.cause is not None
    action, seat = r.cause["action"], r.cause.get("seat")
    if action == "play":
        command = tables.command_of(kind, r.cause)
        sender = None if isinstance(command, tables.ARBITER_COMMANDS) else command.seat
        if sender != seat:
            raise AuditFailure(
                f"version {r.version}: the cause names seat {seat} for a command of seat {sender}"
            )
        return sender
    if action in _INPUT_FACTS:
        data = r.fact["data"]
        if r.fact["type"] != _INPUT_FACTS[action] or data.get("seat") != seat:
            raise AuditFailure(
                f"version {r.version}: the cause ({action} of seat {seat}) is not what its "
                f"fact ({r.fact['type']}) records"
            )
        return seat
    if action == "start" and seat is not None:
        if type(seat) is not int:
            raise AuditFailure(f"version {r.version}: the start names no seat")
        return seat
    return None


def _by_arbiter(r: Record, kind: str) -> bool:
    """Whether the cause (in no seat's name) is the arbiter's: a ruling, or a start that
    carries a signature (a start sent by the server's own timer, or by an unkeyed seat,
    carries none)."""
    assert r.cause is not None
    action = r.cause["action"]
    if action == "play":
        return isinstance(tables.command_of(kind, r.cause), tables.ARBITER_COMMANDS)
    return action == "start" and "signed" in r.cause


def _signing_key(r: Record, seat: int | None, keys: Mapping[int, str]) -> str:
    """The key ``seat``'s command at ``r`` must be signed with ("" for no seat or an unkeyed
    one): a join's and a re-key's the key they record (the device proves it holds it), every
    other command's the seat's key at that point."""
    if seat is None:
        return ""
    assert r.cause is not None
    if r.cause["action"] in ("join", "rekey"):
        return _hex_key(r.fact["data"], r, "public_key")
    return keys.get(seat, "")


def _hex_key(data: Mapping[str, Any], r: Record, name: str) -> str:
    key = data.get(name, "")
    if not isinstance(key, str) or (key and not _HEX64.fullmatch(key)):
        raise AuditFailure(f"version {r.version}: {r.fact['type']}.{name} is not a key in hex")
    return key


def _check_signed(
    records: list[Record],
    r: Record,
    seat: int | None,
    key: str,
    game_id: str,
    kind: str,
    command_reader: CommandReader | None,
    used: dict[bytes, int],
) -> None:
    """The seat's signature on the cause at ``r`` (docs/api.md, "What is recorded"): with
    ``key``, over "tabletop-seat-command/1\\n" + the SignedCommand bytes; the command names
    this game, a method that fits the cause, an earlier version and its chain hash, and its
    request is the command recorded. A signed command causes one move only. ``seat`` None:
    the arbiter's command, signed by the arbiter's key."""
    assert r.cause is not None
    action = r.cause["action"]
    who = "the arbiter" if seat is None else f"seat {seat}"
    where = f"version {r.version}: {who}'s {action}"
    if command_reader is None:
        raise AuditFailure(
            f"{where}: {who} is keyed, and checking its signed commands needs the command "
            "reader (server/wire/signedcommands.py read_signed_command); none was given"
        )
    command, signature = _signature_of(r.cause.get("signed"), where, who)
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(key)).verify(
            signature, SEAT_COMMAND_PREFIX + command
        )
    except (InvalidSignature, ValueError):
        raise AuditFailure(
            f"{where} is not signed by {who}'s key {key[:16]}…: a command {who} did not sign"
        ) from None
    try:
        signed = command_reader(command, kind)
    except Exception as exc:  # the reader refuses bytes that are no SignedCommand
        raise AuditFailure(f"{where}: its signed command does not decode ({exc})") from None
    if not _same_game(signed.game_id, game_id):
        raise AuditFailure(f"{where} was signed for game {_short(signed.game_id)}, not this one")
    if signed.method not in SEAT_METHODS[action]:
        raise AuditFailure(
            f"{where} was signed as a {_short(signed.method)}, not a "
            f"{' or '.join(SEAT_METHODS[action])}"
        )
    _check_signed_version(records, r, signed, where)
    wrong = _request_differs(signed, r, seat, game_id, kind)
    if wrong:
        raise AuditFailure(f"{where}: the signed request {wrong}")
    if command in used:
        raise AuditFailure(
            f"{where} carries the signed command of version {used[command]} again: one signed "
            "command causes one move"
        )
    used[command] = r.version


def _signature_of(signed: Any, where: str, who: str = "the seat") -> tuple[bytes, bytes]:
    """The cause's ``signed``: the SignedCommand bytes and the 64-byte signature."""
    if signed is None:
        if who == "the arbiter":
            raise AuditFailure(
                f"{where} carries no arbiter signature: a ruling the keyed arbiter did not sign"
            )
        raise AuditFailure(
            f"{where} carries no seat signature: a command in a keyed seat's name that the seat "
            "did not sign"
        )
    if not (
        isinstance(signed, dict)
        and set(signed) == {"command", "signature"}
        and all(isinstance(v, str) for v in signed.values())
    ):
        raise AuditFailure(f"{where}: its seat signature is not {{command, signature}} in base64")
    try:
        command = base64.b64decode(signed["command"], validate=True)
        signature = base64.b64decode(signed["signature"], validate=True)
    except (binascii.Error, ValueError):
        raise AuditFailure(f"{where}: its seat signature is not base64") from None
    if len(signature) != 64:
        raise AuditFailure(f"{where}: its seat signature is not 64 bytes")
    return command, signature


def _check_signed_version(
    records: list[Record], r: Record, signed: SignedCommand, where: str
) -> None:
    """The command was made at a version before the move, and names that version's chain
    hash (required on a Play): it cannot be moved to another version of the record."""
    seen = signed.expected_version
    if type(seen) is not int or not 0 <= seen < r.version:
        raise AuditFailure(
            f"{where} was signed at version {_short(seen)}, not before the move (version "
            f"{r.version})"
        )
    if not signed.head_hash:
        if signed.method == "Play":
            raise AuditFailure(f"{where}: its signed Play names no head hash")
        return
    if seen == 0 or signed.head_hash != records[seen - 1].hash:
        raise AuditFailure(
            f"{where}: its signed head hash is not the record's chain hash at version {seen}"
        )


def _request_differs(
    signed: SignedCommand, r: Record, seat: int | None, game_id: str, kind: str
) -> str | None:
    """What in the signed request is not the command recorded at ``r`` (None: it is)."""
    request, data = signed.request, r.fact["data"]
    if not _same_game(request.get("game_id", ""), game_id):
        return f"names game {_short(request.get('game_id'))}"
    method = signed.method
    if method == "Play":
        assert r.cause is not None
        move = request.get("command")
        is_command = dataclasses.is_dataclass(move) and not isinstance(move, type)
        if is_command and seat is not None and getattr(move, "seat", None) == 0:
            move = dataclasses.replace(move, seat=seat)  # type: ignore[type-var]  # as with_seat
        if move != tables.command_of(kind, r.cause):
            return "is another move than the one recorded"
        if request.get("expected_version") != signed.expected_version:
            return "has another expected_version than its signed command"
        if request.get("request_id", "") != r.cause.get("request_id", ""):
            return "has another request_id than the one recorded"
        return None
    same = {
        "JoinGame": ("seat", "player_name", "contribution", "commitment", "public_key"),
        "CommitContribution": ("commitment",),
        "ReadyNextHand": ("commitment",),
        "RevealContribution": ("contribution",),
        "RekeySeat": ("public_key",),
        "StartGame": (),
    }[method]
    for name in same:
        if request.get(name, "") != data.get(name, ""):
            return f"has another {name} than the one recorded"
    if method == "ReadyNextHand" and request.get("contribution"):
        return "sends a contribution (refused for every hand)"
    return None


def _same_game(a: Any, b: str) -> bool:
    """Two game ids alike, in any form a UUID is written in."""
    try:
        return uuid.UUID(str(a)) == uuid.UUID(b)
    except ValueError:
        return a == b


def _replay(records: list[Record], facts: list[Any]) -> tuple[Any, int]:
    table = tables.evolve(None, facts[0])
    times = _Times(records)
    i, redecided = 1, 0
    last_move = None
    while i < len(records):
        version = records[i].version
        cause = records[i].cause
        if table.closed is not None:
            raise AuditFailure(
                f"version {version} comes after the hand's HandClosed, its last fact"
            )
        closing = isinstance(cause, dict) and cause.get("action") == "close"
        if table.phase is tables.Phase.FINISHED and not closing:
            raise AuditFailure(f"version {version} comes after the end of the game")
        if cause is None:
            raise AuditFailure(f"version {version} has no cause")
        if cause.get("reveals_closed"):
            _check_reveals_closed(table, records[i - 1], records[i])
        if cause.get("action") == "abandon":
            _check_abandoned(table, records, records[i])
        _check_case_clock(table, cause, times, records[i])
        end = i + 1
        while end < len(records) and records[end].cause is None:
            end += 1
        try:
            expected = tables.redecide(table, cause, facts[i], last_move, tuple(facts[i:end]))
        except Exception as exc:  # a refused command is a forged history
            raise AuditFailure(f"version {version}: the engine refuses it: {exc}") from exc
        if not expected:  # e.g. a timeout nobody was awaited for: never loop on nothing
            raise AuditFailure(f"version {version}: the engine decides nothing for its cause")
        got = facts[i : i + len(expected)]
        if got != expected:
            kinds = ", ".join(records[i + k].fact["type"] for k in range(len(got)))
            raise AuditFailure(
                f"version {version}: recorded facts ({kinds}) differ from the engine's"
            )
        before = table.game
        for fact in got:
            table = tables.evolve(table, fact)
        last_move = (
            tables.last_move(table.kind, cause, (version, table.version), got, before)
            if is_game_move(cause)
            else None
        )
        i += len(expected)
        redecided += 1
    return table, redecided


def _check_reveals_closed(table: Any, before: Record, start: Record) -> None:
    """A deal that went on without pending reveals was recorded once the table's recorded
    reveal window had closed (the server's clock is trusted, its record must agree)."""
    deadline = tables.reveal_deadline(table, datetime.fromisoformat(before.recorded_at))
    if deadline is not None and datetime.fromisoformat(start.recorded_at) < deadline:
        raise AuditFailure(
            f"version {start.version}: the deal went on without pending reveals before the "
            "reveal window closed"
        )


def _check_abandoned(table: Any, records: list[Record], abandoned: Record) -> None:
    """A draw was abandoned once the table's recorded limit had passed since the fact that
    opened it (the server's clock is trusted, its record must agree)."""
    if not table.draw_opened:
        return  # nothing being drawn: the engine refuses it next
    opened = datetime.fromisoformat(records[table.draw_opened - 1].recorded_at)
    deadline = tables.abandon_deadline(table, opened)
    if deadline is not None and datetime.fromisoformat(abandoned.recorded_at) < deadline:
        raise AuditFailure(
            f"version {abandoned.version}: the draw was abandoned before the table's "
            "abandonment limit passed"
        )


class _Times(Mapping[int, datetime]):
    """Each version's recorded time, read from the record when asked (a case's deadline and
    the hand's justice budget follow from a few of them)."""

    def __init__(self, records: list[Record]) -> None:
        self._by_version = {r.version: r for r in records}

    def __getitem__(self, version: int) -> datetime:
        return datetime.fromisoformat(self._by_version[version].recorded_at)

    def __iter__(self) -> Iterator[int]:
        return iter(self._by_version)

    def __len__(self) -> int:
        return len(self._by_version)


def _check_case_clock(
    table: Any, cause: dict[str, Any], times: Mapping[int, datetime], record: Record
) -> None:
    """A case is timed out no earlier than its recorded deadline (the case limit after its
    opening or an awaited voter's first vote, within the hand's justice budget), and a
    report or appeal opens a case only while the budget lasts (docs/api.md, "Justice"):
    the server's clock is trusted, its record must agree."""
    if not record.recorded_at or table.phase is not tables.Phase.PLAYING:
        return
    at = datetime.fromisoformat(record.recorded_at)
    if cause.get("action") == "timeout" and table.justice.open_case is not None:
        deadline = tables.case_deadline(table, times)
        if deadline is not None and at < deadline:
            raise AuditFailure(
                f"version {record.version}: the case was timed out before its deadline"
            )
    command = (cause.get("command") or {}).get("type") if cause.get("action") == "play" else None
    if command in ("Report", "Appeal"):
        try:
            tables.check_justice_budget(table, times, at)
        except DomainError as exc:
            raise AuditFailure(f"version {record.version}: {exc}") from exc


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _one_line(message: str) -> str:
    flat = " ".join(message.split())
    return flat if len(flat) <= 400 else flat[:397] + "..."


# --- matches -----------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchRecord:
    """One stored fact of a match as exported: its version, stored fact and chain hash."""

    version: int
    fact: dict[str, Any]
    hash: str
    seal: Any = None  # on a match move's last fact: the server's seal (domain/match/records.py)


@dataclass(frozen=True)
class MatchReport:
    match_id: str
    kind: str
    hands: tuple[AuditReport, ...]
    standings: tuple[match.Standing, ...]
    winners: tuple[int, ...]
    incomplete: bool = False  # a hand's draw was abandoned: the match ended there
    waiting_for: tuple[int, ...] = ()  # the seats that abandoned draw waited for


def verify_match(
    match_id: str,
    records: list[MatchRecord],
    hands: dict[str, list[Record]],
    public_key: PublicKeys,
    *,
    command_reader: CommandReader | None = None,
) -> MatchReport:
    """Check a whole match: its own record, each hand, the links, and the standings.

    1. the match's versions run 1..N and every chain hash recomputes (its key comes from
       the match id: the facts are public);
    2. every hand the match links is given and verifies on its own (``verify``: its deal,
       chain and every move's seal against ``public_key``, the seals naming the hand's own
       game id), and names this match and its number in its GameCreated;
    3. every fact of the match is re-decided: the opening and the first hand's link, each
       seat's ready, each hand's end (its outcome and the hash of its last event, read
       from the hand's record), each standing that follows and the end of the match;
    4. each hand after the first opened exactly as the match's rule says: the same seats,
       arbiter and settings as the hand before, the options the game's dealer rule gives
       after it, and no seat's entropy in its opening: its commitment (version 1) is
       earlier than every input to its deal, which the seats commit to (SeatCommitted) and
       reveal afterwards on the hand's own stream, re-decided and re-dealt by ``verify`` as
       hand 1's are (token hashes never leave the server, so the record cannot show the
       tokens; the seals bind each hand to its game id). A contribution in the match's
       record (SeatReady, the older form) was public before the hand's commitment: refused;
    5. the match has ended; if a hand's draw was abandoned (a void hand), it ended there,
       incomplete, naming the seats that draw waited for (re-decided like every end).
    Each hand's report says whether every deal took every seat's entropy
    (``AuditReport.every_seat_entropy``: a record made before issue 35 may hold a deal made
    without a seat's, RevealWithheld).
    """
    try:
        return _verify_match(match_id, records, hands, public_key, command_reader)
    except AuditFailure:
        raise
    except Exception as exc:
        raise AuditFailure(f"malformed match record: {exc!r}") from exc


def _verify_match(
    match_id: str,
    records: list[MatchRecord],
    hands: dict[str, list[Record]],
    public_key: PublicKeys,
    command_reader: CommandReader | None,
) -> MatchReport:
    if not records:
        raise AuditFailure("empty match record")
    for i, r in enumerate(records, start=1):
        if r.version != i:
            raise AuditFailure(f"match fact {i} has version {r.version}: missing or reordered")
    if all(r.seal is None for r in records):
        raise AuditFailure(match_records.UNSEALED)
    secret = _revealed_secret(records[-1])
    prev = ""
    for r in records:
        if match_records.fact_hash(match_id, secret, prev, r.version, r.fact) != r.hash:
            raise AuditFailure(f"match chain hash mismatch at version {r.version}")
        prev = r.hash
    _check_match_seals(records, public_key, match_id)
    facts = [match.decode_fact(r.fact) for r in records]
    created = facts[0]
    if not isinstance(created, match.MatchCreated) or created.match_id != match_id:
        raise AuditFailure("the first match fact is not the MatchCreated of this match")
    if created.secret:
        raise AuditFailure("MatchCreated shows the match's secret: it is blanked in the record")
    created = facts[0] = dataclasses.replace(created, secret=secret)
    rules = rules_for(created.kind)
    opening = match.create(
        rules,
        match_id,
        created.seat_count,
        created.hands,
        created.target_score,
        created.advance,
        secret,
    )
    if facts[: len(opening)] != opening:
        raise AuditFailure("the match's opening differs from the engine's")
    state = match.evolve(None, facts[0])
    finals: dict[int, tables.Table] = {}
    reports: list[AuditReport] = []
    i = 1
    while i < len(facts):
        following = facts[i + 1] if i + 1 < len(facts) else None
        expected = _redecide_match(
            state, facts[i], finals, hands, reports, (public_key, command_reader), following
        )
        if i + len(expected) > len(facts):
            raise AuditFailure("the match record stops in the middle: the match has not ended")
        if facts[i : i + len(expected)] != expected:
            raise AuditFailure(f"match version {i + 1}: recorded facts differ from the engine's")
        for fact in expected:
            state = match.evolve(state, fact)
        i += len(expected)
    if state.ended is None:
        raise AuditFailure("the match has not ended")
    ended = state.ended
    return MatchReport(
        match_id,
        created.kind,
        tuple(reports),
        ended.standings,
        ended.winners,
        ended.incomplete,
        ended.waiting_for,
    )


def _revealed_secret(last: MatchRecord) -> str:
    """The match's chain secret, revealed in its last fact, MatchEnded: a record that stops
    before it (a match in progress, or one cut short) proves no standing and no winner."""
    fact = last.fact
    if not isinstance(fact, dict) or fact.get("type") != "MatchEnded":
        raise AuditFailure(
            "the match record stops before its MatchEnded: a match in progress (or cut "
            "short) proves no standing and no winner"
        )
    data = fact.get("data")
    secret = data.get("secret") if isinstance(data, dict) else None
    if not isinstance(secret, str) or not _HEX64.fullmatch(secret):
        raise AuditFailure("MatchEnded reveals no chain secret (64 hex digits)")
    return secret


def _check_match_seals(records: list[MatchRecord], public_key: PublicKeys, match_id: str) -> None:
    """The match's seals: each on the last fact of a move, naming this match, the move's
    versions (the seals tile 1..N, the last on MatchEnded) and the chain head there, signed
    by one of the given keys (``tabletop-match-seal/1``). A match cut short, extended,
    reordered or re-bound is no longer what the server signed."""
    ring = key_ring(public_key)
    first = 1
    for r in records:
        seal = r.seal
        if seal is None:
            continue
        where = f"the match seal of versions {first}..{r.version}"
        if not isinstance(seal, dict) or set(seal) - {SEAL_KEY_ID} != match_records.MATCH_SEAL_KEYS:
            raise AuditFailure(f"match version {r.version} carries something that is not a seal")
        if seal["match_id"] != match_id:
            raise AuditFailure(f"{where} names match {_short(seal['match_id'])}, not this one")
        if not (_is_int(seal["first"], first) and _is_int(seal["last"], r.version)):
            raise AuditFailure(
                f"{where} covers versions {_short(seal['first'])}..{_short(seal['last'])}: "
                "the match's facts were cut, added or moved"
            )
        if seal["head"] != r.hash:
            raise AuditFailure(
                f"{where} signs another chain head than the record's: the match record was "
                "rewritten after the server signed it"
            )
        signature, kid = seal["signature"], seal.get(SEAL_KEY_ID, "")
        if not isinstance(signature, str) or not _HEX128.fullmatch(signature):
            raise AuditFailure(f"{where} has no 64-byte signature")
        if not isinstance(kid, str) or (kid and not _HEX16.fullmatch(kid)):
            raise AuditFailure(f"{where} has a key_id that is not 16 hex digits")
        body = match_records.seal_body(match_id, first, r.version, r.hash)
        if signed_by(ring, kid, bytes.fromhex(signature), body) is None:
            raise AuditFailure(
                f"{where} is not signed by the given server key: the match record was forged "
                "or re-signed, or the key is another server's"
            )
        first = r.version + 1
    if first != len(records) + 1:
        raise AuditFailure(
            f"the match's facts from version {first} on are not sealed: they were added or "
            "the match's end was cut"
        )


def _redecide_match(
    state: match.Match,
    fact: Any,
    finals: dict[int, tables.Table],
    hands: dict[str, list[Record]],
    reports: list[AuditReport],
    keys: tuple[PublicKeys, CommandReader | None],
    following: Any = None,
) -> list[Any]:
    """The facts the match's engine decides where the record has ``fact`` (``following``:
    the record's next fact, or None)."""
    try:
        if isinstance(fact, match.SeatReady):
            raise AuditFailure(
                f"seat {fact.seat}'s contribution to hand {fact.hand} is in the match's record "
                "(SeatReady) before that hand's commitment existed: its server could choose "
                "the hand's secret after seeing it"
            )
        if isinstance(fact, match.HandEnded):
            current = state.current
            if current is None or current.hand not in finals:
                raise AuditFailure(f"hand {fact.hand} ended before it was opened")
            head = hands[current.game_id][-1].hash
            recorded_last = following is None or isinstance(following, match.MatchEnded)
            _check_closed(state, finals[current.hand], current.game_id, recorded_last)
            return match.end_hand(state, finals[current.hand], head)
        if isinstance(fact, match.HandOpened):
            expected = match.open_hand(state) if state.hands else [fact]
            _check_hand(state, fact, finals, hands, reports, keys)
            return expected
    except DomainError as exc:
        raise AuditFailure(f"the match's engine refuses {type(fact).__name__}: {exc}") from exc
    raise AuditFailure(f"a {type(fact).__name__} where a match fact was expected")


def _check_closed(
    state: match.Match, final: tables.Table, game_id: str, recorded_last: bool
) -> None:
    """The hand's own signed stream ends with what the match decided follows it: its
    HandClosed says it is the last exactly when the match's record ends with it
    (``recorded_last``) and the engine ends the match there, and otherwise names the next
    hand's game (a match cut short after a hand that says another follows, re-signed or
    not, fails here)."""
    n = final.hand
    if final.closed is None:
        raise AuditFailure(
            f"hand {n} ({game_id}) does not close with HandClosed: a match recorded before "
            "issue 36, whose hands do not say which is the last"
        )
    last, next_game_id = final.closed
    if recorded_last and not last:
        raise AuditFailure(
            f"the match record ends at hand {n} ({game_id}), whose own signed stream says "
            f"hand {n + 1} follows ({_short(next_game_id)}): the match was cut short"
        )
    if last and not recorded_last:
        raise AuditFailure(
            f"hand {n} ({game_id}) says it is the last, yet the match record goes on after it"
        )
    should_last, should_next = match.closing(state, final)
    if last and not should_last:
        raise AuditFailure(
            f"hand {n} ({game_id}) says it is the last, yet the match goes on after it"
        )
    if not last and should_last:
        raise AuditFailure(
            f"the match ends at hand {n} ({game_id}), whose own signed stream says hand "
            f"{n + 1} follows ({_short(next_game_id)}): the match was cut short"
        )
    if next_game_id != should_next:
        raise AuditFailure(
            f"hand {n} ({game_id}) names {_short(next_game_id)} as the next hand, not {should_next}"
        )


def _check_hand(
    state: match.Match,
    opened: match.HandOpened,
    finals: dict[int, tables.Table],
    hands: dict[str, list[Record]],
    reports: list[AuditReport],
    keys: tuple[PublicKeys, CommandReader | None],
) -> None:
    """The linked hand verifies alone (signed as that hand's game) and opened as the
    match's rule says."""
    n, game_id = opened.hand, opened.game_id
    records = hands.get(game_id)
    if not records:
        raise AuditFailure(f"hand {n} ({game_id}) is missing from the export")
    try:
        report, final = replayed(records, keys[0], game_id, command_reader=keys[1])
    except AuditFailure as exc:
        raise AuditFailure(f"hand {n} ({game_id}): {exc}") from exc
    if final.match_id != state.match_id or final.hand != n:
        raise AuditFailure(f"hand {n} ({game_id}) does not name this match and number")
    if final.kind != state.kind or final.seat_count != state.seat_count:
        raise AuditFailure(f"hand {n} ({game_id}) is not a {state.kind} table of this match")
    opening = records[0].fact["data"]
    named = (
        opening.get("match_hands"),
        opening.get("match_target_score"),
        opening.get("match_advance"),
    )
    if named != match.decide.settings(state):
        raise AuditFailure(
            f"hand {n} ({game_id}) names other match settings (hands, target score, advance "
            f"{_short(list(named))}), not this match's"
        )
    if n > 1:
        created = records[0].fact["data"]
        moves = match.next_hand(
            state,
            finals[n - 1],
            created["secret"],
            created.get("salt", ""),
            created.get("reveal_timeout_ms", 0),
        )
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
                f"hand {n} did not open as the match says (seats, settings, the dealer "
                f"rule's options; seated before any seat's entropy) at its version {at + 1}"
            )
        at += len(facts)
