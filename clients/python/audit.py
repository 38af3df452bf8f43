"""Export a game's history and verify it: `python -m clients.python.audit --help`.

    key                                    print the server's public signing key
    export GAME_ID [--token T] [-o FILE]   JSON Lines, one stored event per line
    verify GAME_ID                         fetch the history and the key over the API
    verify --file FILE --public-key KEY    verify an export (this tool's or `tabletop export`'s)
    verify ... --receipts FILE             also check a viewer's saved receipts

An export is per viewer while the game runs (redacted events, no stored form) and complete
after it ends. Each complete line is canonical JSON {"cause","fact","hash","recorded_at",
"seal","version"}; the verifier (domain/verify.py, the published engine) re-checks the
chain, the commitment, every move's seal against the server's public key, the deck
derivation and re-decides every move. The key must come from outside the file: --public-key
(hex, or a file holding it), or the server at --target. Exit status 0 = verified, 1 = failed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from datetime import UTC
from pathlib import Path
from typing import IO

import grpc
from google.protobuf.json_format import MessageToDict

from clients.python.audit_receipts import Replayed, check_receipts
from clients.python.client import TableClient
from clients.python.receipts import parse_receipts
from domain.table.records import canonical, timestamp_text
from domain.verify import MAX_LINE, AuditFailure, AuditReport, Record, parse_export, verify
from tabletop.v1 import tabletop_pb2 as pb

DEFAULT_TARGET = "127.0.0.1:50051"


def export_lines(events: Iterable[pb.GameEvent]) -> Iterator[str]:
    for event in events:
        at = timestamp_text(event.recorded_at.ToDatetime(tzinfo=UTC))
        if event.stored_json:  # after the end: {fact, cause, seal}
            stored = json.loads(event.stored_json)
            yield canonical(
                {"version": event.version, "hash": event.hash, "recorded_at": at, **stored}
            )
        else:  # still running: the redacted event as the viewer saw it
            yield canonical(
                {"version": event.version, "hash": event.hash, "redacted": MessageToDict(event)}
            )


def read_lines(stream: IO[str]) -> Iterator[str]:
    """Lines of at most MAX_LINE characters, read without holding a longer one whole (the
    verifier then names the line as too long)."""
    while line := stream.readline(MAX_LINE + 1):
        yield line


def verify_lines(
    lines: Iterable[str], public_key: bytes, game_id: str | None = None
) -> AuditReport:
    return verify(parse_export(lines), public_key, game_id)


def public_key_from(value: str) -> bytes:
    """``--public-key``: 64 hex digits, or a file holding them."""
    text = value.strip()
    if len(text) != 64 and Path(text).is_file():
        text = Path(text).read_text(encoding="utf-8").strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != 32:
        raise AuditFailure("--public-key must be 64 hex digits (or a file holding them)")
    return key


def server_key(target: str) -> bytes:
    with TableClient(target) as client:
        return signing_key(client)


def signing_key(client: TableClient) -> bytes:
    return bytes(client.stub.GetSigningKey(pb.GetSigningKeyRequest()).public_key)


def verify_game(client: TableClient, game_id: str, token: str | None = None) -> AuditReport:
    """Fetch a finished game's history and the server's key, and verify the game."""
    history = export_lines(client.as_viewer(game_id, token).history())
    return verify(parse_export(history), signing_key(client), game_id)


def run_verify(args: argparse.Namespace) -> str:
    """Verify as asked; returns the lines to print, raises AuditFailure otherwise."""
    if args.public_key:
        key = public_key_from(args.public_key)
    elif args.target or args.game_id:
        key = server_key(args.target or DEFAULT_TARGET)
    else:
        raise AuditFailure(
            "no public key: give --public-key (published by the server's operator, or "
            "printed by `tabletop-audit key`) or --target of the server that signed the game"
        )
    if args.file:
        with open(args.file, encoding="utf-8", errors="replace") as f:
            records = parse_export(read_lines(f))
    else:
        with TableClient(args.target or DEFAULT_TARGET) as client:
            history = client.as_viewer(args.game_id, args.token).history()
            records = parse_export(export_lines(history))
    report = verify(records, key, args.game_id)
    out = [
        f"verified: {report.kind} game {report.game_id}, {report.events} events, "
        f"{report.seals} moves signed by {key.hex()}, {report.moves_redecided} moves "
        f"re-decided, winners {list(report.winners)} ({report.reason})"
    ]
    if args.receipts:
        out.append(_receipts_line(records, args.receipts, key))
    return "\n".join(out)


def _receipts_line(records: list[Record], path: str, key: bytes) -> str:
    with open(path, encoding="utf-8", errors="replace") as f:
        saved = parse_receipts(f)
    checked = check_receipts(records, saved, key)
    moves = Replayed(records).check_all_hashes()
    return (
        f"receipts: {checked.receipts} verified for viewer(s) {list(checked.viewers)}; the "
        f"receipt hashes of all {moves} moves match the record for every viewer"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="tabletop-audit",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--target", default=None, help=f"server address (default {DEFAULT_TARGET})")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("key", help="print the server's public signing key (hex)")
    e = sub.add_parser("export", help="write a game's history as JSON Lines")
    e.add_argument("game_id")
    e.add_argument("--token", help="seat or arbiter token (complete for everyone after the end)")
    e.add_argument("-o", "--output", help="file to write (default stdout)")
    v = sub.add_parser("verify", help="verify a finished game, over the API or from a file")
    v.add_argument("game_id", nargs="?")
    v.add_argument("--token")
    v.add_argument("--file", help="an export: `tabletop-audit export` or `tabletop export`")
    v.add_argument("--public-key", help="the server's key: 64 hex digits or a file of them")
    v.add_argument("--receipts", help="a viewer's saved receipts to check against the record")
    args = p.parse_args(argv)
    target = args.target or DEFAULT_TARGET
    if args.command == "key":
        print(server_key(target).hex())
        return 0
    if args.command == "export":
        with TableClient(target) as client:
            lines = export_lines(client.as_viewer(args.game_id, args.token).history())
            out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout  # noqa: SIM115
            for line in lines:
                out.write(line + "\n")
            if args.output:
                out.close()
        return 0
    if not args.file and not args.game_id:
        p.error("verify needs a GAME_ID or --file")
    try:
        print(run_verify(args))
    except AuditFailure as exc:
        print(f"VERIFY FAILED: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"VERIFY FAILED: cannot read {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 1
    except grpc.RpcError as exc:
        print(f"VERIFY FAILED: the server at {target}: {exc.details()}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
