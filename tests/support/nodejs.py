"""The Node client's locked dependencies (clients/node/node_modules), installed when missing.

The Node verifier decodes the seats' signed commands with the contract's protobuf code
(protobufjs), so the tests that run ``clients/node/bin/verify.js`` need ``npm ci`` done once,
as ``clients/node/run-tests.sh`` does it: only when node_modules is missing or
package-lock.json changed since, under a lock that run-tests.sh takes too (test workers may
start at the same moment).

The verifier re-renders a viewer's events in the games' words (clients/node/lib/render.js):
``ensure_node_modules`` also writes their table, clients/node/gen/words.json, as ``make web``
does (server/wire/render_words.py), so a test run without ``make web`` finds it.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import shutil
import subprocess
from pathlib import Path

from server.wire.render_words import words

NODE_DIR = Path(__file__).resolve().parents[2] / "clients" / "node"


def ensure_node_modules() -> None:
    """``npm ci`` in clients/node unless its node_modules matches package-lock.json."""
    assert shutil.which("node") and shutil.which("npm"), "Node.js 18+ and npm are required"
    want = hashlib.sha256((NODE_DIR / "package-lock.json").read_bytes()).hexdigest()
    stamp = NODE_DIR / "node_modules" / ".package-lock.sha256"
    with open(NODE_DIR / ".npm-ci.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _write_words()
        if stamp.exists() and stamp.read_text().strip() == want:
            return
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"],
            cwd=NODE_DIR,
            check=True,
            timeout=600,
            stdin=subprocess.DEVNULL,
        )
        stamp.write_text(want + "\n")


def _write_words() -> None:
    """clients/node/gen/words.json from the domain's tables, unless it holds them already."""
    path = NODE_DIR / "gen" / "words.json"
    text = json.dumps(words(), ensure_ascii=False, sort_keys=True, indent=1) + "\n"
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")


def node_differs(script: str, path: Path) -> tuple[int, str]:
    """``node clients/node/test/SCRIPT PATH`` (a vectors checker: it prints each vector Node
    renders otherwise than the server did): its exit status and what it printed."""
    done = subprocess.run(
        ["node", str(NODE_DIR / "test" / script), str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    return done.returncode, done.stdout + done.stderr
