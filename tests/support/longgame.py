"""A long game written straight into a SQLite store, for the stream memory tests.

A 4-seat arbitrated 花鸟风月 table plays random legal moves, and whenever a move would end
the game a seat reports another (其他违规, a warning), the seats' votes leave it disputed
and the arbiter settles the case with 重新洗牌发牌 instead (drawn through its commit–reveal:
here every seat commits to nothing), so one game's history grows as long as wanted. The
table is written as a record from before the redeal cap and the justice budget
(``max_redeals=None``, ``justice_budget_ms=0``: the arbiter's Redeal and uncounted redeals
of those records): neither is what these memory tests are about.
The facts are decided by the domain and saved a few hundred per transaction: 10,000 events
take a few seconds.
"""

from __future__ import annotations

import dataclasses
import random
import secrets
import uuid
from pathlib import Path

from domain import table as tables
from domain.engine import MalformedCommand
from domain.huaniao import Options
from domain.huaniao.options import Mode
from domain.registry import rules_for
from domain.table import deal
from domain.table.justice import facts as J
from server.store.eventstore import GameAggregate, TableApplication
from server.usecases.games import token_hash


def write_long_game(data_dir: Path, events: int, seed: int = 1) -> tuple[str, str]:
    """Store one running game of at least ``events`` events in ``data_dir/games.sqlite``;
    returns its id and its arbiter token."""
    data_dir.mkdir(parents=True, exist_ok=True)
    app = TableApplication(
        env={
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(data_dir / "games.sqlite"),
        }
    )
    arbiter = secrets.token_urlsafe(24)
    (created,) = tables.create(
        rules_for("huaniao"),
        Options(mode=Mode.BASIC),
        4,
        token_hash(arbiter),
        deal.secret_from_seed(seed),
        (),
        J.Enforcement.REJECT,
        0,
        arbitrated=True,
    )
    # an older, uncapped record
    created = dataclasses.replace(created, max_redeals=None, justice_budget_ms=0)
    agg = GameAggregate.open(uuid.uuid4(), created, tables.cause("create"))
    for s in range(4):
        _record(
            agg,
            tables.take_seat(agg.table, s, f"p{s}", token_hash(f"t{s}"), ""),
            tables.cause("join", s),
        )
    _record(agg, tables.start(agg.table), tables.cause("start"))
    rng = random.Random(seed)
    while agg.version < events:
        seat = tables.to_act(agg.table)[0]
        moves = [
            c
            for c in tables.legal_commands(agg.table, seat)
            if type(c) not in J.TABLE_COMMAND_TYPES
        ]
        command = rng.choice(moves)
        facts = tables.act(agg.table, command, None)
        trial = agg.fork()
        _record(trial, facts, None)
        if trial.table.phase is tables.Phase.FINISHED:  # keep the game going: redeal
            _redeal(agg, rng)
            continue
        _record(agg, facts, tables.cause("play", seat, command))
        if len(agg.pending_events) >= 500:
            app.save(agg)
    app.save(agg)
    app.snapshot(agg)
    app.close()
    return str(agg.id), arbiter


def _redeal(agg: GameAggregate, rng: random.Random) -> None:
    """A disputed report, the arbiter's 重新洗牌发牌 and its draw (every seat commits to
    nothing, so the server's fresh secret alone deals it)."""
    warning = J.Penalty(J.PenaltyKind.WARNING, 0)
    report = J.Report(0, 1, J.ViolationKind.OTHER, (agg.version,), warning, "")
    _record(agg, tables.act(agg.table, report, None), tables.cause("play", 0, report))
    case = agg.version
    for seat, uphold in ((2, True), (1, False)):  # a dispute the votes cannot settle
        vote = J.CastVote(seat, case, uphold)
        _record(agg, tables.act(agg.table, vote, None), tables.cause("play", seat, vote))
    redeal = J.Redeal(seat=0)
    secret = f"{rng.getrandbits(256):064x}"
    _record(agg, tables.act(agg.table, redeal, None, secret), tables.cause("play", None, redeal))
    for seat in range(4):
        _record(agg, tables.commit(agg.table, seat, ""), tables.cause("commit", seat))
    _record(agg, tables.start(agg.table), tables.cause("start"))  # as the server deals it


def _record(agg: GameAggregate, facts: list[object], cause: dict[str, object] | None) -> None:
    if not facts:
        raise MalformedCommand("move", "decided nothing")
    for i, fact in enumerate(facts):
        agg.record(fact, cause if i == 0 else None)
