"""Readable text for terminals: events (the server's own line), views and moves."""

from __future__ import annotations

from google.protobuf import text_format
from google.protobuf.message import Message

from server.wire.page.terms import ENUM_ZH
from tabletop.v1 import tabletop_pb2 as pb

# Card kinds by their proto enum names, for any game whose cards carry a `kind` enum (the
# referee page's words: one table for both).
CARD_NAMES = {n: w for n, w in ENUM_ZH.items() if n.startswith("CARD_KIND_")}
SMALL = "一二三四五六七八九十"
BIG = "壹贰叁肆伍陆柒捌玖拾"


def card_name(card: Message) -> str:
    """The name of a card message of either game."""
    fields = {f.name: v for f, v in card.ListFields()}
    if "kind" in fields:
        enum = card.DESCRIPTOR.fields_by_name["kind"].enum_type
        assert enum is not None, "a card's kind is an enum"
        return CARD_NAMES.get(enum.values_by_number[fields["kind"]].name, "?")
    if "rank" in card.DESCRIPTOR.fields_by_name:
        rank = fields.get("rank", 0)  # ListFields leaves out a field at its default, 0
        big = bool(getattr(card, "big", False))
        return (BIG if big else SMALL)[rank - 1] if 1 <= rank <= 10 else "?"
    return "?"


def event_line(event: pb.GameEvent) -> str:
    return f"v{event.version:>4}  {event.text}"


def cards_by_id(view: pb.GameView) -> dict[int, str]:
    """Every card visible in the view, by id: used to name the cards of a move."""
    names: dict[int, str] = {}

    def walk(msg: Message) -> None:
        for field, value in msg.ListFields():
            if field.message_type is None:
                continue
            items = value if field.is_repeated else [value]
            for item in items:
                if field.message_type.name == "Card" and "id" in item.DESCRIPTOR.fields_by_name:
                    names[item.id] = card_name(item)
                else:
                    walk(item)

    walk(view)
    return names


def move_text(move: pb.Move, names: dict[int, str]) -> str:
    """A one-line move with card ids followed by their names where known."""
    which = move.WhichOneof("game")
    command = getattr(move, which) if which else move
    line = text_format.MessageToString(command, as_one_line=True)
    for card_id, name in sorted(names.items(), key=lambda kv: -kv[0]):
        line = line.replace(f"cards: {card_id} ", f"cards: {card_id}({name}) ")
        line = line.replace(f"card: {card_id} ", f"card: {card_id}({name}) ")
        if line.endswith(f"cards: {card_id}") or line.endswith(f"card: {card_id}"):
            line += f"({name})"
    return line


def view_text(view: pb.GameView) -> str:
    which = view.WhichOneof("game")
    head = (
        f"game {view.game_id} v{view.version} {pb.GamePhase.Name(view.phase)} "
        f"as {pb.Role.Name(view.role)}" + (f" seat {view.seat}" if view.HasField("seat") else "")
    )
    body = text_format.MessageToString(getattr(view, which)) if which else ""
    if view.HasField("outcome"):
        body += f"\noutcome: winners {list(view.outcome.winners)} scores {list(view.outcome.scores)} ({view.outcome.reason})"
    return head + "\n" + body


def count_of(n: int, noun: str) -> str:
    """``1 card``, ``2 cards``: a count with its noun in the right number."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
