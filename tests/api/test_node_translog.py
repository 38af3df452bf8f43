"""The Node verifier's transparency log through real servers (issue 36), beside the Python
auditor: the servers and games of tests/api/test_transparency_log.py (its module fixtures).

An export with its log line (`tabletop-audit export --log`) verifies offline in Node with the
server's key set (`tabletop-audit key --json`, `--keys FILE`), and says so; a dropped
inclusion or a bent path fails. After a key rotation, a thief's new game signed with the
retired key fails in Node with the same reason as in Python ("signed by retired key K,
retired at tree size N"), with and without the thief's own log line, while the games signed
before the rotation still verify.

The auditor's heads, word for word beside Python: `compare` proves a forked log (two signed
heads of one log and size, exit 3), `verify --heads FILE` keeps the heads it trusts (the same
file as Python's) and proves a fork with a kept one, `--target` takes the server's keys and
proofs and checks a kept head of another size by the server's consistency proof. A thief who
strips the (unsigned, optional) key ids from its seals still fails, in Node and in Python (each
seal's leaf is named by the key whose signature verifies, not by the key id it states).
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from clients.python.audit_log import head_of
from clients.python.client import TableClient
from domain import translog
from server.wire.signing import KEY_FILE, Signer, read_key_file
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.test_transparency_log import audit, rotated, served  # noqa: F401  (fixtures)
from tests.support.nodejs import NODE_DIR, ensure_node_modules

pytestmark = pytest.mark.xdist_group("translog")  # with test_transparency_log.py: its fixtures


def node(export: Path, keys: Path) -> tuple[int, str]:
    """`node bin/verify.js EXPORT --keys FILE`: its status and everything it printed."""
    ensure_node_modules()
    done = subprocess.run(
        ["node", str(NODE_DIR / "bin" / "verify.js"), str(export), "--keys", str(keys)],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    return done.returncode, done.stdout + done.stderr


def key_set(capsys: Any, target: str, path: Path) -> Path:
    status, out = audit(capsys, "--target", target, "--json", "key")
    assert status == 0, out
    path.write_text(out)
    return path


def test_node_verifies_an_export_with_its_log_line_and_fails_a_missing_seal(  # noqa: F811
    served: Any,  # noqa: F811
    capsys: Any,
) -> None:
    server, game_id, data = served
    path = data / "node-logged.jsonl"
    assert (
        audit(capsys, "--target", server.target, "export", game_id, "--log", "-o", str(path))[0]
        == 0
    )
    keys = key_set(capsys, server.target, data / "node-keys.json")
    status, out = node(path, keys)
    assert status == 0 and "; transparency log: all " in out and " seals in log " in out, out
    plain = data / "node-plain.jsonl"
    plain.write_text("".join(line + "\n" for line in path.read_text().splitlines()[:-1]))
    status, out = node(plain, keys)
    assert status == 0 and "transparency log: not checked (no log line)" in out, out

    lines = path.read_text().splitlines()
    line = json.loads(lines[-1])
    bad = data / "node-bad.jsonl"
    dropped = {"log": {**line["log"], "inclusions": line["log"]["inclusions"][:-1]}}
    bad.write_text("\n".join([*lines[:-1], json.dumps(dropped)]) + "\n")
    status, out = node(bad, keys)
    assert status == 1 and "the log line has " in out, out
    assert audit(capsys, "verify", "--file", str(bad), "--keys", str(keys))[0] == 1
    line["log"]["inclusions"][3]["path"][0] = "00" * 32
    bad.write_text("\n".join([*lines[:-1], json.dumps(line)]) + "\n")
    status, out = node(bad, keys)
    assert status == 1 and "the seal of versions " in out and " is not in the log: " in out, out
    assert audit(capsys, "verify", "--file", str(bad), "--keys", str(keys))[0] == 1


def test_node_fails_a_thiefs_new_game_with_the_retired_key(rotated: Any, capsys: Any) -> None:  # noqa: F811
    server, thief, old = rotated["server"], rotated["thief"], rotated["old"]
    (statement,) = rotated["keys"].retirements
    (size,) = statement.logs.values()
    reason = f"is signed by retired key {old.key_id}, retired at tree size {size}"
    data = rotated["data"]
    keys = key_set(capsys, server.target, data / "node-keys.json")
    for flags in (["--no-log"], ["--log"]):  # without the log line, and with the thief's own
        path = data / f"node-stolen{flags[0]}.jsonl"
        status, _ = audit(
            capsys, "--target", thief.target, "export", rotated["stolen"], *flags, "-o", str(path)
        )
        assert status == 0
        py_status, py_out = audit(capsys, "verify", "--file", str(path), "--keys", str(keys))
        status, out = node(path, keys)
        assert (py_status, status) == (1, 1) and reason in out and reason in py_out, (out, py_out)
        assert out.startswith("VERIFY FAILED: the seal of versions "), out


def test_node_still_verifies_the_games_signed_before_the_rotation(  # noqa: F811
    rotated: Any,  # noqa: F811
    capsys: Any,
) -> None:
    """With the log line, the games signed before and after the rotation verify in both. A
    file without it verifies as before, except a seal by the retired key: nothing proves its
    leaf below the size (docs/api.md, "The export's log line"), in both verifiers."""
    server, data = rotated["server"], rotated["data"]
    keys = key_set(capsys, server.target, data / "node-keys2.json")
    for game in (rotated["before"], rotated["after"]):
        for flags in (["--no-log"], ["--log"]):
            path = data / f"node-{game}{flags[0]}.jsonl"
            status, out = audit(
                capsys, "--target", server.target, "export", game, *flags, "-o", str(path)
            )
            assert status == 0, out
            py_status, py_out = audit(capsys, "verify", "--file", str(path), "--keys", str(keys))
            status, out = node(path, keys)
            if flags == ["--log"] or game == rotated["after"]:
                assert (py_status, status) == (0, 0), (py_out, out)
                assert out.startswith(f"verified game {game}: "), out
                words = (
                    "transparency log: all " if "--log" in flags else "not checked (no log line)"
                )
                assert words in out and words in py_out, (py_out, out)
            else:
                reason = f"is signed by retired key {rotated['old'].key_id}, retired at tree size "
                assert (py_status, status) == (1, 1), (py_out, out)
                assert reason in out and reason in py_out, (py_out, out)
                assert out.rstrip().endswith("no tree head proves it is in the log"), out


def node_run(*args: str) -> tuple[int, str, str]:
    """`node bin/verify.js ARGS`: its status, stdout and stderr."""
    ensure_node_modules()
    done = subprocess.run(
        ["node", str(NODE_DIR / "bin" / "verify.js"), *args],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    return done.returncode, done.stdout, done.stderr


def signed_heads(server: Any) -> tuple[translog.TreeHead, translog.TreeHead, translog.TreeHead]:
    """The server's latest head, one of the same size with another root signed by the server's
    own key (the key holder forking its log), and one signed by a stranger's key."""
    signer = Signer(read_key_file(server.data_dir / KEY_FILE))
    with TableClient(server.target) as client:
        real = head_of(client.stub.GetSigningKey(pb.GetSigningKeyRequest()).tree_heads[0])
    other = translog.TreeHead(real.log_id, real.size, "ab" * 32, real.timestamp + 1, signer.key_id)
    forged = translog.TreeHead(**{**other.__dict__, "signature": signer.sign(other.body())})
    stranger = Signer.generate()
    alien = translog.TreeHead(**{**other.__dict__, "key_id": stranger.key_id})
    alien = translog.TreeHead(**{**alien.__dict__, "signature": stranger.sign(alien.body())})
    return real, forged, alien


def write_heads(path: Path, *heads: translog.TreeHead) -> Path:
    path.write_text("".join(json.dumps(h.to_json()) + "\n" for h in heads))
    return path


def test_node_compare_proves_a_forked_log_as_python_does(served: Any, capsys: Any) -> None:  # noqa: F811
    """Two signed heads of one log and size with two roots: exit 3 and the same proof in
    both, with the server's keys (--target) or the key set (--keys); a stranger's head
    proves nothing (exit 0, the same words)."""
    server, game_id, data = served
    real, forged, alien = signed_heads(server)
    plain = data / "node-fork-plain.jsonl"
    export = ["export", game_id, "--no-log", "-o", str(plain)]
    assert audit(capsys, "--target", server.target, *export)[0] == 0
    keys = key_set(capsys, server.target, data / "node-fork-keys.json")
    heads = write_heads(data / "node-fork-heads.jsonl", real, forged)
    args = ["compare", "--file", str(plain), "--heads", str(heads)]
    py_status, py_out = audit(capsys, "--target", server.target, *args)
    assert py_status == 3 and "two different tree heads" in py_out, py_out
    for flags in (["--target", server.target], ["--keys", str(keys)]):
        assert node_run(*args, *flags) == (3, py_out, ""), flags
    write_heads(heads, real, alien)
    py_status, py_out = audit(capsys, "--target", server.target, *args)
    assert py_status == 0 and py_out.startswith("agree: 1 files"), py_out
    assert node_run(*args, "--keys", str(keys)) == (0, py_out, "")


def test_node_verify_keeps_the_heads_it_trusts_and_a_kept_fork_is_a_proof(  # noqa: F811
    served: Any,  # noqa: F811
    capsys: Any,
) -> None:
    """verify --heads: the log line's trusted head is kept (the file Python keeps, byte for
    byte); a kept head of the same size with another root proves a fork (exit 3) in both."""
    server, game_id, data = served
    logged = data / "node-heads-logged.jsonl"
    assert (
        audit(capsys, "--target", server.target, "export", game_id, "--log", "-o", str(logged))[0]
        == 0
    )
    keys = key_set(capsys, server.target, data / "node-heads-keys.json")
    _, forged, _ = signed_heads(server)  # after the export: the log is up to date
    kept_py, kept_js = data / "kept-py.jsonl", data / "kept-js.jsonl"
    assert (
        audit(
            capsys, "verify", "--file", str(logged), "--keys", str(keys), "--heads", str(kept_py)
        )[0]
        == 0
    )
    status, out, err = node_run(str(logged), "--keys", str(keys), "--heads", str(kept_js))
    assert (status, err) == (0, ""), err
    assert kept_js.read_text() == kept_py.read_text() and kept_js.read_text().count("\n") == 1
    assert node_run(str(logged), "--keys", str(keys), "--heads", str(kept_js))[0] == 0
    assert kept_js.read_text() == kept_py.read_text(), "a head is kept once"
    for path in (kept_py, kept_js):
        write_heads(path, forged)
    py_status, py_out = audit(
        capsys, "verify", "--file", str(logged), "--keys", str(keys), "--heads", str(kept_py)
    )
    assert py_status == 3 and "two different tree heads" in py_out, py_out
    js_out = py_out.replace("kept-py", "kept-js")  # each names its own file
    assert node_run(str(logged), "--keys", str(keys), "--heads", str(kept_js)) == (3, js_out, "")


def test_node_verify_with_target_asks_the_server_and_checks_consistency(  # noqa: F811
    served: Any,  # noqa: F811
    capsys: Any,
) -> None:
    """--target: a file without a log line has its seals proven by the server (the same log
    words as Python's); a kept head of a smaller size is checked with the server's
    consistency proof: an honest one passes and both are kept, a bent one fails in both with
    the same reason."""
    server, game_id, data = served
    # the sequencer logs the module's seals in rounds: read the head once the log stops
    # growing, or the server's newest head (kept by --heads) is larger than ``real``
    real, _, _ = signed_heads(server)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        time.sleep(0.5)
        again, _, _ = signed_heads(server)
        if again.size == real.size:
            break
        real = again
    plain = data / "node-target-plain.jsonl"
    export = ["export", game_id, "--no-log", "-o", str(plain)]
    assert audit(capsys, "--target", server.target, *export)[0] == 0
    py_status, py_out = audit(capsys, "--target", server.target, "verify", "--file", str(plain))
    status, out, err = node_run(str(plain), "--target", server.target)
    assert (py_status, status, err) == (0, 0, ""), (py_out, err)
    words = py_out.strip().split("; transparency log: ", 1)[1]
    assert words.startswith("all ") and out.strip().endswith(f"; transparency log: {words}"), out
    signer = Signer(read_key_file(server.data_dir / KEY_FILE))
    with TableClient(server.target) as client:
        asked = pb.GetTreeHeadRequest(log_id=real.log_id, tree_size=real.size - 1)
        past = head_of(client.stub.GetTreeHead(asked).tree_head)
    kept = write_heads(data / "node-consistent.jsonl", past)
    assert node_run(str(plain), "--target", server.target, "--heads", str(kept))[0] == 0
    assert [json.loads(line)["size"] for line in kept.read_text().splitlines()] == [
        past.size,
        real.size,
    ]
    bent = translog.TreeHead(past.log_id, past.size, "cd" * 32, past.timestamp, signer.key_id)
    bent = translog.TreeHead(**{**bent.__dict__, "signature": signer.sign(bent.body())})
    for name in ("py", "js"):
        write_heads(data / f"node-bent-{name}.jsonl", bent)
    py_status, py_out = audit(
        capsys, "--target", server.target, "verify", "--file", str(plain),
        "--heads", str(data / "node-bent-py.jsonl"),
    )  # fmt: skip
    status, out, err = node_run(
        str(plain), "--target", server.target, "--heads", str(data / "node-bent-js.jsonl")
    )
    reason = (
        f"tree heads of log {real.log_id} at sizes {past.size} and {real.size} are not consistent"
    )
    assert (py_status, status) == (1, 1) and reason in py_out, py_out
    assert err == py_out.replace("node-bent-py", "node-bent-js"), (py_out, err)


def test_node_with_target_fails_a_thiefs_game_as_python_does(rotated: Any, capsys: Any) -> None:  # noqa: F811
    """--target the real server: its key set names the old key retired, and the real server
    does not know the thief's game, so nothing proves its seals below the size: the same
    failure line in both, with and without the thief's own log line."""
    server, thief, data = rotated["server"], rotated["thief"], rotated["data"]
    for flags in (["--no-log"], ["--log"]):
        path = data / f"node-target-stolen{flags[0]}.jsonl"
        status, _ = audit(
            capsys, "--target", thief.target, "export", rotated["stolen"], *flags, "-o", str(path)
        )
        assert status == 0
        py_status, py_out = audit(capsys, "--target", server.target, "verify", "--file", str(path))
        assert py_status == 1 and f"signed by retired key {rotated['old'].key_id}" in py_out
        assert node_run(str(path), "--target", server.target) == (1, "", py_out)
    before = data / "node-target-before.jsonl"
    assert (
        audit(capsys, "--target", server.target, "export", rotated["before"], "-o", str(before))[0]
        == 0
    )
    py_status, py_out = audit(capsys, "--target", server.target, "verify", "--file", str(before))
    status, out, err = node_run(str(before), "--target", server.target)
    assert (py_status, status, err) == (0, 0, ""), (py_out, err)
    assert out.split("; transparency log: ")[1] == py_out.split("; transparency log: ")[1]


def test_node_compare_holds_the_key_sets_tree_heads_against_the_export(  # noqa: F811
    served: Any,  # noqa: F811
    capsys: Any,
) -> None:
    """compare --keys FILE: the key set's `tree_heads` are heads the auditor was given too
    (Python's compare has no --keys): a forged one of the export's log line's size is a fork."""
    server, game_id, data = served
    logged = data / "node-keyset-logged.jsonl"
    assert (
        audit(capsys, "--target", server.target, "export", game_id, "--log", "-o", str(logged))[0]
        == 0
    )
    keys = key_set(capsys, server.target, data / "node-keyset.json")
    real, forged, alien = signed_heads(server)  # after the export: the log is up to date
    assert node_run("compare", "--file", str(logged), "--keys", str(keys))[0] == 0
    for head, status in ((forged, 3), (alien, 0)):
        bent = data / "node-keyset-forged.json"
        bent.write_text(
            json.dumps({**json.loads(keys.read_text()), "tree_heads": [head.to_json()]})
        )
        code, out, err = node_run("compare", "--file", str(logged), "--keys", str(bent))
        assert (code, err) == (status, ""), (out, err)
    assert out.startswith("agree: 1 files"), out
    code, out, _ = node_run(
        "compare",
        "--file",
        str(logged),
        "--keys",
        str(keys),
        "--heads",
        str(write_heads(data / "node-keyset-heads.jsonl", forged)),
    )
    assert code == 3 and f"{keys} tree head 1: root {real.root}" in out, (
        out
    )  # the first after --heads


def stripped_of_key_ids(source: Path, path: Path) -> Path:
    """The export with `key_id` taken out of every seal: it is not signed, and optional (a
    seal stored before keys had ids names none; any given key that verifies then signed it)."""
    lines = []
    for line in source.read_text().splitlines():
        data = json.loads(line)
        if isinstance(data.get("seal"), dict):
            data["seal"].pop("key_id", None)
        lines.append(json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False))
    path.write_text("".join(line + "\n" for line in lines))
    return path


def thiefs_stripped_game(rotated: Any, capsys: Any) -> tuple[Path, Path]:  # noqa: F811
    server, thief, data = rotated["server"], rotated["thief"], rotated["data"]
    path = data / "node-stolen-plain.jsonl"
    status, _ = audit(
        capsys, "--target", thief.target, "export", rotated["stolen"], "--no-log", "-o", str(path)
    )
    assert status == 0
    stripped = stripped_of_key_ids(path, data / "node-stolen-stripped.jsonl")
    return stripped, key_set(capsys, server.target, data / "node-keys-stripped.json")


def test_node_fails_a_thiefs_game_whose_seals_name_no_key(rotated: Any, capsys: Any) -> None:  # noqa: F811
    """The retired-key rule applies to the key that signed a seal, not to the key id the seal
    names: a thief who strips the (unsigned) key ids still fails."""
    stripped, keys = thiefs_stripped_game(rotated, capsys)
    status, out, err = node_run(str(stripped), "--keys", str(keys))
    reason = f"is signed by retired key {rotated['old'].key_id}, retired at tree size "
    assert (status, out) == (1, "") and reason in err, err


def test_python_fails_a_thiefs_game_whose_seals_name_no_key(rotated: Any, capsys: Any) -> None:  # noqa: F811
    stripped, keys = thiefs_stripped_game(rotated, capsys)
    status, out = audit(capsys, "verify", "--file", str(stripped), "--keys", str(keys))
    assert status == 1 and f"signed by retired key {rotated['old'].key_id}" in out, out
