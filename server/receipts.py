"""Seals and receipts: one signature per move covers every viewer (docs/api.md, "Audit").

At the end of each move ``Sealer`` renders the move for every viewer (each seat, a
spectator, the arbiter) exactly as the API will send it: the move's events and the view
after it. It hashes each rendering salted with that viewer's nonce, and signs the game id,
the move's versions, the chain head and that list of hashes in one Ed25519 signature, the
*seal*, stored with the move's last event. Every Play reply, view and Watch message then
carries a ``Receipt`` built from the stored seal and the viewer's nonce: nothing is signed
or stored per viewer or per stream.

``payload_bytes`` defines the bytes a receipt covers; the audit (clients/python/receipts.py)
renders a verified record through the same functions to check a seat's saved receipts.
"""

from __future__ import annotations

import uuid
from typing import Any

from domain import table as tables
from domain.engine import Viewer
from domain.table import records
from server import render
from server.eventstore import StoredEvent
from server.service import Snapshot
from server.signing import Signer
from tabletop.v1 import tabletop_pb2 as pb

Seal = dict[str, Any]


def payload_bytes(
    events: list[pb.GameEvent] | None = None, view: pb.GameView | None = None
) -> bytes:
    """The bytes a receipt hash covers: a ReceiptPayload holding what the viewer received."""
    payload = pb.ReceiptPayload(events=events or [])
    if view is not None:
        payload.view.CopyFrom(view)
    return payload.SerializeToString(deterministic=True)


def move_hashes(
    game_id: uuid.UUID, table: tables.Table, head: str, move: list[StoredEvent]
) -> list[list[str]]:
    """Each viewer's salted [events, view] hashes for ``move`` (``table``: after it)."""
    last = move[-1].version
    out = []
    for index, viewer in enumerate(records.receipt_viewers(table.seat_count)):
        nonce = records.receipt_nonce(table.secret, last, index)
        events = render.events_proto(table.kind, move, viewer)
        view = render.view_proto(Snapshot(game_id, last, table, viewer, head))
        out.append(
            [
                records.receipt_hash(nonce, payload_bytes(events=events)),
                records.receipt_hash(nonce, payload_bytes(view=view)),
            ]
        )
    return out


class Sealer:
    """Makes the seal of each move; ``TableServer`` calls it before the move is saved."""

    def __init__(self, signer: Signer) -> None:
        self.signer = signer

    def __call__(
        self, game_id: uuid.UUID, table: tables.Table, head: str, move: list[StoredEvent]
    ) -> Seal:
        first, last = move[0].version, move[-1].version
        hashes = move_hashes(game_id, table, head, move)
        body = records.seal_body(str(game_id), first, last, head, hashes)
        return {
            "game_id": str(game_id),
            "first": first,
            "last": last,
            "head": head,
            "receipts": hashes,
            "signature": self.signer.sign(body),
        }


def receipt(seal: Seal, table: tables.Table, viewer: Viewer) -> pb.Receipt:
    """``viewer``'s receipt from a stored seal: the seal and the viewer's own nonce."""
    index = records.receipt_index(viewer, table.seat_count)
    return pb.Receipt(
        game_id=seal["game_id"],
        first_version=seal["first"],
        last_version=seal["last"],
        head_hash=seal["head"],
        viewer=index,
        nonce=records.receipt_nonce(table.secret, seal["last"], index),
        hashes=[pb.ReceiptHashes(events=e, view=v) for e, v in seal["receipts"]],
        signature=bytes.fromhex(seal["signature"]),
    )


# --- the messages that carry receipts (the servicer and the leak hunts build them here) ---


def play_reply(
    kind: str, stored: list[StoredEvent], viewer: Viewer, after: Snapshot
) -> pb.PlayResponse:
    """A Play reply: the move's events for the caller, who is awaited next, the receipt."""
    reply = pb.PlayResponse(
        version=stored[-1].version,
        events=render.events_proto(kind, stored, viewer),
        to_act=render.to_act(after.table, after.viewer),
    )
    seal = stored[-1].seal
    if seal is not None:
        reply.receipt.CopyFrom(receipt(seal, after.table, viewer))
    return reply


def view_reply(snap: Snapshot, own: bool = True) -> pb.GetViewResponse:
    """A view, with its receipt when it is the caller's own view at the end of a move."""
    reply = pb.GetViewResponse(view=render.view_proto(snap))
    seal = snap.seal
    if own and seal is not None and seal["last"] == snap.version:
        reply.receipt.CopyFrom(receipt(seal, snap.table, snap.viewer))
    return reply


def watch_messages(
    kind: str, table: tables.Table, viewer: Viewer, events: list[StoredEvent]
) -> list[pb.WatchResponse]:
    """Watch messages for a batch of events: each with the receipt of its move, taken from
    the seal on the move's last event (a move not yet complete in this batch has none)."""
    out: list[pb.WatchResponse] = []
    waiting: list[pb.WatchResponse] = []  # messages of the move whose seal is still ahead
    for stored, msg in zip(events, render.events_proto(kind, events, viewer), strict=True):
        reply = pb.WatchResponse(event=msg)
        waiting.append(reply)
        if stored.seal is not None:
            signed = receipt(stored.seal, table, viewer)
            for r in waiting:
                if r.event.version >= stored.seal["first"]:
                    r.receipt.CopyFrom(signed)
            out += waiting
            waiting = []
    return out + waiting
