"""Seat signatures on the wire (docs/api.md, "Seat signatures"): what a seat signs, how the
server reads a signed command off a request, and the Ed25519 check.

A seat signs a ``SignedCommand`` (the game, the RPC's name, the version and chain hash it
has seen, and the request's own bytes with ``seat_signature`` unset) and sends the bytes it
signed with the signature as the request's ``seat_signature``. The server keeps those very
bytes: no canonical encoding is needed, and the record shows exactly what was signed.

No gRPC and no store here: clients sign with ``sign`` and the server reads with ``read``.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

import nacl.bindings
import nacl.exceptions
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from google.protobuf.message import DecodeError, Message

from domain.engine import MalformedCommand
from tabletop.v1 import tabletop_pb2 as pb

PREFIX = b"tabletop-seat-command/1\n"  # 23 bytes, the newline included
FIELD = "seat_signature"  # the request field, named in refusals
METHODS = frozenset(
    {
        "JoinGame",
        "Play",
        "CommitContribution",
        "RevealContribution",
        "ReadyNextHand",
        "StartGame",
        "RekeySeat",
    }
)


@dataclass(frozen=True)
class SignedCall:
    """A request's seat signature, read and matched to the request (``read``); the
    signature itself is checked under the game's lock, against the seat's key then."""

    signed_command: bytes  # exactly the bytes received (and signed)
    signature: bytes
    game_id: str
    method: str
    expected_version: int
    head_hash: str

    def recorded(self) -> dict[str, str]:
        """What the move's cause keeps of it (cause["signed"])."""
        return {
            "command": base64.b64encode(self.signed_command).decode("ascii"),
            "signature": base64.b64encode(self.signature).decode("ascii"),
        }


def private_key(key: Ed25519PrivateKey | bytes | str) -> Ed25519PrivateKey:
    """A seat's private key from the key, its 32 raw bytes or their 64 hex digits."""
    if isinstance(key, Ed25519PrivateKey):
        return key
    raw = bytes.fromhex(key) if isinstance(key, str) else key
    return Ed25519PrivateKey.from_private_bytes(raw)


def public_bytes(key: Ed25519PrivateKey | bytes | str) -> bytes:
    """The 32 raw bytes of a seat's public key (``seat_public_key``)."""
    return private_key(key).public_key().public_bytes_raw()


def unsigned(request: Message) -> Message:
    """A copy of ``request`` with ``seat_signature`` unset: the command's own bytes."""
    copy = type(request)()
    copy.CopyFrom(request)
    copy.ClearField(FIELD)
    return copy


def sign(
    key: Ed25519PrivateKey | bytes | str,
    game_id: str,
    method: str,
    expected_version: int,
    head_hash: str,
    request: Message,
) -> pb.SeatSignature:
    """The seat's signature over ``request`` (its ``seat_signature`` is ignored) as the
    ``method`` call for ``game_id``, made having seen ``expected_version`` whose chain hash
    is ``head_hash``. Set it on the request as ``seat_signature``."""
    command = pb.SignedCommand(
        game_id=game_id,
        method=method,
        expected_version=expected_version,
        head_hash=head_hash,
        request=unsigned(request).SerializeToString(),
    )
    signed = command.SerializeToString()
    return pb.SeatSignature(signed_command=signed, signature=private_key(key).sign(PREFIX + signed))


def read(request: Any, method: str) -> SignedCall | None:
    """The seat signature sent with ``request`` (the ``method`` call), or None when none
    was sent. Refused (MalformedCommand on ``seat_signature``) when the signed command is
    not this very call: another game or method, or other request bytes."""
    if not request.HasField(FIELD):
        return None
    sent = request.seat_signature
    command = pb.SignedCommand()
    try:
        command.ParseFromString(sent.signed_command)
    except DecodeError:
        raise MalformedCommand(FIELD, "signed_command is not a SignedCommand") from None
    if command.game_id != request.game_id:
        raise MalformedCommand(
            FIELD, f"the signed command is for game {command.game_id!r}, not this request's"
        )
    if command.method != method:
        raise MalformedCommand(
            FIELD, f"the signed command is a {command.method or 'nameless'} call, not {method}"
        )
    signed_request = type(request)()
    try:
        signed_request.ParseFromString(command.request)
    except DecodeError:
        raise MalformedCommand(FIELD, f"the signed request is not a {method} request") from None
    if signed_request != unsigned(request):
        raise MalformedCommand(FIELD, "the signed request is not this request")
    return SignedCall(
        bytes(sent.signed_command),
        bytes(sent.signature),
        command.game_id,
        command.method,
        command.expected_version,
        command.head_hash,
    )


def check_signature(public_key_hex: str, signed_command: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is the seat key's Ed25519 signature over the signed command.

    libsodium's check (120 µs here against OpenSSL's 190, once a move) is also the stricter
    one: it refuses a small-order key or R, which OpenSSL lets through."""
    try:
        key = bytes.fromhex(public_key_hex)
    except ValueError:
        return False
    if len(key) != 32 or len(signature) != 64:
        return False
    try:
        nacl.bindings.crypto_sign_open(signature + PREFIX + signed_command, key)
    except nacl.exceptions.CryptoError:
        return False
    return True
