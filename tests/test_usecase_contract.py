"""The use cases are collaborators, not one object in many files (issue 39): each job is a
class built with what it uses (server/startup/compose.py wires them), so what a job touches
is what its constructor takes. An AST check over server/usecases/*.py keeps it so:

(a) no class there inherits from another class of the use cases (a job from ``Games`` or
    from another job: the mixins this replaced);
(b) no code there reads or writes a private attribute (``_name``) of anything but ``self``
    (``self.games._latest`` is refused: a job asks ``Games`` through its public methods);
(c) a class's ``self.X`` are only what its own ``__init__`` assigns and what its own body
    defines (nothing comes from a base or is set on it from outside).

Then the check's own mutation test: each kind of violation planted in a copy of one file
is found."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
USECASES = Path("server/usecases")


def _is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _base_name(base: ast.expr) -> str:
    if isinstance(base, ast.Subscript):  # Generic[...], a parametrized base
        base = base.value
    if isinstance(base, ast.Attribute):
        return base.attr
    return base.id if isinstance(base, ast.Name) else ""


def _own_names(cls: ast.ClassDef) -> set[str]:
    """What a class defines itself: its body's names, and what its ``__init__`` assigns to
    ``self``."""
    own: set[str] = set()
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            own.add(stmt.name)
        elif isinstance(stmt, ast.Assign):
            own.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            own.add(stmt.target.id)
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__":
            for node in ast.walk(stmt):
                targets: list[ast.expr] = []
                if isinstance(node, ast.Assign):
                    targets = list(node.targets)
                elif isinstance(node, ast.AnnAssign | ast.AugAssign):
                    targets = [node.target]
                own.update(
                    t.attr for t in targets if isinstance(t, ast.Attribute) and _is_self(t.value)
                )
    return own


def violations(root: Path) -> list[str]:
    """Every breach of (a), (b) and (c) in ``root``'s server/usecases/*.py."""
    trees = {p: ast.parse(p.read_text(), str(p)) for p in sorted((root / USECASES).glob("*.py"))}
    classes = {
        node.name
        for tree in trees.values()
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    }
    found: list[str] = []
    for path, tree in trees.items():
        where = path.relative_to(root)
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                inherited = [b for b in map(_base_name, node.bases) if b in classes]
                if inherited:
                    found.append(f"{where}:{node.lineno}: {node.name} inherits {inherited} (a)")
                own = _own_names(node)
                for inner in ast.walk(node):
                    if (
                        isinstance(inner, ast.Attribute)
                        and _is_self(inner.value)
                        and not (inner.attr.startswith("__") and inner.attr.endswith("__"))
                        and inner.attr not in own
                    ):
                        found.append(
                            f"{where}:{inner.lineno}: {node.name} uses self.{inner.attr}, "
                            "which neither its __init__ nor its body defines (c)"
                        )
            elif isinstance(node, ast.Attribute) and _private(node.attr):
                if not _is_self(node.value):
                    found.append(
                        f"{where}:{node.lineno}: {ast.unparse(node)}: another object's "
                        "private attribute (b)"
                    )
    return found


def test_the_use_cases_are_collaborators() -> None:
    assert violations(ROOT) == []


@pytest.fixture()
def copy_of_usecases(tmp_path: Path) -> Path:
    shutil.copytree(
        ROOT / USECASES, tmp_path / USECASES, ignore=shutil.ignore_patterns("__pycache__")
    )
    return tmp_path


PLANTED = {
    "a job inherits the common ground again": (
        "play.py",
        "class Play:",
        "class Play(Games):",
        "Play inherits ['Games'] (a)",
    ),
    "a job reads the common ground's private cache": (
        "play.py",
        "        agg = await self.games.load(self.games.parse_id(game_id))",
        "        agg = self.games._latest[self.games.parse_id(game_id)]",
        "self.games._latest: another object's private attribute (b)",
    ),
    "a job takes a lock the common ground keeps": (
        "timers.py",
        "async with games.lock(game_id):",
        "async with games._locks[game_id]:",
        "games._locks: another object's private attribute (b)",
    ),
    "a job uses what its constructor does not take": (
        "play.py",
        "        agg = await self.games.load(self.games.parse_id(game_id))",
        "        agg = await self.load(self.games.parse_id(game_id))",
        "Play uses self.load, which neither its __init__ nor its body defines (c)",
    ),
}


@pytest.mark.parametrize("case", sorted(PLANTED))
def test_the_check_fails_on_a_planted_violation(copy_of_usecases: Path, case: str) -> None:
    name, before, after, expected = PLANTED[case]
    target = copy_of_usecases / USECASES / name
    original = target.read_text()
    assert before in original, f"{case}: the line to change is gone from {name}"
    target.write_text(original.replace(before, after, 1))
    found = violations(copy_of_usecases)
    assert any(expected in v for v in found), f"{case} went unnoticed: {found}"
