"""`make bench`: every benchmark, written to docs/benchmarks.md.

Each figure is reported as a ratio to a baseline measured in the same run, because absolute
times on shared machines drift.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
from pathlib import Path

from bench import engine

DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"


def engine_section(quick: bool) -> list[str]:
    from bench.variants import engine_variants

    calib = engine.calibration_ops_per_s()
    lines = [
        "## P4: engine speed (pure domain, one core)",
        "",
        f"Baseline: a fixed CPU workload ran at {calib:,.0f} ops/s in this run. "
        "`ratio` is moves/s divided by that rate (higher is faster; comparable across runs).",
        "",
        "| game | variant | games | moves | moves/s | ratio |",
        "|---|---|---|---|---|---|",
    ]
    for rules, options, seats, label in engine_variants():
        r = engine.measure(rules, options, seats, 20 if quick else 100, label)
        lines.append(
            f"| {r.game} | {label} | {r.games} | {r.moves} | {r.moves_per_s:,.0f} | "
            f"{r.moves_per_s / calib:.2f} |"
        )
        print(lines[-1], flush=True)
    return lines


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--quick", action="store_true", help="fewer iterations (a smoke run)")
    p.add_argument("--only", default="", help="comma-separated sections: engine,api,rebuild")
    args = p.parse_args(argv)
    only = set(filter(None, args.only.split(",")))
    sections: list[list[str]] = []
    if not only or "engine" in only:
        sections.append(engine_section(args.quick))
    if not only or "api" in only:
        from bench.api import api_section

        sections.append(api_section(args.quick))
    if not only or "rebuild" in only:
        from bench.rebuild import rebuild_section

        sections.append(rebuild_section(args.quick))
    head = [
        "# Benchmarks",
        "",
        f"Written by `make bench` on {datetime.date.today()} on {platform.machine()} with "
        f"{os.cpu_count()} cores, Python {platform.python_version()}. The load generator "
        "shares the machine with the server, as the baselines do.",
        "",
    ]
    DOC.write_text("\n".join(head + [line for s in sections for line in s + [""]]))
    print(f"wrote {DOC}")


if __name__ == "__main__":
    main()
