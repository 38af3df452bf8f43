"""Each shard's transparency log, kept in the shard's database (docs/api.md, "Transparency log").

Every seal the store holds is a leaf of its shard's log, in the order the store committed
the events that carry them: the shard's notification ids. ``ShardLog.sequence`` reads the
notifications after the last one it placed and appends one leaf per seal at the next index.
Every replica runs it; the leaves table's keys (the index, and the notification id) make
replicas that race insert the same rows, since they read the same order, so the move path
takes no lock of its own: a seal's leaf follows its commit.

``TransparencyLogs`` is the server's view of every shard's log: the sequencer thread, the
signed tree heads (signed with the server's key after each batch of leaves), the proofs and
the key retirement statements (kept in the first shard's database).

Held in memory per log: every leaf hash and the root of every complete aligned subtree
(``domain.translog.Tree``: about two hashes a seal), so heads and proofs need no read and
take O(log² n) hashing.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import orjson
from eventsourcing.utils import strtobool

from domain import translog
from domain.match import records as match_records
from domain.table import records
from server.store.eventstore import TableApplication
from server.wire.signing import Signer

log = logging.getLogger("tabletop.translog")

PAGE = 500  # notifications read a step
POLL_SECONDS = 0.25  # how often a replica looks for seals other replicas stored
ROUND_SECONDS = 0.5  # at most one round this often: a round's reads, its write and its head's
# signature are shared by the moves of the last 0.5 s, not paid per commit (issue 38: at
# 0.1 s the sequencer cost 97 µs of CPU a move under the peer load, at 0.5 s 51)
RETIREMENTS_EVERY = 15  # rounds between reads of the key retirements (about 10 s)


@dataclass(frozen=True)
class Leaf:
    index: int
    notification_id: int
    record_id: str  # the game id, or the match id
    first: int
    last: int
    hash: bytes


def seal_leaf(seal: dict[str, Any]) -> tuple[str, bytes]:
    """A stored seal's record id and leaf data: the bytes it signed, hashed, and its key id."""
    if "match_id" in seal:
        record = str(seal["match_id"])
        body = match_records.seal_body(record, seal["first"], seal["last"], seal["head"])
    else:
        record = str(seal["game_id"])
        body = records.stored_seal_body(record, seal)
    return record, translog.leaf_data(body, str(seal.get("key_id", "")))


class NotLogged(Exception):
    """A seal that is not in the log at the size asked for (yet)."""


class _Rows:
    """The log's rows in the shard's database (SQLite or PostgreSQL), or in memory."""

    def __init__(self, app: TableApplication) -> None:
        self.app = app
        module = type(app.recorder).__module__
        self.kind = {"eventsourcing.sqlite": "sqlite", "eventsourcing.postgres": "postgres"}.get(
            module, "memory"
        )
        datastore: Any = getattr(app.recorder, "datastore", None)  # none in memory
        self._datastore = datastore
        self._memory: list[Leaf] = []
        self._meta: dict[str, str] = {}
        self._retired: dict[str, str] = {}
        if self.kind == "postgres":
            schema = str(datastore.schema or "public")
            self.prefix = f'"{schema}".'
        else:
            self.prefix = ""

    def _sql(self, text: str) -> str:
        text = text.replace("T_", self.prefix + "tabletop_")
        return text.replace("?", "%s") if self.kind == "postgres" else text

    def _run(self, statements: Iterable[tuple[str, tuple[Any, ...]]], fetch: bool = False) -> Any:
        with self._datastore.transaction(commit=True) as cursor:
            out = None
            for text, args in statements:
                cursor.execute(self._sql(text), args)
            if fetch:
                out = [
                    tuple(r.values()) if isinstance(r, dict) else tuple(r)
                    for r in cursor.fetchall()
                ]
            return out

    def create(self) -> None:
        if self.kind == "memory":
            return
        blob = "BYTEA" if self.kind == "postgres" else "BLOB"
        self._run(
            [
                (
                    "CREATE TABLE IF NOT EXISTS T_log (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
                    (),
                ),
                (
                    "CREATE TABLE IF NOT EXISTS T_log_leaves (idx BIGINT PRIMARY KEY, "
                    "notification_id BIGINT NOT NULL UNIQUE, record_id TEXT NOT NULL, "
                    f"first_version BIGINT NOT NULL, last_version BIGINT NOT NULL, leaf {blob} NOT NULL)",
                    (),
                ),
                (
                    "CREATE INDEX IF NOT EXISTS tabletop_log_leaves_record "
                    "ON T_log_leaves (record_id)",
                    (),
                ),
                (
                    "CREATE TABLE IF NOT EXISTS T_key_retirements "
                    "(retired TEXT PRIMARY KEY, statement TEXT NOT NULL)",
                    (),
                ),
            ]
        )

    def log_id(self) -> str:
        fresh = str(uuid.uuid4())
        if self.kind == "memory":
            return self._meta.setdefault("log_id", fresh)
        rows = self._run(
            [
                (
                    "INSERT INTO T_log (name, value) VALUES ('log_id', ?) ON CONFLICT DO NOTHING",
                    (fresh,),
                ),
                ("SELECT value FROM T_log WHERE name = 'log_id'", ()),
            ],
            fetch=True,
        )
        return str(rows[0][0])

    def leaves_from(self, index: int) -> list[Leaf]:
        if self.kind == "memory":
            return self._memory[index:]
        rows = self._run(
            [
                (
                    "SELECT idx, notification_id, record_id, first_version, last_version, leaf "
                    "FROM T_log_leaves WHERE idx >= ? ORDER BY idx",
                    (index,),
                )
            ],
            fetch=True,
        )
        return [Leaf(int(a), int(b), str(c), int(d), int(e), bytes(f)) for a, b, c, d, e, f in rows]

    def insert(self, leaves: list[Leaf]) -> None:
        if self.kind == "memory":
            for leaf in leaves:
                if leaf.index == len(self._memory):
                    self._memory.append(leaf)
            return
        self._run(
            (
                "INSERT INTO T_log_leaves (idx, notification_id, record_id, first_version, "
                "last_version, leaf) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (x.index, x.notification_id, x.record_id, x.first, x.last, x.hash),
            )
            for x in leaves
        )

    def of_record(self, record_id: str) -> list[tuple[int, int, int]]:
        """(index, first, last) of every leaf of the record, in index order."""
        if self.kind == "memory":
            return [(x.index, x.first, x.last) for x in self._memory if x.record_id == record_id]
        rows = self._run(
            [
                (
                    "SELECT idx, first_version, last_version FROM T_log_leaves "
                    "WHERE record_id = ? ORDER BY idx",
                    (record_id,),
                )
            ],
            fetch=True,
        )
        return [(int(a), int(b), int(c)) for a, b, c in rows]

    def retirements(self) -> list[str]:
        if self.kind == "memory":
            return list(self._retired.values())
        rows = self._run(
            [("SELECT statement FROM T_key_retirements ORDER BY statement", ())], fetch=True
        )
        return [str(r[0]) for r in rows]

    def add_retirement(self, retired: str, statement: str) -> None:
        if self.kind == "memory":
            self._retired.setdefault(retired, statement)
            return
        self._run(
            [
                (
                    "INSERT INTO T_key_retirements (retired, statement) VALUES (?, ?) "
                    "ON CONFLICT DO NOTHING",
                    (retired, statement),
                )
            ]
        )


def create_tables(app: TableApplication) -> None:
    """The log's tables in one shard (at start-up where tables are created, and by migrate)."""
    _Rows(app).create()


class ShardLog:
    """One shard's log: its leaves, read back from the store and appended in order."""

    def __init__(self, app: TableApplication) -> None:
        self.app = app
        self.rows = _Rows(app)
        if strtobool(app.env.get("CREATE_TABLE") or "yes"):  # else made by migrate
            self.rows.create()
        self.log_id = self.rows.log_id()
        self.tree = translog.Tree()
        self.scanned = 0  # the last notification id read
        self._lock = threading.Lock()
        self._plain = getattr(app.mapper, "cipher", None) is None and (
            getattr(app.mapper, "compressor", None) is None
        )

    @property
    def size(self) -> int:
        return len(self.tree)

    def _load(self) -> None:
        """The leaves other replicas (or this one, before a restart) stored."""
        for leaf in self.rows.leaves_from(len(self.tree)):
            if leaf.index != len(self.tree):
                raise RuntimeError(f"log {self.log_id}: leaf {leaf.index} out of order")
            self.tree.append(leaf.hash)
            self.scanned = max(self.scanned, leaf.notification_id)

    def sequence(self) -> int:
        """Append the leaves of every seal committed since the last call; the number added."""
        with self._lock:
            before = len(self.tree)
            self._load()
            while True:
                page = self.app.recorder.select_notifications(self.scanned + 1, PAGE)
                if not page:
                    break
                fresh = self._leaves(page, len(self.tree))
                if fresh:
                    self.rows.insert(fresh)
                    self._load()  # ours, or the same rows a racing replica stored first
                    if self.scanned < fresh[-1].notification_id:
                        continue  # another replica's rows differ: read on from where they end
                self.scanned = max(self.scanned, page[-1].id)
                if len(page) < PAGE:
                    break
            return len(self.tree) - before

    def _leaves(self, page: Any, index: int) -> list[Leaf]:
        out: list[Leaf] = []
        for n in page:
            seal = self._seal(n)
            if not seal:
                continue
            record, data = seal_leaf(seal)
            out.append(
                Leaf(
                    index + len(out),
                    n.id,
                    record,
                    seal["first"],
                    seal["last"],
                    translog.leaf_hash(data),
                )
            )
        return out

    def _seal(self, n: Any) -> dict[str, Any] | None:
        """The seal a stored event carries, if any: read from its JSON alone where the store
        keeps plain JSON (no cipher, no compressor), else from the decoded event."""
        if self._plain:
            if b'"signature"' not in n.state:
                return None  # no seal in it: nothing decoded
            try:
                found = orjson.loads(n.state)
            except orjson.JSONDecodeError:  # what orjson cannot read (an integer beyond 64 bits)
                found = None
            if isinstance(found, dict):
                seal = found.get("seal")
                return seal if isinstance(seal, dict) else None
        seal = getattr(self.app.mapper.to_domain_event(n), "seal", None)
        return seal if isinstance(seal, dict) else None

    def root(self, size: int) -> bytes:
        with self._lock:
            return self.tree.root(size)

    def inclusions(self, record_id: str, size: int) -> list[tuple[int, int, int, list[bytes]]]:
        """(first, last, index, audit path) of every seal of the record, against ``size``."""
        found = self.rows.of_record(record_id)
        out = []
        for index, first, last in found:
            if index >= size:
                raise NotLogged(
                    f"the seal of versions {first}..{last} is not in the log at size {size} yet: "
                    "ask again, or for a later size"
                )
            with self._lock:
                out.append((first, last, index, self.tree.inclusion_proof(index, size)))
        return out

    def consistency(self, first: int, second: int) -> list[bytes]:
        with self._lock:
            return self.tree.consistency_proof(first, second)


class TransparencyLogs:
    """Every shard's log, its sequencer thread, the signed heads and the key retirements."""

    def __init__(
        self,
        shards: list[TableApplication],
        signer: Signer,
        shard_of: Callable[[uuid.UUID], int],
    ) -> None:
        self.logs = [ShardLog(app) for app in shards]
        self.by_id = {x.log_id: x for x in self.logs}
        self.signer = signer
        self.shard_of = shard_of
        self._heads: dict[str, translog.TreeHead] = {}
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._retirements = self._read_retirements()
        self.sequence()

    # --- the sequencer ------------------------------------------------------------------

    def sequence(self) -> None:
        """Catch every log up with its store and sign a new head where it grew (blocking)."""
        for shard in self.logs:
            added = shard.sequence()
            if added or shard.log_id not in self._heads:
                self._heads[shard.log_id] = self.sign(shard, shard.size)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="tabletop-translog", daemon=True)
        self._thread.start()

    def wake(self, *_: Any) -> None:
        """Something was committed: look for its seals now (a committer's on_saved)."""
        self._wake.set()

    def _run(self) -> None:
        rounds = 0
        while not self._stop.is_set():
            self._wake.wait(POLL_SECONDS)
            self._stop.wait(ROUND_SECONDS)  # let the commits of the next 0.5 s join this round
            self._wake.clear()
            rounds += 1
            try:
                self.sequence()
                if rounds % RETIREMENTS_EVERY == 0:  # a replica started since may have stated one
                    self._retirements = self._read_retirements()
            except Exception:  # the store is away: the next round tries again
                log.warning("the transparency log could not read the store", exc_info=True)

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(5)

    # --- heads and proofs (blocking: call them off the event loop) ----------------------

    def sign(self, shard: ShardLog, size: int) -> translog.TreeHead:
        now = int(time.time() * 1000)
        head = translog.TreeHead(shard.log_id, size, shard.root(size).hex(), now)
        signature = self.signer.sign(head.body())
        return translog.TreeHead(head.log_id, size, head.root, now, self.signer.key_id, signature)

    def latest(self) -> list[translog.TreeHead]:
        return [self._heads[x.log_id] for x in self.logs if x.log_id in self._heads]

    def latest_for(self, record_id: uuid.UUID) -> translog.TreeHead | None:
        """The latest head of the record's log (no I/O once the record was read)."""
        return self._heads.get(self.logs[self.shard_of(record_id)].log_id)

    def log_of(self, record_id: uuid.UUID) -> ShardLog:
        return self.logs[self.shard_of(record_id)]

    def head(self, shard: ShardLog, size: int) -> translog.TreeHead:
        """A head of ``size`` leaves (0: the latest, signed after the last batch)."""
        if size == 0 or size == shard.size:
            kept = self._heads.get(shard.log_id)
            if kept is not None and kept.size == shard.size:
                return kept
            kept = self._heads[shard.log_id] = self.sign(shard, shard.size)
            return kept
        return self.sign(shard, size)

    # --- key retirement -----------------------------------------------------------------

    def retirements(self) -> list[translog.Retirement]:
        """Every key retirement stored (kept: read at start and every few seconds)."""
        return list(self._retirements)

    def _read_retirements(self) -> list[translog.Retirement]:
        return [parse_retirement(text) for text in self.logs[0].rows.retirements()]

    def retire(self, old: Signer, successor: Signer) -> translog.Retirement:
        """State ``old``'s retirement for ``successor`` at every log's size now: signed by both
        keys, stored once (a statement already stored for ``old`` is kept)."""
        for known in self.retirements():
            if known.retired == old.key_id:
                return known
        self.sequence()
        sizes = tuple(sorted((x.log_id, x.size) for x in self.logs))
        plain = translog.Retirement(sizes, old.key_id, successor.key_id, int(time.time() * 1000))
        body = plain.body()
        stated = translog.Retirement(
            sizes,
            old.key_id,
            successor.key_id,
            plain.timestamp,
            old.sign(body),
            successor.sign(body),
        )
        self.logs[0].rows.add_retirement(old.key_id, orjson.dumps(stated.to_json()).decode())
        self._retirements = self._read_retirements()
        return next(r for r in self._retirements if r.retired == old.key_id)


def parse_retirement(text: str) -> translog.Retirement:
    data = orjson.loads(text)
    return translog.Retirement(
        tuple(sorted((str(k), int(v)) for k, v in data["logs"].items())),
        str(data["retired"]),
        str(data["successor"]),
        int(data["timestamp"]),
        str(data["retired_signature"]),
        str(data["successor_signature"]),
    )
