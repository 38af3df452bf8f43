"""`make bench`: every benchmark, written to docs/benchmarks.md.

Each figure is reported as a ratio to a baseline measured in the same run, because absolute
times on shared machines drift.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
from pathlib import Path

from bench import common, engine
from bench.common import sized

DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"


def engine_section(quick: bool) -> list[str]:
    from bench.variants import engine_variants

    lines = [
        "## P4: engine speed (pure domain, one core)",
        "",
        "Random self-play (`tests/support/selfplay.py`) of each variant, seeds 0 to games-1. "
        "Both the moves and the baseline (a fixed CPU workload, `bench/engine.py`) are read "
        "in CPU time of the benchmark process, and the baseline is measured in "
        f"{engine.SLICES} slices between each variant's games, so that other work on the "
        "machine skews neither. `ratio` is moves/s divided by the baseline's ops/s (higher "
        "is faster; comparable across runs). Target: ratio >= 0.35 for both games.",
        "",
        "| game | variant | games | moves | moves/s (CPU) | baseline ops/s (CPU) | ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    slowest: dict[str, float] = {}
    for rules, options, seats, label in engine_variants():
        r = engine.measure(rules, options, seats, sized(quick, 100, 20, 2), label)
        slowest[r.game] = min(slowest.get(r.game, r.ratio), r.ratio)
        lines.append(
            f"| {r.game} | {label} | {r.games} | {r.moves} | {r.moves_per_s:,.0f} | "
            f"{r.calibration:,.0f} | {r.ratio:.2f} |"
        )
        print(lines[-1], flush=True)
    from bench import targets

    for game, ratio in slowest.items():
        targets.at_least(f"P4 {game} engine ratio, slowest variant", ratio, 0.35)
    return lines


SECTIONS = (
    "engine",
    "api",
    "browser",
    "cpu",
    "fanout",
    "rebuild",
    "writes",
    "receipts",
    "soak",
    "feed",
    "procs",
    "peers",
    "history",
)
NOTES = Path(__file__).resolve().parent / "notes.md"


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--quick", action="store_true", help="fewer iterations")
    p.add_argument(
        "--smoke",
        action="store_true",
        help="tiny sizes, to run every benchmark's code (make test); the figures mean nothing",
    )
    p.add_argument("--output", type=Path, default=DOC, help=f"where to write (default {DOC})")
    p.add_argument("--only", default="", help=f"comma-separated sections: {','.join(SECTIONS)}")
    p.add_argument(
        "--merge",
        action="store_true",
        help="replace only this run's sections in docs/benchmarks.md and keep the others",
    )
    p.add_argument("--peers-rounds", type=int, help="peers: interleaved rounds (default 5)")
    p.add_argument("--peers-games", type=int, help="peers: games a round on each server (96)")
    p.add_argument("--peers-at-once", type=int, help="peers: games at a time (8)")
    args = p.parse_args(argv)
    common.SMOKE = args.smoke
    doc: Path = args.output
    load_start = os.getloadavg()[0]
    # benchmarks measure capacity, not policy: servers they start (which read TABLETOP_*
    # from this environment) do not rate-limit moves (server/transport/limits.py, docs/reliability.md)
    os.environ.setdefault("TABLETOP_MOVE_RATE", "0")
    only = set(filter(None, args.only.split(",")))
    unknown = only - set(SECTIONS)
    if unknown:
        p.error(f"unknown sections {sorted(unknown)}; choose from {SECTIONS}")
    sections: list[list[str]] = []
    if not only or "engine" in only:
        sections.append(engine_section(args.quick))
    if not only or "api" in only:
        from bench.api import api_section

        sections.append(api_section(args.quick))
    if not only or "browser" in only:
        from bench.browser_seat import browser_seat_section

        sections.append(browser_seat_section(args.quick))
    if not only or "cpu" in only:
        from bench.cpu import cpu_section

        sections.append(cpu_section(args.quick))
    if not only or "fanout" in only:
        from bench.fanout import fanout_section

        sections.append(fanout_section(args.quick))
    if not only or "rebuild" in only:
        from bench.rebuild import rebuild_section

        sections.append(rebuild_section(args.quick))
    if not only or "writes" in only:
        from bench.writes import writes_sections

        sections += writes_sections(args.quick)
    if not only or "receipts" in only:
        from bench.receipts import receipts_section

        sections.append(receipts_section(args.quick))
    if not only or "soak" in only:
        from bench.soak import soak_section

        sections.append(soak_section(args.quick))
    if not only or "feed" in only:
        from bench.feed_rows import feed_rows_section

        sections.append(feed_rows_section(args.quick))
    if not only or "procs" in only:
        from bench.procs import procs_section

        sections.append(procs_section(args.quick))
    if not only or "peers" in only:
        from bench.peers.section import peers_section

        sections.append(
            peers_section(args.quick, args.peers_rounds, args.peers_games, args.peers_at_once)
        )
    if not only or "history" in only:
        from bench.long_history import history_section

        sections.append(history_section(args.quick))
    from bench import targets

    given = sys.argv[1:] if argv is None else argv
    command = "make bench" + (f" ARGS='{' '.join(given)}'" if given else "")
    head = [
        "# Benchmarks",
        "",
        f"Written by `{command}` (`python -m bench.run`) on {datetime.date.today()} on "
        f"{platform.machine()} with {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, {_pg_version()}. The load generator shares the "
        "machine with the server and the database, as the baselines do. Each figure is "
        "read against a baseline measured in the same run. The machine's 1-minute load "
        f"average was {load_start:.1f} at the start and {os.getloadavg()[0]:.1f} at the end "
        f"(above {os.cpu_count()}, other work was sharing the cores).",
        "",
    ]
    notes = NOTES.read_text().splitlines() if NOTES.exists() else []
    body = targets.render() + [""] + [line for s in sections for line in s + [""]] + notes
    if args.merge and doc.exists():
        old = doc.read_text().splitlines()
        merged_targets = _merged_targets(old, targets.render()) if targets.CHECKS else []
        body = _merged(old, [s for s in (merged_targets, *sections) if s])
        names = f"Sections {', '.join(sorted(only))} re-measured by"
        ran = f"{names} `{command}` on {datetime.date.today()}"
        # this run's line replaces an earlier run's of the same sections (and its blank line)
        rest = [line for line in body[1:] if not line.startswith(names)]
        rest = [line for i, line in enumerate(rest) if line or not (i and not rest[i - 1])]
        head, body = (
            body[:1],
            [
                "",
                f"{ran}, load average {load_start:.1f} at the start and "
                f"{os.getloadavg()[0]:.1f} at the end; the other sections are from the run "
                "described below.",
                *rest,
            ],
        )
    doc.write_text("\n".join(head + body) + "\n")
    table = _table(body, "## Targets")
    print("\n".join(table or ["(no targets measured)"]))
    print(f"wrote {doc}")


def _table(lines: list[str], title: str) -> list[str]:
    """The section ``title`` of ``lines`` (the targets, as written), without its title."""
    if title not in lines:
        return []
    i = lines.index(title) + 1
    end = next((j for j in range(i, len(lines)) if lines[j].startswith("## ")), len(lines))
    return [line for line in lines[i:end] if line.strip()]


def _merged_targets(old: list[str], fresh: list[str]) -> list[str]:
    """The Targets table with this run's rows in place of the same figures' old rows (the
    figures not measured now keep theirs)."""
    title = fresh[0]
    rows = {line.split(" | ")[0]: line for line in fresh if line.startswith("| ")}
    if title not in old:
        return fresh
    i = old.index(title)
    end = next((j for j in range(i + 1, len(old)) if old[j].startswith("## ")), len(old))
    out, seen = [], set()
    for line in old[i:end]:
        key = line.split(" | ")[0]
        if line.startswith("| ") and key in rows and not line.startswith("|---"):
            out.append(rows[key])
            seen.add(key)
        else:
            out.append(line)
    table_end = max(j for j, line in enumerate(out) if line.startswith("|")) + 1
    new_rows = [r for k, r in rows.items() if k not in seen and not r.startswith("| figure")]
    merged = out[:table_end] + new_rows + out[table_end:]
    while merged and not merged[-1].strip():  # _merged puts one blank line between sections
        merged.pop()
    return merged


def _merged(old: list[str], sections: list[list[str]]) -> list[str]:
    """``old`` with each of ``sections`` in place of the section of the same ``## `` title,
    or before the notes if it is new; the notes (the reading of the figures, which ends the
    document) are bench/notes.md as it is now, as a full run writes them."""
    notes = NOTES.read_text().splitlines() if NOTES.exists() else []
    out = list(old)
    if notes and notes[0] in out:
        out = out[: out.index(notes[0])]
    for section in sections:
        title = section[0]
        starts = [i for i, line in enumerate(out) if line.startswith("## ")]
        if title in out:
            i = out.index(title)
            end = next((j for j in starts if j > i), len(out))
            out[i:end] = [*section, ""]
        else:
            out += [*section, ""]
    return out + notes


def _pg_version() -> str:
    try:
        import subprocess

        from tests.support.pgserver import bin_dir

        out = subprocess.run(
            [str(bin_dir() / "postgres"), "--version"], capture_output=True, text=True
        ).stdout.strip()
        return out.replace("postgres (PostgreSQL)", "PostgreSQL")
    except Exception:
        return "PostgreSQL not found"


if __name__ == "__main__":
    main()
