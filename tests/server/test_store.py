"""The event store: rebuild at any version, snapshots, hash chain, group commit, conflicts."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from eventsourcing.persistence import IntegrityError

from domain import table as tables
from domain.engine import RuleViolation
from domain.registry import register
from server.store.commit import GroupCommitter
from server.store.eventstore import SNAPSHOT_INTERVAL, GameAggregate, TableApplication, chain_hash
from tests.support import fakegame
from tests.support.pgfixtures import PG

register(fakegame.RULES)


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=PG)])
def app(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TableApplication]:
    if request.param == "memory":
        env = {"PERSISTENCE_MODULE": "eventsourcing.popo"}
    elif request.param == "sqlite":
        env = {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(tmp_path / "g.sqlite"),
        }
    else:
        env = request.getfixturevalue("pg_env")
    a = TableApplication(env=env)
    yield a
    a.close()


def new_game(seed: int = 7) -> GameAggregate:
    (created,) = tables.create(fakegame.RULES, fakegame.Options(), 2, "h", f"s{seed}")
    agg = GameAggregate.open(uuid.uuid4(), created)
    for seat in range(2):
        agg.record(tables.SeatTaken(seat, f"p{seat}", f"t{seat}", ""))
    for fact in tables.start(agg.table):
        agg.record(fact)
    return agg


def play_out(agg: GameAggregate) -> None:
    while agg.table.phase is tables.Phase.PLAYING:
        (command, *_rest) = fakegame.RULES.legal_commands(agg.table.game, agg.table.game.turn)
        for fact in tables.play(agg.table, command):
            agg.record(fact)


def test_every_version_rebuilds_to_the_live_state(app: TableApplication) -> None:
    agg = new_game()
    live = {agg.version: agg.table}
    while agg.table.phase is tables.Phase.PLAYING:
        (command, *_rest) = fakegame.RULES.legal_commands(agg.table.game, agg.table.game.turn)
        for fact in tables.play(agg.table, command):
            agg.record(fact)
            live[agg.version] = agg.table
    app.save(agg)
    rebuilt = app.repository.get(agg.id)
    assert rebuilt.table == agg.table
    assert rebuilt.table.outcome is not None
    for version, table in live.items():
        assert app.repository.get(agg.id, version=version).table == table


def test_snapshots_are_taken_and_used(app: TableApplication) -> None:
    committer = GroupCommitter(app)
    games = [new_game(seed) for seed in range(3)]
    for g in games:
        play_out(g)
        committer.submit(g).result()
    assert all(app.repository.get(g.id).table == g.table for g in games)
    assert app.snapshots is not None
    assert SNAPSHOT_INTERVAL > max(g.version for g in games)  # games here are short
    app.snapshot(games[0])
    (snap,) = list(app.snapshots.get(games[0].id))
    assert snap.originator_version == games[0].version
    assert app.repository.get(games[0].id).table == games[0].table
    committer.close()


def test_hash_chain_links_every_event(app: TableApplication) -> None:
    agg = new_game()
    play_out(agg)
    app.save(agg)
    prev = ""
    for event in app.events.get(agg.id):
        assert event.hash == chain_hash(
            agg.table, prev, event.originator_version, event.fact, event.cause, event.timestamp
        )
        prev = event.hash
    assert prev == app.repository.get(agg.id).head_hash


def test_group_commit_saves_many_games_in_one_batch(app: TableApplication) -> None:
    committer = GroupCommitter(app, max_batch=100)
    games = [new_game(s) for s in range(30)]
    futures = [committer.submit(g) for g in games]
    for f in futures:
        f.result(timeout=10)
    assert committer.saved_events == sum(g.version for g in games)
    assert committer.batches <= len(games)
    for g in games:
        assert app.repository.get(g.id).version == g.version
    committer.close()


def test_a_conflict_fails_only_its_own_game(app: TableApplication) -> None:
    committer = GroupCommitter(app, max_batch=100)
    base = new_game()
    committer.submit(base).result()
    winner, loser = base.fork(), base.fork()
    for fork in (winner, loser):
        (command, *_rest) = fakegame.RULES.legal_commands(fork.table.game, fork.table.game.turn)
        for fact in tables.play(fork.table, command):
            fork.record(fact)
    committer.submit(winner).result()
    others = [new_game(s) for s in range(5)]
    futures = [committer.submit(loser)] + [committer.submit(g) for g in others]
    with pytest.raises(IntegrityError):
        futures[0].result(timeout=10)
    for f in futures[1:]:
        f.result(timeout=10)
    assert app.repository.get(base.id).version == winner.version
    committer.close()


def test_a_refused_command_changes_nothing() -> None:
    agg = new_game()
    before = agg.table
    wrong_seat = 1 - agg.table.game.turn
    with pytest.raises(RuleViolation):
        tables.play(agg.table, fakegame.Discard(wrong_seat, agg.table.game.hands[wrong_seat][0]))
    assert agg.table == before and agg.pending_events


def test_a_cancelled_caller_is_not_saved_and_the_writer_survives(app: TableApplication) -> None:
    """A call cancelled while queued is dropped; the writer thread keeps serving others."""
    import threading

    release = threading.Event()
    real_save = app.save
    calls = 0

    def slow_save(*events: object, **kw: object) -> object:
        nonlocal calls
        calls += 1
        if calls == 1:
            release.wait(10)
        return real_save(*events, **kw)

    app.save = slow_save  # type: ignore[method-assign]
    committer = GroupCommitter(app)
    first, dropped, later = new_game(1), new_game(2), new_game(3)
    f1 = committer.submit(first)
    while calls == 0:  # the writer is inside the first save
        pass
    f2 = committer.submit(dropped)
    assert f2.cancel()
    release.set()
    f1.result(timeout=10)
    committer.submit(later).result(timeout=10)
    assert app.repository.get(later.id).version == later.version
    assert list(app.events.get(dropped.id)) == []
    committer.close()


def test_writes_of_unknown_outcome_are_settled_by_reading_back(tmp_path: Path) -> None:
    """A store that may lose a COMMIT's reply (``uncertain``, as PostgreSQL): a write that
    landed is answered as saved, one that did not is written again, another writer's
    version is a conflict, and a store that stays unreadable ends in OutcomeUnknown."""
    from eventsourcing.persistence import OperationalError

    from server.store.eventstore import OutcomeUnknown

    app = TableApplication(
        env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "u.db")}
    )
    committer = GroupCommitter(app, uncertain=True)
    real_save, faults = app.save, ["after", "before"]

    def flaky(*events: object, **kw: object) -> object:
        fault = faults.pop(0) if faults else ""
        if fault == "before":
            raise OperationalError("connection lost before COMMIT")
        result = real_save(*events, **kw)  # type: ignore[arg-type]
        if fault == "after":
            raise OperationalError("connection lost after COMMIT")
        return result

    app.save = flaky  # type: ignore[method-assign]
    landed, retried = new_game(1), new_game(2)
    committer.submit(landed).result(timeout=10)
    committer.submit(retried).result(timeout=10)
    assert committer.settled == {"stored": 1, "rewritten": 1}
    for game in (landed, retried):  # each stored once, whole
        assert [e.originator_version for e in app.events.get(game.id)] == list(
            range(1, game.version + 1)
        )
    # another writer took the version meanwhile: a conflict, nothing of ours stored
    base = app.repository.get(landed.id)
    mine, theirs = base.fork(), base.fork()
    for fork in (theirs, mine):
        (command, *_rest) = fakegame.RULES.legal_commands(fork.table.game, fork.table.game.turn)
        for fact in tables.play(fork.table, command):
            fork.record(fact)
    committer.submit(theirs).result(timeout=10)
    faults.append("before")
    with pytest.raises(IntegrityError):
        committer.submit(mine).result(timeout=10)
    assert committer.settled["taken"] == 1
    # the store neither writes nor reads: OutcomeUnknown once the settling time is over
    committer.resolve_seconds = 0.5
    faults.extend(["before"] * 100)
    app.events.get = lambda *a, **k: (_ for _ in ()).throw(OperationalError("down"))  # type: ignore[method-assign]
    with pytest.raises(OutcomeUnknown):
        committer.submit(new_game(3)).result(timeout=10)
    assert committer.settled["unresolved"] == 1
    committer.close()
    app.close()
