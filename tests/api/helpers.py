"""Shared steps for API tests: open a seated table, read its history, find card ids."""

from __future__ import annotations

from google.protobuf.message import Message

from clients.python.client import SeatClient, TableClient
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2 as pb


def huaniao_options(mode: str = "BASIC") -> pb.GameOptions:
    return pb.GameOptions(huaniao=huaniao_pb2.Options(mode=huaniao_pb2.Mode.Value(f"MODE_{mode}")))


def seated_game(
    client: TableClient,
    seed: int,
    mode: str = "BASIC",
    seats: int = 4,
    start: bool = True,
    arbitrated: bool = False,
) -> tuple[str, list[SeatClient], str]:
    created = client.create_game(huaniao_options(mode), seats, seed=seed, arbitrated=arbitrated)
    # no contribution: a seeded table then deals the same every run (reproducible tests)
    players = [client.join(created.game_id, s, f"p{s}", contribution="") for s in range(seats)]
    if start:
        players[0].start()
    return created.game_id, players, created.arbiter_token


def history_versions(client: TableClient, game_id: str, token: str) -> list[int]:
    return [e.version for e in client.as_viewer(game_id, token).history()]


CARD_FIELDS = {"card", "cards", "deck", "card_id", "card_ids"}


def card_ids(msg: Message) -> set[int]:
    """Every card id inside a message: any `Card` message's `id`, and any integer field
    named like a card (card, cards, deck, card_id, card_ids)."""
    found: set[int] = set()
    for field, value in msg.ListFields():
        if field.message_type is None:
            if field.name in CARD_FIELDS:
                found |= set(value) if field.is_repeated else {value}
            continue
        for item in value if field.is_repeated else [value]:
            if field.message_type.name == "Card":
                found.add(item.id)
            else:
                found |= card_ids(item)
    return found
