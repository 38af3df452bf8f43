"""What differs between two protobuf messages, field by field: the paths and both values.

``tabletop-audit compare`` and ``verify --receipts`` name what a lying server changed in
what it showed a viewer: ``events[0].huaniao.played.cards[1].rank: record 3, sent 5``. The
walk follows the message's descriptor, so every field a viewer is shown is compared (a
oneof's other member, a repeated field's extra entries, an unset optional field), and
bytes that differ in no known field (unknown fields, another encoding) are named too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from google.protobuf import text_format
from google.protobuf.message import Message

ABSENT = "absent"
MAX_VALUE = 200  # characters of a value shown (a whole message on one line, cut)


@dataclass(frozen=True)
class Differ:
    """One field whose value the record's rendering and the sent message disagree on."""

    path: str  # e.g. "events[0].huaniao.played.cards[1].rank"
    record: str  # the value as the record renders it (ABSENT if unset)
    sent: str  # the value as the server sent it

    def line(self) -> str:
        return f"{self.path}: record {self.record}, sent {self.sent}"

    def as_json(self) -> dict[str, str]:
        return {"path": self.path, "record": self.record, "sent": self.sent}


def field_diffs(record: Message, sent: Message, path: str = "") -> list[Differ]:
    """Every field path where ``sent`` differs from ``record`` (messages of one type)."""
    out: list[Differ] = []
    for field in record.DESCRIPTOR.fields:
        name = f"{path}.{field.name}" if path else field.name
        a, b = getattr(record, field.name), getattr(sent, field.name)
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            if dict(a) != dict(b):
                out.append(Differ(name, _map(a), _map(b)))
        elif field.is_repeated:
            for i in range(max(len(a), len(b))):
                x = a[i] if i < len(a) else None
                y = b[i] if i < len(b) else None
                out += _one(field, f"{name}[{i}]", x, y)
        elif field.has_presence and not (record.HasField(field.name) or sent.HasField(field.name)):
            continue
        elif field.has_presence and record.HasField(field.name) != sent.HasField(field.name):
            out += _one(
                field,
                name,
                a if record.HasField(field.name) else None,
                b if sent.HasField(field.name) else None,
            )
        else:
            out += _one(field, name, a, b)
    return out


def payload_diffs(
    record: Message, sent: Message, record_bytes: bytes, sent_bytes: bytes
) -> list[Differ]:
    """``field_diffs``, or, for bytes that differ in no known field, the encoding itself."""
    found = field_diffs(record, sent)
    if found or record_bytes == sent_bytes:
        return found
    return [
        Differ(
            "(encoding)",
            f"{len(record_bytes)} bytes",
            f"{len(sent_bytes)} bytes (the same known fields: unknown fields or another encoding)",
        )
    ]


def _one(field: Any, path: str, a: Any, b: Any) -> list[Differ]:
    """One value (or one repeated entry) on each side; None: absent."""
    if field.message_type is not None and a is not None and b is not None:
        return field_diffs(a, b, path)
    x, y = _value(field, a), _value(field, b)
    return [] if x == y else [Differ(path, x, y)]


def _value(field: Any, v: Any) -> str:
    if v is None:
        return ABSENT
    if field.message_type is not None:
        text = text_format.MessageToString(v, as_one_line=True, as_utf8=True)
        return _cut("{" + text + "}")
    if field.enum_type is not None:
        named = field.enum_type.values_by_number.get(v)
        return named.name if named is not None else str(v)
    if isinstance(v, bytes):
        return _cut(v.hex() or '""')
    if isinstance(v, str):
        return _cut(json.dumps(v, ensure_ascii=False))
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _map(m: Any) -> str:
    return _cut(json.dumps({str(k): str(v) for k, v in sorted(m.items())}, ensure_ascii=False))


def _cut(text: str) -> str:
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"
