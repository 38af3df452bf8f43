"""The stored form of a match: facts as JSON data, its hash chain and its seals.

A match's chain is keyed by a random secret the server chooses at MatchCreated
(``chain_key``): kept beside the stored fact (``split_private``, blanked in the record) while
the match runs and revealed in MatchEnded, so anyone can check the chain once it has ended.
The facts each server action appends (a *move*) are signed like a hand's moves
(``seal_body``, ``tabletop-match-seal/1``): the seals tile the match's versions, so a match
cut short, extended or reordered no longer carries the server's signature. Records made
before issue 36 keyed the chain by the match id alone (``legacy_chain_key``) and were not
sealed: their length is not proven (``UNSEALED``).
"""

from __future__ import annotations

import hashlib
from typing import Any

from domain.codec import from_data, to_data
from domain.match.facts import MATCH_EVENT_TYPES
from domain.match.state import Match
from domain.table import records as table_records
from domain.table.records import canonical, chain_hash

MATCH_SEAL_PREFIX = b"tabletop-match-seal/1\n"
MATCH_SEAL_KEYS = frozenset(("match_id", "first", "last", "head", "signature"))
UNSEALED = "an unsealed match record (made before issue 36): its length is not proven"
PRIVATE_FIELDS: dict[str, tuple[str, ...]] = {"MatchCreated": ("secret",)}


def chain_key(match_id: str, secret: str) -> bytes:
    """The match chain's HMAC key: the match's secret (random, revealed at its end)."""
    return hashlib.sha256(f"tabletop-match-chain|{match_id}|{secret}".encode()).digest()


def legacy_chain_key(match_id: str) -> bytes:
    """The key of a match record made before issue 36: public, from the match id alone."""
    return hashlib.sha256(f"tabletop-match-chain|{match_id}".encode()).digest()


def fact_hash(match_id: str, secret: str, prev_hash: str, version: int, fact: Any) -> str:
    """A match fact's chain hash: no cause (``null``) and no time (``""``)."""
    return chain_hash(chain_key(match_id, secret), prev_hash, version, fact, None, "")


def legacy_fact_hash(match_id: str, prev_hash: str, version: int, fact: Any) -> str:
    return chain_hash(legacy_chain_key(match_id), prev_hash, version, fact, None, "")


def seal_body(match_id: str, first: int, last: int, head: str) -> bytes:
    """The bytes the server signs at the end of a match move (versions ``first``..``last``):
    the match and its chain head after the move."""
    body = {"match_id": match_id, "first": first, "last": last, "head": head}
    return MATCH_SEAL_PREFIX + canonical(body).encode()


def split_private(fact: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """A stored match fact as chained and exported (the secret blanked), and the secret kept
    beside it in the store (None for a fact that holds none)."""
    return table_records.split_private(fact, PRIVATE_FIELDS)


join_private = table_records.join_private


def encode_fact(fact: Any) -> dict[str, Any]:
    return {"type": type(fact).__name__, "data": to_data(fact)}


def decode_fact(data: dict[str, Any]) -> Any:
    return from_data(MATCH_EVENT_TYPES[data["type"]], data["data"])


def encode_match(match: Match) -> dict[str, Any]:
    return dict(to_data(match))


def decode_match(data: dict[str, Any]) -> Match:
    decoded: Match = from_data(Match, data)
    return decoded
