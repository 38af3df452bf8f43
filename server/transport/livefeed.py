"""The live viewer's event streams: one shared feed per game, and the limits on open streams.

Every live viewer is a spectator, so a game's steps render the same for all of them. A
``GameFeed`` follows the game once (one ``Watch.follow``: one hub subscription and
one store read per page) and renders each step once, as the Server-Sent Event bytes the
page reads; every open stream of that game reads those bytes at its own pace. The feed
keeps the game's steps from version 1 while they fit its byte budget, so a new tab (the
page asks for ``after=0``) costs no rendering; a stream that wants a step the feed has
dropped reads it from the store and renders it itself (``Watch.replay``, whose
rendering is the same byte for byte), then goes on with the shared steps.

Streams are counted per network prefix (a /24 for IPv4, a /64 for IPv6: one host holds
many addresses of its own prefix, rarely many prefixes), per wider network (a /16 or /48: one
provider's block, so that a few neighbouring /24s cannot fill a game between them) and per
game, within a total. A game's own seats and arbiter (a stream opened with the seat's or the
arbiter's token) are never refused by those: only by ``streams_per_seat`` for that seat of
that game, and by the total plus ``own_headroom``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import Counter, deque
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

from domain.engine import SPECTATOR
from server.transport.peers import network_of
from server.usecases.table_server import TableServer
from server.wire import page as web
from server.wire import render

log = logging.getLogger("tabletop.http")
KEEPALIVE_SECONDS = 15.0  # a comment line keeps idle proxies from closing the stream
KEEPALIVE = b": keepalive\n\n"
END = b"event: end\ndata: {}\n\n"


@dataclass(frozen=True)
class ViewerLimits:
    """The live viewer's limits (``--http-*`` flags, server/startup/config.py)."""

    max_streams: int = 1000  # open event streams in all
    streams_per_prefix: int = 32  # per /24 (IPv4) or /64 (IPv6) of the viewers' addresses
    streams_per_wide_prefix: int = 64  # per /16 (IPv4) or /48 (IPv6)
    streams_per_game: int = 250
    streams_per_seat: int = 4  # a game's own seat's (or its arbiter's) streams of that game
    own_headroom: int = 250  # streams of seats and arbiters admitted beyond max_streams
    feed_bytes: int = 2 << 20  # rendered steps a game's feed keeps for tabs that open later


def step_data(kind: str, event: Any, snap: Any) -> dict[str, Any]:
    """One version as the page reads it: the event and the view, rendered for the viewer."""
    return web.step(
        snap.version, render.event_proto(kind, event, snap.viewer), render.view_proto(snap)
    )


def step_chunk(kind: str, event: Any, snap: Any) -> bytes:
    """One version as the page's ``step`` event: its id, then the step as compact JSON."""
    data = json.dumps(step_data(kind, event, snap), ensure_ascii=False, separators=(",", ":"))
    return f"id: {event.version}\nevent: step\ndata: {data}\n\n".encode()


class GameFeed:
    """One game's steps, rendered once for all of its open streams."""

    def __init__(self, tables: TableServer, game_id: str, budget: int) -> None:
        self.tables = tables
        self.game_id = game_id
        self.budget = budget
        self.first = 1  # the version of chunks[0]
        self.chunks: deque[bytes] = deque()
        self.size = 0  # bytes in chunks
        self.done = False  # no more steps will come
        self.ended = False  # ... because the game is over (the streams then send `end`)
        self.streams = 0
        self._news = asyncio.Event()
        self.task = asyncio.create_task(self._follow())

    async def _follow(self) -> None:
        try:
            async for event, snap in self.tables.watch.follow(self.game_id, SPECTATOR, 0):
                self._add(step_chunk(snap.table.kind, event, snap))
            self.ended = True
        except asyncio.CancelledError:
            pass  # the last stream left, or a shutdown
        except Exception:
            log.exception("live feed of %s failed", self.game_id)
        finally:
            self.done = True
            self._wake()

    def _add(self, chunk: bytes) -> None:
        self.chunks.append(chunk)
        self.size += len(chunk)
        while self.size > self.budget and len(self.chunks) > 1:
            self.size -= len(self.chunks.popleft())
            self.first += 1
        self._wake()

    def _wake(self) -> None:
        news, self._news = self._news, asyncio.Event()
        news.set()

    async def chunks_after(self, after: int) -> AsyncIterator[bytes]:
        """The stream of one viewer: each step after ``after``, ``end`` once the game is
        over, and a keepalive comment whenever nothing came for KEEPALIVE_SECONDS. Ends
        without ``end`` if the feed stops early (a shutdown; the browser reconnects)."""
        position = after
        while True:
            news = self._news
            if position + 1 < self.first:  # dropped from the feed: read it from the store
                async for chunk in self._from_store(position + 1, self.first - 1):
                    position += 1
                    yield chunk
                continue
            index = position + 1 - self.first
            if index < len(self.chunks):
                position += 1
                yield self.chunks[index]
                continue
            if self.done:
                if self.ended:
                    yield END
                return
            try:
                await asyncio.wait_for(news.wait(), KEEPALIVE_SECONDS)
            except TimeoutError:
                yield KEEPALIVE

    async def _from_store(self, first: int, last: int) -> AsyncIterator[bytes]:
        async for event, snap in self.tables.watch.replay(self.game_id, SPECTATOR, first, last):
            yield step_chunk(snap.table.kind, event, snap)


class Feeds:
    """The open games' feeds: one per game while it has a stream, then stopped."""

    def __init__(self, tables: TableServer, budget: int) -> None:
        self.tables = tables
        self.budget = budget
        self._feeds: dict[str, GameFeed] = {}

    @contextlib.contextmanager
    def joined(self, game_id: str) -> Iterator[GameFeed]:
        """The game's feed (started if none is running) while the caller streams it."""
        feed = self._feeds.get(game_id)
        if feed is None or (feed.done and not feed.ended):  # a failed feed is started again
            feed = self._feeds[game_id] = GameFeed(self.tables, game_id, self.budget)
        feed.streams += 1
        try:
            yield feed
        finally:
            feed.streams -= 1
            if not feed.streams:
                feed.task.cancel()
                if self._feeds.get(game_id) is feed:
                    del self._feeds[game_id]

    def running(self) -> int:
        return len(self._feeds)

    async def close(self) -> None:
        """Stop every feed (on shutdown): their streams end, browsers reconnect elsewhere."""
        tasks = [feed.task for feed in self._feeds.values()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def wide_network_of(address: str | None) -> str:
    """The /16 (IPv4) or /48 (IPv6) holding ``address``."""
    return network_of(address, 16, 48)


@dataclass(frozen=True)
class Place:
    """Where one stream counts: the viewer's networks, its game, and (a seat's or the
    arbiter's own stream) who it is at that game."""

    prefix: str
    wide: str
    game_id: str
    own: str = ""  # "seat 2" or "arbiter": a stream of the game's own

    @classmethod
    def of(cls, address: str | None, game_id: str, own: str = "") -> Place:
        return cls(network_of(address), wide_network_of(address), game_id, own)


class StreamCounts:
    """Open streams: in all, per network prefix, per wider network, per game, and a game's
    own seats' and arbiter's apart."""

    def __init__(self, limits: ViewerLimits) -> None:
        self.limits = limits
        self.total = 0
        self.per_prefix: Counter[str] = Counter()
        self.per_wide: Counter[str] = Counter()
        self.per_game: Counter[str] = Counter()  # the spectators' streams of each game
        self.per_own: Counter[tuple[str, str]] = Counter()  # (game, "seat N" / "arbiter")

    def refusal(self, place: Place) -> str | None:
        """Why one more stream at ``place`` is refused, or None."""
        if place.own:
            return self._own_refusal(place)
        limits = self.limits
        if self.total >= limits.max_streams:
            return f"at most {limits.max_streams} open streams in all"
        if self.per_prefix[place.prefix] >= limits.streams_per_prefix:
            return f"at most {limits.streams_per_prefix} open streams per network ({place.prefix})"
        if self.per_wide[place.wide] >= limits.streams_per_wide_prefix:
            return (
                f"at most {limits.streams_per_wide_prefix} open streams per wider network "
                f"({place.wide})"
            )
        if self.per_game[place.game_id] >= limits.streams_per_game:
            return (
                f"at most {limits.streams_per_game} open streams per game "
                "(its seats and arbiter are admitted with their token)"
            )
        return None

    def _own_refusal(self, place: Place) -> str | None:
        limits = self.limits
        if self.per_own[(place.game_id, place.own)] >= limits.streams_per_seat:
            return f"at most {limits.streams_per_seat} open streams for {place.own} of this game"
        if self.total >= limits.max_streams + limits.own_headroom:
            return f"at most {limits.max_streams + limits.own_headroom} open streams in all"
        return None

    @contextlib.contextmanager
    def held(self, place: Place) -> Iterator[None]:
        counted: list[tuple[Counter[Any], Any]] = (
            [(self.per_own, (place.game_id, place.own))]
            if place.own
            else [
                (self.per_prefix, place.prefix),
                (self.per_wide, place.wide),
                (self.per_game, place.game_id),
            ]
        )
        self.total += 1
        for counter, key in counted:
            counter[key] += 1
        try:
            yield
        finally:
            self.total -= 1
            for counter, key in counted:
                counter[key] -= 1
                if not counter[key]:
                    del counter[key]
