"""The verifier's reader of seat-signed commands: SignedCommand bytes -> the domain's terms.

A record keeps every keyed seat's command as the protobuf bytes the seat signed
(docs/api.md, "Seat signatures"). ``domain.verify`` checks the signature and holds the
command against the record, but knows no protobuf; ``read_signed_command`` decodes the
bytes for it (``verify(..., command_reader=read_signed_command)``), with the server's own
reading of a move (``render_moves.read_move``), so the request a seat signed is read exactly as
the server read it when it decided the move.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf.message import DecodeError, Message

from domain.verify import SignedCommand
from server.wire import render_moves
from tabletop.v1 import tabletop_pb2 as pb

MAX_SIGNED_COMMAND = 1 << 16  # bytes; a request is far smaller (a move, a name, a key)


def read_signed_command(data: bytes, kind: str) -> SignedCommand:
    """The SignedCommand in ``data`` with its request's content (``SignedCommand.request``);
    ValueError for bytes that are no SignedCommand of a known method, or whose request
    does not decode (a move that is not ``kind``'s, a request still carrying a signature)."""
    if len(data) > MAX_SIGNED_COMMAND:
        raise ValueError(f"more than {MAX_SIGNED_COMMAND} bytes")
    signed = _parse(pb.SignedCommand, data, "SignedCommand")
    reader = _READERS.get(signed.method)
    if reader is None:
        raise ValueError(f"unknown method {signed.method[:40]!r}")
    request_type, content = reader
    request = _parse(request_type, signed.request, f"{signed.method} request")
    if request.HasField("seat_signature"):
        raise ValueError("its request carries a seat signature: a signed request has none")
    return SignedCommand(
        game_id=signed.game_id,
        method=signed.method,
        expected_version=signed.expected_version,
        head_hash=signed.head_hash,
        request=content(request, kind),
    )


def _parse(message_type: Any, data: bytes, what: str) -> Any:
    try:
        return message_type.FromString(data)
    except (DecodeError, RuntimeError) as exc:  # RuntimeError: too deeply nested
        raise ValueError(f"not a {what} ({exc})") from None


def _play(r: pb.PlayRequest, kind: str) -> dict[str, Any]:
    return {
        "game_id": r.game_id,
        "expected_version": r.expected_version,
        "command": render_moves.read_move(kind, r.move) if r.HasField("move") else None,
        "request_id": r.request_id,
    }


def _join(r: pb.JoinGameRequest, kind: str) -> dict[str, Any]:
    return {
        "game_id": r.game_id,
        "seat": r.seat,
        "player_name": r.player_name,
        "contribution": r.contribution,
        "commitment": r.contribution_commitment,
        "public_key": bytes(r.seat_public_key).hex(),
        "request_id": r.request_id,
    }


def _commit(r: pb.CommitContributionRequest, kind: str) -> dict[str, Any]:
    return {"game_id": r.game_id, "commitment": r.commitment}


def _ready(r: pb.ReadyNextHandRequest, kind: str) -> dict[str, Any]:
    return {"game_id": r.game_id, "commitment": r.commitment, "contribution": r.contribution}


def _reveal(r: pb.RevealContributionRequest, kind: str) -> dict[str, Any]:
    return {"game_id": r.game_id, "contribution": r.contribution}


def _start(r: pb.StartGameRequest, kind: str) -> dict[str, Any]:
    return {"game_id": r.game_id, "request_id": r.request_id}


def _rekey(r: pb.RekeySeatRequest, kind: str) -> dict[str, Any]:
    return {"game_id": r.game_id, "public_key": bytes(r.seat_public_key).hex()}


_READERS: dict[str, tuple[type[Message], Callable[[Any, str], dict[str, Any]]]] = {
    "Play": (pb.PlayRequest, _play),
    "JoinGame": (pb.JoinGameRequest, _join),
    "CommitContribution": (pb.CommitContributionRequest, _commit),
    "ReadyNextHand": (pb.ReadyNextHandRequest, _ready),
    "RevealContribution": (pb.RevealContributionRequest, _reveal),
    "StartGame": (pb.StartGameRequest, _start),
    "RekeySeat": (pb.RekeySeatRequest, _rekey),
}
