"""F1: what the store feed reads per commit, as replicas are added (issue 27).

    python -m bench.feed_rows [--replicas 2,4,8] [--games 16] [--moves 12]

2, 4 and 8 replica processes on one PostgreSQL server (a fresh database per run). Games are
spread over the replicas: each game is created and played on its home replica (game i on
replica i mod R) and watched by one spectator on the next replica, so every move crosses the
feed once. Measured per commit (a commit is one insert transaction, counted by its NOTIFY):

- rows read by the feeds' SELECTs, from pg_stat_statements (calls and rows of the
  statements that read the events table by notification id);
- the database time of those SELECTs (pg_stat_statements' total_exec_time);
- the CPU time of all PostgreSQL processes (/proc), which includes the writes and the
  replicas' own loads, the same in both modes.

Each size runs twice: "before", the feed that reads every new row of the shard whatever its
game (TABLETOP_FEED_READ_ALL=1, the feed as it was), and "after", the feed that reads only
the rows of games its replica streams or caches, by the ids each commit's NOTIFY names.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import grpc

from bench import common
from bench.api import new_game
from bench.common import SERVER_FLAGS, sized
from clients.python.client import TOKEN_HEADER
from clients.python.serverproc import ServerProcess
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.v1 import tabletop_pb2_grpc as pb_grpc
from tests.support.pgserver import PgServer

FEED_QUERY = "SELECT notification_id, originator_id, originator_version, topic, state FROM %"
TICK = os.sysconf("SC_CLK_TCK")


def _postgres_cpu(postmaster: int) -> float:
    """CPU seconds (user + system) of the postmaster and its children, so far (a backend
    that ended is counted in its parent's cutime/cstime once reaped)."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid, ppid = int(entry.name), int(fields[1])
        if pid == postmaster:  # its own, and its children's that ended (cutime, cstime)
            total += sum(int(f) for f in fields[11:15])
        elif ppid == postmaster:  # the children still running
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICK


def _statements(pg: PgServer, dbname: str) -> dict[str, float]:
    import psycopg

    with psycopg.connect(pg.dsn("postgres"), autocommit=True) as conn:  # has the extension
        feed = conn.execute(
            "SELECT coalesce(sum(calls), 0), coalesce(sum(rows), 0), "
            "coalesce(sum(total_exec_time), 0) FROM pg_stat_statements s "
            "JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = %s AND query LIKE %s",
            (dbname, FEED_QUERY),
        ).fetchone()
        commits = conn.execute(
            "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements s JOIN pg_database d "
            "ON d.oid = s.dbid WHERE d.datname = %s AND query LIKE 'SELECT pg_notify%%'",
            (dbname,),
        ).fetchone()
    assert feed is not None and commits is not None
    return {
        "selects": float(feed[0]),
        "rows": float(feed[1]),
        "ms": float(feed[2]),
        "commits": float(commits[0]),
    }


async def _play(targets: list[str], games: int, moves: int, seed: int) -> int:
    """Games on their home replicas, each watched from the next; returns moves played."""
    channels = [grpc.aio.insecure_channel(t) for t in targets]
    stubs = [pb_grpc.TableServiceStub(c) for c in channels]
    rng = random.Random(seed)
    played = 0
    watchers: list[asyncio.Task[None]] = []
    try:
        homes = [i % len(stubs) for i in range(games)]
        opened = [await new_game(stubs[h], seed + i) for i, h in enumerate(homes)]

        async def watch(stub: pb_grpc.TableServiceStub, game_id: str) -> None:
            call = stub.Watch(pb.WatchRequest(game_id=game_id, after_version=0, batched=True))
            try:
                async for _reply in call:
                    pass
            except grpc.aio.AioRpcError:
                pass

        for (game_id, _tokens), home in zip(opened, homes, strict=True):
            spectator = stubs[(home + 1) % len(stubs)]
            watchers.append(asyncio.create_task(watch(spectator, game_id)))
        await asyncio.sleep(0.2 if common.SMOKE else 1.0)  # the streams are open and following

        async def play(game_id: str, tokens: list[str], stub: pb_grpc.TableServiceStub) -> None:
            nonlocal played
            for _move in range(moves):
                view = await stub.GetView(pb.GetViewRequest(game_id=game_id))
                if not view.view.to_act:
                    return
                md = ((TOKEN_HEADER, tokens[view.view.to_act[0]]),)
                legal = await stub.LegalMoves(pb.LegalMovesRequest(game_id=game_id), metadata=md)
                await stub.Play(
                    pb.PlayRequest(
                        game_id=game_id,
                        expected_version=legal.version,
                        move=rng.choice(list(legal.moves)),
                    ),
                    metadata=md,
                )
                played += 1

        await asyncio.gather(
            *(play(g, t, stubs[h]) for (g, t), h in zip(opened, homes, strict=True))
        )
        await asyncio.sleep(0.2 if common.SMOKE else 1.0)  # the last commits reach every feed
    finally:
        for w in watchers:
            w.cancel()
        await asyncio.gather(*watchers, return_exceptions=True)
        for c in channels:
            await c.close()
    return played


def measure(pg: PgServer, replicas: int, read_all: bool, games: int, moves: int) -> dict[str, Any]:
    from server.startup.migrate import migrate_shard

    dbname = pg.create_database(f"f_{replicas}_{int(read_all)}_{time.monotonic_ns() % 10**6}")
    env = dict(pg.env(dbname), PERSISTENCE_MODULE="eventsourcing.postgres", CREATE_TABLE="n")
    migrate_shard(env)
    pg_vars = {k: v for k, v in env.items() if k.startswith(("POSTGRES_", "TABLETOP_SIGNING"))}
    pg_vars["TABLETOP_FEED_READ_ALL"] = "1" if read_all else "0"
    with ExitStack() as stack:
        servers = [
            stack.enter_context(ServerProcess(store="postgres", env=pg_vars, extra=SERVER_FLAGS))
            for _ in range(replicas)
        ]
        assert pg.proc is not None
        start = _statements(pg, dbname)
        cpu = _postgres_cpu(pg.proc.pid)
        played = asyncio.run(_play([s.target for s in servers], games, moves, 7))
        cpu = _postgres_cpu(pg.proc.pid) - cpu
        end = _statements(pg, dbname)
    commits = max(1.0, end["commits"] - start["commits"])
    return {
        "replicas": replicas,
        "mode": "before (every row)" if read_all else "after (wanted rows)",
        "moves": played,
        "commits": int(commits),
        "rows_per_commit": (end["rows"] - start["rows"]) / commits,
        "selects_per_commit": (end["selects"] - start["selects"]) / commits,
        "select_ms_per_commit": (end["ms"] - start["ms"]) / commits,
        "db_cpu_ms_per_commit": cpu * 1000 / commits,
    }


def feed_rows_section(quick: bool, sizes: list[int] | None = None) -> list[str]:
    sizes = sizes or sized(quick, [2, 4, 8], [2, 4, 8], [2])
    games = sized(quick, 16, 8, 2)
    moves = sized(quick, 12, 6, 2)
    settings = {"shared_preload_libraries": "pg_stat_statements"}
    rows = []
    with PgServer(durable=True, settings=settings) as pg:
        import psycopg

        with psycopg.connect(pg.dsn("postgres"), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        for replicas in sizes:
            for read_all in (True, False):
                rows.append(measure(pg, replicas, read_all, games, moves))
                print(rows[-1], flush=True)
    out = [
        "## F1: the store feed's reads per commit, 2 to 8 replicas",
        "",
        f"`python -m bench.feed_rows`: {games} games of 花鸟 spread over the replicas (each "
        "played on its home replica and watched by one spectator on the next), one PostgreSQL "
        "server, durable commits. A commit is one insert transaction (group commit: several "
        "games' moves may share one). *Rows read* and *SELECT ms* are the feeds' reads of the "
        "events table (pg_stat_statements); *DB CPU* is every PostgreSQL process's CPU time, "
        "writes and the replicas' own loads included. *Before* is the feed that read every "
        "new row of the shard (`TABLETOP_FEED_READ_ALL=1`); *after* reads only the rows each "
        "commit's NOTIFY names for games the replica streams or caches.",
        "",
        "| replicas | feed | moves | commits | rows read / commit | feed SELECTs / commit "
        "| SELECT ms / commit | DB CPU ms / commit |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        out.append(
            f"| {r['replicas']} | {r['mode']} | {r['moves']} | {r['commits']} "
            f"| {r['rows_per_commit']:.2f} | {r['selects_per_commit']:.2f} "
            f"| {r['select_ms_per_commit']:.3f} | {r['db_cpu_ms_per_commit']:.2f} |"
        )
    out += [
        "",
        "Before, every replica reads every row of every commit (the writer too, only to skip "
        "its own), so rows read per commit grow with the replicas; after, only the replicas "
        "that stream or cache a game read its rows, so they stay flat as replicas are added.",
        "",
    ]
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--replicas", default="2,4,8")
    p.add_argument("--quick", action="store_true")
    args = p.parse_args(argv)
    sizes = [int(n) for n in args.replicas.split(",")]
    print("\n".join(feed_rows_section(args.quick, sizes)))


if __name__ == "__main__":
    main()
