"""What the wire floor renders from: a stored fact as it was stored, and a game as one
viewer sees it at one version.

These are plain records, free of the store: the server's store floor makes them from its
rows, and the auditor makes them from an export's lines (server/wire/offline.py).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from domain import match as matches
from domain import table as tables
from domain.engine import Viewer


@dataclass(frozen=True)
class StoredEvent:
    """A decoded fact with where and when it was stored."""

    version: int
    recorded_at: datetime | None  # None: read from an export (no time)
    fact: Any
    hash: str
    stored: dict[str, Any] | None = None  # the fact's stored JSON form (audit, export)
    cause: dict[str, Any] | None = None  # the command behind a move's first fact
    seal: dict[str, Any] | None = None  # on a move's last event: the server's signature
    # the event as sent (server/wire/render.py ``lean_event_proto``), by what a viewer may see
    # of it: a move's event reaches every seat's stream and the mover's reply, and the
    # viewers who see it alike share one rendering. Not part of the event's value.
    rendered: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class StoredMatchFact:
    """A match's stored fact, decoded, with its stored form and chain hash."""

    version: int
    recorded_at: datetime
    fact: Any
    hash: str
    stored: dict[str, Any]
    seal: dict[str, Any] | None = None  # on a match move's last fact: the server's signature


@dataclass(frozen=True)
class Snapshot:
    """A game as one viewer sees it at one version."""

    game_id: uuid.UUID
    version: int
    table: tables.Table
    viewer: Viewer  # what the contents are rendered for: opened up from the end on
    head_hash: str = ""
    seal: dict[str, Any] | None = None  # the latest move's seal at this version (receipts)
    identity: Viewer | None = None  # who is looking (the role a view reports); else viewer
    match: matches.Match | None = None  # the table's match, when asked for and in one
    reveal_deadline: datetime | None = None  # while seats' reveals are pending
    case_deadline: datetime | None = None  # while a case is open
    abandon_deadline: datetime | None = None  # while a draw waits for a seat

    @property
    def seen_by(self) -> Viewer:
        return self.viewer if self.identity is None else self.identity


def seen_at(
    game_id: uuid.UUID,
    table: tables.Table,
    viewer: Viewer,
    head: str,
    seal: dict[str, Any] | None = None,
    at: datetime | None = None,
    opened_at: datetime | None = None,
    justice_times: Mapping[int, datetime] | None = None,
) -> Snapshot:
    """``table`` (the game at one version) as ``viewer`` saw it then: the viewer keeps its
    identity, and the contents open up only from the version that ended the game. ``seal``:
    the latest move's at this version (the receipt of a view at a move's end); ``at``: when
    that version was recorded (a pending reveal's deadline follows from it); ``opened_at``:
    when the latest draw opened (its abandonment deadline follows); ``justice_times``: the
    recorded times of its case facts (an open case's deadline follows from them,
    ``tables.case_deadline``)."""
    contents = tables.viewer_for(table, viewer)
    deadline = None if at is None else tables.reveal_deadline(table, at)
    case_deadline = None
    if justice_times is not None and table.justice.open_case is not None:
        case_deadline = open_case_deadline(table, justice_times, at)
    return Snapshot(
        game_id,
        table.version,
        table,
        contents,
        head,
        seal,
        viewer,
        reveal_deadline=deadline,
        case_deadline=case_deadline,
        abandon_deadline=None if opened_at is None else tables.abandon_deadline(table, opened_at),
    )


def open_case_deadline(
    table: tables.Table, times: Mapping[int, datetime], latest: datetime | None
) -> datetime | None:
    """``tables.case_deadline`` from the kept times of the case facts. A game restored from
    a snapshot made before those times were kept may lack them for a case already open:
    its deadline then follows the rule it was opened under (``latest``, the time of the
    table's latest event, plus the case limit)."""
    try:
        return tables.case_deadline(table, times)
    except KeyError:
        limit = table.case_time_limit_ms or table.time_limit_ms
        if latest is None or limit <= 0:
            return None
        return latest + timedelta(milliseconds=limit)
