"""The store's transcoder (server/store/eventstore.py, FastJSONTranscoder) and the library's
JSONTranscoder read each other's stores: the same games, snapshots and match facts come
back from a store written by either, whichever reads it. And for any state, however odd
(floats, NaN, ints beyond 64 bits, UUIDs, datetimes, decimals, tuples, strings and objects
that look like transcoded values, control characters, lone surrogates), both write bytes
that both read back as the same data, or both refuse it alike. Hypothesis' seed is fixed
(TRANSCODER_SEED overrides it) and named on failure."""

from __future__ import annotations

import asyncio
import os
import random
import uuid
from datetime import UTC
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from eventsourcing.persistence import JSONTranscoder
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from domain.codec import Canonical
from domain.huaniao.options import Mode
from domain.huaniao.options import Options as HuaniaoOptions
from domain.zipai.options import Options as ZipaiOptions
from domain.zipai.options import ScoringProfile
from server.startup.compose import table_server
from server.store.eventstore import (
    SNAPSHOT_INTERVAL,
    FastJSONTranscoder,
    GameAggregate,
    MatchAggregate,
    TableApplication,
)
from server.wire.receipts import Sealer
from server.wire.signing import Signer
from tests.server.test_matches import play_match, seated
from tests.support.records import play_random

SEED = int(os.environ.get("TRANSCODER_SEED", "20261216"))
LIBRARY = {"TRANSCODER_TOPIC": "eventsourcing.persistence:JSONTranscoder"}
WRITERS = {"library": LIBRARY, "fast": {}}


def sqlite(path: Path, transcoder: dict[str, str]) -> TableApplication:
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)}
    return TableApplication(env={**env, **transcoder})


def write_store(path: Path, transcoder: dict[str, str]) -> list[tuple[Any, bytes]]:
    """A 2-hand 川南字牌 match and a 花鸟风月 game, through the server, on one SQLite file;
    the group commit takes snapshots every SNAPSHOT_INTERVAL events, and one more of each
    game is taken at the end. Returns every state the store was given, with its bytes."""
    written: list[tuple[Any, bytes]] = []

    async def run() -> None:
        app = sqlite(path, transcoder)
        encode = app.mapper.transcoder.encode

        def keep(obj: Any) -> bytes:
            data = encode(obj)
            written.append((obj, data))
            return data

        app.mapper.transcoder.encode = keep  # type: ignore[method-assign]
        ts = table_server(app, sealer=Sealer(Signer.generate()), reveal_timeout=0.0)
        try:
            options = ZipaiOptions(scoring=ScoringProfile.LUZHOU)
            _g, match_id, tokens = await seated(ts, "zipai", options, 3, [0, 1, 2], hands=2)
            await play_match(ts, match_id, tokens, random.Random(SEED))
            await play_random(ts, "huaniao", HuaniaoOptions(mode=Mode.BASIC), 4, SEED)
            app = ts.games.store.shards[0]
            assert app.snapshots is not None
            for gid in streams(app)["game"]:  # a snapshot of each, however short it ended
                agg = app.repository.get(gid)
                if agg.version not in {s.originator_version for s in app.snapshots.get(gid)}:
                    app.snapshot(agg)
        finally:
            ts.games.close()

    asyncio.run(run())
    return written


def streams(app: TableApplication) -> dict[str, list[uuid.UUID]]:
    """Every game's and every match's id in the store."""
    found: dict[str, list[uuid.UUID]] = {"game": [], "match": []}
    opened = {
        f"{GameAggregate.__module__}:{GameAggregate.Opened.__qualname__}": "game",
        f"{MatchAggregate.__module__}:{MatchAggregate.Opened.__qualname__}": "match",
    }
    for n in app.recorder.select_notifications(1, 100_000):
        if n.topic in opened:
            gid = n.originator_id
            found[opened[n.topic]].append(gid if isinstance(gid, uuid.UUID) else uuid.UUID(gid))
    return found


def replayed(app: TableApplication, game_id: uuid.UUID, version: int) -> dict[str, Any]:
    """The game rebuilt from its first event, no snapshot."""
    agg = None
    for event in app.events.get(game_id, lte=version):
        agg = event.mutate(agg)
    return vars(agg)


def read_all(app: TableApplication, ids: dict[str, list[uuid.UUID]]) -> dict[str, Any]:
    """What the server reads: the stored events, the games rebuilt from their snapshots at
    every version, the match facts, and every stored state as decoded data."""
    out: dict[str, Any] = {}
    assert app.snapshots is not None
    for gid in ids["game"]:
        events = app.stored_events(gid)
        out[f"events {gid}"] = events
        for v in range(1, len(events) + 1):
            out[f"game {gid} v{v}"] = vars(app.repository.get(gid, version=v))
        out[f"latest {gid}"] = vars(app.repository.get(gid))
        out[f"snapshots {gid}"] = list(app.snapshots.get(gid))
    for mid in ids["match"]:
        out[f"match {mid}"] = app.match_facts(mid)
    transcoder = app.mapper.transcoder
    out["states"] = [
        transcoder.decode(n.state) for n in app.recorder.select_notifications(1, 100_000)
    ]
    out["snapshot states"] = [
        transcoder.decode(s.state)
        for gid in ids["game"]
        for s in app.snapshots.recorder.select_events(gid)
    ]
    return out


@pytest.mark.parametrize("writer", sorted(WRITERS), ids=lambda w: f"written-by-{w}")
def test_a_store_reads_the_same_with_either_transcoder(tmp_path: Path, writer: str) -> None:
    path = tmp_path / "store.sqlite"
    written = write_store(path, WRITERS[writer])
    library = sqlite(path, LIBRARY)
    fast = sqlite(path, {})
    try:
        assert type(library.mapper.transcoder) is JSONTranscoder
        assert type(fast.mapper.transcoder) is FastJSONTranscoder
        for obj, data in written:  # every state reads back as it was given, by either
            topic = obj.get("originator_topic") or obj.get("topic") or "an event"
            for reader in (library, fast):
                assert exact(reader.mapper.transcoder.decode(data)) == exact(obj), topic
        ids = streams(library)
        assert len(ids["game"]) == 3 and len(ids["match"]) == 1, ids
        by_library, by_fast = read_all(library, ids), read_all(fast, ids)
        assert by_library.keys() == by_fast.keys()
        for what, value in by_library.items():
            assert by_fast[what] == value, f"{what}, written by {writer}"
        for gid in ids["game"]:  # a rebuild from a snapshot is the rebuild from the start
            assert by_library[f"snapshots {gid}"], "the writer took a snapshot of every game"
            last = len(by_library[f"events {gid}"])
            for v in {min(last, SNAPSHOT_INTERVAL), min(last, SNAPSHOT_INTERVAL + 1), last}:
                assert by_fast[f"game {gid} v{v}"] == replayed(library, gid, v)
                assert by_library[f"game {gid} v{v}"] == replayed(fast, gid, v)
    finally:
        library.close()
        fast.close()


# --- any state ------------------------------------------------------------------------------

TEXT = st.text(st.characters() | st.sampled_from('\x00\x1f\x7f\\"\u2028')) | st.sampled_from(
    ["_type_", "_data_", "uuid_hex", "datetime_iso", "decimal_str", "\\u005f", "table"]
)
SURROGATE = st.text(st.characters(categories=["Cs"]), min_size=1, max_size=2)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.sampled_from([2**63 - 1, -(2**63), 2**64 - 1, 2**64, -(2**63) - 1, 10**19, -(10**18)])
    | st.floats()
    | TEXT
    | SURROGATE
    | st.uuids()
    | st.datetimes(timezones=st.none() | st.just(UTC))
    | st.decimals()
)


def _tagged(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects shaped like a transcoded value, stored as plain data by both writers."""
    names = st.sampled_from(["uuid_hex", "datetime_iso", "decimal_str", "nope"])
    return st.fixed_dictionaries({"_type_": names, "_data_": inner})


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda i: st.lists(i, max_size=3) | st.dictionaries(st.text(), i, max_size=3),
    max_leaves=10,
)
VALUES = st.recursive(
    SCALARS | st.builds(Canonical, st.dictionaries(st.text(), JSONISH, max_size=3)),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(TEXT, inner, max_size=4)
        | _tagged(inner)
    ),
    max_leaves=30,
)
STATES = st.dictionaries(TEXT, VALUES, max_size=6) | st.dictionaries(
    TEXT, st.dictionaries(TEXT, VALUES, max_size=3), max_size=3
)


def exact(value: Any) -> Any:
    """Data with its types spelled out: 1, 1.0 and True differ, NaN equals NaN."""
    if isinstance(value, dict):
        return ("dict", {k: exact(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return ("list", [exact(v) for v in value])
    if isinstance(value, float | Decimal):
        return (type(value).__name__, repr(value))
    return (type(value).__name__, value)


def outcome(step: Any, *args: Any) -> tuple[str, Any]:
    try:
        return "ok", step(*args)
    except Exception as exc:  # both transcoders must refuse alike
        return "refused", type(exc).__name__


def transcoders() -> tuple[JSONTranscoder, FastJSONTranscoder]:
    env = {"PERSISTENCE_MODULE": "eventsourcing.popo"}
    library = TableApplication(env={**env, **LIBRARY}).mapper.transcoder
    fast = TableApplication(env=env).mapper.transcoder
    assert isinstance(library, JSONTranscoder) and isinstance(fast, FastJSONTranscoder)
    return library, fast


LIBRARY_T, FAST_T = transcoders()


@seed(SEED)
@settings(
    max_examples=int(os.environ.get("TRANSCODER_EXAMPLES", "300")), deadline=None, database=None
)
@given(STATES)
def test_any_state_written_by_either_transcoder_reads_the_same_with_either(
    state: dict[str, Any],
) -> None:
    where = f"TRANSCODER_SEED={SEED}"
    written = {
        name: outcome(t.encode, state) for name, t in (("library", LIBRARY_T), ("fast", FAST_T))
    }
    if written["library"][0] == "refused":
        assert written["fast"] == written["library"], where
        return
    assert written["fast"][0] == "ok", where
    reads = {
        (writer, reader): outcome(lambda b, t=t: exact(t.decode(b)), written[writer][1])
        for writer in written
        for reader, t in (("library", LIBRARY_T), ("fast", FAST_T))
    }
    expected = reads[("library", "library")]
    for how, read in reads.items():
        assert read == expected, f"{where}: written by {how[0]}, read by {how[1]}"


@pytest.mark.parametrize(
    "text",
    [
        b'{"n": 18446744073709551615, "m": -9223372036854775808}',  # the edges orjson reads
        b'{"n":18446744073709551616}',  # one beyond: orjson would read a float
        b'{"n":[-9223372036854775809, 1]}',
        b'{"n":\n 123456789012345678901234567890}',
        b'{"s": "1234567890123456789012345", "t": "x 99999999999999999999"}',
        b'{"t": {"_type_": "uuid_hex", "_data_": "' + uuid.UUID(int=7).hex.encode() + b'"}}',
        b'{"t": {"\\u005ftype_": "uuid_hex", "_data_": "' + uuid.UUID(int=7).hex.encode() + b'"}}',
        b'{"a": {"b": {"_type_": "decimal_str", "_data_": "1.5"}}, "c": "_type_"}',
        b'{"f": NaN, "g": -Infinity, "h": 1e400, "i": 1E-7}',
        b'[{"_type_": "decimal_str", "_data_": "2"}]',
        b'{"_type_": "decimal_str", "_data_": "2"}',
        b'"text"',
        b"12345678901234567890123",
    ],
)
def test_bytes_any_json_writer_could_store_read_the_same_with_either(text: bytes) -> None:
    assert outcome(lambda b: exact(FAST_T.decode(b)), text) == outcome(
        lambda b: exact(LIBRARY_T.decode(b)), text
    ), text
