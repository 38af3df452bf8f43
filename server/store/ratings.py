"""The rated results (issue 40): one ledger stream per game kind, ``RatingLedger``, whose
events are the results the server rated (domain/ratings.py ``RatedResult``), in the order
they were noted. Ratings are never stored: they are folded from the ledger with the same
function the auditor folds exports with (``domain.ratings.rate``), so the live ratings can
always be recomputed from the records.

Idempotent per result: a result noted twice (a crash between the end of a game and its
noting, a replay, two replicas noting the same end) stays in the ledger twice, and the fold
counts each result id once. A writer checks what it has read before appending, so a
duplicate needs a race; it never needs a lock across replicas.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from eventsourcing.domain import Aggregate
from eventsourcing.persistence import IntegrityError

from domain.ratings import RatedResult
from server.store.players import PlayerGames
from server.store.shards import Store

_NAMESPACE = uuid.UUID("9b8f3c1e-7261-7469-6e67-6c6564676572")  # fixed: ids never move


class RatingLedger(Aggregate):
    """A kind's ledger stream (its events are read directly; never constructed)."""

    class Noted(Aggregate.Event):
        """A result was rated (``RatedResult``'s fields)."""

        result_id: str
        kind: str
        ended_at: str
        players: list[str]
        ranks: list[int]
        match: bool


def stream_id(kind: str) -> uuid.UUID:
    return uuid.uuid5(_NAMESPACE, f"ratings:{kind}")


def note(store: Store, result: RatedResult) -> None:
    """Append ``result`` to its kind's ledger (blocking: call it in a thread). Two writers
    at once: the loser reads the new end and appends after it."""
    pid = stream_id(result.kind)
    app = store.app_for(pid)
    for _attempt in range(16):
        last = list(app.recorder.select_events(pid, desc=True, limit=1))
        version = last[0].originator_version + 1 if last else 1
        event = RatingLedger.Noted(  # type: ignore[call-arg]  # (the event class's fields)
            originator_id=pid,
            originator_version=version,
            timestamp=datetime.now(UTC),
            result_id=result.result_id,
            kind=result.kind,
            ended_at=result.ended_at,
            players=list(result.players),
            ranks=list(result.ranks),
            match=result.match,
        )
        try:
            app.save(event)
            return
        except IntegrityError:
            continue
    raise IntegrityError(f"the rating ledger of {result.kind} kept moving")


def results_after(store: Store, kind: str, position: int) -> tuple[list[RatedResult], int]:
    """The kind's results noted after ``position`` (0: all), and the ledger's position after
    them. Blocking."""
    pid = stream_id(kind)
    found: list[Any] = list(store.app_for(pid).events.get(pid, gt=position or None))
    results = [
        RatedResult(
            e.result_id, e.kind, e.ended_at, tuple(e.players), tuple(e.ranks), bool(e.match)
        )
        for e in found
        if isinstance(e, RatingLedger.Noted)
    ]
    return results, found[-1].originator_version if found else position


def login_seatings(store: Store) -> list[tuple[str, str]]:
    """Every (game id, match id) a signed-in player took a seat at (the players' indexes,
    server/store/players.py), once each, in every shard: the games and matches that may
    rate anyone. Blocking; read at start-up, to rate what ended while the server was down."""
    topic = f"{PlayerGames.__module__}:{PlayerGames.Seated.__qualname__}"
    found: dict[tuple[str, str], None] = {}
    for app in store.shards:
        start = 1
        while True:
            page = app.recorder.select_notifications(start, 500, topics=[topic])
            for n in page:
                event: Any = app.mapper.to_domain_event(n)
                found[(event.game_id, event.match_id)] = None
            if len(page) < 500:
                break
            start = page[-1].id + 1
    return list(found)
