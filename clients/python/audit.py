"""`tabletop-audit`: export a game's stored history and verify it.

  tabletop-audit export GAME_ID [-o FILE]     JSON Lines, one stored event per line
  tabletop-audit verify GAME_ID               fetch over the API and verify
  tabletop-audit verify --file FILE           verify an export: this command's, or the one
                                              of `tabletop export` (either is read)

An export is per viewer while the game runs (redacted events, no stored form) and complete
after it ends. Each complete line is canonical JSON {"cause","fact","hash","version"}; the
verifier (domain/verify.py, the published engine) re-checks the chain, the commitment, the deck derivation
and re-decides every command. Exit status 0 = verified, 1 = failed. Options work before or
after the command and each has an environment variable (`--help` shows them).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import click
from google.protobuf.json_format import MessageToDict

from clients.python.clibase import CONTEXT, option, run, shared, shared_options
from clients.python.client import TableClient
from clients.python.replay_html import write_from_records
from domain.table.records import canonical
from domain.verify import AuditFailure, AuditReport, Record, verify
from tabletop.v1 import tabletop_pb2 as pb

MAKE_EXPORT = "make one after the game has ended with `tabletop-audit export GAME_ID -o game.jsonl`"


def export_lines(events: Iterable[pb.GameEvent]) -> Iterator[str]:
    for event in events:
        if event.stored_json:
            stored = json.loads(event.stored_json)
            yield canonical({"version": event.version, "hash": event.hash, **stored})
        else:  # still running and not the arbiter: the redacted event as the viewer saw it
            yield canonical(
                {"version": event.version, "hash": event.hash, "redacted": MessageToDict(event)}
            )


def _record(data: dict[str, Any], n: int) -> Record | None:
    """One line of either export form as a Record (None for the final view line)."""
    if "event" in data and isinstance(data["event"], dict):  # `tabletop export`
        event = data["event"]
        if not event.get("stored_json"):
            raise AuditFailure(
                f"line {n}: this `tabletop export` was made while the game was running, so its "
                f"events are redacted and cannot be verified; {MAKE_EXPORT}"
            )
        stored = json.loads(event["stored_json"])
        data = {"version": int(event["version"]), "hash": event.get("hash", ""), **stored}
    elif "view" in data and len(data) == 1:
        return None  # `tabletop export` ends with the final view
    elif "redacted" in data:
        raise AuditFailure(
            f"line {n}: a redacted export (made while the game was running, or without the "
            f"arbiter token) cannot be verified; {MAKE_EXPORT}"
        )
    if set(data) != {"version", "fact", "cause", "hash"}:
        raise AuditFailure(
            f"line {n} is neither a stored event nor a `tabletop export` line; {MAKE_EXPORT}"
        )
    return Record(data["version"], data["fact"], data["cause"], data["hash"])


def parse_lines(lines: Iterable[str]) -> list[Record]:
    """Either export form, line by line. The content is what the chain hashes (canonical JSON
    of each fact and cause), so a re-formatted file still verifies and an altered one fails
    on its hash, never on its layout."""
    records = []
    for n, line in enumerate(lines, start=1):
        line = line.strip()
        if not line:
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise AuditFailure(f"line {n} is not JSON ({exc.msg}); {MAKE_EXPORT}") from exc
        if not isinstance(data, dict):
            raise AuditFailure(f"line {n} is not a JSON object; {MAKE_EXPORT}")
        record = _record(data, n)
        if record is not None:
            records.append(record)
    return records


@dataclass(frozen=True)
class Verified:
    report: AuditReport
    commands: Counter[str]  # re-decided commands by action: play, join, start, timeout, ...

    @property
    def moves(self) -> int:
        """Commands sent with Play (game moves and table moves)."""
        return self.commands.get("play", 0)

    def line(self) -> str:
        r = self.report
        parts = ", ".join(f"{n} {_ACTION_WORDS.get(a, a)}" for a, n in self.commands.most_common())
        return (
            f"verified: {r.kind}, {r.events} events, {r.moves_redecided} commands re-decided "
            f"({parts}), winners {list(r.winners)} ({r.reason})"
            + (f"; {r.prepared_deal}" if r.prepared_deal else "")
        )


_ACTION_WORDS = {"play": "moves", "join": "joins", "reveal": "reveals", "start": "start"}


def verify_records(records: list[Record]) -> Verified:
    report = verify(records)
    actions = Counter(str(r.cause.get("action", "?")) for r in records[1:] if r.cause is not None)
    return Verified(report, actions)


def verify_lines(lines: Iterable[str]) -> AuditReport:
    return verify(parse_lines(lines))


@click.group(context_settings=CONTEXT, help=__doc__)
@shared_options
def audit() -> None:
    pass


def command(name: str) -> Any:
    def wrap(f: Any) -> Any:
        return audit.command(name)(shared_options(f))

    return wrap


@command("export")
@click.argument("game_id")
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
def cmd_export(game_id: str, token: str | None, output: str | None) -> None:
    """Write a game's history as JSON Lines, one stored event per line."""
    with TableClient(shared().target) as client:
        lines = list(export_lines(client.as_viewer(game_id, token).history()))
    out = open(output, "w", encoding="utf-8") if output else sys.stdout  # noqa: SIM115
    try:
        for line in lines:
            out.write(line + "\n")
    finally:
        if output:
            out.close()


@command("verify")
@click.argument("game_id", required=False)
@option("--token", envvar="TABLETOP_TOKEN", help="seat or arbiter token")
@option(
    "--file",
    "path",
    type=click.Path(exists=True, dir_okay=False),
    help="verify this export file instead of fetching",
)
@option(
    "--html",
    type=click.Path(dir_okay=False, writable=True),
    help="also write the HTML replay page of the game (written even if it fails to verify)",
)
def cmd_verify(game_id: str | None, token: str | None, path: str | None, html: str | None) -> None:
    """Verify a finished game, over the API (GAME_ID) or from an export file (--file)."""
    if bool(game_id) == bool(path):
        raise click.UsageError("give a GAME_ID or --file FILE (one of them)")
    try:
        if path:
            with open(path, encoding="utf-8") as f:
                records = parse_lines(f)
        else:
            with TableClient(shared().target) as client:
                lines = export_lines(client.as_viewer(game_id or "", token).history())
                records = parse_lines(lines)
        if html:  # before verifying: the page shows the verifier's finding, failed or not
            print(write_from_records(records, html, path or game_id or ""), file=sys.stderr)
        verified = verify_records(records)
    except AuditFailure as exc:
        if shared().json:
            print(json.dumps({"verified": False, "reason": str(exc)}, ensure_ascii=False))
        else:
            print(f"VERIFY FAILED: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    if shared().json:
        r = verified.report
        print(
            json.dumps(
                {
                    "verified": True,
                    "kind": r.kind,
                    "events": r.events,
                    "commands": dict(verified.commands),
                    "winners": list(r.winners),
                    "reason": r.reason,
                    "prepared_deal": r.prepared_deal,
                },
                ensure_ascii=False,
            )
        )
    else:
        print(verified.line())


def main(argv: list[str] | None = None) -> int:
    return run(audit, argv, "tabletop-audit")


if __name__ == "__main__":
    sys.exit(main())
