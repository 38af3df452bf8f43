"""Does moving the group commit's serialisation off the event loop's process free the loop?
(issue 26)

One process plays the server's part without gRPC: an asyncio loop runs ``--games`` game
tasks, each spending ``--loop-us`` µs of pure-Python CPU per move on the loop (about what a
stream-driven move costs the server's event-loop thread, bench/profile/stages.py), then
recording a move (``bench.passgame``, one event with a seal-sized dict), submitting it to a
``GroupCommitter`` and awaiting it as ``server/usecases/games.py`` does. The loop is
saturated, so its moves/s fall by exactly what the writer takes from it (the GIL, the
cores). Three writers, the runs interleaved, medians of ``--rounds``:

* ``thread``: the server's own: the committer thread transcodes and writes SQLite.
* ``process``: the committer thread ships each batch's event states (pickled) to a second
  process, which transcodes them with the same transcoder and writes SQLite; the thread then
  holds the GIL only to pickle and to resolve the futures.
* ``none``: the bound: the committer answers at once and writes nothing, so no off-loop
  scheme can do better than this row.

Also prints the GIL-holding cost per event of the two halves a process hop trades: the
transcoding it moves (``Mapper.to_stored_event``) and the pickling it adds.

Example: ``python -m bench.profile.offloop --games 8 --seconds 4 --rounds 3``.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import pickle
import statistics
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from eventsourcing.persistence import StoredEvent
from eventsourcing.utils import get_topic

from bench.common import pass_game, pass_move
from server.store.commit import GroupCommitter
from server.store.eventstore import TableApplication

SEAL = {  # the shape of a move's seal (server/wire/receipts.py): a few hashes and a signature
    "v": 1,
    "key": "k" * 43,
    "sig": "s" * 86,
    "hashes": ["h" * 64] * 4,
    "at": "2026-12-04T10:00:00.000000Z",
}
MODES = ("thread", "process", "none")
TICK = os.sysconf("SC_CLK_TCK")


def _env(path: Path) -> dict[str, str]:
    return {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)}


def _states(events: tuple[Any, ...]) -> list[tuple[Any, int, str, dict[str, Any]]]:
    """What the mapper reads of each event, before it transcodes (as to_stored_event)."""
    out = []
    for e in events:
        state = dict(vars(e))
        oid, version = state.pop("originator_id"), state.pop("originator_version")
        out.append((oid, version, get_topic(type(e)), state))
    return out


def _writer(conn: Connection, env: dict[str, str]) -> None:
    """The second process: transcode what arrives, write it, reply with its ids."""
    app = TableApplication(env=env)
    encode = app.mapper.transcoder.encode
    while True:
        try:
            msg = conn.recv_bytes()
        except EOFError:
            return
        stored = [
            StoredEvent(originator_id=oid, originator_version=v, topic=t, state=encode(s))
            for oid, v, t, s in pickle.loads(msg)
        ]
        conn.send_bytes(pickle.dumps(app.recorder.insert_events(stored)))


class ProcessSave:
    """``app.save`` for the committer: the batch goes to the writer process."""

    def __init__(self, env: dict[str, str]) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_writer, args=(child, env), daemon=True)
        self.proc.start()

    def __call__(self, *events: Any, **_: Any) -> list[Any]:
        self.conn.send_bytes(pickle.dumps(_states(events), protocol=pickle.HIGHEST_PROTOCOL))
        pickle.loads(self.conn.recv_bytes())
        return []

    def close(self) -> None:
        self.conn.close()
        self.proc.join(timeout=10)


def _ticks(path: str) -> int:
    stat = Path(path).read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return int(fields[11]) + int(fields[12])


def spin(n: int) -> int:
    """Pure-Python CPU in the loop's thread: the loop's own work for one move."""
    x = 0
    for i in range(n):
        x += i
    return x


def spins_for(loop_us: float) -> int:
    """How many ``spin`` steps take ``loop_us`` µs of CPU here (measured once, in CPU
    time, so that every run does the same work)."""
    n = 2_000_000
    t0 = time.thread_time()
    spin(n)
    return max(1, round(loop_us / 1e6 / ((time.thread_time() - t0) / n)))


async def _play(committer: GroupCommitter, games: int, seconds: float, n: int) -> tuple[int, float]:
    aggs = [pass_game(10**9) for _ in range(games)]
    for agg in aggs:
        await asyncio.wrap_future(committer.submit(agg))
    moves = 0
    stop = time.perf_counter() + seconds

    async def game(agg: Any) -> None:
        nonlocal moves
        while time.perf_counter() < stop:
            spin(n)  # the loop's own work for this move
            pass_move(agg)
            agg.seal_move(SEAL)
            await asyncio.wrap_future(committer.submit(agg))
            moves += 1

    t0 = time.perf_counter()
    await asyncio.gather(*(game(a) for a in aggs))
    return moves, time.perf_counter() - t0


def run(mode: str, games: int, seconds: float, n: int) -> dict[str, float]:
    """One run: moves/s, the loop thread's and the writer's CPU µs per move."""
    with tempfile.TemporaryDirectory() as tmp:
        env = _env(Path(tmp) / "s.sqlite")
        app = TableApplication(env=env)
        proxy = ProcessSave(env) if mode == "process" else None
        if proxy is not None:
            app.save = proxy  # type: ignore[method-assign]
        elif mode == "none":
            app.save = lambda *e, **k: []  # type: ignore[method-assign]
        committer = GroupCommitter(app)
        committer.snapshot_interval = 10**9  # no snapshots: the same work in every mode
        try:
            me = f"/proc/self/task/{os.getpid()}/stat"
            writer = f"/proc/self/task/{committer._thread.native_id}/stat"
            child = f"/proc/{proxy.proc.pid}/stat" if proxy is not None else ""
            w0 = _ticks(writer) + (_ticks(child) if child else 0)
            m0 = _ticks(me)
            moves, elapsed = asyncio.run(_play(committer, games, seconds, n))
            loop_cpu = (_ticks(me) - m0) / TICK
            writer_cpu = (_ticks(writer) + (_ticks(child) if child else 0) - w0) / TICK
        finally:
            committer.close()
            if proxy is not None:
                proxy.close()
            app.close()
    return {
        "rate": moves / elapsed,
        "loop_us": loop_cpu / moves * 1e6,
        "writer_us": writer_cpu / moves * 1e6,
    }


def halves(count: int = 2000) -> tuple[float, float]:
    """µs per event, GIL held: transcoding (what a process hop moves) and pickling the
    event's state (what it adds), on the events this bench stores."""
    agg = pass_game(10**9)
    for _ in range(count):
        pass_move(agg)
        agg.seal_move(SEAL)
    events = tuple(agg.collect_events())[-count:]
    with tempfile.TemporaryDirectory() as tmp:
        app = TableApplication(env=_env(Path(tmp) / "h.sqlite"))
        t0 = time.perf_counter()
        for e in events:
            app.mapper.to_stored_event(e)
        encode = (time.perf_counter() - t0) / count
        app.close()
    t0 = time.perf_counter()
    pickle.dumps(_states(events), protocol=pickle.HIGHEST_PROTOCOL)
    ship = (time.perf_counter() - t0) / count
    return encode * 1e6, ship * 1e6


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=8)
    p.add_argument("--seconds", type=float, default=4.0)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--loop-us", type=float, default=2500.0, help="loop CPU per move (µs)")
    args = p.parse_args(argv)
    found: dict[str, list[dict[str, float]]] = {m: [] for m in MODES}
    n = spins_for(args.loop_us)
    for _ in range(args.rounds):
        for mode in MODES:
            found[mode].append(run(mode, args.games, args.seconds, n))
    print(
        f"{args.games} games, {args.loop_us:g} µs of loop work a move, {args.seconds:g} s, "
        f"median of {args.rounds}; load average {os.getloadavg()[0]:.1f}"
    )
    print("| writer | moves/s | vs none | loop thread CPU µs/move | writer CPU µs/move |")
    print("|---|---|---|---|---|")
    bound = statistics.median(r["rate"] for r in found["none"])
    for mode in MODES:
        med = {k: statistics.median(r[k] for r in found[mode]) for k in found[mode][0]}
        print(
            f"| {mode} | {med['rate']:,.0f} | {med['rate'] / bound:.2f} | "
            f"{med['loop_us']:,.0f} | {med['writer_us']:,.0f} |"
        )
    encode, ship = halves()
    print(f"per event, GIL held: transcoding {encode:.1f} µs, pickling its state {ship:.1f} µs")


if __name__ == "__main__":
    main()
