"""The canonical JSON text (domain/codec.py) is what ``json.dumps(sort_keys=True,
ensure_ascii=False, separators=(",", ":"))`` writes, byte for byte, whether orjson or json
wrote it: the chain hash, the seals, tabletop-audit and clients/node all depend on it.

Hypothesis draws arbitrary JSON-like values, with what orjson writes otherwise (floats,
NaN and infinities, ints beyond 64 bits, enums, UUIDs, subclasses of str and int, tuples,
non-str keys, lone surrogates, control characters) and Canonical objects nested anywhere;
the seed is fixed (CANONICAL_SEED overrides it) and every failure names it. Every stored
fact, cause and seal of random games of both kinds is checked too, and their chain hashes
recomputed with json alone."""

from __future__ import annotations

import asyncio
import enum
import hashlib
import hmac
import json
import os
import uuid
from typing import Any

import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from domain.codec import Canonical, canonical
from domain.engine import ARBITER
from domain.huaniao.options import Mode
from domain.huaniao.options import Options as HuaniaoOptions
from domain.table import records
from domain.zipai.options import Options as ZipaiOptions
from tests.support.records import in_memory_server, play_random

SEED = int(os.environ.get("CANONICAL_SEED", "20261216"))
EXAMPLES = settings(
    max_examples=int(os.environ.get("CANONICAL_EXAMPLES", "250")), deadline=None, database=None
)


def by_json(data: Any) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def outcome(write: Any, data: Any) -> tuple[str, str]:
    try:
        return "text", write(data)
    except Exception as exc:  # both writers must refuse alike
        return "refused", type(exc).__name__


class Colour(enum.Enum):
    RED = "红"


class Rank(enum.IntEnum):
    ONE = 1


class Suit(enum.StrEnum):
    HUA = "花"


class Name(str):
    pass


class Count(int):
    pass


TEXT = st.text(
    st.characters() | st.characters(categories=["Cs"]) | st.sampled_from('\x00\x1f\x7f\u2028"\\/')
)
PLAIN_TEXT = st.text(st.characters(exclude_categories=["Cs"]))
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | TEXT
    | st.sampled_from([Colour.RED, Rank.ONE, Suit.HUA])
    | st.uuids()
    | st.builds(Name, TEXT)
    | st.builds(Count, st.integers())
)
KEYS = TEXT | st.sampled_from(["", "a", "B", "é", "\uffff", "\U00010000", "_type_"])


def _json_like(scalars: st.SearchStrategy[Any], keys: st.SearchStrategy[Any]) -> Any:
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.tuples(inner, inner)
            | st.dictionaries(keys, inner, max_size=4)
        ),
        max_leaves=25,
    )


# what a Canonical can be made of (its own text comes from canonical)
PLAIN = _json_like(st.none() | st.booleans() | st.integers() | st.floats() | PLAIN_TEXT, PLAIN_TEXT)
CANONICALS = st.builds(Canonical, st.dictionaries(PLAIN_TEXT, PLAIN, max_size=4))
VALUES = st.recursive(
    SCALARS | CANONICALS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(KEYS, inner, max_size=4)
        | st.dictionaries(st.integers() | st.booleans() | st.none(), inner, max_size=3)
        | st.builds(Canonical, st.dictionaries(PLAIN_TEXT, PLAIN, max_size=3))
    ),
    max_leaves=30,
)


@seed(SEED)
@EXAMPLES
@given(VALUES)
def test_canonical_writes_what_json_writes_for_any_value(data: Any) -> None:
    assert outcome(canonical, data) == outcome(by_json, data), f"CANONICAL_SEED={SEED}"


@seed(SEED)
@settings(EXAMPLES, max_examples=max(1, EXAMPLES.max_examples // 3))
@given(st.dictionaries(PLAIN_TEXT, PLAIN, max_size=6))
def test_a_canonical_object_carries_json_text_and_stays_the_data_it_was_made_of(
    data: dict[str, Any],
) -> None:
    made = Canonical(data)
    assert made.text == by_json(data), f"CANONICAL_SEED={SEED}"
    assert canonical(made) == made.text
    assert canonical({"fact": made, "more": [made]}) == by_json({"fact": data, "more": [data]})
    assert json.loads(made.text) == json.loads(by_json(dict(made)))


GAMES = [("huaniao", HuaniaoOptions(mode=Mode.SIMPLE)), ("zipai", ZipaiOptions())]


@pytest.mark.parametrize("kind,options", GAMES, ids=[k for k, _ in GAMES])
def test_every_stored_fact_of_random_games_is_chained_over_json_text(
    kind: str, options: Any
) -> None:
    """The store's hashes, made live from each fact's one canonical text, are the hashes
    of json's text; and canonical writes json's text for each stored record."""

    async def run(game_seed: int) -> int:
        ts = in_memory_server()
        try:
            gid = await play_random(ts, kind, options, 2, game_seed)
            table = (await ts.watch.snapshot(gid, ARBITER, None)).table
            key = records.chain_key(table.secret, table.salt)
            prev = ""
            stored = ts.games.store.stored_events(ts.games.parse_id(gid))
            for e in stored:
                for part in (e.stored, e.cause, e.seal):
                    assert canonical(part) == by_json(part), f"seed={game_seed}, v{e.version}"
                whole = {"fact": e.stored, "cause": e.cause, "seal": e.seal}
                assert canonical(whole) == by_json(whole)
                assert e.recorded_at is not None
                at = records.timestamp_text(e.recorded_at)
                body = f"{prev}|{e.version}|{by_json(e.stored)}|{by_json(e.cause)}|{at}"
                expected = hmac.new(key, body.encode(), hashlib.sha256).hexdigest()
                assert e.hash == expected, f"seed={game_seed}: v{e.version} {e.stored['type']}"
                prev = e.hash
            return len(stored)
        finally:
            ts.games.close()

    for game_seed in (SEED, SEED + 1, SEED + 2):
        assert asyncio.run(run(game_seed)) > 10


def test_a_uuid_or_an_enum_is_refused_as_json_refuses_it() -> None:
    for value in (uuid.uuid4(), Colour.RED, {"a": [Colour.RED]}):
        assert outcome(canonical, value)[0] == "refused"
    assert canonical([Rank.ONE, Suit.HUA, Name("x"), Count(3)]) == '[1,"花","x",3]'
