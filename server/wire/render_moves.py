"""Moves and options between protobuf and the domain: reading a move, options and the
settings' enums from a request; writing a move and options; a seat's legal moves and their
menu labels, in the game's words (``render.py`` renders events and views).
"""

from __future__ import annotations

import enum
import re
from typing import Any, TypeVar

from domain import match as matches
from domain import table as tables
from domain.engine import MalformedCommand
from domain.huaniao import cards as huaniao_cards
from domain.registry import rules_for
from domain.table.justice import facts as J
from domain.zipai import cards as zipai_cards
from server.wire.protoconv import fill, fill_oneof, read, read_oneof
from tabletop.v1 import tabletop_pb2 as pb

E = TypeVar("E", bound=enum.Enum)


def read_options(msg: pb.GameOptions) -> tuple[str, Any]:
    kind = msg.WhichOneof("game")
    if kind is None:
        raise MalformedCommand("options", "choose a game kind")
    return kind, read(getattr(msg, kind), rules_for(kind).options_type, f"options.{kind}.")


def read_enforcement(value: int) -> J.Enforcement:
    return _read_enum(value, pb.Enforcement, J.Enforcement, "enforcement", J.Enforcement.REJECT)


def read_advance(value: int) -> matches.Advance:
    return _read_enum(value, pb.HandAdvance, matches.Advance, "match.advance", matches.Advance.AUTO)


def _read_enum(value: int, proto: Any, domain: type[E], field: str, unset: E) -> E:
    """A proto enum value as the domain enum member of the same name (0: ``unset``)."""
    if value == 0:
        return unset
    if value not in proto.values():
        raise MalformedCommand(field, f"unknown value {value}")
    prefix = proto.Name(0).removesuffix("UNSPECIFIED")  # e.g. "ENFORCEMENT_"
    return domain[proto.Name(value).removeprefix(prefix)]


def read_move(kind: str, msg: pb.Move) -> Any:
    which = msg.WhichOneof("game")
    if which == "table":
        return read_oneof(msg.table, J.TABLE_COMMAND_TYPES, "move.table")
    if which != kind:
        raise MalformedCommand("move", f"this game is {kind}, the move is {which or 'empty'}")
    return read_oneof(getattr(msg, kind), rules_for(kind).command_types, f"move.{kind}")


def options_proto(kind: str, options: Any) -> pb.GameOptions:
    msg = pb.GameOptions()
    fill(getattr(msg, kind), options)
    getattr(msg, kind).SetInParent()
    return msg


def move_proto(kind: str, command: Any) -> pb.Move:
    msg = pb.Move()
    fill_oneof(msg.table if type(command) in J.TABLE_COMMAND_TYPES else getattr(msg, kind), command)
    return msg


def legal_moves_proto(
    table: tables.Table, version: int, commands: list[Any]
) -> pb.LegalMovesResponse:
    """A seat's legal commands as a LegalMovesResponse: each move and its label (``move_label``).

    A command (a frozen dataclass) is rendered once while it stays in ``_MOVES``: the same
    plays and passes come back turn after turn, in every game of a kind."""
    kind = table.kind
    moves = []
    for command in commands:
        key = (kind, command)
        try:
            msg, cached = _MOVES.get(key), True
        except TypeError:  # unhashable: not cached
            msg, cached = None, False
        if msg is None:
            msg = move_proto(kind, command)
            if cached:
                if len(_MOVES) >= MOVES_SIZE:
                    _MOVES.clear()
                _MOVES[key] = msg  # shared: copied into each response, never changed
        moves.append(msg)
    return pb.LegalMovesResponse(version=version, moves=moves, labels=move_labels(table, commands))


MOVES_SIZE = 1 << 13
_MOVES: dict[tuple[str, Any], pb.Move] = {}


def move_labels(table: tables.Table, commands: list[Any]) -> list[str]:
    """``move_label`` of each command, the seat's hand looked at once for all of them."""
    faces = _Faces()
    return [_move_label(table, c, faces) for c in commands]


def move_label(table: tables.Table, command: Any) -> str:
    """The menu line of a legal command (LegalMovesResponse.labels), in the game's words.

    Two different legal commands of one seat never share a label: a table move names its case,
    a game move its cards, and where the seat holds more cards of a face than the move uses
    (two 六 in a 川南字牌 hand, three 鸟 for a 吟 of two) and the move does not use the first
    of them, which ones, counted in the hand from the lowest id: ``打 六`` and
    ``打 六（六第2张）``, ``吟 2 鸟+鸟`` and ``吟 2 鸟+鸟（鸟第1、3张）``."""
    return _move_label(table, command, None)


def _move_label(table: tables.Table, command: Any, faces: _Faces | None) -> str:
    if type(command) in J.TABLE_COMMAND_TYPES:
        return _table_move_label(command)
    return game_move_label(table.kind, table.game, command, faces)


def _table_move_label(command: Any) -> str:
    if isinstance(command, J.CastVote):
        return "投票 " + ("成立" if command.uphold else "不成立")
    if isinstance(command, J.Retract):
        return "误操作"
    if isinstance(command, J.Appeal):
        return f"申诉 案 {command.case_id}"
    if isinstance(command, J.Rule):
        return f"裁定 案 {command.case_id} " + ("成立" if command.uphold else "不成立")
    if isinstance(command, J.AgreeRedeal):
        return f"同意重新洗牌发牌 案 {command.case_id}"
    if isinstance(command, J.Redeal):
        return "重新洗牌发牌"
    if isinstance(command, J.Report):
        return f"举报 {command.accused}家"
    return type(command).__name__


def game_move_label(kind: str, game: Any, command: Any, faces: _Faces | None = None) -> str:
    """A game command's label (see ``move_label``) from the game's own, made distinct.
    ``faces``: the hands' faces already looked at for other commands of the same ``game``."""
    label = str(rules_for(kind).label(game, command))
    if "seat " in label:
        label = _SEAT_WORD.sub(r"\1家", label)
    if kind == "zipai" and label.startswith("吃 "):
        label = _CHI_WITH.sub(
            lambda m: f"吃 {m[1]} ({m[2]})" + (f"，比 {m[4]}" if m[4] else ""), label
        )
    ids = _cards_of_command(command)
    if not ids:
        return label
    face = _FACE.get(kind)
    if face is None:
        return label
    held = (faces or _Faces()).of(kind, game, getattr(command, "seat", -1), face)
    if held is None:
        return label
    if kind == "huaniao" and not label.startswith("弃"):  # a play says its cards
        names = "+".join(face(i) for i in sorted(ids))  # ids run in the deck's kind order
        if names not in label:
            label += f" {names}"
    return label + _which_of_a_face(ids, held, face)


class _Faces:
    """A seat's hand by face (the ids of each face, lowest first), looked at once per seat
    for all the labels of one answer."""

    __slots__ = ("_seats",)

    def __init__(self) -> None:
        self._seats: dict[int, dict[str, list[int]] | None] = {}

    def of(self, kind: str, game: Any, seat: int, face: Any) -> dict[str, list[int]] | None:
        if seat not in self._seats:
            hand = _hand_of(kind, game, seat)
            by_face: dict[str, list[int]] | None = None
            if hand is not None:
                by_face = {}
                for i in sorted(hand):
                    by_face.setdefault(face(i), []).append(i)
            self._seats[seat] = by_face
        return self._seats[seat]


_SEAT_WORD = re.compile(r"\bseat (\d+)")
_CHI_WITH = re.compile(r"^吃 (\S+) with (\S+)(, 比 (.*))?$")


def _cards_of_command(command: Any) -> tuple[int, ...]:
    """The hand's cards a command uses: its ``card`` or ``cards``, and any 比 groups'."""
    ids: tuple[int, ...] = ()
    if isinstance(getattr(command, "card", None), int):
        ids = (command.card,)
    elif isinstance(getattr(command, "cards", None), tuple):
        ids = tuple(command.cards)
    for group in getattr(command, "bi", ()) or ():
        ids += tuple(group.cards)
    return ids


def _hand_of(kind: str, game: Any, seat: int) -> tuple[int, ...] | None:
    try:
        if kind == "huaniao":
            return tuple(game.hands[seat].cards)
        if kind == "zipai":
            return tuple(game.seats[seat].hand)
    except (AttributeError, IndexError, TypeError):
        return None
    return None


# every card id's face name, looked up by index: a turn's labels ask for them by the hundred
_HUANIAO_FACES = tuple(huaniao_cards.NAME[kind] for kind in huaniao_cards.KIND_OF)


def _huaniao_face(card_id: int) -> str:
    return _HUANIAO_FACES[card_id]


def _zipai_face(card_id: int) -> str:
    return zipai_cards.card_name(zipai_cards.card(card_id))


_FACE = {"huaniao": _huaniao_face, "zipai": _zipai_face}


def _which_of_a_face(ids: tuple[int, ...], by_face: dict[str, list[int]], face: Any) -> str:
    """Which cards of a face the move uses, where the hand (``by_face``: its ids of each face,
    lowest first) holds more of that face than the move uses and the move does not take the
    first of them (counted from the lowest id, the ones a menu that lists a face once names):
    ``（六第2张）``, ``（鸟第1、3张）``; "" when the faces say it all. Two moves of the same
    faces then never read alike."""
    used_of: dict[str, list[int]] = {}  # the move's ids of each face, faces in move order
    for i in ids:
        used_of.setdefault(face(i), []).append(i)
    parts = []
    for name, used in used_of.items():
        held = by_face.get(name, [])
        used.sort()
        if used != held[: len(used)] and all(i in held for i in used):
            positions = sorted(held.index(i) + 1 for i in used)
            parts.append(f"{name}第{'、'.join(map(str, positions))}张")
    return f"（{'；'.join(parts)}）" if parts else ""
