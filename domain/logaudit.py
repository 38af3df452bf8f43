"""Checking a verified record's seals against the transparency log (docs/api.md, "Transparency
log"): the export's log line read by its strict grammar, the tree heads a verifier trusts,
every seal's inclusion, and the retired-key rule ("a seal by a retired key counts only below
the size its retirement states"). Pure: the proofs come from the export or from a server
(clients/python/audit_log.py fetches them), the keys from outside the record.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from domain import translog
from domain.match import records as match_records
from domain.table import records
from domain.table.records import key_id

HEAD_KEYS = frozenset(("key_id", "log_id", "root", "signature", "size", "timestamp"))
INCLUSION_KEYS = frozenset(("first", "id", "index", "last", "log_id", "path"))
RETIREMENT_KEYS = frozenset(
    ("logs", "retired", "retired_signature", "successor", "successor_signature", "timestamp")
)
MAX_HEADS = 1024
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_HEX16 = re.compile(r"[0-9a-f]{16}")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_HEX128 = re.compile(r"[0-9a-f]{128}")
_MAX_INT = 2**53 - 1  # a size, index or time is an integer JSON readers agree on (docs/api.md)


class LogFailure(Exception):
    """The record's seals fail against the log; the message is the verifier's one line."""


class HeadsOutOfOrder(LogFailure):
    """A log line whose heads are not one a log in log_id order: refused by the grammar,
    unless two of them are validly signed heads of one log and size with different roots,
    a proof of a forked log (the verifier holds ``heads`` against its keys: exit 3)."""

    def __init__(self, message: str, heads: tuple[translog.TreeHead, ...]) -> None:
        super().__init__(message)
        self.heads = heads


@dataclass(frozen=True)
class Inclusion:
    first: int
    id: str  # the seal's game id, or match id
    index: int
    last: int
    log_id: str
    path: tuple[bytes, ...]


@dataclass(frozen=True)
class LogProofs:
    """A log line, or what a server served: tree heads and one inclusion a seal."""

    heads: tuple[translog.TreeHead, ...]
    inclusions: tuple[Inclusion, ...]
    source: str = "the log line"
    missing: str = ""  # why a source has no proofs at all (a server that does not know it)


@dataclass(frozen=True)
class SealRef:
    """A seal of the record as the log holds it: its record id, versions, key, leaf hash."""

    id: str
    first: int
    last: int
    key_id: str
    leaf: bytes

    @property
    def where(self) -> str:
        return f"the seal of versions {self.first}..{self.last}"


@dataclass
class KeySet:
    """The server's keys as a verifier knows them from outside the record: every key by id,
    which are retired, and the retirement statements (checked: signed by both keys)."""

    keys: dict[str, bytes]
    retired: frozenset[str] = frozenset()
    retirements: dict[str, translog.Retirement] = field(default_factory=dict)

    @staticmethod
    def plain(keys: Iterable[bytes]) -> KeySet:
        """Keys given alone (``--public-key``): none known to be retired."""
        return KeySet({key_id(k): k for k in keys})


def seal_refs(seals: Iterable[dict[str, Any]], keys: KeySet | None = None) -> list[SealRef]:
    """The leaves of a record's (verified) seals, in the record's order. The leaf is the one
    the server logged: the seal's signed bytes and the ``key_id`` it states ("" for a seal
    stored before keys had ids; docs/api.md, "Leaves"), so a seal whose key id was changed
    is not the logged one. A seal's ``key_id`` is not signed: with ``keys``, the key the
    retired-key rule applies to is the one whose signature verifies (a thief who strips or
    renames the key ids of a retired key's seals still meets the rule); without, the id the
    seal states (tests that build seals themselves)."""
    out = []
    for seal in seals:
        if "match_id" in seal:
            rid = str(seal["match_id"])
            body = match_records.seal_body(rid, seal["first"], seal["last"], seal["head"])
        else:
            rid = str(seal["game_id"])
            body = records.stored_seal_body(rid, seal)
        stated = str(seal.get("key_id", ""))
        kid = stated
        if keys is not None:
            kid = _signer(keys, kid, str(seal["signature"]), body, seal)
        leaf = translog.leaf_hash(translog.leaf_data(body, stated))
        out.append(SealRef(rid, seal["first"], seal["last"], kid, leaf))
    return out


def _signer(keys: KeySet, named: str, signature: str, body: bytes, seal: dict[str, Any]) -> str:
    """The id of the key that made ``signature``: the one named if it verifies, else any."""
    order = (
        [named, *(k for k in keys.keys if k != named)] if named in keys.keys else list(keys.keys)
    )
    for kid in order:
        try:
            Ed25519PublicKey.from_public_bytes(keys.keys[kid]).verify(
                bytes.fromhex(signature), body
            )
            return kid
        except (InvalidSignature, ValueError):
            continue
    where = f"the seal of versions {seal['first']}..{seal['last']}"
    raise LogFailure(f"{where} verifies with none of the given keys")


# --- the log line's grammar ------------------------------------------------------------------


def parse_log_line(data: Any, where: str) -> LogProofs:
    """``{"log": {"heads": [...], "inclusions": [...]}}`` exactly (docs/api.md)."""
    if not isinstance(data, dict) or set(data) != {"log"}:
        raise LogFailure(f"{where} is not a log line {{log}}")
    body = data["log"]
    if not isinstance(body, dict) or set(body) != {"heads", "inclusions"}:
        raise LogFailure(f"{where}: `log` is not exactly {{heads, inclusions}}")
    heads, inclusions = body["heads"], body["inclusions"]
    if not isinstance(heads, list) or not isinstance(inclusions, list):
        raise LogFailure(f"{where}: `heads` and `inclusions` must be lists")
    if len(heads) > MAX_HEADS:
        raise LogFailure(f"{where}: more than {MAX_HEADS} tree heads")
    parsed = tuple(parse_head(h, f"{where} head {i + 1}") for i, h in enumerate(heads))
    ids = [h.log_id for h in parsed]
    if ids != sorted(set(ids)):
        raise HeadsOutOfOrder(f"{where}: the heads are not sorted by log_id, one a log", parsed)
    entries = tuple(_inclusion(x, f"{where} inclusion {i + 1}") for i, x in enumerate(inclusions))
    return LogProofs(parsed, entries)


def parse_head(data: Any, where: str) -> translog.TreeHead:
    """A tree head as JSON: exactly {key_id, log_id, root, signature, size, timestamp}."""
    if not isinstance(data, dict) or set(data) != HEAD_KEYS:
        raise LogFailure(f"{where} is not a tree head {{{', '.join(sorted(HEAD_KEYS))}}}")
    ok = (
        _text(data["key_id"], _HEX16)
        and _text(data["log_id"], _UUID)
        and _text(data["root"], _HEX64)
        and _text(data["signature"], _HEX128)
        and _count(data["size"])
        and _count(data["timestamp"])
    )
    if not ok:
        raise LogFailure(f"{where} has a field of the wrong form")
    return translog.TreeHead(
        data["log_id"],
        data["size"],
        data["root"],
        data["timestamp"],
        data["key_id"],
        data["signature"],
    )


def parse_retirement(data: Any, where: str) -> translog.Retirement:
    """A retirement statement as JSON (``tabletop-audit key --json``)."""
    if not isinstance(data, dict) or set(data) != RETIREMENT_KEYS:
        raise LogFailure(
            f"{where} is not a key retirement {{{', '.join(sorted(RETIREMENT_KEYS))}}}"
        )
    logs = data["logs"]
    ok = (
        isinstance(logs, dict)
        and all(_text(k, _UUID) and _count(v) for k, v in logs.items())
        and _text(data["retired"], _HEX16)
        and _text(data["successor"], _HEX16)
        and _text(data["retired_signature"], _HEX128)
        and _text(data["successor_signature"], _HEX128)
        and _count(data["timestamp"])
    )
    if not ok:
        raise LogFailure(f"{where} has a field of the wrong form")
    return translog.Retirement(
        tuple(sorted(logs.items())),
        data["retired"],
        data["successor"],
        data["timestamp"],
        data["retired_signature"],
        data["successor_signature"],
    )


KEY_SET_KEYS = frozenset(("key_id", "public_key", "retired", "retirements", "tree_heads"))
_KEY_KEYS = frozenset(("key_id", "public_key"))


def parse_key_set(data: Any, where: str) -> KeySet:
    """The server's key set as JSON (``tabletop-audit key --json``, GetSigningKey; docs/api.md,
    "The export grammar": the key set), checked in this order, the first problem the one
    refusal (the Node verifier's lib/verify.js ``parseKeySet`` is the same): exactly its five keys; three
    lists; each key (the current one first, then the retired ones) exactly {key_id,
    public_key}, 64 lowercase hex digits named by their id, no key twice; each retirement
    exactly its keys and of the right form, retiring one of the retired keys for another key
    of the set, one a key, signed by the retired key and then by its successor; each tree
    head by the log line's grammar."""
    if not isinstance(data, dict) or set(data) != KEY_SET_KEYS:
        raise LogFailure(f"{where} is not {{{', '.join(sorted(KEY_SET_KEYS))}}}")
    if not all(isinstance(data[k], list) for k in ("retired", "retirements", "tree_heads")):
        raise LogFailure(f"{where}'s retired, retirements and tree_heads are not lists")
    keys: dict[str, bytes] = {}
    named = [{k: data[k] for k in _KEY_KEYS}, *data["retired"]]
    for i, k in enumerate(named, start=1):
        if not isinstance(k, dict) or set(k) != _KEY_KEYS:
            raise LogFailure(f"{where}'s key {i} is not {{key_id, public_key}}")
        if not _text(k["public_key"], _HEX64):
            raise LogFailure(
                f"{where}'s key {i} has a public key that is not 64 lowercase hex digits"
            )
        public = bytes.fromhex(k["public_key"])
        kid = key_id(public)
        if k["key_id"] != kid:
            raise LogFailure(f"{where}'s key {i} has a key_id other than its public key's id {kid}")
        if kid in keys:
            raise LogFailure(f"{where} names key {kid} twice")
        keys[kid] = public
    current = next(iter(keys))
    retired = frozenset(keys) - {current}
    statements: dict[str, translog.Retirement] = {}
    for i, r in enumerate(data["retirements"], start=1):
        at = f"{where}'s retirement {i}"
        s = parse_retirement(r, at)
        if s.retired not in retired:
            raise LogFailure(f"{at} retires key {s.retired}, which is not one of the retired keys")
        if s.successor == s.retired:
            raise LogFailure(f"{at} names key {s.retired} its own successor")
        if s.successor not in keys:
            raise LogFailure(f"{at} names successor key {s.successor}, which is not in the set")
        if s.retired in statements:
            raise LogFailure(f"{where} has two retirements of key {s.retired}")
        _signed_by_both(s, keys, at)
        statements[s.retired] = s
    for i, h in enumerate(data["tree_heads"], start=1):
        parse_head(h, f"{where}'s tree head {i}")
    return KeySet(keys, retired, statements)


def _inclusion(data: Any, where: str) -> Inclusion:
    if not isinstance(data, dict) or set(data) != INCLUSION_KEYS:
        raise LogFailure(f"{where} is not an inclusion {{{', '.join(sorted(INCLUSION_KEYS))}}}")
    path = data["path"]
    ok = (
        _count(data["first"])
        and _count(data["last"])
        and _count(data["index"])
        and isinstance(data["id"], str)
        and _text(data["log_id"], _UUID)
        and isinstance(path, list)
        and len(path) <= translog.MAX_PROOF
        and all(_text(p, _HEX64) for p in path)
    )
    if not ok:
        raise LogFailure(f"{where} has a field of the wrong form")
    return Inclusion(
        data["first"],
        data["id"],
        data["index"],
        data["last"],
        data["log_id"],
        tuple(bytes.fromhex(p) for p in path),
    )


def _text(value: Any, form: re.Pattern[str]) -> bool:
    return isinstance(value, str) and form.fullmatch(value) is not None


def _count(value: Any) -> bool:
    return type(value) is int and 0 <= value <= _MAX_INT


def log_line(proofs: LogProofs) -> dict[str, Any]:
    """The export's log line (canonical JSON of this is the line)."""
    return {
        "log": {
            "heads": [h.to_json() for h in sorted(proofs.heads, key=lambda h: h.log_id)],
            "inclusions": [
                {
                    "first": x.first,
                    "id": x.id,
                    "index": x.index,
                    "last": x.last,
                    "log_id": x.log_id,
                    "path": [p.hex() for p in x.path],
                }
                for x in proofs.inclusions
            ],
        }
    }


# --- keys and heads ---------------------------------------------------------------------------


def head_signed(head: translog.TreeHead, keys: KeySet) -> bool:
    """Whether a tree head verifies with the given key its ``key_id`` names (retired or not:
    ``head_problem`` says whether to trust it now)."""
    public = keys.keys.get(head.key_id)
    return public is not None and _verifies(public, head.signature, head.body())


def _verifies(public: bytes, signature: str, body: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(bytes.fromhex(signature), body)
        return True
    except (InvalidSignature, ValueError):
        return False


def checked_retirements(
    keys: Mapping[str, bytes], statements: Iterable[translog.Retirement]
) -> dict[str, translog.Retirement]:
    """The statements by retired key id, each signed by the retired key and its successor,
    both among ``keys``; one that is not is refused (the key source is not to be trusted)."""
    out = {}
    for s in statements:
        if s.retired not in keys or s.successor not in keys:
            raise LogFailure(f"the retirement of key {s.retired} names a key not given")
        _signed_by_both(s, keys, "the retirement")
        out[s.retired] = s
    return out


def _signed_by_both(s: translog.Retirement, keys: Mapping[str, bytes], where: str) -> None:
    body = s.body()
    for role, kid, signature in (
        ("retired", s.retired, s.retired_signature),
        ("successor", s.successor, s.successor_signature),
    ):
        if not _verifies(keys[kid], signature, body):
            raise LogFailure(f"{where} of key {s.retired} is not signed by its {role} key {kid}")


def head_problem(head: translog.TreeHead, keys: KeySet) -> str | None:
    """Why a tree head is not to be trusted, or None: signed by a given key that is not
    retired (a retired key could sign any head after its retirement)."""
    public = keys.keys.get(head.key_id)
    if public is None:
        return f"the tree head of log {head.log_id} is not signed by a given key"
    if head.key_id in keys.retired:
        return (
            f"the tree head of log {head.log_id} is signed by retired key {head.key_id}: "
            "re-export, or verify with --target"
        )
    if not _verifies(public, head.signature, head.body()):
        return f"the tree head of log {head.log_id} does not verify with key {head.key_id}"
    return None


# --- the seals against the log ----------------------------------------------------------------


@dataclass(frozen=True)
class Placed:
    seal: SealRef
    log_id: str
    index: int
    size: int  # the trusted head's


def check_seals(seals: Sequence[SealRef], sources: Sequence[LogProofs], keys: KeySet) -> str:
    """Every seal included in a trusted head (from the first source that proves it), and each
    seal by a retired key below its retirement's size. Returns the verify line's words;
    raises LogFailure with the first seal that fails."""
    if not sources:
        for seal in seals:
            _retired_rule(seal, None, keys, "no tree head proves it is in the log")
        return "transparency log: not checked (no log line)"
    placed: list[Placed] = []
    for i, seal in enumerate(seals):
        found, problem = None, ""
        for source in sources:
            found, problem = _proven(seal, i, len(seals), source, keys)
            if found is not None:
                break
        if found is None:
            _retired_rule(seal, None, keys, f"no tree head proves it is in the log ({problem})")
            raise LogFailure(f"{seal.where} is not in the log: {problem}")
        _retired_rule(seal, found, keys, "")
        placed.append(found)
    return _words(placed, keys)


def _proven(
    seal: SealRef, i: int, count: int, source: LogProofs, keys: KeySet
) -> tuple[Placed | None, str]:
    if source.missing:
        return None, source.missing
    if len(source.inclusions) != count:
        return None, f"{source.source} has {len(source.inclusions)} inclusions for {count} seals"
    entry = source.inclusions[i]
    if (entry.id, entry.first, entry.last) != (seal.id, seal.first, seal.last):
        return None, (
            f"{source.source}'s entry {i + 1} names {entry.id} versions {entry.first}..{entry.last}"
        )
    head = next((h for h in source.heads if h.log_id == entry.log_id), None)
    if head is None:
        return None, f"{source.source} has no tree head of log {entry.log_id}"
    untrusted = head_problem(head, keys)
    if untrusted is not None:
        return None, untrusted
    try:
        translog.verify_inclusion(
            entry.index, head.size, seal.leaf, entry.path, bytes.fromhex(head.root)
        )
    except translog.ProofError as exc:
        return None, f"{source.source}: {exc}"
    return Placed(seal, entry.log_id, entry.index, head.size), ""


def _retired_rule(seal: SealRef, placed: Placed | None, keys: KeySet, missing: str) -> None:
    """A seal by a retired key counts only at an index below its retirement's size."""
    if seal.key_id not in keys.retired:
        return
    statement = keys.retirements.get(seal.key_id)
    if statement is None:
        return  # retired before the log: named in the verify line, stands on the key alone
    start = f"{seal.where} is signed by retired key {seal.key_id}, retired at {_sizes(statement)}: "
    if placed is None:
        raise LogFailure(start + missing)
    limit = statement.size_of(placed.log_id)
    if placed.log_id not in dict(statement.logs):
        raise LogFailure(start + f"log {placed.log_id} is not one of the logs it was retired in")
    if placed.index >= limit:
        raise LogFailure(start + f"its leaf is at index {placed.index} of log {placed.log_id}")


def _sizes(statement: translog.Retirement) -> str:
    if len(statement.logs) == 1:
        return f"tree size {statement.logs[0][1]}"
    return "tree sizes " + ", ".join(f"{n} (log {i})" for i, n in statement.logs)


def _words(placed: list[Placed], keys: KeySet) -> str:
    logs: dict[str, int] = {}
    for p in placed:
        logs[p.log_id] = p.size
    where = ", ".join(f"log {i} at size {n}" for i, n in logs.items())
    words = f"transparency log: all {len(placed)} seals in {where}"
    signers = {p.seal.key_id for p in placed} & keys.retired
    for kid in sorted(signers & set(keys.retirements)):
        words += f"; key {kid} retired at {_sizes(keys.retirements[kid])}: its seals are below it"
    legacy = sorted(signers - set(keys.retirements))
    for kid in legacy:
        words += (
            f"; key {kid} retired with no statement of the log's size (a rotation before the "
            "transparency log): its seals stand on the key alone"
        )
    return words


# --- tree heads seen ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Fork:
    """Two validly signed heads of one log and size with different roots."""

    log_id: str
    size: int
    heads: tuple[tuple[str, translog.TreeHead], tuple[str, translog.TreeHead]]  # (source, head)


def forks(heads: Iterable[tuple[str, translog.TreeHead]], keys: KeySet) -> list[Fork]:
    """Every pair of signed heads (by a given key, whether retired or not: each was the
    server's word when signed) of one log and size whose roots differ; heads that do not
    verify are left out (anybody can write one)."""
    first: dict[tuple[str, int], tuple[str, translog.TreeHead]] = {}
    found: list[Fork] = []
    for source, head in heads:
        public = keys.keys.get(head.key_id)
        if public is None or not _verifies(public, head.signature, head.body()):
            continue
        key = (head.log_id, head.size)
        seen = first.setdefault(key, (source, head))
        if seen[1].root != head.root and not any(
            f.log_id == head.log_id and f.size == head.size for f in found
        ):
            found.append(Fork(head.log_id, head.size, (seen, (source, head))))
    return found
