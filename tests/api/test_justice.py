"""Misplay undo, reports, votes, the arbiter, appeals, deadlock and timers over gRPC
(花鸟风月 part 2, 四、违规与仲裁; readings in domain/justice.py)."""

from __future__ import annotations

import time

import grpc
import pytest
from google.rpc import error_details_pb2

from clients.python.audit_verify import verify_game
from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient, commit_and_reveal
from clients.python.seat import SeatClient
from clients.python.serverproc import ServerProcess
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import huaniao_options, seated_game
from tests.api.test_game_api import detail

PHRASE = "風過無痕，月照無意"


def table_move(**kind: object) -> pb.Move:
    return pb.Move(table=pb.TableCommand(**kind))  # type: ignore[arg-type]


def reason(err: grpc.RpcError) -> str:
    return detail(err, error_details_pb2.ErrorInfo).reason  # type: ignore[attr-defined, no-any-return]


def actor(client: TableClient, game_id: str, seats: list[SeatClient]) -> SeatClient:
    return seats[client.as_viewer(game_id).view().to_act[0]]


def public_play(seat: SeatClient) -> pb.Move:
    """A legal move of the seat that reveals nothing (a play, not a 栖 that draws)."""
    for move in seat.legal_moves().moves:
        if move.WhichOneof("game") == "huaniao" and move.huaniao.WhichOneof("kind") == "play":
            return move
    raise AssertionError("no public play")


def game_part(view: pb.GameView) -> bytes:
    return view.huaniao.SerializeToString(deterministic=True)


def test_a_misplay_is_retracted_once_and_the_log_keeps_both(client: TableClient) -> None:
    game_id, seats, arbiter = seated_game(client, seed=40)
    first = actor(client, game_id, seats)
    before = client.as_viewer(game_id, arbiter).view()
    moved = first.play(public_play(first), before.version)
    legal = first.legal_moves()
    retracts = [m for m in legal.moves if m.WhichOneof("game") == "table"]
    assert retracts and retracts[0].table.WhichOneof("kind") == "retract", "undo is offered"
    first.play(table_move(retract=pb.Retract(phrase=PHRASE)), legal.version)
    after = client.as_viewer(game_id, arbiter).view()
    assert game_part(after) == game_part(before), "rebuilt as if the move never happened"
    assert after.misplays_used[first.seat] == 1
    texts = [e.text for e in client.as_viewer(game_id, arbiter).history()]
    assert any("误操作" in t for t in texts) and len(texts) == after.version
    assert moved.events[0].version < after.version, "the retracted move is still in the log"
    # a second misplay is refused: it is an ordinary violation now
    again = first.play(public_play(first), after.version)
    with pytest.raises(grpc.RpcError) as e:
        first.play(table_move(retract=pb.Retract(phrase=PHRASE)), again.version)
    assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert reason(e.value) == "MISPLAY_ALREADY_USED"


def test_no_retraction_without_the_phrase_or_after_the_next_seat_moved(client: TableClient) -> None:
    game_id, seats, _ = seated_game(client, seed=41)
    first = actor(client, game_id, seats)
    v = first.play(public_play(first), client.as_viewer(game_id).view().version).version
    with pytest.raises(grpc.RpcError) as e:
        first.play(table_move(retract=pb.Retract(phrase="oops")), v)
    assert reason(e.value) == "MISPLAY_PHRASE_REQUIRED"
    second = actor(client, game_id, seats)
    legal = second.legal_moves()
    v = second.play(legal.moves[0], legal.version).version
    with pytest.raises(grpc.RpcError) as e:
        first.play(table_move(retract=pb.Retract(phrase="且慢")), v)
    assert reason(e.value) == "NOTHING_TO_RETRACT"


def report(seat: SeatClient, accused: int, version: int, penalty: pb.Penalty | None = None) -> int:
    reply = seat.play(
        table_move(
            report=pb.Report(
                accused=accused,
                violation=pb.VIOLATION_KIND_OTHER,
                evidence=[version],
                penalty=penalty or pb.Penalty(kind=pb.PENALTY_KIND_WARNING),
                note="stalling",
            )
        ),
        version,
    )
    return int(reply.version)


def vote(seat: SeatClient, case_id: int, uphold: bool, version: int) -> int:
    reply = seat.play(table_move(cast_vote=pb.CastVote(case_id=case_id, uphold=uphold)), version)
    return int(reply.version)


def test_a_report_pauses_the_game_and_the_other_seats_confirm_it(client: TableClient) -> None:
    game_id, seats, _ = seated_game(client, seed=42)
    v = client.as_viewer(game_id).view().version
    case = report(seats[0], 1, v)
    view = client.as_viewer(game_id).view()
    assert view.paused and view.cases[0].status == pb.CASE_STATUS_OPEN
    assert sorted(view.to_act) == [1, 2, 3], "the voters, the accused included, are awaited"
    mover = seats[2]
    with pytest.raises(grpc.RpcError) as e:
        mover.play(pb.Move(huaniao=pb.Move().huaniao.__class__()), case)  # any game move
    assert e.value.code() in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.INVALID_ARGUMENT)
    v = vote(seats[2], case, True, case)
    assert client.as_viewer(game_id).view().paused, "seat 3 has not confirmed yet"
    v = vote(seats[3], case, True, v)
    assert client.as_viewer(game_id).view().paused, "其他违规: the accused votes too"
    v = vote(seats[1], case, True, v)
    view = client.as_viewer(game_id).view()
    assert not view.paused and view.cases[0].status == pb.CASE_STATUS_UPHELD
    assert list(view.violations) == [0, 1, 0, 0], "the violation record shows in views"
    assert view.penalties[0].penalty.kind == pb.PENALTY_KIND_WARNING


def test_a_rejected_report_resumes_the_game(client: TableClient) -> None:
    game_id, seats, _ = seated_game(client, seed=43)
    case = report(seats[0], 1, client.as_viewer(game_id).view().version)
    v = vote(seats[2], case, False, case)
    v = vote(seats[3], case, False, v)
    v = vote(seats[1], case, False, v)
    view = client.as_viewer(game_id).view()
    assert view.cases[0].status == pb.CASE_STATUS_REJECTED and not view.paused
    assert list(view.violations) == [0, 0, 0, 0]
    play_to_end([RandomBot(s, i) for i, s in enumerate(seats)])


def test_the_arbiter_settles_a_case_and_forfeit_ends_the_game(client: TableClient) -> None:
    game_id, seats, arbiter_token = seated_game(client, seed=44, arbitrated=True)
    arbiter = client.as_viewer(game_id, arbiter_token)
    forfeit = pb.Penalty(kind=pb.PENALTY_KIND_FORFEIT)
    case = report(seats[0], 3, arbiter.view().version, forfeit)
    with pytest.raises(grpc.RpcError) as e:  # a seat cannot rule
        seats[1].play(table_move(rule=pb.Rule(case_id=case, uphold=True)), case)
    assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
    arbiter.play(table_move(rule=pb.Rule(case_id=case, uphold=True)), case)
    view = client.as_viewer(game_id).view()
    assert view.phase == pb.GAME_PHASE_FINISHED
    assert view.outcome.reason == "FORFEIT" and list(view.outcome.winners) == [0, 1, 2]


def test_an_upheld_appeal_revokes_the_penalty_and_a_rejected_one_keeps_it(
    client: TableClient,
) -> None:
    game_id, seats, arbiter_token = seated_game(client, seed=45, arbitrated=True)
    arbiter = client.as_viewer(game_id, arbiter_token)
    before = seats[1].view()
    case = report(seats[0], 1, before.version)
    # the arbiter upholds it at once: seats 2 and 3 confirmed nothing, so they hear the appeal
    v = arbiter.play(table_move(rule=pb.Rule(case_id=case, uphold=True)), case).version
    appealable = [m for m in seats[1].legal_moves().moves if m.WhichOneof("game") == "table"]
    assert appealable and appealable[0].table.WhichOneof("kind") == "appeal"
    v = (
        seats[1]
        .play(table_move(appeal=pb.Appeal(case_id=case, reason="I was thinking")), v)
        .version
    )
    appeal_case = v
    assert sorted(client.as_viewer(game_id).view().to_act) == [2, 3], "not the reporter"
    v = vote(seats[2], appeal_case, True, v)
    v = vote(seats[3], appeal_case, True, v)
    after = seats[1].view()
    assert after.penalties[0].revoked and list(after.violations) == [0, 0, 0, 0]
    assert game_part(after) == game_part(before), "the prior state, as seat 1 sees it"
    # a second report, this time the appeal fails: the penalty stays
    case2 = report(seats[0], 1, after.version)
    v = vote(seats[2], case2, True, case2)
    v = vote(seats[3], case2, True, v)
    v = vote(seats[1], case2, True, v)
    v = seats[1].play(table_move(appeal=pb.Appeal(case_id=case2, reason="again")), v).version
    arbiter.play(table_move(rule=pb.Rule(case_id=v, uphold=False)), v)
    final = arbiter.view()
    assert not final.penalties[-1].revoked and final.violations[1] == 1


def test_every_seat_can_redeal_a_deadlocked_table(client: TableClient) -> None:
    game_id, seats, arbiter_token = seated_game(client, seed=46, arbitrated=True)
    arbiter = client.as_viewer(game_id, arbiter_token)
    old = arbiter.view()
    case = report(seats[0], 1, old.version)
    v = vote(seats[2], case, True, case)
    v = vote(seats[1], case, False, v)  # a dispute the seats' votes cannot settle
    for seat in seats:  # every seat agrees (the arbiter cannot order it)
        v = seat.play(table_move(agree_redeal=pb.AgreeRedeal(case_id=case)), v).version
    drawing = arbiter.view()
    assert list(drawing.redeals_requested_by) == ["seats"] and drawing.redeal_commitment
    assert drawing.max_redeals == 1 and drawing.paused, "drawn through a fresh commit–reveal"
    commit_and_reveal(seats)  # each seat commits, then reveals; the server deals it
    view = arbiter.view()
    assert view.redeals == 1 and view.cases[0].status == pb.CASE_STATUS_DEADLOCKED
    assert not view.redeal_commitment and not view.paused
    assert game_part(view) != game_part(old), "a new deal"
    assert len(list(arbiter.history())) == view.version, "the old game stays in the history"
    play_to_end([RandomBot(s, i) for i, s in enumerate(seats)])
    assert verify_game(client, game_id).report.moves_redecided > 3, "justice verifies"


def test_a_turn_timer_fires_after_a_server_restart(tmp_path) -> None:  # type: ignore[no-untyped-def]
    server = ServerProcess(tmp_path, extra=["--min-turn-time", "1", "--allow-prepared-deals"])
    server.start()
    try:
        with TableClient(server.target) as client:
            created = client.create_game(
                huaniao_options("BASIC"), 4, seed=47, turn_time_limit_ms=1500
            )
            seats = [client.join(created.game_id, s, contribution="") for s in range(4)]
            seats[0].start()
            started = client.as_viewer(created.game_id).view()
            assert started.turn_time_limit_ms == 1500
        server.stop()
        time.sleep(2.0)  # the deadline passes while the server is down
        server.start()
        with TableClient(server.target) as client:
            deadline = time.monotonic() + 10
            texts: list[str] = []
            while time.monotonic() < deadline:
                texts = [e.text for e in client.as_viewer(created.game_id).history()]
                if any("timed out" in t for t in texts):
                    break
                time.sleep(0.2)
            assert any("timed out" in t for t in texts), texts[-5:]
            view = client.as_viewer(created.game_id).view()
            assert view.version > started.version
    finally:
        server.cleanup()


def test_a_table_nobody_plays_is_finished_by_its_clock(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """出牌超时 keeps the game moving: a 川南字牌 hand whose seats never act (claims and 爆
    offers pass, discards are made for them) ends on the clock alone. (The server's bounds
    on the clock, a minimum limit and a run of clock-made events, are lifted here; they are
    tested in tests/hardening/test_clock.py.)"""
    flags = ["--min-turn-time", "0", "--max-clock-events", "100000", "--allow-prepared-deals"]
    with ServerProcess(tmp_path, extra=flags) as server, TableClient(server.target) as client:
        _a_table_nobody_plays_is_finished_by_its_clock(client)


def _a_table_nobody_plays_is_finished_by_its_clock(client: TableClient) -> None:
    from tabletop.zipai.v1 import zipai_pb2 as zp

    created = client.create_game(
        pb.GameOptions(zipai=zp.Options()), 3, seed=48, turn_time_limit_ms=40
    )
    seats = [client.join(created.game_id, s, contribution="") for s in range(3)]
    seats[0].start()
    deadline = time.monotonic() + 60
    view = client.as_viewer(created.game_id).view()
    while view.phase != pb.GAME_PHASE_FINISHED and time.monotonic() < deadline:
        time.sleep(0.2)
        view = client.as_viewer(created.game_id).view()
    assert view.phase == pb.GAME_PHASE_FINISHED
    texts = [e.text for e in client.as_viewer(created.game_id).history()]
    assert sum("timed out" in t for t in texts) > 5
    report = verify_game(client, created.game_id).report
    assert report.events == view.version, "timeouts re-decide in the audit"
