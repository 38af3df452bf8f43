"""The Node verifier renders a viewer's events byte for byte as the server does (issue 36).

A receipt's seal hashes SHA-256(nonce || the deterministic protobuf bytes of what the viewer
was sent), so a second verifier can only hold a receipt against the record if it renders the
record exactly as ``server.wire.render`` does. Fresh honest random games of both kinds (every
花鸟风月 mode, 2..4 seats; seeded, the seed printed) give, for every move and every receipt
viewer, the payload the server's rendering makes (each checked first against the move's
seal: what the server signed); clients/node/lib/render.js must reproduce every one.
"""

from __future__ import annotations

import base64
import json
import os
import random
from pathlib import Path
from typing import Any

from tests.support import nodejs
from tests.support.nodejs import ensure_node_modules
from tests.support.render_vectors import corpus_vectors, every_fact_vectors, vectors

GAMES = 24  # bounded: about 3,000 (move, viewer) payloads


def node_differs(path: Path) -> tuple[int, str]:
    return nodejs.node_differs("render-vectors.js", path)


def write(path: Path, games: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(g, ensure_ascii=False) + "\n" for g in games))


def test_node_renders_every_viewers_events_of_random_games_as_the_server(tmp_path) -> None:  # type: ignore[no-untyped-def]
    seed = int(os.environ.get("RENDER_SEED", random.randrange(1 << 30)))
    print(f"render vectors seed {seed} (RENDER_SEED={seed} to repeat)")
    ensure_node_modules()
    games = list(vectors(seed, GAMES))
    assert {g["kind"] for g in games} == {"huaniao", "zipai"}
    path = tmp_path / "vectors.jsonl"
    write(path, games)
    code, out = node_differs(path)
    assert code == 0, f"seed {seed}: {out}"
    checked = int(out.split("render vectors: ")[1].split(" checked")[0])
    assert checked == sum(len(m["payloads"]) for g in games for m in g["moves"]) > 100


def test_node_renders_the_corpus_games_justice_facts_and_a_matchs_hands(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The conformance corpus's honest games (tests/vectors): a redeal by every seat and an
    arbiter's ruling (justice facts, RedealOpened, GameRedealt), a 2-hand match's hands
    (HandClosed, the match's GameCreated), a void draw (DealAbandoned)."""
    ensure_node_modules()
    games = list(corpus_vectors())
    facts = {json.loads(x)["fact"]["type"] for g in games for x in g["lines"]}
    assert {"GameRedealt", "RedealOpened", "HandClosed", "DealAbandoned"} <= facts, facts
    path = tmp_path / "corpus.jsonl"
    write(path, games)
    code, out = node_differs(path)
    assert code == 0, out


def test_node_renders_every_fact_type_of_both_games_with_random_fields(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Every fact type (both games', the table's, justice's), 12 random instances of each:
    what random play rarely reaches (penalties, appeals, timeouts, re-keys, odd texts)."""
    seed = int(os.environ.get("RENDER_SEED", random.randrange(1 << 30)))
    print(f"every-fact seed {seed} (RENDER_SEED={seed} to repeat)")
    ensure_node_modules()
    path = tmp_path / "every.jsonl"
    write(path, list(every_fact_vectors(seed, 12)))
    code, out = node_differs(path)
    assert code == 0, f"seed {seed}: {out}"


def test_a_payload_one_byte_off_is_caught(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The check can fail: a vector whose payload differs in one byte is reported."""
    ensure_node_modules()
    [game] = list(vectors(36, 1))
    move = game["moves"][-1]
    raw = bytearray(base64.b64decode(move["payloads"][0]))
    raw[-1] ^= 1
    move["payloads"][0] = base64.b64encode(bytes(raw)).decode()
    path = tmp_path / "vectors.jsonl"
    write(path, [game])
    code, out = node_differs(path)
    assert code == 1 and f"versions {move['first']}..{move['last']} viewer 0" in out
    assert ", 1 differ" in out
