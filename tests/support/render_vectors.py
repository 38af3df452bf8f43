"""Render vectors: (record, viewer, the payload bytes the server's rendering gives) from
honest random games, for the Node verifier's renderer (clients/node/lib/render.js), which
must reproduce every one byte for byte (tests/api/test_node_render.py; a small committed
set in clients/node/test/render-vectors.json for its unit tests).

``python -m tests.support.render_vectors SEED GAMES > FILE`` writes one JSON line a game:
{"kind", "seats", "seed", "lines": the export, "moves": [{"first", "last", "payloads":
[base64 per receipt viewer]}]}. Each payload is ``Replayed.render`` (what ``tabletop-audit
verify --receipts`` holds receipts against), and its salted hash is checked against the
move's seal first: the vectors are what the server sealed.
"""

from __future__ import annotations

import asyncio
import base64
import json
import random
import sys
from collections.abc import Iterator
from typing import Any

from clients.python.audit_receipts import Replayed
from domain.huaniao.options import PRO_RULES, Mode
from domain.huaniao.options import Options as HuaniaoOptions
from domain.verify import parse_export
from domain.zipai.options import Options as ZipaiOptions
from tests.support.records import export, in_memory_server, play_random

MODES = (Mode.SIMPLE, Mode.BASIC, Mode.REGULAR, Mode.FULL, Mode.PRO)


def game_options(kind: str, rng: random.Random) -> tuple[Any, int]:
    """A kind's options and seat count, drawn from ``rng``: every 花鸟风月 mode, 2..4 seats."""
    if kind == "huaniao":
        mode = rng.choice(MODES)
        if mode is not Mode.PRO:
            return HuaniaoOptions(mode=mode), rng.randint(2, 4)
        rules: dict[str, Any] = {name: rng.random() < 0.6 for name in PRO_RULES}
        rules[rng.choice(PRO_RULES)] = True  # 专业 adds at least one rule
        return HuaniaoOptions(mode=mode, **rules), rng.randint(2, 4)
    return ZipaiOptions(), rng.randint(2, 4)


def vectors(seed: int, games: int) -> Iterator[dict[str, Any]]:
    """``games`` honest random games (alternating kinds; every 花鸟风月 mode, 专业 with a
    random set of its rules; 2..4 seats) drawn from ``seed``, each with every move's payload
    for every viewer."""
    rng = random.Random(seed)
    for n in range(games):
        kind = ("huaniao", "zipai")[n % 2]
        options, seats = game_options(kind, rng)
        game_seed = rng.randrange(1 << 30)
        lines = asyncio.run(_play(kind, options, seats, game_seed))
        yield {
            "kind": kind,
            "seats": seats,
            "seed": game_seed,
            "lines": lines,
            "moves": list(_moves(lines)),
        }


async def _play(kind: str, options: Any, seats: int, seed: int) -> list[str]:
    ts = in_memory_server()
    try:
        gid = await play_random(ts, kind, options, seats, seed)
        return await export(ts, gid)
    finally:
        ts.games.close()


def _moves(lines: list[str]) -> Iterator[dict[str, Any]]:
    records = parse_export(lines)
    replayed = Replayed(records)
    replayed.check_all_hashes()  # the rendering below is what every seal signed
    viewers = replayed.tables[0].seat_count + 2
    for last, first in sorted(replayed.bounds.items()):
        payloads = [replayed.render(first, last, i, "events") for i in range(viewers)]
        yield {
            "first": first,
            "last": last,
            "payloads": [base64.b64encode(p).decode() for p in payloads],
        }


def main(argv: list[str]) -> None:
    seed, games = int(argv[0]), int(argv[1])
    for v in vectors(seed, games):
        sys.stdout.write(json.dumps(v, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
