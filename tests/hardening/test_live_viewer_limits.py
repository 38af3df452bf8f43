"""The live viewer (server/transport/webview.py, livefeed.py) against many viewers and odd input.

In process, over loopback: a TableServer on the in-memory store and the viewer's aiohttp
app on 127.0.0.1. Linux routes all of 127.0.0.0/8 to loopback, so a client socket bound to
127.0.0.N (``TCPConnector(local_addr=...)``) is a viewer at its own address: many in one
/24, and others in 127.0.1.0/24, 127.0.2.0/24, ...
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import random
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import aiohttp
import pytest

from domain import table as tables
from domain.engine import ARBITER, SPECTATOR, Viewer
from domain.huaniao.options import Mode, Options
from domain.registry import rules_for
from domain.table import deal
from server.startup.compose import table_server
from server.store.eventstore import TableApplication
from server.transport import livefeed, webview
from server.transport.livefeed import ViewerLimits, network_of
from server.usecases.table_server import TableServer
from server.wire import page as web
from server.wire import render
from server.wire.receipts import Sealer
from server.wire.signing import Signer

BOUND = 60.0  # seconds per test; each takes a few


def bounded(test: Callable[..., Awaitable[None]]) -> Callable[..., None]:
    """Run an async test on its own loop, within BOUND seconds."""

    @functools.wraps(test)  # pytest reads the test's parameters through __wrapped__
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(asyncio.wait_for(test(*args, **kwargs), BOUND))

    return run


class Live:
    """A table server and its live viewer, served on 127.0.0.1."""

    def __init__(self, ts: TableServer, viewer: webview.LiveViewer, port: int) -> None:
        self.ts = ts
        self.viewer = viewer
        self.port = port

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@asynccontextmanager
async def live_viewer(limits: ViewerLimits | None = None) -> AsyncIterator[Live]:
    app = TableApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    ts = table_server(app, sealer=Sealer(Signer.generate()), allow_prepared_deals=True)
    viewer, runner, port = await webview.start(ts, "127.0.0.1", 0, limits)
    try:
        yield Live(ts, viewer, port)
    finally:
        await webview.stop(viewer, runner)
        ts.games.close()


async def dealt_game(ts: TableServer, seed: int = 11) -> str:
    """A 2-seat 花鸟风月 game (SIMPLE), dealt from a seed (the same game every run: played
    with ``play``'s seeded moves it lasts as long each time), waiting for its first move."""
    gid, _, _ = await ts.seats.create_game(
        "huaniao", Options(mode=Mode.SIMPLE), 2, seed=seed, allow_unkeyed_seats=True
    )
    for s in range(2):
        await ts.seats.join_game(gid, s, f"p{s}", commitment=deal.contribution_commitment(f"c{s}"))
    for s in range(2):
        await ts.deal.reveal(gid, Viewer.of_seat(s), f"c{s}")
    await ts.deal.start_game(gid, ARBITER)
    return gid


async def play(ts: TableServer, gid: str, rng: random.Random, moves: int = 10**6) -> bool:
    """Up to ``moves`` random legal moves; True once the game is over."""
    rules = rules_for("huaniao")
    for _ in range(moves):
        table = (await ts.watch.snapshot(gid, ARBITER, None)).table
        if table.phase is not tables.Phase.PLAYING:
            return True
        seat = rng.choice(list(rules.to_act(table.game)))
        _table, version, legal = await ts.play.legal_moves(gid, Viewer.of_seat(seat))
        game_moves = [c for c in legal if type(c) in rules.command_types]
        await ts.play.play(gid, Viewer.of_seat(seat), version, rng.choice(game_moves or legal))
    return (await ts.watch.snapshot(gid, ARBITER, None)).table.phase is not tables.Phase.PLAYING


async def open_stream(
    stack: AsyncExitStack, live: Live, gid: str, source: str, after: int = 0
) -> aiohttp.ClientResponse:
    """An event stream of ``gid`` from the local address ``source``, its headers read."""
    connector = aiohttp.TCPConnector(local_addr=(source, 0), force_close=True)
    session = await stack.enter_async_context(aiohttp.ClientSession(connector=connector))
    return await stack.enter_async_context(
        session.get(live.url(f"/games/{gid}/steps?after={after}"))
    )


async def body_of(stream: aiohttp.ClientResponse) -> bytes:
    """A stream's bytes to its end, without the keepalive comments (timing, not content)."""
    return (await stream.read()).replace(livefeed.KEEPALIVE, b"")


async def expected_bytes(ts: TableServer, gid: str, after: int = 0) -> bytes:
    """What one viewer's stream carried before feeds were shared: each step rendered from
    its own ``Watch.follow``, in this exact form, then ``end``."""
    out = []
    async for event, snap in ts.watch.follow(gid, SPECTATOR, after):
        step = web.step(
            snap.version,
            render.event_proto(snap.table.kind, event, snap.viewer),
            render.view_proto(snap),
        )
        data = json.dumps(step, ensure_ascii=False, separators=(",", ":"))
        out.append(f"id: {event.version}\nevent: step\ndata: {data}\n\n".encode())
    return b"".join(out) + b"event: end\ndata: {}\n\n"


# --- the limits -----------------------------------------------------------------------------


@bounded
async def test_many_addresses_in_one_prefix_hold_to_its_limit_and_other_prefixes_are_served() -> (
    None
):
    async with live_viewer() as live, AsyncExitStack() as stack:  # the default limits
        gid = await dealt_game(live.ts)
        per_prefix = live.viewer.limits.streams_per_prefix
        statuses = []
        for n in range(2, 2 + per_prefix + 8):  # 127.0.0.2 .. 127.0.0.41: one stream each
            statuses.append((await open_stream(stack, live, gid, f"127.0.0.{n}")).status)
        assert statuses == [200] * per_prefix + [429] * 8, statuses
        refused = await open_stream(stack, live, gid, "127.0.0.200")
        reason = await refused.text()
        assert refused.headers["Retry-After"] and "127.0.0.0/24" in reason, reason
        assert "\n" not in reason.strip()
        for n in range(1, 5):  # the next prefixes are still served
            assert (await open_stream(stack, live, gid, f"127.0.{n}.7")).status == 200
        assert live.viewer.streams.total == per_prefix + 4


@bounded
async def test_a_closed_stream_frees_its_place_in_the_prefix() -> None:
    limits = ViewerLimits(streams_per_prefix=3)
    async with live_viewer(limits) as live:
        gid = await dealt_game(live.ts)
        async with AsyncExitStack() as first:
            for n in (2, 3, 4):
                assert (await open_stream(first, live, gid, f"127.0.0.{n}")).status == 200
            async with AsyncExitStack() as stack:
                assert (await open_stream(stack, live, gid, "127.0.0.5")).status == 429
        await play(live.ts, gid, random.Random(3), moves=1)  # each closed stream notices
        for _ in range(100):
            if live.viewer.streams.total == 0:
                break
            await asyncio.sleep(0.05)
        assert live.viewer.streams.total == 0 and live.viewer.feeds.running() == 0
        async with AsyncExitStack() as stack:
            assert (await open_stream(stack, live, gid, "127.0.0.5")).status == 200


@bounded
async def test_streams_are_limited_per_game_whatever_the_spelling_of_its_id() -> None:
    limits = ViewerLimits(streams_per_game=3)
    async with live_viewer(limits) as live, AsyncExitStack() as stack:
        gid, other = await dealt_game(live.ts), await dealt_game(live.ts)
        for n, spelling in enumerate((gid, gid.upper(), gid), start=1):
            assert (await open_stream(stack, live, spelling, f"127.0.{n}.1")).status == 200
        refused = await open_stream(stack, live, gid.upper(), "127.0.9.1")
        assert refused.status == 429 and "per game" in await refused.text()
        assert (await open_stream(stack, live, other, "127.0.9.1")).status == 200
        assert live.viewer.feeds.running() == 2, "one feed per game, however its id is written"


def test_network_prefixes() -> None:
    assert network_of("127.0.0.2") == network_of("127.0.0.254") == "127.0.0.0/24"
    assert network_of("127.0.1.2") == "127.0.1.0/24"
    assert network_of("::ffff:10.1.2.3") == "10.1.2.0/24", "IPv4 mapped into IPv6 is IPv4"
    assert (
        network_of("2001:db8:1:2:aaaa::1")
        == network_of("2001:db8:1:2::ffff")
        == "2001:db8:1:2::/64"
    )
    assert network_of("fe80::1%eth0") == "fe80::/64"
    assert network_of(None) == "unknown"


# --- one feed per game ----------------------------------------------------------------------


@pytest.mark.parametrize("feed_bytes", [2 << 20, 1], ids=["cached", "catch-up-from-the-store"])
@bounded
async def test_viewers_of_one_game_share_one_feed_and_get_the_same_bytes(
    feed_bytes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    renderings = 0
    step_data = livefeed.step_data

    def counted(*args: Any) -> Any:
        nonlocal renderings
        renderings += 1
        return step_data(*args)

    monkeypatch.setattr(livefeed, "step_data", counted)
    rng = random.Random(7)
    async with live_viewer(ViewerLimits(feed_bytes=feed_bytes)) as live, AsyncExitStack() as stack:
        gid = await dealt_game(live.ts)
        first = [await open_stream(stack, live, gid, f"127.0.{n}.1") for n in range(1, 7)]
        heads = [await stream.content.readuntil(b"\n\n") for stream in first]
        assert all(head.startswith(b"id: 1\n") for head in heads), "every stream is following"
        assert live.ts.games.hub.open_streams() == 1, "six viewers, one hub subscription"
        assert not await play(live.ts, gid, rng, moves=6), "the game goes on (seed 11)"
        start = (await live.ts.watch.snapshot(gid, SPECTATOR, None)).version
        afters = (0, 3, start)
        late = [
            await open_stream(stack, live, gid, f"127.0.{11 + n}.1", a)
            for n, a in enumerate(afters)
        ]
        assert live.ts.games.hub.open_streams() == 1, "nine viewers, one hub subscription"
        assert await play(live.ts, gid, rng), "the game ends"
        latest = (await live.ts.watch.snapshot(gid, SPECTATOR, None)).version
        whole = await expected_bytes(live.ts, gid)
        for head, stream in zip(heads, first, strict=True):
            assert head + await body_of(stream) == whole, "byte for byte what a tab got before"
        for stream, after in zip(late, afters, strict=True):
            assert await body_of(stream) == await expected_bytes(live.ts, gid, after)
    if feed_bytes > 1:  # (a feed of one step: the late viewers render what it dropped)
        assert renderings == latest, f"{renderings} renderings of {latest} steps for 9 viewers"


# --- numbers and closed tabs ----------------------------------------------------------------

ODD_NUMBERS = ["²", "٣", "1" * 20, "9" * 5000, "-1", "+1", " 1", "1.0", "0x10", ""]


@bounded
async def test_numbers_are_1_to_19_ascii_digits_and_anything_else_is_a_400() -> None:
    async with live_viewer() as live, aiohttp.ClientSession() as session:
        gid = await dealt_game(live.ts)
        for value in ODD_NUMBERS:
            quoted = urllib.parse.quote(value)
            asks = [
                (f"/games/{gid}/steps.json?after={quoted}", {}),
                (f"/games/{gid}/steps.json?limit={quoted}", {}),
                (f"/games/{gid}/steps?after={quoted}", {}),
            ]
            # a header: ASCII; HTTP trims its spaces; an empty one is no header
            if value and value.isascii() and value == value.strip():
                asks.append((f"/games/{gid}/steps", {"Last-Event-ID": value}))
            for path, headers in asks:
                async with session.get(live.url(path), headers=headers) as reply:
                    body = await reply.json()
                    assert reply.status == 400, (value[:30], path, reply.status)
                    assert body["field"] in ("after", "limit") and "19 digits" in body["message"]
                    assert "\n" not in body["message"]
        biggest = "9" * 19
        async with session.get(live.url(f"/games/{gid}/steps.json?after={biggest}")) as reply:
            assert reply.status == 200 and (await reply.json())["steps"] == []


@bounded
async def test_a_closed_tab_is_one_quiet_log_line(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    async with live_viewer() as live:
        gid = await dealt_game(live.ts)
        async with AsyncExitStack() as stack:
            stream = await open_stream(stack, live, gid, "127.0.0.2")
            await stream.content.readuntil(b"\n\n")
        caplog.clear()  # the tab is closed; the server notices at its next write
        rng = random.Random(5)
        for _ in range(100):
            await play(live.ts, gid, rng, moves=1)
            if live.viewer.streams.total == 0:
                break
            await asyncio.sleep(0.02)
        assert live.viewer.streams.total == 0, "the closed stream was let go"
    records = [r for r in caplog.records if r.name.startswith(("tabletop", "aiohttp"))]
    assert not [r for r in records if r.exc_info or r.levelno >= logging.WARNING], [
        (r.name, r.getMessage()) for r in records
    ]
    closed = [r for r in records if "closed by the viewer" in r.getMessage()]
    assert len(closed) == 1 and closed[0].levelno == logging.INFO, closed
    assert "\n" not in closed[0].getMessage()


# --- a flood cannot lock a game's own people out (issue 37, point 7) ------------------------


async def game_with_tokens(ts: TableServer) -> tuple[str, str, list[str]]:
    """A dealt 2-seat game, its arbiter token and its seats' tokens."""
    gid, _, arbiter = await ts.seats.create_game(
        "huaniao", Options(mode=Mode.SIMPLE), 2, seed=5, allow_unkeyed_seats=True
    )
    seats = []
    for s in range(2):
        token, _ = await ts.seats.join_game(
            gid, s, f"p{s}", commitment=deal.contribution_commitment(f"c{s}")
        )
        seats.append(token)
    for s in range(2):
        await ts.deal.reveal(gid, Viewer.of_seat(s), f"c{s}")
    await ts.deal.start_game(gid, ARBITER)
    return gid, arbiter, seats


async def open_own_stream(
    stack: AsyncExitStack, live: Live, gid: str, source: str, token: str, header: bool = False
) -> aiohttp.ClientResponse:
    """A stream opened with a token: in the query (as the page's EventSource does) or in
    the X-Seat-Token header."""
    connector = aiohttp.TCPConnector(local_addr=(source, 0), force_close=True)
    session = await stack.enter_async_context(aiohttp.ClientSession(connector=connector))
    if header:
        return await stack.enter_async_context(
            session.get(live.url(f"/games/{gid}/steps?after=0"), headers={"X-Seat-Token": token})
        )
    query = urllib.parse.urlencode({"after": 0, "token": token})
    return await stack.enter_async_context(session.get(live.url(f"/games/{gid}/steps?{query}")))


@bounded
async def test_a_flood_of_viewers_never_locks_out_the_games_own_seats_and_arbiter() -> None:
    """The attack of issue 37: eight /24s fill the per-game cap in a moment. Their streams
    are bounded per /16 as well, and the game's seats and arbiter (named by their tokens)
    are admitted whatever the crowd."""
    limits = ViewerLimits(streams_per_prefix=32, streams_per_wide_prefix=64, streams_per_game=250)
    async with live_viewer(limits) as live, AsyncExitStack() as stack:
        gid, arbiter, seats = await game_with_tokens(live.ts)
        admitted = 0
        for net in range(8):  # 127.0.0.0/24 .. 127.0.7.0/24: all in 127.0.0.0/16
            for host in range(2, 2 + 32):
                stream = await open_stream(stack, live, gid, f"127.0.{net}.{host}")
                admitted += stream.status == 200
        assert admitted == 64, "one /16 holds at most 64 of a game's 250 places"
        refused = await open_stream(stack, live, gid, "127.0.9.9")
        assert refused.status == 429 and "127.0.0.0/16" in await refused.text()
        # another /16 fills the rest of the game's places ...
        for net in range(8):
            for host in range(2, 2 + 32):
                if live.viewer.streams.per_game[gid] < 250:
                    assert (
                        await open_stream(stack, live, gid, f"127.{1 + net // 2}.{net}.{host}")
                    ).status == 200
        assert live.viewer.streams.per_game[gid] == 250
        spectator = await open_stream(stack, live, gid, "127.9.9.9")
        assert spectator.status == 429 and "per game" in await spectator.text()
        # ... and still each seat and the arbiter get in, from a crowded network too
        for token, header in ((seats[0], False), (seats[1], True), (arbiter, False)):
            own = await open_own_stream(stack, live, gid, "127.0.0.2", token, header)
            assert own.status == 200, await own.text()
            first = await own.content.readuntil(b"\n\n")
            assert first.startswith(b"id: 1\nevent: step\n")
        assert live.viewer.streams.per_own == {
            (gid, "seat 0"): 1,
            (gid, "seat 1"): 1,
            (gid, "arbiter"): 1,
        }


@bounded
async def test_a_seats_own_streams_are_bounded_and_a_foreign_token_is_refused() -> None:
    limits = ViewerLimits(streams_per_seat=2)
    async with live_viewer(limits) as live, AsyncExitStack() as stack:
        gid, _, seats = await game_with_tokens(live.ts)
        _, other_arbiter, _ = await game_with_tokens(live.ts)
        for n in (2, 3):
            assert (await open_own_stream(stack, live, gid, f"127.0.0.{n}", seats[0])).status == 200
        third = await open_own_stream(stack, live, gid, "127.0.0.4", seats[0])
        assert third.status == 429 and "seat 0" in await third.text()
        # another game's token names nobody here: refused, not counted as a spectator
        foreign = await open_own_stream(stack, live, gid, "127.0.0.5", other_arbiter)
        assert foreign.status == 403
        assert (await foreign.json())["error"] == "PERMISSION_DENIED"
        assert live.viewer.streams.total == 2


def test_wider_networks() -> None:
    assert livefeed.wide_network_of("127.0.200.3") == "127.0.0.0/16"
    assert livefeed.wide_network_of("2001:db8:1:2::1") == "2001:db8:1::/48"
