"""The event store: one eventsourcing stream (aggregate) per game (group commit: commit.py).

Each stored event is a ``GameAggregate.Recorded`` (the first a ``GameAggregate.Opened``)
wrapping one domain fact in its JSON form, plus the SHA-256 hash chaining it to its
predecessor. The token hashes of a fact are kept beside it (``private``), outside the chained
and exported form; the last event of each move carries the move's ``seal`` (the server's
signature, domain/table/records.py). The aggregate's only state is the immutable
``domain.table.Table``, the head hash and the latest seal, so a copy for a tentative move is
a shallow copy, and snapshots store the table in its JSON form.
"""

from __future__ import annotations

import copy
import logging
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

import orjson
from eventsourcing.application import Application, ProcessingEvent
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import (
    JSONTranscoder,
    OperationalError,
    Transcoder,
    Transcoding,
)

from domain import match as matches
from domain import table as tables
from domain.codec import Canonical, canonical_fragment, orjson_writes_alike
from domain.match import records as match_records
from domain.table import records
from server.wire.stored import StoredEvent, StoredMatchFact

SNAPSHOT_INTERVAL = 25  # worst-case rebuild: 1 snapshot + 24 events (bench P3, docs)
# libpq connection parameters read from POSTGRES_<NAME> (or a shard URL's query)
LIBPQ_PARAMETERS = (
    "target_session_attrs",
    "keepalives",
    "keepalives_idle",
    "keepalives_interval",
    "keepalives_count",
    "tcp_user_timeout",
)
log = logging.getLogger("tabletop.store")


class OutcomeUnknown(OperationalError):
    """A write the store neither confirmed nor denied in time: it may or may not be stored.

    Only a networked store (PostgreSQL) can lose the reply to a COMMIT; the committer then
    reads the game back until it can tell, and raises this only when the store stayed
    unreachable for ``commit.RESOLVE_SECONDS``. The caller's retry with the same idempotency key
    settles it (docs/api.md)."""


def chain_hash(
    table: tables.Table,
    prev_hash: str,
    version: int,
    fact: dict[str, Any],
    cause: dict[str, Any] | None,
    recorded_at: datetime,
) -> str:
    """The keyed hash of one stored event (domain/table/records.py): it covers its
    predecessor, its version, its fact, the command that caused it and when it was stored."""
    key = records.chain_key(table.secret, table.salt)
    at = records.timestamp_text(recorded_at)
    return records.chain_hash(key, prev_hash, version, fact, cause, at)


class GameAggregate(Aggregate):
    """One game's stream. ``table`` is the domain state rebuilt from the facts."""

    class Opened(Aggregate.Created):
        fact: dict[str, Any]  # as chained and exported: no token hash
        hash: str
        cause: dict[str, Any] | None
        private: dict[str, Any] | None = None  # the token hashes, never exported
        seal: dict[str, Any] | None = None  # the move's seal (set by seal_move)

        def apply(self, aggregate: Any) -> None:
            fact = records.join_private(self.fact, self.private)
            aggregate.table = tables.evolve(None, tables.decode_event("", fact))
            aggregate.head_hash = self.hash
            if aggregate.table.draw_opened == 1:  # a lobby table's draw opens at its creation
                aggregate.__dict__["draw_opened_at"] = self.timestamp.isoformat()  # (reserved)
            _keep_seal(aggregate, self)

    class Recorded(Aggregate.Event):
        fact: dict[str, Any]  # as chained and exported: no token hash
        hash: str
        cause: dict[str, Any] | None  # the command behind the first fact of a move
        private: dict[str, Any] | None = None  # the token hashes, never exported
        seal: dict[str, Any] | None = None  # on a move's last event (set by seal_move)

        def apply(self, aggregate: Any) -> None:
            # record() hands over the fact it just encoded; replays decode the stored form
            event = aggregate.__dict__.pop("_recording", None)
            if event is None:
                fact = records.join_private(self.fact, self.private)
                event = tables.decode_event(aggregate.table.kind, fact)
            aggregate.table = tables.evolve(aggregate.table, event)
            aggregate.head_hash = self.hash
            if aggregate.table.draw_opened == self.originator_version:  # a draw opened now
                aggregate.__dict__["draw_opened_at"] = self.timestamp.isoformat()
            _keep_seal(aggregate, self)
            if isinstance(event, tables.CLOCK_FACT_TYPES):
                _keep_time(aggregate, event, self.originator_version, self.timestamp)
            if self.cause is not None and (
                self.cause.get("request_id") or self.cause.get("request_key")
            ):
                _index_request(aggregate, self.cause, self.originator_version)
            _count_clock_run(aggregate, self.cause)

    # Set by Opened.apply: ``table`` (domain.table.Table), ``head_hash`` (str) and ``seal``
    # (the latest move's, or None). Not class annotations, which eventsourcing would turn
    # into constructor arguments.
    table: tables.Table
    head_hash: str

    def __init__(self) -> None:
        pass

    @classmethod
    def open(
        cls, game_id: UUID, created: tables.GameCreated, cause: dict[str, Any] | None = None
    ) -> GameAggregate:
        fact, private = _chained(tables.encode_event(created))
        cause = None if cause is None else Canonical(cause)
        table = tables.evolve(None, created)
        at = cls.Opened.create_timestamp()
        digest = chain_hash(table, "", 1, fact, cause, at)
        return cls._create(
            cls.Opened,
            id=game_id,
            fact=fact,
            hash=digest,
            cause=cause,
            private=private,
            timestamp=at,
        )

    def record(self, event: Any, cause: dict[str, Any] | None = None) -> None:
        fact, private = _chained(tables.encode_event(event))
        cause = None if cause is None else Canonical(cause)
        at = self.Recorded.create_timestamp()
        digest = chain_hash(self.table, self.head_hash, self.version + 1, fact, cause, at)
        self.__dict__["_recording"] = event  # saves Recorded.apply decoding ``fact`` again
        try:
            self.trigger_event(
                self.Recorded, fact=fact, hash=digest, cause=cause, private=private, timestamp=at
            )
        finally:
            self.__dict__.pop("_recording", None)

    def seal_move(self, seal: dict[str, Any]) -> None:
        """Attach the move's seal to its last pending event before the save.

        The seal signs what the move's events render to (their hashes and timestamps), so
        it is made after they exist; it is not part of any hash, and it is stored in the
        same transaction as the move."""
        last = self._pending_events[-1]
        vars(last)["seal"] = seal
        self.__dict__["seal"] = seal

    @property
    def latest_seal(self) -> dict[str, Any] | None:
        return self.__dict__.get("seal")

    def request_version(self, seat: int | None, request_id: str) -> int | None:
        """The version of the first fact of the move ``seat`` sent with this Play request_id
        (its idempotency key), or None. The index is part of the state, so snapshots and
        rebuilds after a restart keep it."""
        found = self.__dict__.get("requests", {}).get(f"{seat}:{request_id}")
        return None if found is None else int(found)

    def keyed_version(self, digest: str) -> int | None:
        """The version of the first fact of the JoinGame or StartGame whose idempotency key
        has this digest (server/usecases/idempotency.py), or None."""
        found = self.__dict__.get("requests", {}).get(f"key:{digest}")
        return None if found is None else int(found)

    @property
    def draw_opened_at(self) -> datetime | None:
        """When the latest draw opened (the time of ``table.draw_opened``'s fact): a draw's
        abandonment clock runs from it (state, so snapshots and rebuilds keep it)."""
        at = self.__dict__.get("draw_opened_at")
        return None if at is None else datetime.fromisoformat(at)

    @property
    def justice_times(self) -> tables.CaseClock:
        """The hand's justice clock (``tables.CaseClock``): the recorded times of the open
        case's facts (``tables.CLOCK_FACT_TYPES``), by version, and the closed cases' pause
        in all; a case's deadline and the hand's justice budget follow from them
        (``tables.case_deadline``). State, so snapshots and rebuilds keep it; its size does
        not grow with the history (issue 38)."""
        return _case_clock(self)

    @property
    def clock_run(self) -> int:
        """Events the turn clock appended since the last move a client caused (state, so
        snapshots and rebuilds keep it): the clock stops at a bound (server/usecases/timers.py)."""
        return int(self.__dict__.get("clock_events", 0))

    def fork(self) -> GameAggregate:
        """A copy to append tentative facts to; the original stays as committed.

        Shallow is enough: the table and hashes are immutable; only the pending list is not.
        """
        clone = copy.copy(self)
        clone.__dict__["_pending_events"] = []
        return clone


def _chained(data: dict[str, Any]) -> tuple[Canonical, dict[str, Any] | None]:
    """A fact as chained, with its canonical text made once: the chain hash, the store
    (FastJSONTranscoder) and the renderings of the move all use that text."""
    fact, private = records.split_private(data)
    return Canonical(fact), private


def _keep_seal(aggregate: Any, event: Any) -> None:
    seal = event.seal
    if seal is not None:
        aggregate.seal = seal


def _keep_time(aggregate: Any, fact: Any, version: int, at: datetime) -> None:
    """Move the justice clock on by a case fact recorded at ``at`` (``tables.clock_after``):
    ``justice_at`` keeps the open case's times (ISO text, which snapshots keep as it is; a
    new dict: forks share the committed one's), ``justice_closed_us`` the closed cases'
    pause in µs."""
    clock = tables.clock_after(_case_clock(aggregate), fact, version, at)
    aggregate.justice_at = {str(v): t.isoformat() for v, t in clock.items()}
    aggregate.justice_closed_us = clock.closed // timedelta(microseconds=1)


def _case_clock(aggregate: Any) -> tables.CaseClock:
    """The justice clock kept in the aggregate's state. A state kept before issue 38 holds
    the time of every case fact and no closed total: its closed cases are summed once, from
    those times (a case whose times a still older state lacks counts no pause, as it had
    no budget then: ``justice_budget_ms`` 0)."""
    kept = aggregate.__dict__.get("justice_at", {})
    times = {int(v): datetime.fromisoformat(t) for v, t in kept.items()}
    closed_us = aggregate.__dict__.get("justice_closed_us")
    if closed_us is not None:
        return tables.CaseClock(times, timedelta(microseconds=closed_us))
    cases = aggregate.table.justice.cases
    closed = sum(
        (
            max(timedelta(), times[c.closed] - times[c.id])
            for c in cases
            if c.closed and c.closed in times and c.id in times
        ),
        timedelta(),
    )
    # the latest case is open unless its close was timed (apply() may have closed it just now)
    last = cases[-1] if cases else None
    still_open = last is not None and not (last.closed and last.closed in times)
    open_times = {v: t for v, t in times.items() if still_open and last and v >= last.id}
    return tables.CaseClock(open_times, closed)


def _index_request(aggregate: Any, cause: dict[str, Any], version: int) -> None:
    """Remember which version a seat's Play request_id, or a keyed request's digest,
    produced (a new dict: forks share the committed aggregate's)."""
    if cause.get("request_key"):
        key = f"key:{cause['request_key']}"
    else:
        key = f"{cause.get('seat')}:{cause['request_id']}"
    aggregate.requests = {**aggregate.__dict__.get("requests", {}), key: version}


class MatchAggregate(Aggregate):
    """One match's stream (domain/match/): the record that links its hands in order and
    carries the standings. ``match`` is the state rebuilt from its facts; every stored fact
    carries its chain hash, keyed by the match's secret (domain/match/records.py), which is
    kept beside MatchCreated (``private``) until MatchEnded reveals it; the last fact of each
    move carries the move's ``seal`` (``seal_move``)."""

    class Opened(Aggregate.Created):
        fact: dict[str, Any]  # as chained and exported: the secret blanked
        hash: str
        private: dict[str, Any] | None = None  # the chain secret, never exported
        seal: dict[str, Any] | None = None  # the move's seal (set by seal_move)

        def apply(self, aggregate: Any) -> None:
            fact = match_records.join_private(self.fact, self.private)
            aggregate.match = matches.evolve(None, matches.decode_fact(fact))
            aggregate.head_hash = self.hash

    class Recorded(Aggregate.Event):
        fact: dict[str, Any]
        hash: str
        seal: dict[str, Any] | None = None  # on a move's last fact (set by seal_move)

        def apply(self, aggregate: Any) -> None:
            aggregate.match = matches.evolve(aggregate.match, matches.decode_fact(self.fact))
            aggregate.head_hash = self.hash

    match: matches.Match
    head_hash: str

    def __init__(self) -> None:
        pass

    @classmethod
    def open(cls, match_id: UUID, facts: list[Any]) -> MatchAggregate:
        """A new match from its opening facts (MatchCreated first, holding its secret)."""
        fact, private = match_records.split_private(matches.encode_fact(facts[0]))
        data = Canonical(fact)  # hashed and stored from one text
        secret = facts[0].secret
        digest = match_records.fact_hash(str(match_id), secret, "", 1, data)
        agg = cls._create(cls.Opened, id=match_id, fact=data, hash=digest, private=private)
        for more in facts[1:]:
            agg.record(more)
        return agg

    def record(self, fact: Any) -> None:
        data = Canonical(matches.encode_fact(fact))
        secret = self.match.secret
        if secret:
            digest = match_records.fact_hash(
                str(self.id), secret, self.head_hash, self.version + 1, data
            )
        else:  # a match opened before issue 36 goes on as it was chained
            digest = match_records.legacy_fact_hash(
                str(self.id), self.head_hash, self.version + 1, data
            )
        self.trigger_event(self.Recorded, fact=data, hash=digest)

    def seal_move(self, seal: dict[str, Any]) -> None:
        """Attach the move's seal to its last pending fact before the save (as a game's)."""
        vars(self._pending_events[-1])["seal"] = seal

    def fork(self) -> MatchAggregate:
        clone = copy.copy(self)
        clone.__dict__["_pending_events"] = []
        return clone


def _off(value: str | None) -> bool:
    return (value or "").strip().lower() in ("n", "no", "off", "false", "0")


def _steady_reconnects() -> None:
    """psycopg_pool retries a lost connection after 1, 2, 4, 8 ... s; after a failover that
    doubling alone kept writes away for up to twice the promotion time (docs/reliability.md,
    "Failover"). Trying again every second (with the pool's jitter) costs one refused
    connect per second while the database is away, and finds a new primary within about a
    second of its promotion."""
    from psycopg_pool.base import AttemptWithBackoff

    AttemptWithBackoff.DELAY_BACKOFF = 1.0


def _count_clock_run(aggregate: Any, cause: dict[str, Any] | None) -> None:
    """A move's first fact carries its cause; the facts after it belong to the same move."""
    if cause is not None:
        aggregate.by_clock = cause.get("action") == "timeout"
        if not aggregate.by_clock:
            aggregate.clock_events = 0
    if aggregate.__dict__.get("by_clock", False):
        aggregate.clock_events = aggregate.__dict__.get("clock_events", 0) + 1


class TableAsData(Transcoding):
    """Snapshots hold the table in its JSON form (domain/codec conventions)."""

    type = tables.Table
    name = "table"

    def encode(self, obj: tables.Table) -> dict[str, Any]:
        return tables.encode_table(obj)

    def decode(self, data: dict[str, Any]) -> tables.Table:
        return tables.decode_table(data)


class FastJSONTranscoder(JSONTranscoder):
    """The library's JSON transcoder, writing and reading with orjson wherever orjson gives
    the same data, and with the library's own json code everywhere else; the stored bytes
    are the same JSON either way (key order aside: a Canonical is written as its sorted
    text), so a store written by either reads with the other (tests/server/test_transcoder.py).

    Writing, orjson hands the types it leaves alone to ``_transcode``: a Canonical as its
    text, the registered transcodings (datetimes, the table) as ``{"_type_", "_data_"}``
    as the library writes them. Whatever json would write differently from orjson (floats,
    enums, UUIDs, subclasses of str, int, dict or list, ints beyond 64 bits, surrogates)
    goes to the library's encoder. Reading, orjson parses unless the bytes hold a number
    it would turn into a float (more than 64 bits) or an escape that could spell a key;
    the transcoded values are decoded where a state and its objects hold them, innermost
    first as the library's object hook does; bytes with any elsewhere go to the library's
    decoder."""

    def encode(self, obj: Any) -> bytes:
        if orjson_writes_alike(obj):
            try:
                return orjson.dumps(obj, default=self._transcode, option=_ORJSON_OPTIONS)
            except orjson.JSONEncodeError:
                pass
        return super().encode(obj)

    def _transcode(self, obj: Any) -> Any:
        if type(obj) is Canonical:
            return canonical_fragment(obj)
        transcoding = self.types.get(type(obj))
        if transcoding is None or isinstance(obj, _JSON_WRITES_ITSELF):
            raise TypeError(f"{type(obj).__name__} is written by the library's encoder")
        data = transcoding.encode(obj)
        if not orjson_writes_alike(data):
            raise TypeError(f"{transcoding.name} is written by the library's encoder")
        return {"_type_": transcoding.name, "_data_": data}

    def decode(self, data: bytes) -> Any:
        if _orjson_reads_alike(data):
            try:
                obj = orjson.loads(data)
            except orjson.JSONDecodeError:  # NaN, a lone surrogate, an overflowing float...
                pass
            else:
                tags = data.count(b'"_type_"')
                if tags == 0 or self._untag(obj, tags):
                    return obj
        return super().decode(data)

    def _untag(self, obj: Any, tags: int) -> bool:
        """Decode the transcoded values of state ``obj`` and of its objects, innermost
        first as the library's hook does; False, having changed nothing, unless those are
        all the bytes hold (``tags`` counts their ``"_type_"``: each one found accounts for
        one, so the search ends when all are found)."""
        if type(obj) is not dict or _tagged(obj):
            return False
        found: list[tuple[dict[str, Any], str]] = []
        for key, value in obj.items():
            if type(value) is dict:
                for inner, item in value.items():
                    if type(item) is dict and _tagged(item):
                        found.append((value, inner))
                if _tagged(value):
                    found.append((obj, key))
                if len(found) == tags:
                    break
        if len(found) != tags:
            return False
        for holder, key in found:
            holder[key] = self._decode_obj(holder[key])
        return True


_ORJSON_OPTIONS = (
    orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
)
_JSON_WRITES_ITSELF = (str, int, float, dict, list, tuple)  # subclasses too, never transcoded
# For a scan of the integers in a JSON text: digits become "0"; what may stand before a
# number (":", ",", "[", "-", whitespace) becomes ":"; everything else " ".
_NUMBERS = bytes(
    48 if chr(b).isdigit() else 58 if chr(b) in ":,[- \t\n\r" else 32 for b in range(128)
)
_NUMBERS += bytes([32]) * 128
_LONG = b":" + b"0" * 19  # shorter integers always fit in 64 bits
_ORJSON_INTS = range(-(2**63), 2**64)  # orjson reads the others as floats


def _orjson_reads_alike(data: bytes) -> bool:
    """Whether orjson reads the JSON object or array ``data`` as json does, or refuses it:
    no integer beyond 64 bits (orjson would read a float; every run of 19 or more digits
    after a separator is checked, in a string or not), and no escape (a \\u escape could
    spell "_type_", which ``_untag`` counts)."""
    if data[:1] not in (b"{", b"[") or b"\\" in data:
        return False
    scan = data.translate(_NUMBERS)
    at = scan.find(_LONG)
    while at >= 0:
        end = at + len(_LONG)
        while scan[end : end + 1] == b"0":
            end += 1
        if int(data[at + 1 : end]) * (-1 if data[at] == 45 else 1) not in _ORJSON_INTS:
            return False
        at = scan.find(_LONG, end)
    return True


def _tagged(value: dict[str, Any]) -> bool:
    """Shaped as a transcoded value, which the library's object hook decodes."""
    return "_type_" in value and len(value) == 2 and "_data_" in value


MAX_KINDS_KEPT = 100_000  # games whose kind TableApplication.kind_of remembers


def stored_event(e: Any, kind: str) -> StoredEvent:
    """A stored Opened/Recorded as a StoredEvent: the fact decoded with its token hashes
    (the server's own state needs them), the stored form without."""
    fact = records.join_private(e.fact, e.private)
    return StoredEvent(
        e.originator_version,
        e.timestamp,
        tables.decode_event(kind, fact),
        e.hash,
        e.fact,
        e.cause,
        e.seal,
    )


class TableApplication(Application[UUID]):
    """The eventsourcing application holding every game."""

    name = "Tabletop"
    is_snapshotting_enabled = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._kinds: dict[UUID, str] = {}  # kind_of's answers (written from reader threads)

    def construct_recorder(self) -> Any:
        """The library's recorder; on PostgreSQL, with the libpq parameters of
        ``LIBPQ_PARAMETERS`` that eventsourcing does not pass on. With a host list,
        ``POSTGRES_TARGET_SESSION_ATTRS=read-write`` makes every connection, the store
        feed's too, find the current primary, so a replica follows a failover by itself."""
        datastore = getattr(self.factory, "datastore", None)
        if datastore is None or self.env.get("PERSISTENCE_MODULE") != "eventsourcing.postgres":
            # (SQLite has a datastore too; psycopg_pool is about 120 ms of a server's start)
            return self._with_outbox(super().construct_recorder())
        for name in LIBPQ_PARAMETERS:
            value = self.env.get(f"POSTGRES_{name.upper()}")
            if value:
                datastore.pool.kwargs[name] = value
        if _off(self.env.get("POSTGRES_PREPARED_STATEMENTS")):
            # behind PgBouncer in transaction mode a statement prepared on one server
            # connection is unknown on the next: psycopg then never prepares (docs/operations.md)
            datastore.pool.kwargs["prepare_threshold"] = None
        _steady_reconnects()
        recorder = super().construct_recorder()
        from eventsourcing.postgres import PostgresApplicationRecorder

        from server.store.notify import target_notifies

        if isinstance(recorder, PostgresApplicationRecorder):
            target_notifies(recorder)  # its NOTIFY names the games it stored (notify.py)
        return self._with_outbox(recorder)

    def _with_outbox(self, recorder: Any) -> Any:
        """The recorder, storing webhook outbox rows with the events (server/store/outbox.py);
        the outbox table, and the lobby's bot secrets' (server/store/lobbybots.py), are
        created where the library creates its own."""
        from server.store.lobbybots import BotSecrets
        from server.store.outbox import attach

        create = not _off(self.env.get("CREATE_TABLE"))
        self.outbox = attach(recorder, create=create)
        self.bot_secrets = BotSecrets(recorder)  # the lobby's bot tables (lobbybots.py)
        if create:
            self.bot_secrets.create_table()
        return recorder

    def save(self, *objs: Any, **kwargs: Any) -> list[Any]:
        """The library's save; events alone (what the group commit hands over) skip its
        runtime protocol check (``isinstance`` of a runtime-checkable Protocol, 12-20 µs an
        event on Python 3.11): an ``Aggregate.Event`` is a domain event, and collecting one
        only appends it, as here. ``outbox``: webhook rows stored in the events' transaction."""
        outbox = kwargs.pop("outbox", None)
        if kwargs or not all(isinstance(o, Aggregate.Event) for o in objs):
            return super().save(*objs, **kwargs)
        processing: ProcessingEvent[UUID] = ProcessingEvent()
        processing.events.extend(objs)
        if outbox:
            processing.saved_kwargs["outbox"] = outbox
        recordings = self._record(processing)
        self._take_snapshots(processing)
        self._notify(recordings)
        self.notify(processing.events)
        return recordings

    def construct_transcoder(self) -> Transcoder:
        """FastJSONTranscoder, unless the library's TRANSCODER_TOPIC names another (such as
        ``eventsourcing.persistence:JSONTranscoder``, which reads and writes the same
        stores)."""
        if self.factory.env.get(self.factory.TRANSCODER_TOPIC):
            return super().construct_transcoder()
        transcoder = FastJSONTranscoder()
        self.register_transcodings(transcoder)
        return transcoder

    def register_transcodings(self, transcoder: JSONTranscoder) -> None:
        super().register_transcodings(transcoder)
        transcoder.register(TableAsData())

    def stored_events(
        self, game_id: UUID, gt: int | None = None, lte: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        kind = ""
        out = []
        e: Any
        for e in self.events.get(game_id, gt=gt, lte=lte, limit=limit):
            if not kind:
                kind = e.fact["data"]["kind"] if e.fact["type"] == "GameCreated" else ""
                kind = kind or self.kind_of(game_id)
            out.append(stored_event(e, kind))
        return out

    def kind_of(self, game_id: UUID) -> str:
        """The game's kind, from its first event. A game never changes kind, so it is read
        once per game and remembered: a page that starts after version 1 (a resumed Watch,
        a move's events read back) then costs one query, not two."""
        kind = self._kinds.get(game_id)
        if kind is None:
            first: Any
            (first,) = list(self.events.get(game_id, limit=1))
            kind = str(first.fact["data"]["kind"])
            if len(self._kinds) >= MAX_KINDS_KEPT:
                self._kinds.clear()
            self._kinds[game_id] = kind
        return kind

    def match_facts(self, match_id: UUID, gt: int | None = None) -> list[StoredMatchFact]:
        out = []
        e: Any
        for e in self.events.get(match_id, gt=gt):
            fact = matches.decode_fact(e.fact)
            seal = getattr(e, "seal", None)
            out.append(
                StoredMatchFact(e.originator_version, e.timestamp, fact, e.hash, e.fact, seal)
            )
        return out

    def snapshot(self, aggregate: GameAggregate) -> None:
        assert self.snapshots is not None
        self.snapshots.put([GameAggregate.Snapshot.take(aggregate)])
