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
