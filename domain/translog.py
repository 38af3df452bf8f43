"""The transparency log: an append-only Merkle tree of every seal (docs/api.md, "Transparency log").

Tree hashing, inclusion and consistency proofs are RFC 9162 §2.1 (the same as RFC 6962):
a leaf's hash is SHA-256(0x00 || leaf data), an inner node's SHA-256(0x01 || left || right),
the empty tree's SHA-256(""). The proofs are generated as §2.1.3.1 / §2.1.4.1 define them and
checked by the algorithms of §2.1.3.2 / §2.1.4.2, written out here (no maintained Python
library implements RFC 9162 proofs; tests/domain/test_translog.py runs the certificate
transparency reference vectors).

On top of the tree, the statements the server signs about it: a leaf per seal
(``leaf_data``), the signed tree head (``tree_head_body``) and a key's retirement
(``retirement_body``), each a prefix line and canonical JSON, like the seals themselves.
Pure: no I/O, no clock (times are given).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from domain.codec import canonical

LEAF_PREFIX = b"tabletop-log-leaf/1\n"
TREE_HEAD_PREFIX = b"tabletop-tree-head/1\n"
RETIREMENT_PREFIX = b"tabletop-key-retirement/1\n"
MAX_PROOF = 64  # hashes: a tree of 2**63 leaves needs at most 63 (a parser's bound)


class ProofError(ValueError):
    """A proof that does not verify; the message says which check failed."""


# --- RFC 9162 §2.1.1: the Merkle tree hash ---------------------------------------------------


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


EMPTY_ROOT = hashlib.sha256(b"").digest()


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (n > 1): where MTH splits D[n]."""
    return 1 << ((n - 1).bit_length() - 1)


def root(leaves: Sequence[bytes]) -> bytes:
    """MTH over leaf *hashes* (``leaf_hash`` of each entry)."""
    if not leaves:
        return EMPTY_ROOT
    level = list(leaves)
    # bottom-up pairing gives the same tree as §2.1.1's split at the largest power of two:
    # an odd node at the end of a level is carried up unchanged
    while len(level) > 1:
        paired = [node_hash(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
    return level[0]


class _Hashes:
    """A list of 32-byte hashes packed in one bytearray: 32 bytes a hash, where a list of
    ``bytes`` objects costs about 73 (the object and its pointer), so a replica's log holds
    a million seals in about 64 MB (leaves and their subtrees) instead of 150."""

    __slots__ = ("_data",)

    def __init__(self) -> None:
        self._data = bytearray()

    def __len__(self) -> int:
        return len(self._data) // 32

    def __getitem__(self, i: int) -> bytes:
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return bytes(self._data[32 * i : 32 * i + 32])

    def append(self, h: bytes) -> None:
        if len(h) != 32:
            raise ValueError("a log hash is 32 bytes")
        self._data += h

    def to_list(self) -> list[bytes]:
        return [bytes(self._data[i : i + 32]) for i in range(0, len(self._data), 32)]


class Tree:
    """A growing log's leaf hashes with the root of every complete, aligned subtree of 2, 4,
    8 ... leaves (``levels[k][i]`` covers leaves ``i * 2**k`` to ``(i + 1) * 2**k - 1``),
    kept as leaves are appended (about one node per leaf). Every subtree RFC 9162's tree of
    any size splits into is such a node or a right fold of a few of them, so roots and
    proofs for any size take O(log² n) hashing, not O(n) (the functions above give the same
    results from a list of leaves, and the tests hold the two against each other)."""

    def __init__(self) -> None:
        self.levels: list[_Hashes] = [_Hashes()]

    @property
    def leaves(self) -> list[bytes]:
        return self.levels[0].to_list()

    def __len__(self) -> int:
        return len(self.levels[0])

    def append(self, leaf: bytes) -> None:
        self.levels[0].append(leaf)
        k = 0
        while len(self.levels[k]) % 2 == 0:  # a pair completed: its parent is complete too
            if len(self.levels) == k + 1:
                self.levels.append(_Hashes())
            self.levels[k + 1].append(node_hash(self.levels[k][-2], self.levels[k][-1]))
            k += 1

    def root(self, size: int | None = None) -> bytes:
        """The root of the first ``size`` leaves (all of them by default)."""
        size = len(self) if size is None else size
        if not 0 <= size <= len(self):
            raise ValueError(f"no tree of size {size} in a log of {len(self)}")
        return self._range(0, size) if size else EMPTY_ROOT

    def _range(self, lo: int, hi: int) -> bytes:
        """MTH(D[lo:hi]) for a range RFC 9162's split makes (``lo`` a multiple of the
        largest power of two below ``hi - lo``): the right fold of the complete subtrees of
        its binary decomposition, largest first."""
        pieces, pos = [], lo
        for k in reversed(range((hi - lo).bit_length())):
            if (hi - lo) >> k & 1:
                pieces.append(self.levels[k][pos >> k])
                pos += 1 << k
        top = pieces[-1]
        for left in reversed(pieces[:-1]):
            top = node_hash(left, top)
        return top

    def inclusion_proof(self, index: int, size: int) -> list[bytes]:
        """PATH(index, D[size]) (§2.1.3.1)."""
        if not 0 <= index < size <= len(self):
            raise ValueError(f"leaf index {index} is not in a tree of size {size}")
        out: list[bytes] = []
        lo, hi = 0, size
        while hi - lo > 1:  # PATH(m, D[n]) = PATH(m, D[0:k]) : MTH(D[k:n]), or the mirror
            k = lo + _split(hi - lo)
            if index < k:
                out.append(self._range(k, hi))
                hi = k
            else:
                out.append(self._range(lo, k))
                lo = k
        return out[::-1]

    def consistency_proof(self, old_size: int, size: int) -> list[bytes]:
        """PROOF(old_size, D[size]) (§2.1.4.1)."""
        if not 0 < old_size <= size <= len(self):
            raise ValueError(f"no consistency proof from size {old_size} to {size}")
        out: list[bytes] = []
        lo, hi, m, whole = 0, size, old_size, True
        while True:  # SUBPROOF(m, D[lo:hi], whole), its recursion unrolled
            if m == hi - lo:
                if not whole:
                    out.append(self._range(lo, hi))
                return out[::-1]
            k = _split(hi - lo)
            if m <= k:
                out.append(self._range(lo + k, hi))
                hi = lo + k
            else:
                out.append(self._range(lo, lo + k))
                lo, m, whole = lo + k, m - k, False


# --- RFC 9162 §2.1.3.1 and §2.1.4.1: making proofs ------------------------------------------


def inclusion_proof(index: int, leaves: Sequence[bytes]) -> list[bytes]:
    """PATH(m, D[n]): the audit path of leaf ``index`` in the tree of ``leaves`` (hashes)."""
    if not 0 <= index < len(leaves):
        raise ValueError(f"leaf index {index} is not in a tree of size {len(leaves)}")
    return _path(index, leaves)


def _path(m: int, d: Sequence[bytes]) -> list[bytes]:
    if len(d) == 1:
        return []
    k = _split(len(d))
    if m < k:
        return [*_path(m, d[:k]), root(d[k:])]
    return [*_path(m - k, d[k:]), root(d[:k])]


def consistency_proof(old_size: int, leaves: Sequence[bytes]) -> list[bytes]:
    """PROOF(m, D[n]): the consistency proof from size ``old_size`` to ``len(leaves)``."""
    if not 0 < old_size <= len(leaves):
        raise ValueError(f"no consistency proof from size {old_size} to {len(leaves)}")
    return _subproof(old_size, leaves, True)


def _subproof(m: int, d: Sequence[bytes], whole: bool) -> list[bytes]:
    n = len(d)
    if m == n:
        return [] if whole else [root(d)]
    k = _split(n)
    if m <= k:
        return [*_subproof(m, d[:k], whole), root(d[k:])]
    return [*_subproof(m - k, d[k:], False), root(d[:k])]


# --- RFC 9162 §2.1.3.2 and §2.1.4.2: checking proofs ----------------------------------------


def root_from_inclusion(index: int, size: int, leaf: bytes, path: Sequence[bytes]) -> bytes:
    """The root that ``path`` proves leaf hash ``leaf`` at ``index`` into (§2.1.3.2)."""
    if not 0 <= index < size:
        raise ProofError(f"leaf index {index} is not below tree size {size}")
    if len(path) > MAX_PROOF:
        raise ProofError("the inclusion proof is too long")
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            raise ProofError("the inclusion proof is too long for the tree size")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn & 1 == 0 and fn != 0:
                    fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError("the inclusion proof is too short for the tree size")
    return r


def verify_inclusion(
    index: int, size: int, leaf: bytes, path: Sequence[bytes], want: bytes
) -> None:
    if root_from_inclusion(index, size, leaf, path) != want:
        raise ProofError(f"leaf {index} is not in the tree of size {size} with that root")


def verify_consistency(
    old_size: int, new_size: int, old_root: bytes, new_root: bytes, path: Sequence[bytes]
) -> None:
    """§2.1.4.2: ``path`` proves the tree ``old_root`` of ``old_size`` is a prefix of the tree
    ``new_root`` of ``new_size``; raises ProofError saying what fails."""
    if not 0 < old_size <= new_size:
        raise ProofError(f"no consistency between sizes {old_size} and {new_size}")
    if len(path) > MAX_PROOF:
        raise ProofError("the consistency proof is too long")
    if old_size == new_size:
        if path or old_root != new_root:
            raise ProofError(f"two roots for tree size {old_size}")
        return
    if not path:
        raise ProofError("the consistency proof is empty")
    proof = list(path)
    if old_size & (old_size - 1) == 0:  # a power of two: the old root is the first node
        proof.insert(0, old_root)
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = proof[0]
    for c in proof[1:]:
        if sn == 0:
            raise ProofError("the consistency proof is too long")
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            if not fn & 1:
                while fn & 1 == 0 and fn != 0:
                    fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError("the consistency proof is too short")
    if fr != old_root:
        raise ProofError(f"the tree of size {new_size} does not extend the root of size {old_size}")
    if sr != new_root:
        raise ProofError(f"the consistency proof does not give the root of size {new_size}")


# --- what the server signs about the log ----------------------------------------------------


def leaf_data(signed_bytes: bytes, key_id: str) -> bytes:
    """A seal's leaf: the SHA-256 of the seal's signed bytes and the id of the signing key."""
    body = {"body": hashlib.sha256(signed_bytes).hexdigest(), "key_id": key_id}
    return LEAF_PREFIX + canonical(body).encode()


@dataclass(frozen=True)
class TreeHead:
    """A signed tree head: the log, its size and root at a time, and the signature."""

    log_id: str
    size: int
    root: str  # lowercase hex
    timestamp: int  # ms since the epoch
    key_id: str = ""
    signature: str = ""  # lowercase hex

    def body(self) -> bytes:
        return tree_head_body(self.log_id, self.root, self.size, self.timestamp)

    def to_json(self) -> dict[str, object]:
        return {
            "key_id": self.key_id,
            "log_id": self.log_id,
            "root": self.root,
            "signature": self.signature,
            "size": self.size,
            "timestamp": self.timestamp,
        }


def tree_head_body(log_id: str, root_hex: str, size: int, timestamp: int) -> bytes:
    body = {"log_id": log_id, "root": root_hex, "size": size, "timestamp": timestamp}
    return TREE_HEAD_PREFIX + canonical(body).encode()


@dataclass(frozen=True)
class Retirement:
    """A key's retirement: the logs' sizes when it was retired, signed by it and its successor.
    A seal by ``retired`` counts only if its leaf is at an index below ``logs[log_id]``."""

    logs: tuple[tuple[str, int], ...]  # (log id, size), sorted by log id
    retired: str  # key id
    successor: str  # key id
    timestamp: int  # ms since the epoch
    retired_signature: str = ""  # hex, by the retired key
    successor_signature: str = ""  # hex, by the successor

    def body(self) -> bytes:
        return retirement_body(dict(self.logs), self.retired, self.successor, self.timestamp)

    def size_of(self, log_id: str) -> int:
        """The log's size at retirement: 0 for a log the statement does not name."""
        return dict(self.logs).get(log_id, 0)

    def to_json(self) -> dict[str, object]:
        return {
            "logs": dict(self.logs),
            "retired": self.retired,
            "retired_signature": self.retired_signature,
            "successor": self.successor,
            "successor_signature": self.successor_signature,
            "timestamp": self.timestamp,
        }


def retirement_body(logs: dict[str, int], retired: str, successor: str, timestamp: int) -> bytes:
    body = {"logs": logs, "retired": retired, "successor": successor, "timestamp": timestamp}
    return RETIREMENT_PREFIX + canonical(body).encode()
