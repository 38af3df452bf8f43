"""Idempotency keys of CreateGame, JoinGame and StartGame (their ``request_id``).

A client that does not know whether its call got through (a timeout, a lost connection, an
UNAVAILABLE) sends the same request again with the same key and gets the original reply,
tokens included, and nothing is appended twice. The reasoning, as docs/api.md states it:

* **A key is a random UUID (version 4) the client draws for one request.** It is refused
  otherwise, so a key is as hard to guess as 122 random bits.
* **The key is bound to the request's content.** The stored cause carries ``check``, an
  HMAC of the request under the key; the same key with other content is INVALID_ARGUMENT
  and returns nothing.
* **Tokens are derived from the key, so nothing secret is stored.** A keyed CreateGame gets
  its game id (or its match id, whose first hand's id follows) and arbiter token, and a keyed JoinGame its seat token, as HMACs under the
  key. The store keeps only ``digest`` (a one-way hash of the key, to find the request) and
  the token's hash, as before. Whoever holds the key could recompute the token anyway, and
  the key travels with the very request whose reply carries the token, so a key is exactly
  as secret as that token and needs the same care (TLS, no logging). A reader of the store
  or of an exported history (causes are shown to the arbiter, and to everyone once the game
  is over) learns neither. Replicas need no shared secret and no configuration.

These are pure functions; ``server/usecases/`` stores ``cause_fields`` with the request's
first fact and looks requests up by ``digest``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import uuid
from typing import Any

from domain.engine import MalformedCommand
from domain.table import records


def parse(request_id: str) -> str | None:
    """The canonical key, or None when the client sent none."""
    if not request_id:
        return None
    try:
        key = uuid.UUID(request_id)
    except (ValueError, AttributeError):
        raise MalformedCommand("request_id", "must be a random UUID (version 4)") from None
    if key.version != 4 or key.variant != uuid.RFC_4122:
        raise MalformedCommand("request_id", "must be a random UUID (version 4)")
    return str(key)


def _mac(key: str, *parts: str) -> bytes:
    return hmac.new(key.encode(), "|".join(("tabletop", *parts)).encode(), "sha256").digest()


def digest(key: str) -> str:
    """What the store keeps to find a request: not enough to recompute anything."""
    return hashlib.sha256(f"tabletop-request|{key}".encode()).hexdigest()


def check(key: str, action: str, content: dict[str, Any]) -> str:
    """Binds the key to the request: the same key with other content does not match."""
    return _mac(key, "check", action, records.canonical(content)).hex()


def cause_fields(key: str, action: str, content: dict[str, Any]) -> dict[str, str]:
    """Stored in the cause of the request's first fact."""
    return {"request_key": digest(key), "request_check": check(key, action, content)}


def game_id(key: str) -> uuid.UUID:
    """The game a keyed CreateGame opens, so that its retry finds it."""
    return uuid.UUID(bytes=_mac(key, "game-id")[:16], version=4)


def match_id(key: str) -> uuid.UUID:
    """The match a keyed CreateGame with a match opens (its first hand's id follows)."""
    return uuid.UUID(bytes=_mac(key, "match-id")[:16], version=4)


def token(key: str, purpose: str, game: uuid.UUID, seat: int | None = None) -> str:
    """An arbiter or seat token (192 bits, like a random one) recomputed on every retry."""
    raw = _mac(key, "token", purpose, str(game), "" if seat is None else str(seat))
    return base64.urlsafe_b64encode(raw[:24]).decode()
