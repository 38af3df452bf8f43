"""Replay an exported history without a server, rendered exactly as the Replay RPC renders it.

An export (``tabletop-audit export``, complete after the end or for the arbiter) holds every
stored fact. The audit tool verifies it with the published engine; this module turns the
same records into the per-viewer steps of Replay (the event and the view at each version),
through the server's own rendering (server/wire/render.py), so a page made from a file shows
what the server would have shown each viewer. Nothing is decided here: the facts are
applied as recorded (``domain.table.evolve``).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from domain import table as tables
from domain.engine import Viewer
from domain.verify import Record
from server.wire import render
from server.wire.stored import StoredEvent, seen_at
from tabletop.v1 import tabletop_pb2 as pb

NO_GAME_ID = uuid.UUID(int=0)  # the page shows no game id


def record_kind(records: list[Record]) -> str:
    return str(records[0].fact["data"]["kind"])


def replay_records(records: list[Record], viewers: list[Viewer]) -> dict[Viewer, list[Any]]:
    """Each viewer's ReplayResponse steps from version 1 to the last record."""
    kind = record_kind(records)
    steps: dict[Viewer, list[Any]] = {v: [] for v in viewers}
    for stored, table in _versions(kind, records):
        for viewer in viewers:
            snap = seen_at(NO_GAME_ID, table, viewer, stored.hash)
            view = render.view_proto(snap)
            view.ClearField("game_id")
            event = render.event_proto(kind, stored, snap.viewer)
            steps[viewer].append(pb.ReplayResponse(event=event, view=view))
    return steps


def _versions(kind: str, records: list[Record]) -> Iterator[tuple[StoredEvent, tables.Table]]:
    table = None
    for r in records:
        fact = tables.decode_event(kind, r.fact)
        table = tables.evolve(table, fact)
        at = datetime.fromisoformat(r.recorded_at) if r.recorded_at else None
        yield StoredEvent(r.version, at, fact, r.hash, r.fact, r.cause, r.seal), table
