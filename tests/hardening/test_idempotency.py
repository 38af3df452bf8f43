"""Duplicate submissions: a Play retried with its request_id is never played twice.

The request_id is stored in the move's cause (with the seat), indexed in the game's state
(snapshots included), so it holds after the game moved on, across a restart, and between
replicas. A retry of an accepted move gets the original reply (same version, same events,
same timestamps) and appends nothing; a request_id reused for another move is refused.
"""

from __future__ import annotations

import threading
import uuid
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2

from clients.python.client import TableClient
from clients.python.seat import SeatClient
from clients.python.serverproc import ServerProcess
from tests.api.helpers import history_versions, seated_game, the_move
from tests.hardening.common import detail, server


def actor_of(client: TableClient, game_id: str, seats: list[SeatClient]) -> SeatClient:
    return seats[client.as_viewer(game_id).view().to_act[0]]


def play_one(client: TableClient, game_id: str, seats: list[SeatClient], rid: str = ""):  # type: ignore[no-untyped-def]
    actor = actor_of(client, game_id, seats)
    legal = actor.legal_moves()
    move = legal.moves[0]
    return actor, move, legal.version, actor.play(move, legal.version, request_id=rid)


@pytest.fixture(scope="module")
def proc(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    with server(tmp_path_factory.mktemp("idem")) as p:
        yield p


def test_a_retry_gets_the_original_reply_even_after_the_game_moved_on(proc: ServerProcess) -> None:
    with TableClient(proc.target) as client:
        game_id, seats, arbiter = seated_game(client, seed=71)
        rid = uuid.uuid4().hex
        actor, move, version, first = play_one(client, game_id, seats, rid)
        for _ in range(5):  # the game moves on
            play_one(client, game_id, seats)
        before = history_versions(client, game_id, arbiter)
        again = actor.play(move, version, request_id=rid)
        assert the_move(again) == the_move(first)  # version, events, times, hashes, to_act
        assert history_versions(client, game_id, arbiter) == before, "a retry appended"
        # without its request_id the same call is just a stale move
        with pytest.raises(grpc.RpcError) as e:
            actor.play(move, version)
        assert e.value.code() == grpc.StatusCode.ABORTED


def test_a_request_id_reused_for_another_move_is_refused(proc: ServerProcess) -> None:
    with TableClient(proc.target) as client:
        game_id, seats, arbiter = seated_game(client, seed=72)
        rid = uuid.uuid4().hex
        actor, move, version, first = play_one(client, game_id, seats, rid)
        before = history_versions(client, game_id, arbiter)
        # the same seat, the same id, another move: INVALID_ARGUMENT naming request_id
        legal = actor.legal_moves()
        others = [m for m in legal.moves if m != move]
        if legal.moves and others:
            with pytest.raises(grpc.RpcError) as e:
                actor.play(others[0], version, request_id=rid)
            assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            bad = detail(e.value, error_details_pb2.BadRequest)
            assert bad.field_violations[0].field == "request_id"
        # another seat may use the same id: ids are per seat
        nxt = actor_of(client, game_id, seats)
        legal = nxt.legal_moves()
        reply = nxt.play(legal.moves[0], legal.version, request_id=rid)
        assert reply.version > first.version
        assert history_versions(client, game_id, arbiter) == [
            *before,
            *range(before[-1] + 1, reply.version + 1),
        ]
        with pytest.raises(grpc.RpcError) as e:
            nxt.play(legal.moves[0], reply.version, request_id="r" * 65)
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_a_refused_request_can_be_retried_and_is_then_decided_afresh(proc: ServerProcess) -> None:
    with TableClient(proc.target) as client:
        game_id, seats, arbiter = seated_game(client, seed=73)
        actor = actor_of(client, game_id, seats)
        legal = actor.legal_moves()
        rid = uuid.uuid4().hex
        with pytest.raises(grpc.RpcError) as e:
            actor.play(legal.moves[0], legal.version - 1, request_id=rid)
        assert e.value.code() == grpc.StatusCode.ABORTED  # nothing stored under rid
        reply = actor.play(legal.moves[0], legal.version, request_id=rid)
        assert reply.version > legal.version
        assert actor.play(legal.moves[0], legal.version, request_id=rid) == reply  # still latest


def test_concurrent_duplicates_play_once(proc: ServerProcess) -> None:
    """The same request sent eight times at once: one move, eight identical replies."""
    with TableClient(proc.target) as client:
        game_id, seats, arbiter = seated_game(client, seed=74)
        actor = actor_of(client, game_id, seats)
        legal = actor.legal_moves()
        before = history_versions(client, game_id, arbiter)
        rid = uuid.uuid4().hex
        replies: list[object] = []

        def send() -> None:
            try:
                replies.append(actor.play(legal.moves[0], legal.version, request_id=rid))
            except grpc.RpcError as err:  # pragma: no cover - reported below
                replies.append(err.code())

        threads = [threading.Thread(target=send) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(replies) == 8 and all(r == replies[0] for r in replies), replies
        after = history_versions(client, game_id, arbiter)
        assert len(after) - len(before) == len(replies[0].events)  # type: ignore[attr-defined]


def test_a_timed_out_play_retried_is_played_exactly_once(proc: ServerProcess) -> None:
    """The client gives up before the reply (a deadline far shorter than a move), then
    retries with the same request_id until it gets an answer: one move in the store."""
    with TableClient(proc.target) as client:
        game_id, seats, arbiter = seated_game(client, seed=75)
        timed_out = 0
        for _ in range(20):
            actor = actor_of(client, game_id, seats)
            legal = actor.legal_moves()
            before = history_versions(client, game_id, arbiter)
            rid = uuid.uuid4().hex
            try:
                actor.play(legal.moves[0], legal.version, request_id=rid, timeout=0.0005)
            except grpc.RpcError as err:
                assert err.code() == grpc.StatusCode.DEADLINE_EXCEEDED
                timed_out += 1
            reply = actor.play(legal.moves[0], legal.version, request_id=rid)
            after = history_versions(client, game_id, arbiter)
            assert after == [*before, *(e.version for e in reply.events)]
        assert timed_out > 0, "no call timed out: the test proved nothing"


def test_retries_hold_across_a_restart_and_snapshots(tmp_path: Path) -> None:
    """Request ids are durable: after a restart (the game rebuilt from a snapshot and the
    events after it) every earlier request_id still returns its original reply."""
    proc = ServerProcess(tmp_path, extra=["--allow-prepared-deals"]).start()  # seeded tables
    try:
        sent: list[tuple[int, str, object, int, object]] = []
        with TableClient(proc.target) as client:
            game_id, seats, arbiter = seated_game(client, seed=76)
            tokens = [(s.seat, s.credential) for s in seats]
            for _ in range(40):  # past a snapshot (every 25 events)
                if not client.as_viewer(game_id).view().to_act:
                    break
                rid = uuid.uuid4().hex
                actor, move, version, reply = play_one(client, game_id, seats, rid)
                sent.append((actor.seat or 0, rid, move, version, reply))
            before = history_versions(client, game_id, arbiter)
        proc.stop(kill=True)
        proc.start()
        with TableClient(proc.target) as client:
            by_seat = {seat: client.as_viewer(game_id, token) for seat, token in tokens}
            for seat, rid, move, version, reply in sent:
                again = by_seat[seat].play(move, version, request_id=rid)  # type: ignore[arg-type]
                assert the_move(again) == the_move(reply), (
                    f"request {rid} of seat {seat} at v{version}"
                )
            assert history_versions(client, game_id, arbiter) == before
        assert before[-1] > 30
    finally:
        proc.cleanup()


# --- CreateGame, JoinGame and StartGame keys (server/usecases/idempotency.py) ---------------------


def test_keyed_create_join_and_start_return_their_original_replies(proc: ServerProcess) -> None:
    """Each call sent twice with its key: the same reply, tokens included, nothing twice."""
    from tests.api.helpers import huaniao_options

    with TableClient(proc.target) as client:
        create_key = str(uuid.uuid4())
        first = client.create_game(huaniao_options(), 4, seed=81, request_id=create_key)
        again = client.create_game(huaniao_options(), 4, seed=81, request_id=create_key)
        assert again == first  # same game id, version and arbiter token
        # the same key with other content returns nothing
        with pytest.raises(grpc.RpcError) as e:
            client.create_game(huaniao_options(), 3, seed=81, request_id=create_key)
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert (
            detail(e.value, error_details_pb2.BadRequest).field_violations[0].field == "request_id"
        )
        game_id = first.game_id
        keys = [str(uuid.uuid4()) for _ in range(4)]
        seats = [client.join(game_id, s, f"p{s}", "c", request_id=keys[s]) for s in range(4)]
        for s in range(4):
            retried = client.join(game_id, s, f"p{s}", "c", request_id=keys[s])
            assert retried.token == seats[s].token and retried.seat == s
            retried.view()  # the token works
        arbiter = client.as_viewer(game_id, first.arbiter_token)
        before = history_versions(client, game_id, first.arbiter_token)
        assert before == [1, 2, 3, 4, 5]
        # another caller replaying the seat with another key, or the key with other content
        with pytest.raises(grpc.RpcError) as e:
            client.join(game_id, 0, "p0", "c", request_id=str(uuid.uuid4()))
        assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        for other in ({"player_name": "thief"}, {"contribution": "x"}):
            args = {"player_name": "p0", "contribution": "c", **other}
            with pytest.raises(grpc.RpcError) as e:
                client.join(game_id, 0, request_id=keys[0], **args)  # type: ignore[arg-type]
            assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        for seat in seats:
            seat.reveal()
        start_key = str(uuid.uuid4())
        version = seats[1].start(request_id=start_key)
        assert arbiter.start(request_id=start_key) == version  # any token, same reply
        play_one(client, game_id, seats)  # the game moves on
        assert seats[2].start(request_id=start_key) == version
        with pytest.raises(grpc.RpcError) as e:
            seats[1].start()
        assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        after = history_versions(client, game_id, first.arbiter_token)
        assert after[: len(before)] == before and after == list(range(1, len(after) + 1))


def test_keys_for_tokens_must_be_random_uuids(proc: ServerProcess) -> None:
    from tests.api.helpers import huaniao_options

    with TableClient(proc.target) as client:
        game = client.create_game(huaniao_options(), 4, seed=82)
        for weak in ("1", "retry", "00000000-0000-0000-0000-000000000001", str(uuid.uuid1())):
            for call in (
                lambda k: client.create_game(huaniao_options(), 4, request_id=k),
                lambda k: client.join(game.game_id, 0, request_id=k),
            ):
                with pytest.raises(grpc.RpcError) as e:
                    call(weak)
                assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert history_versions(client, game.game_id, game.arbiter_token) == [1]
