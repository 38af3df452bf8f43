"""Export a game's history and verify it: `python -m clients.python.audit --help`.

    export GAME_ID [--token T] [-o FILE]   JSON Lines, one stored event per line
    verify GAME_ID [--token T]             fetch over the API and verify
    verify --file FILE                     verify an exported file

An export is per viewer while the game runs (redacted events, no stored form) and complete
after it ends. Each complete line is canonical JSON {"cause","fact","hash","version"}; the
verifier (domain/verify.py, the published engine) re-checks the chain, the commitment, the
deck derivation and re-decides every move. Exit status 0 = verified, 1 = failed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator

from google.protobuf.json_format import MessageToDict

from clients.python.client import TableClient
from domain.table.records import canonical
from domain.verify import AuditFailure, AuditReport, Record, verify
from tabletop.v1 import tabletop_pb2 as pb


def export_lines(events: Iterable[pb.GameEvent]) -> Iterator[str]:
    for event in events:
        if event.stored_json:
            stored = json.loads(event.stored_json)
            yield canonical({"version": event.version, "hash": event.hash, **stored})
        else:  # still running and not the arbiter: the redacted event as the viewer saw it
            yield canonical(
                {"version": event.version, "hash": event.hash, "redacted": MessageToDict(event)}
            )


def parse_lines(lines: Iterable[str]) -> list[Record]:
    """Strict: every line must be canonical JSON of a complete record."""
    records = []
    for n, line in enumerate(lines, start=1):
        line = line.rstrip("\n")
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise AuditFailure(f"line {n} is not JSON: {exc}") from exc
        if canonical(data) != line:
            raise AuditFailure(f"line {n} is not in canonical form (altered?)")
        if set(data) != {"version", "fact", "cause", "hash"}:
            raise AuditFailure(f"line {n} is not a complete stored event (redacted export?)")
        records.append(Record(data["version"], data["fact"], data["cause"], data["hash"]))
    return records


def verify_lines(lines: Iterable[str]) -> AuditReport:
    return verify(parse_lines(lines))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="tabletop-audit",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--target", default="127.0.0.1:50051")
    sub = p.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export", help="write a game's history as JSON Lines")
    e.add_argument("game_id")
    e.add_argument("--token", help="seat or arbiter token (complete for everyone after the end)")
    e.add_argument("-o", "--output", help="file to write (default stdout)")
    v = sub.add_parser("verify", help="verify a finished game, over the API or from a file")
    v.add_argument("game_id", nargs="?")
    v.add_argument("--token")
    v.add_argument("--file")
    args = p.parse_args(argv)
    if args.command == "export":
        with TableClient(args.target) as client:
            lines = export_lines(client.as_viewer(args.game_id, args.token).history())
            out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout  # noqa: SIM115
            for line in lines:
                out.write(line + "\n")
            if args.output:
                out.close()
        return 0
    try:
        if args.file:
            with open(args.file, encoding="utf-8") as f:
                report = verify_lines(f)
        elif args.game_id:
            with TableClient(args.target) as client:
                report = verify_lines(
                    export_lines(client.as_viewer(args.game_id, args.token).history())
                )
        else:
            p.error("verify needs a GAME_ID or --file")
    except AuditFailure as exc:
        print(f"VERIFY FAILED: {exc}", file=sys.stderr)
        return 1
    print(
        f"verified: {report.kind}, {report.events} events, {report.moves_redecided} moves "
        f"re-decided, winners {list(report.winners)} ({report.reason})"
        + (f"; {report.prepared_deal}" if report.prepared_deal else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
