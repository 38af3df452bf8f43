"""What a commit's NOTIFY says: which games got which rows, so a feed reads only its own.

eventsourcing's PostgreSQL recorder NOTIFYs the events table's channel in every insert
transaction, with no payload: each listener then had to read every new row to learn whose
it was. ``target_notifies`` makes it send the NOTIFY after the insert instead, in the same
transaction (so it is delivered at commit, in commit order, as before), with a payload
naming each game's rows:

    w<writer>:<schema> <game id as 32 hex digits>:<first notification id>[-<last notification id>] ...

the writing recorder's random id and its table's schema (shards in schemas of one database
share the channel), then one entry per run of consecutive rows of one game,
separated by spaces. A process skips what its own recorder wrote without reading it. A listener reads
``WHERE notification_id = ANY(...)`` for the games it serves, by the unique index, and
nothing of the others (server/store/shards.py, ``Feed``). A payload too long for NOTIFY
(8000 bytes) is sent empty, which tells listeners to read everything after their position,
as listeners did before; so does the plain NOTIFY of a writer that predates this one.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote, unquote
from uuid import UUID

from eventsourcing.postgres import PostgresApplicationRecorder
from psycopg import sql

MAX_PAYLOAD = 7_900  # PostgreSQL's NOTIFY payload limit is 8000 bytes

# (game id, first notification id, last notification id): a run of one game's rows
Entry = tuple[UUID, int, int]


def encode(writer: str, originators: Sequence[Any], notification_ids: Sequence[int]) -> str:
    """The payload for rows stored by one transaction ("" when it would be too long)."""
    runs: list[list[Any]] = []  # [originator, first id, last id]
    pairs = sorted(zip(notification_ids, originators, strict=True), key=lambda p: p[0])
    for nid, originator in pairs:
        if runs and runs[-1][0] == originator and runs[-1][2] == nid - 1:
            runs[-1][2] = nid
        else:
            runs.append([originator, nid, nid])
    parts = [f"w{writer}"]  # writer: "<id>:<schema>"
    for originator, first, last in runs:
        hexid = originator.hex if isinstance(originator, UUID) else UUID(str(originator)).hex
        parts.append(f"{hexid}:{first}" if first == last else f"{hexid}:{first}-{last}")
    payload = " ".join(parts)
    return payload if len(payload) <= MAX_PAYLOAD else ""


def decode(payload: str) -> tuple[str, str, list[Entry]] | None:
    """The writer, its schema and the runs a payload names; None when it names none (then
    read everything)."""
    writer, _, rest = payload.partition(" ")
    if not writer.startswith("w"):
        return None
    entries: list[Entry] = []
    try:
        for part in rest.split():
            hexid, _, span = part.partition(":")
            first, _, last = span.partition("-")
            entries.append((UUID(hex=hexid), int(first), int(last or first)))
    except ValueError:
        return None
    writer_id, _, schema = writer[1:].partition(":")
    return writer_id, unquote(schema), entries


def writer_of(recorder: Any) -> str:
    """The id a recorder's payloads carry ("" for a recorder that sends none)."""
    return str(recorder.__dict__.get("notify_writer", "")).partition(":")[0]


def target_notifies(recorder: PostgresApplicationRecorder) -> None:
    """Make eventsourcing's recorder NOTIFY which games and rows it stored.

    Done on the instance, not by a subclass, so the recorder stays the library's class
    for whatever looks at it (server/transport/health.py's write probe, for one)."""
    library_fetch = recorder._fetch_ids_after_insert_events
    writer = f"{secrets.token_hex(6)}:{quote(recorder.datastore.schema, safe='')}"

    def no_early_notify(curs: Any) -> None:
        """Not before the insert (the library's place): the ids are not known yet."""

    def fetch_ids_then_notify(
        curs: Any, stored_events: Sequence[Any], **kwargs: Any
    ) -> Sequence[int] | None:
        ids = library_fetch(curs, stored_events, **kwargs)
        payload = ""
        if ids is not None and len(ids) == len(stored_events):
            payload = encode(writer, [e.originator_id for e in stored_events], ids)
        curs.execute(sql.SQL("SELECT pg_notify(%s, %s)"), (recorder.channel_name, payload))
        return ids

    recorder.__dict__["notify_writer"] = writer
    recorder.__dict__["_notify_channel"] = no_early_notify
    recorder.__dict__["_fetch_ids_after_insert_events"] = fetch_ids_then_notify
