"""Justice that one side cannot decide (issue 12), each attack tried through a real server as
a cheating seat would: winning a 2-seat game by reporting, peeking at a hand with OPEN_HAND,
voiding a losing game with a tied vote, reporting a move the engine accepted, flooding a
report, peeking at the deck through a revoked penalty, and the arbiter's retried rulings.

Every refused call must append nothing (the history's length is checked)."""

from __future__ import annotations

import grpc
import pytest
from google.rpc import error_details_pb2

from clients.python.client import SeatClient, TableClient
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.zipai.v1 import zipai_pb2
from tests.api.helpers import seated_game
from tests.api.test_game_api import detail


def table_move(**kind: object) -> pb.Move:
    return pb.Move(table=pb.TableCommand(**kind))  # type: ignore[arg-type]


def report_move(
    accused: int,
    version: int,
    penalty: pb.Penalty | None = None,
    violation: int = pb.VIOLATION_KIND_OTHER,
    evidence: list[int] | None = None,
    note: str = "",
) -> pb.Move:
    return table_move(
        report=pb.Report(
            accused=accused,
            violation=violation,  # type: ignore[arg-type]
            evidence=evidence if evidence is not None else [version],
            penalty=penalty or pb.Penalty(kind=pb.PENALTY_KIND_WARNING),
            note=note,
        )
    )


def refused(seat: SeatClient, move: pb.Move, version: int) -> grpc.RpcError:
    """Play ``move``; it must be refused and append nothing."""
    before = len(list(seat.history()))
    with pytest.raises(grpc.RpcError) as e:
        seat.play(move, version)
    assert len(list(seat.history())) == before, "a refused call appended events"
    return e.value


def reason(err: grpc.RpcError) -> str:
    return detail(err, error_details_pb2.ErrorInfo).reason  # type: ignore[attr-defined, no-any-return]


def field(err: grpc.RpcError) -> str:
    bad = detail(err, error_details_pb2.BadRequest)
    return bad.field_violations[0].field  # type: ignore[attr-defined, no-any-return]


def vote(seat: SeatClient, case: int, uphold: bool, version: int) -> int:
    return int(seat.play(table_move(cast_vote=pb.CastVote(case_id=case, uphold=uphold)), version).version)


def zipai_seated(client: TableClient, seats: int = 2) -> tuple[str, list[SeatClient]]:
    created = client.create_game(pb.GameOptions(zipai=zipai_pb2.Options()), seats, seed=7)
    players = [client.join(created.game_id, s, contribution="") for s in range(seats)]
    players[0].start()
    return created.game_id, players


# --- two seats ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["huaniao", "zipai"])
def test_a_two_seat_game_is_not_won_by_reporting(client: TableClient, game: str) -> None:
    """Seat 0 reports seat 1 for FORFEIT straight after the deal: refused (判负 needs an
    arbiter), nothing appended, and the game goes on."""
    if game == "huaniao":
        game_id, seats, _ = seated_game(client, seed=70, seats=2)
    else:
        game_id, seats = zipai_seated(client)
    v = seats[0].view().version
    err = refused(seats[0], report_move(1, v, pb.Penalty(kind=pb.PENALTY_KIND_FORFEIT)), v)
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert reason(err) == "FORFEIT_NEEDS_ARBITER"
    view = client.as_viewer(game_id).view()
    assert view.phase == pb.GAME_PHASE_PLAYING and not view.paused


def test_a_two_seat_open_hand_report_needs_the_accused_or_an_arbiter(client: TableClient) -> None:
    """OPEN_HAND proposed against the only other seat: the reporter's word is not a vote;
    the accused refuses and, with no arbiter, the report is UNRESOLVED: no hand opens."""
    game_id, seats, _ = seated_game(client, seed=71, seats=2)
    v = seats[0].view().version
    case = int(seats[0].play(report_move(1, v, pb.Penalty(kind=pb.PENALTY_KIND_OPEN_HAND)), v).version)
    view = client.as_viewer(game_id).view()
    assert view.paused and list(view.to_act) == [1], "only the accused is asked"
    vote(seats[1], case, False, case)
    view = client.as_viewer(game_id).view()
    assert view.cases[0].status == pb.CASE_STATUS_UNRESOLVED and not view.paused
    mine = seats[0].view().huaniao.seats
    assert not [c for c in mine[1].cards], "seat 0 sees none of seat 1's cards"
    assert not mine[1].open_hand


def test_an_arbiter_settles_a_two_seat_dispute(client: TableClient) -> None:
    game_id, seats, arbiter_token = seated_game(client, seed=72, seats=2, arbitrated=True)
    arbiter = client.as_viewer(game_id, arbiter_token)
    v = seats[0].view().version
    case = int(seats[0].play(report_move(1, v, pb.Penalty(kind=pb.PENALTY_KIND_FORFEIT)), v).version)
    v = vote(seats[1], case, False, case)
    assert client.as_viewer(game_id).view().paused, "the arbiter is awaited"
    arbiter.play(table_move(rule=pb.Rule(case_id=case, uphold=False)), v)
    view = client.as_viewer(game_id).view()
    assert view.cases[0].status == pb.CASE_STATUS_REJECTED
    assert view.phase == pb.GAME_PHASE_PLAYING


# --- ties and redeals --------------------------------------------------------------------


def test_a_three_seat_tie_does_not_void_the_game(client: TableClient) -> None:
    """Today's attack: a rejected report is a 1-1 tie that redeals the whole game. Now the
    seats' rejection is a rejection; nothing is redealt."""
    game_id, seats, _ = seated_game(client, seed=73, seats=3)
    before = seats[2].view()
    v = before.version
    case = int(seats[0].play(report_move(1, v), v).version)
    v = vote(seats[2], case, False, case)
    vote(seats[1], case, False, v)
    view = client.as_viewer(game_id).view()
    assert view.cases[0].status == pb.CASE_STATUS_REJECTED and view.redeals == 0
    assert seats[2].view().huaniao.SerializeToString() == before.huaniao.SerializeToString()


def test_a_redeal_needs_an_open_case_and_every_seat(client: TableClient) -> None:
    game_id, seats, arbiter_token = seated_game(client, seed=74, seats=3, arbitrated=True)
    arbiter = client.as_viewer(game_id, arbiter_token)
    v = arbiter.view().version
    err = refused(arbiter, table_move(redeal=pb.Redeal()), v)
    assert reason(err) == "NO_OPEN_CASE"
    case = int(seats[0].play(report_move(1, v), v).version)
    v = int(seats[0].play(table_move(agree_redeal=pb.AgreeRedeal(case_id=case)), case).version)
    v = int(seats[1].play(table_move(agree_redeal=pb.AgreeRedeal(case_id=case)), v).version)
    assert client.as_viewer(game_id).view().redeals == 0, "not every seat agreed yet"
    seats[2].play(table_move(agree_redeal=pb.AgreeRedeal(case_id=case)), v)
    view = client.as_viewer(game_id).view()
    assert view.redeals == 1 and view.cases[0].status == pb.CASE_STATUS_DEADLOCKED


# --- what the engine enforces, and bounds ------------------------------------------------


def test_reject_mode_refuses_a_report_of_an_accepted_move(client: TableClient) -> None:
    game_id, seats, _ = seated_game(client, seed=75, seats=3)
    v = seats[0].view().version
    err = refused(seats[0], report_move(1, v, violation=pb.VIOLATION_KIND_ILLEGAL_COMBO), v)
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert reason(err) == "ENGINE_ENFORCED"


def test_an_oversized_report_is_refused_and_nothing_breaks(client: TableClient) -> None:
    """A 0.94 MB report (today: a 4.7 MB event that kills every Watch and GetHistory)."""
    game_id, seats, _ = seated_game(client, seed=76, seats=4)
    v = seats[0].view().version
    huge = report_move(1, v, evidence=[2**62 + i for i in range(105_000)])
    assert huge.ByteSize() > 900_000
    err = refused(seats[0], huge, v)
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and field(err) == "evidence"
    err = refused(seats[0], report_move(1, v, note="x" * 501), v)
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and field(err) == "note"
    err = refused(seats[0], report_move(1, v, evidence=list(range(1, 18))), v)
    assert field(err) == "evidence"
    assert len(list(client.as_viewer(game_id).history())) == v
    assert client.as_viewer(game_id).view().version == v


def test_an_events_text_does_not_repeat_its_evidence(client: TableClient) -> None:
    game_id, seats, _ = seated_game(client, seed=77, seats=4)
    v = seats[0].view().version
    evidence = list(range(1, v + 1))
    reply = seats[0].play(report_move(1, v, evidence=evidence), v)
    text = reply.events[0].text
    assert f"{len(evidence)} event(s)" in text and "v3" not in text and "3, 4" not in text


# --- the deck peek through a revoked penalty --------------------------------------------


def test_a_revoked_draw_penalty_does_not_tell_the_next_draws(client: TableClient) -> None:
    """出牌超时 reported at a table without a clock: 摸1张 for seat 1, who sees the card; the
    appeal is upheld; the card goes back into a reshuffled deck, not onto its top."""
    game_id, seats, arbiter_token = seated_game(client, seed=78, seats=3)
    arbiter = client.as_viewer(game_id, arbiter_token)
    deck_before = [c.id for c in arbiter.view().huaniao.deck]
    v = seats[0].view().version
    case = int(seats[0].play(report_move(1, v, violation=pb.VIOLATION_KIND_TIMEOUT), v).version)
    v = vote(seats[2], case, True, case)
    drawn = [e for e in seats[1].history() if e.version > case and e.huaniao.WhichOneof("kind") == "drew"]
    assert drawn and drawn[0].huaniao.drew.cards, "seat 1 saw the card it drew"
    seen = [c.id for c in drawn[0].huaniao.drew.cards]
    v = int(seats[1].play(table_move(appeal=pb.Appeal(case_id=case, reason="no clock")), v).version)
    appeal = v
    v = vote(seats[0], appeal, True, v)
    reply = seats[2].play(table_move(cast_vote=pb.CastVote(case_id=appeal, uphold=True)), v)
    revoked = [e for e in reply.events if e.table.WhichOneof("kind") == "penalty_revoked"]
    assert revoked and not revoked[0].table.penalty_revoked.deck, "a seat is not shown the order"
    deck_after = [c.id for c in arbiter.view().huaniao.deck]
    assert sorted(deck_after) == sorted(deck_before), "the same cards are unseen again"
    assert deck_after != deck_before, "reshuffled from the committed randomness"
    assert deck_after[: len(seen)] != seen


# --- the arbiter's retries ---------------------------------------------------------------


def test_rule_and_redeal_are_idempotent_under_their_request_id(client: TableClient) -> None:
    game_id, seats, arbiter_token = seated_game(client, seed=79, seats=4, arbitrated=True)
    arbiter = client.as_viewer(game_id, arbiter_token)
    v = seats[0].view().version
    case = int(seats[0].play(report_move(1, v), v).version)
    ruling = table_move(rule=pb.Rule(case_id=case, uphold=True))
    first = arbiter.play(ruling, case, request_id="rule-1")
    again = arbiter.play(ruling, case, request_id="rule-1")  # a lost acknowledgement
    assert [e.version for e in again.events] == [e.version for e in first.events]
    texts = [e.text for e in arbiter.history()]
    assert sum("the arbiter upholds" in t for t in texts) == 1, "ruled once"
    v = arbiter.view().version
    case = int(seats[0].play(report_move(1, v), v).version)
    redeal = table_move(redeal=pb.Redeal())
    first = arbiter.play(redeal, case, request_id="redeal-1")
    again = arbiter.play(redeal, case, request_id="redeal-1")
    assert [e.version for e in again.events] == [e.version for e in first.events]
    assert arbiter.view().redeals == 1, "redealt once"
