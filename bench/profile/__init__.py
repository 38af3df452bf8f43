"""Profiling tools for the speed work (issue 23): the probes behind bench/notes.md, kept
runnable. How to run each one: bench/README.md, "Profiling tools"."""

from __future__ import annotations

import argparse


def parser(tool: str, doc: str | None) -> argparse.ArgumentParser:
    """The options of ``python -m bench.profile.TOOL``; its module text is the help."""
    return argparse.ArgumentParser(
        prog=f"python -m bench.profile.{tool}",
        description=doc,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
