"""The transparency log's tree (domain/translog.py) against the certificate transparency
reference vectors (RFC 6962 / RFC 9162 §2.1, as the CT reference implementation and
transparency-dev/merkle's testonly constants pin them), every proof of every small tree
round-tripped, and a tampered proof refused; then the log's own statements, byte for byte
as docs/api.md ("Transparency log") gives them."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain import translog as T

CT_LEAVES = [
    b"",
    b"\x00",
    b"\x10",
    b"\x20\x21",
    b"\x30\x31",
    b"\x40\x41\x42\x43",
    b"\x50\x51\x52\x53\x54\x55\x56\x57",
    bytes(range(0x60, 0x70)),
]
CT_ROOTS = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
# (leaf index, tree size): the audit path
CT_INCLUSION = {
    (0, 8): [
        "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
        "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ],
    (5, 8): [
        "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ],
    (2, 3): ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"],
    (1, 5): [
        "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
        "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    ],
}
# (old size, new size): the consistency proof
CT_CONSISTENCY = {
    (1, 1): [],
    (1, 8): [
        "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
        "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ],
    (6, 8): [
        "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
        "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ],
    (2, 5): [
        "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
        "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    ],
}

HASHES = [T.leaf_hash(d) for d in CT_LEAVES]


def hexes(path: list[bytes]) -> list[str]:
    return [p.hex() for p in path]


def raw(path: list[str]) -> list[bytes]:
    return [bytes.fromhex(p) for p in path]


@pytest.mark.parametrize("size", range(len(CT_ROOTS)))
def test_the_root_of_each_reference_tree(size: int) -> None:
    assert T.root(HASHES[:size]).hex() == CT_ROOTS[size]


@pytest.mark.parametrize(("index", "size"), sorted(CT_INCLUSION))
def test_the_reference_inclusion_proofs(index: int, size: int) -> None:
    path = T.inclusion_proof(index, HASHES[:size])
    assert hexes(path) == CT_INCLUSION[(index, size)]
    T.verify_inclusion(index, size, HASHES[index], path, bytes.fromhex(CT_ROOTS[size]))


@pytest.mark.parametrize(("old", "new"), sorted(CT_CONSISTENCY))
def test_the_reference_consistency_proofs(old: int, new: int) -> None:
    path = T.consistency_proof(old, HASHES[:new])
    assert hexes(path) == CT_CONSISTENCY[(old, new)]
    T.verify_consistency(old, new, bytes.fromhex(CT_ROOTS[old]), bytes.fromhex(CT_ROOTS[new]), path)


def test_every_proof_of_every_tree_up_to_33_leaves_round_trips() -> None:
    leaves = [T.leaf_hash(i.to_bytes(4, "big")) for i in range(33)]
    for n in range(1, 34):
        top = T.root(leaves[:n])
        for m in range(n):
            T.verify_inclusion(m, n, leaves[m], T.inclusion_proof(m, leaves[:n]), top)
        for m in range(1, n + 1):
            old = T.root(leaves[:m])
            T.verify_consistency(m, n, old, top, T.consistency_proof(m, leaves[:n]))


def test_a_growing_tree_has_the_roots_of_the_reference_trees() -> None:
    tree = T.Tree()
    assert tree.root().hex() == CT_ROOTS[0]
    for n, leaf in enumerate(HASHES, start=1):
        tree.append(leaf)
        assert tree.root().hex() == CT_ROOTS[n]
        assert tree.root(n - 1).hex() == CT_ROOTS[n - 1]
    assert tree.inclusion_proof(5, 8) == raw(CT_INCLUSION[(5, 8)])
    assert tree.consistency_proof(6, 8) == raw(CT_CONSISTENCY[(6, 8)])


def test_a_growing_tree_gives_the_proofs_of_the_rfcs_recursion_for_every_size() -> None:
    """Tree's O(log² n) roots and proofs against the RFC's recursive definitions, for every
    size, index and pair of sizes up to 70 leaves."""
    tree = T.Tree()
    leaves = [T.leaf_hash(i.to_bytes(2, "big")) for i in range(70)]
    for leaf in leaves:
        tree.append(leaf)
    for n in range(1, 71):
        assert tree.root(n) == T.root(leaves[:n])
        for m in range(n):
            assert tree.inclusion_proof(m, n) == T.inclusion_proof(m, leaves[:n]), (m, n)
        for m in range(1, n + 1):
            assert tree.consistency_proof(m, n) == T.consistency_proof(m, leaves[:n]), (m, n)


def test_a_tampered_proof_is_refused() -> None:
    seed = random.randrange(2**32)
    print("seed", seed)
    rng = random.Random(seed)
    leaves = [T.leaf_hash(bytes([i])) for i in range(21)]
    for _ in range(200):
        n = rng.randrange(2, 22)
        m = rng.randrange(n)
        top = T.root(leaves[:n])
        path = T.inclusion_proof(m, leaves[:n])
        if path:
            bad = list(path)
            bad[rng.randrange(len(bad))] = b"\x11" * 32
            with pytest.raises(T.ProofError):
                T.verify_inclusion(m, n, leaves[m], bad, top)
        with pytest.raises(T.ProofError):  # the proof for another index
            T.verify_inclusion((m + 1) % n, n, leaves[m], path, top)
        old = rng.randrange(1, n)
        cons = T.consistency_proof(old, leaves[:n])
        with pytest.raises(T.ProofError):  # a fork: another root at the old size
            T.verify_consistency(old, n, b"\x22" * 32, top, cons)
        with pytest.raises(T.ProofError):  # one hash too few
            T.verify_consistency(old, n, T.root(leaves[:old]), top, cons[:-1])


def test_one_size_with_two_roots_is_inconsistent() -> None:
    with pytest.raises(T.ProofError, match="two roots for tree size 4"):
        T.verify_consistency(4, 4, HASHES[0], HASHES[1], [])


def test_proofs_out_of_bounds_are_refused_not_crashed() -> None:
    with pytest.raises(T.ProofError):
        T.verify_inclusion(8, 8, HASHES[0], [], HASHES[0])
    with pytest.raises(T.ProofError):
        T.verify_inclusion(0, 8, HASHES[0], [HASHES[0]] * 100, HASHES[0])
    with pytest.raises(T.ProofError, match="too short"):  # a leaf passed off as a root
        T.verify_inclusion(0, 2, HASHES[0], [], HASHES[0])
    with pytest.raises(T.ProofError):
        T.verify_consistency(0, 8, HASHES[0], HASHES[0], [])
    with pytest.raises(T.ProofError):
        T.verify_consistency(9, 8, HASHES[0], HASHES[0], [])


VECTORS = Path(__file__).parents[2] / "docs" / "api.md"


def doc_vectors() -> dict[str, object]:
    text = VECTORS.read_text(encoding="utf-8")
    start = text.index("<!-- log-test-vectors -->")
    block = text[start:].split("```json\n", 1)[1].split("```", 1)[0]
    loaded: dict[str, object] = json.loads(block)
    return loaded


def test_the_documented_log_vectors() -> None:
    """docs/api.md's test vectors are what this module computes."""
    v = doc_vectors()
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(str(v["private_key_seed"])))
    successor = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(str(v["successor_seed"])))
    seal = str(v["seal_signed_bytes"]).encode()
    leaf = T.leaf_data(seal, str(v["key_id"]))
    assert leaf.decode() == v["leaf_data"]
    assert T.leaf_hash(leaf).hex() == v["leaf_hash"]
    assert hashlib.sha256(seal).hexdigest() in leaf.decode()
    head = v["tree_head"]
    assert isinstance(head, dict)
    body = T.tree_head_body(head["log_id"], head["root"], head["size"], head["timestamp"])
    assert body.decode() == v["tree_head_signed_bytes"]
    assert key.sign(body).hex() == head["signature"]
    ret = v["retirement"]
    assert isinstance(ret, dict)
    body = T.retirement_body(ret["logs"], ret["retired"], ret["successor"], ret["timestamp"])
    assert body.decode() == v["retirement_signed_bytes"]
    assert key.sign(body).hex() == ret["retired_signature"]
    assert successor.sign(body).hex() == ret["successor_signature"]
