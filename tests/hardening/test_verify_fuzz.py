"""The verifier is an input parser: it never hangs and never crashes.

Every input, however hostile, ends in a report or in one AuditFailure whose message is one
line, within a time bound (an alarm turns a hang into a failure). Hypothesis mutates real
exports of both games: bytes flipped, lines dropped, duplicated, swapped or truncated, and
hostile JSON values put anywhere in a record. The deepest mutations are re-chained and
re-signed (with the key the test then verifies with), so they pass the chain and the seals
and reach the engine's replay. The named cases are the ones that hung or crashed before:
a timeout cause after the end, a JSON scalar line, a 100k-deep array, a 5,000-digit integer.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from domain.table import records
from domain.verify import AuditFailure, AuditReport, Record, moves, parse_export, verify
from server.wire.signedcommands import read_signed_command
from server.wire.signing import Signer
from tests.support.records import Finished, finished_game

BOUND = 20.0  # seconds per input; genuine records of these games verify in well under 1 s
SEED = int(os.environ.get("VERIFY_FUZZ_SEED", "20261201"))
EXAMPLES = int(os.environ.get("VERIFY_FUZZ_EXAMPLES", "120"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,  # the alarm below is the bound, not hypothesis' per-example deadline
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


class Hang(Exception):
    pass


@contextmanager
def time_bound(seconds: float = BOUND) -> Iterator[None]:
    def alarm(signum: int, frame: Any) -> None:
        raise Hang(f"verify did not finish within {seconds} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def outcome(lines: list[str], key: bytes) -> AuditReport | str:
    """The verifier's answer: a report, or the failure's one line. Anything else (another
    exception, a hang, a message over several lines) fails the test."""
    started = time.monotonic()
    with time_bound():
        try:
            result: AuditReport | str = verify(
                parse_export(lines), key, command_reader=read_signed_command
            )
        except AuditFailure as exc:
            result = str(exc)
            assert result and "\n" not in result and len(result) <= 400, result
    assert time.monotonic() - started < BOUND
    return result


@pytest.fixture(scope="module")
def games() -> dict[str, Finished]:
    return {kind: finished_game(kind, seed=5) for kind in ("huaniao", "zipai")}


@pytest.fixture(scope="module")
def forger() -> Signer:
    return Signer.generate()


# --- what a forger holding the export can recompute ------------------------------------


def to_dicts(lines: list[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines]


def _game_id(rows: list[dict[str, Any]]) -> str:
    """The game the rows' seals name (the seats signed their commands for it), else a
    made-up one."""
    for row in rows:
        seal = row.get("seal") if isinstance(row, dict) else None
        if isinstance(seal, dict) and isinstance(seal.get("game_id"), str):
            return str(seal["game_id"])
    return "00000000-0000-4000-8000-000000000000"


def rechained(rows: list[dict[str, Any]], signer: Signer) -> list[str]:
    """Recompute every chain hash and re-sign every move: the chain and the seals then
    verify with ``signer``'s key, whatever the rows say, so only the replay can object."""
    created = _at(rows, 0, "fact", "data")
    secret = created.get("secret") if isinstance(created, dict) else None
    salt = created.get("salt") if isinstance(created, dict) else None
    key = records.chain_key(
        secret if isinstance(secret, str) else "", salt if isinstance(salt, str) else ""
    )
    prev = ""
    for row in rows:
        try:
            row["hash"] = records.chain_hash(
                key, prev, row["version"], row["fact"], row["cause"], row["recorded_at"]
            )
        except Exception:  # a row the mutation broke: leave its hash, verify says why
            pass
        prev = str(row.get("hash"))
    try:
        rs = [Record(r["version"], r["fact"], r["cause"], r["hash"]) for r in rows]
        bounds = moves(rs)
    except Exception:
        bounds = []
    seats = created.get("seat_count") if isinstance(created, dict) else None
    n = seats + 2 if isinstance(seats, int) and 0 < seats < 9 else 4
    gid = _game_id(rows)
    for first, last in bounds:
        if not (isinstance(last, int) and 0 < last <= len(rows)):
            continue
        row = rows[last - 1]
        head = str(row.get("hash"))
        receipts = [["0" * 64, "0" * 64]] * n
        try:
            body = records.seal_body(gid, first, last, head, receipts)
        except Exception:
            continue
        row["seal"] = {
            "game_id": gid,
            "first": first,
            "last": last,
            "head": head,
            "receipts": receipts,
            "signature": signer.sign(body),
        }
    return [_dump(r) for r in rows]


def _at(value: Any, *path: Any) -> Any:
    """``value[path...]``, or {} where the mutation left something else on the way."""
    for step in path:
        try:
            value = value[step]
        except (KeyError, IndexError, TypeError):
            return {}
    return value


def _dump(row: Any) -> str:
    try:
        return records.canonical(row)
    except (ValueError, TypeError, RecursionError):
        return json.dumps(str(row))


# --- the named cases -------------------------------------------------------------------


def test_a_genuine_record_verifies(games: dict[str, Finished], forger: Signer) -> None:
    for g in games.values():
        assert isinstance(outcome(g.lines, g.public_key), AuditReport)
        # re-chained and re-signed unchanged, it verifies with the forger's key (the fuzz
        # below relies on this: what it breaks, only the mutation broke)
        assert isinstance(
            outcome(rechained(to_dicts(g.lines), forger), forger.public_key), AuditReport
        )


def test_a_timeout_cause_after_the_end_fails_and_does_not_hang(
    games: dict[str, Finished], forger: Signer
) -> None:
    for g in games.values():
        rows = to_dicts(g.lines)
        last = rows[-1]
        extra = {
            **last,
            "version": last["version"] + 1,
            "cause": {"action": "timeout", "seat": None, "command": None},
            "seal": None,
        }
        signed = rechained([*rows, extra], forger)
        assert "after the end" in str(outcome(signed, forger.public_key))
        unsigned = [*g.lines, records.canonical(extra)]
        assert isinstance(outcome(unsigned, g.public_key), str)


def test_a_timeout_nobody_awaits_decides_nothing(
    games: dict[str, Finished], forger: Signer
) -> None:
    """The same hang one move before the end: a timeout cause whose facts the engine
    decides as nothing must not stop the replay from advancing."""
    g = games["huaniao"]
    rows = to_dicts(g.lines)
    i = next(i for i, r in enumerate(rows) if (r["cause"] or {}).get("action") == "play")
    rows[i]["cause"] = {"action": "timeout", "seat": None, "command": None}
    got = outcome(rechained(rows, forger), forger.public_key)
    assert isinstance(got, str) and "version" in got


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("42", "not a JSON object"),
        ('"a string"', "not a JSON object"),
        ("null", "not a JSON object"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"version": ' + "7" * 5000 + "}", "integer of 5000 digits"),
        ('{"version": 1e400}', "not an integer"),
        ('{"version": NaN}', "not an integer"),
        ("{" * 40 + "}" * 40, "not a valid export line"),
        ("\x00\xff garbage", "not a valid export line"),
        ('{"a": ' * 60 + "1" + "}" * 60, "nested deeper"),
        ("x" * (1 << 20 + 1), "longer than"),
    ],
)
def test_hostile_lines_fail_with_one_line(
    games: dict[str, Finished], line: str, reason: str
) -> None:
    g = games["huaniao"]
    for lines in ([line], [*g.lines[:3], line, *g.lines[3:]], [*g.lines, line]):
        got = outcome(lines, g.public_key)
        assert isinstance(got, str) and reason in got, got


def test_layout_does_not_matter_but_a_repeated_key_is_refused(games: dict[str, Finished]) -> None:
    g = games["huaniao"]
    pretty = [
        json.dumps(json.loads(line), indent=None, separators=(", ", ": ")) for line in g.lines
    ]
    assert isinstance(outcome(pretty, g.public_key), AuditReport)
    repeated = [*g.lines[:2], g.lines[2][:-1] + ', "version": 3}', *g.lines[3:]]
    assert "a key repeats" in str(outcome(repeated, g.public_key))


def test_empty_truncated_and_wrong_key_inputs(games: dict[str, Finished]) -> None:
    g = games["zipai"]
    assert "empty history" in str(outcome([], g.public_key))
    assert "not ended" in str(outcome(g.lines[: len(g.lines) // 2], g.public_key))
    assert "32-byte" in str(outcome(g.lines, b"short"))
    cut = [*g.lines[:-1], g.lines[-1][: len(g.lines[-1]) // 2]]
    assert isinstance(outcome(cut, g.public_key), str)


# --- the fuzz ---------------------------------------------------------------------------

HOSTILE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, -1, 1, 2**31, 2**63 - 1, 10**19, 99999]),
    st.text(max_size=40),
    st.sampled_from(["", "x" * 100_000, "ShuffleRevealed", "timeout", "play", "GameCreated"]),
    st.lists(st.integers(min_value=-5, max_value=200), max_size=8),
    st.dictionaries(st.text(max_size=6), st.integers(), max_size=3),
    st.integers(min_value=20, max_value=45).map(lambda d: _nested(d)),
)


def _nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


def nodes(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for k in sorted(value):
            yield from nodes(value[k], (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from nodes(v, (*path, i))


def put(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: put(value[head], rest, new)}
    out = list(value)
    out[head] = put(value[head], rest, new)
    return out


@FUZZ
@seed(SEED)
@given(data=st.data())
def test_hostile_values_anywhere_in_a_re_signed_record(
    games: dict[str, Finished], forger: Signer, data: st.DataObject
) -> None:
    """A hostile value anywhere (a fact, a cause, a command, a seal, a version), the
    record then re-chained and re-signed: the replay must refuse it with a reason."""
    g = games[data.draw(st.sampled_from(sorted(games)))]
    rows = to_dicts(g.lines)
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(rows) - 1))
        path = data.draw(st.sampled_from(list(nodes(rows[i]))[1:]))
        rows[i] = put(rows[i], path, data.draw(HOSTILE))
    outcome(rechained(rows, forger), forger.public_key)


MUTATIONS: dict[str, Callable[[list[str], st.DataObject], list[str]]] = {}


def mutation(fn: Callable[[list[str], st.DataObject], list[str]]) -> Callable[..., list[str]]:
    MUTATIONS[fn.__name__] = fn
    return fn


@mutation
def flip(lines: list[str], data: st.DataObject) -> list[str]:
    text = "\n".join(lines)
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(text) - 1))
        text = text[:i] + data.draw(st.characters(codec="utf-8")) + text[i + 1 :]
    return text.split("\n")


@mutation
def truncate(lines: list[str], data: st.DataObject) -> list[str]:
    text = "\n".join(lines)
    return text[: data.draw(st.integers(0, len(text)))].split("\n")


@mutation
def splice(lines: list[str], data: st.DataObject) -> list[str]:
    text = "\n".join(lines)
    i = data.draw(st.integers(0, len(text)))
    j = data.draw(st.integers(i, min(len(text), i + 200)))
    return (text[:i] + data.draw(st.text(max_size=30)) + text[j:]).split("\n")


@mutation
def reorder(lines: list[str], data: st.DataObject) -> list[str]:
    out = list(lines)
    op = data.draw(st.sampled_from(["drop", "dup", "swap", "reverse"]))
    i = data.draw(st.integers(0, len(out) - 1))
    j = data.draw(st.integers(0, len(out) - 1))
    if op == "drop":
        del out[i]
    elif op == "dup":
        out.insert(i, out[j])
    elif op == "swap":
        out[i], out[j] = out[j], out[i]
    else:
        out.reverse()
    return out


@mutation
def tabletop_export_form(lines: list[str], data: st.DataObject) -> list[str]:
    """The same record as `tabletop export` writes it, then flipped."""
    out = []
    for line in lines:
        row = json.loads(line)
        stored = records.canonical({k: row[k] for k in ("fact", "cause", "seal")})
        event = {"version": str(row["version"]), "hash": row["hash"], "stored_json": stored}
        event["recorded_at"] = row["recorded_at"]
        out.append(json.dumps({"event": event}))
    return flip(out, data)


@FUZZ
@seed(SEED)
@given(data=st.data())
def test_mutated_and_truncated_exports(games: dict[str, Finished], data: st.DataObject) -> None:
    g = games[data.draw(st.sampled_from(sorted(games)))]
    name = data.draw(st.sampled_from(sorted(MUTATIONS)))
    got = outcome(MUTATIONS[name](g.lines, data), g.public_key)
    if isinstance(got, AuditReport):  # only a mutation that changed nothing of substance
        assert got == outcome(g.lines, g.public_key)
