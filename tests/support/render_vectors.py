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
import dataclasses
import enum
import json
import random
import sys
import types
import typing
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from domain import table as tables
from domain.huaniao import cards as huaniao_cards
from domain.huaniao.cards import Card as HuaniaoCard
from domain.huaniao.options import PRO_RULES, Mode
from domain.huaniao.options import Options as HuaniaoOptions
from domain.registry import rules_for
from domain.table import facts as F
from domain.table import records as rec
from domain.table.justice import facts as J
from domain.table.records import canonical
from domain.verify import moves, parse_export
from domain.zipai import cards as zipai_cards
from domain.zipai.cards import Card as ZipaiCard
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
            seal = records[last - 1].seal or {}
            if "receipts" in seal:  # a seal of format 3 lists no hashes: nothing to hold against
                sealed = seal["receipts"][i][0]
                nonce = rec.receipt_nonce(secret, salt, last, i)
                assert rec.receipt_hash(nonce, payload) == sealed, f"{last} {i}: not sealed"
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
            if "match" in line or "log" in line:
                continue  # a match's own facts, the log line: no viewer's events
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


def every_fact_vectors(seed: int, rounds: int) -> Iterator[dict[str, Any]]:
    """Every fact type of both games, the table and justice, ``rounds`` random instances of
    each (fields drawn by their types: numbers, texts with quotes and CJK, enums, nested
    facts, cards as the game deals them), each a move of its own after a GameCreated, with
    its payload for every receipt viewer as ``server.wire.render`` makes it. The facts need
    not make a game: this covers what random play rarely reaches (penalties, appeals,
    timeouts, a re-key)."""
    rng = random.Random(seed)
    for kind in ("huaniao", "zipai"):
        rules = rules_for(kind)
        fact_types = [*rules.event_types, *J.JUSTICE_EVENT_TYPES, *TABLE_FACTS]
        seats = 3
        created = replace(_fact(tables.GameCreated, rng, kind), seat_count=seats)
        facts = [created, *(_fact(t, rng, kind) for t in fact_types for _ in range(rounds))]
        at = datetime(2026, 1, 31, 23, 59, 59, 123456, tzinfo=UTC)
        lines, stored = [], []
        for version, fact in enumerate(facts, start=1):
            data = rec.encode_event(fact)
            h = f"{version:064x}"
            lines.append(
                canonical(
                    {
                        "cause": None,
                        "fact": data,
                        "hash": h,
                        "recorded_at": at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                        "seal": None,
                        "version": version,
                    }
                )
            )
            stored.append(StoredEvent(version, at, fact, h, data))
        viewers = rec.receipt_viewers(seats)
        moves = [
            {
                "first": v,
                "last": v,
                "payloads": [
                    base64.b64encode(
                        payload_bytes(events=render.events_proto(kind, [e], viewer))
                    ).decode()
                    for viewer in viewers
                ],
            }
            for v, e in enumerate(stored, start=1)
        ]
        yield {
            "kind": kind,
            "seats": seats,
            "seed": f"{seed} every fact",
            "lines": lines,
            "moves": moves,
        }


def _fact(cls: Any, rng: random.Random, kind: str) -> Any:
    """A random fact of ``cls``; a GameCreated names this kind and its default options."""
    fact = _instance(cls, rng, kind)
    if cls is tables.GameCreated:
        return replace(fact, kind=kind, options=rules_for(kind).check_options(None))
    return fact


def _instance(cls: Any, rng: random.Random, kind: str) -> Any:
    """A random instance of the dataclass ``cls``, each field drawn by its type."""
    hints = typing.get_type_hints(cls)
    return cls(
        **{f.name: _field(f.name, hints[f.name], rng, kind) for f in dataclasses.fields(cls)}
    )


def _field(name: str, tp: Any, rng: random.Random, kind: str) -> Any:
    if name.endswith("public_key"):  # rendered as bytes: hex, or "" (unkeyed)
        return rng.choice(("", f"{rng.randrange(1 << 256):064x}"))
    return _value(tp, rng, kind)


TABLE_FACTS = (
    F.GameCreated,
    F.SeatTaken,
    F.SeatRekeyed,
    F.SeatCommitted,
    F.RedealOpened,
    F.RedealSecretsRevealed,
    F.ContributionRevealed,
    F.RevealWithheld,
    F.DealAbandoned,
    F.GameStarted,
    F.ShuffleRevealed,
    F.HandClosed,
)
TEXTS = ("", "p1", "花鸟风月", 'say "hi"\n', "a\tb", "春来花友会，夏夜鸟啼时。")


def _value(tp: Any, rng: random.Random, kind: str) -> Any:  # noqa: C901 - one line per type
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        return None if rng.random() < 0.3 else _value(inner[0], rng, kind)
    if origin is tuple:
        return tuple(_value(args[0], rng, kind) for _ in range(rng.randint(0, 3)))
    if tp is HuaniaoCard:
        return huaniao_cards.CARDS[rng.randrange(len(huaniao_cards.CARDS))]
    if tp is ZipaiCard:
        return zipai_cards.card(rng.randrange(80))
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return rng.choice(list(tp))
    if tp is bool:
        return rng.random() < 0.5
    if tp is int:
        return rng.choice((0, 1, 2, rng.randrange(1000), rng.randrange(1 << 31)))
    if tp is str:
        return rng.choice((*TEXTS, f"{rng.randrange(1 << 64):064x}"))
    if dataclasses.is_dataclass(tp):
        return _instance(tp, rng, kind)
    return None  # Any: a retraction's restored state (never rendered)
