"""Finished, signed game records made in process (no server process): for the verifier's
fuzz and forgery tests, which need many real exports quickly."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clients.python.exports import export_lines
from domain import table as tables
from domain.engine import ARBITER, Viewer
from domain.registry import rules_for
from domain.table import deal
from server.startup.compose import table_server
from server.store.eventstore import TableApplication
from server.usecases.table_server import TableServer
from server.wire import render, render_moves, seatsig
from server.wire.receipts import Sealer
from server.wire.signing import Signer
from tabletop.v1 import tabletop_pb2 as pb
from tests.support import seatsign


@dataclass(frozen=True)
class Finished:
    game_id: str
    lines: list[str]  # `tabletop-audit export` form
    public_key: bytes
    signer: Signer


def in_memory_server(signer: Signer | None = None) -> TableServer:
    """Signing, and a reveal window of 0 (a seat not yet revealed is late at once; the deal
    still waits for it: nobody stands in for a seat)."""
    app = TableApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    return table_server(app, sealer=Sealer(signer or Signer.generate()), reveal_timeout=0.0)


async def play_random(ts: TableServer, kind: str, options: Any, seats: int, seed: int) -> str:
    """A game of random legal moves to its end; returns its id. Every seat is keyed and
    signs its commands as a client does (seatsig), so the record carries every kind of
    seat signature. Every seat but the last commits to a contribution and reveals it; the
    last commits to nothing (it adds no entropy), so the record holds every deal fact
    (commitments, ContributionRevealed, a seat without a commitment, the start)."""
    rng = random.Random(seed)
    keys = [seatsign.seat_key(f"records-{seed}-{s}") for s in range(seats)]
    gid, _, _ = await ts.seats.create_game(kind, options, seats)
    for s in range(seats):
        commitment = deal.contribution_commitment(f"c{s}") if s < seats - 1 else ""
        public = seatsign.public_hex(keys[s])
        request = pb.JoinGameRequest(
            game_id=gid,
            seat=s,
            player_name=f"p{s}",
            contribution_commitment=commitment,
            seat_public_key=bytes.fromhex(public),
        )
        signed = await _signed(ts, gid, keys[s], "JoinGame", request)
        await ts.seats.join_game(
            gid, s, f"p{s}", commitment=commitment, public_key=public, signed=signed
        )
    for s in range(seats - 1):
        request = pb.RevealContributionRequest(game_id=gid, contribution=f"c{s}")
        signed = await _signed(ts, gid, keys[s], "RevealContribution", request)
        await ts.deal.reveal(gid, Viewer.of_seat(s), f"c{s}", signed)
    version = await ts.deal.start_game(gid, ARBITER)
    rules = rules_for(kind)
    while True:
        table = (await ts.watch.snapshot(gid, ARBITER, None)).table
        if table.phase is not tables.Phase.PLAYING:
            return gid
        seat = rng.choice(list(rules.to_act(table.game)))
        _table, version, legal = await ts.play.legal_moves(gid, Viewer.of_seat(seat))
        game_moves = [c for c in legal if type(c) in rules.command_types]
        command = rng.choice(game_moves or legal)
        request = pb.PlayRequest(
            game_id=gid, expected_version=version, move=render_moves.move_proto(kind, command)
        )
        signed = await _signed(ts, gid, keys[seat], "Play", request)
        await ts.play.play(gid, Viewer.of_seat(seat), version, command, signed=signed)


async def _signed(
    ts: TableServer, gid: str, key: Any, method: str, request: Any
) -> seatsig.SignedCall | None:
    """The seat's signature on ``request`` as the client makes it (having seen the latest
    version and its chain hash), read back as the server reads it off the request."""
    snap = await ts.watch.snapshot(gid, ARBITER, None)
    request.seat_signature.CopyFrom(
        seatsig.sign(key, gid, method, snap.version, snap.head_hash, request)
    )
    return seatsig.read(request, method)


async def export(ts: TableServer, gid: str) -> list[str]:
    """What `tabletop-audit export` writes, from the GetHistory rendering after the end."""
    table, events, _, seen_as = await ts.watch.history(gid, ARBITER, 0, 100_000)
    ended = table.phase is tables.Phase.FINISHED
    return list(export_lines(render.events_proto(table.kind, events, seen_as, complete=ended)))


def finished_game(kind: str = "huaniao", seed: int = 1, options: Any = None) -> Finished:
    """One finished game of ``kind`` (2 seats; 花鸟风月 in SIMPLE mode by default)."""
    if options is None:
        options = _short_options(kind)
    signer = Signer.generate()

    async def run() -> Finished:
        ts = in_memory_server(signer)
        try:
            gid = await play_random(ts, kind, options, 2, seed)
            return Finished(gid, await export(ts, gid), signer.public_key, signer)
        finally:
            ts.games.close()

    return asyncio.run(run())


def _short_options(kind: str) -> Any:
    if kind == "huaniao":
        from domain.huaniao.options import Mode, Options

        return Options(mode=Mode.SIMPLE)
    from domain.zipai.options import Options as ZOptions

    return ZOptions()


def acknowledged_hashes(reply: Any) -> dict[int, str]:
    """The chain hashes a Play reply acknowledged, by version: each event's own (receipts of
    format 2), or the receipt's head at its last version (format 3, whose events carry no
    hash: the head binds every event before it)."""
    if reply.receipt.head:
        return {reply.receipt.last_version: reply.receipt.head.hex()}
    return {e.version: e.hash for e in reply.events}


def saved_evidence(where: Path, logs: list[Any], lines: list[str]) -> tuple[list[Path], Path]:
    """Each seat's receipt log saved as ``seatN.receipts`` and the export's lines as
    ``game.jsonl`` in ``where``: what a seat and an export holder hand the verifiers."""
    files = [where / f"seat{s}.receipts" for s in range(len(logs))]
    for log, path in zip(logs, files, strict=True):
        log.save(str(path))
    export = where / "game.jsonl"
    export.write_text("".join(line + "\n" for line in lines))
    return files, export
