"""Issue 38's peer benchmark: this server against boardgame.io and Colyseus, in one run.

Each server runs in its own process and plays a comparable hidden-hand 4-seat game, driven
by network clients in another process: this server 4-seat 花鸟风月 basic hands (bench/peers/
ours.py, stream-driven seats from this process), boardgame.io and Colyseus the follow-suit
card game of bench/peers/rules.mjs, as long as a basic hand (bench/peers/drive.mjs, Node,
boardgame.io's own client and @colyseus/sdk). Every seat has its own connection and sees
its own hand only; every server validates the mover's card.

Rounds are interleaved: each round plays ``games`` games (``at_once`` at a time) on every
server in turn, the order rotated from round to round. Per server and round: server CPU per
move is the server process's utime + stime (/proc/PID/stat, all threads) over the round,
table set-up and connections included (all-in: a Colyseus room is made by its first client),
divided by the moves played; bytes per seat per move is every message the four seats
received over the round (counted by the clients: each gRPC message with its 5-byte prefix,
each WebSocket message's payload; the transports' frame headers not counted) divided by the
moves and the four seats; RSS is the server's VmRSS after the round.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bench import targets
from bench.common import SERVER_FLAGS, sized
from bench.cpu import CpuMeter
from bench.peers.ours import SEATS, STALL_S, Tally, play_round
from clients.python.serverproc import ServerProcess

PEERS = Path(__file__).resolve().parent
MOVES = 19  # the peers' game length: this server's games average 19.1 moves at these seeds
SEED = 3800  # this server's deals: round r plays seeds from SEED + 1000 r (printed)
BYTES_TARGET = 300
START_TIMEOUT = 30.0


@dataclass
class Round:
    cpu_us: float  # server CPU per move
    bytes_per_seat: float  # per move
    rss_mb: float  # after the round
    games: int
    moves: int
    resyncs: int
    stalls: int
    parts: Counter[str]  # this server's bytes by kind (bench/peers/ours.py ``parts``)


@dataclass
class Contender:
    """One server in the run: how to start it (a context giving its pid and address) and
    how to play one round on it (``games``, ``at_once``, round number) -> the clients' tally."""

    key: str
    label: str
    start: Callable[[ExitStack], tuple[int, str]]
    play: Callable[[str, int, int, int], Tally]
    rounds: list[Round] = field(default_factory=list)


def rss_mb(pid: int) -> float:
    """The resident set of process ``pid`` now, in MB (/proc/PID/status VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def node() -> str:
    found = shutil.which("node")
    if not found:
        raise RuntimeError("the peer benchmark needs Node.js (node) on PATH")
    if not (PEERS / "node_modules" / ".stamp").exists():
        raise RuntimeError("bench/peers/node_modules is missing: run `make bench` (it runs npm ci)")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def node_server(script: str, *args: str) -> Iterator[tuple[int, int]]:
    """``node script PORT *args`` in bench/peers, once it prints "listening": (pid, port)."""
    port = free_port()
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            [node(), script, str(port), *args],
            cwd=PEERS,
            stdout=log,
            stderr=subprocess.STDOUT,
            close_fds=False,  # posix_spawn, no fork after gRPC (clients/python/serverproc.py)
        )
        try:
            deadline = time.monotonic() + START_TIMEOUT
            while True:
                log.seek(0)
                out = log.read().decode(errors="replace")
                if f"listening {port}" in out:
                    break
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{script} did not start: {out[-2000:]}")
                time.sleep(0.05)
            yield proc.pid, port
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def drive(peer: str, url: str, games: int, at_once: int) -> Tally:
    """bench/peers/drive.mjs in its own process: the Node clients' tally of one round."""
    done = subprocess.run(
        [node(), "drive.mjs", peer, url, str(games), str(at_once), str(MOVES)],
        cwd=PEERS,
        capture_output=True,
        text=True,
        timeout=280,
        close_fds=False,  # as in node_server
    )
    if done.returncode != 0:
        raise RuntimeError(f"drive.mjs {peer} failed: {done.stderr[-2000:]}")
    return Tally(**json.loads(done.stdout.strip().splitlines()[-1]))


def version(package: str) -> str:
    return str(
        json.loads((PEERS / "node_modules" / package / "package.json").read_text())["version"]
    )


def ours(store: str, flags: tuple[str, ...] = ()) -> Callable[[ExitStack], tuple[int, str]]:
    def start(stack: ExitStack) -> tuple[int, str]:
        extra = [*SERVER_FLAGS, *flags]
        server = stack.enter_context(ServerProcess(store=store, extra=extra))
        assert server.proc is not None
        return server.proc.pid, server.target

    return start


def play_ours(keyed: bool) -> Callable[[str, int, int, int], Tally]:
    def play(target: str, games: int, at_once: int, r: int) -> Tally:
        return asyncio.run(play_round(target, games, at_once, SEED + 1000 * r, keyed))

    return play


def peer(script: str, scheme: str, *args: str) -> Callable[[ExitStack], tuple[int, str]]:
    def start(stack: ExitStack) -> tuple[int, str]:
        pid, port = stack.enter_context(node_server(script, *args))
        return pid, f"{scheme}://127.0.0.1:{port}"

    return start


def play_peer(name: str) -> Callable[[str, int, int, int], Tally]:
    return lambda url, games, at_once, r: drive(name, url, games, at_once)


def contenders(flatfile_dir: str) -> list[Contender]:
    bgio, col = version("boardgame.io"), version("colyseus")
    return [
        Contender(
            "sqlite",
            "this server, SQLite (durable), seats sign, signed receipts of format 3 (shipped)",
            ours("sqlite"),
            play_ours(True),
        ),
        Contender(
            "v2",
            "this server, SQLite (durable), seats sign, receipts of format 2 "
            "(`--receipt-format 2`, the default until 2026-12)",
            ours("sqlite", ("--receipt-format", "2")),
            play_ours(True),
        ),
        Contender(
            "unkeyed",
            "this server, SQLite (durable), unkeyed seats, signed receipts",
            ours("sqlite"),
            play_ours(False),
        ),
        Contender(
            "memory",
            "this server, memory store, seats sign, signed receipts",
            ours("memory"),
            play_ours(True),
        ),
        Contender(
            "flatfile",
            f"boardgame.io {bgio}, FlatFile storage",
            peer("bgio-server.mjs", "http", flatfile_dir),
            play_peer("bgio"),
        ),
        Contender(
            "bgio",
            f"boardgame.io {bgio}, in memory",
            peer("bgio-server.mjs", "http"),
            play_peer("bgio"),
        ),
        Contender(
            "colyseus",
            f"Colyseus {col} (@colyseus/core {version('@colyseus/core')}), in memory",
            peer("colyseus-server.mjs", "ws"),
            play_peer("colyseus"),
        ),
    ]


def measure(c: Contender, pid: int, target: str, games: int, at_once: int, r: int) -> Round:
    meter = CpuMeter(pid)
    meter.start()
    tally = c.play(target, games, at_once, r)
    meter.stop()
    moves = max(1, tally.moves)
    return Round(
        cpu_us=meter.seconds / moves * 1e6,
        bytes_per_seat=tally.bytes / moves / SEATS,
        rss_mb=rss_mb(pid),
        games=tally.games,
        moves=tally.moves,
        resyncs=tally.resyncs,
        stalls=tally.stalls,
        parts=tally.parts,
    )


def spread(values: list[float], fmt: str = ",.0f") -> str:
    """median (min–max) of ``values``."""
    med = statistics.median(values)
    if len(values) == 1:
        return f"{med:{fmt}}"
    return f"{med:{fmt}} ({min(values):{fmt}}–{max(values):{fmt}})"


def ratios(a: Contender, b: Contender, pick: Callable[[Round], float]) -> list[float]:
    """Round by round, ``a``'s figure over ``b``'s (the rounds were interleaved)."""
    return [pick(x) / pick(y) for x, y in zip(a.rounds, b.rounds, strict=True) if pick(y)]


def peers_section(
    quick: bool, rounds: int | None = None, games: int | None = None, at_once: int | None = None
) -> list[str]:
    # 5 rounds of 96 games: at 24 a round, the rounds' ratios against FlatFile spread from
    # 1.04 to 2.41 in one run (docs/benchmarks.md, stop 48); at 96 this server's rounds lie
    # within ±6% of their median
    rounds = rounds or sized(quick, 5, 2, 1)
    games = games or sized(quick, 96, 12, 2)
    at_once = at_once or sized(quick, 8, 4, 2)
    with ExitStack() as stack:
        flatfile = stack.enter_context(tempfile.TemporaryDirectory(prefix="bgio-flatfile-"))
        runs = contenders(flatfile)
        started = [c.start(stack) for c in runs]
        for r in range(rounds):
            order = list(range(len(runs)))
            order = order[r % len(order) :] + order[: r % len(order)]
            for i in order:
                c = runs[i]
                c.rounds.append(measure(c, *started[i], games, at_once, r))
                print(f"peers round {r + 1}/{rounds} {c.key}: {c.rounds[-1]}", flush=True)
    return render(runs, rounds, games, at_once)


def pooled_bytes(c: Contender) -> float:
    """What a seat received per move over all the run's games: a round's figure depends on
    which games it played (their lengths), not on the machine, so the rounds are pooled."""
    moves = sum(x.moves for x in c.rounds)
    return sum(x.bytes_per_seat * x.moves for x in c.rounds) / max(1, moves)


def render(runs: list[Contender], rounds: int, games: int, at_once: int) -> list[str]:
    by = {c.key: c for c in runs}
    shipped = by["sqlite"]
    cpu = ratios(shipped, by["flatfile"], lambda x: x.cpu_us)
    mark = ratios(shipped, by["colyseus"], lambda x: x.cpu_us)
    sent = pooled_bytes(shipped)
    v2 = by["v2"]
    targets.at_most(
        "I38 server CPU per move, SQLite signed, vs boardgame.io FlatFile, 4-seat games",
        statistics.median(cpu),
        1.0,
    )
    targets.at_most(
        "I38 bytes a seat receives per move, receipts included, SQLite signed",
        sent,
        BYTES_TARGET,
        " B",
        ",.0f",
    )
    lines = [
        "## I38: a move's cost against boardgame.io and Colyseus (issue 38)",
        "",
        f"{rounds} interleaved round(s); in each, every server in turn plays {games} 4-seat "
        f"games, {at_once} at a time (`make bench ARGS='--only peers --peers-rounds 5 "
        "--peers-games 192 --peers-at-once 64'` for the issue's sizes). This server plays "
        "花鸟风月 basic hands (prepared deals, seeds from "
        f"{SEED} + 1000 x round), its seats stream-driven, each on one PlaySession (its "
        "stream batched, own moves left out, and its Plays on the same call: docs/api.md, "
        '"Play session"), on their own gRPC connections from the bench process, '
        "every seat keyed and signing its Plays (the shipped default; the unkeyed row: "
        "seats whose Plays stand on the server's word, as P1's loads). boardgame.io and Colyseus play "
        f"bench/peers/rules.mjs, a follow-suit card game of {MOVES} moves (about what this "
        "server's basic hands average at these seeds), driven by bench/peers/drive.mjs in a "
        "Node process: boardgame.io's own "
        "client (socket.io, WebSocket only; matches made through its lobby API, moves "
        "checked against the seat's credentials) and @colyseus/sdk (the hands are Schema "
        "fields tagged `.view()`, each seat's StateView holds its own). Each seat sees its "
        "own hand only; each server checks the mover's card. The peers' clients pick their "
        "cards with Math.random (unseeded).",
        "",
        "Server CPU per move: the server process's utime + stime (/proc/PID/stat, all "
        "threads) over the round, set-up and connections included (a Colyseus room is made "
        "by its first client), over the moves played. Bytes: every message the four seats "
        "received, counted by the clients (a gRPC message with its 5-byte prefix, receipts "
        "and seals included; a WebSocket message's payload), over the moves and the four "
        "seats; frame headers not counted. RSS: the server's VmRSS after each round (the "
        "servers run through all rounds, so memory stores hold every game so far). Each "
        "figure: the median of the rounds (min–max), then every round's value; bytes, "
        "which no timing moves (each round's games are seeded), are every byte over every "
        "move of the run's games, with the rounds' range. A game "
        "with no news for a while is a stall: the boardgame.io clients ask for the state "
        "again after 3 s (FlatFile can lose a move sent right after an update), this "
        f"server's game is given up after {STALL_S:g} s; either is counted.",
        "",
        "| server | games | moves a game | server CPU µs per move | this server (SQLite) ÷ it "
        "| bytes a seat receives per move | RSS MB | rounds: µs per move | "
        "rounds: bytes | games stalled: resynced, given up |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in runs:
        cpu_us = [x.cpu_us for x in c.rounds]
        each = ratios(shipped, c, lambda x: x.cpu_us)
        lines.append(
            f"| {c.label} | {sum(x.games for x in c.rounds):,} | "
            f"{sum(x.moves for x in c.rounds) / max(1, sum(x.games for x in c.rounds)):.1f} | "
            f"{spread(cpu_us)} | {spread(each, '.2f')} | "
            f"{pooled_bytes(c):,.0f} ({min(x.bytes_per_seat for x in c.rounds):,.0f}–"
            f"{max(x.bytes_per_seat for x in c.rounds):,.0f}) | "
            f"{spread([x.rss_mb for x in c.rounds])} | "
            f"{', '.join(f'{v:,.0f}' for v in cpu_us)} | "
            f"{', '.join(f'{x.bytes_per_seat:,.0f}' for x in c.rounds)} | "
            f"{sum(x.resyncs for x in c.rounds)}, {sum(x.stalls for x in c.rounds)} |"
        )
        print(lines[-1], flush=True)

    def met(ok: bool) -> str:
        return "met" if ok else "**not met**"

    lines += [
        "",
        "Targets, in this run (ratios: the median of the rounds' own, this server's round "
        "against the peer's in the same round):",
        "",
        "| target | this run | |",
        "|---|---|---|",
        f"| server CPU per move, signed and durable on SQLite, <= boardgame.io FlatFile's | "
        f"{statistics.median(cpu):.2f}x ({spread([x.cpu_us for x in shipped.rounds])} µs "
        f"against {spread([x.cpu_us for x in by['flatfile'].rounds])} µs) | "
        f"{met(statistics.median(cpu) <= 1.0)} |",
        f"| bytes a seat receives per move, receipts included, <= {BYTES_TARGET} on average | "
        f"{sent:,.0f} over the run's games (rounds "
        f"{', '.join(f'{x.bytes_per_seat:,.0f}' for x in shipped.rounds)}) | "
        f"{met(sent <= BYTES_TARGET)} |",
        f"| next mark (reported only): server CPU per move <= 2x Colyseus in-memory rooms' | "
        f"{statistics.median(mark):.2f}x | {met(statistics.median(mark) <= 2.0)} |",
        "",
        *what_a_seat_receives(shipped),
        "",
        *what_a_seat_receives(v2),
    ]
    return lines


def what_a_seat_receives(c: Contender) -> list[str]:
    """``c``'s bytes a seat receives per move, by what carries them, all rounds together."""
    parts: Counter[str] = sum((x.parts for x in c.rounds), Counter())
    per = max(1, sum(x.moves for x in c.rounds)) * SEATS
    total = sum(parts.values())
    lines = [
        f"What a seat receives per move on the row {c.label}, by what carries it "
        "(all rounds; each message's fields' sizes as serialised):",
        "",
        "| carried by | bytes a seat per move | share |",
        "|---|---|---|",
    ]
    for name, size in parts.most_common():
        lines.append(f"| {name} | {size / per:,.0f} | {size / max(1, total):.0%} |")
    return lines
