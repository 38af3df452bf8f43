"""Soak: hundreds of concurrent bot games for minutes, with watchers connecting and dropping.

One server process on loopback (SQLite); one grpc.aio load generator in this process:

* ``games`` concurrent players, each playing random legal moves in its game (花鸟风月 BASIC
  at four seats, or 川南字牌 at two to four), every Play with a request_id, starting a new
  game when one ends;
* ``watchers`` tasks that each open a Watch on a random live game (as a seat or a spectator),
  read it for a random 0.1-3 s, drop the connection, and resume it later from the last version
  seen, checking that no stream ever skips or repeats a version;
* the server's resident memory (VmRSS) sampled at the start, after a warm-up, every few
  seconds, and at the end.

It reports events/s and moves/s, the statuses of every call (anything but OK is an error,
except the CANCELLED of a watcher dropping on purpose), stream gaps and duplicates, the
server's error log lines, and memory growth after warm-up. ``python -m bench.soak --help``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import random
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from bench.common import sized
from clients.python.client import TOKEN_HEADER
from clients.python.serverproc import ServerProcess
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.v1 import tabletop_pb2_grpc as pb_grpc
from tabletop.zipai.v1 import zipai_pb2

FLAGS = [
    "--move-rate", "0",  # capacity, not policy: the bots move as fast as they can
    "--max-open-games-per-client", "100000",
    "--max-streams-per-client", "100000",
    "--max-streams-per-connection", "100000",
    "--log-level", "warning",
]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@dataclass
class Live:
    game_id: str
    seats: list[str]
    arbiter: str
    version: int = 0


@dataclass
class SoakResult:
    seconds: float
    games_at_once: int
    watchers: int
    games_started: int = 0
    games_finished: int = 0
    moves: int = 0
    events: int = 0
    watch_sessions: int = 0
    watch_events: int = 0
    gaps: int = 0
    duplicates: int = 0
    statuses: collections.Counter[str] = field(default_factory=collections.Counter)
    rss: list[tuple[float, float]] = field(default_factory=list)  # (seconds, MB)
    error_lines: int = 0
    elapsed: float = 0.0

    @property
    def errors(self) -> int:
        return sum(n for code, n in self.statuses.items() if not code.endswith(":OK"))

    def growth(self) -> tuple[float, float, float]:
        """(RSS after warm-up, RSS at the end, growth in MB)."""
        warm = next((mb for t, mb in self.rss if t >= self.seconds * 0.2), self.rss[0][1])
        return warm, self.rss[-1][1], self.rss[-1][1] - warm


class Soak:
    def __init__(self, target: str, pid: int, result: SoakResult, seed: int) -> None:
        self.target = target
        self.pid = pid
        self.r = result
        self.rng = random.Random(seed)
        self.live: list[Live] = []
        self.stop_at = 0.0

    def md(self, token: str | None) -> tuple[tuple[str, str], ...]:
        return ((TOKEN_HEADER, token),) if token else ()

    async def call(self, what: str, coro: object) -> object:
        try:
            out = await coro  # type: ignore[misc]
        except grpc.RpcError as err:
            self.r.statuses[f"{what}:{err.code().name}"] += 1  # type: ignore[attr-defined]
            return None
        self.r.statuses[f"{what}:OK"] += 1
        return out

    async def new_game(self, stub: pb_grpc.TableServiceStub) -> Live | None:
        rng = self.rng
        if rng.random() < 0.5:
            options = pb.GameOptions(huaniao=huaniao_pb2.Options(mode=huaniao_pb2.MODE_BASIC))
            seats = 4
        else:
            options, seats = pb.GameOptions(zipai=zipai_pb2.Options()), rng.choice((2, 3, 4))
        created = await self.call(
            "CreateGame",
            stub.CreateGame(
                pb.CreateGameRequest(options=options, seat_count=seats, allow_unkeyed_seats=True)
            ),
        )
        if created is None:
            return None
        gid = created.game_id  # type: ignore[attr-defined]
        tokens = []
        for s in range(seats):
            joined = await self.call("JoinGame", stub.JoinGame(pb.JoinGameRequest(game_id=gid, seat=s)))
            if joined is None:
                return None
            tokens.append(joined.seat_token)  # type: ignore[attr-defined]
        started = await self.call(
            "StartGame", stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=self.md(tokens[0]))
        )
        if started is None:
            return None
        self.r.games_started += 1
        return Live(gid, tokens, created.arbiter_token, started.version)  # type: ignore[attr-defined]

    async def player(self, stub: pb_grpc.TableServiceStub) -> None:
        game: Live | None = None
        while time.monotonic() < self.stop_at:
            if game is None:
                game = await self.new_game(stub)
                if game is None:
                    await asyncio.sleep(0.1)
                    continue
                self.live.append(game)
            view = await self.call(
                "GetView",
                stub.GetView(pb.GetViewRequest(game_id=game.game_id), metadata=self.md(game.arbiter)),
            )
            if view is None:
                continue
            to_act = list(view.view.to_act)  # type: ignore[attr-defined]
            if not to_act:
                self.r.games_finished += 1
                self.live.remove(game)
                game = None
                continue
            token = game.seats[self.rng.choice(to_act)]
            legal = await self.call(
                "LegalMoves", stub.LegalMoves(pb.LegalMovesRequest(game_id=game.game_id), metadata=self.md(token))
            )
            if legal is None or not legal.moves:  # type: ignore[attr-defined]
                continue
            reply = await self.call(
                "Play",
                stub.Play(
                    pb.PlayRequest(
                        game_id=game.game_id,
                        expected_version=legal.version,  # type: ignore[attr-defined]
                        move=self.rng.choice(list(legal.moves)),  # type: ignore[attr-defined]
                        request_id=uuid.uuid4().hex,
                    ),
                    metadata=self.md(token),
                ),
            )
            if reply is not None:
                self.r.moves += 1
                self.r.events += len(reply.events)  # type: ignore[attr-defined]
                game.version = reply.version  # type: ignore[attr-defined]
        if game is not None and game in self.live:
            self.live.remove(game)

    async def watcher(self, i: int) -> None:
        """Connect, watch for a while, drop; later resume where it left off."""
        resume: dict[str, int] = {}
        while time.monotonic() < self.stop_at:
            if not self.live:
                await asyncio.sleep(0.1)
                continue
            game = self.rng.choice(self.live)
            token = self.rng.choice([None, *game.seats])
            after = resume.get(game.game_id, 0)
            last = after
            # a fresh connection each time: dropping it is what a flaky client does
            async with grpc.aio.insecure_channel(self.target, options=[("soak.w", i)]) as ch:
                stream = pb_grpc.TableServiceStub(ch).Watch(
                    pb.WatchRequest(game_id=game.game_id, after_version=after),
                    metadata=self.md(token),
                )
                self.r.watch_sessions += 1
                deadline = time.monotonic() + self.rng.uniform(0.1, 3.0)
                code = "OK"
                try:
                    while time.monotonic() < deadline:
                        msg = await asyncio.wait_for(stream.read(), deadline - time.monotonic())
                        if msg is grpc.aio.EOF:
                            break
                        v = msg.event.version
                        if v <= last:
                            self.r.duplicates += 1
                        elif v != last + 1:
                            self.r.gaps += 1
                        last = max(last, v)
                        self.r.watch_events += 1
                except TimeoutError:
                    pass
                except grpc.RpcError as err:
                    code = err.code().name
                finally:
                    stream.cancel()
                self.r.statuses[f"Watch:{code}"] += 1
            resume[game.game_id] = last

    async def memory(self, start: float) -> None:
        while time.monotonic() < self.stop_at:
            self.r.rss.append((time.monotonic() - start, rss_mb(self.pid)))
            await asyncio.sleep(min(5.0, self.r.seconds / 20))

    async def run(self) -> None:
        start = time.monotonic()
        self.stop_at = start + self.r.seconds
        self.r.rss.append((0.0, rss_mb(self.pid)))
        async with grpc.aio.insecure_channel(self.target) as ch:
            stub = pb_grpc.TableServiceStub(ch)
            tasks = [self.player(stub) for _ in range(self.r.games_at_once)]
            tasks += [self.watcher(i) for i in range(self.r.watchers)]
            await asyncio.gather(self.memory(start), *tasks)
        self.r.elapsed = time.monotonic() - start
        self.r.rss.append((self.r.elapsed, rss_mb(self.pid)))


def soak(seconds: float, games: int, watchers: int, seed: int = 1) -> SoakResult:
    result = SoakResult(seconds, games, watchers)
    with ServerProcess(extra=FLAGS) as server:
        assert server.proc is not None
        asyncio.run(Soak(server.target, server.proc.pid, result, seed).run())
        log = (server.data_dir / "server.log").read_text(errors="replace")
    result.error_lines = sum(1 for line in log.splitlines() if "level=error" in line)
    return result


def soak_section(quick: bool) -> list[str]:
    seconds, games, watchers = sized(quick, (180.0, 300, 150), (30.0, 100, 50), (2.0, 4, 2))
    r = soak(seconds, games, watchers)
    warm, end, growth = r.growth()
    lines = [
        "## Soak: hundreds of concurrent games, watchers dropping and resuming",
        "",
        f"`bench/soak.py`: {r.games_at_once} concurrent bot games (花鸟风月 BASIC and 川南字牌, "
        f"a new game when one ends) and {r.watchers} watchers that connect to a random game, "
        "read for 0.1-3 s, drop the connection and later resume from the last version seen; "
        f"one SQLite server on loopback for {r.elapsed:.0f} s, sharing the machine with the "
        "load generator. Memory is the server's resident set (VmRSS).",
        "",
        "| figure | value |",
        "|---|---|",
        f"| games started / finished | {r.games_started} / {r.games_finished} |",
        f"| moves | {r.moves:,} ({r.moves / r.elapsed:,.0f}/s) |",
        f"| events appended | {r.events:,} ({r.events / r.elapsed:,.0f}/s) |",
        f"| watch sessions / events streamed | {r.watch_sessions:,} / {r.watch_events:,} |",
        f"| stream gaps / duplicates | {r.gaps} / {r.duplicates} |",
        f"| calls that failed (any status but OK) | {r.errors} |",
        f"| server error log lines | {r.error_lines} |",
        f"| server RSS at start / after warm-up / at end | {r.rss[0][1]:.0f} / {warm:.0f} / "
        f"{end:.0f} MB |",
        f"| RSS growth after warm-up | {growth:+.0f} MB ({growth * 1024 / max(1, r.games_finished):.1f} "
        "KB per finished game) |",
        "",
    ]
    failed = {k: v for k, v in r.statuses.items() if not k.endswith(":OK")}
    if failed:
        lines += [f"Failed calls by status: {dict(sorted(failed.items()))}.", ""]
    print("\n".join(lines), flush=True)
    return lines


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--watchers", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    r = soak(a.seconds, a.games, a.watchers, a.seed)
    warm, end, growth = r.growth()
    print(
        f"{r.elapsed:.0f} s: {r.games_started} games started, {r.games_finished} finished, "
        f"{r.moves} moves ({r.moves / r.elapsed:.0f}/s), {r.events} events "
        f"({r.events / r.elapsed:.0f}/s); {r.watch_sessions} watch sessions, {r.watch_events} "
        f"events streamed, {r.gaps} gaps, {r.duplicates} duplicates; {r.errors} failed calls "
        f"{dict(r.statuses)}; {r.error_lines} error log lines; RSS {r.rss[0][1]:.0f} -> "
        f"{warm:.0f} -> {end:.0f} MB ({growth:+.0f} MB after warm-up)"
    )


if __name__ == "__main__":
    main()
