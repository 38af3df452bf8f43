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
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from itertools import zip_longest
from typing import Any

from clients.python.fielddiff import Differ, payload_diffs
from clients.python.receipts import check_payload, check_signature, is_v3, seal_hashes
from domain import table as tables
from domain.table import records as rec
from domain.verify import AuditFailure, PublicKeys, Record, moves
from server.wire import render
from server.wire.receipts import (
    lean_events,
    move_hashes,
    payload_bytes,
    receipt_nonce,
    render_move,
)
from server.wire.stored import StoredEvent, seen_at
from tabletop.v1 import tabletop_pb2 as pb


@dataclass(frozen=True)
class ReceiptReport:
    receipts: int
    viewers: tuple[int, ...]  # the receipt viewer indexes seen
    key_ids: tuple[str, ...] = ()  # the keys that signed them, in order of first use


def check_receipts(
    records: list[Record],
    receipts: list[tuple[pb.Receipt, bytes]],
    public_key: PublicKeys,
    replayed: Replayed | None = None,
) -> ReceiptReport:
    """Each receipt against a record that ``domain.verify.verify`` accepted: signed by the
    key, naming the record's game, head and seal; its payload the one it hashes; and that
    payload exactly the record's redaction for its viewer at its version. (Which of these
    failures prove a lying server, ``equivocation.prove`` says: the audit asks it first.)"""
    replayed = replayed or Replayed(records)
    signers: dict[str, None] = {}
    for receipt, payload in receipts:
        try:
            signers[check_signature(receipt, public_key, payload, replayed.game_id)] = None
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
        # verified: the reveal is last, but for a redeal's secrets or a match's HandClosed
        revealed = next(
            (r.fact["data"] for r in reversed(records) if r.fact["type"] == "ShuffleRevealed"),
            records[-1].fact["data"],
        )
        self.secret, self.salt = str(revealed["secret"]), str(revealed.get("salt", ""))
        self.game_id = str(records[-1].seal["game_id"]) if records[-1].seal else ""
        self.facts = [tables.decode_event(self.kind, r.fact) for r in records]
        self.tables: list[tables.Table] = []
        # per version: the recorded times of the case facts so far (an open case's deadline
        # follows from them, as the server renders a view: ``seen_at``'s justice_times)
        self.case_times: list[dict[int, datetime]] = []
        times: dict[int, datetime] = {}
        table = None
        for r, fact in zip(records, self.facts, strict=True):
            table = tables.evolve(table, fact)
            self.tables.append(table)
            if isinstance(fact, tables.CLOCK_FACT_TYPES):
                times = {**times, r.version: datetime.fromisoformat(r.recorded_at)}
            self.case_times.append(times)
        self.bounds = {last: first for first, last in moves(records)}

    def stored(self, first: int, last: int) -> list[StoredEvent]:
        return [self._stored(v) for v in range(first, last + 1)]

    def _stored(self, version: int) -> StoredEvent:
        r = self.records[version - 1]
        at = datetime.fromisoformat(r.recorded_at)
        return StoredEvent(version, at, self.facts[version - 1], r.hash, r.fact, r.cause, r.seal)

    def viewer(self, index: int) -> Any:
        return rec.receipt_viewers(self.tables[0].seat_count)[index]

    def render(self, first: int, last: int, index: int, part: str, lean: bool = False) -> bytes:
        """What viewer ``index`` is sent of versions ``first``..``last`` (``part``: their
        events, or the view at ``last``); ``lean``: events without chain hashes, as sent
        with receipts of format 3."""
        viewer = self.viewer(index)
        table = self.tables[last - 1]
        if part == "view":
            head = self.records[last - 1].hash
            at = datetime.fromisoformat(self.records[last - 1].recorded_at)
            opened = self.records[table.draw_opened - 1] if table.draw_opened else None
            opened_at = None if opened is None else datetime.fromisoformat(opened.recorded_at)
            snap = seen_at(
                uuid.UUID(self.game_id),
                table,
                viewer,
                head,
                at=at,
                opened_at=opened_at,
                justice_times=self.case_times[last - 1],
            )
            return payload_bytes(view=render.view_proto(snap))
        if lean:
            return payload_bytes(events=lean_events(self.kind, self.stored(first, last), viewer))
        return payload_bytes(
            events=render.events_proto(self.kind, self.stored(first, last), viewer)
        )

    def _covers(self, receipt: pb.Receipt, view: bool = False) -> str:
        """Why a receipt of format 3 is not about this record ("" when it is): its game,
        versions that end at the end of a move of the record (a stream resumed in the middle
        of a move starts there), the record's head at its last version, one of the record's
        viewers."""
        first, last = receipt.first_version, receipt.last_version
        if (receipt.game_id or self.game_id) != self.game_id:
            return f"is for game {receipt.game_id}, not {self.game_id}"
        if view and (first != last or last not in self.bounds):
            return "is not of a view at the end of a move of the record"
        if not view and (last not in self.bounds or not 1 <= first <= last):
            return "does not end at the end of a move of the record"
        if bytes(receipt.head).hex() != self.records[last - 1].hash:
            return (
                "was signed for another history than the record: the server signed two "
                "different versions of this game"
            )
        if not 0 <= receipt.viewer < self.tables[0].seat_count + 2:
            return "names no viewer of the game"
        return ""

    def check(self, receipt: pb.Receipt, part: str, payload: bytes) -> None:
        first, last = receipt.first_version, receipt.last_version
        where = f"the receipt of versions {first}..{last}"
        if is_v3(receipt):
            if problem := self._covers(receipt, part == "view"):
                raise AuditFailure(f"{where} {problem}")
            if self.render(first, last, receipt.viewer, part, lean=True) != payload:
                raise AuditFailure(
                    f"{where}: the {part} it covers is not what the record shows viewer "
                    f"{receipt.viewer} at version {last}"
                )
            return
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

    def about(self, receipt: pb.Receipt, part: str = "events") -> bool:
        """Whether ``receipt`` is about a move of this very record: its game, its versions,
        the record's chain head there and the viewer's own nonce. Only then is its payload
        held against the record's rendering (another head or seal is a contradiction the
        statements show, ``equivocation.contradictions``)."""
        if is_v3(receipt):
            return not self._covers(receipt, part == "view")
        first, last = receipt.first_version, receipt.last_version
        return (
            receipt.game_id == self.game_id
            and self.bounds.get(last) == first
            and receipt.head_hash == self.records[last - 1].hash
            and 0 <= receipt.viewer < self.tables[0].seat_count + 2
            and bytes(receipt.nonce)
            == rec.receipt_nonce(self.secret, self.salt, last, receipt.viewer)
        )

    def differs(
        self, receipt: pb.Receipt, part: str, payload: bytes | None, error: str = ""
    ) -> list[Differ] | None:
        """What the receipt's payload (its ``part``, "events" or "view") shows its viewer
        that the record does not: each differing field (``fielddiff``), [] if it is exactly
        the record's rendering for that viewer at that version, None if the receipt is not
        about this record's move (``about``). ``payload`` None: bytes that are not a
        message (``receipts.SignedGarbage``, its ``error``). ``tabletop-audit compare`` and
        ``verify --receipts`` both ask this (``equivocation.prove``)."""
        if not self.about(receipt, part):
            return None
        first, last = receipt.first_version, receipt.last_version
        rendered = self.render(first, last, receipt.viewer, part, lean=is_v3(receipt))
        if payload is None:
            return [
                Differ(
                    "payload",
                    f"a ReceiptPayload of {len(rendered)} bytes",
                    f"bytes that are not a message ({error})",
                )
            ]
        if rendered == payload:
            return []
        shown = pb.ReceiptPayload.FromString(payload)  # check_payload decoded it already
        return payload_diffs(pb.ReceiptPayload.FromString(rendered), shown, rendered, payload)

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

    def seal_mismatches(self) -> Iterator[tuple[int, int, int, int, str, str]]:
        """Each seal's hash that is not the record's rendering for its viewer: ``(first,
        last, viewer, column, sealed, rendered)``, column 0 the events' hash, 1 the view's
        (seals before views were signed on demand). A verified record's seals are signed:
        each of these is the server's signed self-contradiction."""
        for last, first in sorted(self.bounds.items()):
            seal = self.records[last - 1].seal or {}
            if "receipts" not in seal:
                continue  # a seal of format 3 lists no hashes (receipts are signed apart)
            sealed: list[list[str]] = seal.get("receipts") or []
            got = self.hashes(first, last, views=len((sealed or [[]])[0]) > 1)
            if got == sealed:
                continue
            empty: list[str] = []
            for viewer, (mine, theirs) in enumerate(zip_longest(got, sealed, fillvalue=empty)):
                for column, (a, b) in enumerate(zip_longest(mine, theirs, fillvalue="")):
                    if a != b:
                        yield first, last, viewer, column, str(b), str(a)

    def check_all_hashes(self) -> int:
        """Every seal's hashes, recomputed for every viewer: no viewer was sent other than
        its share of any move, whatever it saved. Returns the moves checked."""
        for first, last, *_ in self.seal_mismatches():
            raise AuditFailure(
                f"the seal of versions {first}..{last} lists receipt hashes that are not "
                "the record's redaction for every viewer"
            )
        return sum(1 for last in self.bounds if "receipts" in (self.records[last - 1].seal or {}))
