"""The stored form of a match: facts as JSON data, and its hash chain.

A match's facts are public (no hidden card), so its chain needs no secret key: the key is
derived from the match id alone (``chain_key``), and anyone can recompute every hash.
"""

from __future__ import annotations

import hashlib
from typing import Any

from domain.codec import from_data, to_data
from domain.match.facts import MATCH_EVENT_TYPES
from domain.match.state import Match
from domain.table.records import chain_hash


def chain_key(match_id: str) -> bytes:
    return hashlib.sha256(f"tabletop-match-chain|{match_id}".encode()).digest()


def fact_hash(match_id: str, prev_hash: str, version: int, fact: dict[str, Any]) -> str:
    return chain_hash(chain_key(match_id), prev_hash, version, fact, None, "")


def encode_fact(fact: Any) -> dict[str, Any]:
    return {"type": type(fact).__name__, "data": to_data(fact)}


def decode_fact(data: dict[str, Any]) -> Any:
    return from_data(MATCH_EVENT_TYPES[data["type"]], data["data"])


def encode_match(match: Match) -> dict[str, Any]:
    return dict(to_data(match))


def decode_match(data: dict[str, Any]) -> Match:
    decoded: Match = from_data(Match, data)
    return decoded
