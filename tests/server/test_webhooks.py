"""The webhook outbox in process: what a played match owes, written with its moves.

A 川南字牌 match of two hands is played through the use cases on SQLite and in memory with
one app configured; with no delivery worker running, the outbox must then hold exactly the
notices re-derived from every stored record (each hand's and the match's), in the order the
moves were made, and a seat's turn must say nothing but the game, the seat, its player, the
version and the deadline. A save that loses a version conflict stores none of its rows.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from pathlib import Path
from typing import Any

import orjson
import pytest
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import IntegrityError

from domain.zipai.options import Options as ZipaiOptions
from domain.zipai.options import ScoringProfile
from server.startup.compose import table_server
from server.store.eventstore import TableApplication
from server.store.outbox import OutboxRow
from server.transport.webhooks import load_settings
from server.usecases.webhooks import (
    GAME_ENDED,
    HAND_ENDED,
    MATCH_ENDED,
    SEAT_TURN,
    TABLE_OPENED,
    App,
    outbox_rows,
)
from server.wire.receipts import Sealer
from server.wire.signing import Signer
from tests.server.test_matches import play_match, seated
from tests.support.pgfixtures import PG
from tests.support.webhooks import SECRET, owed

SEED = 40_401
TURN_FIELDS = {"game_id": str, "seat": int, "player": str, "version": int, "deadline": str}


def stores(tmp_path: Path) -> dict[str, dict[str, str]]:
    sqlite = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "g.db")}
    return {"sqlite": sqlite, "memory": {"PERSISTENCE_MODULE": "eventsourcing.popo"}}


STORES = ["sqlite", "memory", pytest.param("postgres", marks=PG)]


def env_for(request: pytest.FixtureRequest, tmp_path: Path, store: str) -> dict[str, str]:
    if store == "postgres":
        return dict(request.getfixturevalue("pg_env"))
    return stores(tmp_path)[store]


@pytest.mark.parametrize("store", STORES)
def test_a_played_match_s_outbox_holds_what_its_records_owe(
    request: pytest.FixtureRequest, tmp_path: Path, store: str
) -> None:
    print(f"seed={SEED}")
    app = TableApplication(env=env_for(request, tmp_path, store))
    rows, owes = asyncio.run(_play(app))
    by_record: dict[str, list[OutboxRow]] = {}
    for row in rows:
        by_record.setdefault(row.record_id, []).append(row)
    for record_id, want in owes.items():
        got = [(r.msg_id, orjson.loads(r.body)) for r in by_record.pop(record_id)]
        assert got == want, record_id
    assert not by_record  # nothing owed by anything else
    types = [r.type for r in rows]
    assert types.count(TABLE_OPENED) == 2 and types.count(GAME_ENDED) == 2
    assert types.count(HAND_ENDED) == 2 and types.count(MATCH_ENDED) == 1
    _assert_turns_reveal_nothing(rows)


async def _play(app: TableApplication) -> tuple[list[OutboxRow], dict[str, list[Any]]]:
    """The outbox after a 2-hand match, and the ids and bodies each record owes
    (re-derived)."""
    ts = table_server(app, sealer=Sealer(Signer.generate()), reveal_timeout=0.0)
    demo = App("demo", "http://127.0.0.1:9/", SECRET, unowned=True)
    ts.games.store.committers[0].outbox_for = outbox_rows([demo])
    try:
        options = ZipaiOptions(scoring=ScoringProfile.LUZHOU)
        _g, match_id, tokens = await seated(ts, "zipai", options, 2, [0, 1], hands=2)
        await play_match(ts, match_id, tokens, random.Random(SEED))
        state, _facts = await ts.matches.match_record(match_id)
        records = [match_id, *(h.game_id for h in state.hands)]
        owes = {r: [(n.msg_id, n.body) for n in owed(app, r)] for r in records}
        return app.outbox.rows(), owes
    finally:
        ts.games.close()


def _assert_turns_reveal_nothing(rows: list[OutboxRow]) -> None:
    turns = [orjson.loads(r.body) for r in rows if r.type == SEAT_TURN]
    assert turns
    for body in turns:
        data: dict[str, Any] = body["data"]
        assert set(body) == {"type", "timestamp", "data"}
        assert set(data) == set(TURN_FIELDS), data
        for name, kind in TURN_FIELDS.items():
            assert data[name] is None or isinstance(data[name], kind), (name, data)
        uuid.UUID(data["game_id"])


class Thing(Aggregate):
    """A bare aggregate: the outbox rides on any save."""


@pytest.mark.parametrize("store", STORES)
def test_a_save_that_loses_a_conflict_stores_none_of_its_rows(
    request: pytest.FixtureRequest, tmp_path: Path, store: str
) -> None:
    app = TableApplication(env=env_for(request, tmp_path, store))
    first = Thing()
    rival = Thing._create(Thing.Created, id=first.id)  # the same aggregate, version 1 again
    won = OutboxRow("demo", "msg_won", str(first.id), "t", "{}")
    lost = OutboxRow("demo", "msg_lost", str(first.id), "t", "{}")
    app.save(*first.collect_events(), outbox=[won])
    with pytest.raises(IntegrityError):
        app.save(*rival.collect_events(), outbox=[lost])
    assert [r.msg_id for r in app.outbox.rows()] == ["msg_won"]


@pytest.mark.parametrize("store", STORES)
def test_claims_go_one_at_a_time_per_lane_oldest_first(
    request: pytest.FixtureRequest, tmp_path: Path, store: str
) -> None:
    app = TableApplication(env=env_for(request, tmp_path, store))
    rows = [OutboxRow("demo", f"msg_{g}{i}", g, "t", "{}") for i in range(3) for g in "ab"]
    app.save(*Thing().collect_events(), outbox=rows)
    box = app.outbox
    first = box.claim(10, lease=60, busy=set())
    assert sorted(c.row.msg_id for c in first) == ["msg_a0", "msg_b0"]
    assert box.claim(10, lease=60, busy=set()) == []  # the heads are leased; the rest wait
    box.delivered(first[0].seq)
    box.retry_at(first[1].seq, 0.0)  # failed, due again at once
    again = box.claim(10, lease=60, busy=set())
    assert {c.row.msg_id for c in again} == {"msg_a1", "msg_b0"}
    assert next(c for c in again if c.row.msg_id == "msg_b0").attempts == 2


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ('[[apps]]\nname = "a"\nurl = "http://x/"\n', "needs secret"),
        ('[[apps]]\nname = "a"\nurl = "http://x/"\nsecret = "abc"\n', "whsec_"),
        (
            f'[[apps]]\nname = "a"\nurl = "u"\nsecret = "{SECRET}"\nevents = ["turn"]\n',
            "unknown turn",
        ),
        (f'[[apps]]\nname = "a"\nurl = "u"\nsecret = "{SECRET}"\n', "receives no table"),
        (f'[[apps]]\nname = "a"\nurl = "u"\nsecret = "{SECRET}"\nclients = "x"\n', "clients"),
        ("apps = [", "webhooks file"),
    ],
)
def test_a_bad_settings_file_names_what_is_wrong(tmp_path: Path, text: str, named: str) -> None:
    path = tmp_path / "w.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=named):
        load_settings(path)


def test_a_server_given_a_bad_settings_file_says_so_and_does_not_start(tmp_path: Path) -> None:
    from clients.python.serverproc import ServerProcess

    path = tmp_path / "w.toml"
    path.write_text('[[apps]]\nname = "a"\nurl = "http://127.0.0.1:9/"\nsecret = "nope"\n')
    with pytest.raises(RuntimeError, match="secret must be 'whsec_'"):
        ServerProcess(tmp_path, extra=["--webhooks", str(path)]).start(timeout=30)


def test_an_app_never_receives_a_notice_about_another_app_s_table(tmp_path: Path) -> None:
    """The cheater is app B's backend: it must learn nothing of app A's tables (not that
    one opened, whose turn it is, nor how it ended). Each table's notices go to its own
    app's endpoints only (GameCreated.app, its login's client id), and the tables of no app
    only to the apps that opted in (unowned)."""
    app = TableApplication(env=stores(tmp_path)["memory"])
    asyncio.run(_open_tables(app))
    by_app: dict[str, set[str]] = {}
    for row in app.outbox.rows():
        by_app.setdefault(row.app, set()).add(row.record_id)
    tables = {orjson.loads(r.body)["data"]["game_id"]: r.app for r in app.outbox.rows()}
    a_table = next(g for g, who in tables.items() if who == "a")
    assert by_app.get("a") == {a_table}
    assert "b" not in by_app  # B's client opened nothing: B hears of nothing
    assert a_table not in by_app.get("anyone", set())
    assert len(by_app["anyone"]) == 1  # the table of no app, to the app that opted in


async def _open_tables(app: TableApplication) -> None:
    ts = table_server(app, sealer=Sealer(Signer.generate()), reveal_timeout=0.0)
    apps = [
        App("a", "http://127.0.0.1:9/", SECRET, clients=("client-a",)),
        App("b", "http://127.0.0.1:9/", SECRET, clients=("client-b",)),
        App("anyone", "http://127.0.0.1:9/", SECRET, unowned=True),
    ]
    ts.games.store.committers[0].outbox_for = outbox_rows(apps)
    try:
        options = ZipaiOptions(scoring=ScoringProfile.LUZHOU)
        for owner in ("client-a", ""):
            gid, _v, _arb = await ts.seats.create_game(
                "zipai", options, 2, allow_unkeyed_seats=True, app=owner
            )
            for seat in (0, 1):
                await ts.seats.join_game(gid, seat, f"p{seat}", contribution="c")
    finally:
        ts.games.close()
