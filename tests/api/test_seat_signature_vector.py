"""The seat-signature test vector of docs/api.md ("Seat signatures"), checked against
``server.wire.seatsig``: the request's bytes, the SignedCommand's bytes and the signature
(Ed25519 is deterministic, so the signature is fixed too). The Node and Go tests check the
same bytes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from domain.engine import MalformedCommand
from server.wire import seatsig
from tabletop.v1 import tabletop_pb2 as pb

DOCS = Path(__file__).resolve().parents[2] / "docs" / "api.md"
PRIVATE = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
PUBLIC = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
GAME = "6f1c0d6e-1b9a-4c1e-9d61-000000000035"


def _vector() -> list[str]:
    """The hex values of the docs' test vector table, in order."""
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("**Test vector**") :]
    section = section[: section.index("\n## ")]
    return re.findall(r"`([0-9a-f]{64,})`", section)


def _request() -> pb.PlayRequest:
    move = pb.Move(table=pb.TableCommand(retract=pb.Retract()))
    return pb.PlayRequest(game_id=GAME, expected_version=12, move=move, request_id="r-1")


def test_the_docs_vector_matches_the_code() -> None:
    private, public, request_hex, signed_hex, signature_hex = _vector()
    assert (private, public) == (PRIVATE, PUBLIC)
    assert seatsig.public_bytes(PRIVATE).hex() == PUBLIC
    request = _request()
    assert request.SerializeToString().hex() == request_hex
    sig = seatsig.sign(PRIVATE, GAME, "Play", 12, "5f" * 32, request)
    assert sig.signed_command.hex() == signed_hex
    assert sig.signature.hex() == signature_hex
    assert seatsig.check_signature(PUBLIC, sig.signed_command, sig.signature)


def test_read_takes_the_signed_call_and_refuses_another() -> None:
    request = _request()
    request.seat_signature.CopyFrom(seatsig.sign(PRIVATE, GAME, "Play", 12, "ab" * 32, request))
    call = seatsig.read(request, "Play")
    assert call is not None and (call.expected_version, call.method) == (12, "Play")
    assert call.signed_command == request.seat_signature.signed_command
    with pytest.raises(MalformedCommand, match="not StartGame"):
        seatsig.read(request, "StartGame")
    request.request_id = "r-2"  # the signed bytes were another request's
    with pytest.raises(MalformedCommand, match="not this request"):
        seatsig.read(request, "Play")
    assert seatsig.read(_request(), "Play") is None


def test_a_tampered_signature_does_not_check() -> None:
    sig = seatsig.sign(PRIVATE, GAME, "Play", 12, "", _request())
    bad = bytes([sig.signature[0] ^ 1]) + sig.signature[1:]
    assert not seatsig.check_signature(PUBLIC, sig.signed_command, bad)
    assert not seatsig.check_signature(PUBLIC, sig.signed_command + b"\x00", sig.signature)
    assert not seatsig.check_signature("00" * 31, sig.signed_command, sig.signature)
