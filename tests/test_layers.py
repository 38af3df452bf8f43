"""The house's arrows point one way (issues 11 and 23): the import check passes on the tree, and
fails on each kind of wrong arrow planted in a copy of it (the check's own mutation test)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_check(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tests.support.layers"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
    )


def test_the_tree_keeps_its_floors_and_has_no_circle() -> None:
    result = run_check(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "11 kept, 0 broken" in result.stdout


@pytest.fixture(scope="module")
def copy_of_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tree")
    for name in ("domain", "server", "clients", "tests/support"):
        shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("node_modules"))
    for init in ("tests/__init__.py",):
        shutil.copy(ROOT / init, root / init)
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


PLANTED = {
    "a circle in server/": (
        "server/usecases/hub.py",
        "import server.usecases.games",
        "circle of imports",
    ),
    "a circle in domain/": ("domain/codec.py", "import domain.table", "BROKEN"),
    "domain imports the server": ("domain/engine.py", "import server.transport.errors", "BROKEN"),
    "domain imports the store library": ("domain/engine.py", "import eventsourcing", "BROKEN"),
    "the wire floor imports the store": ("server/wire/render.py", "import server.store", "BROKEN"),
    "the wire floor imports gRPC": ("server/wire/receipts.py", "import grpc", "BROKEN"),
    "the store imports a use case": ("server/store/shards.py", "import server.usecases", "BROKEN"),
    "a use case imports the transport": (
        "server/usecases/games.py",
        "import server.transport.errors",
        "BROKEN",
    ),
    "the transport imports start-up": (
        "server/transport/servicer.py",
        "import server.startup.config",
        "BROKEN",
    ),
    "the bots import the forwarder": (
        "server/transport/web/bots.py",
        "import server.transport.web.api",
        "BROKEN",
    ),
    "the forwarder imports the origin": (
        "server/transport/web/api.py",
        "import server.transport.web.origin",
        "BROKEN",
    ),
    "a use case imports gRPC": ("server/usecases/deal.py", "import grpc", "BROKEN"),
    "one use case imports another": (
        "server/usecases/play.py",
        "import server.usecases.watch",
        "BROKEN",
    ),
    "a job imports the table server": (
        "server/usecases/timers.py",
        "import server.usecases.table_server",
        "BROKEN",
    ),
    "the use cases' ports import the common ground": (
        "server/usecases/ports.py",
        "import server.usecases.games",
        "BROKEN",
    ),
    "the auditor imports the server's use cases": (
        "clients/python/audit_receipts.py",
        "import server.usecases.games",
        "BROKEN",
    ),
    "a client imports the server's store": (
        "clients/python/client.py",
        "import server.store.eventstore",
        "BROKEN",
    ),
    "a game imports the table": ("domain/zipai/cards.py", "import domain.table", "BROKEN"),
    "a game imports another": ("domain/huaniao/cards.py", "import domain.zipai", "BROKEN"),
    "the table imports the match": ("domain/table/state.py", "import domain.match", "BROKEN"),
    "a match fact imports its decisions": (
        "domain/match/facts.py",
        "import domain.match.decide",
        "BROKEN",
    ),
    "justice imports the table": (
        "domain/table/justice/state.py",
        "import domain.table.decider",
        "BROKEN",
    ),
    "the draw imports the decider": (
        "domain/table/draw.py",
        "import domain.table.decider",
        "BROKEN",
    ),
    "the table's evolve imports the draw": (
        "domain/table/evolution.py",
        "import domain.table.draw",
        "BROKEN",
    ),
    "the verdict imports justice's decisions": (
        "domain/table/justice/verdict.py",
        "import domain.table.justice.decide",
        "BROKEN",
    ),
}


@pytest.mark.parametrize("case", sorted(PLANTED))
def test_the_check_fails_on_a_planted_wrong_arrow(copy_of_tree: Path, case: str) -> None:
    path, line, expected = PLANTED[case]
    target = copy_of_tree / path
    original = target.read_text()
    target.write_text(original + f"\n{line}  # planted by tests/test_layers.py\n")
    try:
        result = run_check(copy_of_tree)
    finally:
        target.write_text(original)
    assert result.returncode == 1, f"{case} went unnoticed:\n{result.stdout}"
    assert expected in result.stdout, result.stdout
