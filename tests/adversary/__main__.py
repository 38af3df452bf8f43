"""Print the harness's counts: ``python -m tests.adversary`` (one line per coalition), or
``python -m tests.adversary --markdown`` (the table of docs/threats.md: per game, seat
count and kind of coalition, the worst over which seats collude)."""

from __future__ import annotations

import sys
from collections.abc import Iterable

from tests.adversary import harness as h


def _role(c: h.Coalition) -> str:
    k = len(c.seats)
    base = "operator" if c.operator else "arbiter" if c.arbiter else ""
    if not k:
        return f"{base} alone"
    seats = f"{k} seat" + ("s" if k > 1 else "")
    return f"{base} + {seats}" if base else seats


def _pause(ms: float) -> str:
    if ms == float("inf"):
        return "unbounded"
    return f"{ms / 3_600_000:.1f} h" if ms else "0"


def markdown(rows: Iterable[h.Counts]) -> str:
    groups: dict[tuple[str, int, str], list[h.Counts]] = {}
    for c in rows:
        groups.setdefault((c.kind, c.n, _role(c.coalition)), []).append(c)
    first = next(iter(groups.values()))[0]
    bounds = [
        "none documented" if b is None else _pause(b) for b in (first.bound_ms, first.case_bound_ms)
    ]
    out = [
        f"Seed {h.SEED}. Bound on a hand's pause: {bounds[0]}; on one case: {bounds[1]} "
        f"(at {first.kind}, {first.n} seats). Each cell is the worst over which seats collude.",
        "",
        "| game | seats | coalition | deals: hand 1 / later hand / redeal draw / by redeals "
        "| penalties forced: votes / arbiter / delayed call | unsigned commands verified "
        "| longest pause of a hand | longest case | deadline moved by |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (kind, n, role), cs in groups.items():
        deals = "/".join(str(max(c.deals[d] for c in cs)) for d in (*h.DRAWS, "redeal"))
        forced = "/".join(
            str(max(c.forced.count(s) for c in cs))
            for s in ("votes", "arbiter ruling", "delayed call")
        )
        unsigned = max(c.unsigned for c in cs)
        out.append(
            f"| {kind} | {n} | {role} | {deals} | {forced} | {unsigned} "
            f"| {_pause(max(c.pause.hand_ms for c in cs))} "
            f"| {_pause(max(c.pause.case_ms for c in cs))} "
            f"| {', '.join(sorted(set().union(*(c.pause.moved_by for c in cs)))) or '-'} |"
        )
    return "\n".join(out)


def main(argv: list[str]) -> None:
    counts = [
        h.measure(kind, n, c)
        for kind in h.GAMES
        for n in h.seat_counts(kind)
        for c in h.coalitions(n)
    ]
    print(markdown(counts) if "--markdown" in argv else "\n".join(map(h.row, counts)))


if __name__ == "__main__":
    main(sys.argv[1:])
