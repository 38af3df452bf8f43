"""A prepared deal and the same commands give the same history twice (ARCHITECTURE: replay)."""

from __future__ import annotations

import random

from clients.python.client import TableClient
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import huaniao_options


def play_prepared(client: TableClient, deck: list[int], seed: int) -> list[tuple[int, str, bytes]]:
    # the same seed gives the same shuffle secret (the commitment's salt is random: cleared)
    created = client.create_game(huaniao_options("BASIC"), 4, deck=deck, seed=1)
    seats = [client.join(created.game_id, s, f"p{s}", contribution="") for s in range(4)]
    seats[0].start()
    rng = random.Random(seed)
    to_act = list(client.as_viewer(created.game_id).view().to_act)
    while to_act:
        seat = seats[rng.choice(sorted(to_act))]
        legal = seat.legal_moves()
        to_act = list(seat.play(rng.choice(list(legal.moves)), legal.version).to_act)
    history = client.as_viewer(created.game_id, created.arbiter_token).history()
    return [(e.version, e.text, _body(e)) for e in history]


def _body(event: pb.GameEvent) -> bytes:
    body = pb.GameEvent()
    body.CopyFrom(event)
    body.ClearField("recorded_at")
    body.ClearField("hash")  # keyed by the random shuffle secret
    body.ClearField("stored_json")  # holds the random token hashes
    if body.table.HasField("game_created"):  # salted with a random salt
        body.table.game_created.ClearField("commitment")
    if body.table.HasField("seat_taken"):  # each seat's key is made fresh on joining
        body.table.seat_taken.ClearField("public_key")
    if body.table.HasField("shuffle_revealed"):
        body.table.shuffle_revealed.ClearField("salt")
    return body.SerializeToString(deterministic=True)


def test_same_prepared_deal_and_commands_give_identical_histories(client: TableClient) -> None:
    deck = list(range(108))
    random.Random(99).shuffle(deck)
    first = play_prepared(client, deck, seed=4)
    second = play_prepared(client, deck, seed=4)
    assert len(first) > 12
    assert first == second
    started = next(text for _, text, _ in first if "started" in text)
    assert "deck hidden" not in started  # the arbiter sees the prepared deck


def test_a_prepared_deck_is_dealt_in_its_order(client: TableClient) -> None:
    deck = list(range(108))
    created = client.create_game(huaniao_options("BASIC"), 4, deck=deck)
    for seat in [client.join(created.game_id, s) for s in range(4)]:
        seat.reveal()  # seats commit by default and reveal once all are taken
    arbiter = client.as_viewer(created.game_id, created.arbiter_token)
    arbiter.start()
    events = list(arbiter.history())
    started = next(e for e in events if e.HasField("table") and e.table.HasField("game_started"))
    assert list(started.table.game_started.deck) == deck
