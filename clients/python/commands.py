"""The commands the CLI and the demo print for what to do next, spelled so that they run as
printed, from any folder.

The entry points (``tabletop``, ``tabletop-audit``) are installed in ``.venv/bin``, which the
README's setup does not put on PATH, so their bare names fail as ``command not found``. This
interpreter's absolute path with ``-m`` and the module the entry point runs works wherever the
person pastes it: the package is installed in that interpreter's environment.
"""

from __future__ import annotations

import shlex
import sys

MODULES = {"tabletop": "clients.python.cli", "tabletop-audit": "clients.python.audit"}


def command(name: str, *args: str) -> str:
    """``name args...`` as a line that runs from any folder: this interpreter's absolute path,
    ``-m`` and the entry point's module (``tabletop-audit`` -> ``clients.python.audit``)."""
    words = [sys.executable, "-m", MODULES[name], *args]
    return shlex.join(words)
