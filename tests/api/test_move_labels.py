"""LegalMovesResponse.labels (server/wire/render_moves.move_label): within one response two different
moves never share a label, so every SDK can show a move by its label alone; every label is in
the game's words (no English, no class name). A 川南字牌 pair lists ``打 六`` and
``打 六（六第2张）``; a 花鸟风月 play names its cards (``诵 2 鸟+十``), not only its count."""

from __future__ import annotations

import re
from typing import Any

import pytest

from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient
from clients.python.play import game_options
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import seated_game

LATIN = re.compile(r"[A-Za-z]")


class CheckingBot(RandomBot):
    """A random seat that checks every LegalMovesResponse it is given before it moves."""

    seen: list[tuple[str, list[str]]]

    def __init__(self, seat: Any, seed: int, seen: list[tuple[str, list[str]]]) -> None:
        super().__init__(seat, seed)
        self.seen = seen

    def choose(self, legal: pb.LegalMovesResponse) -> pb.Move | None:
        labels = list(legal.labels)
        assert len(labels) == len(legal.moves)
        self.seen.append((f"seat {self.seat.seat} v{legal.version}", labels))
        return super().choose(legal)


def check(seen: list[tuple[str, list[str]]]) -> None:
    for where, labels in seen:
        doubled = sorted({x for x in labels if labels.count(x) > 1})
        assert not doubled, f"{where}: {doubled} stand for different moves"
        english = [x for x in labels if LATIN.search(x)]
        assert not english, f"{where}: {english}"


@pytest.mark.parametrize("seed", [61, 62, 63])
def test_a_zipai_response_never_gives_two_moves_one_label(client: TableClient, seed: int) -> None:
    print("seed", seed)
    created = client.create_game(game_options("zipai", ""), 3, seed=seed)
    seats = [client.join(created.game_id, s, f"z{s}", contribution="") for s in range(3)]
    seats[0].start()
    seen: list[tuple[str, list[str]]] = []
    play_to_end([CheckingBot(s, seed * 10 + i, seen) for i, s in enumerate(seats)])
    check(seen)
    every = {x for _, labels in seen for x in labels}
    assert any(x.startswith("打 ") for x in every)
    # a pair in the hand: both cards offered, the second one named as the second
    pairs = [x for x in every if re.fullmatch(r"打 (\S)（\1第2张）", x)]
    assert pairs and all(x.split("（")[0] in every for x in pairs), sorted(every)[:40]
    assert not any(" with " in x for x in every), "吃 says its cards in brackets"


@pytest.mark.parametrize(("mode", "seed"), [("BASIC", 64), ("FULL", 65)])
def test_a_huaniao_response_never_gives_two_moves_one_label(
    client: TableClient, mode: str, seed: int
) -> None:
    print("seed", seed)
    game_id, seats, _ = seated_game(client, seed=seed, mode=mode)
    seen: list[tuple[str, list[str]]] = []
    play_to_end([CheckingBot(s, seed * 10 + i, seen) for i, s in enumerate(seats)])
    check(seen)
    plays = [x for _, labels in seen for x in labels if x[:1] in "吟诵起"]
    assert plays, "plays were offered"
    for label in plays:  # its kind, its count, its cards: "诵 2 鸟+十"
        assert re.fullmatch(r"\S \d+ [鸟十百千万花风月+]+(（.*）)?", label), label
