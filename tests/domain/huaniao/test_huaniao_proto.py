"""The proto mirrors the dataclasses (the server's converter maps them by name).

Parses protos/tabletop/huaniao/v1/huaniao.proto as text and checks, for every dataclass
reachable from the commands, events, Options and View: a message of the same name with the
same field names and matching types; for every enum: the prefixed values plus UNSPECIFIED = 0;
and Command / Event oneofs listing every command / event under its snake_case name.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import types
import typing
from pathlib import Path
from typing import Any

from domain.huaniao import RULES

PROTO = Path(__file__).parents[3] / "protos/tabletop/huaniao/v1/huaniao.proto"


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper()


def parse() -> tuple[dict[str, dict[str, str]], dict[str, list[str]], str]:
    text = re.sub(r"//.*", "", PROTO.read_text(encoding="utf-8"))
    messages: dict[str, dict[str, str]] = {}
    enums: dict[str, list[str]] = {}
    for kind, name, body in re.findall(r"\b(message|enum)\s+(\w+)\s*\{(.*?)\n\}", text, re.S):
        if kind == "enum":
            enums[name] = re.findall(r"(\w+)\s*=\s*\d+\s*;", body)
        else:
            fields = {}
            for label, typ, field in re.findall(
                r"(optional\s+|repeated\s+)?([\w.]+)\s+(\w+)\s*=\s*\d+\s*;", body
            ):
                fields[field] = (label.strip() + " " + typ).strip()
            messages[name] = fields
    package = re.search(r"package\s+([\w.]+);", text).group(1)
    return messages, enums, package


def expected(tp: Any, seen: set[type]) -> str:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        (inner,) = [a for a in typing.get_args(tp) if a is not type(None)]
        base = expected(inner, seen)
        return base if dataclasses.is_dataclass(inner) else "optional " + base
    if origin is tuple:
        return "repeated " + expected(typing.get_args(tp)[0], seen)
    if tp is int:
        return "int32"
    if tp is str:
        return "string"
    if tp is bool:
        return "bool"
    if isinstance(tp, type) and (issubclass(tp, enum.Enum) or dataclasses.is_dataclass(tp)):
        seen.add(tp)
        return tp.__name__
    raise AssertionError(tp)


def test_proto_mirrors_the_dataclasses() -> None:
    messages, enums, package = parse()
    assert package == "tabletop.huaniao.v1"
    todo: list[type] = [
        *RULES.command_types,
        *RULES.event_types,
        RULES.options_type,
        RULES.view_type,
    ]
    done: set[type] = set()
    while todo:
        cls = todo.pop()
        if cls in done:
            continue
        done.add(cls)
        if issubclass(cls, enum.Enum):
            prefix = snake(cls.__name__)
            assert enums.get(cls.__name__) == [f"{prefix}_UNSPECIFIED"] + [
                f"{prefix}_{m.name}" for m in cls
            ], cls
            continue
        assert cls.__name__ in messages, f"no message {cls.__name__}"
        hints = typing.get_type_hints(cls)
        seen: set[type] = set()
        want = {f.name: expected(hints[f.name], seen) for f in dataclasses.fields(cls)}
        assert messages[cls.__name__] == want, cls.__name__
        todo.extend(seen - done)

    def oneof(name: str) -> dict[str, str]:
        return {v.split()[-1]: k for k, v in messages[name].items()}

    assert oneof("Command") == {t.__name__: snake(t.__name__).lower() for t in RULES.command_types}
    assert oneof("Event") == {t.__name__: snake(t.__name__).lower() for t in RULES.event_types}
