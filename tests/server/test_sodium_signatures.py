"""The per-move Ed25519 work runs on libsodium (server/wire/signing.py, seatsig.py): the
server's signatures are OpenSSL's byte for byte, and a seat's signature is refused on every
kind of damage, a small-order key among them (which OpenSSL accepts)."""

from __future__ import annotations

import random

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from server.wire.seatsig import PREFIX, check_signature, public_bytes
from server.wire.signing import Signer

SEED = 4813


def test_the_server_signs_as_openssl_does() -> None:
    rng = random.Random(SEED)
    print("seed", SEED)
    for _ in range(50):
        key = Ed25519PrivateKey.from_private_bytes(rng.randbytes(32))
        body = rng.randbytes(rng.randrange(0, 600))
        assert Signer(key).sign(body) == key.sign(body).hex()


def test_a_seat_signature_checks_and_every_damage_is_refused() -> None:
    key = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    public = public_bytes(key).hex()
    command = b"a signed Play"
    signature = key.sign(PREFIX + command)
    assert check_signature(public, command, signature)
    flipped = bytes([signature[0] ^ 1]) + signature[1:]
    assert not check_signature(public, command, flipped)
    assert not check_signature(public, command + b"!", signature)
    assert not check_signature(public, command, signature[:63])  # too short
    assert not check_signature(public, command, signature + b"\0")  # too long
    assert not check_signature(public[:-2], command, signature)  # a 31-byte key
    assert not check_signature("not hex", command, signature)
    other = Ed25519PrivateKey.from_private_bytes(bytes(32)).public_key().public_bytes_raw()
    assert not check_signature(other.hex(), command, signature)  # another seat's key


def test_a_small_order_key_signs_nothing() -> None:
    # the identity point as a key, and the signature (R = identity, S = 0) that "verifies"
    # for every message under it with a check that allows small-order points
    identity = bytes([1]) + bytes(31)
    forged = identity + bytes(32)
    assert not check_signature(identity.hex(), b"any command", forged)
