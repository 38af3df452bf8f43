"""Dataclass <-> plain JSON data, for storing events and snapshots.

Conventions every game's commands, events, states and views follow (the protobuf
translation in ``server/protoconv.py`` relies on the same ones):

* fields are ``int``, ``str``, ``bool``, an ``enum.Enum`` (stored by member name), another
  such dataclass, ``X | None``, or ``tuple[X, ...]``;
* no dicts (use a tuple of small dataclasses), no sets, no nested tuples without a dataclass.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from functools import cache
from typing import Any


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def to_data(value: Any) -> Any:
    """Encode a dataclass (recursively) as JSON-compatible data."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_data(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, tuple | list):
        return [to_data(v) for v in value]
    return value


def from_data(tp: Any, data: Any) -> Any:
    """Decode ``data`` produced by :func:`to_data` back into type ``tp``."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        if data is None:
            return None
        (inner,) = [a for a in typing.get_args(tp) if a is not type(None)]
        return from_data(inner, data)
    if origin is tuple:
        (inner, *_rest) = typing.get_args(tp)
        return tuple(from_data(inner, v) for v in data)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return tp[data]
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        hints = _hints(tp)
        return tp(**{k: from_data(hints[k], v) for k, v in data.items()})
    return data


def encode_tagged(value: Any) -> dict[str, Any]:
    """A dataclass with its class name, so a union of event types can be decoded."""
    return {"type": type(value).__name__, "data": to_data(value)}


def decode_tagged(types_by_name: dict[str, type], data: dict[str, Any]) -> Any:
    return from_data(types_by_name[data["type"]], data["data"])
