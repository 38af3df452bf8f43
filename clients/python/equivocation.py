"""Proof of a lying server: ``tabletop-audit compare``.

A game's chain has one hash at each version. Every statement the server signs pins it: a
seal or receipt names the head at the move's last version, and the payload a receipt covers
(its salted hash is in the signed seal) carries the hash of every event it holds
(``GameEvent.hash``) or the view's ``head_hash``. An honest server signs one seal per move,
so any two such statements about one game agree. Two that disagree at one version, each
validly signed, are a proof that the server showed two histories: nobody else holds the
key. This module collects the statements from several viewers' saved receipts (and a
verified export) and finds two that disagree.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from clients.python.receipts import check_payload, check_signature, seal_hashes
from domain.table.records import seal_body
from domain.verify import AuditFailure, PublicKeys, Record, key_ring, moves, signed_by, verify
from server.wire.signedcommands import read_signed_command
from tabletop.v1 import tabletop_pb2 as pb


@dataclass(frozen=True)
class Statement:
    """What one signed seal says of a game at one version: its chain hash there (``head``),
    and for the version that ends the move, the whole signed body."""

    game_id: str
    version: int
    head: str
    last: int  # the last version of the seal's move
    body: bytes  # the seal's signed bytes (the same for every statement of one seal)
    signature: str  # hex
    key_id: str
    source: str  # where it was read: "seat0.jsonl line 12 (receipt of versions 5..7)"


@dataclass(frozen=True)
class Contradiction:
    """Two validly signed statements that one game had two histories."""

    game_id: str
    version: int
    first: Statement
    second: Statement

    @property
    def what(self) -> str:
        if self.first.head != self.second.head:
            return "two different chain heads"
        return "two different seals for one move"  # same head, other receipt hashes

    def lines(self) -> list[str]:
        return [
            f"PROOF: the server signed {self.what} for game {self.game_id} at version "
            f"{self.version}",
            *(
                f"  {s.source}: head {s.head}, signature {s.signature}, key id {s.key_id}"
                for s in (self.first, self.second)
            ),
        ]

    def as_json(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "version": self.version,
            "what": self.what,
            "statements": [
                {
                    "source": s.source,
                    "head": s.head,
                    "signature": s.signature,
                    "key_id": s.key_id,
                    "signed_bytes": s.body.decode(),
                }
                for s in (self.first, self.second)
            ],
        }


def receipt_statements(
    entries: Iterable[tuple[pb.Receipt, bytes]], keys: PublicKeys, name: str
) -> list[Statement]:
    """The statements of one viewer's saved receipts (``name``: the file). Each receipt must
    verify with one of ``keys`` and its payload must be the one it covers: a receipt that
    does not is no evidence of anything (AuditFailure)."""
    out = []
    for n, (receipt, payload) in enumerate(entries, start=1):
        first, last = receipt.first_version, receipt.last_version
        source = f"{name} receipt {n} (versions {first}..{last}, viewer {receipt.viewer})"
        try:
            kid = check_signature(receipt, keys)
            part = check_payload(receipt, payload)
        except AuditFailure as exc:
            raise AuditFailure(f"{name} receipt {n}: {exc}") from None
        body = seal_body(receipt.game_id, first, last, receipt.head_hash, seal_hashes(receipt))
        signature = bytes(receipt.signature).hex()
        sealed = Statement(
            receipt.game_id, last, receipt.head_hash, last, body, signature, kid, source
        )
        out.append(sealed)
        shown = pb.ReceiptPayload.FromString(payload)
        if part == "view":
            out.append(replace(sealed, version=shown.view.version, head=shown.view.head_hash))
        else:
            out += [replace(sealed, version=e.version, head=e.hash) for e in shown.events if e.hash]
    return out


def record_statements(records: list[Record], keys: PublicKeys, name: str) -> list[Statement]:
    """The statements of a complete export: it must verify (``domain.verify.verify``), and
    then every event's chain hash is one the server signed, through its move's seal."""
    report = verify(records, keys, command_reader=read_signed_command)
    ring = key_ring(keys)
    out = []
    for first, last in moves(records):
        seal = records[last - 1].seal or {}
        body = seal_body(report.game_id, first, last, seal["head"], seal["receipts"])
        kid = signed_by(ring, seal.get("key_id", ""), bytes.fromhex(seal["signature"]), body)
        for r in records[first - 1 : last]:
            source = f"{name} version {r.version} (the seal of versions {first}..{last})"
            out.append(
                Statement(
                    report.game_id,
                    r.version,
                    r.hash,
                    last,
                    body,
                    seal["signature"],
                    kid or "",
                    source,
                )
            )
    return out


def contradictions(statements: Iterable[Statement]) -> list[Contradiction]:
    """Each pair of statements that disagree: another head at one version, or (at a move's
    last version, same head) another signed seal. The first statement of each version is
    the one the others are held against."""
    heads: dict[tuple[str, int], Statement] = {}
    seals: dict[tuple[str, int], Statement] = {}
    found: dict[tuple[str, int], Contradiction] = {}
    for s in statements:
        key = (s.game_id, s.version)
        seen = heads.setdefault(key, s)
        if seen.head != s.head and key not in found:
            found[key] = Contradiction(s.game_id, s.version, seen, s)
        if s.version == s.last:
            sealed = seals.setdefault(key, s)
            if sealed.body != s.body and key not in found:
                found[key] = Contradiction(s.game_id, s.version, sealed, s)
    return [found[k] for k in sorted(found)]
