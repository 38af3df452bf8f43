"""The table API through a real server: a whole bot game, every error, resume, restart."""

from __future__ import annotations

import uuid

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient
from clients.python.serverproc import ServerProcess
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.zipai.v1 import zipai_pb2
from tests.api.helpers import history_versions, seated_game


def detail(err: grpc.RpcError, kind: type) -> object:
    status = rpc_status.from_call(err)  # type: ignore[arg-type]
    assert status is not None, "no rich status"
    for any_detail in status.details:
        if any_detail.Is(kind.DESCRIPTOR):
            msg = kind()
            any_detail.Unpack(msg)
            return msg
    raise AssertionError(f"no {kind.__name__} detail in {status}")


@pytest.mark.parametrize("mode", ["SIMPLE", "BASIC"])
def test_bots_play_a_whole_game(client: TableClient, mode: str) -> None:
    game_id, seats, arbiter = seated_game(client, seed=11, mode=mode)
    moves = play_to_end([RandomBot(s, i) for i, s in enumerate(seats)])
    view = client.as_viewer(game_id).view()
    assert view.phase == pb.GAME_PHASE_FINISHED
    assert list(view.outcome.winners), "a finished game names its winner"
    assert moves > 0
    versions = history_versions(client, game_id, arbiter)
    assert versions == list(range(1, view.version + 1))


class TestErrorsAppendNothing:
    """Each refusal has its status and detail, and the game's history is unchanged."""

    @pytest.fixture()
    def game(self, client: TableClient):  # type: ignore[no-untyped-def]
        game_id, seats, arbiter = seated_game(client, seed=5)
        view = client.as_viewer(game_id).view()
        actor = seats[view.to_act[0]]
        idle = next(s for s in seats if s.seat not in view.to_act)
        before = history_versions(client, game_id, arbiter)
        yield game_id, actor, idle, arbiter
        assert history_versions(client, game_id, arbiter) == before, "a refused call appended"

    def test_stale_version_is_aborted_with_the_current_version(self, game) -> None:  # type: ignore[no-untyped-def]
        _, actor, _, _ = game
        legal = actor.legal_moves()
        with pytest.raises(grpc.RpcError) as e:
            actor.play(legal.moves[0], legal.version - 1)
        assert e.value.code() == grpc.StatusCode.ABORTED
        info = detail(e.value, error_details_pb2.ErrorInfo)
        assert info.reason == "STALE_VERSION"  # type: ignore[attr-defined]
        assert info.metadata["current_version"] == str(legal.version)  # type: ignore[attr-defined]

    def test_out_of_turn_is_failed_precondition_naming_the_rule(self, game) -> None:  # type: ignore[no-untyped-def]
        _, actor, idle, _ = game
        legal = actor.legal_moves()
        move = pb.Move()
        move.CopyFrom(legal.moves[0])
        getattr(move.huaniao, move.huaniao.WhichOneof("kind")).seat = idle.seat
        with pytest.raises(grpc.RpcError) as e:
            idle.play(move, legal.version)
        assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        info = detail(e.value, error_details_pb2.ErrorInfo)
        assert info.reason == "NOT_YOUR_TURN" and info.metadata["rule"]  # type: ignore[attr-defined]

    def test_another_seats_move_is_permission_denied(self, game) -> None:  # type: ignore[no-untyped-def]
        _, actor, idle, _ = game
        legal = actor.legal_moves()
        move = pb.Move()
        move.CopyFrom(legal.moves[0])
        other = next(s for s in (1, 2, 3) if s != idle.seat)  # seat 0 means "my seat"
        getattr(move.huaniao, move.huaniao.WhichOneof("kind")).seat = other
        with pytest.raises(grpc.RpcError) as e:
            idle.play(move, legal.version)
        assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
        detail(e.value, error_details_pb2.ErrorInfo)

    def test_a_forged_token_is_permission_denied(self, client: TableClient, game) -> None:  # type: ignore[no-untyped-def]
        game_id, actor, _, _ = game
        legal = actor.legal_moves()
        forged = client.as_viewer(game_id, "not-a-token")
        with pytest.raises(grpc.RpcError) as e:
            forged.play(legal.moves[0], legal.version)
        assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED

    def test_a_spectator_cannot_play(self, client: TableClient, game) -> None:  # type: ignore[no-untyped-def]
        game_id, actor, _, _ = game
        legal = actor.legal_moves()
        with pytest.raises(grpc.RpcError) as e:
            client.as_viewer(game_id).play(legal.moves[0], legal.version)
        assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED

    def test_an_empty_move_is_invalid_argument_with_the_field(self, game) -> None:  # type: ignore[no-untyped-def]
        _, actor, _, _ = game
        with pytest.raises(grpc.RpcError) as e:
            actor.play(pb.Move(), actor.legal_moves().version)
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        bad = detail(e.value, error_details_pb2.BadRequest)
        assert bad.field_violations[0].field == "move"  # type: ignore[attr-defined]

    def test_another_games_move_is_invalid_argument(self, game) -> None:  # type: ignore[no-untyped-def]
        _, actor, _, _ = game
        move = pb.Move(zipai=zipai_pb2.Command())
        with pytest.raises(grpc.RpcError) as e:
            actor.play(move, actor.legal_moves().version)
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT

    def test_unknown_game_is_not_found(self, client: TableClient, game) -> None:  # type: ignore[no-untyped-def]
        with pytest.raises(grpc.RpcError) as e:
            client.as_viewer(str(uuid.uuid4())).view()
        assert e.value.code() == grpc.StatusCode.NOT_FOUND
        detail(e.value, error_details_pb2.ResourceInfo)

    def test_a_malformed_game_id_is_invalid_argument(self, client: TableClient, game) -> None:  # type: ignore[no-untyped-def]
        with pytest.raises(grpc.RpcError) as e:
            client.as_viewer("no-such-id").view()
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        bad = detail(e.value, error_details_pb2.BadRequest)
        assert bad.field_violations[0].field == "game_id"  # type: ignore[attr-defined]

    def test_a_taken_seat_is_failed_precondition(self, client: TableClient, game) -> None:  # type: ignore[no-untyped-def]
        game_id, _, _, _ = game
        with pytest.raises(grpc.RpcError) as e:
            client.join(game_id, 0, "intruder")
        assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION


def test_create_game_rejects_a_bad_seat_count_and_deck(client: TableClient) -> None:
    from tests.api.helpers import huaniao_options

    for kwargs, field in (
        ({"seat_count": 9}, "seat_count"),
        ({"seat_count": 4, "deck": [1, 2, 3]}, "deck"),
    ):
        with pytest.raises(grpc.RpcError) as e:
            client.create_game(huaniao_options(), **kwargs)  # type: ignore[arg-type]
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert detail(e.value, error_details_pb2.BadRequest).field_violations[0].field == field  # type: ignore[attr-defined]


def test_watch_resumes_without_gap_or_duplicate(client: TableClient) -> None:
    game_id, seats, arbiter = seated_game(client, seed=21)
    play_to_end([RandomBot(s, i) for i, s in enumerate(seats)])
    full = [e.version for e in seats[1].watch()]
    assert full == list(range(1, len(full) + 1))
    # drop the stream part way and resume from the last version received
    stream = seats[1].stub.Watch(pb.WatchRequest(game_id=game_id), metadata=seats[1].metadata)
    first = [next(stream).event.version for _ in range(7)]
    stream.cancel()
    rest = [e.version for e in seats[1].watch(after_version=first[-1])]
    assert first + rest == full


def test_a_live_watch_sees_every_move_in_order(client: TableClient) -> None:
    import threading

    game_id, seats, _ = seated_game(client, seed=33, start=False)
    got: list[int] = []
    watcher = threading.Thread(target=lambda: got.extend(e.version for e in seats[2].watch()))
    watcher.start()
    seats[0].start()
    play_to_end([RandomBot(s, i) for i, s in enumerate(seats)])
    watcher.join(timeout=30)
    assert not watcher.is_alive(), "the stream should end with the game"
    final = client.as_viewer(game_id).view().version
    assert got == list(range(1, final + 1))


def test_a_game_continues_after_a_server_restart(tmp_path) -> None:  # type: ignore[no-untyped-def]
    server = ServerProcess(tmp_path, extra=["--allow-prepared-deals"]).start()
    try:
        with TableClient(server.target) as client:
            game_id, seats, arbiter = seated_game(client, seed=8)
            bots = [RandomBot(s, i) for i, s in enumerate(seats)]
            for _ in range(10):
                for seat in client.as_viewer(game_id).view().to_act:
                    bots[seat].step()
            before = client.as_viewer(game_id, arbiter).view()
            tokens = [(s.seat, s.credential) for s in seats]
        server.stop()
        server.start()
        with TableClient(server.target) as client:
            after = client.as_viewer(game_id, arbiter).view()
            assert after == before
            seats = [client.as_viewer(game_id, t) for _, t in tokens]
            for (seat, _), s in zip(tokens, seats, strict=True):
                s.seat = seat
            play_to_end([RandomBot(s, i) for i, s in enumerate(seats)])
            assert client.as_viewer(game_id).view().phase == pb.GAME_PHASE_FINISHED
    finally:
        server.cleanup()
