"""docs/api.md's Go quick start, built and run as written (clients/go: go.mod, gen.sh,
main.go) against a real server, with Debian's Go toolchain in GOPATH mode. Its seats sign
their commands (a keyed table refuses unsigned ones), and `go test` checks docs/api.md's
seat signature test vector against its signing code (sign_test.go)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from clients.python.serverproc import ServerProcess
from tests.support.golang import GOCODE, ensure_go

ROOT = Path(__file__).resolve().parents[2]


def go_cache(tmp_path: Path) -> str:
    """$GOCACHE, else go's default (under $XDG_CACHE_HOME or $HOME), else a fresh one."""
    if os.environ.get("GOCACHE"):
        return os.environ["GOCACHE"]
    base = os.environ.get("XDG_CACHE_HOME") or (
        str(Path(os.environ["HOME"]) / ".cache") if os.environ.get("HOME") else ""
    )
    return str(Path(base) / "go-build") if base else str(tmp_path / "cache")


@pytest.mark.xdist_group("go")
def test_the_go_quick_start_plays_a_move(server: ServerProcess, tmp_path: Path) -> None:
    ensure_go()
    app = tmp_path / "src" / "example.com" / "tabletopdemo"
    shutil.copytree(ROOT / "clients" / "go", app)
    env = {
        **os.environ,
        "PROTOS": str(ROOT / "protos"),
        "GO111MODULE": "off",  # no module proxy here: the Debian sources under GOPATH
        "GOPATH": f"{tmp_path}:{GOCODE}",
        # the machine's build cache (go's default, content-addressed and safe to share):
        # grpc-go and protobuf compile once, not in every run (66 s of both cores cold)
        "GOCACHE": go_cache(tmp_path),
        "TABLETOP_TARGET": server.target,
    }
    subprocess.run(["./gen.sh"], cwd=app, env=env, check=True, timeout=120)
    subprocess.run(["go", "build", "-o", "demo", "."], cwd=app, env=env, check=True, timeout=600)
    out = subprocess.run(
        ["./demo"], cwd=app, env=env, capture_output=True, text=True, timeout=60, check=True
    ).stdout
    assert "played 起 1 鸟, now version 16" in out, out  # 4 joins, 4 reveals, the deal, a move
    tested = subprocess.run(
        ["go", "test", "-v", "-run", "TestSeatSignatureVector", "."],
        cwd=app,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert tested.returncode == 0 and "--- PASS: TestSeatSignatureVector" in tested.stdout, (
        tested.stdout + tested.stderr
    )
    docs = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    assert (app / "main.go").read_text(encoding="utf-8").strip() in docs, "docs show main.go"
