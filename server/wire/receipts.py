"""Seals and receipts: one signature per move covers every viewer (docs/api.md, "Audit").

At the end of each move ``Sealer`` renders the move's events for every viewer (each seat, a
spectator, the arbiter) exactly as the API will send them, hashes each rendering salted with
that viewer's nonce, and signs the game id, the move's versions, the chain head and that
list of hashes in one Ed25519 signature, the *seal* (``tabletop-seal/2``), stored with the
move's last event. Every Play reply and Watch message then carries a ``Receipt`` built from
the stored seal and the viewer's nonce: nothing is signed or stored per viewer or per stream.

A view is not rendered with every move: it is rendered, hashed and signed when a viewer
asks for one (GetView at the end of a move), and that signed view is kept per (game,
version, viewer), so a second ask costs nothing. Seals made before this (``tabletop-seal/1``)
hash every viewer's view too; their receipts are served and checked as they were.

``payload_bytes`` defines the bytes a receipt covers; the audit (clients/python/receipts.py)
renders a verified record through the same functions to check a seat's saved receipts.
"""

from __future__ import annotations

import hashlib
import uuid
from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime
from typing import Any

from domain import table as tables
from domain import translog
from domain.engine import Viewer, replaced
from domain.match import records as match_records
from domain.table import records
from server.wire import render
from server.wire.signing import Signer
from server.wire.stored import Snapshot, StoredEvent
from tabletop.v1 import tabletop_pb2 as pb

Seal = dict[str, Any]


def payload_bytes(
    events: list[pb.GameEvent] | None = None, view: pb.GameView | None = None
) -> bytes:
    """The bytes a receipt hash covers: a ReceiptPayload holding what the viewer received
    (clients/python/receipts.py builds the message itself). Written from each part's own
    bytes, as ``events_payload`` does: a message built to hold them would copy a whole view
    only to serialise it."""
    out = events_payload(events, {}) if events else b""
    if view is not None:
        data = view.SerializeToString(deterministic=True)
        out += _VIEW_TAG + _varint(len(data)) + data
    return out


Rendered = list[list[pb.GameEvent]]  # per viewer: a move's events


def render_move(kind: str, move: list[StoredEvent], seat_count: int) -> Rendered:
    """``move``'s events as each viewer (``receipt_viewers`` order) is sent them. A fact
    that every viewer sees alike is rendered once and shared by their lists."""
    return render.events_for_each(kind, move, records.receipt_viewers(seat_count))


def move_hashes(table: tables.Table, last: int, rendered: Rendered) -> list[list[str]]:
    """Each viewer's salted ``[events]`` hash of a rendered move (a seal's ``receipts``).
    Viewers who see an event alike hold the very same message (``render_move``): it is
    serialised once, and only the salted hash is each viewer's own."""
    serialised: dict[int, bytes] = {}  # the lists are alive here: ids are not reused
    out = []
    for index, events in enumerate(rendered):
        payload = events_payload(events, serialised)
        out.append([records.receipt_hash(receipt_nonce(table, last, index), payload)])
    return out


def events_payload(events: list[pb.GameEvent], serialised: dict[int, bytes]) -> bytes:
    """``payload_bytes(events=events)`` from each event's own bytes (kept in ``serialised``
    by the message's id): a ReceiptPayload's field 1, repeated, is each event's
    deterministic encoding behind its tag and length, so no payload message is built."""
    parts: list[bytes] = []
    for event in events:
        data = serialised.get(id(event))
        if data is None:
            data = serialised[id(event)] = event.SerializeToString(deterministic=True)
        parts += (_EVENTS_TAG, _varint(len(data)), data)
    return b"".join(parts)


_EVENTS_TAG = b"\x0a"  # ReceiptPayload.events: field 1, length-delimited
_VIEW_TAG = b"\x12"  # ReceiptPayload.view: field 2, length-delimited


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def receipt_nonce(table: tables.Table, last: int, index: int) -> bytes:
    return records.receipt_nonce(table.secret, table.salt, last, index)


def view_hash(table: tables.Table, version: int, index: int, view: pb.GameView) -> str:
    """The salted hash of a view sent to viewer ``index`` at ``version`` (a move's last)."""
    return records.receipt_hash(receipt_nonce(table, version, index), payload_bytes(view=view))


SignedView = tuple[pb.GameView, str, bytes]  # the view as sent, its salted hash, signature


class Sealer:
    """Makes the seal of each move; ``Games.seal`` calls it before the move is saved.

    The events rendered for the seal of each game's latest move are kept (for
    ``LATEST_GAMES`` games), so the Play reply and the Watch streams that follow send those
    very messages instead of rendering them again; they are keyed by the move's chain head,
    which no other move can share. Signed views are kept for ``VIEWS`` (game, version,
    viewer) keys.
    """

    LATEST_GAMES = 256  # the replies and streams that follow a move use them within ms
    VIEWS = 1024
    # The memory the kept signed views may take: a view lists every case of its hand, so a
    # count alone let 1,024 views of a long justice history hold about a GB (issue 38;
    # docs/benchmarks.md, "A long justice history"). A view held in memory takes about
    # VIEW_MEMORY_FACTOR times its serialised size (measured: 8.2x for a view of 1,000 cases).
    VIEW_BYTES = 32 * 2**20
    VIEW_MEMORY_FACTOR = 8

    def __init__(
        self, signer: Signer, view_bytes: int | None = None, receipt_format: int = 2
    ) -> None:
        self.signer = signer
        # 3: seals of the chain head alone, and one signature per viewer's receipt over the
        # hash of what it was sent (``receipt3``); 2: one seal lists every viewer's hashes
        self.v3 = receipt_format == 3
        self._receipts3: OrderedDict[tuple[str, int, int, str, int, bytes], bytes] = OrderedDict()
        # the latest signed head of a game's transparency log, by game id (set where the
        # server keeps logs: server/startup/main.py); receipts carry it
        self.tree_head: Callable[[uuid.UUID], translog.TreeHead | None] | None = None
        self.view_bytes = self.VIEW_BYTES if view_bytes is None else view_bytes
        self._latest: OrderedDict[str, tuple[int, str, Rendered]] = OrderedDict()  # by game id
        self._views: OrderedDict[tuple[uuid.UUID, int, str, int], SignedView] = OrderedDict()
        self._view_sizes: dict[tuple[uuid.UUID, int, str, int], int] = {}
        self._views_held = 0  # bytes of the kept views (their ByteSize)

    def __call__(
        self, game_id: uuid.UUID, table: tables.Table, head: str, move: list[StoredEvent]
    ) -> Seal:
        first, last = move[0].version, move[-1].version
        if self.v3:  # nothing rendered here: each viewer's receipt is signed when it is sent
            body = records.seal_body(str(game_id), first, last, head, None)
            return {
                "game_id": str(game_id),
                "first": first,
                "last": last,
                "head": head,
                "signature": self.signer.sign(body),
                "key_id": self.signer.key_id,
            }
        rendered = render_move(table.kind, move, table.seat_count)
        hashes = move_hashes(table, last, rendered)
        body = records.seal_body(str(game_id), first, last, head, hashes)
        self._latest[str(game_id)] = (last, head, rendered)
        self._latest.move_to_end(str(game_id))
        if len(self._latest) > self.LATEST_GAMES:
            self._latest.popitem(last=False)
        return {
            "game_id": str(game_id),
            "first": first,
            "last": last,
            "head": head,
            "receipts": hashes,
            "signature": self.signer.sign(body),
            "key_id": self.signer.key_id,  # beside the signature, outside the signed body
        }

    RECEIPTS3 = 4096  # signatures kept: a retried Play, a second stream of one viewer

    def receipt3(
        self, game_id: str, first: int, last: int, head: str, index: int, payload: bytes
    ) -> pb.Receipt:
        """Viewer ``index``'s receipt of format 3 for ``payload`` (the ReceiptPayload bytes
        it was sent: versions ``first``..``last``, chain head ``head`` at ``last``): one
        signature over ``records.receipt_body``. Ed25519 is deterministic: signing the same
        statement again (a retried Play after a restart) gives the same bytes."""
        digest = hashlib.sha256(payload).digest()
        key = (game_id, first, last, head, index, digest)
        signature = self._receipts3.get(key)
        if signature is None:
            body = records.receipt_body(game_id, first, last, head, index, digest.hex())
            signature = self._receipts3[key] = bytes.fromhex(self.signer.sign(body))
            if len(self._receipts3) > self.RECEIPTS3:
                self._receipts3.popitem(last=False)
        return pb.Receipt(
            first_version=first,
            last_version=last,
            viewer=index,
            head=bytes.fromhex(head),
            signature=signature,
        )

    def seal_match(self, match_id: uuid.UUID, first: int, last: int, head: str) -> Seal:
        """The seal of a match move (its facts ``first``..``last``, the chain head after
        them): ``tabletop-match-seal/1``, stored with the move's last fact."""
        body = match_records.seal_body(str(match_id), first, last, head)
        return {
            "match_id": str(match_id),
            "first": first,
            "last": last,
            "head": head,
            "signature": self.signer.sign(body),
            "key_id": self.signer.key_id,  # beside the signature, outside the signed body
        }

    def rendered(self, seal: Seal, index: int) -> list[pb.GameEvent] | None:
        """What sealing rendered for viewer ``index`` of this seal's move, if still kept."""
        kept = self._latest.get(seal["game_id"])
        if kept is None or kept[0] != seal["last"] or kept[1] != seal["head"]:
            return None
        return kept[2][index]

    def signed_view(self, snap: Snapshot) -> SignedView:
        """The view ``snap`` shows, its salted hash and the server's signature of both
        (``records.view_body``): rendered and signed once per game, version and viewer."""
        index = records.receipt_index(snap.seen_by, snap.table.seat_count)
        key = (snap.game_id, snap.version, snap.head_hash, index)
        if (kept := self._views.get(key)) is not None:
            self._views.move_to_end(key)
            return kept
        view = render.view_proto(snap)
        digest = view_hash(snap.table, snap.version, index, view)
        body = records.view_body(str(snap.game_id), snap.version, snap.head_hash, index, digest)
        signed = (view, digest, bytes.fromhex(self.signer.sign(body)))
        self._keep_view(key, signed)
        return signed

    def _keep_view(self, key: tuple[uuid.UUID, int, str, int], signed: SignedView) -> None:
        """Keep a signed view, forgetting the least recently asked past ``VIEWS`` views or
        ``view_bytes`` bytes of memory (a view larger than the whole budget is not kept)."""
        size = signed[0].ByteSize() * self.VIEW_MEMORY_FACTOR
        if size > self.view_bytes:
            return
        self._views[key] = signed
        self._view_sizes[key] = size
        self._views_held += size
        while len(self._views) > self.VIEWS or self._views_held > self.view_bytes:
            old, _ = self._views.popitem(last=False)
            self._views_held -= self._view_sizes.pop(old)


def tree_head_proto(head: translog.TreeHead) -> pb.TreeHead:
    return pb.TreeHead(
        log_id=head.log_id,
        size=head.size,
        root=bytes.fromhex(head.root),
        timestamp_ms=head.timestamp,
        key_id=head.key_id,
        signature=bytes.fromhex(head.signature),
    )


def _head(sealer: Sealer | None, seal: Seal) -> pb.TreeHead | None:
    """The latest tree head of the sealed game's log, where the server keeps logs."""
    if sealer is None or sealer.tree_head is None:
        return None
    head = sealer.tree_head(uuid.UUID(seal["game_id"]))
    if head is None:
        return None
    kept = _HEAD_PROTOS.get(head.log_id)
    if kept is None or kept[0] is not head:  # a new head: made into a message once
        kept = _HEAD_PROTOS[head.log_id] = (head, tree_head_proto(head))
    return kept[1]


_HEAD_PROTOS: dict[str, tuple[translog.TreeHead, pb.TreeHead]] = {}  # by log id: the latest


def receipt(
    seal: Seal, table: tables.Table, viewer: Viewer, head: pb.TreeHead | None = None
) -> pb.Receipt:
    """``viewer``'s receipt from a stored seal: the seal and the viewer's own nonce, and
    ``head``, the latest tree head of the game's log when the receipt is first made. Shared:
    every message of the move for this viewer copies it (``CopyFrom``), none changes it."""
    index = records.receipt_index(viewer, table.seat_count)
    key = (seal["game_id"], seal["last"], seal["head"], index)
    if (kept := _RECEIPTS.get(key)) is not None:
        return kept
    made = pb.Receipt(
        game_id=seal["game_id"],
        first_version=seal["first"],
        last_version=seal["last"],
        head_hash=seal["head"],
        viewer=index,
        nonce=receipt_nonce(table, seal["last"], index),
        hashes=[
            pb.ReceiptHashes(events=h[0], view=h[1] if len(h) > 1 else "") for h in seal["receipts"]
        ],
        signature=bytes.fromhex(seal["signature"]),
        key_id=seal.get("key_id", ""),  # "" for a seal stored before keys had ids
        tree_head=head,
    )
    _RECEIPTS[key] = made
    if len(_RECEIPTS) > RECEIPTS_KEPT:
        _RECEIPTS.popitem(last=False)
    return made


# The receipts of recent moves per viewer: a move's Play reply and its Watch messages (one
# per stream of each viewer, and a message per event unbatched) carry the same receipt.
RECEIPTS_KEPT = 2048
_RECEIPTS: OrderedDict[tuple[str, int, str, int], pb.Receipt] = OrderedDict()


# --- the messages that carry receipts (the servicer and the leak hunts build them here) ---
# ``sealer`` is the server's (None only where nothing is signed: then there are no receipts)


def _kept(
    sealer: Sealer | None, seal: Seal | None, table: tables.Table, viewer: Viewer
) -> list[pb.GameEvent] | None:
    if sealer is None or seal is None:
        return None
    return sealer.rendered(seal, records.receipt_index(viewer, table.seat_count))


def play_reply(
    sealer: Sealer | None, kind: str, stored: list[StoredEvent], viewer: Viewer, after: Snapshot
) -> pb.PlayResponse:
    """A Play reply: the move's events for the caller, who is awaited next, the receipt."""
    seal = stored[-1].seal
    if sealer is not None and sealer.v3 and seal is not None:
        events = lean_events(kind, stored, viewer)
        reply = pb.PlayResponse(
            version=stored[-1].version,
            events=events,
            to_act=render.to_act(after.table, after.viewer),
        )
        index = records.receipt_index(viewer, after.table.seat_count)
        reply.receipt.CopyFrom(
            sealer.receipt3(
                seal["game_id"],
                stored[0].version,
                stored[-1].version,
                stored[-1].hash,
                index,
                events_payload(events, {}),
            )
        )
        return reply
    whole = seal is not None and stored[0].version == seal["first"]
    kept = _kept(sealer, seal, after.table, viewer) if whole else None
    events = kept if kept is not None else render.events_proto(kind, stored, viewer)
    reply = pb.PlayResponse(
        version=stored[-1].version,
        events=events,
        to_act=render.to_act(after.table, after.viewer),
    )
    if seal is not None:
        reply.receipt.CopyFrom(receipt(seal, after.table, viewer, _head(sealer, seal)))
    return reply


def reveal_reply(
    sealer: Sealer | None,
    version: int,
    stored: list[StoredEvent],
    awaiting: tuple[int, ...],
    deadline: datetime | None,
    viewer: Viewer,
    after: Snapshot | None,
) -> pb.RevealContributionResponse:
    """A RevealContribution reply: whom the deal still waits for, and the acknowledgement:
    the move that took the reveal (the first time, for a repeat), for the caller, with its
    receipt, as a Play reply."""
    reply = pb.RevealContributionResponse(version=version, awaiting_reveals=awaiting)
    if deadline is not None:
        reply.reveal_deadline.FromDatetime(deadline)
    if stored and after is not None:
        moved = play_reply(sealer, after.table.kind, stored, viewer, after)
        reply.events.extend(moved.events)
        if moved.HasField("receipt"):
            reply.receipt.CopyFrom(moved.receipt)
    return reply


def commit_reply(
    sealer: Sealer | None,
    version: int,
    stored: list[StoredEvent],
    awaiting: tuple[int, ...],
    deadline: datetime | None,
    viewer: Viewer,
    after: Snapshot | None,
) -> pb.CommitContributionResponse:
    """A CommitContribution reply: whom the draw still waits for, and the acknowledgement
    (the move that took the commitment, for the caller, with its receipt)."""
    reply = pb.CommitContributionResponse(version=version, awaiting_commitments=awaiting)
    if deadline is not None:
        reply.deadline.FromDatetime(deadline)
    if stored and after is not None:
        moved = play_reply(sealer, after.table.kind, stored, viewer, after)
        reply.events.extend(moved.events)
        if moved.HasField("receipt"):
            reply.receipt.CopyFrom(moved.receipt)
    return reply


def view_reply(sealer: Sealer | None, snap: Snapshot, own: bool = True) -> pb.GetViewResponse:
    """A view, with its receipt when it is the caller's own view at the end of a move."""
    seal = snap.seal
    if not own or seal is None or seal["last"] != snap.version:
        return pb.GetViewResponse(view=render.view_proto(snap))
    if sealer is not None and sealer.v3:
        reply = pb.GetViewResponse(view=render.view_proto(replaced(snap, match=None)))
        index = records.receipt_index(snap.seen_by, snap.table.seat_count)
        signed = sealer.receipt3(
            seal["game_id"],
            snap.version,
            snap.version,
            snap.head_hash,
            index,
            payload_bytes(view=reply.view),
        )
        head = _head(sealer, seal)
        if head is not None:
            signed.tree_head.CopyFrom(head)
        reply.receipt.CopyFrom(signed)
        if snap.match is not None:
            reply.view.match.CopyFrom(render.match_proto(snap.match, snap.table.hand))
        return reply
    signed = pb.Receipt()
    signed.CopyFrom(receipt(seal, snap.table, snap.seen_by, _head(sealer, seal)))  # whose view
    if len(seal["receipts"][0]) > 1 or sealer is None:  # a seal that hashed every view
        reply = pb.GetViewResponse(view=render.view_proto(snap))
    else:  # the view signed now (or when it was first asked for)
        view, digest, signature = sealer.signed_view(replaced(snap, match=None))
        reply = pb.GetViewResponse(view=view)
        signed.view_hash, signed.view_signature = digest, signature
    reply.receipt.CopyFrom(signed)
    if snap.match is not None:  # the match has a record of its own: outside this receipt
        reply.view.match.CopyFrom(render.match_proto(snap.match, snap.table.hand))
    return reply


def watch_messages(
    sealer: Sealer | None,
    kind: str,
    table: tables.Table,
    viewer: Viewer,
    events: list[StoredEvent],
    batched: bool = False,
) -> list[pb.WatchResponse]:
    """Watch messages for a batch of events: each with the receipt of its move, taken from
    the seal on the move's last event (a move not yet complete in this batch has none).
    ``batched`` (WatchRequest.batched) packs each move's events into one message."""
    if sealer is not None and sealer.v3:  # the stream signs what it sent (StreamReceipts)
        lean = lean_events(kind, events, viewer)
        if batched:
            return [pb.WatchResponse(events=lean)] if lean else []
        return [pb.WatchResponse(event=e) for e in lean]
    if batched:
        return _batched_messages(sealer, kind, table, viewer, events)
    return _watch_messages(sealer, kind, table, viewer, events)


def _batched_messages(
    sealer: Sealer | None,
    kind: str,
    table: tables.Table,
    viewer: Viewer,
    events: list[StoredEvent],
) -> list[pb.WatchResponse]:
    """``_one_a_move(_watch_messages(...))`` built directly: each move's events in one message
    with the move's receipt, copied into it once (not once per event and again per move)."""
    out: list[pb.WatchResponse] = []
    move: list[StoredEvent] = []  # the events of the move whose seal is still ahead
    carried: list[pb.GameEvent] = []  # rendered events whose message is still ahead
    for stored in events:
        move.append(stored)
        seal = stored.seal
        if seal is None:
            continue
        kept = _kept(sealer, seal, table, viewer) if move[0].version == seal["first"] else None
        rendered = kept if kept is not None else render.events_proto(kind, move, viewer)
        carried += rendered
        if seal["last"] == stored.version:  # (always: a seal is stored with its last event)
            signed = receipt(seal, table, viewer, _head(sealer, seal))
            out.append(pb.WatchResponse(events=carried, receipt=signed))
            carried = []
        move = []
    carried += render.events_proto(kind, move, viewer)
    if carried:  # a move whose last event is not stored yet (or a record without seals)
        out.append(pb.WatchResponse(events=carried))
    return out


def lean_events(kind: str, stored: list[StoredEvent], viewer: Viewer) -> list[pb.GameEvent]:
    """Events as sent with receipts of format 3: without their chain hashes (the receipt
    carries the head at its last version). Shared with the event's other viewers who see
    it alike (``render.lean_event_proto``): not to be changed."""
    return [render.lean_event_proto(kind, e, viewer) for e in stored]


class StreamReceipts:
    """What one Watch stream sent since its last receipt of format 3, and when it signs.

    Every event the stream sends is hashed as it goes (a ReceiptPayload's bytes, message
    after message); a receipt covers all of them, versions ``first``..``last``, for one
    viewer of one game. The stream signs on the message that gives its seat a turn (a seat
    acts on signed bytes only), once ``EVERY`` versions are unsigned, before a gap (its own
    moves left out), a change of viewer (the game's end opens every view) or of game, and
    at the stream's end (a message with the receipt alone)."""

    EVERY = 16

    def __init__(self, sealer: Sealer, seat_count: int, named: bool = False) -> None:
        self.sealer = sealer
        self.seat_count = seat_count
        self.named = named  # messages name their hand (follow_match)
        self._reset()

    def _reset(self) -> None:
        self.game_id = ""
        self.index = -1
        self.first = self.last = 0
        self.head = ""
        self.parts: list[bytes] = []

    @property
    def pending(self) -> bool:
        return bool(self.parts)

    def continues(self, game_id: str, viewer: Viewer, first: int) -> bool:
        """Whether events from ``first`` on, for ``viewer`` of ``game_id``, extend what is
        pending (else the pending ones are signed first: ``flush``)."""
        index = records.receipt_index(viewer, self.seat_count)
        return not self.parts or (
            game_id == self.game_id and index == self.index and first == self.last + 1
        )

    def add(
        self, game_id: str, viewer: Viewer, events: list[pb.GameEvent], heads: dict[int, str]
    ) -> None:
        """``events`` were sent (``heads``: the chain hash by version)."""
        if not events:
            return
        if not self.parts:
            self.game_id = game_id
            self.index = records.receipt_index(viewer, self.seat_count)
            self.first = events[0].version
        for event in events:
            data = event.SerializeToString(deterministic=True)
            self.parts += (_EVENTS_TAG, _varint(len(data)), data)
        self.last = events[-1].version
        self.head = heads[self.last]

    def due(self, turn: bool) -> bool:
        return bool(self.parts) and (turn or self.last - self.first + 1 >= self.EVERY)

    def sign(self) -> pb.Receipt:
        """The receipt of what is pending; nothing is pending after it."""
        made = self.sealer.receipt3(
            self.game_id, self.first, self.last, self.head, self.index, b"".join(self.parts)
        )
        self._reset()
        return made

    def flush(self) -> pb.WatchResponse:
        """A message with the pending events' receipt alone."""
        game_id = self.game_id if self.named else ""
        return pb.WatchResponse(game_id=game_id, receipt=self.sign())


def _one_a_move(messages: list[pb.WatchResponse]) -> list[pb.WatchResponse]:
    """The same events, one move a message (`events`), each move with its receipt: what a
    batched stream sends, by definition (``_batched_messages`` builds it directly;
    tests/server/test_watch_batched.py holds the two alike)."""
    out: list[pb.WatchResponse] = []
    move: list[pb.GameEvent] = []
    for msg in messages:
        move.append(msg.event)
        if msg.HasField("receipt") and msg.receipt.last_version == msg.event.version:
            out.append(pb.WatchResponse(events=move, receipt=msg.receipt))
            move = []
    if move:  # a move whose last event is not stored yet (or a record without seals)
        out.append(pb.WatchResponse(events=move))
    return out


def _watch_messages(
    sealer: Sealer | None,
    kind: str,
    table: tables.Table,
    viewer: Viewer,
    events: list[StoredEvent],
) -> list[pb.WatchResponse]:
    out: list[pb.WatchResponse] = []
    move: list[StoredEvent] = []  # the events of the move whose seal is still ahead
    for stored in events:
        move.append(stored)
        seal = stored.seal
        if seal is None:
            continue
        kept = _kept(sealer, seal, table, viewer) if move[0].version == seal["first"] else None
        rendered = kept if kept is not None else render.events_proto(kind, move, viewer)
        signed = receipt(seal, table, viewer, _head(sealer, seal))
        for e, msg in zip(move, rendered, strict=True):
            reply = pb.WatchResponse(event=msg)
            if e.version >= seal["first"]:
                reply.receipt.CopyFrom(signed)
            out.append(reply)
        move = []
    out += [pb.WatchResponse(event=msg) for msg in render.events_proto(kind, move, viewer)]
    return out
