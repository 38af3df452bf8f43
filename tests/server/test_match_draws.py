"""Later hands and redeals drawn through the use cases (server/usecases/): the server opens
each draw with its commitment, the seats commit and reveal, the server deals; a seat that
never commits (or whose calls an operator never delivers) is waited for, past its window,
until the table's abandonment limit: then the hand is void and the match ends incomplete,
never dealt without it; a redeal is capped and drawn like a hand (docs/api.md, "Every
hand, every redeal")."""

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
from server.startup.compose import table_server
from server.store.eventstore import TableApplication
from server.usecases.table_server import TableServer
from server.wire import render
from tests.server.test_matches import SEALER, current_hand, play_hand, seated, verified

WINDOW = 1.0  # seconds: the reveal (and commit) window of these servers
ABANDON_MS = 3000  # the abandonment limit of the matches that test it: generous


def memory_server(clock: bool = False) -> TableServer:
    app = TableApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    return table_server(app, sealer=SEALER, reveal_timeout=WINDOW, clock=clock)


async def eventually(check: Any, seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.02)):
        if await check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("never happened")


async def after_first_hand(
    server: TableServer, advance: matches.Advance, seed: int, hands: int = 2, **table: Any
) -> Any:
    """A 3-seat zipai match of ``hands`` hands whose first hand was played; returns the
    second hand's id, the match id and the tokens."""
    _g, match_id, tokens = await seated(
        server, "zipai", ZipaiOptions(), 3, [0, 1, 2], hands=hands, advance=advance, **table
    )
    await play_hand(server, await current_hand(server, match_id), tokens, random.Random(seed))
    return await current_hand(server, match_id), match_id, tokens


@pytest.mark.parametrize("advance", [matches.Advance.AUTO, matches.Advance.READY])
def test_a_hand_a_seat_never_commits_to_is_void_and_the_match_ends_incomplete(
    advance: matches.Advance,
) -> None:
    """Seat 2 never commits to hand 2 (an operator failing its every ReadyNextHand looks the
    same): past the window the hand still waits for it, then the clock abandons the draw;
    the hand is void, the match ends incomplete naming seat 2 after 1 hand of 3, and the
    whole match verifies so."""

    async def scenario() -> None:
        server = memory_server(clock=True)
        clock = server.clock
        assert clock is not None
        second, match_id, tokens = await after_first_hand(
            server, advance, 3, hands=3, abandon_after_ms=ABANDON_MS
        )
        opened = (await server.watch.snapshot(second, ARBITER, None)).table
        assert opened.hand == 2 and opened.awaited_commitments == (0, 1, 2)
        for seat in (0, 1):  # seat 2 never commits
            commitment = deal.contribution_commitment(f"c{seat}")
            await server.matches.ready_next_hand(
                second, Viewer.of_seat(seat), commitment=commitment
            )
        await asyncio.sleep(WINDOW + 0.5)  # the window passed: nobody stands in for seat 2
        late = (await server.watch.snapshot(second, ARBITER, None)).table
        assert late.awaited_commitments == (2,) and late.phase is tables.Phase.WAITING
        seen = render.view_proto(await server.watch.snapshot(second, Viewer.of_seat(0), None))
        assert list(seen.awaiting_seats) == [2] and seen.HasField("abandon_deadline")
        assert seen.deal_status == "waiting for seat(s) 2 to commit"

        async def void() -> bool:
            return (await server.watch.snapshot(second, ARBITER, None)).table.abandoned is not None

        await eventually(void, seconds=ABANDON_MS / 1000 + 10)
        table = (await server.watch.snapshot(second, ARBITER, None)).table
        assert table.abandoned == (2,) and table.game is None and table.outcome.reason == "VOID"
        await server.matches.advance_match(match_id)
        state = await verified(server, match_id)  # the abandonment's time checks by the record
        assert state.ended is not None and state.ended.incomplete
        assert state.ended.waiting_for == (2,) and state.ended.winners == ()
        assert [h.hand for h in state.hands] == [1, 2], "no hand skipped, none drawn again"
        view = render.match_proto(state)
        assert view.finished and view.incomplete and list(view.waiting_for) == [2]
        clock.close()
        server.games.close()

    asyncio.run(scenario())


def test_an_operator_that_drops_a_later_hands_reveal_gets_no_deal() -> None:
    """Every seat committed to hand 2; the operator never delivers seat 1's reveal: the
    hand is never dealt from the others' alone: it is void at the limit."""

    async def scenario() -> None:
        server = memory_server(clock=True)
        clock = server.clock
        assert clock is not None
        second, match_id, _tokens = await after_first_hand(
            server, matches.Advance.AUTO, 5, abandon_after_ms=ABANDON_MS
        )
        for seat in range(3):
            commitment = deal.contribution_commitment(f"c{seat}")
            _m, hand, ack = await server.matches.ready_next_hand(
                second, Viewer.of_seat(seat), commitment=commitment
            )
            assert hand == second and [type(e.fact) for e in ack] == [tables.SeatCommitted]
        for seat in (0, 2):
            await server.deal.reveal(second, Viewer.of_seat(seat), f"c{seat}")

        async def void() -> bool:
            return (await server.watch.snapshot(second, ARBITER, None)).table.abandoned is not None

        await eventually(void, seconds=ABANDON_MS / 1000 + 10)
        table = (await server.watch.snapshot(second, ARBITER, None)).table
        assert table.abandoned == (1,) and table.game is None
        await server.matches.advance_match(match_id)
        state = await verified(server, match_id)
        assert state.ended is not None and state.ended.incomplete
        clock.close()
        server.games.close()

    asyncio.run(scenario())


def test_a_repeated_commitment_gets_the_first_acknowledgement() -> None:
    async def scenario() -> None:
        server = memory_server()
        second, _match_id, _tokens = await after_first_hand(server, matches.Advance.AUTO, 6)
        commitment = deal.contribution_commitment("a")
        _v, first, _a, _d = await server.deal.commit_contribution(
            second, Viewer.of_seat(0), commitment
        )
        _v, again, _a, _d = await server.deal.commit_contribution(
            second, Viewer.of_seat(0), commitment
        )
        assert [e.version for e in first] == [e.version for e in again] and first
        assert first[-1].seal is not None, "the move's signed seal: the receipt's source"
        server.games.close()

    asyncio.run(scenario())


def test_a_ready_hand_waits_for_every_seats_commitment() -> None:
    async def scenario() -> None:
        server = memory_server(clock=True)
        clock = server.clock
        assert clock is not None
        second, _match_id, _tokens = await after_first_hand(server, matches.Advance.READY, 4)
        await server.matches.ready_next_hand(
            second, Viewer.of_seat(0), commitment=deal.contribution_commitment("a")
        )
        await asyncio.sleep(WINDOW + 1.0)
        table = (await server.watch.snapshot(second, ARBITER, None)).table
        assert table.awaited_commitments == (1, 2) and table.phase is tables.Phase.WAITING
        clock.close()
        server.games.close()

    asyncio.run(scenario())


async def disputed(server: TableServer, game_id: str) -> None:
    """Seat 0 reports seat 1 for something nobody can check; seat 2 confirms, seat 1
    rejects: a dispute, the arbiter's to settle."""
    version = (await server.watch.snapshot(game_id, ARBITER, None)).version
    report = J.Report(0, 1, J.ViolationKind.OTHER, (version,), J.Penalty(J.PenaltyKind.WARNING), "")
    await server.play.play(game_id, Viewer.of_seat(0), version, report)
    case = version + 1
    for seat, uphold in ((2, True), (1, False)):
        version = (await server.watch.snapshot(game_id, ARBITER, None)).version
        await server.play.play(
            game_id, Viewer.of_seat(seat), version, J.CastVote(seat, case, uphold)
        )


async def every_seat_agrees(server: Any, game_id: str) -> None:
    """重新洗牌发牌 on the open case: every seat agrees (the arbiter cannot order it)."""
    snap = await server.watch.snapshot(game_id, ARBITER, None)
    case = snap.table.justice.open_case.id
    for seat in range(snap.table.seat_count):
        version = (await server.watch.snapshot(game_id, ARBITER, None)).version
        await server.play.play(game_id, Viewer.of_seat(seat), version, J.AgreeRedeal(seat, case))


def test_every_seat_redeals_at_most_the_tables_cap_each_through_a_fresh_draw() -> None:
    async def scenario() -> None:
        server = memory_server()
        options = HuaniaoOptions(mode=Mode.REGULAR)
        game_id, _v, _arbiter = await server.seats.create_game(
            "huaniao", options, 3, arbitrated=True, max_redeals=1, allow_unkeyed_seats=True
        )
        for seat in range(3):
            await server.seats.join_game(
                game_id, seat, f"p{seat}", commitment=deal.contribution_commitment(f"s{seat}")
            )
        for seat in range(3):
            await server.deal.reveal(game_id, Viewer.of_seat(seat), f"s{seat}")
        await server.deal.start_game(game_id, Viewer.of_seat(0))
        await disputed(server, game_id)
        version = (await server.watch.snapshot(game_id, ARBITER, None)).version
        with pytest.raises(RuleViolation) as e:  # the arbiter alone never redeals
            await server.play.play(game_id, ARBITER, version, J.Redeal(0))
        assert e.value.reason == "REDEAL_NEEDS_EVERY_SEAT"
        await every_seat_agrees(server, game_id)
        drawing = await server.watch.snapshot(game_id, Viewer.of_seat(1), None)
        view = render.view_proto(drawing)
        assert view.max_redeals == 1 and list(view.redeals_requested_by) == ["seats"]
        assert view.redeal_commitment and view.paused
        assert [s.contribution_status for s in view.seats] == [
            render.pb.CONTRIBUTION_STATUS_AWAITED
        ] * 3
        with pytest.raises(RuleViolation) as e:  # the game waits for the draw
            await server.play.play(game_id, ARBITER, drawing.version, J.Rule(0, 1, True))
        assert e.value.reason == "REDEAL_DRAWING"
        for seat in range(3):
            commitment = deal.contribution_commitment(f"fresh{seat}")
            await server.deal.commit_contribution(game_id, Viewer.of_seat(seat), commitment)
        for seat in range(3):
            await server.deal.reveal(game_id, Viewer.of_seat(seat), f"fresh{seat}")
        table = (await server.watch.snapshot(game_id, ARBITER, None)).table
        assert table.redraw is None and table.justice.redeals == 1 and not table.paused
        await disputed(server, game_id)
        version = (await server.watch.snapshot(game_id, ARBITER, None)).version
        case = (await server.watch.snapshot(game_id, ARBITER, None)).table.justice.open_case.id
        with pytest.raises(RuleViolation) as e:
            await server.play.play(game_id, Viewer.of_seat(0), version, J.AgreeRedeal(0, case))
        assert e.value.reason == "REDEAL_LIMIT"
        assert (await server.watch.snapshot(game_id, ARBITER, None)).version == version, "appended"
        server.games.close()

    asyncio.run(scenario())
