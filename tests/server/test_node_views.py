"""The Node verifier renders a viewer's GameView byte for byte as the server does, for both
games (issue 36: a lie to one seat is a proof for every field a viewer is shown).

A view receipt's hash covers the deterministic protobuf bytes of the GameView the viewer was
sent, so a second verifier can only hold it against the record if it folds the record's
facts (the table, justice, the clock, the game's state) and renders the view exactly as
``server.wire.render.view_proto`` does. Fresh honest random games (川南字牌 of 2, 3 and 4
seats with random options; 花鸟风月 of random modes and rules; seeded, the seed printed)
give, at the end of every move and for every receipt viewer (each seat, a spectator, the
arbiter), the view the server itself renders for GetView (tests/support/view_vectors.py,
each also what ``tabletop-audit`` re-renders); clients/node/lib/viewrender.js must
reproduce every one. The conformance corpus adds a 川南字牌 game with justice cases (open,
with their deadlines), a redeal drawn and dealt, void draws, and 花鸟风月 games.
"""

from __future__ import annotations

import base64
import json
import os
import random
from pathlib import Path

from tests.support import nodejs
from tests.support.nodejs import ensure_node_modules
from tests.support.view_vectors import (
    corpus_view_vectors,
    justice_view_vectors,
    view_vectors,
    write,
)

GAMES = 3  # 川南字牌: one of each seat count, about 500 (version, viewer) views
HUANIAO_GAMES = 5  # 花鸟风月: about 800


def node_differs(path: Path) -> tuple[int, str]:
    return nodejs.node_differs("view-vectors.js", path)


def node_on(path: Path, games: list[dict]) -> tuple[int, str]:
    """The vectors of ``games`` written to ``path`` and checked by Node."""
    write(path, games)
    return node_differs(path)


def payloads(games: list[dict]) -> int:
    """How many (version, viewer) views the vectors of ``games`` hold."""
    return sum(len(v["payloads"]) for g in games for v in g["views"])


def checked(out: str) -> int:
    return int(out.split("view vectors: ")[1].split(" checked")[0])


def test_node_renders_every_viewers_zipai_view_of_random_games_as_the_server(tmp_path) -> None:  # type: ignore[no-untyped-def]
    seed = int(os.environ.get("VIEW_SEED", random.randrange(1 << 30)))
    print(f"view vectors seed {seed} (VIEW_SEED={seed} to repeat)")
    ensure_node_modules()
    games = list(view_vectors(seed, GAMES))
    assert sorted(g["seats"] for g in games) == [2, 3, 4]
    code, out = node_on(tmp_path / "views.jsonl", games)
    assert code == 0, f"seed {seed}: {out}"
    assert checked(out) == payloads(games) > 300, f"seed {seed}: {out[-2000:]}"


def test_node_renders_every_viewers_huaniao_view_of_random_games_as_the_server(tmp_path) -> None:  # type: ignore[no-untyped-def]
    seed = int(os.environ.get("VIEW_SEED", random.randrange(1 << 30)))
    print(f"view vectors seed {seed} (VIEW_SEED={seed} to repeat)")
    ensure_node_modules()
    games = list(view_vectors(seed, HUANIAO_GAMES, "huaniao"))
    code, out = node_on(tmp_path / "views.jsonl", games)
    assert code == 0, f"seed {seed}: {out}"
    assert checked(out) == payloads(games) > 300, f"seed {seed}: {out[-2000:]}"


def test_node_renders_views_through_reports_penalties_appeals_and_retractions(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Random games with justice in them (tests/support/view_vectors.py ``play_justice``: a
    seat now and then reports the last mover with a graded penalty, and every legal command
    is drawn from, votes, appeals and 误操作 included; 花鸟风月 at tables of every
    enforcement, where a seat now and then plays cards that may break a rule, refereed or
    standing till reported): the cases, penalties, the penalties' own facts (a forced
    discard, an open hand, an attempt) and a retraction's restored state, in every viewer's
    view."""
    seed = int(os.environ.get("VIEW_SEED", random.randrange(1 << 30)))
    print(f"justice view vectors seed {seed} (VIEW_SEED={seed} to repeat)")
    ensure_node_modules()
    games = [*justice_view_vectors(seed, 3, "huaniao"), *justice_view_vectors(seed, 2, "zipai")]
    facts = {json.loads(x)["fact"]["type"] for g in games for x in g["lines"]}
    assert "ViolationReported" in facts, f"seed {seed}: no report"
    code, out = node_on(tmp_path / "justice.jsonl", games)
    assert code == 0, f"seed {seed}: {out}"
    assert checked(out) == payloads(games), f"seed {seed}: {out[-2000:]}"


def test_node_renders_the_corpus_games_views_justice_and_a_redeal(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The corpus's honest games: 川南字牌's reports opened (the view names the open case and
    its deadline), closed, a redeal drawn (the seats' fresh commitments, the redeal's
    commitment) and dealt, void draws (an abandonment deadline, then void); 花鸟风月's, and
    a match's two hands (the second's seats seated before they commit)."""
    from tabletop.v1 import tabletop_pb2 as pb

    ensure_node_modules()
    games = list(corpus_view_vectors())
    assert {g["kind"] for g in games} == {"huaniao", "zipai"}
    assert any(json.loads(g["lines"][0])["fact"]["data"]["hand"] == 2 for g in games)
    views = [
        pb.ReceiptPayload.FromString(base64.b64decode(p)).view
        for g in games
        for v in g["views"]
        for p in v["payloads"]
    ]
    assert any(v.HasField("case_deadline") for v in views), "an open case's deadline"
    assert any(v.redeal_commitment for v in views), "a redeal being drawn"
    assert any(v.HasField("abandon_deadline") for v in views) and any(v.void for v in views)
    code, out = node_on(tmp_path / "corpus.jsonl", games)
    assert code == 0, out
    assert checked(out) == len(views)


def test_a_view_one_field_off_is_caught(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The check can fail: a vector whose view differs in one field (a seat's hand size)
    is reported, naming the field."""
    from tabletop.v1 import tabletop_pb2 as pb

    ensure_node_modules()
    [game] = list(view_vectors(36, 1))
    v = game["views"][-1]
    payload = pb.ReceiptPayload.FromString(base64.b64decode(v["payloads"][0]))
    payload.view.zipai.seats[0].hand_size += 1
    v["payloads"][0] = base64.b64encode(payload.SerializeToString(deterministic=True)).decode()
    code, out = node_on(tmp_path / "views.jsonl", [game])
    assert code == 1 and f"version {v['version']} viewer 0" in out, out
    assert "view.zipai.seats[0].hand_size" in out and ", 1 differ" in out
    assert json.loads(json.dumps(game))  # (the vector stays one JSON line)
