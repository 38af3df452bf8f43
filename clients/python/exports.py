"""The `tabletop-audit export` form of a history: one canonical line per GameEvent.

Kept apart from clients/python/audit.py, which imports the replay page
(clients/python/replay_html.py); the page reads records in this same form.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import UTC

from google.protobuf.json_format import MessageToDict

from domain.table.records import canonical, timestamp_text
from tabletop.v1 import tabletop_pb2 as pb


def export_lines(events: Iterable[pb.GameEvent]) -> Iterator[str]:
    for event in events:
        if event.stored_json:  # after the end: {fact, cause, seal}
            stored = json.loads(event.stored_json)
            at = timestamp_text(event.recorded_at.ToDatetime(tzinfo=UTC))
            yield canonical(
                {"version": event.version, "hash": event.hash, "recorded_at": at, **stored}
            )
        else:  # still running: the redacted event as the viewer saw it
            yield canonical(
                {"version": event.version, "hash": event.hash, "redacted": MessageToDict(event)}
            )
