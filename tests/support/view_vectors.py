"""View vectors: (record, version, viewer, the GameView payload bytes the server signs) for
the Node verifier's view renderer (clients/node/lib/viewrender.js), which must reproduce
every one byte for byte (tests/server/test_node_views.py).

Fresh honest random games of either kind are played on an in-memory server; at the end of every
move, for every receipt viewer (each seat, a spectator, the arbiter), the payload is the
server's own GetView rendering of that version (``Watch.snapshot``, as GetView asks it, and
``render.view_proto`` without the match, as a view receipt covers it), and it is checked to
be what ``tabletop-audit verify --receipts`` re-renders from the export too
(``audit_receipts.Replayed``). The conformance corpus's games (a justice case, a redeal,
void draws, a match's hands) are rendered by ``Replayed`` alone.

One JSON line a game: {"kind", "seats", "seed", "game_id", "lines": the export, "views":
[{"version", "payloads": [base64 per receipt viewer]}]}.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
import random
from collections.abc import Iterator
from typing import Any

from clients.python.audit_receipts import Replayed
from domain import table as tables
from domain.engine import ARBITER, DomainError, Viewer
from domain.huaniao.commands import Play as HuaniaoPlay
from domain.huaniao.rules import OPENING_VERSE
from domain.table import records as rec
from domain.table.justice import facts as J
from domain.verify import moves, parse_export
from domain.zipai.options import DealerRule, ScoringProfile, Variant
from domain.zipai.options import Options as ZipaiOptions
from server.wire import render, render_moves
from server.wire.receipts import payload_bytes
from tabletop.v1 import tabletop_pb2 as pb
from tests.support import seatsign
from tests.support.records import _signed, export, in_memory_server, play_random
from tests.support.render_vectors import corpus_vectors, game_options


def view_vectors(seed: int, games: int, kind: str = "zipai") -> Iterator[dict[str, Any]]:
    """``games`` honest random games of ``kind`` (川南字牌: 2, 3, 4 seats in turn, random
    options; 花鸟风月: every mode, 专业 with a random set of its rules, 2..4 seats) drawn from
    ``seed``, each with every move's end viewed by every receipt viewer."""
    rng = random.Random(seed)
    for n in range(games):
        if kind == "zipai":
            seats = (2, 3, 4)[n % 3]
            game_seed = rng.randrange(1 << 30)
            options: Any = zipai_options(rng)
        else:
            options, seats = game_options(kind, rng)
            game_seed = rng.randrange(1 << 30)
        gid, lines, views = asyncio.run(_play(kind, seats, game_seed, options))
        yield {
            "kind": kind,
            "seats": seats,
            "seed": game_seed,
            "options": repr(options),
            "game_id": gid,
            "lines": lines,
            "views": views,
        }


def zipai_options(rng: random.Random) -> ZipaiOptions:
    """Options drawn from ``rng``: either variant, dealer rule and scoring, each checkbox."""
    return ZipaiOptions(
        variant=rng.choice(list(Variant)),
        dealer_rule=rng.choice(list(DealerRule)),
        guo_hu=rng.random() < 0.5,
        scoring=rng.choice(list(ScoringProfile)),
        own_flip_is_played=rng.random() < 0.5,
        optional_peng_long=rng.random() < 0.5,
    )


async def _play(
    kind: str, seats: int, seed: int, options: Any, justice: bool = False
) -> tuple[str, list[str], list[dict[str, Any]]]:
    ts = in_memory_server()
    try:
        player = play_justice if justice else play_random
        gid = await player(ts, kind, options, seats, seed)
        lines = await export(ts, gid)
        records = parse_export(lines)
        replayed = Replayed(records)
        viewers = rec.receipt_viewers(seats)
        views = []
        for _first, last in moves(records):
            payloads = []
            for i, viewer in enumerate(viewers):
                snap = await ts.watch.snapshot(gid, viewer, last)
                view = render.view_proto(dataclasses.replace(snap, match=None))
                payload = payload_bytes(view=view)
                again = replayed.render(last, last, i, "view")
                assert again == payload, f"seed {seed} version {last} viewer {i}: the audit differs"
                payloads.append(base64.b64encode(payload).decode())
            views.append({"version": last, "payloads": payloads})
        return gid, lines, views
    finally:
        ts.games.close()


def justice_view_vectors(seed: int, games: int, kind: str) -> Iterator[dict[str, Any]]:
    """``games`` honest random games of ``kind`` with justice in them (``play_justice``:
    reports with graded penalties, votes, appeals, retractions), 3 seats, every move's end
    viewed by every viewer."""
    rng = random.Random(seed)
    for _ in range(games):
        if kind == "zipai":
            options: Any = zipai_options(rng)
        else:
            options, _seats = game_options(kind, rng)
        game_seed = rng.randrange(1 << 30)
        gid, lines, views = asyncio.run(_play(kind, 3, game_seed, options, justice=True))
        yield {
            "kind": kind,
            "seats": 3,
            "seed": f"{game_seed} (justice)",
            "options": repr(options),
            "game_id": gid,
            "lines": lines,
            "views": views,
        }


async def play_justice(ts: Any, kind: str, options: Any, seats: int, seed: int) -> str:
    """A game of random legal moves to its end at a table of random enforcement (花鸟风月;
    川南字牌 tables reject), where now and then a seat reports the last mover (其他违规, with a
    warning, a forced discard or an open hand proposed), a 花鸟风月 seat plays one to three
    of its cards whatever the rules say (refereed, or standing till reported), and every
    seat's legal commands are drawn from alike: votes, appeals and retractions (误操作)
    included. Refusals are skipped. Returns its id."""
    rng = random.Random(seed)
    keys = [seatsign.seat_key(f"justice-{seed}-{s}") for s in range(seats)]
    # (川南字牌 has no penalties of its own: its tables reject what breaks a rule)
    enforcement = rng.choice(list(J.Enforcement)) if kind == "huaniao" else J.Enforcement.REJECT
    gid, _, _ = await ts.seats.create_game(kind, options, seats, enforcement=enforcement)
    for s in range(seats):
        public = seatsign.public_hex(keys[s])
        request = pb.JoinGameRequest(
            game_id=gid, seat=s, player_name=f"p{s}", seat_public_key=bytes.fromhex(public)
        )
        signed = await _signed(ts, gid, keys[s], "JoinGame", request)
        await ts.seats.join_game(gid, s, f"p{s}", public_key=public, signed=signed)
    await ts.deal.start_game(gid, ARBITER)
    penalties = (
        J.Penalty(J.PenaltyKind.WARNING),
        J.Penalty(J.PenaltyKind.FORCED_DISCARD, 1),
        J.Penalty(J.PenaltyKind.OPEN_HAND),
    )
    for _ in range(3000):
        snap = await ts.watch.snapshot(gid, ARBITER, None)
        table = snap.table
        if table.phase is not tables.Phase.PLAYING:
            return gid
        waiting = list(tables.to_act(table)) or list(range(seats))
        fresh = [p.seat for p in table.justice.penalties[-1:] if p.before is not None]
        seat = rng.choice(fresh if fresh and rng.random() < 0.5 else waiting)  # may appeal
        hand = _hand(table, seat)
        if table.justice.open_case is None and rng.random() < 0.08:
            accused = rng.choice([s for s in range(seats) if s != seat])
            command: Any = J.Report(
                seat, accused, J.ViolationKind.OTHER, (snap.version,), rng.choice(penalties), "x"
            )
        elif hand and table.enforcement is not J.Enforcement.REJECT and rng.random() < 0.08:
            # a play that may break a rule: refereed (REFEREE) or standing till reported
            cards = tuple(rng.sample(hand, min(len(hand), rng.randint(1, 3))))
            command = HuaniaoPlay(seat, cards, verse=rng.choice((None, OPENING_VERSE)))
        else:
            _table, _version, legal = await ts.play.legal_moves(gid, Viewer.of_seat(seat))
            if not legal:
                continue
            appeals = [c for c in legal if isinstance(c, J.Appeal | J.Retract)]
            command = rng.choice(appeals if appeals and rng.random() < 0.5 else legal)
        request = pb.PlayRequest(
            game_id=gid, expected_version=snap.version, move=render_moves.move_proto(kind, command)
        )
        signed = await _signed(ts, gid, keys[seat], "Play", request)
        try:
            await ts.play.play(gid, Viewer.of_seat(seat), snap.version, command, signed=signed)
        except DomainError:
            continue
    raise AssertionError(f"seed {seed}: the game did not end")


def _hand(table: Any, seat: int) -> list[int]:
    """A 花鸟风月 seat's hand (the cards it may try to play), else nothing."""
    game = table.game
    if table.kind != "huaniao" or game is None or seat >= len(game.hands):
        return []
    return list(game.hands[seat].cards)


def corpus_view_vectors() -> Iterator[dict[str, Any]]:
    """The conformance corpus's honest games (a match's hands each on its own), every move's
    end viewed by every viewer as ``tabletop-audit verify --receipts`` re-renders it."""
    for game in corpus_vectors():
        records = parse_export(game["lines"])
        replayed = Replayed(records)
        views = [
            {
                "version": last,
                "payloads": [
                    base64.b64encode(replayed.render(last, last, i, "view")).decode()
                    for i in range(game["seats"] + 2)
                ],
            }
            for _first, last in moves(records)
        ]
        yield {**{k: game[k] for k in ("kind", "seats", "seed", "lines")},
               "game_id": replayed.game_id, "views": views}  # fmt: skip


def write(path: Any, games: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(g, ensure_ascii=False) + "\n" for g in games))


def main(argv: list[str]) -> None:
    """``python -m tests.support.view_vectors SEED`` writes clients/node/test/view-vectors.jsonl:
    a 2-seat game of each kind (花鸟风月 in 完全模式), views at a few of their moves' ends (every
    viewer's), small enough to commit for the Node unit tests (test/views.test.js)."""
    import sys

    from domain.huaniao.options import Mode
    from domain.huaniao.options import Options as HuaniaoOptions

    seed = int(argv[0])
    out = []
    for kind, options in (("huaniao", HuaniaoOptions(mode=Mode.FULL)), ("zipai", ZipaiOptions())):
        gid, lines, views = asyncio.run(_play(kind, 2, seed, options))
        kept = views[:: max(1, len(views) // 6)][:6] + views[-1:]
        out.append({"kind": kind, "seats": 2, "seed": seed, "game_id": gid, "lines": lines,
                    "views": kept})  # fmt: skip
    sys.stdout.write("".join(json.dumps(g, ensure_ascii=False) + "\n" for g in out))


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
