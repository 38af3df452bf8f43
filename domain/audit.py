"""Audit: the shuffle commitment, the deck derivation and the keyed hash chain.

All published algorithms (docs/api.md, "Audit"):

* The server draws a 256-bit ``secret`` per table and publishes ``commitment(secret,
  prepared_deck)`` in GameCreated, before any seat joins.
* Each seat may add a ``contribution`` when it joins (SeatTaken, public).
* ``shuffle_seed(secret, contributions)`` seeds Python's Mersenne Twister, whose
  ``shuffle`` (Fisher-Yates) orders the mode's deck (``domain.table.shuffle``). Neither the
  server (committed before the contributions) nor any seat (blind to the secret) can
  choose the deal.
* Every stored event carries ``chain_hash``: HMAC-SHA256 keyed by ``chain_key(secret)``
  over the previous hash, the version, the fact and its cause. Keyed, so a hash reveals
  nothing about a hidden fact while the game runs and can be shown to everyone; verifiable
  by anyone once the secret is revealed (ShuffleRevealed, at the end).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any


def canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def commitment(secret: str, prepared_deck: tuple[int, ...] = ()) -> str:
    body = f"tabletop-commit|{secret}|{','.join(map(str, prepared_deck))}"
    return hashlib.sha256(body.encode()).hexdigest()


def shuffle_seed(secret: str, contributions: tuple[str, ...]) -> int:
    body = "tabletop-shuffle|" + "|".join((secret, *contributions))
    return int(hashlib.sha256(body.encode()).hexdigest()[:16], 16)


def secret_from_seed(seed: int) -> str:
    """A reproducible secret for tables created with an explicit seed (tests, replays)."""
    return hashlib.sha256(f"tabletop-seed|{seed}".encode()).hexdigest()


def chain_key(secret: str) -> bytes:
    return hashlib.sha256(f"tabletop-chain|{secret}".encode()).digest()


def chain_hash(
    key: bytes, prev_hash: str, version: int, fact: dict[str, Any], cause: dict[str, Any] | None
) -> str:
    body = f"{prev_hash}|{version}|{canonical(fact)}|{canonical(cause)}"
    return hmac.new(key, body.encode(), hashlib.sha256).hexdigest()
