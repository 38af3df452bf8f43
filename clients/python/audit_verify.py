"""What `tabletop-audit` verifies with: an export read back (a game's or a match's,
bounded line by line), the server's keys, a verified game or match and its words
(audit.py is the command)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from clients.python.client import TableClient
from clients.python.exports import export_lines
from domain.logaudit import HeadsOutOfOrder, LogFailure, LogProofs, parse_log_line
from domain.table.records import canonical, key_id
from domain.verify import (
    MAKE_EXPORT,
    MAX_LINE,
    RECORD_KEYS,
    AuditFailure,
    AuditReport,
    MatchRecord,
    MatchReport,
    PublicKeys,
    Record,
    load_line,
    parse_export,
    verify,
)
from server.wire.signedcommands import read_signed_command
from tabletop.v1 import tabletop_pb2 as pb

parse_lines = parse_export  # either export form, bounded (domain/verify.py)


def read_lines(stream: IO[str]) -> Iterator[str]:
    """Lines of at most MAX_LINE characters, never holding a longer one whole (the verifier
    then names the line as too long). A file is UTF-8 (open it with errors="strict"): bytes
    that are not are refused, naming the line, never replaced."""
    n = 0
    while True:
        try:
            line = stream.readline(MAX_LINE + 1)
        except UnicodeDecodeError:
            raise AuditFailure(
                f"line {n + 1} is not a valid export line (not UTF-8); {MAKE_EXPORT}"
            ) from None
        if not line:
            return
        n += line.endswith("\n")
        yield line


def json_objects(lines: Iterable[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each non-blank line of a match export as a JSON object, with its line number, read
    by the verifier's bounded reader (a hand's own lines are then read by ``parse_export``)."""
    for n, line in enumerate(lines, start=1):
        data = _bounded_json(line, n)
        if data is not None:
            yield n, data


def _bounded_json(line: str, n: int) -> dict[str, Any] | None:
    """Line ``n`` as a JSON object (None if blank), as ``parse_export`` reads a line: a line
    longer than MAX_LINE, deep nesting, a huge integer, bad JSON or JSON that is not an
    object (``null`` too: it is not a blank line) is one AuditFailure."""
    if len(line) > MAX_LINE:
        raise AuditFailure(f"line {n} is longer than {MAX_LINE} characters")
    text = line.strip(" \t\r\n")  # JSON's whitespace only, as parse_export strips
    if not text:
        return None
    data = load_line(text, f"line {n}")
    if not isinstance(data, dict):
        raise AuditFailure(f"line {n} is not a JSON object; {MAKE_EXPORT}")
    return data


@dataclass(frozen=True)
class Verified:
    report: AuditReport
    commands: Counter[str]  # re-decided commands by action: play, join, start, timeout, ...
    keys: dict[str, bytes]  # the given public keys by key id

    @property
    def moves(self) -> int:
        """Commands sent with Play (game moves and table moves)."""
        return self.commands.get("play", 0)

    def line(self) -> str:
        r = self.report
        parts = ", ".join(f"{n} {_ACTION_WORDS.get(a, a)}" for a, n in self.commands.most_common())
        return (
            f"verified: {r.kind}, {r.events} events, {r.moves_redecided} commands re-decided "
            f"({parts}), winners {list(r.winners)} ({r.reason}); game {r.game_id}, all "
            f"{r.seals} seals (its opening's and each command's) signed by {self.signers()}"
            + (f"; {r.prepared_deal}" if r.prepared_deal else "")
            + (f"; cases: {', '.join(r.cases)}" if r.cases else "")
            + f"; {redeal_words(r)}"
            + f"; {r.deal_words}"
            + f"; {r.seat_words}"
            + (f"; {r.hand_words}" if r.hand_words else "")
        )

    @property
    def key(self) -> bytes:
        """The key that signed the last move."""
        return self.keys[self.report.signed_with[-1][0]]

    def signers(self) -> str:
        """Which key signed which versions: "key HEX (key id ID)", or, after a rotation in
        the game, "key ID1 (HEX) versions 1..9, key ID2 (HEX) versions 10..80"."""
        runs = self.report.signed_with
        if len(runs) == 1:
            return f"key {self.keys[runs[0][0]].hex()} (key id {runs[0][0]})"
        return ", ".join(
            f"key {kid} ({self.keys[kid].hex()}) versions {first}..{last}"
            for kid, first, last in runs
        )


def redeal_words(r: AuditReport) -> str:
    """The 重新洗牌发牌 count, the table's cap and who asked for each."""
    cap = "no cap (an older record)" if r.max_redeals is None else f"at most {r.max_redeals}"
    asked = f" ({', '.join(r.redeals)})" if r.redeals else ""
    return f"redeals {len(r.redeals)}{asked}, {cap}"


_ACTION_WORDS = {"play": "moves", "join": "joins", "reveal": "reveals", "start": "start"}


def verify_records(
    records: list[Record], public_key: PublicKeys, game_id: str | None = None
) -> Verified:
    report = verify(records, public_key, game_id, command_reader=read_signed_command)
    actions = Counter(str(r.cause.get("action", "?")) for r in records[1:] if r.cause is not None)
    given = [public_key] if isinstance(public_key, bytes) else list(public_key)
    return Verified(report, actions, {key_id(k): k for k in given})


def signing_key(client: TableClient) -> bytes:
    """The server's current public key (GetSigningKey)."""
    return bytes(client.stub.GetSigningKey(pb.GetSigningKeyRequest()).public_key)


def signing_keys(client: TableClient) -> list[bytes]:
    """The server's current public key and the ones it retired (GetSigningKey)."""
    reply = client.stub.GetSigningKey(pb.GetSigningKeyRequest())
    return [bytes(reply.public_key), *(bytes(k.public_key) for k in reply.retired)]


def verify_game(client: TableClient, game_id: str, token: str | None = None) -> Verified:
    """Fetch a finished game's history and the server's key, and verify the game."""
    records = parse_export(export_lines(client.as_viewer(game_id, token).history()))
    return verify_records(records, signing_keys(client), game_id)


def public_key_from(value: str) -> bytes:
    """``--public-key``: 64 hex digits, or a file holding them."""
    keys = public_keys_from([value])
    if len(keys) != 1:
        raise AuditFailure("--public-key must be one key here")
    return keys[0]


def public_keys_from(values: Iterable[str]) -> list[bytes]:
    """``--public-key`` values: each 64 hex digits, or a file of keys, one a line (the first
    word of each line; ``#`` lines are comments), as a retired-keys file holds them."""
    keys = []
    for value in values:
        text = value.strip()
        if len(text) != 64 and Path(text).is_file():
            lines = Path(text).read_text(encoding="utf-8").splitlines()
            words = [w.split()[0] for w in lines if w.strip() and not w.lstrip().startswith("#")]
        else:
            words = [text]
        for word in words:
            try:
                key = bytes.fromhex(word)
            except ValueError:
                key = b""
            if len(key) != 32:
                raise AuditFailure("--public-key must be 64 hex digits (or a file holding them)")
            keys.append(key)
    return keys


# --- matches ---------------------------------------------------------------------------


def match_export_lines(client: TableClient, match_id: str, token: str | None) -> Iterator[str]:
    """A match export: its own facts ({"match", "version", "fact", "hash", "seal"} per line), then
    every hand's stored events, each line naming its hand ({"hand", "game_id", ...})."""
    reply = client.match(match_id)
    hands = []
    for f in reply.facts:
        fact = json.loads(f.stored_json)
        seal = json.loads(f.seal_json) if f.seal_json else None
        fields = {"match": match_id, "version": f.version, "fact": fact, "hash": f.hash}
        yield canonical({**fields, "seal": seal})
        if fact["type"] == "HandOpened":
            hands.append((fact["data"]["hand"], fact["data"]["game_id"]))
    for n, game_id in hands:
        for line in export_lines(client.as_viewer(game_id, token).history()):
            yield canonical({"hand": n, "game_id": game_id, **json.loads(line)})


def parse_match_lines(
    lines: Iterable[str],
) -> tuple[str, list[MatchRecord], dict[str, list[Record]]]:
    """A match export read back: the match id, its records and every hand's records."""
    try:
        match_id, records, hands, _ = parse_match_lines_log(lines)
    except HeadsOutOfOrder as exc:  # a reader without the keys: the grammar's refusal
        raise AuditFailure(str(exc)) from None
    return match_id, records, hands


def parse_match_lines_log(
    lines: Iterable[str],
) -> tuple[str, list[MatchRecord], dict[str, list[Record]], LogProofs | None]:
    """``parse_match_lines``, and the export's log line if it ends with one."""
    match_id = ""
    records: list[MatchRecord] = []
    hands: dict[str, list[str]] = {}
    numbers: dict[str, int] = {}
    logged: LogProofs | None = None
    for n, data in json_objects(lines):
        if logged is not None:
            raise AuditFailure(f"line {n} follows the log line, which ends an export")
        if "log" in data:
            if not records and not hands:
                raise AuditFailure(f"line {n}: the log line ends the file, after the record")
            try:
                logged = parse_log_line(data, f"line {n}")
            except HeadsOutOfOrder:
                raise  # perhaps a proof of a forked log: the verifier holds it against its keys
            except LogFailure as exc:
                raise AuditFailure(str(exc)) from None
        elif "match" in data:
            if set(data) not in (MATCH_LINE_KEYS, UNSEALED_MATCH_LINE_KEYS) or not isinstance(
                data["match"], str
            ):
                raise AuditFailure(
                    f"line {n} is not a match fact {{fact, hash, match, seal, version}}"
                )
            if hands:
                raise AuditFailure(f"line {n}: a match fact after the hands' events")
            if match_id and data["match"] != match_id:
                raise AuditFailure(f"line {n} names another match than line 1")
            match_id = data["match"]
            seal = data.get("seal")  # none in a record made before issue 36: refused as such
            records.append(MatchRecord(data["version"], data["fact"], data["hash"], seal))
        elif "game_id" in data or "hand" in data:
            game, hand = _hand_line(data, n, numbers)
            rest = {k: v for k, v in data.items() if k not in ("hand", "game_id")}
            hands.setdefault(game, []).append(canonical(rest))
        else:
            raise AuditFailure(f"line {n} is neither a match fact nor a hand's event")
    return match_id, records, {g: parse_export(ls) for g, ls in hands.items()}, logged


MATCH_LINE_KEYS = frozenset(("match", "version", "fact", "hash", "seal"))
UNSEALED_MATCH_LINE_KEYS = MATCH_LINE_KEYS - {"seal"}  # exported before issue 36
HAND_LINE_KEYS = frozenset(("hand", "game_id")) | RECORD_KEYS


def _hand_line(data: dict[str, Any], n: int, numbers: dict[str, int]) -> tuple[str, int]:
    """A hand's line of a match export: a stored event naming its hand and game; each
    hand's lines together, the hands in their order."""
    if set(data) != HAND_LINE_KEYS:
        raise AuditFailure(f"line {n} is not a hand's event {{hand, game_id, ...stored event}}")
    game, hand = data["game_id"], data["hand"]
    if not isinstance(game, str) or type(hand) is not int or hand < 1:
        raise AuditFailure(f"line {n} names no game and hand number")
    last = next(reversed(numbers), None)
    if game != last:
        if game in numbers or (last is not None and hand <= numbers[last]):
            raise AuditFailure(f"line {n}: hand {hand}'s lines are not together, in hand order")
        numbers[game] = hand
    elif numbers[game] != hand:
        raise AuditFailure(f"line {n}: game {game} is hand {numbers[game]} and {hand}")
    return game, hand


def is_match_export(path: str) -> bool:
    """Whether the file's first non-blank line is a match's fact. The line is read as every
    other line is (``read_lines``, ``_bounded_json``): a hostile first line fails here in one
    line, and never more than MAX_LINE characters of it are held."""
    with open(path, encoding="utf-8", newline="\n") as f:  # lines end in LF only
        for n, line in enumerate(read_lines(f), start=1):
            data = _bounded_json(line, n)
            if data is not None:
                return "match" in data
    return False


def match_line(report: MatchReport) -> str:
    events = sum(h.events for h in report.hands)
    moves = sum(h.moves_redecided for h in report.hands)
    standing = ", ".join(f"seat {s.seat} {s.total} (#{s.rank})" for s in report.standings)
    return (
        f"verified match: {report.kind}, {len(report.hands)} hands, {events} events, {moves} "
        f"commands re-decided; every hand committed before its inputs; every hand's own stream "
        f"says what follows it (hand {len(report.hands)} the last); {match_deal_words(report)}; "
        f"standings {standing}; winners {list(report.winners)}; "
        + "; ".join(f"hand {n} {redeal_words(h)}" for n, h in enumerate(report.hands, 1))
        + "; "
        + "; ".join(f"hand {n} {h.seat_words}" for n, h in enumerate(report.hands, 1))
    )


def match_deal_words(report: MatchReport) -> str:
    """Whether every hand was dealt from every seat's entropy, each hand that was not, and
    an incomplete match (a void hand's draw abandoned)."""
    unfair = [n for n, h in enumerate(report.hands, 1) if not h.every_seat_entropy]
    if unfair:
        words = "; ".join(f"hand {n} {report.hands[n - 1].deal_words}" for n in unfair)
    else:
        words = "every hand dealt from every seat's entropy"
        extra = [
            f"hand {n}: {'; '.join(h.entropy)}" for n, h in enumerate(report.hands, 1) if h.entropy
        ]
        words += f" ({'; '.join(extra)})" if extra else ""
    if report.incomplete:
        seats = ", ".join(map(str, report.waiting_for))
        words += (
            f"; match INCOMPLETE: hand {len(report.hands)} void (no deal, waiting for seat(s) "
            f"{seats}); the hands before it stand, no winner"
        )
    return words


def match_json(report: MatchReport) -> dict[str, Any]:
    return {
        "verified": True,
        "match_id": report.match_id,
        "kind": report.kind,
        "hands": [
            {
                "events": h.events,
                "winners": list(h.winners),
                "reason": h.reason,
                "redeals": list(h.redeals),
                "max_redeals": h.max_redeals,
                "every_seat_entropy": h.every_seat_entropy,
                "entropy": list(h.entropy),
                "void": None if h.void is None else list(h.void),
                **seat_json(h),
            }
            for h in report.hands
        ],
        "incomplete": report.incomplete,
        "waiting_for": list(report.waiting_for),
        "standings": [
            {"seat": s.seat, "total": s.total, "wins": s.wins, "rank": s.rank}
            for s in report.standings
        ],
        "winners": list(report.winners),
    }


def seat_json(r: AuditReport) -> dict[str, Any]:
    """The seats' signatures in ``--json``: each seat's key as taken (hex, "" unkeyed), the
    keyed and the unkeyed seats, every re-key and the signed commands checked."""
    return {
        "seat_keys": list(r.seat_keys),
        "keyed_seats": list(r.keyed_seats),
        "unkeyed_seats": list(r.unkeyed_seats),
        "rekeys": [{"version": v, "seat": s} for v, s in r.rekeys],
        "signed_commands": r.signed_commands,
    }
