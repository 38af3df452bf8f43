"""The Node verifier's transparency log through real servers (issue 36), beside the Python
auditor: the servers and games of tests/api/test_transparency_log.py (its module fixtures).

An export with its log line (`tabletop-audit export --log`) verifies offline in Node with the
server's key set (`tabletop-audit key --json`, `--keys FILE`), and says so; a dropped
inclusion or a bent path fails. After a key rotation, a thief's new game signed with the
retired key fails in Node with the same reason as in Python ("signed by retired key K,
retired at tree size N"), with and without the thief's own log line, while the games signed
before the rotation still verify.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.api.test_transparency_log import audit, rotated, served  # noqa: F401  (fixtures)
from tests.support.nodejs import NODE_DIR, ensure_node_modules


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
    for flags in ([], ["--log"]):  # without the log line, and with the thief's own
        path = data / f"node-stolen{len(flags)}.jsonl"
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
        for flags in ([], ["--log"]):
            path = data / f"node-{game}{len(flags)}.jsonl"
            status, out = audit(
                capsys, "--target", server.target, "export", game, *flags, "-o", str(path)
            )
            assert status == 0, out
            py_status, py_out = audit(capsys, "verify", "--file", str(path), "--keys", str(keys))
            status, out = node(path, keys)
            if flags or game == rotated["after"]:
                assert (py_status, status) == (0, 0), (py_out, out)
                assert out.startswith(f"verified game {game}: "), out
                words = "transparency log: all " if flags else "not checked (no log line)"
                assert words in out and words in py_out, (py_out, out)
            else:
                reason = f"is signed by retired key {rotated['old'].key_id}, retired at tree size "
                assert (py_status, status) == (1, 1), (py_out, out)
                assert reason in out and reason in py_out, (py_out, out)
                assert out.rstrip().endswith("no tree head proves it is in the log"), out
