"""The auditor's side of the transparency log (docs/api.md, "Transparency log"): the server's
key set with its retirements (from the server, or a key set file), the proofs a server serves
for a record's seals, the export's log line, and the tree heads this auditor has seen. The
checks themselves are domain/logaudit.py."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import grpc

from clients.python.client import TableClient
from domain import translog
from domain.logaudit import (
    Fork,
    Inclusion,
    KeySet,
    LogFailure,
    LogProofs,
    forks,
    parse_head,
    parse_key_set,
)
from domain.table.records import canonical
from domain.verify import MatchRecord, Record, strict_json
from tabletop.v1 import tabletop_pb2 as pb


def head_of(msg: pb.TreeHead) -> translog.TreeHead:
    return translog.TreeHead(
        msg.log_id, msg.size, msg.root.hex(), msg.timestamp_ms, msg.key_id, msg.signature.hex()
    )


def retirement_of(msg: pb.KeyRetirement) -> translog.Retirement:
    return translog.Retirement(
        tuple(sorted(msg.logs.items())),
        msg.retired,
        msg.successor,
        msg.timestamp_ms,
        msg.retired_signature.hex(),
        msg.successor_signature.hex(),
    )


def key_set_json(reply: pb.GetSigningKeyResponse) -> dict[str, Any]:
    """``tabletop-audit key --json``: the key set file ``--keys`` reads."""
    return {
        "key_id": reply.key_id,
        "public_key": reply.public_key.hex(),
        "retired": [{"key_id": k.key_id, "public_key": k.public_key.hex()} for k in reply.retired],
        "retirements": [retirement_of(r).to_json() for r in reply.retirements],
        "tree_heads": [head_of(h).to_json() for h in reply.tree_heads],
    }


def key_set(reply: pb.GetSigningKeyResponse) -> KeySet:
    """The key set a server publishes (GetSigningKey), by the key set's grammar."""
    return parse_key_set(key_set_json(reply), "the server's key set")


def key_set_file(path: str) -> KeySet:
    """``--keys FILE``: what ``tabletop-audit key --json`` printed: UTF-8, one JSON value read
    as the verifier reads an export line, by the key set's grammar (docs/api.md)."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise LogFailure(f"cannot read the key set {path}: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise LogFailure("the key set is not UTF-8") from None
    try:
        data = strict_json(text)
    except (ValueError, RecursionError) as exc:
        raise LogFailure(f"the key set is not JSON ({exc or 'nested too deeply'})") from None
    return parse_key_set(data, "the key set")


# --- proofs from a server -----------------------------------------------------------------


def server_proofs(client: TableClient, records: Iterable[tuple[str, str]]) -> LogProofs:
    """Every seal's inclusion from the server (GetInclusionProof), for each (kind, id) of the
    record ("game" or "match"), all against one head per log. An unknown record has no
    proofs (the server does not know it: a record another server made)."""
    heads: dict[str, translog.TreeHead] = {}
    inclusions: list[Inclusion] = []
    for kind, rid in records:
        asked = pb.GetInclusionProofRequest(**{f"{kind}_id": rid})
        try:
            reply = client.stub.GetInclusionProof(asked)
            head = head_of(reply.tree_head)
            if head.log_id in heads and heads[head.log_id].size != head.size:
                asked.tree_size = heads[head.log_id].size  # one head a log
                reply = client.stub.GetInclusionProof(asked)
                head = head_of(reply.tree_head)
        except grpc.RpcError as exc:
            if exc.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.UNIMPLEMENTED):
                return LogProofs(
                    (), (), "the server", f"the server does not know it: {exc.details()}"
                )
            raise
        heads.setdefault(head.log_id, head)
        inclusions += [
            Inclusion(x.first, rid, x.index, x.last, head.log_id, tuple(x.path))
            for x in reply.inclusions
        ]
    return LogProofs(tuple(heads.values()), tuple(inclusions), "the server")


def game_seals(records: list[Record]) -> list[dict[str, Any]]:
    return [r.seal for r in records if r.seal is not None]


def match_seals(facts: list[MatchRecord], hands: dict[str, list[Record]]) -> list[dict[str, Any]]:
    """A match export's seals in its order: the match's, then each hand's."""
    out = [f.seal for f in facts if f.seal is not None]
    for records in hands.values():
        out += game_seals(records)
    return out


def export_log_line(client: TableClient, records: Iterable[tuple[str, str]]) -> str:
    """``tabletop-audit export``'s last line (LogFailure: the server has no proofs of the
    record, a server without the log or a record it does not know)."""
    from domain.logaudit import log_line

    proofs = server_proofs(client, records)
    if proofs.missing:
        raise LogFailure(f"no proof of its seals in the transparency log ({proofs.missing})")
    return canonical(log_line(proofs))


# --- tree heads seen --------------------------------------------------------------------------


def read_heads(path: str) -> Iterator[tuple[str, translog.TreeHead]]:
    """``--heads FILE``: JSON Lines of tree heads (a missing file holds none)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return
    except (OSError, UnicodeDecodeError) as exc:
        raise LogFailure(f"cannot read the tree heads {path}: {exc}") from None
    for n, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                data = json.loads(line)
            except ValueError:
                raise LogFailure(f"{path} line {n} is not JSON") from None
            yield f"{path} line {n}", parse_head(data, f"{path} line {n}")


def keep_heads(path: str, heads: Iterable[translog.TreeHead]) -> None:
    """Add the heads not yet in ``path``."""
    known = {canonical(h.to_json()) for _, h in read_heads(path)}
    fresh = [canonical(h.to_json()) for h in heads]
    with open(path, "a", encoding="utf-8") as f:
        for line in fresh:
            if line not in known:
                f.write(line + "\n")
                known.add(line)


def check_consistent(
    client: TableClient | None, seen: list[tuple[str, translog.TreeHead]], new: translog.TreeHead
) -> None:
    """A head of another size than one seen before must extend it (or be extended by it):
    checked with the server's consistency proof where there is a server to ask."""
    for where, old in seen:
        if old.log_id != new.log_id or old.size == new.size or client is None:
            continue
        small, big = (old, new) if old.size < new.size else (new, old)
        if small.size == 0:
            continue
        reply = client.stub.GetConsistencyProof(
            pb.GetConsistencyProofRequest(
                log_id=new.log_id, first_size=small.size, second_size=big.size
            )
        )
        try:
            translog.verify_consistency(
                small.size,
                big.size,
                bytes.fromhex(small.root),
                bytes.fromhex(big.root),
                list(reply.path),
            )
        except translog.ProofError as exc:
            raise LogFailure(
                f"tree heads of log {new.log_id} at sizes {small.size} and {big.size} are not "
                f"consistent ({where}): {exc}"
            ) from None


class ForkProof:
    """Two validly signed heads of one log and size with different roots: a forked log."""

    def __init__(self, fork: Fork) -> None:
        self.fork = fork

    def lines(self) -> list[str]:
        f = self.fork
        out = [
            f"PROOF: the server signed two different tree heads for log {f.log_id} at size {f.size}"
        ]
        for source, h in f.heads:
            out.append(
                f"  {source}: root {h.root}, timestamp {h.timestamp}, signature {h.signature}, "
                f"key id {h.key_id}"
            )
        return out

    def as_json(self) -> dict[str, Any]:
        f = self.fork
        return {
            "kind": "fork",
            "log_id": f.log_id,
            "size": f.size,
            "heads": [{"source": s, **h.to_json()} for s, h in f.heads],
        }


def receipt_heads(
    name: str, saved: list[tuple[pb.Receipt, bytes]]
) -> list[tuple[str, translog.TreeHead]]:
    """The tree heads a viewer's saved receipts carry."""
    return [
        (f"{name} receipt {i}", head_of(r.tree_head))
        for i, (r, _) in enumerate(saved, start=1)
        if r.HasField("tree_head")
    ]


def fork_proofs(heads: list[tuple[str, translog.TreeHead]], keys: KeySet) -> list[ForkProof]:
    return [ForkProof(f) for f in forks(heads, keys)]
