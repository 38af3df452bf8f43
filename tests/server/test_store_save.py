"""``TableApplication.save`` of bare events (the group commit's) skips the library's runtime
protocol check (issue 26): what it stores, the bytes, the notification ids and the conflicts
must be the library's own."""

from __future__ import annotations

import random
import uuid
from pathlib import Path
from typing import Any

import pytest
from eventsourcing.application import Application, ProcessingEvent
from eventsourcing.persistence import IntegrityError

from domain import table as tables
from domain.registry import register
from server.store.eventstore import GameAggregate, TableApplication
from tests.support import fakegame

register(fakegame.RULES)


def sqlite_app(path: Path) -> TableApplication:
    return TableApplication(
        env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)}
    )


def games(seed: int, count: int) -> list[GameAggregate]:
    """``count`` started games with a random number of moves each, some with a cause."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        (created,) = tables.create(fakegame.RULES, fakegame.Options(), 2, "h", f"s{seed}-{i}")
        agg = GameAggregate.open(uuid.UUID(int=rng.getrandbits(128)), created)
        for seat in range(2):
            agg.record(tables.SeatTaken(seat, f"p{seat}", f"t{seat}", ""))
        for fact in tables.start(agg.table):
            agg.record(fact)
        for _ in range(rng.randrange(0, 6)):
            if agg.table.phase is not tables.Phase.PLAYING:
                break
            legal = fakegame.RULES.legal_commands(agg.table.game, agg.table.game.turn)
            cause: dict[str, Any] | None = {
                "seat": agg.table.game.turn,
                "action": "play",
                "request_id": f"r{i}",
            }
            for fact in tables.play(agg.table, rng.choice(list(legal))):
                agg.record(fact, cause)
                cause = None
        out.append(agg)
    return out


def rows(app: TableApplication) -> list[tuple[Any, ...]]:
    return [
        (n.id, n.originator_id, n.originator_version, n.topic, n.state)
        for n in app.recorder.select_notifications(1, 10_000)
    ]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_saving_events_stores_what_the_librarys_save_stores(
    seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    print(f"seed={seed}")
    fast, plain = sqlite_app(tmp_path / "a.sqlite"), sqlite_app(tmp_path / "b.sqlite")
    collected: list[int] = []  # the library's collect_events, called with so many objects
    original = ProcessingEvent.collect_events

    def counted(self: Any, *objs: Any, **kwargs: Any) -> None:
        collected.append(len(objs))
        original(self, *objs, **kwargs)

    monkeypatch.setattr(ProcessingEvent, "collect_events", counted)
    try:
        for b, count in enumerate((1, 7, 40)):
            events = [e for agg in games(seed * 100 + b, count) for e in agg.collect_events()]
            mine = fast.save(*events)
            assert collected == []  # the shortcut
            theirs = Application.save(plain, *events)  # the library's own path
            assert collected == [len(events)]
            collected.clear()
            assert [(r.notification.id, r.notification.state) for r in mine] == [
                (r.notification.id, r.notification.state) for r in theirs
            ]
            assert [r.domain_event for r in mine] == events
        assert rows(fast) == rows(plain)
        for agg_id in {r[1] for r in rows(fast)}:
            assert fast.repository.get(agg_id).head_hash == plain.repository.get(agg_id).head_hash
    finally:
        fast.close()
        plain.close()


def test_a_conflict_stores_nothing_of_the_batch(tmp_path: Path) -> None:
    app = sqlite_app(tmp_path / "c.sqlite")
    try:
        (first, second) = games(5, 2)
        app.save(*first.collect_events())
        before = rows(app)
        again = first.fork()
        legal = fakegame.RULES.legal_commands(again.table.game, again.table.game.turn)
        for fact in tables.play(again.table, legal[0]):
            again.record(fact)
        taken = list(again.collect_events())
        object.__setattr__(taken[0], "originator_version", first.version)  # a stored version
        with pytest.raises(IntegrityError):
            app.save(*second.collect_events(), *taken)
        assert rows(app) == before
    finally:
        app.close()


def test_saving_an_aggregate_still_takes_the_librarys_path(tmp_path: Path) -> None:
    app = sqlite_app(tmp_path / "d.sqlite")
    try:
        (agg,) = games(9, 1)
        version = agg.version
        recordings = app.save(agg)  # an aggregate, not events: collected by the library
        assert len(recordings) == version
        assert app.repository.get(agg.id).table == agg.table
    finally:
        app.close()
