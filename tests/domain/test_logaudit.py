"""domain/logaudit.py: the export's log line read by its grammar, and a record's seals held
against the log with the retired-key rule, each failure named; built here from a small log of
signed seals, without a server."""

from __future__ import annotations

import copy
import uuid
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain import logaudit as L
from domain import translog as T
from domain.table import records
from domain.table.records import canonical

LOG = str(uuid.UUID(int=10, version=4))
GAME = str(uuid.UUID(int=1, version=4))


class Key:
    def __init__(self, seed: int) -> None:
        self.key = Ed25519PrivateKey.from_private_bytes(bytes([seed]) * 32)
        self.public = self.key.public_key().public_bytes_raw()
        self.id = records.key_id(self.public)

    def sign(self, body: bytes) -> str:
        return self.key.sign(body).hex()


OLD, NEW, THIEF = Key(1), Key(2), Key(3)


def seal(first: int, key: Key) -> dict[str, Any]:
    head, hashes = f"{first:064x}", [["0" * 64]] * 3
    body = records.seal_body(GAME, first, first, head, hashes)
    return {
        "game_id": GAME,
        "first": first,
        "last": first,
        "head": head,
        "receipts": hashes,
        "signature": key.sign(body),
        "key_id": key.id,
    }


def logged(seals: list[dict[str, Any]], signer: Key, before: int = 0) -> L.LogProofs:
    """A log of ``before`` other leaves then the seals, with a head signed by ``signer``."""
    tree = T.Tree()
    for i in range(before):
        tree.append(T.leaf_hash(bytes([i])))
    refs = L.seal_refs(seals)
    for ref in refs:
        tree.append(ref.leaf)
    head = T.TreeHead(LOG, len(tree), tree.root().hex(), 1, signer.id)
    head = T.TreeHead(**{**head.__dict__, "signature": signer.sign(head.body())})
    inclusions = tuple(
        L.Inclusion(
            r.first,
            r.id,
            before + i,
            r.last,
            LOG,
            tuple(tree.inclusion_proof(before + i, len(tree))),
        )
        for i, r in enumerate(refs)
    )
    return L.LogProofs((head,), inclusions)


def retired_at(size: int) -> L.KeySet:
    """OLD retired for NEW when the log held ``size`` leaves."""
    plain = T.Retirement(((LOG, size),), OLD.id, NEW.id, 5)
    body = plain.body()
    stated = T.Retirement(((LOG, size),), OLD.id, NEW.id, 5, OLD.sign(body), NEW.sign(body))
    keys = {OLD.id: OLD.public, NEW.id: NEW.public}
    return L.KeySet(keys, frozenset({OLD.id}), L.checked_retirements(keys, [stated]))


def test_a_log_line_round_trips_through_its_grammar() -> None:
    proofs = logged([seal(1, NEW), seal(2, NEW)], NEW)
    line = L.log_line(proofs)
    again = L.parse_log_line(L.log_line(L.parse_log_line(line, "line 3")), "line 3")
    assert canonical(L.log_line(again)) == canonical(line)


@pytest.mark.parametrize(
    "bend",
    [
        lambda d: d.update(extra=1),
        lambda d: d["log"].update(more=[]),
        lambda d: d["log"]["heads"][0].update(extra=1),
        lambda d: d["log"]["heads"][0].update(root="AB" * 32),
        lambda d: d["log"]["heads"][0].update(size=-1),
        lambda d: d["log"]["heads"].append(dict(d["log"]["heads"][0])),  # one log twice
        lambda d: d["log"]["inclusions"][0].update(path=["00" * 32] * 65),
        lambda d: d["log"]["inclusions"][0].update(index="0"),
        lambda d: d["log"]["inclusions"][0].pop("log_id"),
    ],
)
def test_a_bent_log_line_is_refused_by_its_grammar(bend: Any) -> None:
    line = copy.deepcopy(L.log_line(logged([seal(1, NEW)], NEW)))
    bend(line)
    with pytest.raises(L.LogFailure, match="line 9"):
        L.parse_log_line(line, "line 9")


def test_seals_in_a_trusted_head_verify() -> None:
    seals = [seal(1, NEW), seal(2, NEW)]
    words = L.check_seals(L.seal_refs(seals), [logged(seals, NEW)], L.KeySet.plain([NEW.public]))
    assert words == f"transparency log: all 2 seals in log {LOG} at size 2"


def test_a_seal_by_a_retired_key_counts_only_below_the_stated_size() -> None:
    seals = [seal(1, OLD)]
    refs = L.seal_refs(seals)
    below = logged(seals, NEW, before=3)  # index 3 in a log retired at size 4
    assert "all 1 seals" in L.check_seals(refs, [below], retired_at(4))
    with pytest.raises(
        L.LogFailure,
        match=f"signed by retired key {OLD.id}, retired at tree size 3: its leaf is at index 3",
    ):
        L.check_seals(refs, [below], retired_at(3))  # a thief's game, logged after
    with pytest.raises(L.LogFailure, match="retired at tree size 9: no tree head proves it"):
        L.check_seals(refs, [], retired_at(9))  # no log line at all
    # the thief's own log, signed with the retired key: its heads prove nothing
    with pytest.raises(L.LogFailure, match="signed by retired key .* no tree head proves it"):
        L.check_seals(refs, [logged(seals, OLD)], retired_at(9))


def test_a_missing_or_bent_inclusion_fails() -> None:
    seals = [seal(1, NEW), seal(2, NEW)]
    proofs = logged(seals, NEW)
    keys = L.KeySet.plain([NEW.public])
    short = L.LogProofs(proofs.heads, proofs.inclusions[:1])
    with pytest.raises(L.LogFailure, match="versions 1..1 is not in the log: the log line has 1"):
        L.check_seals(L.seal_refs(seals), [short], keys)
    bent = L.Inclusion(**{**proofs.inclusions[1].__dict__, "path": (b"\x00" * 32,)})
    with pytest.raises(L.LogFailure, match="versions 2..2 is not in the log"):
        L.check_seals(
            L.seal_refs(seals), [L.LogProofs(proofs.heads, (proofs.inclusions[0], bent))], keys
        )
    with pytest.raises(L.LogFailure, match="not signed by a given key"):
        L.check_seals(L.seal_refs(seals), [logged(seals, THIEF)], keys)


def test_a_retirement_must_be_signed_by_both_keys() -> None:
    body = T.retirement_body({LOG: 1}, OLD.id, NEW.id, 5)
    keys = {OLD.id: OLD.public, NEW.id: NEW.public}
    one = T.Retirement(((LOG, 1),), OLD.id, NEW.id, 5, OLD.sign(body), THIEF.sign(body))
    with pytest.raises(L.LogFailure, match="is not signed by its successor key"):
        L.checked_retirements(keys, [one])


def test_two_signed_heads_of_one_size_are_a_fork_and_unsigned_ones_are_not() -> None:
    a = logged([seal(1, NEW)], NEW).heads[0]
    b = T.TreeHead(a.log_id, a.size, "ab" * 32, 2, NEW.id)
    b = T.TreeHead(**{**b.__dict__, "signature": NEW.sign(b.body())})
    keys = L.KeySet.plain([NEW.public])
    (fork,) = L.forks([("x", a), ("y", b)], keys)
    assert (fork.log_id, fork.size) == (LOG, 1)
    unsigned = T.TreeHead(**{**b.__dict__, "signature": "00" * 64})
    assert L.forks([("x", a), ("y", unsigned)], keys) == []
