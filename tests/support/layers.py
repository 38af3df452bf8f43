"""The import check: the floors of domain/ (import-linter contracts in pyproject.toml) and no
circle of imports anywhere in domain/, server/ or clients/.

Run as ``python -m tests.support.layers`` from a project root; exits 1 naming what broke.
"""

from __future__ import annotations

import sys

import grimp
from importlinter.cli import lint_imports

PACKAGES = ("domain", "server", "clients")


def circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Every strongly connected set of two or more modules (Tarjan), i.e. each circle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = stack[stack.index(module) :]
            del stack[stack.index(module) :]
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))
    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def main() -> int:
    sys.path.insert(0, ".")
    broken = lint_imports(config_filename="pyproject.toml", no_cache=True, no_logo=True)
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    for group in circles(graph):
        print("circle of imports: " + " -> ".join(group))
        broken = 1
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
