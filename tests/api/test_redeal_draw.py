"""Redeals are bounded, through the gRPC API: 重新洗牌发牌 only by every seat's AgreeRedeal
(the arbiter's Redeal is refused), at most `max_redeals` times a match (CreateGameRequest
field 11, default 1, at most 3), each drawn through a fresh commit–reveal with
the seats, shown in every view and in `tabletop-audit verify` (docs/api.md, "Every hand,
every redeal")."""

from __future__ import annotations

import grpc
import pytest
from google.rpc import error_details_pb2

from clients.python import audit
from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient, commit_and_reveal, reveal_and_start
from clients.python.seat import SeatClient
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import huaniao_options
from tests.api.test_deal import zipai_options
from tests.api.test_game_api import detail
from tests.api.test_justice import report, table_move, vote

GAMES = {"huaniao": lambda: huaniao_options("REGULAR"), "zipai": zipai_options}


def dispute(seats: list[SeatClient], version: int, by: int = 0) -> int:
    """Seat ``by`` (0 or 2) reports seat 1 for something nobody can check; the other
    confirms, seat 1 rejects: a dispute, the arbiter's to settle."""
    case = report(seats[by], 1, version)
    v = vote(seats[2 - by], case, True, case)
    return vote(seats[1], case, False, v)


def every_seat_agrees(seats: list[SeatClient], case: int, version: int) -> int:
    """重新洗牌发牌 by every seat's consent; returns the version after the last agreement."""
    for seat in seats:
        version = int(
            seat.play(table_move(agree_redeal=pb.AgreeRedeal(case_id=case)), version).version
        )
    return version


@pytest.mark.parametrize("kind", sorted(GAMES))
@pytest.mark.parametrize("cap", [None, 2])
def test_every_seat_together_gets_at_most_the_tables_redeals_each_freshly_drawn(
    client: TableClient, kind: str, cap: int | None, capsys: pytest.CaptureFixture[str]
) -> None:
    created = client.create_game(GAMES[kind](), 3, arbitrated=True, max_redeals=cap)
    seats = [client.join(created.game_id, s, f"p{s}") for s in range(3)]  # commit by default
    reveal_and_start(seats)
    arbiter = client.as_viewer(created.game_id, created.arbiter_token)
    allowed = 1 if cap is None else cap
    assert arbiter.view().max_redeals == allowed, "the cap is shown before any redeal"
    decks = []
    for n in range(1, allowed + 1):
        v = dispute(seats, arbiter.view().version, by=2 * (n % 2))  # a redealt report fails
        case = arbiter.view().cases[-1].id
        with pytest.raises(grpc.RpcError) as e:
            arbiter.play(table_move(redeal=pb.Redeal()), v)
        assert detail(e.value, error_details_pb2.ErrorInfo).reason == "REDEAL_NEEDS_EVERY_SEAT"
        every_seat_agrees(seats, case, v)
        drawing = seats[2].view()
        assert drawing.redeal_commitment and drawing.paused
        assert list(drawing.redeals_requested_by) == ["seats"] * n
        awaited = [s.contribution_status for s in drawing.seats]
        assert awaited == [pb.CONTRIBUTION_STATUS_AWAITED] * 3, "fresh inputs for each redeal"
        commit_and_reveal(seats)
        dealt = arbiter.view()
        assert dealt.redeals == n and not dealt.redeal_commitment and not dealt.paused
        decks.append([e for e in arbiter.history() if e.table.HasField("game_redealt")][-1])
    v = dispute(seats, arbiter.view().version, by=2 * ((allowed + 1) % 2))
    before = arbiter.view().version
    with pytest.raises(grpc.RpcError) as e:
        case = arbiter.view().cases[-1].id
        seats[0].play(table_move(agree_redeal=pb.AgreeRedeal(case_id=case)), v)
    assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert detail(e.value, error_details_pb2.ErrorInfo).reason == "REDEAL_LIMIT"
    assert arbiter.view().version == before, "a refused redeal appended nothing"
    assert len({tuple(d.table.game_redealt.deck) for d in decks}) == len(decks)
    arbiter.play(
        table_move(rule=pb.Rule(case_id=arbiter.view().cases[-1].id, uphold=False)), before
    )
    play_to_end([RandomBot(s, i) for i, s in enumerate(seats)])
    capsys.readouterr()
    assert audit.main(["--target", client.target, "verify", created.game_id]) == 0
    out = capsys.readouterr().out
    asked = ", ".join(["seats"] * allowed)
    assert f"redeals {allowed} ({asked}), at most {allowed}" in out, out
