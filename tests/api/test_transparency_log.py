"""The transparency log through real servers (docs/api.md, "Transparency log").

Every seal is a leaf of its shard's log; the proofs the API serves verify (RFC 9162) and bad
arguments append nothing. The export's log line makes a record checkable offline; a seal
missing from it fails. A key rotation states the log's size, and a thief holding the old
key (a second server given the old key file) makes games that `tabletop-audit verify` fails
with the retired-key reason, while the games signed before the rotation still verify. Two
signed heads of one size with different roots are a proof of a forked log (exit 3).
"""

from __future__ import annotations

import json
import shutil
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from clients.python.audit import main
from clients.python.bot import RandomBot, make_bot, play_match, play_to_end
from clients.python.client import TableClient, reveal_and_start
from clients.python.exports import export_lines
from clients.python.receipts import ReceiptLog, is_v3
from clients.python.serverproc import ServerProcess
from domain import translog
from domain.logaudit import seal_refs
from domain.verify import parse_export
from server.wire.signing import KEY_FILE, Signer, read_key_file, rotate
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import huaniao_options

# one worker for this module and tests/api/test_node_translog.py, which takes its fixtures: the
# servers and games of ``served`` and ``rotated`` (about 10 s) set up once a module, not on each
pytestmark = pytest.mark.xdist_group("translog")


def played(client: TableClient, receipts: ReceiptLog | None = None) -> str:
    """A finished 2-seat 简易 game; seat 0 keeps its receipts in ``receipts``."""
    game_id = client.create_game(huaniao_options("SIMPLE"), 2).game_id
    seats = [client.join(game_id, s, receipts=receipts if s == 0 else None) for s in range(2)]
    reveal_and_start(seats)
    play_to_end([RandomBot(s, i) for i, s in enumerate(seats)])
    return game_id


def audit(capsys: Any, *argv: str) -> tuple[int, str]:
    """`tabletop-audit` in this process: its exit status and everything it printed."""
    try:
        status = main(list(argv))
    except SystemExit as exc:
        status = int(exc.code or 0)
    out = capsys.readouterr()
    return status, out.out + out.err


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, str, Path]]:
    data = tmp_path_factory.mktemp("log")
    server = ServerProcess(data).start()
    try:
        with TableClient(server.target) as client:
            game_id = played(client)
        yield server, game_id, data
    finally:
        server.cleanup()


def test_every_seal_is_in_the_log_and_the_proofs_round_trip(served: Any) -> None:
    server, game_id, _ = served
    with TableClient(server.target) as client:
        records = parse_export(export_lines(client.as_viewer(game_id).history()))
        reply = client.stub.GetInclusionProof(pb.GetInclusionProofRequest(game_id=game_id))
        keys = client.stub.GetSigningKey(pb.GetSigningKeyRequest())
        head = reply.tree_head
        seals = seal_refs(r.seal for r in records if r.seal is not None)
        assert len(seals) == len(reply.inclusions) > 3
        for seal, inc in zip(seals, reply.inclusions, strict=True):
            assert (inc.first, inc.last) == (seal.first, seal.last)
            translog.verify_inclusion(inc.index, head.size, seal.leaf, list(inc.path), head.root)
        signer = Signer(read_key_file(server.data_dir / KEY_FILE))
        body = translog.tree_head_body(head.log_id, head.root.hex(), head.size, head.timestamp_ms)
        assert head.key_id == signer.key_id == keys.key_id
        assert signer.sign(body) == head.signature.hex()  # Ed25519 is deterministic
        assert [h.log_id for h in keys.tree_heads] == [head.log_id]
        for first in (1, 2, head.size // 2, head.size):
            c = client.stub.GetConsistencyProof(
                pb.GetConsistencyProofRequest(log_id=head.log_id, first_size=first)
            )
            assert c.second.size == head.size and c.first.size == first
            translog.verify_consistency(first, head.size, c.first.root, c.second.root, list(c.path))
        past = client.stub.GetTreeHead(pb.GetTreeHeadRequest(log_id=head.log_id, tree_size=2))
        # the game's first seals are the log's first leaves (a fresh store)
        assert past.tree_head.root == translog.root([s.leaf for s in seals][:2])


def test_receipts_carry_a_signed_tree_head(served: Any) -> None:
    """Every receipt of a view carries the latest signed tree head; with receipts of format
    2 every receipt does (format 3, the default, keeps a move's receipts small: docs/api.md)."""
    server, _, _ = served
    log = ReceiptLog()
    with TableClient(server.target) as client:
        # the fixture's game is in the log once the sequencer's round has run (it runs apart
        # from the moves: on a loaded machine the first receipts could carry the empty head)
        log_id = client.stub.GetSigningKey(pb.GetSigningKeyRequest()).tree_heads[0].log_id
        deadline = time.monotonic() + 30
        while not client.stub.GetTreeHead(pb.GetTreeHeadRequest(log_id=log_id)).tree_head.size:
            assert time.monotonic() < deadline, "the fixture's seals never reached the log"
            time.sleep(0.05)
        played(client, log)
    views = [
        r for r, payload in log.entries if pb.ReceiptPayload.FromString(payload).HasField("view")
    ]
    must = views if all(is_v3(r) for r, _ in log.entries) else [r for r, _ in log.entries]
    assert views and all(r.HasField("tree_head") for r in must)
    heads = [r.tree_head for r, _ in log.entries if r.HasField("tree_head")]
    assert heads[-1].size >= heads[0].size > 0


def test_bad_arguments_name_the_field_and_append_nothing(served: Any) -> None:
    server, game_id, _ = served
    with TableClient(server.target) as client:
        stub = client.stub
        log_id = stub.GetSigningKey(pb.GetSigningKeyRequest()).tree_heads[0].log_id
        before = stub.GetTreeHead(pb.GetTreeHeadRequest(log_id=log_id)).tree_head.size
        bad = [
            (stub.GetTreeHead, pb.GetTreeHeadRequest(log_id="nope"), "log_id"),
            (stub.GetTreeHead, pb.GetTreeHeadRequest(log_id=log_id, tree_size=-1), "tree_size"),
            (stub.GetTreeHead, pb.GetTreeHeadRequest(log_id=log_id, tree_size=10**9), "tree_size"),
            (stub.GetInclusionProof, pb.GetInclusionProofRequest(), "game_id"),
            (stub.GetInclusionProof, pb.GetInclusionProofRequest(game_id="x"), "game_id"),
            (stub.GetInclusionProof, pb.GetInclusionProofRequest(match_id="x"), "match_id"),
            (
                stub.GetConsistencyProof,
                pb.GetConsistencyProofRequest(log_id=log_id, first_size=0),
                "first_size",
            ),
            (
                stub.GetConsistencyProof,
                pb.GetConsistencyProofRequest(log_id=log_id, first_size=3, second_size=2),
                "first_size",
            ),
            (
                stub.GetConsistencyProof,
                pb.GetConsistencyProofRequest(log_id=log_id, first_size=1, second_size=10**9),
                "second_size",
            ),
        ]
        for call, request, field in bad:
            with pytest.raises(grpc.RpcError) as caught:
                call(request)
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT, request
            assert caught.value.details().startswith(field), caught.value.details()
        missing = [
            (stub.GetTreeHead, pb.GetTreeHeadRequest(log_id=str(uuid.uuid4()))),
            (stub.GetInclusionProof, pb.GetInclusionProofRequest(game_id=str(uuid.uuid4()))),
        ]
        for call, request in missing:
            with pytest.raises(grpc.RpcError) as caught:
                call(request)
            assert caught.value.code() == grpc.StatusCode.NOT_FOUND
        assert stub.GetTreeHead(pb.GetTreeHeadRequest(log_id=log_id)).tree_head.size == before
        assert client.as_viewer(game_id).view().version == len(
            list(client.as_viewer(game_id).history())
        )


def test_an_export_with_its_log_line_verifies_offline_and_a_missing_seal_fails(
    served: Any, capsys: Any
) -> None:
    """`tabletop-audit export` ends with the log line by default (--log the same), so the
    file verifies against the log offline; --no-log leaves it out, and that file verifies
    as before, its log not checked."""
    server, game_id, data = served
    path, keys = data / "logged.jsonl", data / "keys.json"
    status, _ = audit(capsys, "--target", server.target, "export", game_id, "-o", str(path))
    assert status == 0
    status, out = audit(capsys, "--target", server.target, "--json", "key")
    keys.write_text(out)
    status, out = audit(capsys, "verify", "--file", str(path), "--keys", str(keys))
    assert status == 0 and "transparency log: all" in out, out
    plain, flagged = data / "no-log.jsonl", data / "flag-log.jsonl"
    for flag, file in (("--no-log", plain), ("--log", flagged)):
        assert (
            audit(capsys, "--target", server.target, "export", game_id, flag, "-o", str(file))[0]
            == 0
        )
    assert plain.read_text().splitlines() == path.read_text().splitlines()[:-1]
    assert flagged.read_text().splitlines()[:-1] == plain.read_text().splitlines()
    assert json.loads(flagged.read_text().splitlines()[-1]).keys() == {"log"}
    status, out = audit(capsys, "verify", "--file", str(plain), "--keys", str(keys))
    assert status == 0 and "transparency log: not checked (no log line)" in out, out
    lines = path.read_text().splitlines()
    line = json.loads(lines[-1])
    dropped = {"log": {**line["log"], "inclusions": line["log"]["inclusions"][:-1]}}
    bad = data / "dropped.jsonl"
    bad.write_text("\n".join([*lines[:-1], json.dumps(dropped)]) + "\n")
    status, out = audit(capsys, "verify", "--file", str(bad), "--keys", str(keys))
    assert status == 1 and "is not in the log" in out, out
    line["log"]["inclusions"][3]["path"][0] = "00" * 32
    bad.write_text("\n".join([*lines[:-1], json.dumps(line)]) + "\n")
    status, out = audit(capsys, "verify", "--file", str(bad), "--keys", str(keys))
    assert status == 1 and "the seal of versions" in out and "is not in the log" in out, out


def settled_head(client: TableClient) -> pb.TreeHead:
    """The log's head once the sequencer has caught up (the same size three reads running,
    0.2 s apart): a forged head of that size is then compared with a real one of the same
    size, not with a larger one the log grew to meanwhile (which fails, unproven, with 1)."""
    sizes: list[int] = []
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        head = client.stub.GetSigningKey(pb.GetSigningKeyRequest()).tree_heads[0]
        sizes.append(head.size)
        if len(sizes) >= 3 and len(set(sizes[-3:])) == 1:
            return head
        time.sleep(0.2)
    raise AssertionError(f"the log kept growing: sizes {sizes}")


def test_two_heads_of_one_size_with_two_roots_prove_a_fork(served: Any, capsys: Any) -> None:
    """A server (the key holder) that shows one auditor another tree at the same size."""
    server, game_id, data = served
    signer = Signer(read_key_file(server.data_dir / KEY_FILE))
    with TableClient(server.target) as client:
        head = settled_head(client)
    real = translog.TreeHead(
        head.log_id,
        head.size,
        head.root.hex(),
        head.timestamp_ms,
        head.key_id,
        head.signature.hex(),
    )
    other = translog.TreeHead(real.log_id, real.size, "ab" * 32, real.timestamp + 1, signer.key_id)
    forged = translog.TreeHead(**{**other.__dict__, "signature": signer.sign(other.body())})
    heads = data / "heads.jsonl"
    heads.write_text(json.dumps(real.to_json()) + "\n" + json.dumps(forged.to_json()) + "\n")
    path = data / "plain.jsonl"
    export = ["export", game_id, "--no-log", "-o", str(path)]
    assert audit(capsys, "--target", server.target, *export)[0] == 0
    status, out = audit(
        capsys, "--target", server.target, "compare", "--file", str(path), "--heads", str(heads)
    )
    assert status == 3, out
    assert f"PROOF: the server signed two different tree heads for log {real.log_id}" in out
    # a head signed by another key proves nothing
    stranger = Signer.generate()
    alien = translog.TreeHead(**{**other.__dict__, "key_id": stranger.key_id})
    alien = translog.TreeHead(**{**alien.__dict__, "signature": stranger.sign(alien.body())})
    heads.write_text(json.dumps(real.to_json()) + "\n" + json.dumps(alien.to_json()) + "\n")
    status, out = audit(
        capsys, "--target", server.target, "compare", "--file", str(path), "--heads", str(heads)
    )
    assert status == 0, out
    # verify keeps the heads it trusts, and a kept forged head of the same size is a proof
    heads.write_text(json.dumps(forged.to_json()) + "\n")
    status, out = audit(capsys, "--target", server.target, "verify", game_id, "--heads", str(heads))
    assert status == 3 and "two different tree heads" in out, out


@pytest.fixture(scope="module")
def rotated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Game A ends under the first key; the operator stops the server, rotates, restarts (the
    retirement is stated then). A thief kept the old key file: its own server makes game T."""
    data = tmp_path_factory.mktemp("rotated")
    thief_data = tmp_path_factory.mktemp("thief")
    server = ServerProcess(data).start()
    thief = None
    try:
        with TableClient(server.target) as client:
            before = played(client)
        server.stop()
        shutil.copy(data / KEY_FILE, thief_data / KEY_FILE)  # the leaked key
        old, new = rotate(data / KEY_FILE)
        server.start()
        with TableClient(server.target) as client:
            after = played(client)
            keys = client.stub.GetSigningKey(pb.GetSigningKeyRequest())
        thief = ServerProcess(thief_data).start()
        with TableClient(thief.target) as client:
            stolen = played(client)
        yield {
            "server": server,
            "thief": thief,
            "old": old,
            "new": new,
            "before": before,
            "after": after,
            "stolen": stolen,
            "keys": keys,
            "data": data,
        }
    finally:
        server.cleanup()
        if thief is not None:
            thief.cleanup()


def test_the_rotation_states_the_logs_size_signed_by_both_keys(rotated: Any) -> None:
    keys, old, new = rotated["keys"], rotated["old"], rotated["new"]
    (statement,) = keys.retirements
    assert (statement.retired, statement.successor) == (old.key_id, new.key_id)
    (size,) = statement.logs.values()
    assert size > 0
    assert not (rotated["data"] / f"{KEY_FILE}.retiring").exists()  # the old private key


def test_a_thiefs_new_game_with_the_retired_key_fails(rotated: Any, capsys: Any) -> None:
    server, thief, old = rotated["server"], rotated["thief"], rotated["old"]
    (statement,) = rotated["keys"].retirements
    (size,) = statement.logs.values()
    reason = f"is signed by retired key {old.key_id}, retired at tree size {size}"
    data = rotated["data"]
    for flags in (["--no-log"], ["--log"]):  # without the log line, and with the thief's own
        path = data / f"stolen{flags[0]}.jsonl"
        status, _ = audit(
            capsys, "--target", thief.target, "export", rotated["stolen"], *flags, "-o", str(path)
        )
        assert status == 0
        status, out = audit(capsys, "--target", server.target, "verify", "--file", str(path))
        assert status == 1 and reason in out, out
        keys = data / "keys.json"
        keys.write_text(audit(capsys, "--target", server.target, "--json", "key")[1])
        status, out = audit(capsys, "verify", "--file", str(path), "--keys", str(keys))
        assert status == 1 and reason in out, out


def test_games_signed_before_the_rotation_still_verify(rotated: Any, capsys: Any) -> None:
    server, data = rotated["server"], rotated["data"]
    for game in (rotated["before"], rotated["after"]):
        status, out = audit(capsys, "--target", server.target, "verify", game)
        assert status == 0 and "transparency log: all" in out, out
    path, keys = data / "before.jsonl", data / "keys2.json"
    audit(capsys, "--target", server.target, "export", rotated["before"], "--log", "-o", str(path))
    keys.write_text(audit(capsys, "--target", server.target, "--json", "key")[1])
    status, out = audit(capsys, "verify", "--file", str(path), "--keys", str(keys))
    assert status == 0 and "transparency log: all" in out, out


def test_a_match_and_its_hands_are_in_the_log(served: Any, capsys: Any) -> None:
    """The match's own seals and every hand's: proven over the API and by the log line."""
    server, _, data = served
    with TableClient(server.target) as client:
        created = client.create_game(huaniao_options("SIMPLE"), 2, match=pb.MatchSettings(hands=2))
        seats = [client.join(created.game_id, s, f"p{s}") for s in range(2)]
        reveal_and_start(seats)
        play_match([make_bot(s, "heuristic", 7 + i) for i, s in enumerate(seats)])
        reply = client.stub.GetInclusionProof(
            pb.GetInclusionProofRequest(match_id=created.match_id)
        )
        assert reply.inclusions and reply.inclusions[0].first == 1
    path, keys = data / "match.jsonl", data / "match-keys.json"
    flags = ["--target", server.target]
    assert (
        audit(capsys, *flags, "export", "--match", created.match_id, "--log", "-o", str(path))[0]
        == 0
    )
    keys.write_text(audit(capsys, *flags, "--json", "key")[1])
    status, out = audit(capsys, "verify", "--file", str(path), "--keys", str(keys))
    assert status == 0 and "transparency log: all" in out, out
    status, out = audit(capsys, *flags, "verify", "--match", created.match_id)
    assert status == 0 and "transparency log: all" in out, out
    lines = path.read_text().splitlines()
    line = json.loads(lines[-1])
    line["log"]["inclusions"] = line["log"]["inclusions"][1:]  # the match's first seal
    path.write_text("\n".join([*lines[:-1], json.dumps(line)]) + "\n")
    status, out = audit(capsys, "verify", "--file", str(path), "--keys", str(keys))
    assert status == 1 and "is not in the log: the log line has" in out, out


def test_heads_seen_before_must_be_extended_by_the_later_ones(served: Any, capsys: Any) -> None:
    """--heads keeps what verify trusted; a later, larger head must prove it extends them
    (the server's consistency proof); a kept head the log does not extend fails."""
    server, game_id, data = served
    heads = data / "seen.jsonl"
    heads.unlink(missing_ok=True)
    flags = ["--target", server.target]
    assert audit(capsys, *flags, "verify", game_id, "--heads", str(heads))[0] == 0
    (kept,) = heads.read_text().splitlines()
    with TableClient(server.target) as client:
        later = played(client)  # the log grows
    status, out = audit(capsys, *flags, "verify", later, "--heads", str(heads))
    assert status == 0, out
    assert len(heads.read_text().splitlines()) == 2  # both sizes kept, and consistent
    signer = Signer(read_key_file(server.data_dir / KEY_FILE))
    old = json.loads(kept)
    bent = translog.TreeHead(
        old["log_id"], old["size"] - 1, "cd" * 32, old["timestamp"], signer.key_id
    )
    bent = translog.TreeHead(**{**bent.__dict__, "signature": signer.sign(bent.body())})
    heads.write_text(json.dumps(bent.to_json()) + "\n")
    status, out = audit(capsys, *flags, "verify", later, "--heads", str(heads))
    assert status == 1 and "are not consistent" in out, out
