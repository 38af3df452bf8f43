"""Redeals and failed reports count per match, through the use cases (in process): a match's
later hand carries what its earlier hands used (GameCreated.match_redeals_used,
match_failed_reports), so no hand resets either, and the match still verifies whole
(docs/api.md, "Justice")."""

from __future__ import annotations

import asyncio
import random

import pytest

from domain import table as tables
from domain.engine import ARBITER, RuleViolation, Viewer
from domain.table import deal
from domain.table.justice import facts as J
from domain.zipai.options import Options as ZipaiOptions
from server.startup.compose import table_server
from server.store.eventstore import TableApplication
from server.usecases.table_server import TableServer
from tests.server.test_matches import SEALER, current_hand, play_hand, seated, verified


def warning(version: int, by: int = 0, accused: int = 1) -> J.Report:
    penalty = J.Penalty(J.PenaltyKind.WARNING)
    return J.Report(by, accused, J.ViolationKind.OTHER, (version,), penalty, "")


async def latest(server: TableServer, game_id: str) -> tables.Table:
    return (await server.watch.snapshot(game_id, ARBITER, None)).table


async def redeal_by_every_seat(server: TableServer, game_id: str, tokens: dict[int, str]) -> None:
    """Seat 0 reports seat 1; every seat agrees to 重新洗牌发牌; the redeal is drawn."""
    table = await latest(server, game_id)
    await server.play.play(game_id, Viewer.of_seat(0), table.version, warning(table.version))
    case = table.version + 1
    for seat in sorted(tokens):
        version = (await latest(server, game_id)).version
        await server.play.play(game_id, Viewer.of_seat(seat), version, J.AgreeRedeal(seat, case))
    for seat in sorted(tokens):
        commitment = deal.contribution_commitment(f"fresh{seat}")
        await server.deal.commit_contribution(game_id, Viewer.of_seat(seat), commitment)
    for seat in sorted(tokens):
        await server.deal.reveal(game_id, Viewer.of_seat(seat), f"fresh{seat}")


def test_a_later_hand_cannot_reset_the_matchs_redeals_or_failed_reports() -> None:
    async def scenario() -> None:
        app = TableApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
        server = table_server(app, sealer=SEALER, reveal_timeout=5.0)
        first, match_id, tokens = await seated(
            server, "zipai", ZipaiOptions(), 3, [0, 1, 2], hands=2, max_redeals=1
        )
        await redeal_by_every_seat(server, first, tokens)
        hand1 = await latest(server, first)
        assert hand1.justice.redeals == 1 and not hand1.paused
        assert hand1.justice.reports_left(0) == J.FAILED_REPORTS_ALLOWED - 1, "it failed"
        await play_hand(server, first, tokens, random.Random(5))
        second = await current_hand(server, match_id)
        assert second != first
        hand2 = await latest(server, second)
        assert hand2.hand == 2 and hand2.match_redeals_used == 1
        assert hand2.match_failed_reports == (1, 0, 0) and hand2.max_redeals == 1
        await play_hand(server, second, tokens, random.Random(5), stop=1)  # drawn and dealt
        hand2 = await latest(server, second)
        assert hand2.justice.reports_left(0) == J.FAILED_REPORTS_ALLOWED - 1, "carried over"
        version = hand2.version
        await server.play.play(second, Viewer.of_seat(0), version, warning(version))
        with pytest.raises(RuleViolation) as e:
            await server.play.play(
                second, Viewer.of_seat(0), version + 1, J.AgreeRedeal(0, version + 1)
            )
        assert e.value.reason == "REDEAL_LIMIT", "the match's one redeal was used in hand 1"
        assert (await latest(server, second)).version == version + 1, "nothing appended"
        for seat in (1, 2):  # the case is rejected; the hand is played out
            now = (await latest(server, second)).version
            await server.play.play(
                second, Viewer.of_seat(seat), now, J.CastVote(seat, version + 1, False)
            )
        assert (await latest(server, second)).justice.reports_left(0) == 0
        await play_hand(server, second, tokens, random.Random(6))
        await verified(server, match_id)  # the audit re-derives hand 2's opening, counts too
        server.games.close()

    asyncio.run(scenario())
