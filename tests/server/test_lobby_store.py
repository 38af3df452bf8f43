"""The lobby's streams (server/store/lobby.py) on SQLite: a queue read from its latest
checkpoint equals the whole history folded, and reads only the events after it; a player
waits once; a formation is recorded only while every player still waits. The lobby's bot
secrets (server/store/lobbybots.py) are kept until forgotten, on SQLite and PostgreSQL, and
a table's lease is let go alone. Random joins and leaves print their seed."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from domain.engine import RuleViolation
from domain.lobby import Formation, Ticket, may_leave, may_queue
from server.store import lobby as queues
from server.store.leases import AdvisoryLeases, leases_for
from server.store.shards import Store
from tests.support.pgfixtures import PG

INFO = queues.QueueInfo("fake/2/k", "fake", {}, 2)


@pytest.fixture()
def store(tmp_path: Path) -> Iterator[Store]:
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "l.db")}
    s = Store.open([env])
    yield s
    s.close()


def join(store: Store, player: str, rating: float = 0) -> None:
    ticket = Ticket(player, rating, 0.5, 0, 0)  # a narrow window: nobody is matched here
    queues.enqueue(store, INFO, ticket, lambda s: may_queue(s.state == "waiting"))


def leave(store: Store, player: str) -> None:
    queues.leave(store, player, lambda s: may_leave(s.state == "waiting"))


def folded(store: Store) -> list[str]:
    """The waiting players by folding the queue's whole stream (what a checkpoint saves)."""
    tickets: dict[str, Ticket] = {}
    for e in store.shards[0].events.get(queues.queue_id(INFO.key)):
        if isinstance(e, queues.LobbyQueue.Carried):
            continue  # a checkpoint repeats what came before
        queues._apply(tickets, e)
    return list(tickets)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_checkpoint_reads_the_same_queue_in_fewer_events(store: Store, seed: int) -> None:
    print(f"seed={seed}")
    rng = random.Random(seed)
    inside: set[str] = set()
    for step in range(260):
        player = f"p{rng.randrange(40)}"
        if player in inside:
            leave(store, player)
            inside.discard(player)
        else:
            join(store, player, rating=rng.randrange(1000))
            inside.add(player)
        if step % 90 == 89:  # as the matchmaker does once enough events piled up
            assert queues.carry(store, INFO.key, queues.waiting(store, INFO.key))
    now = queues.waiting(store, INFO.key)
    assert [t.player for t in now.tickets] == folded(store)
    assert set(folded(store)) == inside
    assert now.since_checkpoint == 80  # steps 180..259, after the checkpoint at step 179
    stale = queues.Waiting(now.tickets, now.version - 1, 0)
    assert not queues.carry(store, INFO.key, stale)  # the queue moved on: not written


def test_a_player_waits_once_and_is_seated_once(store: Store) -> None:
    join(store, "a")
    with pytest.raises(RuleViolation):
        join(store, "a")
    join(store, "b", rating=0.2)
    pair = Formation(("a", "b"), ())
    assert queues.seat(store, INFO.key, "g1", pair)
    assert not queues.seat(store, INFO.key, "g2", pair)  # already seated: nothing recorded
    assert queues.standing(store, "a").game_id == "g1"
    join(store, "c")
    leave(store, "c")
    assert not queues.seat(store, INFO.key, "g3", Formation(("c",), (1,)))  # c left
    assert queues.waiting(store, INFO.key).tickets == []


@PG
def test_one_replica_holds_a_lease_until_its_session_ends(pg_env: dict[str, str]) -> None:
    import psycopg

    stores = [Store.open([dict(pg_env, CREATE_TABLE=c)]) for c in ("y", "n")]
    a, b = (leases_for(s) for s in stores)
    try:
        assert isinstance(a, AdvisoryLeases)
        assert a.hold("q1") and a.hold("q1")  # held, and still held
        assert not b.hold("q1") and b.hold("q2")  # one holder a lease
        a.release_all()  # a replica that stops lets its leases go
        assert b.hold("q1") and a.hold("q3")
        # a replica whose session dies (killed, cut off) loses its leases to the other
        with psycopg.connect(autocommit=True, **a._kwargs) as admin:
            (pid,) = a._conn.execute("SELECT pg_backend_pid()").fetchone()
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        with pytest.raises(psycopg.OperationalError):
            a.hold("q3")  # the round trip finds out
        assert any(b.hold("q3") or time.sleep(0.05) for _ in range(200))  # once it ended
    finally:
        a.release_all()
        b.release_all()
        for s in stores:
            s.close()


def test_a_join_while_a_table_forms_does_not_cost_the_table(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    join(store, "a")
    join(store, "b", rating=0.2)
    built = queues._seating
    calls: list[int] = []

    def racing(*args: object) -> object:
        events = built(*args)  # type: ignore[arg-type]
        if not calls:  # someone joins the queue between the reads and the save
            join(store, "c", rating=9)
        calls.append(1)
        return events

    monkeypatch.setattr(queues, "_seating", racing)
    assert queues.seat(store, INFO.key, "g1", Formation(("a", "b"), ()))
    assert len(calls) == 2  # refused once by the store, then recorded
    assert [t.player for t in queues.waiting(store, INFO.key).tickets] == ["c"]


def kept_tables(store: Store) -> list[tuple[str, str]]:
    return [(t.game_id, t.secret) for t in store.shards[0].bot_secrets.tables()]


def test_a_lobby_tables_bot_secret_is_kept_until_forgotten(store: Store) -> None:
    kept = store.shards[0].bot_secrets
    kept.add("g1", "s1")
    kept.add("g2", "s2")
    kept.add("g1", "another")  # a table's secret is drawn once: a second one is not kept
    assert kept_tables(store) == [("g1", "s1"), ("g2", "s2")]  # oldest first
    kept.remove("g1")
    kept.remove("g1")  # (forgetting twice is harmless: two replicas may both see the end)
    assert kept_tables(store) == [("g2", "s2")]


@PG
def test_the_bot_secrets_and_a_tables_lease_on_postgres(pg_env: dict[str, str]) -> None:
    stores = [Store.open([dict(pg_env, CREATE_TABLE=c)]) for c in ("y", "n")]
    a, b = (leases_for(s) for s in stores)
    try:
        stores[0].shards[0].bot_secrets.add("g1", "s1")
        assert kept_tables(stores[1]) == [("g1", "s1")]  # every replica reads it
        assert a.hold("lobby-bots\ng1") and not b.hold("lobby-bots\ng1")
        a.release("lobby-bots\ng1")  # its game ended: the lease goes, the others' stay
        assert a.hold("q1")
        assert b.hold("lobby-bots\ng1") and not b.hold("q1")
        b.release("never-held")  # (nothing to let go)
        stores[1].shards[0].bot_secrets.remove("g1")
        assert kept_tables(stores[0]) == []
    finally:
        a.release_all()
        b.release_all()
        for s in stores:
            s.close()
