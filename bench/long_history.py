"""A long justice history through a real server: what one more event costs as it grows.

A 2-seat table whose seats take turns reporting each other for 其他违规 with a warning, and
the accused confirms: four events a round (ViolationReported, VoteCast, CaseClosed,
PenaltyApplied), none of which counts against a seat (an upheld warning costs nothing), so
seats can grow a history as long as they like. The server is a real process
(``clients.python.serverproc``); its RSS is read from /proc and its store calls from its
metrics endpoint, at several lengths of the history.

``python -m bench.long_history --events 4000 --every 500`` (``make bench``'s section H1,
``history_section``) prints, per stretch of the
history, the server's RSS growth per event, its CPU per event, the wall time per event and
its store reads per round. tests/api/test_long_history.py checks the same figures' slopes
(not their times).
"""

from __future__ import annotations

import argparse
import os
import re
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc

from clients.python.client import TableClient
from clients.python.seat import SeatClient
from clients.python.serverproc import ServerProcess
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2 as pb

EVENTS_PER_ROUND = 4  # report, vote, case closed, penalty applied
_PAGE = os.sysconf("SC_PAGE_SIZE")
_TICK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Sample:
    """The server at one length of the history."""

    version: int  # the game's version (its events so far)
    rss: int  # bytes resident
    cpu: float  # seconds of CPU (user + system) since start
    wall: float  # seconds since the first sample
    store_reads: int  # store calls that read (load, load_version, read)


def rss_of(pid: int) -> int:
    """Resident bytes of a process (the second field of /proc/PID/statm, in pages)."""
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * _PAGE


def cpu_of(pid: int) -> float:
    """CPU seconds a process used, user and system (fields 14 and 15 of /proc/PID/stat)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


_READ_OPS = ("load", "load_version", "read")
_STORE_COUNT = re.compile(r'^tabletop_store_seconds_count\{op="(\w+)"\} ([0-9.e+]+)$', re.M)


def store_reads(metrics_port: int) -> int:
    """The server's store read calls so far, from its Prometheus endpoint."""
    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as r:
        text = r.read().decode()
    return int(sum(float(n) for op, n in _STORE_COUNT.findall(text) if op in _READ_OPS))


def start_server(data_dir: Path, store: str = "sqlite", extra: list[str] = ()) -> ServerProcess:  # type: ignore[assignment]
    return ServerProcess(
        data_dir, store=store, extra=["--metrics-port", "0", "--move-rate", "0", *extra]
    ).start()


def metrics_port_of(server: ServerProcess) -> int:
    """The metrics port the server picked (``--metrics-port 0``), written beside its port
    file."""
    for path in server.data_dir.glob("port.*.metrics"):
        return int(path.read_text())
    raise RuntimeError("the server wrote no metrics port")


def open_table(client: TableClient) -> tuple[str, list[SeatClient]]:
    """A 2-seat 花鸟风月 table, both seats keyed, the game started."""
    options = pb.GameOptions(huaniao=huaniao_pb2.Options(mode=huaniao_pb2.Mode.MODE_BASIC))
    created = client.create_game(options, 2)
    seats = [client.join(created.game_id, s, f"p{s}", contribution="") for s in range(2)]
    seats[0].start()
    return created.game_id, seats


def warn_round(seats: list[SeatClient], round_no: int, version: int) -> int:
    """One round: seat r%2 reports the other for 其他违规 with a warning, the accused
    confirms. Returns the game's version after it."""
    by = seats[round_no % 2]
    accused = seats[1 - round_no % 2]
    reported = by.play(
        pb.Move(
            table=pb.TableCommand(
                report=pb.Report(
                    accused=accused.seat,
                    violation=pb.VIOLATION_KIND_OTHER,
                    evidence=[version],
                    penalty=pb.Penalty(kind=pb.PENALTY_KIND_WARNING),
                    note="stalling",
                )
            )
        ),
        version,
    )
    accused._saw(reported.events)  # as its Watch would show it: no GetView to sign the vote
    case = int(reported.version)
    voted = accused.play(
        pb.Move(table=pb.TableCommand(cast_vote=pb.CastVote(case_id=case, uphold=True))), case
    )
    return int(voted.version)


def forget_seen(seats: list[SeatClient], keep_from: int) -> None:
    """The client keeps every chain hash it saw; the bench measures the server, so the
    seats forget the old ones (a signature names only the latest)."""
    for seat in seats:
        seat._hashes = {k: h for k, h in seat._hashes.items() if k[1] >= keep_from}


def grow(
    server: ServerProcess,
    metrics_port: int,
    seats: list[SeatClient],
    version: int,
    until: int,
    every: int,
    look: Callable[[], object] | None = None,
) -> Iterator[Sample]:
    """Play warning rounds until the game reaches ``until`` events, or the bound on its
    history refuses a report, sampling the server every ``every`` events (and at the start
    and the end). ``look``: called after each round (a viewer asking for the table)."""
    pid = server.proc.pid if server.proc else 0
    began = time.perf_counter()

    def sample() -> Sample:
        return Sample(
            version,
            rss_of(pid),
            cpu_of(pid),
            time.perf_counter() - began,
            store_reads(metrics_port),
        )

    yield sample()
    sampled = version
    next_at = version + every
    round_no = 0
    while version < until:
        try:
            version = warn_round(seats, round_no, version)
        except grpc.RpcError as refused:
            if refused.code() is not grpc.StatusCode.FAILED_PRECONDITION:
                raise
            break  # the bound on a history (REPORTS_PER_DEAL): the history is as long as it gets
        round_no += 1
        if look is not None:
            look()
        if round_no % 64 == 0:
            forget_seen(seats, version - 8)
        if version >= next_at or version >= until:
            yield sample()
            sampled = version
            next_at += every
    if version > sampled:  # stopped by the bound since the last sample
        yield sample()


def per_event(a: Sample, b: Sample) -> dict[str, float]:
    """What each event between two samples cost the server."""
    n = b.version - a.version
    return {
        "events": n,
        "rss_bytes": (b.rss - a.rss) / n,
        "cpu_us": (b.cpu - a.cpu) / n * 1e6,
        "wall_us": (b.wall - a.wall) / n * 1e6,
        "reads": (b.store_reads - a.store_reads) / n * EVENTS_PER_ROUND,
    }


# Measured by this bench at f6abd8f (before issue 38), a spectator's GetView after each round:
# (first event, last event, RSS growth B/event, server CPU µs/event). The history had no
# bound then; 9,003 events held about 1.5 GB (the issue).
BEFORE = (
    (7, 507, 23_740, 2_160),
    (507, 1_007, 32_489, 3_400),
    (1_007, 1_507, 38_740, 4_320),
    (1_507, 2_007, 45_441, 5_440),
    (2_007, 2_507, 64_111, 6_920),
    (2_507, 3_007, 69_231, 7_900),
    (3_007, 3_507, 79_200, 8_740),
    (3_507, 4_003, 89_410, 10_081),
)


def measure(events: int, every: int, views: bool, store: str = "sqlite") -> list[Sample]:
    """One history through a fresh server process (SQLite in a temporary directory)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="long-history-") as tmp:
        server = start_server(Path(tmp), store)
        try:
            port = metrics_port_of(server)
            with TableClient(server.target) as client:
                game_id, seats = open_table(client)
                spectator = client.as_viewer(game_id)
                version = spectator.view().version
                look = spectator.view if views else None
                return list(grow(server, port, seats, version, events, every, look))
        finally:
            server.stop()


def history_section(quick: bool) -> list[str]:
    """``make bench``'s section: the history to its bound, with and without views."""
    from bench.common import sized

    every = sized(quick, 500, 500, 100)
    events = sized(quick, 10**6, 10**6, 300)  # to the bound (about 2,050 events)
    lines = [
        "## H1: a long justice history (issue 38)",
        "",
        "A 2-seat table whose seats report each other for 其他违规 with a warning that the "
        "accused confirms (4 events a round, none counting against a seat), through a real "
        "server process on SQLite (`python -m bench.long_history`), until the bound on a "
        "history refuses the next report (`REPORTS_PER_DEAL`: 256 reports a seat a deal, "
        "docs/api.md). Per stretch of the history: the server's RSS growth and CPU per "
        "event, and its store reads per round. `views`: a spectator's GetView after each "
        "round (a view lists every case, so it costs more as cases add up, up to the bound); "
        "the signed views kept are capped at `--view-cache-mb` (32), which the RSS fills "
        "first and then stays flat.",
        "",
        "| views | events | RSS MB at end | RSS B/event | CPU µs/event | reads/round |",
        "|---|---|---|---|---|---|",
    ]
    ratios = []
    for views in (True, False):
        samples = measure(events, every, views)
        for a, b in zip(samples, samples[1:], strict=False):
            f = per_event(a, b)
            lines.append(
                f"| {'yes' if views else 'no'} | {a.version}-{b.version} | "
                f"{b.rss / 2**20:.1f} | {f['rss_bytes']:,.0f} | {f['cpu_us']:,.0f} | "
                f"{f['reads']:.2f} |"
            )
            print(lines[-1], flush=True)
        if len(samples) >= 3:  # the first stretch against the last ``every`` events or more
            end = samples[-1]
            late = max((x for x in samples if x.version <= end.version - every), key=_version)
            early_cpu = per_event(samples[0], samples[1])["cpu_us"]
            late_cpu = per_event(late, end)["cpu_us"]
            ratios.append((views, early_cpu, late_cpu, late.version, end.version))
    lines += [
        "",
        "The same bench before issue 38 (f6abd8f, views after each round, no bound: the "
        "history went on):",
        "",
        "| events | RSS B/event | CPU µs/event |",
        "|---|---|---|",
        *(f"| {a}-{b} | {rss:,} | {cpu:,} |" for a, b, rss, cpu in BEFORE),
        "",
    ]
    for views, early_cpu, late_cpu, late_from, last in ratios:
        lines.append(
            f"- {'with' if views else 'without'} views: CPU per event {early_cpu:,.0f} µs in "
            f"the first stretch and {late_cpu:,.0f} µs from event {late_from:,} to the end "
            f"({late_cpu / early_cpu:.2f}x); the history stopped at {last:,} events, by its "
            f"bound (before: {BEFORE[0][3]:,} -> {BEFORE[-1][3]:,} µs, 4.7x, and on without "
            "end)."
        )
    return lines


def _version(sample: Sample) -> int:
    return sample.version


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=4000, help="the history's length at most")
    parser.add_argument("--every", type=int, default=500, help="events between samples")
    parser.add_argument("--store", default="sqlite", choices=["sqlite", "memory"])
    parser.add_argument(
        "--no-views",
        action="store_true",
        help="no spectator's GetView after each round (by default one, as a table's page asks)",
    )
    args = parser.parse_args()
    try:
        samples = measure(args.events, args.every, not args.no_views, args.store)
    except grpc.RpcError as e:
        raise SystemExit(f"refused: {e.code()} {e.details()}") from None
    print(
        f"{'events':>13} {'RSS MB':>8} {'RSS B/event':>12} {'CPU µs/event':>13} "
        f"{'wall µs/event':>14} {'reads/round':>12}"
    )
    for a, b in zip(samples, samples[1:], strict=False):
        f = per_event(a, b)
        print(
            f"{a.version:>6}-{b.version:<6} {b.rss / 2**20:>8.1f} {f['rss_bytes']:>12.0f} "
            f"{f['cpu_us']:>13.0f} {f['wall_us']:>14.0f} {f['reads']:>12.2f}"
        )


if __name__ == "__main__":
    main()
