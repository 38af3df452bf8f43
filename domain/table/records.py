"""The stored form of a table: facts and states as JSON data, causes, the hash chain, seals.

Every stored event carries ``chain_hash``: HMAC-SHA256 keyed by ``chain_key(secret, salt)``
over the previous hash, the version, the fact, its cause and the time it was recorded. Keyed,
so a hash reveals nothing about a hidden fact while the game runs and can be shown to
everyone; recomputable by anyone once the secret and salt are revealed (ShuffleRevealed, at
the end).

The chain alone proves nothing to whoever holds the record (the record reveals its key), so
the last event of every move also carries a *seal*: the server's Ed25519 signature over the
game id, the move's versions, the chain head and the move's receipt hashes (``seal_body``).
Token hashes are not part of the chained fact: they are stored beside it (``split_private``)
and never leave the server.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import hmac
from datetime import UTC, datetime
from typing import Any

from domain.codec import canonical, from_data, to_data
from domain.engine import ARBITER, SPECTATOR, GameRules, Viewer
from domain.registry import rules_for
from domain.table.facts import TABLE_EVENT_TYPES, GameCreated
from domain.table.justice import facts as J
from domain.table.justice.state import JusticeState
from domain.table.state import Table


def chain_key(secret: str, salt: str) -> bytes:
    """Keyed by the secret and the random salt: a seeded table's secret is as guessable as
    its seed, the salt never is (both hidden until the end)."""
    return hashlib.sha256(f"tabletop-chain|{secret}|{salt}".encode()).digest()


def chain_hash(
    key: bytes,
    prev_hash: str,
    version: int,
    fact: dict[str, Any],
    cause: dict[str, Any] | None,
    recorded_at: str,
) -> str:
    """``recorded_at`` is ``timestamp_text`` of the time the event was stored: covered, so
    nobody can move a move in time (a turn's clock is read from these times)."""
    body = f"{prev_hash}|{version}|{canonical(fact)}|{canonical(cause)}|{recorded_at}"
    return hmac.new(key, body.encode(), hashlib.sha256).hexdigest()


def timestamp_text(at: datetime) -> str:
    """A stored time as chained and exported: UTC, RFC 3339, always six decimals."""
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


PRIVATE_FIELDS: dict[str, tuple[str, ...]] = {
    "GameCreated": ("arbiter_token_hash",),
    "SeatTaken": ("token_hash",),
}


def split_private(
    fact: dict[str, Any], private_fields: dict[str, tuple[str, ...]] = PRIVATE_FIELDS
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """A stored fact as chained and exported (its private fields blanked: a table's token
    hashes, a match's secret), and those fields kept beside it in the store (None when the fact
    has none). ``private_fields`` names them by fact type."""
    fields = private_fields.get(fact.get("type", ""))
    if not fields:
        return fact, None
    data = dict(fact["data"])
    private = {f: data.get(f, "") for f in fields}
    data.update(dict.fromkeys(fields, ""))
    return {**fact, "data": data}, private


def join_private(fact: dict[str, Any], private: dict[str, Any] | None) -> dict[str, Any]:
    """The inverse of split_private: the fact the server's own state is built from."""
    if not private:
        return fact
    return {**fact, "data": {**fact["data"], **private}}


# --- seals and receipts (docs/api.md, "Audit") ---------------------------------------------

SEAL_PREFIX = b"tabletop-seal/1\n"  # per viewer [events, view]: the seals made before issue 26
SEAL_PREFIX_EVENTS = b"tabletop-seal/2\n"  # per viewer [events]: views are signed on demand
VIEW_PREFIX = b"tabletop-view/1\n"


SEAL_PREFIX_HEAD = b"tabletop-seal/3\n"  # the chain head only: receipts are per viewer
RECEIPT_PREFIX = b"tabletop-receipt/3\n"


def stored_seal_body(game_id: str, seal: dict[str, Any]) -> bytes:
    """The bytes a stored seal signs: with its viewers' hashes (``tabletop-seal/1``, ``/2``)
    or without (``tabletop-seal/3``, whose seal has no ``receipts``)."""
    return seal_body(game_id, seal["first"], seal["last"], seal["head"], seal.get("receipts"))


def seal_body(
    game_id: str, first: int, last: int, head: str, receipts: list[list[str]] | None
) -> bytes:
    """The bytes the server signs at the end of a move (versions ``first``..``last``): the
    game, the chain head after the move, and per viewer (``receipt_viewers`` order) its
    salted payload hashes: ``[events]`` in a seal of today (``tabletop-seal/2``), or
    ``[events, view]`` in a seal made before views were signed on demand
    (``tabletop-seal/1``). The shape picks the prefix, so neither reads as the other.
    ``receipts`` None: a seal of format 3 (``tabletop-seal/3``), the game, the versions and
    the head alone; each viewer's receipt is then its own signature (``receipt_body``)."""
    if receipts is None:
        head_only = {"game_id": game_id, "first": first, "last": last, "head": head}
        return SEAL_PREFIX_HEAD + canonical(head_only).encode()
    prefix = SEAL_PREFIX_EVENTS if receipts and all(len(r) == 1 for r in receipts) else SEAL_PREFIX
    body = {"game_id": game_id, "first": first, "last": last, "head": head, "receipts": receipts}
    return prefix + canonical(body).encode()


def receipt_body(
    game_id: str, first: int, last: int, head: str, viewer: int, payload_hash: str
) -> bytes:
    """The bytes of one viewer's receipt of format 3: what the server signs for viewer
    ``viewer`` (``receipt_viewers`` order) of versions ``first``..``last`` (the chain head
    ``head`` at ``last``): ``payload_hash``, the SHA-256 (hex) of the ReceiptPayload the
    viewer was sent (its events, or its view). Not salted: nobody but that viewer is sent it."""
    body = {
        "first": first,
        "game_id": game_id,
        "head": head,
        "last": last,
        "payload": payload_hash,
        "viewer": viewer,
    }
    return RECEIPT_PREFIX + canonical(body).encode()


def view_body(game_id: str, version: int, head: str, viewer: int, view_hash: str) -> bytes:
    """The bytes the server signs when it sends a viewer its view at the end of a move
    (GetView): the game, the version, its chain head, the viewer's index and the salted
    hash of the view (signed on demand, once per game, version and viewer)."""
    body = {
        "game_id": game_id,
        "version": version,
        "head": head,
        "viewer": viewer,
        "view": view_hash,
    }
    return VIEW_PREFIX + canonical(body).encode()


def key_id(public_key: bytes) -> str:
    """A signing key's id: the first 16 hex digits of SHA-256 of its raw 32-byte Ed25519
    public key. Stored beside each seal's signature (not in the signed body) and carried by
    every receipt, so a verifier holding several keys knows which one to use."""
    return hashlib.sha256(public_key).hexdigest()[:16]


@functools.lru_cache(maxsize=32)
def receipt_viewers(seat_count: int) -> tuple[Viewer, ...]:
    """The viewers a seal has receipts for, in order: each seat, a spectator, the arbiter."""
    return (*(Viewer.of_seat(s) for s in range(seat_count)), SPECTATOR, ARBITER)


@functools.lru_cache(maxsize=256)
def receipt_index(viewer: Viewer, seat_count: int) -> int:
    return receipt_viewers(seat_count).index(viewer)


def receipt_nonce(secret: str, salt: str, last: int, index: int) -> bytes:
    """The salt of viewer ``index``'s receipt for the move ending at ``last``. Derived from
    the table's secret and random salt (a seed-derived secret alone would be guessable), so
    nothing is stored per viewer; only that viewer is sent it while the game runs, and
    anyone can recompute it once both are revealed."""
    inner, outer = _receipt_hmac(secret, salt)
    mac = inner.copy()
    mac.update(f"{last}|{index}".encode())
    done = outer.copy()
    done.update(mac.digest())
    return done.digest()


@functools.lru_cache(maxsize=4096)
def _receipt_hmac(secret: str, salt: str) -> tuple[Any, Any]:
    """HMAC-SHA256 (RFC 2104) keyed by the table's receipt key, its inner and outer hashes
    started once per game: a nonce is then two short SHA-256 continuations. (``hmac.digest``
    gives the same bytes but costs more, and releases the GIL for a microsecond's work, so the
    event loop may then wait a switch interval for the writer thread to hand it back.)"""
    key = hashlib.sha256(f"tabletop-receipt|{secret}|{salt}".encode()).digest().ljust(64, b"\0")
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in key))
    outer = hashlib.sha256(bytes(b ^ 0x5C for b in key))
    return inner, outer


def receipt_hash(nonce: bytes, payload: bytes) -> str:
    """SHA-256 of the nonce followed by exactly the payload bytes the viewer received."""
    return hashlib.sha256(nonce + payload).hexdigest()


def cause(action: str, seat: int | None = None, command: Any = None) -> dict[str, Any]:
    """What made a move's facts, stored with its first fact: the audit re-decides from it."""
    return {
        "action": action,
        "seat": seat,
        "command": None if command is None else encode_event(command),
    }


def encode_event(event: Any) -> dict[str, Any]:
    return {"type": type(event).__name__, "data": to_data(event)}


def decode_event(kind: str, data: dict[str, Any]) -> Any:
    name = data["type"]
    if name == "GameCreated":
        created: GameCreated = from_data(GameCreated, data["data"])  # options still raw data
        options_type = rules_for(created.kind).options_type
        return dataclasses.replace(created, options=from_data(options_type, created.options))
    if name == "MoveRetracted":
        retracted: J.MoveRetracted = from_data(J.MoveRetracted, data["data"])  # state raw
        state_type = rules_for(kind).state_type
        return dataclasses.replace(retracted, restored=from_data(state_type, retracted.restored))
    if name in TABLE_EVENT_TYPES:
        return from_data(TABLE_EVENT_TYPES[name], data["data"])
    return from_data(_event_types(rules_for(kind))[name], data["data"])


def _event_types(rules: GameRules) -> dict[str, type]:
    """A game's event types by name, made once per rules object (every read decodes)."""
    cached = _EVENT_TYPES.get(rules.name)
    if cached is None or cached[0] is not rules:
        cached = _EVENT_TYPES[rules.name] = (rules, {t.__name__: t for t in rules.event_types})
    return cached[1]


_EVENT_TYPES: dict[str, tuple[GameRules, dict[str, type]]] = {}


def encode_table(table: Table) -> dict[str, Any]:
    return to_data(table)


def decode_table(data: dict[str, Any]) -> Table:
    """The inverse of encode_table: the game-typed fields are decoded with the game's types."""
    rules = rules_for(data["kind"])
    generic = {k: v for k, v in data.items() if k not in _GAME_TYPED}
    plain: Table = from_data(Table, {**generic, "options": None, "game": None})
    return dataclasses.replace(
        plain,
        options=from_data(rules.options_type, data["options"]),
        game=None if data["game"] is None else from_data(rules.state_type, data["game"]),
        justice=_decode_justice(rules, data["justice"], plain.justice_budget_ms <= 0),
    )


def _decode_justice(rules: GameRules, data: dict[str, Any], legacy: bool) -> JusticeState:
    """Penalty records keep the game state they changed: decoded with the game's type. A
    snapshot made before ``legacy`` was kept takes it from its table (a record made before
    the justice budget)."""
    plain: JusticeState = from_data(JusticeState, {"legacy": legacy, **data, "penalties": []})
    penalties = tuple(
        dataclasses.replace(
            from_data(J.PenaltyRecord, {**p, "before": None}),
            before=None if p["before"] is None else from_data(rules.state_type, p["before"]),
        )
        for p in data["penalties"]
    )
    return dataclasses.replace(plain, penalties=penalties)


_GAME_TYPED = ("options", "game", "justice")
