"""protos/tabletop/zipai/v1/zipai.proto mirrors the domain dataclasses field by field.

The server translates by name (server/wire/protoconv.py), so a field missing, renamed or of the
wrong type here would only fail at run time. The proto is compiled into a private descriptor
pool (nothing is registered globally).
"""

from __future__ import annotations

import dataclasses
import enum
import pathlib
import re
import types
import typing
from typing import Any

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.descriptor import FieldDescriptor

from domain.zipai.cards import Card
from domain.zipai.commands import COMMAND_TYPES, BiGroup
from domain.zipai.events import EVENT_TYPES, Claim
from domain.zipai.melds import Group
from domain.zipai.options import Options
from domain.zipai.views import MeldView, SeatView, View

ROOT = pathlib.Path(__file__).resolve().parents[3]
PROTO = "tabletop/zipai/v1/zipai.proto"
MESSAGES = [
    Card,
    Options,
    Group,
    BiGroup,
    Claim,
    *COMMAND_TYPES,
    *EVENT_TYPES,
    MeldView,
    SeatView,
    View,
]


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> descriptor_pool.DescriptorPool:
    from grpc_tools import protoc

    out = tmp_path_factory.mktemp("pb") / "zipai.pb"
    rc = protoc.main(
        [
            "protoc",
            f"-I{ROOT / 'protos'}",
            f"--descriptor_set_out={out}",
            str(ROOT / "protos" / PROTO),
        ]
    )
    assert rc == 0, "zipai.proto does not compile"
    fds = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    p = descriptor_pool.DescriptorPool()
    for f in fds.file:
        p.Add(f)
    return p


def _expect(tp: Any) -> tuple[str, bool, bool]:
    """(proto type name, repeated, explicit presence) for a dataclass field type."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        (inner,) = [a for a in typing.get_args(tp) if a is not type(None)]
        name, _rep, _pres = _expect(inner)
        return name, False, True
    if origin is tuple:
        name, _rep, _pres = _expect(typing.get_args(tp)[0])
        return name, True, False
    if tp is int:
        return "int32", False, False
    if tp is bool:
        return "bool", False, False
    if tp is str:
        return "string", False, False
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return tp.__name__, False, False
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return tp.__name__, False, True
    raise TypeError(tp)


def _actual(fd: FieldDescriptor) -> str:
    if fd.message_type is not None:
        return str(fd.message_type.name)
    if fd.enum_type is not None:
        return str(fd.enum_type.name)
    return {
        FieldDescriptor.TYPE_INT32: "int32",
        FieldDescriptor.TYPE_BOOL: "bool",
        FieldDescriptor.TYPE_STRING: "string",
    }[fd.type]


@pytest.mark.parametrize("cls", MESSAGES, ids=lambda c: c.__name__)
def test_message_mirrors_dataclass(pool: descriptor_pool.DescriptorPool, cls: type) -> None:
    msg = pool.FindMessageTypeByName(f"tabletop.zipai.v1.{cls.__name__}")
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    assert [f.name for f in msg.fields] == names
    for name in names:
        fd = msg.fields_by_name[name]
        tname, repeated, presence = _expect(hints[name])
        assert _actual(fd) == tname, f"{cls.__name__}.{name}"
        assert bool(fd.is_repeated) == repeated, f"{cls.__name__}.{name}"
        if not repeated:
            assert bool(fd.has_presence) == presence, f"{cls.__name__}.{name} presence"
        if fd.enum_type is not None:
            py = typing.get_args(hints[name]) or (hints[name],)
            py_enum = next(a for a in py if isinstance(a, type) and issubclass(a, enum.Enum))
            prefix = snake(py_enum.__name__).upper() + "_"
            values = {v.name: v.number for v in fd.enum_type.values}
            assert values[prefix + "UNSPECIFIED"] == 0
            for member in py_enum:
                assert values[prefix + member.name] == member.value


@pytest.mark.parametrize(
    ("wrapper", "types_"), [("Command", COMMAND_TYPES), ("Event", EVENT_TYPES)]
)
def test_oneof_lists_every_type(
    pool: descriptor_pool.DescriptorPool, wrapper: str, types_: Any
) -> None:
    msg = pool.FindMessageTypeByName(f"tabletop.zipai.v1.{wrapper}")
    (oneof,) = msg.oneofs
    assert oneof.name == "kind"
    got = {f.name: f.message_type.name for f in oneof.fields if f.message_type is not None}
    assert got == {snake(t.__name__): t.__name__ for t in types_}
    assert len(oneof.fields) == len(types_)


def test_every_command_has_a_seat() -> None:
    for t in COMMAND_TYPES:
        assert "seat" in {f.name for f in dataclasses.fields(t)}, t


def test_every_message_and_field_is_commented() -> None:
    text = (ROOT / "protos" / PROTO).read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(text):
        stripped = line.strip()
        if re.match(r"^(message|enum) \w+ \{$", stripped) or re.match(
            r"^(optional |repeated )?\w+ \w+ = \d+;$", stripped
        ):
            assert text[i - 1].strip().startswith("//"), f"line {i + 1} has no comment: {stripped}"


def test_the_proto_file_is_rendered_from_the_dataclasses() -> None:
    from tests.domain.zipai.proto_gen import render

    committed = (ROOT / "protos" / PROTO).read_text(encoding="utf-8")
    assert committed == render(), "regenerate: python -m tests.domain.zipai.proto_gen > protos/…"
