"""A seeded generator of hostile protobuf messages and bytes, driven by the descriptors.

``random_message(cls, rng)`` fills any message type with adversarial values: boundary and
overflowing integers, unknown enum numbers, empty/huge/odd Unicode strings, long repeated
fields, nested messages, a random member of each oneof. ``mutate(data, rng)`` flips,
inserts, deletes and truncates bytes of a valid encoding, which reaches the decoder's
corner cases more often than pure noise does. Everything is a function of the ``Random``
passed in, so a seed reproduces a run.
"""

from __future__ import annotations

import random
import uuid
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

INT32 = (0, 1, -1, 2, 3, 4, 7, 53, 54, 79, 80, 107, 108, 127, 128, 255, 2**31 - 1, -(2**31))
INT64 = (*INT32, 2**32, 2**53 + 1, 2**63 - 1, -(2**63))
UINT64 = (0, 1, 2**32, 2**63 - 1, 2**63, 2**64 - 1)
STRINGS = (
    "",
    " ",
    "v",
    "v0",
    "v-1",
    "v99999999999999999999",
    "0",
    "-1",
    "null",
    "\x00",
    "💥" * 3,
    "春来花友会",
    "'; DROP TABLE stored_events; --",
    "../../etc/passwd",
    "%s%n%x",
    "00000000-0000-0000-0000-000000000000",
    "a" * 65,
    "\u202e\ud7ff",
    "ＡＢＣ",
)
T = FieldDescriptor


def random_int(fd: FieldDescriptor, rng: random.Random) -> int:
    t = fd.type
    if t in (T.TYPE_UINT64, T.TYPE_FIXED64):
        return rng.choice(UINT64) if rng.random() < 0.7 else rng.randrange(2**64)
    if t in (T.TYPE_UINT32, T.TYPE_FIXED32):
        return rng.choice((0, 1, 2**31, 2**32 - 1)) if rng.random() < 0.7 else rng.randrange(2**32)
    if t in (T.TYPE_INT64, T.TYPE_SINT64, T.TYPE_SFIXED64):
        return rng.choice(INT64) if rng.random() < 0.7 else rng.randrange(-(2**63), 2**63)
    return rng.choice(INT32) if rng.random() < 0.7 else rng.randrange(-(2**31), 2**31)


def random_string(rng: random.Random, known: list[str]) -> str:
    r = rng.random()
    if r < 0.3 and known:
        return rng.choice(known)
    if r < 0.55:
        return rng.choice(STRINGS)
    if r < 0.65:
        return str(uuid.UUID(int=rng.getrandbits(128)))
    if r < 0.7:
        return "x" * rng.choice((64, 65, 1000, 70_000))
    n = rng.randrange(0, 40)
    return "".join(
        chr(rng.choice((rng.randrange(32, 127), rng.randrange(0x80, 0xD7FF)))) for _ in range(n)
    )


def random_scalar(fd: FieldDescriptor, rng: random.Random, known: list[str]) -> Any:
    t = fd.type
    if t == T.TYPE_BOOL:
        return rng.random() < 0.5
    if t == T.TYPE_STRING:
        return random_string(rng, known)
    if t == T.TYPE_BYTES:
        return rng.randbytes(rng.randrange(0, 64))
    if t in (T.TYPE_DOUBLE, T.TYPE_FLOAT):
        return rng.choice((0.0, -1.0, 1e308, float("nan"), float("inf")))
    if t == T.TYPE_ENUM:
        numbers = [v.number for v in fd.enum_type.values]
        if rng.random() < 0.6:
            return rng.choice(numbers)
        return rng.choice((max(numbers) + 1, -1, 99, 2**31 - 1, -(2**31)))
    return random_int(fd, rng)


def random_message(
    cls: type[Message] | Message, rng: random.Random, known: list[str] | None = None, depth: int = 0
) -> Message:
    """A message of type ``cls`` (or filled into the instance ``cls``) with hostile values."""
    msg = cls() if isinstance(cls, type) else cls
    known = known or []
    desc = msg.DESCRIPTOR
    oneof_pick = {o.name: rng.choice(o.fields) for o in desc.oneofs if not o.name.startswith("_")}
    for fd in desc.fields:
        o = fd.containing_oneof
        if o is not None and not o.name.startswith("_") and oneof_pick[o.name] is not fd:
            continue
        if rng.random() < 0.25:
            continue  # leave unset
        if fd.message_type is not None:
            if depth > 4:
                continue
            if fd.is_repeated:
                for _ in range(rng.choice((0, 1, 2, 5))):
                    random_message(getattr(msg, fd.name).add(), rng, known, depth + 1)
            else:
                sub = getattr(msg, fd.name)
                random_message(sub, rng, known, depth + 1)
                sub.SetInParent()
            continue
        if fd.is_repeated:
            n = rng.choice((0, 1, 2, 3, 4, 7, 20, 200))
            getattr(msg, fd.name).extend(random_scalar(fd, rng, known) for _ in range(n))
        else:
            setattr(msg, fd.name, random_scalar(fd, rng, known))
    return msg


def mutate(data: bytes, rng: random.Random) -> bytes:
    """A few random edits of an encoding: flips, inserts, deletes, truncation, splices."""
    b = bytearray(data or b"\x00")
    for _ in range(rng.randrange(1, 5)):
        op = rng.randrange(6)
        i = rng.randrange(len(b)) if b else 0
        if op == 0 and b:
            b[i] ^= 1 << rng.randrange(8)
        elif op == 1:
            b[i:i] = rng.randbytes(rng.randrange(1, 6))
        elif op == 2 and b:
            del b[i : i + rng.randrange(1, 4)]
        elif op == 3:
            b = b[: rng.randrange(len(b) + 1)]
        elif op == 4:
            b[i:i] = bytes(
                [rng.choice((0x08, 0x0A, 0x12, 0x1A, 0x22, 0xFA, 0xFF)), 0xFF, 0xFF, 0x7F]
            )
        else:
            b += b[: rng.randrange(len(b) + 1)]
    return bytes(b)


def noise(rng: random.Random) -> bytes:
    n = rng.choice((0, 1, 2, 5, 17, 64, 300, 3000))
    return rng.randbytes(n)
