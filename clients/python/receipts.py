"""A viewer's receipts, saved as they arrive (``SeatClient(receipts=ReceiptLog())``).

Every Play and RevealContribution reply, view and Watch message carries a ``Receipt`` (protos/tabletop/v1): the
server's signature over a move's chain head and every viewer's salted payload hashes (a
view's receipt also carries the view's own signature).
``ReceiptLog`` keeps each receipt with exactly the payload it covers (the move's events, or
the view: a ``ReceiptPayload``) and saves them as JSON Lines ``{"payload": base64,
"receipt": base64}``. ``check_signature`` and ``check_payload`` let a client check a receipt
as soon as it arrives; after the game, ``tabletop-audit verify --receipts FILE``
(clients/python/audit_receipts.py) checks the saved payloads against the verified record.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections import Counter
from collections.abc import Iterable

from google.protobuf.message import DecodeError

from domain.table import records as rec
from domain.verify import AuditFailure, PublicKeys, key_ring, signed_by
from tabletop.v1 import tabletop_pb2 as pb


def payload_bytes(
    events: list[pb.GameEvent] | None = None, view: pb.GameView | None = None
) -> bytes:
    """The bytes a receipt covers (the proto's definition, as in server/wire/receipts.py)."""
    return pb.ReceiptPayload(events=events, view=view).SerializeToString(deterministic=True)


class ReceiptLog:
    """The receipts one viewer received, each with the payload it covers."""

    def __init__(self) -> None:
        self.entries: list[tuple[pb.Receipt, bytes]] = []
        self.counts: Counter[str] = Counter()  # receipts kept from play, view, watch
        self._moves: dict[tuple[int, int], list[pb.GameEvent]] = {}  # Watch: a move so far
        # Watch under receipts of format 3: the events sent since the stream's last receipt
        self._stream: list[pb.GameEvent] = []

    def new_stream(self) -> None:
        """A new Watch stream begins: its first receipt covers what it sends from now."""
        self._stream = []

    def play(
        self, reply: pb.PlayResponse | pb.RevealContributionResponse, game_id: str = ""
    ) -> None:
        """A Play (or RevealContribution) reply: the receipt covers its events. ``game_id``:
        the game, saved with a receipt of format 3 (which does not name it)."""
        if reply.HasField("receipt"):
            self._add(reply.receipt, payload_bytes(events=list(reply.events)), "play", game_id)

    def view(self, reply: pb.GetViewResponse, game_id: str = "") -> None:
        """A view's receipt covers the game's view; a match's standings (``match``) have a
        record of their own and are not part of it."""
        if reply.HasField("receipt"):
            view = pb.GameView()
            view.CopyFrom(reply.view)
            view.ClearField("match")
            self._add(reply.receipt, payload_bytes(view=view), "view", game_id)

    def watched(self, reply: pb.WatchResponse, game_id: str = "") -> None:
        """A Watch message (one event, or a batched move's ``events``): its move's receipt
        is kept once the move's last event came. A receipt of format 3 covers every event
        the stream sent since its previous receipt (a message may carry the receipt alone);
        give this the messages as received, before dropping any duplicate."""
        got = list(reply.events) or ([reply.event] if reply.HasField("event") else [])
        if not reply.HasField("receipt") or is_v3(reply.receipt):
            self._stream += got  # (format 2: every message of a move carries its receipt)
            if reply.HasField("receipt"):
                sent, self._stream = self._stream, []
                self._add(reply.receipt, payload_bytes(events=sent), "watch", game_id)
            return
        self._stream = []
        r = reply.receipt
        key = (r.first_version, r.last_version)
        events = self._moves.setdefault(key, [])
        events.extend(reply.events or [reply.event])
        if events[-1].version == r.last_version:
            del self._moves[key]
            self._add(r, payload_bytes(events=events), "watch")

    def _add(self, receipt: pb.Receipt, payload: bytes, source: str, game_id: str = "") -> None:
        copy = pb.Receipt()
        copy.CopyFrom(receipt)
        if is_v3(copy) and not copy.game_id:
            copy.game_id = game_id  # saved with it: the audit then needs no record to know it
        self.entries.append((copy, payload))
        self.counts[source] += 1

    def lines(self) -> list[str]:
        return [
            json.dumps(
                {
                    "payload": base64.b64encode(payload).decode(),
                    "receipt": base64.b64encode(r.SerializeToString(deterministic=True)).decode(),
                },
                sort_keys=True,
            )
            for r, payload in self.entries
        ]

    def save(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as f:
            for line in self.lines():
                f.write(line + "\n")


def parse_receipts(lines: Iterable[str]) -> list[tuple[pb.Receipt, bytes]]:
    out = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if len(line) > 4 << 20:
            raise AuditFailure(f"receipts line {n} is too long")
        try:
            data = json.loads(line)
            receipt = pb.Receipt.FromString(base64.b64decode(data["receipt"], validate=True))
            payload = base64.b64decode(data["payload"], validate=True)
        except (ValueError, KeyError, TypeError, DecodeError, RecursionError) as exc:
            raise AuditFailure(f"receipts line {n} is not a saved receipt ({exc})") from None
        out.append((receipt, payload))
    return out


def seal_hashes(receipt: pb.Receipt) -> list[list[str]]:
    """The receipt's hashes as its seal lists them: ``[events]`` per viewer, or ``[events,
    view]`` in a seal made before views were signed on demand (``records.seal_body``)."""
    if all(not h.view for h in receipt.hashes):
        return [[h.events] for h in receipt.hashes]
    return [[h.events, h.view] for h in receipt.hashes]


def is_v3(receipt: pb.Receipt) -> bool:
    """A receipt of format 3: its own signature over the hash of what its viewer was sent
    (``records.receipt_body``), the chain head as raw bytes."""
    return bool(receipt.head)


def check_signature(
    receipt: pb.Receipt, public_key: PublicKeys, payload: bytes | None = None, game_id: str = ""
) -> str:
    """The receipt is the server's: its seal verifies with ``public_key`` (given several,
    the one its ``key_id`` names), and so does its view's own signature if it has one.
    Returns the id of the key that signed it. A receipt of format 3 signs ``payload`` (the
    bytes it covers) itself, for its game (``game_id``, when the receipt does not name it:
    the client knows the game it watched, the audit the record's)."""
    if is_v3(receipt):
        return _check_v3(receipt, public_key, payload, game_id)
    body = rec.seal_body(
        receipt.game_id,
        receipt.first_version,
        receipt.last_version,
        receipt.head_hash,
        seal_hashes(receipt),
    )
    where = f"the receipt of versions {receipt.first_version}..{receipt.last_version}"
    ring = key_ring(public_key)
    kid = signed_by(ring, receipt.key_id, bytes(receipt.signature), body)
    if kid is None:
        raise AuditFailure(
            f"{where} is not signed by the given server key"
            + (f" (it names key {receipt.key_id})" if receipt.key_id else "")
        )
    if receipt.view_signature or receipt.view_hash:
        if not 0 <= receipt.viewer < len(receipt.hashes):
            raise AuditFailure(f"{where} names no viewer of its hashes")
        view = rec.view_body(
            receipt.game_id,
            receipt.last_version,
            receipt.head_hash,
            receipt.viewer,
            receipt.view_hash,
        )
        # signed when the view was asked for: by the key of then, which a rotation since
        # the move's seal may have changed (any of the given keys may have made it)
        if signed_by(ring, "", bytes(receipt.view_signature), view) is None:
            raise AuditFailure(f"{where}: its view's signature is not the server key's")
    return kid


def _check_v3(
    receipt: pb.Receipt, public_key: PublicKeys, payload: bytes | None, game_id: str
) -> str:
    where = f"the receipt of versions {receipt.first_version}..{receipt.last_version}"
    if payload is None:
        raise AuditFailure(f"{where} is of format 3: it is checked with the bytes it covers")
    game = receipt.game_id or game_id
    if not game:
        raise AuditFailure(f"{where} names no game, and none was given")
    if len(receipt.head) != 32 or len(receipt.signature) != 64:
        raise AuditFailure(f"{where} has no 32-byte head or no 64-byte signature")
    if not 1 <= receipt.first_version <= receipt.last_version or receipt.viewer < 0:
        raise AuditFailure(f"{where} names no versions or no viewer")
    body = rec.receipt_body(
        game,
        receipt.first_version,
        receipt.last_version,
        bytes(receipt.head).hex(),
        receipt.viewer,
        hashlib.sha256(payload).hexdigest(),
    )
    kid = signed_by(key_ring(public_key), receipt.key_id, bytes(receipt.signature), body)
    if kid is None:
        raise AuditFailure(
            f"{where} is not signed by the given server key over the bytes saved with it "
            "(altered, another game's, or another server's)"
        )
    return kid


NONCE_BYTES = 32  # HMAC-SHA256: a nonce of another length is no viewer's


class SignedGarbage(AuditFailure):
    """A receipt whose signed hash covers bytes that are not a ``ReceiptPayload`` (they do
    not decode): the server signed a statement of garbage. Nobody else can make bytes
    that match a hash the server signed (SHA-256 over the fixed 32-byte nonce and the
    payload), and an honest server only hashes what it rendered, which always decodes;
    ``tabletop-audit compare`` and ``verify --receipts`` report it as a proof."""

    def __init__(self, part: str, error: str) -> None:
        self.part = part  # the hash it matched: "events" or "view"
        self.error = error
        super().__init__(
            f"its {part} payload, covered by the signed hash, is not a message ({error})"
        )


def check_payload(receipt: pb.Receipt, payload: bytes) -> str:
    """The payload is the one the receipt hashes; returns which part it is (events/view).
    Bytes that hash right but do not decode raise ``SignedGarbage`` (an AuditFailure).
    A receipt of format 3 signs its payload's hash itself: ``check_signature`` checked it."""
    if is_v3(receipt):
        try:
            parsed = pb.ReceiptPayload.FromString(payload)
        except (DecodeError, RecursionError, ValueError) as exc:
            raise SignedGarbage("events", str(exc) or type(exc).__name__) from None
        return "view" if parsed.HasField("view") else "events"
    if not 0 <= receipt.viewer < len(receipt.hashes):
        raise AuditFailure("the receipt names no viewer of its hashes")
    if len(receipt.nonce) != NONCE_BYTES:
        raise AuditFailure(f"the receipt carries no {NONCE_BYTES}-byte nonce")
    hashes = receipt.hashes[receipt.viewer]
    own_view = bool(receipt.view_signature or receipt.view_hash)  # a view signed on its own
    expected = {"events": hashes.events, "view": receipt.view_hash if own_view else hashes.view}
    digest = rec.receipt_hash(bytes(receipt.nonce), payload)
    try:
        parsed = pb.ReceiptPayload.FromString(payload)
    except (DecodeError, RecursionError, ValueError) as exc:
        for part, signed in expected.items():
            if signed and signed == digest:
                raise SignedGarbage(part, str(exc) or type(exc).__name__) from None
        parsed = None
    part = "view" if parsed is not None and parsed.HasField("view") else "events"
    other = "events" if part == "view" else "view"
    if expected[part] != digest and expected[other] == digest:
        part = other  # signed as the other part: held against that (a payload of neither)
    if parsed is None or not expected[part] or digest != expected[part]:
        raise AuditFailure(
            f"the payload saved with the receipt of versions {receipt.first_version}.."
            f"{receipt.last_version} is not the one it covers (altered?)"
        )
    return part
