"""`tabletop-audit`: export a game's stored history and verify it against the server's key.

\b
  tabletop-audit key                          print the server's public signing key
  tabletop-audit export GAME_ID [-o FILE]     JSON Lines, one stored event per line
  tabletop-audit verify GAME_ID               fetch the history and the key over the API
  tabletop-audit verify --file FILE           verify an export: this command's, or the one
                                              of `tabletop export` (either is read)
  tabletop-audit export --match MATCH_ID      a whole match: its record and every hand's
  tabletop-audit verify --match MATCH_ID      verify a whole match (each hand and its seals,
                                              the links, the standings); --file reads a
                                              match export
  tabletop-audit verify ... --receipts FILE   also check a viewer's saved receipts
  tabletop-audit compare --receipts A --receipts B [--file EXPORT]
                                              prove a lying server: two seats' receipts
                                              (and the record) signed for two different
                                              histories of one game; exit status 3 if so

An export is per viewer while the game runs (redacted events, no stored form) and complete
after it ends. Each complete line is canonical JSON {"cause","fact","hash","recorded_at",
"seal","version"}; the verifier (domain/verify.py, the published engine) re-checks the
chain, the commitment, every move's seal against the server's public key, every keyed
seat's signature on each of its commands (and names the unkeyed seats and every re-key),
the deck derivation, and re-decides every command. The key comes from outside the file:
--public-key (the operator's published key; repeat it for the keys retired by a rotation),
else the server at --target (its current and retired keys). Each seal names the id of its
key; the output names the key that signed each part. Exit status 0 = verified, 1 = failed,
3 = `compare` found a proof that the server lied. Options work before or after the command
and each has an environment variable (`--help` shows them).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NoReturn

import click
import grpc

from clients.python.clibase import CONTEXT, option, run, shared, shared_options
from clients.python.client import TableClient
from clients.python.equivocation import (
    Statement,
    contradictions,
    receipt_statements,
    record_statements,
)
from clients.python.exports import export_lines
from clients.python.replay_html import write_from_records
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
    verify_match,
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
        if data is None:
            continue
        if not isinstance(data, dict):
            raise AuditFailure(f"line {n} is not a JSON object; {MAKE_EXPORT}")
        yield n, data


def _bounded_json(line: str, n: int) -> Any:
    """Line ``n`` as JSON (None if blank), as ``parse_export`` reads a line: a line longer
    than MAX_LINE, deep nesting, a huge integer or bad JSON is one AuditFailure."""
    if len(line) > MAX_LINE:
        raise AuditFailure(f"line {n} is longer than {MAX_LINE} characters")
    text = line.strip(" \t\r\n")  # JSON's whitespace only, as parse_export strips
    return load_line(text, f"line {n}") if text else None


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
    """A match export: its own facts ({"match", "version", "fact", "hash"} per line), then
    every hand's stored events, each line naming its hand ({"hand", "game_id", ...})."""
    reply = client.match(match_id)
    hands = []
    for f in reply.facts:
        fact = json.loads(f.stored_json)
        yield canonical({"match": match_id, "version": f.version, "fact": fact, "hash": f.hash})
        if fact["type"] == "HandOpened":
            hands.append((fact["data"]["hand"], fact["data"]["game_id"]))
    for n, game_id in hands:
        for line in export_lines(client.as_viewer(game_id, token).history()):
            yield canonical({"hand": n, "game_id": game_id, **json.loads(line)})


def parse_match_lines(
    lines: Iterable[str],
) -> tuple[str, list[MatchRecord], dict[str, list[Record]]]:
    """A match export read back: the match id, its records and every hand's records."""
    match_id = ""
    records: list[MatchRecord] = []
    hands: dict[str, list[str]] = {}
    numbers: dict[str, int] = {}
    for n, data in json_objects(lines):
        if "match" in data:
            if set(data) != MATCH_LINE_KEYS or not isinstance(data["match"], str):
                raise AuditFailure(f"line {n} is not a match fact {{fact, hash, match, version}}")
            if hands:
                raise AuditFailure(f"line {n}: a match fact after the hands' events")
            if match_id and data["match"] != match_id:
                raise AuditFailure(f"line {n} names another match than line 1")
            match_id = data["match"]
            records.append(MatchRecord(data["version"], data["fact"], data["hash"]))
        elif "game_id" in data or "hand" in data:
            game, hand = _hand_line(data, n, numbers)
            rest = {k: v for k, v in data.items() if k not in ("hand", "game_id")}
            hands.setdefault(game, []).append(canonical(rest))
        else:
            raise AuditFailure(f"line {n} is neither a match fact nor a hand's event")
    return match_id, records, {g: parse_export(ls) for g, ls in hands.items()}


MATCH_LINE_KEYS = frozenset(("match", "version", "fact", "hash"))
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
                return isinstance(data, dict) and "match" in data
    return False


def match_line(report: MatchReport) -> str:
    events = sum(h.events for h in report.hands)
    moves = sum(h.moves_redecided for h in report.hands)
    standing = ", ".join(f"seat {s.seat} {s.total} (#{s.rank})" for s in report.standings)
    return (
        f"verified match: {report.kind}, {len(report.hands)} hands, {events} events, {moves} "
        f"commands re-decided; every hand committed before its inputs; {match_deal_words(report)}; "
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


@click.group(context_settings=CONTEXT, help=__doc__)
@shared_options
def audit() -> None:
    pass


def command(name: str) -> Any:
    def wrap(f: Any) -> Any:
        return audit.command(name)(shared_options(f))

    return wrap


@command("key")
def cmd_key() -> None:
    """Print the server's public signing key (hex): publish it, verify with it. The keys a
    rotation retired follow, one a line: "HEX  KEY_ID  retired" (the current key's line is
    the key alone)."""
    with TableClient(shared().target) as client:
        current, *retired = signing_keys(client)
    print(current.hex())
    for key in retired:
        print(f"{key.hex()}  {key_id(key)}  retired")


@command("export")
@click.argument("game_id", required=False)
@option(
    "--token",
    envvar="TABLETOP_TOKEN",
    help="seat or arbiter token (complete for everyone after the end)",
)
@option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, writable=True),
    help="file to write [default: stdout]",
)
@option("--match", "match_id", help="export this whole match instead of one game")
def cmd_export(
    game_id: str | None, token: str | None, output: str | None, match_id: str | None
) -> None:
    """Write a game's history (or a whole match's) as JSON Lines, one stored event per line."""
    if bool(game_id) == bool(match_id):
        raise click.UsageError("give a GAME_ID or --match MATCH_ID (one of them)")
    with TableClient(shared().target) as client:
        if match_id:
            lines = list(match_export_lines(client, match_id, token))
        else:
            lines = list(export_lines(client.as_viewer(game_id or "", token).history()))
    out = open(output, "w", encoding="utf-8") if output else sys.stdout  # noqa: SIM115
    try:
        for line in lines:
            out.write(line + "\n")
    finally:
        if output:
            out.close()


# verify and compare read the server's keys alike
public_key_option = option(
    "--public-key",
    multiple=True,
    help="the server's public key (64 hex digits, or a file of them, one a line); repeat it "
    "for the keys a rotation retired [default: ask --target for its current and retired keys]",
)


@command("verify")
@click.argument("game_id", required=False)
@option("--token", envvar="TABLETOP_TOKEN", help="seat or arbiter token")
@option(
    "--file",
    "path",
    type=click.Path(exists=True, dir_okay=False),
    help="verify this export file instead of fetching",
)
@public_key_option
@option(
    "--receipts",
    type=click.Path(exists=True, dir_okay=False),
    help="a viewer's saved receipts, to check against the verified record",
)
@option(
    "--html",
    type=click.Path(dir_okay=False, writable=True),
    help="also write the HTML replay page of the game (written even if it fails to verify)",
)
@option("--match", "match_id", help="verify this whole match (over the API)")
def cmd_verify(
    game_id: str | None,
    token: str | None,
    path: str | None,
    public_key: tuple[str, ...],
    receipts: str | None,
    html: str | None,
    match_id: str | None,
) -> None:
    """Verify a finished game, over the API (GAME_ID) or from an export file (--file); or
    a whole match (--match MATCH_ID, or --file with a match export)."""
    if sum(map(bool, (game_id, path, match_id))) != 1:
        raise click.UsageError("give a GAME_ID, --match MATCH_ID or --file FILE (one of them)")
    try:
        if match_id or (path and is_match_export(path)):
            if receipts or html:
                raise click.UsageError("--receipts and --html check one game, not a match")
            report = verify_whole_match(match_id, token, path, public_key)
            if shared().json:
                print(json.dumps(match_json(report), ensure_ascii=False))
            else:
                print(match_line(report))
            return
        verified, checked = _verify(game_id, token, path, public_key, receipts, html)
    except (AuditFailure, grpc.RpcError, OSError) as exc:
        failed(_reason(exc))
    if shared().json:
        r = verified.report
        out = {
            "verified": True,
            "kind": r.kind,
            "game_id": r.game_id,
            "public_key": verified.key.hex(),  # the key of the last move
            "signed_with": [
                {"key_id": kid, "public_key": verified.keys[kid].hex(), "first": a, "last": b}
                for kid, a, b in r.signed_with
            ],
            "events": r.events,
            "seals": r.seals,
            "commands": dict(verified.commands),
            "winners": list(r.winners),
            "reason": r.reason,
            "prepared_deal": r.prepared_deal,
            "cases": list(r.cases),  # e.g. "report 12 UNRESOLVED"
            "redeals": list(r.redeals),  # who asked for each: "arbiter" or "seats"
            "max_redeals": r.max_redeals,  # the table's cap (None: an older record)
            "every_seat_entropy": r.every_seat_entropy,  # False: a deal without a seat's
            "entropy": list(r.entropy),  # "seat 1 added no entropy", ...
            "void": None if r.void is None else list(r.void),  # the seats a void draw awaited
            **seat_json(r),
        }
        if checked:
            out["receipts"] = checked
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(verified.line())
        if checked:
            print(checked)


def _verify(
    game_id: str | None,
    token: str | None,
    path: str | None,
    public_key: tuple[str, ...],
    receipts: str | None,
    html: str | None,
) -> tuple[Verified, str]:
    if html:  # an export that cannot be read writes no page: never leave an old one standing
        Path(html).unlink(missing_ok=True)
    with TableClient(shared().target) as client:
        key = public_keys_from(public_key) if public_key else signing_keys(client)
        if path:
            with open(path, encoding="utf-8", newline="\n") as f:  # lines end in LF only
                records = parse_export(read_lines(f))
        else:
            viewer = client.as_viewer(game_id or "", token)
            ended_or_refuse(viewer.view())
            records = parse_export(export_lines(viewer.history()))
    if html:  # before verifying: the page shows the verifier's finding, failed or not
        page = write_from_records(records, html, path or game_id or "", public_key=key)
        print(page, file=sys.stderr)
    verified = verify_records(records, key, game_id)
    checked = _receipts(records, receipts, key) if receipts else ""
    return verified, checked


def ended_or_refuse(view: pb.GameView) -> None:
    """A running game has no verifiable record yet (its stored form is published at the
    end): say so, and what a seat or the arbiter can do until then."""
    if view.phase == pb.GAME_PHASE_FINISHED:
        return
    raise AuditFailure(
        f"game {view.game_id} is still running (version {view.version}): its record is "
        "published, and can be verified, once it ends. Until then a seat or the arbiter keeps "
        "the server's signed receipts of what it is shown (the Python client's ReceiptLog), "
        f"and checks them after the end with `tabletop-audit verify {view.game_id} --receipts "
        "FILE`"
    )


def _receipts(records: list[Record], path: str, key: PublicKeys) -> str:
    from clients.python.audit_receipts import Replayed, check_receipts
    from clients.python.receipts import parse_receipts

    with open(path, encoding="utf-8", errors="replace") as f:
        saved = parse_receipts(f)
    report = check_receipts(records, saved, key)
    moves = Replayed(records).check_all_hashes()
    return (
        f"receipts: {report.receipts} verified for viewer(s) {list(report.viewers)}, signed "
        f"by key id(s) {', '.join(report.key_ids) or '?'}; the receipt hashes of all {moves} "
        "moves match the record for every viewer"
    )


def _reason(exc: BaseException) -> str:
    if isinstance(exc, grpc.RpcError):
        return (
            f"the server at {shared().target}: {exc.details()} (give --public-key to verify "
            "a file without it)"
        )
    if isinstance(exc, OSError):
        return f"cannot read {exc.filename}: {exc.strerror}"
    return str(exc)


def failed(reason: str) -> NoReturn:
    """Say why verification failed (JSON with --json) and exit with status 1."""
    if shared().json:
        print(json.dumps({"verified": False, "reason": reason}, ensure_ascii=False))
    else:
        print(f"VERIFY FAILED: {reason}", file=sys.stderr)
    raise SystemExit(1) from None


def verify_whole_match(
    match_id: str | None, token: str | None, path: str | None, public_key: tuple[str, ...]
) -> MatchReport:
    """A whole match, from its export file or over the API, every hand's seals checked with
    the server's key (``--public-key``, else the server at --target)."""
    with TableClient(shared().target) as client:
        key = public_keys_from(public_key) if public_key else signing_keys(client)
        if path:
            with open(path, encoding="utf-8", newline="\n") as f:  # lines end in LF only
                found, records, hands = parse_match_lines(read_lines(f))
        else:
            lines = list(match_export_lines(client, match_id or "", token))
            found, records, hands = parse_match_lines(lines)
    return verify_match(found, records, hands, key, command_reader=read_signed_command)


@command("compare")
@option(
    "--receipts",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False),
    help="a viewer's saved receipts (repeat it: one file per seat, spectator or arbiter)",
)
@option(
    "--file",
    "path",
    type=click.Path(exists=True, dir_okay=False),
    help="also the game's complete export (it must verify)",
)
@public_key_option
def cmd_compare(receipts: tuple[str, ...], path: str | None, public_key: tuple[str, ...]) -> None:
    """Prove a lying server: compare several viewers' saved receipts (and the game's export)
    of the same games. Every receipt and seal the server signed names the chain hash at its
    versions; two validly signed ones that disagree at one version (another head, or another
    seal for one move) prove the server showed two histories. Then it prints the proof (the
    game, the version, both heads, both signatures and key ids) and exits with status 3;
    otherwise it says the files agree (status 0). A receipt or export that does not verify
    with the key proves nothing: status 1."""
    if len(receipts) + bool(path) < 2:
        raise click.UsageError("give at least two files: --receipts FILE (repeated), --file")
    try:
        statements, sources = _statements(receipts, path, public_key)
    except (AuditFailure, grpc.RpcError, OSError) as exc:
        failed(_reason(exc))
    found = contradictions(statements)
    games = sorted({s.game_id for s in statements})
    if shared().json:
        print(
            json.dumps({"agree": not found, "games": games, "proofs": [c.as_json() for c in found]})
        )
    elif found:
        for proof in found:
            print("\n".join(proof.lines()))
    else:
        versions = len({(s.game_id, s.version) for s in statements})
        print(
            f"agree: {sources} files, {len(statements)} signed statements about {len(games)} "
            f"game(s) at {versions} versions; no two disagree"
        )
    if found:
        raise SystemExit(LIED)


LIED = 3  # `compare`'s exit status for a proof that the server signed two histories


def _statements(
    receipts: tuple[str, ...], path: str | None, public_key: tuple[str, ...]
) -> tuple[list[Statement], int]:
    from clients.python.receipts import parse_receipts

    if public_key:
        keys = public_keys_from(public_key)
    else:
        with TableClient(shared().target) as client:
            keys = signing_keys(client)
    statements: list[Statement] = []
    if path:
        with open(path, encoding="utf-8", errors="replace") as f:
            records = parse_export(read_lines(f))
        statements += record_statements(records, keys, path)
    for name in receipts:
        with open(name, encoding="utf-8", errors="replace") as f:
            entries = parse_receipts(f)
        statements += receipt_statements(entries, keys, name)
    return statements, len(receipts) + bool(path)


def main(argv: list[str] | None = None) -> int:
    return run(audit, argv, "tabletop-audit")


if __name__ == "__main__":
    sys.exit(main())
