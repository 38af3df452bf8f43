"""A Watch opened at any moment relative to a move (issue 38, "Streams that never miss a turn").

The race: ``Games.append`` makes a move durable in the store, and only when it resumes on the
event loop does it move the cached game (what every load, GetView and LegalMoves answer from)
and publish the move to the hub. A Watch opened in that window used to read the move from
the store during its catch-up while every load still gave the version before it: the seat's
turn at the move's version was judged against the older version and left out, and the
move's live batch, arriving next, was dropped as already sent. The seat never learned it was
its turn (2 of 64 games hung at the first move). A stream opened then over the move that
ends the game did not end either.

The deterministic tests hold a move in that window (its commit done, its ``append`` not yet
resumed) and open a stream there. The randomized test opens streams for every seat at random
moments against moves played by bots from their streams, with random delays in the store's
reads and commits: ``WATCH_RACE_SECONDS`` (default 20) bounds it, ``WATCH_RACE_SEED`` replays
a run (its seed is printed).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import random
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from domain import table as tables
from domain.engine import ARBITER, Viewer
from domain.huaniao.options import Mode, Options
from domain.registry import register
from server.startup.compose import table_server
from server.store.eventstore import TableApplication
from server.transport.servicer import TOKEN_HEADER, TableServicer
from server.usecases.table_server import TableServer
from tabletop.v1 import tabletop_pb2 as pb
from tests.support import fakegame
from tests.support.records import in_memory_server

register(fakegame.RULES)


class _Context:
    """What the servicer asks of a gRPC call's context."""

    def __init__(self, token: str = "") -> None:
        self.metadata = [(TOKEN_HEADER, token)] if token else []

    def invocation_metadata(self) -> list[tuple[str, str]]:
        return self.metadata

    async def abort(self, code: Any, details: str) -> None:
        raise AssertionError(f"aborted: {code} {details}")

    async def abort_with_status(self, status: Any) -> None:
        raise AssertionError(f"aborted: {status}")


class Gate:
    """Holds moves between their commit (durable: a store read sees them) and the moment
    ``Games.append`` resumes (the cache moves on and the hub publishes): the race's window.
    ``hold`` says, per move, how long to hold it (None: until ``release``)."""

    def __init__(self, ts: TableServer, hold: Callable[[], float | None]) -> None:
        self.committed = asyncio.Event()
        self.released = asyncio.Event()
        self.tasks: list[asyncio.Task[None]] = []
        real = ts.games.store.submit

        def submit(agg: Any) -> concurrent.futures.Future[None]:
            done, gated = real(agg), concurrent.futures.Future[None]()
            delay = hold()

            async def later() -> None:
                try:
                    await asyncio.wrap_future(done)
                except Exception as exc:
                    gated.set_exception(exc)
                    return
                self.committed.set()
                if delay is None:
                    await self.released.wait()
                elif delay:
                    await asyncio.sleep(delay)
                gated.set_result(None)

            self.tasks.append(asyncio.ensure_future(later()))
            return gated

        ts.games.store.submit = submit  # type: ignore[method-assign]


async def huaniao_table(ts: TableServer, seats: int = 2) -> tuple[str, list[str]]:
    """A 花鸟风月 table in play with unkeyed seats: its id and the seats' tokens."""
    mode = Mode.SIMPLE if seats == 2 else Mode.BASIC
    gid, _v, _a = await ts.seats.create_game(
        "huaniao", Options(mode=mode), seats, allow_unkeyed_seats=True
    )
    tokens = [(await ts.seats.join_game(gid, s, f"p{s}"))[0] for s in range(seats)]
    await ts.deal.start_game(gid, ARBITER)
    return gid, tokens


async def first_move(ts: TableServer, gid: str) -> tuple[int, int, Any]:
    """The seat to act, the version and a legal move of it."""
    table = (await ts.watch.snapshot(gid, ARBITER, None)).table
    (seat, *_others) = tables.to_act(table)
    _t, version, legal = await ts.play.legal_moves(gid, Viewer.of_seat(seat))
    return seat, version, legal[0]


async def collect(stream: AsyncIterator[pb.WatchResponse], into: list[pb.WatchResponse]) -> None:
    async for msg in stream:
        into.append(msg)


def version_of(msg: pb.WatchResponse) -> int:
    return msg.events[-1].version if msg.events else msg.event.version


async def until(check: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.005)
    return True


def test_a_stream_opened_between_a_moves_commit_and_its_publish_tells_the_seat_its_turn() -> None:
    async def scenario() -> None:
        ts = in_memory_server()
        api = TableServicer(ts, None, {})
        try:
            gid, tokens = await huaniao_table(ts)
            seat, version, command = await first_move(ts, gid)
            other = 1 - seat
            gate = Gate(ts, lambda: None)
            play = asyncio.ensure_future(ts.play.play(gid, Viewer.of_seat(seat), version, command))
            await asyncio.wait_for(gate.committed.wait(), 5)  # durable, not yet published
            got: list[pb.WatchResponse] = []
            request = pb.WatchRequest(game_id=gid, batched=True)
            reader = asyncio.ensure_future(
                collect(api.Watch(request, _Context(tokens[other])), got)
            )
            # the stream has caught up with the store (the old code: with the move too)
            assert await until(lambda: bool(got) and version_of(got[-1]) >= version, 5)
            await asyncio.sleep(0.1)
            # the use case's promise: what a stream sent, a load gives (GetView, LegalMoves)
            sent, known = (
                max(map(version_of, got)),
                await ts.games.version_of(ts.games.parse_id(gid)),
            )
            gate.released.set()
            await asyncio.wait_for(play, 5)
            told = await until(lambda: any(m.legal_moves.version == version + 1 for m in got), 2)
            reader.cancel()
            assert [version_of(m) for m in got] == sorted({version_of(m) for m in got})
            assert version_of(got[-1]) == version + 1
            assert told, "the seat to act after the move was never told it may act"
            assert got[-1].legal_moves.moves
            assert sent <= known, "the stream sent a version no load gave yet"
        finally:
            ts.games.close()

    asyncio.run(scenario())


def test_a_stream_opened_while_the_last_move_lands_ends() -> None:
    async def scenario() -> None:
        ts = table_server(TableApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}))
        try:
            gid, _version, _arbiter = await ts.seats.create_game(
                "fake", fakegame.Options(hand_size=1), 2, allow_unkeyed_seats=True
            )
            for seat in range(2):
                await ts.seats.join_game(gid, seat, f"p{seat}")
            await ts.deal.start_game(gid, ARBITER)
            for last in (False, True):  # (one card each: the second discard ends the game)
                snap = await ts.watch.snapshot(gid, ARBITER, None)
                state, version = snap.table.game, snap.version
                (command,) = fakegame.RULES.legal_commands(state, state.turn)
                gate = Gate(ts, (lambda: None) if last else (lambda: 0.0))
                play = asyncio.ensure_future(
                    ts.play.play(gid, Viewer.of_seat(state.turn), version, command)
                )
                if not last:
                    await play
            await asyncio.wait_for(gate.committed.wait(), 5)  # the last move, durable
            got: list[int] = []
            seen: list[Viewer] = []

            async def watch() -> None:
                async for events, seen_as, _batch in ts.watch.watch(gid, Viewer.of_seat(0), 0):
                    got.extend(e.version for e in events)
                    seen.append(seen_as)

            watcher = asyncio.ensure_future(watch())
            await asyncio.sleep(0.1)
            gate.released.set()
            await asyncio.wait_for(play, 5)
            await asyncio.wait_for(watcher, 3)  # the old code: never ends
            final = await ts.watch.snapshot(gid, ARBITER, None)
            assert final.table.phase is tables.Phase.FINISHED
            assert got == list(range(1, final.version + 1))
            assert seen[-1] == ARBITER  # the move that ended the game, opened up
        finally:
            ts.games.close()

    asyncio.run(scenario())


class Refused(Exception):
    def __init__(self, status: Any) -> None:
        super().__init__(str(status))
        self.code = status.code


class _Call(_Context):
    """A context whose refusals the caller can tell apart (ABORTED: another seat came first)."""

    async def abort_with_status(self, status: Any) -> None:
        raise Refused(status)


SECONDS = float(os.environ.get("WATCH_RACE_SECONDS", "20"))
GAME_TIMEOUT = 10.0  # a game that has not finished by then hangs: the bug


class Randomized:
    """Games played by bots from their seats' streams, each stream opened at a random moment
    (from version 0 or from a random version seen so far) against the moves, with random
    holds between a move's commit and its publish and random delays in the store's reads."""

    def __init__(self, ts: TableServer, rng: random.Random) -> None:
        self.ts, self.rng = ts, rng
        self.api = TableServicer(ts, None, {})
        self.streams = 0  # streams opened
        self.moves = 0
        hold = [0.0, 0.0, 0.0005, 0.002, 0.005]
        Gate(ts, lambda: rng.choice(hold))
        read = ts.games.store.stored_events

        def stored_events(*args: Any) -> Any:
            if rng.random() < 0.3:
                time.sleep(rng.choice([0.0, 0.0005, 0.002]))
            return read(*args)

        ts.games.store.stored_events = stored_events  # type: ignore[method-assign]

    async def game(self) -> None:
        rng = self.rng
        seats = rng.choice([2, 2, 4])
        gid, tokens = await huaniao_table(self.ts, seats)
        pid = self.ts.games.parse_id(gid)
        told: list[set[int]] = [set() for _ in range(seats)]  # versions each seat was told at
        own: list[set[int]] = [set() for _ in range(seats)]  # versions of each seat's moves
        streams: list[tuple[int, int, bool, list[pb.WatchResponse]]] = []
        played: list[set[int]] = [set() for _ in range(seats)]  # legal_moves versions played

        async def play(seat: int, legal: pb.LegalMovesResponse) -> None:
            while legal.moves and legal.version not in played[seat]:
                played[seat].add(legal.version)
                moves = list(legal.moves)  # game moves (no justice: one seat acts at a time)
                move = rng.choice([m for m in moves if m.WhichOneof("game") != "table"] or moves)
                request = pb.PlayRequest(game_id=gid, expected_version=legal.version, move=move)
                try:
                    reply = await self.api.Play(request, _Call(tokens[seat]))
                except Refused as refused:
                    assert refused.code.name == "ABORTED", refused
                    return  # another seat came first: the stream says what next
                self.moves += 1
                own[seat].update(e.version for e in reply.events)
                if not reply.HasField("legal_moves"):
                    return
                told[seat].add(reply.legal_moves.version)
                legal = reply.legal_moves

        async def stream(seat: int, playing: bool) -> None:
            await self.moment(pid)
            now = await self.ts.games.version_of(pid)
            # from the start, or resuming from a version seen before (a player's stream
            # from one it has not yet received the turn of, so it has something to hear)
            after = 0 if rng.random() < 0.4 else rng.randrange(0, now if playing else now + 1)
            exclude = playing and rng.random() < 0.3
            got: list[pb.WatchResponse] = []
            streams.append((seat, after, exclude, got))
            self.streams += 1
            request = pb.WatchRequest(
                game_id=gid,
                after_version=after,
                batched=rng.random() < 0.7,
                exclude_own_moves=exclude,
            )
            async for msg in self.api.Watch(request, _Context(tokens[seat])):
                got.append(msg)
                if msg.HasField("legal_moves"):
                    assert msg.legal_moves.version == version_of(msg), "a turn at another version"
                    told[seat].add(msg.legal_moves.version)
                    if playing:
                        await play(seat, msg.legal_moves)

        tasks = [
            asyncio.ensure_future(stream(seat, playing))
            for seat in range(seats)
            for playing in (True, False, False)
        ]
        done, pending = await asyncio.wait(tasks, timeout=GAME_TIMEOUT)
        for task in pending:
            task.cancel()
        for task in done:
            task.result()
        final = await self.ts.watch.snapshot(gid, ARBITER, None)
        if pending:
            raise AssertionError(f"a game hung at version {final.version} (seats {seats})")
        assert final.table.phase is tables.Phase.FINISHED
        await self.check(gid, final.version, seats, told, own, streams)

    async def moment(self, pid: Any) -> None:
        """A random moment: at once, after a few loop turns, a short sleep, or a version."""
        rng, choice = self.rng, self.rng.random()
        if choice < 0.25:
            return
        if choice < 0.5:
            for _ in range(rng.randrange(1, 20)):
                await asyncio.sleep(0)
        elif choice < 0.75:
            await asyncio.sleep(rng.choice([0.0005, 0.002, 0.01]))
        else:
            target, deadline = rng.randrange(1, 25), time.monotonic() + 0.2
            while await self.ts.games.version_of(pid) < target and time.monotonic() < deadline:
                await asyncio.sleep(0.001)

    async def check(
        self,
        gid: str,
        last: int,
        seats: int,
        told: list[set[int]],
        own: list[set[int]],
        streams: list[tuple[int, int, bool, list[pb.WatchResponse]]],
    ) -> None:
        every = range(1, last + 1)
        for seat, after, exclude, got in streams:
            versions = [e.version for m in got for e in (m.events or [m.event])]
            left_out = own[seat] if exclude else set()
            expected = [v for v in every if v > after and v not in left_out]
            assert versions == expected, f"seat {seat} after {after}: a gap or a duplicate"
        waits: dict[int, tuple[int, ...]] = {}  # the seats the game waits for, per version
        ends: set[int] = {last}  # the versions where a move ends (a turn is at a move's end)
        async for event, snap in self.ts.watch.replay(gid, ARBITER, 1, last):
            if event.cause is not None:
                ends.add(event.version - 1)
            if snap.table.phase is tables.Phase.PLAYING:
                waits[event.version] = tuple(tables.to_act(snap.table))
        for version in sorted(ends & set(waits)):
            for seat in waits[version]:
                assert version in told[seat], (
                    f"seat {seat} was to act at version {version} and never told"
                )


def test_streams_opened_at_any_moment_against_moves_tell_every_turn() -> None:
    """Thousands of interleavings: every seat's two streams (one it plays from) opened at
    random moments against the moves of concurrent games, for WATCH_RACE_SECONDS."""
    seed = int(os.environ.get("WATCH_RACE_SEED", random.randrange(1 << 30)))
    print(f"WATCH_RACE_SEED={seed}")

    async def scenario() -> tuple[int, int, int]:
        # unsigned (the race is not in the seals): more interleavings in the time
        ts = table_server(TableApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}))
        run = Randomized(ts, random.Random(seed))
        games, stop = 0, time.monotonic() + SECONDS
        try:
            while time.monotonic() < stop:
                batch = [run.game() for _ in range(12)]  # 12 games at a time on one server
                await asyncio.gather(*batch)
                games += len(batch)
        finally:
            ts.games.close()
        return games, run.streams, run.moves

    games, streams, moves = asyncio.run(scenario())
    print(f"{games} games, {streams} streams opened against {moves} moves (seed {seed})")
    assert games and streams and moves
