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
  tabletop-audit ratings --file EXPORT...     the ratings recomputed from verified exports
                                              (games and whole matches), as the server
                                              keeps them (docs/api.md, "Ratings")
  tabletop-audit compare --receipts A --receipts B [--file EXPORT]
                                              prove a lying server: two seats' receipts
                                              (and the record) signed for two different
                                              histories of one game, or a seat shown what
                                              the record does not show it; exit status 3

An export is per viewer while the game runs (redacted events, no stored form) and complete
after it ends. Each complete line is canonical JSON {"cause","fact","hash","recorded_at",
"seal","version"}; the verifier (domain/verify.py, the published engine) re-checks the
chain, the commitment, every move's seal against the server's public key, every keyed
seat's signature on each of its commands (and names the unkeyed seats and every re-key),
the deck derivation, and re-decides every command. The key comes from outside the file:
--public-key (the operator's published key; repeat it for the keys retired by a rotation),
else the server at --target (its current and retired keys). Each seal names the id of its
key; the output names the key that signed each part. Exit status 0 = verified, 1 = failed,
3 = `compare` or `verify --receipts` found a proof that the server lied. Options work before or after the command
and each has an environment variable (`--help` shows them).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import click
import grpc

from clients.python import audit_log
from clients.python.audit_ratings import board_json, recompute
from clients.python.audit_verify import (
    Verified,
    is_match_export,
    match_export_lines,
    match_json,
    match_line,
    parse_match_lines,
    parse_match_lines_log,
    public_keys_from,
    read_lines,
    seat_json,
    signing_keys,
    verify_records,
)
from clients.python.clibase import CONTEXT, option, run, shared, shared_options
from clients.python.client import TableClient
from clients.python.equivocation import Proof, Statement, prove
from clients.python.exports import export_lines
from clients.python.replay_html import write_from_records
from domain import translog
from domain.logaudit import (
    HeadsOutOfOrder,
    KeySet,
    LogFailure,
    LogProofs,
    SealRef,
    check_seals,
    head_problem,
    head_signed,
    seal_refs,
)
from domain.ratings import MODEL_NAME
from domain.table.records import key_id
from domain.verify import (
    AuditFailure,
    MatchReport,
    PublicKeys,
    Record,
    parse_export_log,
    verify_match,
)
from server.wire.signedcommands import read_signed_command
from tabletop.v1 import tabletop_pb2 as pb


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
    the key alone), then each key's retirement statement: "# KEY_ID retired for KEY_ID at
    tree size N of log LOG". --json prints the whole key set (keys, retirements, the logs'
    tree heads): the file `verify --keys` reads."""
    with TableClient(shared().target) as client:
        reply = client.stub.GetSigningKey(pb.GetSigningKeyRequest())
    if shared().json:
        print(json.dumps(audit_log.key_set_json(reply)))
        return
    print(reply.public_key.hex())
    for key in reply.retired:
        print(f"{key.public_key.hex()}  {key_id(key.public_key)}  retired")
    for statement in reply.retirements:
        sizes = ", ".join(f"{n} of log {i}" for i, n in sorted(statement.logs.items()))
        print(f"# {statement.retired} retired for {statement.successor} at tree size {sizes}")


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
@option(
    "--log/--no-log",
    "with_log",
    default=None,
    help="end with the log line (the default): a signed tree head and every seal's inclusion "
    "proof, so the file verifies against the transparency log offline; --log fails if the "
    "server cannot prove the record's seals (without it, a warning and no log line); "
    "--no-log leaves it out",
)
def cmd_export(
    game_id: str | None,
    token: str | None,
    output: str | None,
    match_id: str | None,
    with_log: bool | None,
) -> None:
    """Write a game's history (or a whole match's) as JSON Lines, one stored event per line,
    then the log line: the transparency log's proofs of its seals (docs/api.md)."""
    if bool(game_id) == bool(match_id):
        raise click.UsageError("give a GAME_ID or --match MATCH_ID (one of them)")
    with TableClient(shared().target) as client:
        if match_id:
            lines = list(match_export_lines(client, match_id, token))
            _, _, hands = parse_match_lines(lines)
            logged = [("match", match_id), *(("game", g) for g in hands)]
        else:
            lines = list(export_lines(client.as_viewer(game_id or "", token).history()))
            logged = [("game", game_id or "")]
        if with_log is not False:
            try:
                lines.append(audit_log.export_log_line(client, logged))
            except LogFailure as exc:  # a server without the log, or that does not know it
                if with_log:
                    raise click.ClickException(str(exc)) from None
                print(f"tabletop-audit export: {exc}; the export has no log line", file=sys.stderr)
    out = open(output, "w", encoding="utf-8") if output else sys.stdout  # noqa: SIM115
    try:
        for line in lines:
            out.write(line + "\n")
    finally:
        if output:
            out.close()


keys_option = option(
    "--keys",
    type=click.Path(exists=True, dir_okay=False),
    help="the server's key set, with its key retirements: a file `tabletop-audit key --json` "
    "wrote [default: --public-key, else ask --target]",
)
heads_option = option(
    "--heads",
    type=click.Path(dir_okay=False),
    help="a file of the tree heads seen before (JSON Lines): each head trusted now is checked "
    "against them and added; two of one size with different roots prove a forked log",
)

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
@keys_option
@heads_option
def cmd_verify(
    game_id: str | None,
    token: str | None,
    path: str | None,
    public_key: tuple[str, ...],
    receipts: str | None,
    html: str | None,
    match_id: str | None,
    keys: str | None,
    heads: str | None,
) -> None:
    """Verify a finished game, over the API (GAME_ID) or from an export file (--file); or
    a whole match (--match MATCH_ID, or --file with a match export)."""
    if sum(map(bool, (game_id, path, match_id))) != 1:
        raise click.UsageError("give a GAME_ID, --match MATCH_ID or --file FILE (one of them)")
    try:
        if match_id or (path and is_match_export(path)):
            if receipts or html:
                raise click.UsageError("--receipts and --html check one game, not a match")
            report, logged = verify_whole_match(match_id, token, path, public_key, keys, heads)
            if shared().json:
                print(json.dumps({**match_json(report), "log": logged}, ensure_ascii=False))
            else:
                print(f"{match_line(report)}; {logged}")
            return
        verified, checked, proven, logged = _verify(
            game_id, token, path, public_key, receipts, html, keys, heads
        )
    except (AuditFailure, LogFailure, grpc.RpcError, OSError) as exc:
        failed(_reason(exc))
    except Forked as exc:
        show_proofs([], exc.proofs, {"verified": False})
        raise SystemExit(LIED) from None
    if proven:  # the record verifies, and it and the receipts are signed contradictions
        statements, found = proven
        show_proofs(statements, found, {"verified": False})
        raise SystemExit(LIED)
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
            "log": logged,
        }
        if checked:
            out["receipts"] = checked
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(f"{verified.line()}; {logged}")
        if checked:
            print(checked)


def _verify(
    game_id: str | None,
    token: str | None,
    path: str | None,
    public_key: tuple[str, ...],
    receipts: str | None,
    html: str | None,
    keys_file: str | None = None,
    heads: str | None = None,
) -> tuple[Verified, str, tuple[list[Statement], list[Proof]] | None, str]:
    if html:  # an export that cannot be read writes no page: never leave an old one standing
        Path(html).unlink(missing_ok=True)
    with TableClient(shared().target) as client:
        keyset, server = _key_set(client, public_key, keys_file)
        key = list(keyset.keys.values())
        if path:
            with open(path, encoding="utf-8", newline="\n") as f:  # lines end in LF only
                try:
                    records, line = parse_export_log(read_lines(f))
                except HeadsOutOfOrder as exc:
                    _fork_or_refuse(exc, path, keyset)
        else:
            viewer = client.as_viewer(game_id or "", token)
            ended_or_refuse(viewer.view())
            records, line = parse_export_log(export_lines(viewer.history()))
        if html:  # before verifying: the page shows the verifier's finding, failed or not
            page = write_from_records(records, html, path or game_id or "", public_key=key)
            print(page, file=sys.stderr)
        verified = verify_records(records, key, game_id)
        game = verified.report.game_id
        seals = seal_refs(audit_log.game_seals(records), keyset)
        logged = _check_log(seals, line, keyset, server and client, [("game", game)], heads)
    if not receipts:
        return verified, "", None, logged
    checked, proven = _receipts(records, receipts, key, path or f"game {game}", game)
    if proven is None:
        known = [(f"{path or game} log line", h) for h in (line.heads if line else ())]
        known += list(audit_log.read_heads(heads)) if heads else []
        checked += _receipt_heads(receipts, keyset, known)
    return verified, checked, proven, logged


def _receipt_heads(path: str, keyset: KeySet, known: list[tuple[str, translog.TreeHead]]) -> str:
    """The tree heads the receipts carry (issue 36): each signed by a given key (retired
    or not: it was the server's word when it signed), and none a fork of another head of
    its log and size among them, the export's log line and --heads FILE (a proof, exit 3)."""
    from clients.python.receipts import parse_receipts

    with open(path, encoding="utf-8", errors="replace") as f:
        carried = audit_log.receipt_heads(path, parse_receipts(f))
    for source, head in carried:
        if not head_signed(head, keyset):
            raise AuditFailure(
                f"{source}: its tree head of log {head.log_id} is not signed by a given key"
            )
    found = audit_log.fork_proofs(known + carried, keyset)
    if found:
        raise Forked(found)
    return f"; {len(carried)} tree head(s) they carry signed and consistent" if carried else ""


def _fork_or_refuse(exc: HeadsOutOfOrder, path: str, keyset: KeySet) -> NoReturn:
    """A log line with two heads of one log: two validly signed ones of one size with
    different roots prove a forked log (exit 3), else the grammar refuses the line."""
    found = audit_log.fork_proofs([(f"{path} log line", h) for h in exc.heads], keyset)
    if found:
        raise Forked(found) from None
    raise exc


class Forked(Exception):
    """A tree head contradicts one seen before: the log forked (a proof, status 3)."""

    def __init__(self, proofs: list[audit_log.ForkProof]) -> None:
        super().__init__("a forked log")
        self.proofs = proofs


def _key_set(
    client: TableClient, public_key: tuple[str, ...], keys_file: str | None
) -> tuple[KeySet, bool]:
    """The key set to verify with, and whether it came from the server (which then serves
    the log's proofs too): --keys FILE, else --public-key, else the server at --target."""
    if keys_file:
        return audit_log.key_set_file(keys_file), False
    if public_key:
        return KeySet.plain(public_keys_from(public_key)), False
    return audit_log.key_set(client.stub.GetSigningKey(pb.GetSigningKeyRequest())), True


def _check_log(
    seals: list[SealRef],
    line: LogProofs | None,
    keyset: KeySet,
    client: TableClient | None | bool,
    records: list[tuple[str, str]],
    heads: str | None,
) -> str:
    """Every seal against the transparency log (domain/logaudit.py): proven by the export's
    log line, else by the server (when the keys came from it); the trusted heads added to
    --heads FILE, after checking them against the heads kept there."""
    sources = [line] if line is not None else []
    if isinstance(client, TableClient) and (line is None or not _proves_all(seals, line, keyset)):
        sources.append(audit_log.server_proofs(client, records))
    words = check_seals(seals, sources, keyset)
    if heads:
        trusted = [h for s in sources for h in s.heads if head_problem(h, keyset) is None]
        seen = list(audit_log.read_heads(heads))
        found = audit_log.fork_proofs(seen + [("this record", h) for h in trusted], keyset)
        if found:
            raise Forked(found)
        for h in trusted:
            audit_log.check_consistent(client if isinstance(client, TableClient) else None, seen, h)
        audit_log.keep_heads(heads, trusted)
    return words


def _proves_all(seals: list[SealRef], line: LogProofs, keyset: KeySet) -> bool:
    try:
        check_seals(seals, [line], keyset)
    except LogFailure:
        return False
    return True


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


def _receipts(
    records: list[Record], path: str, key: PublicKeys, export: str, game: str
) -> tuple[str, tuple[list[Statement], list[Proof]] | None]:
    """A viewer's receipts against the verified record: first every proof that the server
    lied (``equivocation.prove``, as ``compare`` finds them: the receipts and the record
    both validly signed and contradicting each other), else the receipts' own checks."""
    from clients.python.audit_receipts import Replayed, check_receipts
    from clients.python.receipts import parse_receipts

    with open(path, encoding="utf-8", errors="replace") as f:
        saved = parse_receipts(f)
    statements, found = prove(records, export, [(path, saved)], key, verified=game)
    if found:
        return "", (statements, found)
    replayed = Replayed(records)
    report = check_receipts(records, saved, key, replayed)
    moves = replayed.check_all_hashes()
    return (
        f"receipts: {report.receipts} verified for viewer(s) {list(report.viewers)}, signed "
        f"by key id(s) {', '.join(report.key_ids) or '?'}; the receipt hashes of all {moves} "
        "moves match the record for every viewer"
    ), None


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
    match_id: str | None,
    token: str | None,
    path: str | None,
    public_key: tuple[str, ...],
    keys_file: str | None = None,
    heads: str | None = None,
) -> tuple[MatchReport, str]:
    """A whole match, from its export file or over the API, every hand's seals checked with
    the server's key (``--public-key``, else the server at --target), and against the log."""
    with TableClient(shared().target) as client:
        keyset, server = _key_set(client, public_key, keys_file)
        key = list(keyset.keys.values())
        if path:
            with open(path, encoding="utf-8", newline="\n") as f:  # lines end in LF only
                try:
                    found, records, hands, line = parse_match_lines_log(read_lines(f))
                except HeadsOutOfOrder as exc:
                    _fork_or_refuse(exc, path, keyset)
        else:
            lines = list(match_export_lines(client, match_id or "", token))
            found, records, hands, line = parse_match_lines_log(lines)
        report = verify_match(found, records, hands, key, command_reader=read_signed_command)
        seals = seal_refs(audit_log.match_seals(records, hands), keyset)
        logged = [("match", found), *(("game", g) for g in hands)]
        words = _check_log(seals, line, keyset, server and client, logged, heads)
    return report, words


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
@heads_option
def cmd_compare(
    receipts: tuple[str, ...], path: str | None, public_key: tuple[str, ...], heads: str | None
) -> None:
    """Prove a lying server: compare several viewers' saved receipts (and the game's export)
    of the same games. Every receipt and seal the server signed names the chain hash at its
    versions; two validly signed ones that disagree at one version (another head, or another
    seal for one move) prove the server showed two histories. With the export, each
    receipt's payload is also held against the record re-rendered for its viewer at its
    version (as `verify --receipts` does), and each seal's hashes against the record's own
    rendering: a signed payload or seal that is not the record's rendering proves a lie to
    that viewer. A proof is printed (the game, the versions, the viewer, both signed
    statements, what differs) with exit status 3; otherwise it says the files agree
    (status 0). A receipt or export that does not verify with the key proves nothing:
    status 1. The export alone (--file) is checked against itself."""
    if len(receipts) < 2 and not path:
        raise click.UsageError(
            "give at least two files (--receipts FILE, repeated, and --file), or --file alone"
        )
    try:
        statements, found = _prove(receipts, path, public_key, heads)
    except (AuditFailure, LogFailure, grpc.RpcError, OSError) as exc:
        failed(_reason(exc))
    show_proofs(statements, found)
    if not found:
        sources = len(receipts) + bool(path)
        games = {s.game_id for s in statements}
        versions = len({(s.game_id, s.version) for s in statements})
        rendered = ", and every payload and seal is the record's rendering" if path else ""
        if not shared().json:
            print(
                f"agree: {sources} files, {len(statements)} signed statements about "
                f"{len(games)} game(s) at {versions} versions; no two disagree{rendered}"
            )
    if found:
        raise SystemExit(LIED)


Shown = Proof | audit_log.ForkProof  # what compare and verify print as a proof

LIED = 3  # the exit status of a proof that the server lied (`compare`, `verify --receipts`)


def show_proofs(
    statements: list[Statement], found: Sequence[Shown], extra: dict[str, Any] | None = None
) -> None:
    """Print the proofs (``--json``: {"agree", "games", "proofs"} and ``extra``); with none
    and no --json, nothing (the caller says what agreed)."""
    games = sorted({s.game_id for s in statements})
    if shared().json:
        out = {"agree": not found, "games": games, "proofs": [p.as_json() for p in found]}
        print(json.dumps({**(extra or {}), **out}, ensure_ascii=False))
    for proof in [] if shared().json else found:
        print("\n".join(proof.lines()))


def _prove(
    receipts: tuple[str, ...], path: str | None, public_key: tuple[str, ...], heads: str | None
) -> tuple[list[Statement], list[Shown]]:
    """The lies the files prove (``equivocation.prove``), and the forks of the log: two
    signed tree heads of one log and size with different roots (each receipt's tree head,
    the export's log line, and --heads FILE)."""
    from clients.python.receipts import parse_receipts

    if public_key:
        keys = public_keys_from(public_key)
    else:
        with TableClient(shared().target) as client:
            keys = signing_keys(client)
    records, seen = None, list(audit_log.read_heads(heads)) if heads else []
    if path:
        with open(path, encoding="utf-8", errors="replace") as f:
            try:
                records, line = parse_export_log(read_lines(f))
                seen += [(f"{path} log line", h) for h in (line.heads if line else ())]
            except HeadsOutOfOrder as exc:  # its heads may prove a forked log
                if not audit_log.fork_proofs(
                    [(f"{path} log line", h) for h in exc.heads], KeySet.plain(keys)
                ):
                    raise
                seen += [(f"{path} log line", h) for h in exc.heads]
    saved = []
    for name in receipts:
        with open(name, encoding="utf-8", errors="replace") as f:
            saved.append((name, parse_receipts(f)))
            seen += audit_log.receipt_heads(name, saved[-1][1])
    statements, found = prove(records, path or "", saved, keys)
    forks = audit_log.fork_proofs(seen, KeySet.plain(keys))
    return statements, [*found, *forks]


@command("ratings")
@option(
    "--file",
    "paths",
    multiple=True,
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="an export of a finished game or a whole match (repeat it: every rated result)",
)
@public_key_option
def cmd_ratings(paths: tuple[str, ...], public_key: tuple[str, ...]) -> None:
    """Recompute the ratings from exports alone: each is verified, then rated with the
    server's own model (OpenSkill Plackett–Luce, domain/ratings.py)."""
    try:
        if public_key:
            keys = public_keys_from(public_key)
        else:
            with TableClient(shared().target) as client:
                keys = signing_keys(client)
        folded, rated = recompute(paths, keys)
    except (AuditFailure, grpc.RpcError, OSError) as exc:
        failed(_reason(exc))
    if shared().json:
        print(json.dumps({"rated": rated, "boards": board_json(folded)}, ensure_ascii=False))
        return
    print(f"{rated} rated result(s) of {len(paths)} export(s); {MODEL_NAME}")
    for kind, board in board_json(folded).items():
        print(f"{kind}:")
        for r in board:
            print(
                f"  {r['place']:>3}  {r['player']}  ordinal {r['ordinal']:.3f}  "
                f"mu {r['mu']:.3f}  sigma {r['sigma']:.3f}  ({r['results']} rated)"
            )


def main(argv: list[str] | None = None) -> int:
    return run(audit, argv, "tabletop-audit")


if __name__ == "__main__":
    sys.exit(main())
