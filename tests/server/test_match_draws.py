"""Later hands and redeals drawn through the use cases (server/usecases/): the server opens
each draw with its commitment, the seats commit and reveal, the server deals; at an AUTO
match the server's clock closes the windows of a seat that never commits; a redeal is
capped and drawn like a hand (docs/api.md, "Every hand, every redeal")."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from domain import match as matches
from domain import table as tables
from domain.engine import ARBITER, RuleViolation, Viewer
from domain.huaniao.options import Mode
from domain.huaniao.options import Options as HuaniaoOptions
from domain.table import deal
from domain.table.justice import facts as J
from domain.zipai.options import Options as ZipaiOptions
from server.store.eventstore import TableApplication
from server.usecases.table_server import TableServer
from server.usecases.timers import TurnClock
from server.wire import render
from tests.server.test_matches import SEALER, current_hand, play_hand, seated, verified

WINDOW = 0.2  # seconds: the reveal (and commit) window of these servers


def memory_server() -> TableServer:
    app = TableApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    return TableServer(app, sealer=SEALER, reveal_timeout=WINDOW)


async def eventually(check: Any, seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.02)):
        if await check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("never happened")


async def after_first_hand(server: TableServer, advance: matches.Advance, seed: int) -> Any:
    """A 3-seat zipai match of 2 hands whose first hand was played; returns the second
    hand's id, the match id and the tokens."""
    _g, match_id, tokens = await seated(
        server, "zipai", ZipaiOptions(), 3, [0, 1, 2], hands=2, advance=advance
    )
    await play_hand(server, await current_hand(server, match_id), tokens, random.Random(seed))
    return await current_hand(server, match_id), match_id, tokens


@pytest.mark.parametrize("seed", [3])
def test_an_auto_hand_deals_after_the_window_without_a_seat_that_never_commits(seed: int) -> None:
    async def scenario() -> None:
        server = memory_server()
        clock = TurnClock(server)
        clock.install()
        second, match_id, tokens = await after_first_hand(server, matches.Advance.AUTO, seed)
        opened = (await server.snapshot(second, ARBITER, None)).table
        assert opened.hand == 2 and opened.awaited_commitments == (0, 1, 2), f"seed {seed}"
        for seat in (0, 1):  # seat 2 never commits
            commitment = deal.contribution_commitment(f"c{seat}")
            await server.ready_next_hand(second, Viewer.of_seat(seat), commitment=commitment)

        async def commits_closed() -> bool:
            return not (await server.snapshot(second, ARBITER, None)).table.awaited_commitments

        await eventually(commits_closed)
        for seat in (0, 1):
            await server.reveal(second, Viewer.of_seat(seat), f"c{seat}")
        dealt = (await server.snapshot(second, ARBITER, None)).table
        assert dealt.phase is tables.Phase.PLAYING, f"seed {seed}: not dealt once all were in"
        assert dealt.seats[2].status is deal.Contribution.WITHHELD and dealt.seats[2].entry == "n"
        seen = render.view_proto(await server.snapshot(second, Viewer.of_seat(0), None))
        assert seen.seats[2].contribution_status == render.pb.CONTRIBUTION_STATUS_WITHHELD
        await play_hand(server, second, tokens, random.Random(seed))
        await verified(server, match_id)  # the clock's close is in time, by the record
        clock.close()
        server.close()

    asyncio.run(scenario())


def test_a_ready_hand_waits_for_every_seats_commitment() -> None:
    async def scenario() -> None:
        server = memory_server()
        clock = TurnClock(server)
        clock.install()
        second, _match_id, _tokens = await after_first_hand(server, matches.Advance.READY, 4)
        await server.ready_next_hand(
            second, Viewer.of_seat(0), commitment=deal.contribution_commitment("a")
        )
        await asyncio.sleep(3 * WINDOW)
        table = (await server.snapshot(second, ARBITER, None)).table
        assert table.awaited_commitments == (1, 2) and table.phase is tables.Phase.WAITING
        clock.close()
        server.close()

    asyncio.run(scenario())


async def disputed(server: TableServer, game_id: str) -> None:
    """Seat 0 reports seat 1 for something nobody can check; seat 2 confirms, seat 1
    rejects: a dispute, the arbiter's to settle."""
    version = (await server.snapshot(game_id, ARBITER, None)).version
    report = J.Report(0, 1, J.ViolationKind.OTHER, (version,), J.Penalty(J.PenaltyKind.WARNING), "")
    await server.play(game_id, Viewer.of_seat(0), version, report)
    case = version + 1
    for seat, uphold in ((2, True), (1, False)):
        version = (await server.snapshot(game_id, ARBITER, None)).version
        await server.play(game_id, Viewer.of_seat(seat), version, J.CastVote(seat, case, uphold))


async def every_seat_agrees(server: Any, game_id: str) -> None:
    """重新洗牌发牌 on the open case: every seat agrees (the arbiter cannot order it)."""
    snap = await server.snapshot(game_id, ARBITER, None)
    case = snap.table.justice.open_case.id
    for seat in range(snap.table.seat_count):
        version = (await server.snapshot(game_id, ARBITER, None)).version
        await server.play(game_id, Viewer.of_seat(seat), version, J.AgreeRedeal(seat, case))


def test_every_seat_redeals_at_most_the_tables_cap_each_through_a_fresh_draw() -> None:
    async def scenario() -> None:
        server = memory_server()
        options = HuaniaoOptions(mode=Mode.REGULAR)
        game_id, _v, _arbiter = await server.create_game(
            "huaniao", options, 3, arbitrated=True, max_redeals=1
        )
        for seat in range(3):
            await server.join_game(
                game_id, seat, f"p{seat}", commitment=deal.contribution_commitment(f"s{seat}")
            )
        for seat in range(3):
            await server.reveal(game_id, Viewer.of_seat(seat), f"s{seat}")
        await server.start_game(game_id, Viewer.of_seat(0))
        await disputed(server, game_id)
        version = (await server.snapshot(game_id, ARBITER, None)).version
        with pytest.raises(RuleViolation) as e:  # the arbiter alone never redeals
            await server.play(game_id, ARBITER, version, J.Redeal(0))
        assert e.value.reason == "REDEAL_NEEDS_EVERY_SEAT"
        await every_seat_agrees(server, game_id)
        drawing = await server.snapshot(game_id, Viewer.of_seat(1), None)
        view = render.view_proto(drawing)
        assert view.max_redeals == 1 and list(view.redeals_requested_by) == ["seats"]
        assert view.redeal_commitment and view.paused
        assert [s.contribution_status for s in view.seats] == [
            render.pb.CONTRIBUTION_STATUS_AWAITED
        ] * 3
        with pytest.raises(RuleViolation) as e:  # the game waits for the draw
            await server.play(game_id, ARBITER, drawing.version, J.Rule(0, 1, True))
        assert e.value.reason == "REDEAL_DRAWING"
        for seat in range(3):
            commitment = deal.contribution_commitment(f"fresh{seat}")
            await server.commit_contribution(game_id, Viewer.of_seat(seat), commitment)
        for seat in range(3):
            await server.reveal(game_id, Viewer.of_seat(seat), f"fresh{seat}")
        table = (await server.snapshot(game_id, ARBITER, None)).table
        assert table.redraw is None and table.justice.redeals == 1 and not table.paused
        await disputed(server, game_id)
        version = (await server.snapshot(game_id, ARBITER, None)).version
        case = (await server.snapshot(game_id, ARBITER, None)).table.justice.open_case.id
        with pytest.raises(RuleViolation) as e:
            await server.play(game_id, Viewer.of_seat(0), version, J.AgreeRedeal(0, case))
        assert e.value.reason == "REDEAL_LIMIT"
        assert (await server.snapshot(game_id, ARBITER, None)).version == version, "appended"
        server.close()

    asyncio.run(scenario())
