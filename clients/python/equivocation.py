"""Proof of a lying server: ``tabletop-audit compare``.

A game's chain has one hash at each version. Every statement the server signs pins it: a
seal or receipt names the head at the move's last version, and the payload a receipt covers
(its salted hash is in the signed seal) carries the hash of every event it holds
(``GameEvent.hash``) or the view's ``head_hash``. An honest server signs one seal per move,
so any two such statements about one game agree. Two that disagree at one version, each
validly signed, are a proof that the server showed two histories: nobody else holds the
key. This module collects the statements from several viewers' saved receipts (and a
verified export) and finds two that disagree.

A server can also tell one seat a lie with the true chain heads: render for it another
event (or view) than the record's and seal that rendering's hash. Then the receipt's signed
hash covers its payload, the record's seals sign the record's facts (through the head), and
the server's published rendering (``server.wire.render``) of those facts for that viewer
is not the payload: a ``RenderingLie``. A seal whose hash for a viewer is not the record's
rendering is one too, without any receipt; so is a receipt whose signed hash covers bytes
that are not a message (``receipts.SignedGarbage``). ``prove`` finds every kind, for
``tabletop-audit compare`` and ``verify --receipts`` alike.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from hashlib import sha256
from typing import Any, Literal

from clients.python.audit_receipts import Replayed
from clients.python.fielddiff import Differ
from clients.python.receipts import (
    SignedGarbage,
    check_payload,
    check_signature,
    is_v3,
    seal_hashes,
)
from domain.table.records import receipt_body, seal_body, stored_seal_body, view_body
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


Entry = tuple[pb.Receipt, bytes]


@dataclass(frozen=True)
class Signed:
    """One signed statement, as anyone checks it with the public key alone."""

    source: str
    head: str
    signed_bytes: bytes
    signature: str  # hex
    key_id: str

    def line(self) -> str:
        return (
            f"  {self.source}: signed bytes {json.dumps(self.signed_bytes.decode())}, "
            f"signature {self.signature}, key id {self.key_id}"
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "head": self.head,
            "signature": self.signature,
            "key_id": self.key_id,
            "signed_bytes": self.signed_bytes.decode(),
        }


@dataclass(frozen=True)
class Checked:
    """A saved receipt that verifies: signed by a trusted key, its payload the one its
    signed hash covers (``payload`` None: bytes that are not a message, ``error`` why)."""

    source: str
    receipt: pb.Receipt
    part: str  # "events" or "view"
    payload: bytes | None
    raw: bytes  # the saved payload as it is
    error: str
    key_id: str  # the key that signed its seal
    signed: Signed  # what the server signed of this part: the seal, or the view's own


@dataclass(frozen=True)
class RenderingLie:
    """The server signed, for one viewer, a payload that is not what the record (itself
    validly signed) shows that viewer: ``rendering`` (a receipt's payload), ``garbage``
    (a receipt's signed hash covers bytes that are not a message) or ``seal`` (a seal of
    the record lists a hash that is not the record's own rendering)."""

    kind: Literal["rendering", "garbage", "seal"]
    game_id: str
    first: int
    last: int
    viewer: int
    part: str
    differs: tuple[Differ, ...]
    statements: tuple[Signed, ...]  # the receipt's (if any), then the record's seal
    payload: str = ""  # the receipt's payload, base64
    nonce: str = ""  # the receipt's nonce, hex

    @property
    def version(self) -> int:
        return self.last

    @property
    def what(self) -> str:
        return {
            "rendering": f"{self.part} for viewer {self.viewer} that the record does not show",
            "garbage": f"a hash of bytes that are not a message as viewer {self.viewer}'s "
            f"{self.part}",
            "seal": f"a seal whose {self.part} hash for viewer {self.viewer} is not the "
            "record's rendering",
        }[self.kind]

    def lines(self) -> list[str]:
        return [
            f"PROOF: the server signed {self.what}, for game {self.game_id} at versions "
            f"{self.first}..{self.last}",
            *(f"  differs: {d.line()}" for d in self.differs),
            *(s.line() for s in self.statements),
        ]

    def as_json(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "version": self.last,
            "what": self.what,
            "kind": self.kind,
            "first": self.first,
            "last": self.last,
            "viewer": self.viewer,
            "part": self.part,
            "differs": [d.as_json() for d in self.differs],
            "statements": [s.as_json() for s in self.statements],
            "payload": self.payload,
            "nonce": self.nonce,
        }


def read_receipts(
    entries: Iterable[Entry], keys: PublicKeys, name: str, game_id: str = ""
) -> list[Checked]:
    """One viewer's saved receipts (``name``: the file), each checked: it must verify with
    one of ``keys`` and its payload must be the one it covers. A receipt that does not is
    no evidence of anything (AuditFailure); one whose signed hash covers bytes that are not
    a message is kept (``Checked.payload`` None): the server signed it. ``game_id``: the
    game of receipts of format 3 saved without one (the record's)."""
    ring = key_ring(keys)
    out = []
    for n, (saved, payload) in enumerate(entries, start=1):
        receipt = saved
        first, last = receipt.first_version, receipt.last_version
        source = f"{name} receipt {n} (versions {first}..{last}, viewer {receipt.viewer})"
        shown: bytes | None = payload
        error = ""
        try:
            kid = check_signature(receipt, keys, payload, game_id)
            try:
                part = check_payload(receipt, payload)
            except SignedGarbage as exc:
                part, shown, error = exc.part, None, exc.error
        except AuditFailure as exc:
            raise AuditFailure(f"{name} receipt {n}: {exc}") from None
        if is_v3(receipt):  # its own statement: the hash of what it covers, signed
            if not receipt.game_id:
                receipt = pb.Receipt()
                receipt.CopyFrom(saved)
                receipt.game_id = game_id
            head = bytes(receipt.head).hex()
            body = receipt_body(
                receipt.game_id, first, last, head, receipt.viewer, sha256(payload).hexdigest()
            )
            signed = Signed(source, head, body, bytes(receipt.signature).hex(), kid)
            out.append(Checked(source, receipt, part, shown, payload, error, kid, signed))
            continue
        body = seal_body(receipt.game_id, first, last, receipt.head_hash, seal_hashes(receipt))
        signed = Signed(source, receipt.head_hash, body, bytes(receipt.signature).hex(), kid)
        if part == "view" and (receipt.view_signature or receipt.view_hash):
            body = view_body(
                receipt.game_id, last, receipt.head_hash, receipt.viewer, receipt.view_hash
            )
            by = signed_by(ring, "", bytes(receipt.view_signature), body) or ""
            signed = Signed(
                source, receipt.head_hash, body, bytes(receipt.view_signature).hex(), by
            )
        out.append(Checked(source, receipt, part, shown, payload, error, kid, signed))
    return out


def receipt_statements(entries: Iterable[Entry], keys: PublicKeys, name: str) -> list[Statement]:
    """The statements of one viewer's saved receipts (``name``: the file), each checked
    (``read_receipts``)."""
    return checked_statements(read_receipts(entries, keys, name))


def checked_statements(checked: Iterable[Checked]) -> list[Statement]:
    out = []
    for c in checked:
        receipt = c.receipt
        first, last = receipt.first_version, receipt.last_version
        if is_v3(receipt):  # the head at its last version (not a seal: ``last`` 0)
            s = c.signed
            out.append(
                Statement(
                    receipt.game_id,
                    last,
                    s.head,
                    0,
                    s.signed_bytes,
                    s.signature,
                    s.key_id,
                    c.source,
                )
            )
            continue
        body = seal_body(receipt.game_id, first, last, receipt.head_hash, seal_hashes(receipt))
        signature = bytes(receipt.signature).hex()
        sealed = Statement(
            receipt.game_id, last, receipt.head_hash, last, body, signature, c.key_id, c.source
        )
        out.append(sealed)
        if c.payload is None:
            continue  # garbage: no chain hash to read (a RenderingLie of its own)
        shown = pb.ReceiptPayload.FromString(c.payload)
        if c.part == "view":
            if shown.HasField("view"):
                out.append(replace(sealed, version=shown.view.version, head=shown.view.head_hash))
        else:
            out += [replace(sealed, version=e.version, head=e.hash) for e in shown.events if e.hash]
    return out


def record_statements(
    records: list[Record], keys: PublicKeys, name: str, verified: str | None = None
) -> list[Statement]:
    """The statements of a complete export: it must verify (``domain.verify.verify``; pass
    ``verified``, the game id, for records already verified), and then every event's chain
    hash is one the server signed, through its move's seal."""
    if verified is None:
        verified = verify(records, keys, command_reader=read_signed_command).game_id
    ring = key_ring(keys)
    out = []
    for first, last in moves(records):
        seal = records[last - 1].seal or {}
        body = stored_seal_body(verified, seal)
        kid = signed_by(ring, seal.get("key_id", ""), bytes.fromhex(seal["signature"]), body)
        for r in records[first - 1 : last]:
            source = f"{name} version {r.version} (the seal of versions {first}..{last})"
            out.append(
                Statement(
                    verified,
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


Proof = Contradiction | RenderingLie


def prove(
    records: list[Record] | None,
    export: str,
    receipts: Iterable[tuple[str, list[Entry]]],
    keys: PublicKeys,
    verified: str | None = None,
) -> tuple[list[Statement], list[Proof]]:
    """Every proof of a lying server that the files hold: a complete export (``records``,
    read from ``export``; it must verify) and viewers' saved receipts (name, entries),
    each of which must verify (else AuditFailure: it proves nothing). Two statements that
    disagree (``contradictions``), and each ``RenderingLie``: a receipt's payload that is
    not the record's rendering for its viewer at its version (``Replayed.differs``, as
    ``verify --receipts`` re-renders), a receipt's signed garbage, a seal's hash that is not
    the record's rendering. Returns the statements read and the proofs, in game and version
    order. ``verified``: the game id of records already verified (not verified again)."""
    statements: list[Statement] = []
    lies: dict[tuple[str, int, int, str], RenderingLie] = {}
    replayed = None
    seal_of: dict[int, Signed] = {}
    if records is not None:
        statements += record_statements(records, keys, export, verified)
        replayed = Replayed(records)
        seal_of = {
            s.last: Signed(
                f"{export}, the seal of versions {replayed.bounds[s.last]}..{s.last}",
                s.head,
                s.body,
                s.signature,
                s.key_id,
            )
            for s in statements
            if s.version == s.last
        }
    for name, entries in receipts:
        checked = read_receipts(entries, keys, name, replayed.game_id if replayed else "")
        statements += checked_statements(checked)
        for c in checked:
            lie = _lie(c, replayed, seal_of)
            if lie is not None:
                lies.setdefault((lie.game_id, lie.last, lie.viewer, lie.part), lie)
    if replayed is not None:
        for first, last, viewer, column, sealed, rendered in replayed.seal_mismatches():
            part = ("events", "view")[column]
            key = (replayed.game_id, last, viewer, part)
            if key in lies:  # a receipt shows what was sent: its proof says more
                continue
            differ = Differ(f"seal.receipts[{viewer}][{column}]", rendered, sealed)
            lies[key] = RenderingLie(
                "seal", replayed.game_id, first, last, viewer, part, (differ,), (seal_of[last],)
            )
    found: list[Proof] = [*contradictions(statements), *lies.values()]
    found.sort(key=lambda p: (p.game_id, p.version, isinstance(p, RenderingLie)))
    return statements, found


def _lie(c: Checked, replayed: Replayed | None, seal_of: dict[int, Signed]) -> RenderingLie | None:
    """The receipt's payload held against the record's rendering (``Replayed.differs``);
    without the record, only signed garbage is a lie on its face."""
    r = c.receipt
    payload = base64.b64encode(c.raw).decode()
    args = (r.game_id, r.first_version, r.last_version, r.viewer, c.part)
    if replayed is None or not replayed.about(r, c.part):
        if c.payload is not None:
            return None
        differ = Differ("payload", "a ReceiptPayload", f"bytes that are not a message ({c.error})")
        return RenderingLie("garbage", *args, (differ,), (c.signed,), payload, bytes(r.nonce).hex())
    differs = replayed.differs(r, c.part, c.payload, c.error)
    if not differs:
        return None
    kind: Literal["rendering", "garbage"] = "garbage" if c.payload is None else "rendering"
    statements = (c.signed, seal_of[r.last_version])
    return RenderingLie(kind, *args, tuple(differs), statements, payload, bytes(r.nonce).hex())
