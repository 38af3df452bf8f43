"""Render protos/tabletop/zipai/v1/zipai.proto from the zipai dataclasses.

Comments come from the dataclass docstrings and the ``# ...`` comment after each field.
``test_zipai_proto.py`` checks that the committed file is exactly this output. Regenerate::

    .venv/bin/python -m tests.domain.zipai.proto_gen > protos/tabletop/zipai/v1/zipai.proto
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import re
import sys
import types
import typing
from typing import Any

from domain.zipai import cards as C
from domain.zipai import commands as K
from domain.zipai import events as E
from domain.zipai import melds as M
from domain.zipai import options as O
from domain.zipai import state as S
from domain.zipai import views as V

DEFAULT: dict[str, str] = {
    "seat": "the seat (0-based) this is about",
    "card": "the card",
    "cards": "the cards",
    "from_seat": "the seat that showed the taken card",
    "kind": "its kind",
    "id": "stable identity 0..79 (kind * 4 + copy)",
    "rank": "face value 1..10",
    "big": "true for 大写 壹…拾, false for 小写 一…十",
    "dealer": "the dealer (庄家) seat",
    "seat_count": "number of seats at the table (2, 3 or 4)",
    "count": "how many cards",
    "scores": "score of each seat, indexed by seat (zero-sum)",
    "group": "the shape of the 列",
    "bi": "the 比牌 列 laid down with it",
    "stock_size": "cards in the stock",
    "reason": "why",
    "prompt": "what is asked",
    "seats": "the seats concerned",
    "flipped": "true if it was flipped from the stock, false if discarded from a hand",
    "hidden_size": "how many cards are not shown to this viewer",
    "win_kind": "how the winning card came",
}


def _comments(cls: type) -> dict[str, str]:
    src = inspect.getsource(cls)
    out = {}
    for m in re.finditer(r"^    (\w+): [^#\n]*?(?:#\s*(.*))?$", src, re.M):
        if m.group(2):
            out[m.group(1)] = m.group(2).strip()
    return out


def _doc(cls: type) -> str:
    return " ".join((cls.__doc__ or cls.__name__).split())


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _ptype(tp: Any) -> tuple[str, str]:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        (inner,) = [a for a in typing.get_args(tp) if a is not type(None)]
        t, _ = _ptype(inner)
        return (t, "") if dataclasses.is_dataclass(inner) else (t, "optional ")
    if origin is tuple:
        t, _ = _ptype(typing.get_args(tp)[0])
        return t, "repeated "
    scalars = {int: "int32", str: "string", bool: "bool"}
    if tp in scalars:
        return scalars[tp], ""
    if isinstance(tp, type) and (issubclass(tp, enum.Enum) or dataclasses.is_dataclass(tp)):
        return tp.__name__, ""
    raise TypeError(tp)


def _message(cls: type, lines: list[str]) -> None:
    hints = typing.get_type_hints(cls)
    com = _comments(cls)
    lines += [f"// {_doc(cls)}", f"message {cls.__name__} {{"]
    for i, f in enumerate(dataclasses.fields(cls), 1):  # type: ignore[arg-type]
        t, label = _ptype(hints[f.name])
        comment = com.get(f.name) or DEFAULT.get(f.name)
        if comment is None:
            raise ValueError(f"{cls.__name__}.{f.name} has no comment")
        lines += [f"  // {comment}", f"  {label}{t} {f.name} = {i};"]
    lines += ["}", ""]


def _enum(cls: type[enum.Enum], lines: list[str]) -> None:
    prefix = snake(cls.__name__).upper()
    lines += [
        f"// {_doc(cls)}",
        f"enum {cls.__name__} {{",
        "  // Not set.",
        f"  {prefix}_UNSPECIFIED = 0;",
    ]
    src = inspect.getsource(cls)
    for m in cls:
        cm = re.search(rf"^    {m.name} = \d+(?:\s*#\s*(.*))?$", src, re.M)
        comment = cm.group(1) if cm and cm.group(1) else m.name.lower().replace("_", " ")
        lines += [f"  // {comment}", f"  {prefix}_{m.name} = {m.value};"]
    lines += ["}", ""]


ENUMS: list[type[enum.Enum]] = [
    O.Variant,
    O.DealerRule,
    O.ScoringProfile,
    M.GroupKind,
    M.MeldKind,
    E.DrawReason,
    E.PromptKind,
    E.ClaimKind,
    E.WinKind,
    S.Phase,
    O.FirstDealer,
]
MESSAGES: list[type] = [
    C.Card,
    O.Options,
    M.Group,
    K.BiGroup,
    E.Claim,
    *K.COMMAND_TYPES,
    *E.EVENT_TYPES,
    V.MeldView,
    V.SeatView,
    V.View,
]


def render() -> str:
    lines = [
        "// 川南字牌 (乐乐川南字牌, Sichuan 大二): the messages of the zipai game.",
        "//",
        "// Rendered from the domain/zipai dataclasses by tests/domain/zipai/proto_gen.py and kept in",
        "// step by tests/domain/zipai/test_zipai_proto.py: every dataclass Foo is message Foo with",
        "// the same snake_case field names; Python enum member X of enum E is value E_X; card ids",
        "// are stable identities 0..79 (kind * 4 + copy).",
        'syntax = "proto3";',
        "",
        "package tabletop.zipai.v1;",
        "",
    ]
    for e in ENUMS:
        _enum(e, lines)
    for m in MESSAGES:
        _message(m, lines)
    wrappers = (
        (
            "Command",
            K.COMMAND_TYPES,
            "Any command a seat may send (its seat is filled in by the server).",
        ),
        ("Event", E.EVENT_TYPES, "Any fact of a hand, as the viewer may see it."),
    )
    for name, types_, doc in wrappers:
        lines += [f"// {doc}", f"message {name} {{", "  // Which one.", "  oneof kind {"]
        for i, t in enumerate(types_, 1):
            lines += [f"    // {_doc(t)}", f"    {t.__name__} {snake(t.__name__)} = {i};"]
        lines += ["  }", "}", ""]
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
