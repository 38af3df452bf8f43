"""Proof of a lying server: `tabletop-audit compare` (clients/python/equivocation.py).

A real server plays a 2-seat game; each seat keeps its own ReceiptLog. Honest receipts of
every seat, with or without the export, agree. Then a planted server, built here with the
real server's key, shows seat 1 another history from one version on: its chain, its
payloads and its seals are all well formed and validly signed, and each seat's file checks
on its own. Only together do they prove the lie, and `compare` prints the proof and exits 3.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from clients.python.audit import LIED, main
from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient, reveal_and_start
from clients.python.equivocation import contradictions, receipt_statements
from clients.python.exports import export_lines
from clients.python.receipts import ReceiptLog, check_payload, check_signature, payload_bytes
from clients.python.serverproc import ServerProcess
from domain.table import records as rec
from domain.verify import Record, parse_export
from server.wire.signing import KEY_FILE, Signer, read_key_file
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import huaniao_options, resigned, signed_again
from tests.support.records import saved_evidence


@pytest.fixture(scope="module")
def server(server_receipts_2: ServerProcess) -> ServerProcess:
    """This module reads and forges seals of format 2 (their hash lists and nonces);
    tests/api/test_receipts_v3.py holds format 3 to the same promises."""
    return server_receipts_2


Entry = tuple[pb.Receipt, bytes]


@pytest.fixture(scope="module")
def honest(server, tmp_path_factory):  # type: ignore[no-untyped-def]
    """A finished game: the export, and each seat's receipts (its plays, views and Watch)."""
    logs = [ReceiptLog(), ReceiptLog()]
    with TableClient(server.target) as client:
        gid = client.create_game(huaniao_options("SIMPLE"), 2).game_id
        seats = [client.join(gid, s, receipts=logs[s]) for s in range(2)]
        watched: list[pb.GameEvent] = []
        streams = [threading.Thread(target=lambda s=s: watched.extend(s.watch())) for s in seats]
        for stream in streams:
            stream.start()
        reveal_and_start(seats)
        play_to_end([RandomBot(s, i) for i, s in enumerate(seats)])
        for stream in streams:
            stream.join(timeout=120)
            assert not stream.is_alive()
        lines = list(export_lines(client.as_viewer(gid).history()))
    where = tmp_path_factory.mktemp("equivocation")
    files, export = saved_evidence(where, logs, lines)
    key = Signer(read_key_file(server.data_dir / KEY_FILE))
    return gid, parse_export(lines), logs, files, export, key


class LyingServer:
    """Signs, with the real key, another history of a finished game for one seat: from
    version ``split`` on, the fact at ``split`` differs, so every chain hash from there is
    another (recomputed with the game's real chain key), and so is every receipt: each
    payload carries the other hashes, each seal the other head and that seat's hash of the
    other payload. What the seat saves is what it would have saved from such a server."""

    def __init__(self, signer: Signer, records: list[Record], split: int) -> None:
        self.signer = signer
        created = records[0].fact["data"]
        self.secret, self.salt = created["secret"], created.get("salt", "")
        key = rec.chain_key(self.secret, self.salt)
        self.hashes: dict[int, str] = {}
        prev = ""
        for r in records:
            fact = r.fact
            if r.version == split:
                fact = {**fact, "data": {**fact["data"], "shown": "another history"}}
            prev = rec.chain_hash(key, prev, r.version, fact, r.cause, r.recorded_at)
            self.hashes[r.version] = prev
        self.split = split

    def lie(self, entry: Entry) -> Entry:
        receipt, payload = entry
        if receipt.last_version < self.split:
            return entry
        shown = pb.ReceiptPayload.FromString(payload)
        if shown.HasField("view"):
            shown.view.head_hash = self.hashes[shown.view.version]
            part, other = "view", payload_bytes(view=shown.view)
        else:
            for e in shown.events:
                e.hash = self.hashes[e.version]
            part, other = "events", payload_bytes(events=list(shown.events))
        moved = pb.Receipt()
        moved.CopyFrom(receipt)
        moved.head_hash = self.hashes[receipt.last_version]
        forged = resigned(moved, self.signer.sign, part, rec.receipt_hash(receipt.nonce, other))
        forged.key_id = self.signer.key_id
        return forged, other


def lied_file(logs: list[ReceiptLog], liar: LyingServer, path: Path) -> Path:
    """Seat 1's receipts as the lying server gave them."""
    log = ReceiptLog()
    log.entries = [liar.lie(e) for e in logs[1].entries]
    log.save(str(path))
    return path


def test_honest_receipts_of_every_seat_agree(honest, capsys) -> None:  # type: ignore[no-untyped-def]
    gid, _, logs, files, export, key = honest
    statements = [
        receipt_statements(log.entries, key.public_key, f"seat{s}") for s, log in enumerate(logs)
    ]
    shared = {s.version for s in statements[0]} & {s.version for s in statements[1]}
    assert shared == {s.version for s in statements[0]} and len(shared) > 10, "every version"
    assert not contradictions(statements[0] + statements[1])
    args = ["compare", "--receipts", str(files[0]), "--receipts", str(files[1])]
    assert main([*args, "--public-key", key.public_key.hex()]) == 0
    assert capsys.readouterr().out.startswith("agree: 2 files,")
    assert main([*args, "--file", str(export), "--public-key", key.public_key.hex()]) == 0
    assert "agree: 3 files" in capsys.readouterr().out


def test_the_key_holder_showing_two_seats_two_histories_is_proven(  # type: ignore[no-untyped-def]
    honest, server, tmp_path, capsys
) -> None:
    gid, records, logs, files, export, key = honest
    own = sorted({r.last_version for r, _ in logs[1].entries})
    split = own[len(own) // 2]
    liar = LyingServer(key, records, split)
    lied = lied_file(logs, liar, tmp_path / "seat1.receipts")
    for receipt, payload in [liar.lie(e) for e in logs[1].entries]:
        assert check_signature(receipt, key.public_key) == key.key_id  # each receipt is
        check_payload(receipt, payload)  # well formed and validly signed on its own
    args = ["compare", "--receipts", str(files[0]), "--receipts", str(lied)]
    with pytest.raises(SystemExit) as exited:
        main([*args, "--target", server.target])  # the server's own published key
    assert exited.value.code == LIED == 3
    out = capsys.readouterr().out
    assert out.startswith(f"PROOF: the server signed two different chain heads for game {gid}")
    first = out.splitlines()[0]
    version = int(first.rsplit(" ", 1)[1])
    assert version >= split
    honest_head = records[version - 1].hash
    assert f"head {honest_head}" in out and f"head {liar.hashes[version]}" in out
    assert out.count("signature ") >= 2 and f"key id {key.key_id}" in out
    # the record itself contradicts the lie too, and --json carries the signed bytes
    with pytest.raises(SystemExit, match="3"):
        main(["--json", "compare", "--file", str(export), "--receipts", str(lied),
              "--public-key", key.public_key.hex()])  # fmt: skip
    proof = json.loads(capsys.readouterr().out)["proofs"][0]
    assert proof["game_id"] == gid and proof["version"] == split
    heads = {s["head"] for s in proof["statements"]}
    assert heads == {records[split - 1].hash, liar.hashes[split]}
    assert all(s["signed_bytes"].startswith("tabletop-seal/2\n") for s in proof["statements"])


def test_a_lie_signed_with_another_key_proves_nothing(honest, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Anyone can write a contradicting receipt with a key of their own: that is no proof
    against the server (status 1, not 3)."""
    gid, records, logs, files, _, key = honest
    own = sorted({r.last_version for r, _ in logs[1].entries})
    liar = LyingServer(Signer.generate(), records, own[len(own) // 2])
    lied = lied_file(logs, liar, tmp_path / "seat1.receipts")
    with pytest.raises(SystemExit, match="1"):
        main(["compare", "--receipts", str(files[0]), "--receipts", str(lied),
              "--public-key", key.public_key.hex()])  # fmt: skip
    assert "not signed by the given server key" in capsys.readouterr().err


def test_one_file_is_not_a_comparison(honest) -> None:  # type: ignore[no-untyped-def]
    _, _, _, files, _, key = honest
    with pytest.raises(SystemExit, match="2"):
        main(["compare", "--receipts", str(files[0]), "--public-key", key.public_key.hex()])


def test_two_seals_for_one_move_with_one_head_are_a_proof_too(honest) -> None:  # type: ignore[no-untyped-def]
    """Another seal for the same move and head (another viewer shown something else): the
    server signed two statements of one move, and only one can be true."""
    _, _, logs, _, _, key = honest
    receipt, payload = logs[1].entries[len(logs[1].entries) // 2]
    forged = pb.Receipt()
    forged.CopyFrom(receipt)
    other = 1 - receipt.viewer if receipt.viewer < 2 else 0
    forged.hashes[other].events = "0" * 64
    signed_again(forged, key.sign)
    statements = receipt_statements(logs[0].entries, key.public_key, "seat0")
    statements += receipt_statements([(forged, payload)], key.public_key, "seat1")
    found = contradictions(statements)
    assert [c.version for c in found] == [receipt.last_version]
    assert found[0].what == "two different seals for one move"
    assert found[0].first.head == found[0].second.head
