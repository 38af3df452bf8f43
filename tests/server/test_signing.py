"""The signing key: made at first start and kept with the data (0600), or given by flag or
environment, shared by replicas; a missing or unusable key stops the server with one line."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest

from clients.python.audit_verify import signing_key, verify_game
from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient, reveal_and_start
from clients.python.serverproc import ServerProcess
from server.wire.signing import (
    KEY_FILE,
    Signer,
    SigningKeyError,
    load_signer,
    parse_key,
    pem,
    read_key_file,
)
from tests.api.helpers import huaniao_options


def test_the_key_is_made_once_with_owner_only_permissions(tmp_path: Path) -> None:
    first = load_signer(tmp_path, None, None, "sqlite")
    path = tmp_path / KEY_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = load_signer(tmp_path, None, None, "sqlite")
    assert again.public_key == first.public_key and len(first.public_key) == 32


def test_a_given_key_wins_over_the_data_dir(tmp_path: Path) -> None:
    made = load_signer(tmp_path, None, None, "sqlite")
    other = Signer.generate()
    given = tmp_path / "given.pem"
    given.write_bytes(pem(other._key))
    assert load_signer(tmp_path, given, None, "sqlite").public_key == other.public_key
    seed = Signer.generate()
    text = seed._key.private_bytes_raw().hex()
    assert load_signer(tmp_path, given, text, "sqlite").public_key == seed.public_key
    assert load_signer(tmp_path, None, None, "sqlite").public_key == made.public_key


def test_postgres_needs_a_given_key(tmp_path: Path) -> None:
    with pytest.raises(SigningKeyError, match="--signing-key FILE or TABLETOP_SIGNING_KEY"):
        load_signer(tmp_path, None, None, "postgres")
    assert not (tmp_path / KEY_FILE).exists()
    key = Signer.generate()._key.private_bytes_raw().hex()
    assert len(load_signer(tmp_path, None, key, "postgres").public_key) == 32


@pytest.mark.parametrize("text", [b"", b"not a key", b"ab" * 31, b"-----BEGIN PRIVATE KEY-----\nx"])
def test_an_unusable_key_is_refused_with_a_reason(text: bytes) -> None:
    with pytest.raises((SigningKeyError, ValueError)):
        parse_key(text)


def test_a_missing_key_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(SigningKeyError, match="cannot read the signing key"):
        read_key_file(tmp_path / "nope.pem")


def test_the_key_tool_makes_and_prints_keys(tmp_path: Path) -> None:
    path = tmp_path / "k.pem"

    def tool(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "server.wire.signing", *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60)

    made = tool("new", str(path))
    assert made.returncode == 0 and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert tool("public", str(path)).stdout == made.stdout
    assert bytes.fromhex(made.stdout.strip()) == Signer(read_key_file(path)).public_key
    assert tool("new", str(path)).returncode == 1  # never overwritten


def test_a_server_keeps_its_key_across_restarts_and_replicas_share_a_given_one(
    tmp_path: Path,
) -> None:
    """A game signed before a restart verifies after it with the same key; two servers
    given one key file serve the same key."""
    server = ServerProcess(tmp_path / "a").start()
    try:
        with TableClient(server.target) as client:
            key = signing_key(client)
            created = client.create_game(huaniao_options("SIMPLE"), 2)
            seats = [client.join(created.game_id, s) for s in range(2)]
            reveal_and_start(seats)
            play_to_end([RandomBot(s, i) for i, s in enumerate(seats)])
        server.stop()
        server.start()
        with TableClient(server.target) as client:
            assert signing_key(client) == key
            assert verify_game(client, created.game_id).report.winners
    finally:
        server.cleanup()
    shared = tmp_path / "shared.pem"
    shared.write_bytes(pem(Signer.generate()._key))
    shared.chmod(0o600)
    keys = []
    for name in ("b", "c"):
        with ServerProcess(tmp_path / name, extra=["--signing-key", str(shared)]) as replica:
            with TableClient(replica.target) as client:
                keys.append(signing_key(client))
    assert keys[0] == keys[1] == Signer(read_key_file(shared)).public_key


def test_a_server_with_a_bad_key_stops_with_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pem"
    bad.write_text("garbage")
    proc = ServerProcess(tmp_path / "d", extra=["--signing-key", str(bad)])
    with pytest.raises(RuntimeError) as failed:
        proc.start(timeout=60)
    log = str(failed.value)
    assert "tabletop-server: the signing key is neither" in log and "Traceback" not in log
