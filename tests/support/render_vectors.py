"""Render vectors: (record, viewer, the payload bytes the server's rendering gives) from
honest random games, for the Node verifier's renderer (clients/node/lib/render.js), which
must reproduce every one byte for byte (tests/server/test_node_render.py; a small committed
set in clients/node/test/render-vectors.json for its unit tests).

``python -m tests.support.render_vectors SEED GAMES > FILE`` writes one JSON line a game:
{"kind", "seats", "seed", "lines": the export, "moves": [{"first", "last", "payloads":
[base64 per receipt viewer]}]}. Each payload is the server's rendering (``server.wire.render``,
what ``tabletop-audit verify --receipts`` holds receipts against), and its salted hash is
checked against the move's seal first: the vectors are what the server sealed.
"""

from __future__ import annotations

import asyncio
import base64
import json
import random
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from domain import table as tables
from domain.huaniao.options import PRO_RULES, Mode
from domain.huaniao.options import Options as HuaniaoOptions
from domain.table import records as rec
from domain.table.records import canonical
from domain.verify import moves, parse_export
from domain.zipai.options import Options as ZipaiOptions
from server.wire import render
from server.wire.receipts import payload_bytes
from server.wire.stored import StoredEvent
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
    """Every move's events payload for every receipt viewer, rendered by the server's own
    ``server.wire.render.events_proto`` (as ``Replayed.render``; a match's hand too, whose
    reveal is followed by HandClosed), each checked first against the move's seal."""
    records = parse_export(lines)
    kind = str(records[0].fact["data"]["kind"])
    revealed = [r.fact["data"] for r in records if r.fact["type"] == "ShuffleRevealed"][-1]
    secret, salt = str(revealed["secret"]), str(revealed.get("salt", ""))
    viewers = rec.receipt_viewers(int(records[0].fact["data"]["seat_count"]))
    stored = [
        StoredEvent(
            r.version,
            datetime.fromisoformat(r.recorded_at),
            tables.decode_event(kind, r.fact),
            r.hash,
            r.fact,
            r.cause,
            r.seal,
        )
        for r in records
    ]
    for first, last in moves(records):
        payloads = []
        for i, viewer in enumerate(viewers):
            payload = payload_bytes(
                events=render.events_proto(kind, stored[first - 1 : last], viewer)
            )
            sealed = (records[last - 1].seal or {})["receipts"][i][0]
            nonce = rec.receipt_nonce(secret, salt, last, i)
            assert rec.receipt_hash(nonce, payload) == sealed, f"{last} {i}: not what was sealed"
            payloads.append(base64.b64encode(payload).decode())
        yield {"first": first, "last": last, "payloads": payloads}


CORPUS = Path(__file__).resolve().parents[1] / "vectors"


def corpus_vectors() -> Iterator[dict[str, Any]]:
    """The honest games of the conformance corpus (tests/vectors: an arbitrated 川南字牌 game
    re-dealt once and ruled on, so justice facts; a 2-hand match, so HandClosed and a match's
    GameCreated; a void draw), each game with every move's payload for every viewer."""
    manifest = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
    for entry in manifest:
        if entry["verdict"] != "accept" or entry["file"] == "crlf.jsonl":  # (crlf: void's own)
            continue
        text = (CORPUS / "files" / entry["file"]).read_text(encoding="utf-8")
        lines = [json.loads(x) for x in text.split("\n") if x.strip()]
        if "event" in lines[0]:  # the `tabletop export` form: the same game as another file
            continue
        games: dict[str, list[str]] = {}
        for line in lines:
            if "match" in line:
                continue  # a match's own facts: no viewer's events
            gid = str(line.pop("game_id", entry["file"]))
            line.pop("hand", None)
            games.setdefault(gid, []).append(canonical(line))
        for gid, game in games.items():
            kind = json.loads(game[0])["fact"]["data"]["kind"]
            seats = json.loads(game[0])["fact"]["data"]["seat_count"]
            yield {
                "kind": kind,
                "seats": seats,
                "seed": f"{entry['file']} {gid}",
                "lines": game,
                "moves": list(_moves(game)),
            }


def main(argv: list[str]) -> None:
    seed, games = int(argv[0]), int(argv[1])
    for v in vectors(seed, games):
        sys.stdout.write(json.dumps(v, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
