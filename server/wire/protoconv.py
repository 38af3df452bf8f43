"""Generic translation between domain dataclasses and protobuf messages of the same shape.

The conventions are those of ``domain/codec.py``: a dataclass ``Foo`` maps to ``message Foo``
with the same field names; ``X | None`` to an optional field; ``tuple[X, ...]`` to a
repeated field; a Python enum member ``BIRD`` of ``CardKind`` to the proto value
``CARD_KIND_BIRD``. A union of commands or events maps to a message with one ``oneof kind``
whose fields are the snake_case class names. Nothing here knows a game: that is what lets a
new game register without server code.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import types
import typing
from collections.abc import Callable
from functools import cache
from typing import Any

from google.protobuf.descriptor import EnumDescriptor
from google.protobuf.message import Message

from domain.engine import MalformedCommand


@cache
def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@cache
def _enum_prefix(enum_desc: EnumDescriptor) -> str:
    return snake(enum_desc.name).upper() + "_"


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _strip_optional(tp: Any) -> Any:
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        (inner,) = [a for a in typing.get_args(tp) if a is not type(None)]
        return inner
    return tp


def _is_repeated(fd: Any) -> bool:
    return bool(fd.is_repeated)


# --- dataclass -> proto ------------------------------------------------------------------


def fill(msg: Message, value: Any) -> Message:
    """Copy the dataclass ``value`` into ``msg`` (of the same shape) and return ``msg``.

    The dataclass becomes the keyword arguments of one message constructor (a C call that
    builds the whole tree), merged into ``msg``: much faster than a setattr per field,
    which matters because every view and event is rendered per viewer, and once more per
    viewer for each move's receipts (server/wire/receipts.py)."""
    msg.MergeFrom(type(msg)(**_kwargs(msg.DESCRIPTOR, value)))
    return msg


def as_kwargs(desc: Any, value: Any) -> dict[str, Any]:
    """The dataclass ``value`` as the keyword arguments of a message of type ``desc`` (a
    descriptor), to build it inside a larger message's constructor without a copy."""
    return _kwargs(desc, value)


def _kwargs(desc: Any, value: Any) -> dict[str, Any]:
    hit = _MEMO.get(id(value))
    if hit is not None and hit[0] is value and hit[1] is desc:
        return hit[2]
    cls: Any = type(value)
    make, frozen = _maker(desc, cls)
    out = make(value)
    if frozen:
        if len(_MEMO) >= MEMO_SIZE:
            _MEMO.clear()
        _MEMO[id(value)] = (value, desc, out)
    return out


@cache
def _maker(desc: Any, cls: Any) -> tuple[Callable[[Any], dict[str, Any]], bool]:
    """``_plan`` made into a function of its own per (message, dataclass), written out field
    by field: no loop over the plan and no test of each field's sort at run time (profile of
    the leak hunt: the generic loop was most of ``_kwargs``, which every view and event of
    every viewer goes through). It builds the very same keyword arguments."""
    plan, frozen = _plan(desc, cls)
    env: dict[str, Any] = {"_kwargs": _kwargs, "_items": _items}
    lines = ["def make(value):", "    out = {}"]
    for i, (name, sub, enum_numbers, repeated) in enumerate(plan):
        env[f"d{i}"], env[f"e{i}"] = sub, enum_numbers
        if repeated:
            if sub is not None:
                expr = f"_items(d{i}, v)"
            elif enum_numbers is not None:
                expr = f"[e{i}[item._name_] for item in v]"
            else:
                expr = "list(v)"
        elif sub is not None:
            expr = f"_kwargs(d{i}, v)"
        elif enum_numbers is not None:
            expr = f"e{i}[v._name_]"  # _name_: Enum.name is a slow descriptor
        else:
            expr = "v"
        lines += [f"    v = value.{name}", "    if v is not None:", f"        out[{name!r}] = {expr}"]
    lines.append("    return out")
    exec("\n".join(lines), env)  # noqa: S102 - the names are a dataclass's own fields
    return env["make"], frozen


def _items(desc: Any, items: Any) -> list[dict[str, Any]]:
    """A repeated message field's items. A tuple (immutable, of frozen dataclasses: the
    domain has no other kind) is kept in the memo like a dataclass, so a hand, pile or meld
    shared between viewers, or unchanged from one move to the next, is walked once."""
    hit = _MEMO.get(id(items))
    if hit is not None and hit[0] is items and hit[1] is desc:
        return hit[2]  # type: ignore[return-value]
    out = [_kwargs(desc, item) for item in items]
    if len(items) > 1 and type(items) is tuple:
        if len(_MEMO) >= MEMO_SIZE:
            _MEMO.clear()
        _MEMO[id(items)] = (items, desc, out)  # type: ignore[assignment]
    return out


# The keyword arguments of frozen (immutable) dataclasses already rendered, by identity:
# the cards, options and other shared parts of a game's state reach every view and event
# rendered for every viewer of every move. An entry holds its value, so the id cannot be
# reused while it is kept; the whole memo is dropped when full. Sized for a few moves' worth
# (every viewer of a move shares it), not for every game: each entry is several objects that
# every full garbage collection scans (docs/operations.md, "Garbage collection").
MEMO_SIZE = 1 << 11
_MEMO: dict[int, tuple[Any, Any, dict[str, Any]]] = {}


@cache
def _plan(
    desc: Any, cls: Any
) -> tuple[tuple[tuple[str, Any, dict[str, int] | None, bool], ...], bool]:
    """Per (message, dataclass): each field's name, message type, enum numbers by member
    name, and whether it repeats; and whether the dataclass is frozen."""
    fields = desc.fields_by_name
    plan = []
    for f in dataclasses.fields(cls):
        fd = fields[f.name]
        numbers = None
        if fd.enum_type is not None:
            prefix = _enum_prefix(fd.enum_type)
            numbers = {v.name[len(prefix) :]: v.number for v in fd.enum_type.values}
        plan.append((f.name, fd.message_type, numbers, _is_repeated(fd)))
    return tuple(plan), bool(cls.__dataclass_params__.frozen)


def fill_oneof(msg: Message, value: Any) -> Message:
    """Set the oneof field named after ``value``'s class (snake_case) in ``msg``."""
    sub = getattr(msg, snake(type(value).__name__))
    fill(sub, value)
    sub.SetInParent()
    return msg


# --- proto -> dataclass ------------------------------------------------------------------


def read(msg: Message, cls: type, path: str = "") -> Any:
    """Build a ``cls`` dataclass from ``msg``; malformed values raise MalformedCommand."""
    kwargs: dict[str, Any] = {}
    for name, fd, repeated, tp, inner, optional, enum_default in _read_plan(msg.DESCRIPTOR, cls):
        where = f"{path}{name}"
        if repeated:
            kwargs[name] = tuple(
                _read_value(fd, inner, item, f"{where}[{i}]")
                for i, item in enumerate(getattr(msg, name))
            )
        elif fd.has_presence and not msg.HasField(name):
            if not optional:  # required by the dataclass
                if fd.message_type is not None:
                    kwargs[name] = read(getattr(msg, name), tp, where + ".")
                else:
                    raise MalformedCommand(where, "is required")
            else:
                kwargs[name] = None
        elif enum_default and getattr(msg, name) == 0:
            continue  # UNSPECIFIED means the dataclass default, where it declares one
        else:
            kwargs[name] = _read_value(fd, inner, getattr(msg, name), where)
    return cls(**kwargs)


@cache
def _read_plan(desc: Any, cls: Any) -> tuple[tuple[str, Any, bool, Any, Any, bool, bool], ...]:
    """Per (message, dataclass), each field's name, descriptor, whether it repeats, its type,
    the type of its values (an item's, or without ``| None``), whether it may be None, and
    whether an unset (UNSPECIFIED, 0) enum means the dataclass default: where it has one."""
    hints = _hints(cls)
    fields = desc.fields_by_name
    plan = []
    for f in dataclasses.fields(cls):
        fd = fields[f.name]
        tp = hints[f.name]
        stripped = _strip_optional(tp)
        repeated = _is_repeated(fd)
        inner = typing.get_args(stripped)[0] if repeated else stripped
        has_default = (
            f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        )
        enum_default = fd.enum_type is not None and has_default
        plan.append((f.name, fd, repeated, tp, inner, stripped is not tp, enum_default))
    return tuple(plan)


def _read_value(fd: Any, tp: Any, v: Any, where: str) -> Any:
    if fd.message_type is not None:
        return read(v, tp, where + ".")
    if fd.enum_type is not None:
        value_desc = fd.enum_type.values_by_number.get(v)
        prefix = _enum_prefix(fd.enum_type)
        name = value_desc.name[len(prefix) :] if value_desc is not None else ""
        if not isinstance(tp, type) or not issubclass(tp, enum.Enum) or name not in tp.__members__:
            raise MalformedCommand(where, f"unknown or unspecified value {v}")
        return tp[name]
    return v


def read_oneof(msg: Message, types_: typing.Sequence[type], where: str) -> Any:
    """Read the set member of ``msg``'s oneof ``kind`` as one of ``types_``."""
    which = msg.WhichOneof("kind")
    if which is None:
        raise MalformedCommand(where, "no kind is set")
    by_name = {snake(t.__name__): t for t in types_}
    if which not in by_name:
        raise MalformedCommand(where, f"{which} is not accepted here")
    return read(getattr(msg, which), by_name[which], f"{where}.{which}.")
