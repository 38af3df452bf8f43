"""Key ids and rotation: every seal and receipt names its key; a rotated server publishes the
retired keys, and a game signed before (or partly before) a rotation still verifies after
it, the verifier naming the key that signed each part (docs/operations.md, "The signing
key")."""

from __future__ import annotations

import dataclasses
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from clients.python.audit import main
from clients.python.audit_receipts import check_receipts
from clients.python.audit_verify import signing_keys, verify_game
from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient, reveal_and_start
from clients.python.exports import export_lines
from clients.python.receipts import ReceiptLog, is_v3
from clients.python.seat import SeatClient
from clients.python.serverproc import ServerProcess
from domain.table.records import key_id, seal_body
from domain.verify import AuditFailure, Record, parse_export, verify
from server.wire.signedcommands import read_signed_command
from server.wire.signing import (
    KEY_FILE,
    Signer,
    SigningKeyError,
    load_keys,
    read_key_file,
    rotate,
)
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import huaniao_options
from tests.support.nodejs import ensure_node_modules

SEED = bytes(range(32))  # docs/api.md's test vector
PUBLIC = "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8"
KEY_ID = "56475aa75463474c"
NODE_VERIFY = Path(__file__).resolve().parents[2] / "clients" / "node" / "bin" / "verify.js"


def node_verify(export: Path, *keys: str) -> tuple[int, str]:
    """The second verifier (clients/node/bin/verify.js) on an export: its status and its one
    line."""
    ensure_node_modules()  # the verifier decodes the seats' signed commands with protobufjs
    argv = ["node", str(NODE_VERIFY), str(export)]
    for key in keys:
        argv += ["--public-key", key]
    run = subprocess.run(argv, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    lines = (run.stdout + run.stderr).strip().splitlines()
    assert len(lines) == 1, run.stdout + run.stderr
    return run.returncode, lines[0]


def test_the_key_id_test_vector() -> None:
    signer = Signer(Ed25519PrivateKey.from_private_bytes(SEED))
    assert signer.public_key.hex() == PUBLIC
    assert key_id(bytes.fromhex(PUBLIC)) == signer.key_id == KEY_ID


def test_rotate_makes_a_new_key_and_retires_the_old_public_half(tmp_path: Path) -> None:
    made = load_keys(tmp_path, None, None, "sqlite").signer  # DATA_DIR/signing-key.pem
    old, new = rotate(tmp_path / KEY_FILE)
    assert old.public_key == made.public_key and new.public_key != old.public_key
    assert stat.S_IMODE((tmp_path / KEY_FILE).stat().st_mode) == 0o600
    _, newest = rotate(tmp_path / KEY_FILE)
    keys = load_keys(tmp_path, None, None, "sqlite")  # finds signing-key.pem.retired beside it
    assert keys.signer.public_key == newest.public_key
    assert keys.retired == (old.public_key, new.public_key)  # oldest first
    assert list(keys.public_keys()) == [newest.key_id, old.key_id, new.key_id]
    retired_text = (tmp_path / f"{KEY_FILE}.retired").read_text()
    assert retired_text.split()[:2] == [old.public_key.hex(), old.key_id]
    assert b"PRIVATE" not in (tmp_path / f"{KEY_FILE}.retired").read_bytes()


def test_the_rotate_tool_and_a_bad_retired_file(tmp_path: Path) -> None:
    path = tmp_path / "k.pem"
    tool = [sys.executable, "-m", "server.wire.signing"]
    made = subprocess.run([*tool, "new", str(path)], capture_output=True, text=True, timeout=60)
    out = subprocess.run([*tool, "rotate", str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert f"retired {made.stdout.strip()}" in out.stdout
    assert Signer(read_key_file(path)).key_id in out.stdout.splitlines()[0]
    bad = tmp_path / "bad.retired"
    bad.write_text("# comment\nnot-a-key\n")
    with pytest.raises(SigningKeyError, match="line 2 is not a 64-hex-digit public key"):
        load_keys(tmp_path, path, None, "sqlite", bad)
    with pytest.raises(SigningKeyError, match="cannot read the retired signing keys"):
        load_keys(tmp_path, path, None, "sqlite", tmp_path / "missing")


def _play(seats: list[SeatClient], moves: int | None = None) -> bool:
    """Play ``moves`` moves (None: to the end); whether the game is still running."""
    bots = [RandomBot(s, i) for i, s in enumerate(seats)]
    try:
        play_to_end(bots, **({"max_moves": moves} if moves else {}))
    except RuntimeError:
        assert moves is not None
    return seats[0].view().phase != pb.GAME_PHASE_FINISHED


def _half_played(client: TableClient, log: ReceiptLog) -> tuple[str, list[SeatClient]]:
    """A game a few moves in and still running (a random game may end early: another).
    About 28% of random 简易 games end within three moves, so five tries failed once in a
    CI run (0.28^5, about 1 in 600); twenty make it about 1 in 10^11."""
    for _ in range(20):
        log.entries.clear()
        game_id = client.create_game(huaniao_options("SIMPLE"), 2).game_id
        seats = [client.join(game_id, s, receipts=log if s == 0 else None) for s in range(2)]
        reveal_and_start(seats)
        if _play(seats, moves=3):
            return game_id, seats
    raise AssertionError("twenty games in a row ended within three moves")


def _records(client: TableClient, game_id: str) -> list[Record]:
    return parse_export(export_lines(client.as_viewer(game_id).history()))


@pytest.fixture(scope="module")
def rotated(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """Game A ends before a rotation; game B is half played, the server stops, the key is
    rotated, the server restarts and B ends under the new key. Seat 0 of B keeps receipts."""
    data = tmp_path_factory.mktemp("rotation")
    server = ServerProcess(data).start()
    log = ReceiptLog()
    try:
        with TableClient(server.target) as client:
            old = signing_keys(client)
            a = client.create_game(huaniao_options("SIMPLE"), 2).game_id
            seats = [client.join(a, s) for s in range(2)]
            reveal_and_start(seats)
            _play(seats)
            b, seats = _half_played(client, log)
        server.stop()
        _, new = rotate(data / KEY_FILE)
        server.start()
        with TableClient(server.target) as client:
            reply = client.stub.GetSigningKey(pb.GetSigningKeyRequest())
            moved = [dataclasses.replace(s, channel=client.channel) for s in seats]
            _play(moved)
            yield server, client, reply, old[0], new, a, b, log
    finally:
        server.cleanup()


def test_a_rotated_server_publishes_the_new_key_and_the_retired_one(rotated) -> None:  # type: ignore[no-untyped-def]
    _, _, reply, old, new, *_ = rotated
    assert bytes(reply.public_key) == new.public_key and reply.key_id == new.key_id
    assert [(bytes(k.public_key), k.key_id) for k in reply.retired] == [(old, key_id(old))]


def test_a_game_signed_before_the_rotation_verifies_after_it(rotated) -> None:  # type: ignore[no-untyped-def]
    server, client, _, old, new, a, _, _ = rotated
    verified = verify_game(client, a)  # the server's key set: the new key and the retired one
    assert verified.report.signed_with == ((key_id(old), 1, verified.report.events),)
    with pytest.raises(AuditFailure, match=f"names key {key_id(old)}, not among"):
        # the new key alone cannot
        verify(_records(client, a), new.public_key, command_reader=read_signed_command)
    # the second verifier agrees: the published set verifies it, the new key alone cannot
    path = Path(server.data_dir) / "a.jsonl"
    path.write_text("".join(line + "\n" for line in export_lines(client.as_viewer(a).history())))
    status, line = node_verify(path, new.public_key.hex(), old.hex())
    assert status == 0 and key_id(old) in line, line
    status, line = node_verify(path, new.public_key.hex())
    assert status == 1 and key_id(old) in line, line


def test_a_game_signed_across_the_rotation_names_both_keys(rotated, capsys) -> None:  # type: ignore[no-untyped-def]
    server, client, _, old, new, _, b, _ = rotated
    records = _records(client, b)
    assert {r.seal["key_id"] for r in records if r.seal} == {key_id(old), new.key_id}
    report = verify(records, [new.public_key, old], command_reader=read_signed_command)
    (k1, first, split), (k2, after, last) = report.signed_with
    assert (k1, k2, first, after, last) == (key_id(old), new.key_id, 1, split + 1, len(records))
    assert main(["verify", b, "--target", server.target]) == 0
    out = capsys.readouterr().out
    assert f"key {key_id(old)} ({old.hex()}) versions 1..{split}" in out
    assert f"key {new.key_id} ({new.public_key.hex()}) versions {split + 1}..{len(records)}" in out
    # from a file, with both published keys given, and not with one of them
    path = Path(server.data_dir) / "b.jsonl"
    path.write_text("".join(line + "\n" for line in export_lines(client.as_viewer(b).history())))
    both = ["--public-key", new.public_key.hex(), "--public-key", old.hex()]
    assert main(["verify", "--file", str(path), *both]) == 0
    assert key_id(old) in capsys.readouterr().out
    with pytest.raises(SystemExit, match="1"):
        main(["verify", "--file", str(path), "--public-key", old.hex()])
    assert f"names key {new.key_id}" in capsys.readouterr().err
    status, line = node_verify(path, new.public_key.hex(), old.hex())
    assert status == 0 and key_id(old) in line and new.key_id in line, line
    status, line = node_verify(path, old.hex())
    assert status == 1 and new.key_id in line, line


def test_seals_stored_without_a_key_id_verify_with_any_given_key(rotated) -> None:  # type: ignore[no-untyped-def]
    """Records sealed before keys had ids: the key id is beside the signed body, so dropping
    it changes no signature, and the verifier tries each given key."""
    _, client, _, old, new, _, b, _ = rotated
    records = _records(client, b)
    for r in records:
        if r.seal and "receipts" in r.seal:  # a seal of format 3 names no viewer's hashes
            signed = {k: v for k, v in r.seal.items() if k != "key_id"}
            assert b"key_id" not in seal_body(
                signed["game_id"],
                signed["first"],
                signed["last"],
                signed["head"],
                signed["receipts"],
            )
    bare = [
        dataclasses.replace(r, seal={k: v for k, v in r.seal.items() if k != "key_id"})
        if r.seal
        else r
        for r in records
    ]
    with_ids = verify(
        records, [old, new.public_key], command_reader=read_signed_command
    ).signed_with
    assert (
        verify(bare, [old, new.public_key], command_reader=read_signed_command).signed_with
        == with_ids
    )
    with pytest.raises(AuditFailure, match="not signed by the given server key"):
        verify(bare, new.public_key, command_reader=read_signed_command)


def test_a_seats_receipts_name_the_key_that_signed_them(rotated) -> None:  # type: ignore[no-untyped-def]
    """Receipts of format 2 name their key; of format 3 (the default) they name none, and
    the verifier finds the key that signed each among those it is given."""
    _, client, _, old, new, _, b, log = rotated
    v3 = all(is_v3(r) for r, _ in log.entries)
    named = {r.key_id for r, _ in log.entries}
    assert named == ({""} if v3 else {key_id(old), new.key_id})
    report = check_receipts(_records(client, b), log.entries, [new.public_key, old])
    assert report.key_ids == (key_id(old), new.key_id)
    refused = "not signed by the given server key" if v3 else f"it names key {key_id(old)}"
    with pytest.raises(AuditFailure, match=refused):
        check_receipts(_records(client, b), log.entries, new.public_key)
