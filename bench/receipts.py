"""What signing and receipts cost per move: the same games with them on and off.

In process, through ``TableServer`` and ``server.wire.receipts`` (what the servicer runs for each
call, minus the transport). Two loads per move:

* *bare*: the awaited seat's LegalMoves and its Play with the reply the servicer builds
  (events, to_act, receipt), and the next awaited seat's GetView;
* *watched*: the same, and also the move's Watch messages rendered once for every viewer
  (each seat, a spectator, the arbiter, as the hub renders a live batch) and every seat's
  GetView after the move (what clients that watch and redraw ask for).

The same seeded games are played twice in each round, once with a ``Sealer`` (one Ed25519
signature and every viewer's events hash per move, and a signature per view asked for) and
once without (``table_server(store, sealer=None)``, a setting only benchmarks and unit
tests use; the server always signs). The figure is the process CPU time per move (the
measure least moved by other jobs on the machine).
"""

from __future__ import annotations

import asyncio
import random
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench import targets
from bench.common import sized
from domain import table as tables
from domain.engine import ARBITER, Viewer
from domain.registry import rules_for
from domain.table import deal, records
from server.startup.compose import table_server
from server.store.eventstore import TableApplication
from server.usecases.table_server import TableServer
from server.wire import receipts, seatsig
from server.wire.receipts import Sealer
from server.wire.signing import Signer
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2 as pb

GAMES = (("huaniao", 4), ("zipai", 3))


def _options(kind: str) -> Any:
    if kind == "huaniao":
        from domain.huaniao.options import Mode, Options

        return Options(mode=Mode.BASIC)
    from domain.zipai.options import Options as ZOptions

    return ZOptions()


async def _play(ts: TableServer, kind: str, seats: int, seed: int, watched: bool) -> int:
    rng = random.Random(seed)
    rules = rules_for(kind)
    sealer = ts.games.sealer if isinstance(ts.games.sealer, Sealer) else None
    gid, _, _ = await ts.seats.create_game(
        kind, _options(kind), seats, seed, allow_unkeyed_seats=True
    )
    for s in range(seats):  # every seat commits, then reveals: the opening as served
        await ts.seats.join_game(gid, s, f"p{s}", commitment=deal.contribution_commitment(f"c{s}"))
    for s in range(seats):
        await ts.deal.reveal(gid, Viewer.of_seat(s), f"c{s}")
    await ts.deal.start_game(gid, ARBITER)
    moves = 0
    while True:
        table = ts.games._latest[uuid.UUID(gid)].table
        if table.phase is not tables.Phase.PLAYING:
            break
        awaited = list(rules.to_act(table.game))
        seat = rng.choice(awaited)
        viewer = Viewer.of_seat(seat)
        _table, version, legal = await ts.play.legal_moves(gid, viewer)
        stored = await ts.play.play(gid, viewer, version, rng.choice(legal))
        after = await ts.watch.snapshot(gid, viewer, stored[-1].version)
        receipts.play_reply(sealer, kind, stored, viewer, after)
        nxt = Viewer.of_seat(rng.choice(awaited))
        receipts.view_reply(sealer, await ts.watch.snapshot(gid, nxt, None))
        if watched:
            for vw in records.receipt_viewers(seats):
                receipts.watch_messages(sealer, kind, after.table, vw, stored)
            for s in range(seats):
                receipts.view_reply(sealer, await ts.watch.snapshot(gid, Viewer.of_seat(s), None))
        moves += 1
    ts.games._latest.pop(uuid.UUID(gid), None)
    return moves


def _run(load: str, signed: bool, kind: str, seats: int, seeds: range, tmp: Path) -> float:
    """CPU seconds per move over ``seeds``, on SQLite (durable commits, as served)."""
    name = tmp / f"{uuid.uuid4().hex}.sqlite"
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(name)}

    async def go() -> float:
        ts = table_server(
            TableApplication(env=env),
            sealer=Sealer(SIGNER) if signed else None,
            allow_prepared_deals=True,  # seeded tables: the same games with and without
        )
        try:
            started = time.process_time()
            moves = sum([await _play(ts, kind, seats, s, load == "watched") for s in seeds])
            return (time.process_time() - started) / moves
        finally:
            ts.games.close()

    return asyncio.run(go())


SIGNER = Signer.generate()


def _sign_us(n: int = 2000) -> float:
    body = records.seal_body(str(uuid.uuid4()), 10, 12, "a" * 64, [["b" * 64]] * 6)
    started = time.process_time()
    for _ in range(n):
        SIGNER.sign(body)
    return (time.process_time() - started) / n * 1e6


def _seat_check_us(n: int = 2000) -> float:
    """The server's check of one seat-signed Play (server/wire/seatsig.py): the signed command
    read off the request and matched to it, then the Ed25519 verification with the seat's key
    (what ``Games.seat_signed`` adds to a keyed seat's command; the chain-hash lookup at the
    head is a field read)."""
    key = Ed25519PrivateKey.generate()
    public = seatsig.public_bytes(key).hex()
    gid = str(uuid.uuid4())
    move = pb.Move(huaniao=huaniao_pb2.Command(play=huaniao_pb2.Play(cards=[3, 17, 42])))
    request = pb.PlayRequest(game_id=gid, expected_version=40, move=move, request_id="r" * 32)
    request.seat_signature.CopyFrom(seatsig.sign(key, gid, "Play", 40, "5f" * 32, request))
    started = time.process_time()
    for _ in range(n):
        call = seatsig.read(request, "Play")
        assert call is not None
        assert seatsig.check_signature(public, call.signed_command, call.signature)
    return (time.process_time() - started) / n * 1e6


def receipts_section(quick: bool) -> list[str]:
    rounds = sized(quick, 11, 2, 1)
    games = sized(quick, 12, 4, 1)
    lines = [
        "## P6: signing and receipts per move",
        "",
        "The same seeded games played in process on SQLite with the seal and receipts on, "
        "and with them off (`table_server(store, sealer=None)`, for benchmarks only). *bare*: each "
        "move is LegalMoves, Play with the reply the servicer builds, and the next seat's "
        "GetView. *watched*: also the move's Watch messages for every viewer (each seat, a "
        "spectator, the arbiter) and every seat's GetView after it. Figures are process CPU "
        f"time per move, the median of {rounds} rounds of {games} games, each round playing "
        "the same seeds with the seal off and on (which goes first alternates); `ratio` is "
        "the median of the rounds' own on ÷ off (each round's in brackets: a round's CPU "
        "moves by a fifth with the machine); a move is a Play, and the table's opening (creation, "
        "joins, reveals, start: each sealed too) is counted in. Sealing renders the move's events "
        "for every viewer once (the reply and the streams then send those renderings) and "
        "signs them in one signature; a view is rendered and signed when it is asked for "
        "(GetView), once per game, version and viewer. One "
        f"Ed25519 signature took {_sign_us(sized(quick, 2000, 2000, 50)):.0f} µs of CPU in this run. "
        "These games' seats are unkeyed; a keyed seat's command adds the server's check of its "
        f"signature (read, matched to the request, verified): {_seat_check_us(sized(quick, 2000, 2000, 50)):.0f} "
        "µs of CPU per command in this run.",
        "",
        "| load | game | seats | off µs/move | on µs/move | added µs/move | ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory(prefix="bench-receipts-") as tmp:
        for load in ("bare", "watched"):
            for kind, seats in GAMES:
                on: list[float] = []
                off: list[float] = []
                for r in range(rounds):
                    seeds = range(1000 + r * games, 1000 + (r + 1) * games)
                    for signed in (r % 2 == 1, r % 2 == 0):  # each goes first every other round
                        spent = _run(load, signed, kind, seats, seeds, Path(tmp))
                        (on if signed else off).append(spent)
                a, b = statistics.median(off) * 1e6, statistics.median(on) * 1e6
                # the ratio of each round's pair (the same seeds, the same minute), then
                # their median: a round's CPU moves by 20% with the machine, both halves alike
                ratios = [y / x for x, y in zip(off, on, strict=True)]
                ratio = statistics.median(ratios)
                if load == "bare":  # issue 26: signing at most 1.25x the bare move
                    targets.at_most(f"P6 signing: bare → signed CPU per move, {kind}", ratio, 1.25)
                lines.append(
                    f"| {load} | {kind} | {seats} | {a:,.0f} | {b:,.0f} | {b - a:,.0f} | "
                    f"{ratio:.2f} ({', '.join(f'{x:.2f}' for x in ratios)}) |"
                )
                print(lines[-1], flush=True)
    return lines
