"""The stored form of a table: facts and states as JSON data, causes, and the hash chain.

Every stored event carries ``chain_hash``: HMAC-SHA256 keyed by ``chain_key(secret)`` over
the previous hash, the version, the fact and its cause. Keyed, so a hash reveals nothing
about a hidden fact while the game runs and can be shown to everyone; verifiable by anyone
once the secret is revealed (ShuffleRevealed, at the end).
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
from typing import Any

from domain.codec import from_data, to_data
from domain.engine import GameRules
from domain.registry import rules_for
from domain.table.facts import TABLE_EVENT_TYPES, GameCreated
from domain.table.justice import facts as J
from domain.table.justice.state import JusticeState
from domain.table.state import Table


def canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def chain_key(secret: str) -> bytes:
    return hashlib.sha256(f"tabletop-chain|{secret}".encode()).digest()


def chain_hash(
    key: bytes, prev_hash: str, version: int, fact: dict[str, Any], cause: dict[str, Any] | None
) -> str:
    body = f"{prev_hash}|{version}|{canonical(fact)}|{canonical(cause)}"
    return hmac.new(key, body.encode(), hashlib.sha256).hexdigest()


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
    return {t.__name__: t for t in rules.event_types}


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
        justice=_decode_justice(rules, data["justice"]),
    )


def _decode_justice(rules: GameRules, data: dict[str, Any]) -> JusticeState:
    """Penalty records keep the game state they changed: decoded with the game's type."""
    plain: JusticeState = from_data(JusticeState, {**data, "penalties": []})
    penalties = tuple(
        dataclasses.replace(
            from_data(J.PenaltyRecord, {**p, "before": None}),
            before=None if p["before"] is None else from_data(rules.state_type, p["before"]),
        )
        for p in data["penalties"]
    )
    return dataclasses.replace(plain, penalties=penalties)


_GAME_TYPED = ("options", "game", "justice")
