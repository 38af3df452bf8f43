"""The arbiter's signature through a real server (issue 35: nobody but the table's named
arbiter rules). At an arbitrated table whose seats sign, the arbiter's Ed25519 key is
recorded at CreateGame, and a ruling or the arbiter's StartGame without its signature, or
with another key's, is PERMISSION_DENIED and appends nothing: the arbiter token alone (what
whoever runs the server holds too) no longer rules."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
import pytest

from clients.python.client import TOKEN_HEADER, TableClient
from clients.python.rpcerrors import error_info
from clients.python.seat import new_seat_key
from server.wire import seatsig
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import huaniao_options, seated_game
from tests.api.test_justice import report, table_move


def _refused(call: Callable[[], Any], code: grpc.StatusCode) -> str:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    assert caught.value.code() == code, caught.value.details()
    info = error_info(caught.value)
    return info.reason if info is not None else ""


def _version(client: TableClient, game_id: str) -> int:
    return client.as_viewer(game_id).view().version


def test_an_arbitrated_keyed_table_needs_the_arbiters_key(client: TableClient) -> None:
    bare = pb.CreateGameRequest(options=huaniao_options(), seat_count=4, arbitrated=True)
    reason = _refused(lambda: client.stub.CreateGame(bare), grpc.StatusCode.FAILED_PRECONDITION)
    assert reason == "ARBITER_KEY_REQUIRED"
    short = pb.CreateGameRequest(
        options=huaniao_options(), seat_count=4, arbitrated=True, arbiter_public_key=b"x" * 31
    )
    _refused(lambda: client.stub.CreateGame(short), grpc.StatusCode.INVALID_ARGUMENT)
    # a table that admits unkeyed seats may leave its arbiter unkeyed
    assert client.create_game(huaniao_options(), 4, arbitrated=True, allow_unkeyed_seats=True)


def test_the_client_keys_the_arbiter_and_the_key_is_recorded(client: TableClient) -> None:
    key = new_seat_key()
    created = client.create_game(huaniao_options(), 4, seed=3, arbitrated=True, arbiter_key=key)
    first = next(iter(client.as_viewer(created.game_id).history()))
    assert bytes(first.table.game_created.arbiter_public_key) == seatsig.public_bytes(key)
    assert client.arbiter_credential(created) == f"{created.arbiter_token}:{key.hex()}"


def test_an_unsigned_or_wrongly_signed_ruling_is_refused_and_appends_nothing(
    client: TableClient,
) -> None:
    game_id, seats, arbiter_token = seated_game(client, seed=44, arbitrated=True)
    case = report(seats[0], 3, _version(client, game_id))
    v = _version(client, game_id)
    head = client.as_viewer(game_id).view().head_hash
    rule = table_move(rule=pb.Rule(case_id=case, uphold=True))
    metadata = ((TOKEN_HEADER, arbiter_token),)

    def send(request: pb.PlayRequest) -> Callable[[], Any]:
        return lambda: client.stub.Play(request, metadata=metadata)

    unsigned = pb.PlayRequest(game_id=game_id, expected_version=v, move=rule)
    assert _refused(send(unsigned), grpc.StatusCode.PERMISSION_DENIED) == (
        "ARBITER_SIGNATURE_REQUIRED"
    )
    for other in (new_seat_key(), seats[0].seat_key):  # the operator's key, a seat's key
        assert other is not None
        forged = pb.PlayRequest(game_id=game_id, expected_version=v, move=rule)
        forged.seat_signature.CopyFrom(seatsig.sign(other, game_id, "Play", v, head, forged))
        assert _refused(send(forged), grpc.StatusCode.PERMISSION_DENIED) == (
            "ARBITER_SIGNATURE_INVALID"
        )
    assert _version(client, game_id) == v, "a refused ruling appends nothing"
    # the arbiter's own credential, in another process (TOKEN:KEYHEX), rules
    created = pb.CreateGameResponse(game_id=game_id, arbiter_token=arbiter_token)
    with TableClient(client.target) as elsewhere:
        arbiter = elsewhere.as_viewer(game_id, client.arbiter_credential(created))
        ruled = arbiter.play(rule, v)
    assert ruled.version > v


def test_the_arbiters_start_must_be_signed_too(client: TableClient) -> None:
    game_id, seats, arbiter_token = seated_game(client, seed=45, arbitrated=True, start=False)
    for seat in seats:
        seat.reveal()
    v = _version(client, game_id)
    unsigned = pb.StartGameRequest(game_id=game_id)
    start = lambda: client.stub.StartGame(unsigned, metadata=((TOKEN_HEADER, arbiter_token),))  # noqa: E731
    assert _refused(start, grpc.StatusCode.PERMISSION_DENIED) == "ARBITER_SIGNATURE_REQUIRED"
    assert _version(client, game_id) == v
    assert client.as_viewer(game_id, arbiter_token).start() > v  # signed by the client
