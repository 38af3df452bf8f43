"""Check a viewer's saved receipts against a verified record: ``tabletop-audit verify
--receipts FILE``.

Each saved payload must be exactly what redaction of the record gives that viewer at that
version, re-rendered through the server's own published rendering (``server.wire.render``,
``server.wire.receipts``): in an appeal, a seat proves what it was shown. ``Replayed.
check_all_hashes`` recomputes every viewer's hashes of every seal, so a third party can show
that no seat was sent other than its share of any move it holds a receipt for.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from clients.python.receipts import check_payload, check_signature, seal_hashes
from domain import table as tables
from domain.table import records as rec
from domain.verify import AuditFailure, PublicKeys, Record, moves
from server.wire import render
from server.wire.receipts import move_hashes, payload_bytes, receipt_nonce, render_move
from server.wire.stored import StoredEvent, seen_at
from tabletop.v1 import tabletop_pb2 as pb


@dataclass(frozen=True)
class ReceiptReport:
    receipts: int
    viewers: tuple[int, ...]  # the receipt viewer indexes seen
    key_ids: tuple[str, ...] = ()  # the keys that signed them, in order of first use


def check_receipts(
    records: list[Record], receipts: list[tuple[pb.Receipt, bytes]], public_key: PublicKeys
) -> ReceiptReport:
    """Each receipt against a record that ``domain.verify.verify`` accepted: signed by the
    key, naming the record's game, head and seal; its payload the one it hashes; and that
    payload exactly the record's redaction for its viewer at its version."""
    replayed = Replayed(records)
    signers: dict[str, None] = {}
    for receipt, payload in receipts:
        try:
            signers[check_signature(receipt, public_key)] = None
            part = check_payload(receipt, payload)
            replayed.check(receipt, part, payload)
        except AuditFailure:
            raise
        except Exception as exc:  # a hostile receipts file fails with a reason
            raise AuditFailure(f"a receipt cannot be read: {type(exc).__name__}: {exc}") from exc
    viewers = tuple(sorted({r.viewer for r, _ in receipts}))
    return ReceiptReport(len(receipts), viewers, tuple(signers))


class Replayed:
    """A verified record re-rendered per viewer, the way the server renders what it sends."""

    def __init__(self, records: list[Record]) -> None:
        self.records = records
        created = records[0].fact["data"]
        self.kind = str(created["kind"])
        revealed = records[-1].fact["data"]  # verified: the reveal is last
        self.secret, self.salt = str(revealed["secret"]), str(revealed.get("salt", ""))
        self.game_id = str(records[-1].seal["game_id"]) if records[-1].seal else ""
        self.facts = [tables.decode_event(self.kind, r.fact) for r in records]
        self.tables: list[tables.Table] = []
        table = None
        for fact in self.facts:
            table = tables.evolve(table, fact)
            self.tables.append(table)
        self.bounds = {last: first for first, last in moves(records)}

    def stored(self, first: int, last: int) -> list[StoredEvent]:
        return [self._stored(v) for v in range(first, last + 1)]

    def _stored(self, version: int) -> StoredEvent:
        r = self.records[version - 1]
        at = datetime.fromisoformat(r.recorded_at)
        return StoredEvent(version, at, self.facts[version - 1], r.hash, r.fact, r.cause, r.seal)

    def viewer(self, index: int) -> Any:
        return rec.receipt_viewers(self.tables[0].seat_count)[index]

    def render(self, first: int, last: int, index: int, part: str) -> bytes:
        viewer = self.viewer(index)
        table = self.tables[last - 1]
        if part == "view":
            head = self.records[last - 1].hash
            at = datetime.fromisoformat(self.records[last - 1].recorded_at)
            opened = self.records[table.draw_opened - 1] if table.draw_opened else None
            opened_at = None if opened is None else datetime.fromisoformat(opened.recorded_at)
            snap = seen_at(uuid.UUID(self.game_id), table, viewer, head, at=at, opened_at=opened_at)
            return payload_bytes(view=render.view_proto(snap))
        return payload_bytes(
            events=render.events_proto(self.kind, self.stored(first, last), viewer)
        )

    def check(self, receipt: pb.Receipt, part: str, payload: bytes) -> None:
        first, last = receipt.first_version, receipt.last_version
        where = f"the receipt of versions {first}..{last}"
        if receipt.game_id != self.game_id:
            raise AuditFailure(f"{where} is for game {receipt.game_id}, not {self.game_id}")
        if self.bounds.get(last) != first:
            raise AuditFailure(f"{where} is not for a move of the record")
        seal = self.records[last - 1].seal or {}
        if receipt.head_hash != seal.get("head") or seal_hashes(receipt) != seal.get("receipts"):
            raise AuditFailure(
                f"{where} was signed for another history than the record: the server signed "
                "two different versions of this game"
            )
        if bytes(receipt.nonce) != rec.receipt_nonce(self.secret, self.salt, last, receipt.viewer):
            raise AuditFailure(f"{where} carries a nonce that is not this viewer's")
        if self.render(first, last, receipt.viewer, part) != payload:
            raise AuditFailure(
                f"{where}: the {part} it covers is not what the record shows viewer "
                f"{receipt.viewer} at version {last}"
            )

    def hashes(self, first: int, last: int, views: bool) -> list[list[str]]:
        """Every viewer's salted hashes of the move ``first``..``last``: ``[events]``, or
        ``[events, view]`` (``views``: a seal made before views were signed on demand)."""
        table = self.tables[last - 1]
        rendered = render_move(self.kind, self.stored(first, last), table.seat_count)
        events = move_hashes(table, last, rendered)
        if not views:
            return events
        return [
            [
                e[0],
                rec.receipt_hash(
                    receipt_nonce(table, last, i), self.render(first, last, i, "view")
                ),
            ]
            for i, e in enumerate(events)
        ]

    def check_all_hashes(self) -> int:
        """Every seal's hashes, recomputed for every viewer: no viewer was sent other than
        its share of any move, whatever it saved. Returns the moves checked."""
        count = 0
        for last, first in sorted(self.bounds.items()):
            seal = self.records[last - 1].seal or {}
            got = self.hashes(first, last, views=len((seal.get("receipts") or [[]])[0]) > 1)
            if got != seal.get("receipts"):
                raise AuditFailure(
                    f"the seal of versions {first}..{last} lists receipt hashes that are not "
                    "the record's redaction for every viewer"
                )
            count += 1
        return count
