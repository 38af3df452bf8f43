"""Dataclass <-> plain JSON data, for storing events and snapshots, and the canonical JSON text.

Conventions every game's commands, events, states and views follow (the protobuf
translation in ``server/wire/protoconv.py`` relies on the same ones):

* fields are ``int``, ``str``, ``bool``, an ``enum.Enum`` (stored by member name), another
  such dataclass, ``X | None``, or ``tuple[X, ...]``;
* no dicts (use a tuple of small dataclasses), no sets, no nested tuples without a dataclass.

Encoding and decoding run for every fact a move makes and every event a rebuild reads, so
each class's field plan is worked out once (``_encoder``, ``_decoder``) rather than on every
value; the results are those of the plain recursive definitions in the docstrings.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing
import uuid
from collections.abc import Callable
from functools import cache
from typing import Any

import orjson

Codec = Callable[[Any], Any]


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


# --- dataclass -> data --------------------------------------------------------------------

_AS_IS = frozenset({int, str, bool, type(None), float})
_ENCODERS: dict[type, Codec] = {}


def to_data(value: Any) -> Any:
    """Encode a dataclass (recursively) as JSON-compatible data: a dataclass instance as a
    dict of its fields, an enum member by name, a tuple or list as a list, anything else
    as it is."""
    kind = type(value)
    if kind in _AS_IS:
        return value
    encode = _ENCODERS.get(kind)
    if encode is None:
        encode = _ENCODERS[kind] = _encoder(kind)
    return encode(value)


def _encoder(kind: type) -> Codec:
    """How to_data encodes an instance of ``kind``: it depends on the class alone."""
    if hasattr(kind, "__dataclass_fields__") and not issubclass(kind, type):
        names = tuple(f.name for f in dataclasses.fields(typing.cast(Any, kind)))

        def encode(value: Any) -> dict[str, Any]:
            out = {}
            for name in names:
                field = getattr(value, name)
                out[name] = field if type(field) in _AS_IS else to_data(field)
            return out

        return encode
    if issubclass(kind, enum.Enum):
        return _member_name
    if issubclass(kind, tuple | list):
        return _encode_items
    return _as_is


def _member_name(value: enum.Enum) -> str:
    return value.name


def _encode_items(value: Any) -> list[Any]:
    return [v if type(v) in _AS_IS else to_data(v) for v in value]


def _as_is(value: Any) -> Any:
    return value


# --- data -> dataclass --------------------------------------------------------------------

_DECODERS: dict[Any, Codec] = {}


def from_data(tp: Any, data: Any) -> Any:
    """Decode ``data`` produced by :func:`to_data` back into type ``tp``: ``X | None`` as
    None or an X, ``tuple[X, ...]`` item by item, an enum by member name, a dataclass
    field by field (by its type hints), anything else as it is."""
    decode = _DECODERS.get(tp)
    if decode is None:
        decode = _DECODERS[tp] = _decoder(tp)
    return decode(data)


def _decoder(tp: Any) -> Codec:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        inners = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(inners) == 1 and _as_stored(inners[0]):
            return _as_is
        return lambda data: None if data is None else _union_member(inners, data)
    if origin is tuple:
        (inner, *_rest) = typing.get_args(tp)
        if _as_stored(inner):
            return tuple
        return lambda data: tuple([from_data(inner, v) for v in data])
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return lambda data: tp[data]
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass_decoder(tp)
    return _as_is


def _as_stored(tp: Any) -> bool:
    """Whether from_data returns data of type ``tp`` as it is (a plain value, or one or
    None)."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        inners = [a for a in typing.get_args(tp) if a is not type(None)]
        return len(inners) == 1 and _as_stored(inners[0])
    if origin is tuple:
        return False
    return not (
        isinstance(tp, type) and (issubclass(tp, enum.Enum) or dataclasses.is_dataclass(tp))
    )


def _union_member(inners: list[Any], data: Any) -> Any:
    (inner,) = inners  # only ``X | None`` is a convention
    return from_data(inner, data)


def _dataclass_decoder(tp: type) -> Codec:
    """Fields that need decoding are decoded, the rest passed on as stored. The plan is made
    at the first call, so a class may refer to itself."""
    plan: tuple[frozenset[str], tuple[tuple[str, Any], ...]] | None = None

    def decode(data: dict[str, Any]) -> Any:
        nonlocal plan
        if plan is None:
            hints = _hints(tp)
            typed = tuple((k, h) for k, h in hints.items() if not _as_stored(h))
            plan = (frozenset(hints), typed)
        known, typed = plan
        if not data.keys() <= known:
            raise KeyError(next(k for k in data if k not in known))
        fields = dict(data)
        for name, hint in typed:
            if name in fields:
                fields[name] = from_data(hint, fields[name])
        return tp(**fields)

    return decode


def encode_tagged(value: Any) -> dict[str, Any]:
    """A dataclass with its class name, so a union of event types can be decoded."""
    return {"type": type(value).__name__, "data": to_data(value)}


def decode_tagged(types_by_name: dict[str, type], data: dict[str, Any]) -> Any:
    return from_data(types_by_name[data["type"]], data["data"])


# --- JSON text ----------------------------------------------------------------------------


def canonical(data: Any) -> str:
    """The canonical JSON text of ``data``: sorted keys, no ASCII escapes, no spaces, as
    ``json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))`` writes
    it, byte for byte (the chain hashes it, seals sign it, and tabletop-audit and
    clients/node recompute it). orjson writes it where it writes the same bytes
    (``orjson_writes_alike``; tests/domain/test_canonical.py), json everywhere else."""
    if type(data) is Canonical:
        return data.text
    if orjson_writes_alike(data):
        try:
            return orjson.dumps(data, default=canonical_fragment, option=_CANONICAL).decode()
        except orjson.JSONEncodeError:  # an int beyond 64 bits, a non-str key, a surrogate...
            pass
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


# dict subclasses and the types orjson would write itself reach ``default`` (or fail)
_CANONICAL = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
)


class Canonical(dict[str, Any]):
    """A JSON object that carries its canonical text, made once: a fact is hashed, stored
    and rendered from that one text (``canonical`` returns it; orjson writes it where the
    object stands, server/store/eventstore.py). Like every fact, never changed once made."""

    text: str

    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__(data)
        self.text = canonical(data)


def canonical_fragment(value: Any) -> orjson.Fragment:
    """orjson's ``default`` for a Canonical: its text as it stands. Anything else is refused
    (the caller then writes with json)."""
    if type(value) is Canonical:
        return orjson.Fragment(value.text)
    raise TypeError(f"{type(value).__name__} is written by json")


_UNLIKE = (float, enum.Enum, uuid.UUID)
_PLAIN_JSON = frozenset({str, int, bool, type(None)})
_MAX_NODES = 1_000_000  # a circular structure ends the walk; json then reports it


def orjson_writes_alike(value: Any) -> bool:
    """Whether orjson would write ``value`` as json does, as far as its types tell: no
    float (orjson writes NaN and the infinities as null and 1e-05 as 0.00001), no enum and
    no UUID (orjson writes them by value; json refuses them, or the store transcodes them).
    A Canonical counts as written. Every other type orjson either writes as json does
    (str, int, bool, None, dict, list, tuple), passes to its ``default`` hook or refuses,
    and its callers then fall back on json."""
    stack = [value]
    budget = _MAX_NODES
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind in _PLAIN_JSON or kind is Canonical:
            continue
        if kind is dict:
            stack.extend(item.values())
        elif kind is list or kind is tuple:
            stack.extend(item)
        elif isinstance(item, _UNLIKE):
            return False
        budget -= 1
        if budget < 0:
            return False
    return True
