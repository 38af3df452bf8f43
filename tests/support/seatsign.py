"""Seat-signed commands in process, as the server records them (docs/api.md, "Seat
signatures"): the request a seat sends for a recorded cause, rendered with the server's own
``render_moves.move_proto``, signed with ``seatsig.sign``, kept in the cause as ``signed``. For the
verifier's tests and the adversary harness."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from google.protobuf.message import Message

from domain import table as tables
from server.wire import render_moves, seatsig
from tabletop.v1 import tabletop_pb2 as pb

METHOD = {
    "join": "JoinGame",
    "play": "Play",
    "commit": "CommitContribution",
    "reveal": "RevealContribution",
    "start": "StartGame",
    "rekey": "RekeySeat",
}


def seat_key(label: str) -> Ed25519PrivateKey:
    """A seat's Ed25519 key made from ``label`` (deterministic: tests print their seeds)."""
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(label.encode()).digest())


def public_hex(key: Ed25519PrivateKey) -> str:
    return key.public_key().public_bytes_raw().hex()


def request_for(
    kind: str, game_id: str, cause: dict[str, Any], facts: list[Any], expected_version: int
) -> Message:
    """The request a seat sends for ``cause`` (whose move recorded ``facts``)."""
    action = cause["action"]
    first: Any = facts[0] if facts else None
    if action == "play":
        move = render_moves.move_proto(kind, tables.command_of(kind, cause))
        request_id = cause.get("request_id", "")
        return pb.PlayRequest(
            game_id=game_id, expected_version=expected_version, move=move, request_id=request_id
        )
    if action == "join":
        return pb.JoinGameRequest(
            game_id=game_id,
            seat=first.seat,
            player_name=first.player_name,
            contribution=first.contribution,
            contribution_commitment=first.commitment,
            seat_public_key=bytes.fromhex(first.public_key),
        )
    if action == "reveal":
        return pb.RevealContributionRequest(game_id=game_id, contribution=first.contribution)
    if action == "commit":
        return pb.CommitContributionRequest(game_id=game_id, commitment=first.commitment)
    if action == "start":
        return pb.StartGameRequest(game_id=game_id)
    if action == "rekey":
        return pb.RekeySeatRequest(game_id=game_id, seat_public_key=bytes.fromhex(first.public_key))
    raise ValueError(f"no seat sends a {action}")


def signature(
    key: Ed25519PrivateKey,
    kind: str,
    game_id: str,
    cause: dict[str, Any],
    facts: list[Any],
    expected_version: int,
    head_hash: str,
    **changes: Any,
) -> dict[str, str]:
    """``cause["signed"]`` as the server records it: ``key``'s signature over the seat's
    request for ``cause``, made having seen ``expected_version`` (chain hash ``head_hash``).
    ``changes`` alter the signed command: ``for_game`` (its game id), ``method``, ``request``."""
    request = changes.get("request") or request_for(kind, game_id, cause, facts, expected_version)
    signed = seatsig.sign(
        key,
        changes.get("for_game", game_id),
        changes.get("method", METHOD[cause["action"]]),
        expected_version,
        head_hash,
        request,
    )
    return {
        "command": base64.b64encode(signed.signed_command).decode("ascii"),
        "signature": base64.b64encode(signed.signature).decode("ascii"),
    }


def seat_of(table: Any, facts: list[Any], cause: dict[str, Any]) -> int | None:
    """The seat that sends the command ``cause`` records at ``table`` (None: nobody's, or
    the match's seating of a later hand, or the arbiter's)."""
    action = cause["action"]
    if action not in METHOD or (action == "join" and table.hand >= 2):
        return None
    if action == "play":
        command = tables.command_of(table.kind, cause)
        return None if isinstance(command, tables.ARBITER_COMMANDS) else int(command.seat)
    if action == "start":
        return cause.get("seat")
    return int(facts[0].seat)


def by_arbiter(table: Any, cause: dict[str, Any]) -> bool:
    """Whether the arbiter sends the command ``cause`` records: a ruling (Rule, Redeal), or
    a start in no seat's name."""
    action = cause["action"]
    if action == "play":
        return isinstance(tables.command_of(table.kind, cause), tables.ARBITER_COMMANDS)
    return action == "start" and cause.get("seat") is None


def signer(
    keys: list[Ed25519PrivateKey], arbiter: Ed25519PrivateKey | None = None
) -> Callable[[Any, list[Any], dict[str, Any]], Any]:
    """A ``matchplay.HandRecorder.signer``: every command a seat sends signed by its key in
    ``keys`` (read at each command: replace an entry to re-key), and with ``arbiter`` the
    arbiter's commands by the arbiter's key, made having seen the hand's latest version."""

    def sign(hand: Any, facts: list[Any], cause: dict[str, Any]) -> dict[str, Any]:
        seat = seat_of(hand.table, facts, cause)
        key = keys[seat] if seat is not None else None
        if key is None and arbiter is not None and by_arbiter(hand.table, cause):
            key = arbiter
        if key is None or "signed" in cause:
            return cause
        kind = hand.table.kind
        signed = signature(key, kind, hand.game_id, cause, facts, len(hand.records), hand.head)
        return {**cause, "signed": signed}

    return sign
