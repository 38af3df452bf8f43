"""Seat signatures through a real server (docs/api.md, "Seat signatures"): each refusal
appends nothing; a keyed seat's command stands only on its own key's signature, for the
very game, version and request it was made for; re-keys are seen by everyone; the client
stops when its key is not recorded."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import grpc
import pytest

from clients.python.client import TableClient
from clients.python.rpcerrors import error_info
from clients.python.seat import SeatClient, SeatKeyNotRecorded, new_seat_key
from server.wire import seatsig
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import huaniao_options, seated_game


def _refused(call: Callable[[], Any], code: grpc.StatusCode) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    assert caught.value.code() == code, caught.value.details()
    return caught.value


def _reason(err: grpc.RpcError) -> str:
    info = error_info(err)
    return info.reason if info is not None else ""


def _version(client: TableClient, game_id: str) -> int:
    return client.as_viewer(game_id).view().version


def _a_play(seat: SeatClient) -> tuple[pb.PlayRequest, int]:
    """An unsigned Play of one of the seat's legal moves, at the game's version."""
    legal = seat.legal_moves()
    assert legal.moves, "the seat must have a move"
    request = pb.PlayRequest(
        game_id=seat.game_id, expected_version=legal.version, move=legal.moves[0]
    )
    return request, legal.version


def _to_move(client: TableClient, game_id: str, seats: list[SeatClient]) -> SeatClient:
    view = client.as_viewer(game_id).view()
    return seats[view.to_act[0]]


def _signed(seat: SeatClient, request: Any, method: str, key: bytes | None = None) -> Any:
    version = request.expected_version if method == "Play" else 0
    head = seat.view(version).head_hash if version else ""
    request.seat_signature.CopyFrom(
        seatsig.sign(key or seat.seat_key, request.game_id, method, version, head, request)
    )
    return request


def test_an_unkeyed_join_is_refused_unless_the_table_allows_it(client: TableClient) -> None:
    created = client.create_game(huaniao_options(), 4, seed=1)
    err = _refused(
        lambda: client.join(created.game_id, 0, "nokey", sign=False),
        grpc.StatusCode.FAILED_PRECONDITION,
    )
    assert _reason(err) == "SEAT_KEY_REQUIRED"
    assert _version(client, created.game_id) == 1
    open_table = client.create_game(huaniao_options(), 4, seed=1, allow_unkeyed_seats=True)
    seat = client.join(open_table.game_id, 0, "nokey", sign=False)
    assert seat.seat_key is None
    assert bytes(seat.view().seats[0].public_key) == b""


def test_a_keyed_join_must_be_signed_by_the_key_it_sends(client: TableClient) -> None:
    game_id = client.create_game(huaniao_options(), 4, seed=1).game_id
    key, other = new_seat_key(), new_seat_key()
    request = pb.JoinGameRequest(game_id=game_id, seat=0, seat_public_key=seatsig.public_bytes(key))
    err = _refused(lambda: client.stub.JoinGame(request), grpc.StatusCode.PERMISSION_DENIED)
    assert _reason(err) == "SEAT_SIGNATURE_REQUIRED"
    request.seat_signature.CopyFrom(seatsig.sign(other, game_id, "JoinGame", 0, "", request))
    err = _refused(lambda: client.stub.JoinGame(request), grpc.StatusCode.PERMISSION_DENIED)
    assert _reason(err) == "SEAT_SIGNATURE_INVALID"
    request.seat_signature.CopyFrom(seatsig.sign(key, game_id, "Play", 0, "", request))
    _refused(lambda: client.stub.JoinGame(request), grpc.StatusCode.INVALID_ARGUMENT)
    assert _version(client, game_id) == 1
    seat = client.join(game_id, 0, "keyed", seat_key=key)
    assert bytes(seat.view().seats[0].public_key) == seatsig.public_bytes(key)


def test_a_small_order_key_takes_no_seat(client: TableClient) -> None:
    """The identity point as a seat key, with the signature (R the identity, S 0) that a
    lenient Ed25519 check accepts for every message under it: whoever held it could sign
    anything in the seat's name. The join is refused and nothing is appended."""
    game_id = client.create_game(huaniao_options(), 4, seed=1).game_id
    identity = bytes([1]) + bytes(31)
    request = pb.JoinGameRequest(game_id=game_id, seat=0, seat_public_key=identity)
    signed = seatsig.sign(new_seat_key(), game_id, "JoinGame", 0, "", request)
    signed.signature = identity + bytes(32)  # the forgery, over the well-formed command
    request.seat_signature.CopyFrom(signed)
    err = _refused(lambda: client.stub.JoinGame(request), grpc.StatusCode.PERMISSION_DENIED)
    assert _reason(err) == "SEAT_SIGNATURE_INVALID"
    assert _version(client, game_id) == 1


def test_a_keyed_seats_unsigned_or_forged_play_is_refused(client: TableClient) -> None:
    game_id, seats, _arbiter = seated_game(client, seed=3)
    mover = _to_move(client, game_id, seats)
    other = next(s for s in seats if s is not mover)
    request, version = _a_play(mover)
    err = _refused(
        lambda: mover.stub.Play(request, metadata=mover.metadata), grpc.StatusCode.PERMISSION_DENIED
    )
    assert _reason(err) == "SEAT_SIGNATURE_REQUIRED"
    for key in (other.seat_key, new_seat_key()):  # another seat's key, a stranger's
        forged = _signed(mover, pb.PlayRequest(**_fields(request)), "Play", key)
        err = _refused(
            lambda f=forged: mover.stub.Play(f, metadata=mover.metadata),
            grpc.StatusCode.PERMISSION_DENIED,
        )
        assert _reason(err) == "SEAT_SIGNATURE_INVALID"
    assert _version(client, game_id) == version
    signed = _signed(mover, pb.PlayRequest(**_fields(request)), "Play")
    reply = mover.stub.Play(signed, metadata=mover.metadata)
    assert reply.version > version


def _fields(request: pb.PlayRequest) -> dict[str, Any]:
    return {
        "game_id": request.game_id,
        "expected_version": request.expected_version,
        "move": request.move,
        "request_id": request.request_id,
    }


def test_a_signed_play_cannot_move_to_another_version_or_game(client: TableClient) -> None:
    game_id, seats, _arbiter = seated_game(client, seed=3)
    mover = _to_move(client, game_id, seats)
    request, version = _a_play(mover)
    signed = _signed(mover, pb.PlayRequest(**_fields(request)), "Play")
    moved = pb.PlayRequest()
    moved.CopyFrom(signed)
    moved.expected_version = version - 1  # the signed request names another version
    err = _refused(
        lambda: mover.stub.Play(moved, metadata=mover.metadata), grpc.StatusCode.INVALID_ARGUMENT
    )
    assert "seat_signature" in (err.details() or "")
    elsewhere = pb.PlayRequest()
    elsewhere.CopyFrom(signed)
    # another table where the same device holds the same seat with the same key
    other = client.create_game(huaniao_options(), 4, seed=3).game_id
    key_of = {s: mover.seat_key if s == mover.seat else None for s in range(4)}
    twins = [client.join(other, s, f"p{s}", "", seat_key=key_of[s]) for s in range(4)]
    twins[0].start()
    twin = twins[mover.seat or 0]
    elsewhere.game_id = other
    err = _refused(
        lambda: twin.stub.Play(elsewhere, metadata=twin.metadata),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert "seat_signature" in (err.details() or "")
    assert _version(client, other) == version
    wrong_head = pb.PlayRequest(**_fields(request))
    wrong_head.seat_signature.CopyFrom(
        seatsig.sign(mover.seat_key, game_id, "Play", version, "ab" * 32, wrong_head)
    )
    err = _refused(
        lambda: mover.stub.Play(wrong_head, metadata=mover.metadata),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    assert "head_hash" in (err.details() or "")
    no_head = pb.PlayRequest(**_fields(request))
    no_head.seat_signature.CopyFrom(
        seatsig.sign(mover.seat_key, game_id, "Play", version, "", no_head)
    )
    _refused(
        lambda: mover.stub.Play(no_head, metadata=mover.metadata), grpc.StatusCode.INVALID_ARGUMENT
    )
    assert _version(client, game_id) == version


def test_a_retried_signed_play_gets_the_original_move(client: TableClient) -> None:
    game_id, seats, _arbiter = seated_game(client, seed=3)
    mover = _to_move(client, game_id, seats)
    request, version = _a_play(mover)
    first = mover.play(request.move, version, request_id="retry-1")
    again = mover.play(request.move, version, request_id="retry-1")
    assert again.version == first.version
    assert [e.hash for e in again.events] == [e.hash for e in first.events]


def test_the_client_plays_a_whole_signed_start(client: TableClient) -> None:
    """The seats' reveals and the start are signed by the client; an unsigned start from
    a keyed seat is refused, the arbiter's needs none."""
    created = client.create_game(huaniao_options(), 4, seed=5)
    seats = [client.join(created.game_id, s, f"p{s}", contribution="") for s in range(4)]
    unsigned = pb.StartGameRequest(game_id=created.game_id)
    err = _refused(
        lambda: seats[1].stub.StartGame(unsigned, metadata=seats[1].metadata),
        grpc.StatusCode.PERMISSION_DENIED,
    )
    assert _reason(err) == "SEAT_SIGNATURE_REQUIRED"
    assert seats[1].start() > 5
    other = client.create_game(huaniao_options(), 4, seed=5)
    for s in range(4):
        client.join(other.game_id, s, f"p{s}", contribution="")
    assert client.as_viewer(other.game_id, other.arbiter_token).start() > 5


def test_a_rekey_is_seen_by_every_seat(client: TableClient) -> None:
    game_id, seats, _arbiter = seated_game(client, seed=3)
    lost = seats[2]
    old_key = lost.seat_key
    watcher = seats[0]
    before = watcher.view().version
    version = lost.rekey()
    assert version == before + 1
    seen = watcher.view().seats[2]
    assert bytes(seen.public_key) == lost.public_key != seatsig.public_bytes(old_key)
    assert list(seen.rekeyed_at) == [version]
    (event,) = itertools.islice(watcher.watch(after_version=before), 1)
    assert event.table.seat_rekeyed.seat == 2
    assert bytes(event.table.seat_rekeyed.old_public_key) == seatsig.public_bytes(old_key)
    assert "re-keyed" in event.text
    # the old key no longer speaks for the seat
    stale = SeatClient(lost.target, game_id, 2, lost.token, lost.channel, seat_key=old_key)
    retract = pb.Move(table=pb.TableCommand(retract=pb.Retract()))
    err = _refused(lambda: stale.play(retract, version), grpc.StatusCode.PERMISSION_DENIED)
    assert _reason(err) == "SEAT_SIGNATURE_INVALID"
    lost.rekey()
    lost.rekey()
    err = _refused(lambda: lost.rekey(), grpc.StatusCode.FAILED_PRECONDITION)
    assert _reason(err) == "REKEY_LIMIT"
    assert watcher.view().version == version + 2


def test_the_client_stops_when_its_key_is_not_recorded(client: TableClient) -> None:
    created = client.create_game(huaniao_options(), 4, seed=1, allow_unkeyed_seats=True)
    unkeyed = client.join(created.game_id, 0, "p0", sign=False)
    unkeyed.seat_key = new_seat_key()  # as if the server had dropped the key it was sent
    with pytest.raises(SeatKeyNotRecorded, match="SEAT KEY NOT RECORDED"):
        unkeyed.check_key_recorded()
    keyed = client.join(created.game_id, 1, "p1")
    keyed.check_key_recorded()
    keyed.seat_key = new_seat_key()  # another key than the recorded one
    with pytest.raises(SeatKeyNotRecorded, match="SEAT KEY NOT RECORDED"):
        keyed.check_key_recorded()
