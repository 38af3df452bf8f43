"""Each player's games (issue 40): an index the game store keeps beside the games, so that
ListMyGames pages through a player's seats without reading every game.

A player's index is a stream of its own, ``PlayerGames``, whose id follows from the player
id, in the shard that id falls in. It is a hint, never the record: an entry is written
*before* the join it announces (so a join that is stored is always listed, even if the
server dies between the two writes), and a reader keeps only the entries whose game really
binds a seat to the player (the table's SeatTaken decides). A join that failed leaves an
entry no reader shows. Entries are events, never rebuilt into an aggregate: appending reads
the stream's last version, and listing pages over the stream backwards, so neither grows
with the player's history.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from eventsourcing.domain import Aggregate
from eventsourcing.persistence import IntegrityError

from server.store.shards import Store

_NAMESPACE = uuid.UUID("5f0c6f6e-7461-626c-6574-6f702d706c79")  # fixed: ids never move


class PlayerGames(Aggregate):
    """A player's index stream (its events are read directly; never constructed)."""

    class Seated(Aggregate.Event):
        """The player is taking (or took) ``seat`` at ``game_id``, a hand of ``match_id``."""

        game_id: str
        seat: int
        match_id: str


@dataclass(frozen=True)
class Entry:
    game_id: str
    seat: int
    match_id: str
    at: datetime
    position: int  # the entry's version in the player's stream (pages start below it)


def stream_id(player: str) -> uuid.UUID:
    return uuid.uuid5(_NAMESPACE, player)


def note_seat(store: Store, player: str, game_id: str, seat: int, match_id: str) -> None:
    """Append an entry to the player's index (blocking: call it in a thread). Two writers
    at once for one player: the loser reads the new end and appends after it."""
    pid = stream_id(player)
    app = store.app_for(pid)
    for _attempt in range(8):
        last = list(app.recorder.select_events(pid, desc=True, limit=1))
        version = last[0].originator_version + 1 if last else 1
        event = PlayerGames.Seated(  # type: ignore[call-arg]  # (the event class's fields)
            originator_id=pid,
            originator_version=version,
            timestamp=datetime.now(UTC),
            game_id=game_id,
            seat=seat,
            match_id=match_id,
        )
        try:
            app.save(event)
            return
        except IntegrityError:
            continue
    raise IntegrityError(f"the player index of {player} kept moving")


def entries(store: Store, player: str, before: int | None, limit: int) -> list[Entry]:
    """Up to ``limit`` entries of the player's index, newest first, below ``before`` (the
    position a previous page ended at; None: from the newest). Blocking."""
    pid = stream_id(player)
    app = store.app_for(pid)
    lte = None if before is None else before - 1
    found: list[Any] = list(app.events.get(pid, lte=lte, desc=True, limit=limit))
    return [
        Entry(e.game_id, e.seat, e.match_id, e.timestamp, e.originator_version)
        for e in found
        if isinstance(e, PlayerGames.Seated)
    ]
