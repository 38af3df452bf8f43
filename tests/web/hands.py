"""Random hands for the page's move picker test: the legal moves the Python engine gives the
seat to act at every version of random self-played games, as the LegalMovesResponse JSON
the page receives (``python -m tests.web.hands SEED GAMES > hands.json``)."""

from __future__ import annotations

import json
import random
import sys
import types
from typing import Any

from google.protobuf.json_format import MessageToDict

from domain.huaniao.options import Mode, Options
from domain.registry import rules_for
from server.wire import render_moves
from tests.support.selfplay import play_random_game

# 花鸟风月 in each mode (专业 with 阳春白雪: the 24-card hands of the issue), 川南字牌 as dealt
SETUPS: tuple[tuple[str, Any, int], ...] = (
    ("huaniao", Options(mode=Mode.PRO, spring_snow=True), 4),
    ("huaniao", Options(mode=Mode.FULL), 4),
    ("huaniao", Options(mode=Mode.BASIC), 3),
    ("huaniao", Options(mode=Mode.SIMPLE), 2),
    ("zipai", None, 3),
)


def hands(seed: int, games: int) -> list[dict[str, Any]]:
    """Every (state, seat to act) of ``games`` random games per setup, deduplicated by moves."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for kind, options, seats in SETUPS:
        rules = rules_for(kind)
        for _ in range(games):
            game_seed = rng.getrandbits(31)
            opts = options if options is not None else rules.options_type()
            game = play_random_game(rules, opts, seats, game_seed, roundtrip=False)
            for state in game.states:
                if rules.outcome(state) is not None:
                    continue
                table: Any = types.SimpleNamespace(kind=kind, game=state)
                for seat in rules.to_act(state):
                    commands = list(rules.legal_commands(state, seat))
                    moves = render_moves.legal_moves_proto(table, 1, commands)
                    out.append({"kind": kind, "seed": game_seed, "moves": MessageToDict(moves)})
    return out


if __name__ == "__main__":
    json.dump(hands(int(sys.argv[1]), int(sys.argv[2])), sys.stdout, ensure_ascii=False)
