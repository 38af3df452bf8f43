"""The same API cases over gRPC, Connect (binary and JSON) and gRPC-Web (issue 28).

Every test with the ``api`` fixture runs once per transport (tests/connect/apis.py) against
one real server process started with ``--web-port 0``; the web transports reach the same
service through server/transport/web/api.py. A refusal must carry the same status code,
message and rich details (ErrorInfo, BadRequest, QuotaFailure, RetryInfo) whatever the
transport: ``test_refusals_are_identical_over_every_transport`` compares them byte for byte.
The tables admit unkeyed seats (these tests send raw requests); seat signatures cross every
transport in ``test_seat_signatures_cross_every_transport``.
"""

from __future__ import annotations

import base64
import json
import random
import threading
import urllib.error
import urllib.request
import uuid
from typing import Any

import grpc
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from clients.python.receipts import check_payload, check_signature, payload_bytes
from clients.python.serverproc import ServerProcess
from server.wire import seatsig
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import the_move
from tests.connect.apis import TRANSPORTS, Api, Failure, open_api

SEED = 2028


def options(mode: str = "SIMPLE") -> pb.GameOptions:
    return pb.GameOptions(huaniao=huaniao_pb2.Options(mode=huaniao_pb2.Mode.Value(f"MODE_{mode}")))


def seat_table(
    api: Api, seats: int = 2, seed: int = SEED, start: bool = True, headers: Any = None
) -> tuple[str, list[str], str]:
    """A seeded table opened, taken and dealt over ``api``: game id, seat tokens, arbiter's."""
    created = api.call(
        "CreateGame",
        pb.CreateGameRequest(
            allow_unkeyed_seats=True, options=options(), seat_count=seats, seed=seed
        ),
        headers=headers,
    )
    tokens = []
    for seat in range(seats):
        joined = api.call(
            "JoinGame",
            pb.JoinGameRequest(game_id=created.game_id, seat=seat, player_name=f"p{seat}"),
        )
        assert joined.seat == seat
        tokens.append(joined.seat_token)
    if start:
        api.call("StartGame", pb.StartGameRequest(game_id=created.game_id), tokens[0])
    return created.game_id, tokens, created.arbiter_token


def actor_and_idle(api: Api, game_id: str, tokens: list[str]) -> tuple[int, int]:
    view = api.call("GetView", pb.GetViewRequest(game_id=game_id), tokens[0]).view
    actor = view.to_act[0]
    return actor, next(s for s in range(len(tokens)) if s != actor)


def refused(call: Any, *args: Any, **kwargs: Any) -> Failure:
    with pytest.raises(Failure) as e:
        call(*args, **kwargs)
    return e.value


def play_to_end(api: Api, game_id: str, tokens: list[str], seed: int) -> int:
    """Every seat plays random legal moves over ``api`` until the game ends."""
    rng = random.Random(seed)
    moves = 0
    for _ in range(5000):
        view = api.call("GetView", pb.GetViewRequest(game_id=game_id), tokens[0]).view
        if view.phase == pb.GAME_PHASE_FINISHED:
            return moves
        for seat in view.to_act or range(len(tokens)):
            legal = api.call("LegalMoves", pb.LegalMovesRequest(game_id=game_id), tokens[seat])
            if not legal.moves:
                continue
            move = rng.choice(list(legal.moves))
            try:
                api.call(
                    "Play",
                    pb.PlayRequest(game_id=game_id, expected_version=legal.version, move=move),
                    tokens[seat],
                )
                moves += 1
            except Failure as failure:
                if failure.code != "aborted":  # someone moved first
                    raise
    raise AssertionError("the game did not end")


# --- the lifecycle ---------------------------------------------------------------------------


def test_create_join_start_and_view(api: Api) -> None:
    game_id, tokens, arbiter = seat_table(api)
    for seat, token in enumerate(tokens):
        view = api.call("GetView", pb.GetViewRequest(game_id=game_id), token).view
        assert view.role == pb.ROLE_SEAT and view.seat == seat
        assert view.phase == pb.GAME_PHASE_PLAYING
        assert view.huaniao.ListFields(), "a seat sees its game"
    whole = api.call("GetView", pb.GetViewRequest(game_id=game_id), arbiter).view
    assert whole.role == pb.ROLE_ARBITER
    spectator = api.call("GetView", pb.GetViewRequest(game_id=game_id)).view
    assert spectator.role == pb.ROLE_SPECTATOR


def test_the_web_sees_what_grpc_sees(api: Api, grpc_api: Api) -> None:
    """The same seat's view, legal moves and history, asked over both."""
    game_id, tokens, _ = seat_table(grpc_api)
    for token in (tokens[0], tokens[1], None):
        a = api.call("GetView", pb.GetViewRequest(game_id=game_id), token).view
        b = grpc_api.call("GetView", pb.GetViewRequest(game_id=game_id), token).view
        assert a == b
        a = api.call("LegalMoves", pb.LegalMovesRequest(game_id=game_id), token)
        b = grpc_api.call("LegalMoves", pb.LegalMovesRequest(game_id=game_id), token)
        assert a == b
        a = api.call("GetHistory", pb.GetHistoryRequest(game_id=game_id), token)
        b = grpc_api.call("GetHistory", pb.GetHistoryRequest(game_id=game_id), token)
        assert a == b


def test_a_legal_move_is_played_and_illegal_ones_refused_with_their_rule(api: Api) -> None:
    game_id, tokens, _ = seat_table(api)
    actor, idle = actor_and_idle(api, game_id, tokens)
    legal = api.call("LegalMoves", pb.LegalMovesRequest(game_id=game_id), tokens[actor])
    assert legal.moves and len(legal.labels) == len(legal.moves)

    # out of turn: FAILED_PRECONDITION naming the rule
    move = pb.Move()
    move.CopyFrom(legal.moves[0])
    getattr(move.huaniao, move.huaniao.WhichOneof("kind")).seat = idle
    play = pb.PlayRequest(game_id=game_id, expected_version=legal.version, move=move)
    failure = refused(api.call, "Play", play, tokens[idle])
    assert failure.code == "failed_precondition"
    info = failure.detail(error_details_pb2.ErrorInfo)
    assert info.reason == "NOT_YOUR_TURN" and info.metadata["rule"]
    assert failure.detail(error_details_pb2.PreconditionFailure).violations

    # a stale version: ABORTED with the current version
    stale = pb.PlayRequest(game_id=game_id, expected_version=legal.version - 1, move=legal.moves[0])
    failure = refused(api.call, "Play", stale, tokens[actor])
    assert failure.code == "aborted"
    info = failure.detail(error_details_pb2.ErrorInfo)
    assert info.reason == "STALE_VERSION"
    assert info.metadata["current_version"] == str(legal.version)

    # an empty move: INVALID_ARGUMENT naming the field
    empty = pb.PlayRequest(game_id=game_id, expected_version=legal.version, move=pb.Move())
    failure = refused(api.call, "Play", empty, tokens[actor])
    assert failure.code == "invalid_argument"
    assert failure.detail(error_details_pb2.BadRequest).field_violations[0].field == "move"

    # nothing was appended; the legal move is
    after = api.call("LegalMoves", pb.LegalMovesRequest(game_id=game_id), tokens[actor])
    assert after.version == legal.version
    reply = api.call(
        "Play",
        pb.PlayRequest(game_id=game_id, expected_version=legal.version, move=legal.moves[0]),
        tokens[actor],
    )
    assert reply.version > legal.version and reply.events
    assert reply.HasField("receipt")


def test_a_wrong_token_is_refused_as_over_grpc(api: Api, grpc_api: Api) -> None:
    game_id, tokens, _ = seat_table(grpc_api)
    legal = grpc_api.call("LegalMoves", pb.LegalMovesRequest(game_id=game_id), tokens[0])
    for method, request in (
        (
            "Play",
            pb.PlayRequest(
                game_id=game_id,
                expected_version=legal.version,
                move=pb.Move(huaniao=huaniao_pb2.Command()),
            ),
        ),
        ("GetView", pb.GetViewRequest(game_id=game_id)),
        ("LegalMoves", pb.LegalMovesRequest(game_id=game_id)),
        ("StartGame", pb.StartGameRequest(game_id=game_id)),
    ):
        web = refused(api.call, method, request, "not-a-token")
        native = refused(grpc_api.call, method, request, "not-a-token")
        assert web.same() == native.same(), method
        assert web.code == "permission_denied", method
        assert web.detail(error_details_pb2.ErrorInfo).reason == "PERMISSION_DENIED"


def test_refusals_are_identical_over_every_transport(server: ServerProcess) -> None:
    """Each refusal, asked over all four transports at one game: the same code, message and
    details, byte for byte (nothing refused changes the game, so all see the same state)."""
    apis = [open_api(name, server.target, server.web_port) for name in TRANSPORTS]
    try:
        grpc_api = apis[0]
        game_id, tokens, arbiter = seat_table(grpc_api)
        actor, idle = actor_and_idle(grpc_api, game_id, tokens)
        legal = grpc_api.call("LegalMoves", pb.LegalMovesRequest(game_id=game_id), tokens[actor])
        out_of_turn = pb.Move()
        out_of_turn.CopyFrom(legal.moves[0])
        getattr(out_of_turn.huaniao, out_of_turn.huaniao.WhichOneof("kind")).seat = idle
        v = legal.version
        cases: list[tuple[str, Any, str | None]] = [
            (
                "Play",
                pb.PlayRequest(game_id=game_id, expected_version=v, move=out_of_turn),
                tokens[idle],
            ),
            (
                "Play",
                pb.PlayRequest(game_id=game_id, expected_version=v - 1, move=legal.moves[0]),
                tokens[actor],
            ),
            (
                "Play",
                pb.PlayRequest(game_id=game_id, expected_version=v, move=pb.Move()),
                tokens[actor],
            ),
            (
                "Play",
                pb.PlayRequest(game_id=game_id, expected_version=v, move=legal.moves[0]),
                None,
            ),  # a spectator
            (
                "Play",
                pb.PlayRequest(game_id=game_id, expected_version=v, move=legal.moves[0]),
                arbiter,
            ),  # the arbiter plays no seat
            ("GetView", pb.GetViewRequest(game_id=str(uuid.uuid4())), None),
            ("GetView", pb.GetViewRequest(game_id="no-such-id"), None),
            ("GetView", pb.GetViewRequest(game_id=game_id, as_seat=idle), tokens[actor]),
            ("JoinGame", pb.JoinGameRequest(game_id=game_id, seat=0, player_name="x"), None),
            ("StartGame", pb.StartGameRequest(game_id=game_id), tokens[0]),
            (
                "CreateGame",
                pb.CreateGameRequest(allow_unkeyed_seats=True, options=options(), seat_count=9),
                None,
            ),
            ("GetHistory", pb.GetHistoryRequest(game_id=game_id, page_token="?"), None),
        ]
        for method, request, token in cases:
            answers = [refused(a.call, method, request, token).same() for a in apis]
            assert answers[0][2], f"{method}: no details over gRPC"
            for name, answer in zip(TRANSPORTS[1:], answers[1:], strict=True):
                assert answer == answers[0], f"{method} over {name}: {answer} != {answers[0]}"
        # streams refuse the same way, before their first message
        for method, request in (
            ("Watch", pb.WatchRequest(game_id="no-such-id")),
            ("Replay", pb.ReplayRequest(game_id=game_id, as_seat=idle)),
        ):
            answers = [refused(list, a.stream(method, request)).same() for a in apis]
            for name, answer in zip(TRANSPORTS[1:], answers[1:], strict=True):
                assert answer == answers[0], f"{method} over {name}"
        after = grpc_api.call("LegalMoves", pb.LegalMovesRequest(game_id=game_id), tokens[actor])
        assert after.version == v, "a refused call appended nothing"
    finally:
        for a in apis:
            a.close()


# --- receipts ----------------------------------------------------------------------------------


def test_a_views_receipt_verifies(api: Api) -> None:
    game_id, tokens, _ = seat_table(api)
    key = api.call("GetSigningKey", pb.GetSigningKeyRequest())
    for token in tokens:
        reply = api.call("GetView", pb.GetViewRequest(game_id=game_id), token)
        assert reply.HasField("receipt")
        view = pb.GameView()
        view.CopyFrom(reply.view)
        view.ClearField("match")
        signed = payload_bytes(view=view)  # format 3 (the default) signs it with the receipt
        assert check_signature(reply.receipt, bytes(key.public_key), signed, game_id) == key.key_id
        assert check_payload(reply.receipt, signed) == "view"
    actor, _ = actor_and_idle(api, game_id, tokens)
    legal = api.call("LegalMoves", pb.LegalMovesRequest(game_id=game_id), tokens[actor])
    played = api.call(
        "Play",
        pb.PlayRequest(game_id=game_id, expected_version=legal.version, move=legal.moves[0]),
        tokens[actor],
    )
    signed = payload_bytes(events=list(played.events))
    check_signature(played.receipt, bytes(key.public_key), signed, game_id)
    assert check_payload(played.receipt, signed) == "events"


# --- streams -----------------------------------------------------------------------------------


def test_watch_streams_every_event_live_until_the_game_ends(api: Api, grpc_api: Api) -> None:
    game_id, tokens, _ = seat_table(api, seed=SEED + 1)
    received: list[pb.WatchResponse] = []
    errors: list[BaseException] = []

    def watch() -> None:
        try:
            for reply in api.stream("Watch", pb.WatchRequest(game_id=game_id), tokens[1]):
                received.append(reply)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    reader = threading.Thread(target=watch, daemon=True)
    reader.start()
    moves = play_to_end(api, game_id, tokens, seed=SEED)
    reader.join(timeout=60)
    assert not reader.is_alive(), "the stream did not end with the game"
    assert not errors, errors
    assert moves > 0
    end = api.call("GetView", pb.GetViewRequest(game_id=game_id), tokens[1]).view
    versions = [r.event.version for r in received]
    assert versions == list(range(1, end.version + 1)), "no gap, no duplicate, to the end"
    # the event that ended the game is the one a gRPC Watch of the finished game ends with
    # (the events before it were redacted for the seat while it played; not after the end)
    native = list(grpc_api.stream("Watch", pb.WatchRequest(game_id=game_id), tokens[1]))
    assert native[-1].event == received[-1].event


def test_batched_watch_and_replay_are_the_same_as_over_grpc(api: Api, grpc_api: Api) -> None:
    game_id, tokens, arbiter = seat_table(grpc_api, seed=SEED + 2)
    play_to_end(grpc_api, game_id, tokens, seed=SEED + 2)
    for method, request, token in (
        ("Watch", pb.WatchRequest(game_id=game_id, batched=True), tokens[0]),
        ("Watch", pb.WatchRequest(game_id=game_id, after_version=3), None),
        ("Replay", pb.ReplayRequest(game_id=game_id, to_version=12), arbiter),
        ("Replay", pb.ReplayRequest(game_id=game_id, from_version=5, as_seat=1), None),
    ):
        web = list(api.stream(method, request, token))
        native = list(grpc_api.stream(method, request, token))
        assert web and web == native, method


def test_seat_signatures_cross_every_transport(api: Api) -> None:
    """A keyed table over each transport (the JSON one included: the server compares the
    signed request with the request it parsed, not bytes): signed joins, start and move are
    taken, and a keyed seat's unsigned move is refused."""
    created = api.call(
        "CreateGame", pb.CreateGameRequest(options=options(), seat_count=2, seed=SEED)
    )
    gid = created.game_id
    keys = [Ed25519PrivateKey.generate() for _ in range(2)]
    tokens = []
    for seat, key in enumerate(keys):
        join = pb.JoinGameRequest(
            game_id=gid,
            seat=seat,
            player_name=f"k{seat}",
            seat_public_key=seatsig.public_bytes(key),
        )
        join.seat_signature.CopyFrom(seatsig.sign(key, gid, "JoinGame", 0, "", join))
        tokens.append(api.call("JoinGame", join).seat_token)
    view = api.call("GetView", pb.GetViewRequest(game_id=gid), tokens[0]).view
    assert [bytes(s.public_key) for s in view.seats] == [seatsig.public_bytes(k) for k in keys]
    start = pb.StartGameRequest(game_id=gid)
    start.seat_signature.CopyFrom(
        seatsig.sign(keys[0], gid, "StartGame", view.version, view.head_hash, start)
    )
    api.call("StartGame", start, tokens[0])
    actor, _ = actor_and_idle(api, gid, tokens)
    legal = api.call("LegalMoves", pb.LegalMovesRequest(game_id=gid), tokens[actor])
    seen = pb.GetViewRequest(game_id=gid, version=legal.version)
    head = api.call("GetView", seen, tokens[actor]).view.head_hash
    play = pb.PlayRequest(game_id=gid, expected_version=legal.version, move=legal.moves[0])
    failure = refused(api.call, "Play", play, tokens[actor])
    assert failure.code == "permission_denied", failure.same()
    assert failure.detail(error_details_pb2.ErrorInfo).reason == "SEAT_SIGNATURE_REQUIRED"
    play.seat_signature.CopyFrom(seatsig.sign(keys[actor], gid, "Play", legal.version, head, play))
    assert api.call("Play", play, tokens[actor]).version > legal.version


# --- retries -----------------------------------------------------------------------------------


def test_a_retried_request_is_answered_from_its_idempotency_key(api: Api) -> None:
    key = str(uuid.uuid4())
    create = pb.CreateGameRequest(
        allow_unkeyed_seats=True, options=options(), seat_count=2, seed=SEED, request_id=key
    )
    first = api.call("CreateGame", create)
    again = api.call("CreateGame", create)
    assert (again.game_id, again.arbiter_token) == (first.game_id, first.arbiter_token)
    game_id = first.game_id
    tokens = [
        api.call("JoinGame", pb.JoinGameRequest(game_id=game_id, seat=s)).seat_token
        for s in range(2)
    ]
    api.call("StartGame", pb.StartGameRequest(game_id=game_id), tokens[0])
    actor, _ = actor_and_idle(api, game_id, tokens)
    legal = api.call("LegalMoves", pb.LegalMovesRequest(game_id=game_id), tokens[actor])
    play = pb.PlayRequest(
        game_id=game_id,
        expected_version=legal.version,
        move=legal.moves[0],
        request_id=str(uuid.uuid4()),
    )
    reply = api.call("Play", play, tokens[actor])
    retried = api.call("Play", play, tokens[actor])
    assert the_move(retried) == the_move(reply)
    history = api.call("GetHistory", pb.GetHistoryRequest(game_id=game_id), tokens[actor])
    assert history.events[-1].version == reply.version, "the retry appended nothing"
    other = pb.PlayRequest()
    other.CopyFrom(play)
    other.move.huaniao.play.verse += "。"  # the same id with another move
    failure = refused(api.call, "Play", other, tokens[actor])
    assert failure.code == "invalid_argument"
    assert failure.detail(error_details_pb2.BadRequest).field_violations[0].field == "request_id"


# --- limits ------------------------------------------------------------------------------------


@pytest.fixture(params=TRANSPORTS)
def limited_api(request: pytest.FixtureRequest, limited: ServerProcess) -> Any:
    a = open_api(request.param, limited.target, limited.web_port)
    yield a
    a.close()


def client_id() -> dict[str, str]:
    return {"x-test-client": f"c-{uuid.uuid4()}"}


def test_the_move_rate_is_resource_exhausted_with_when_to_retry(limited_api: Api) -> None:
    api = limited_api
    game_id, tokens, _ = seat_table(api, headers=client_id())
    actor, _ = actor_and_idle(api, game_id, tokens)
    legal = api.call("LegalMoves", pb.LegalMovesRequest(game_id=game_id), tokens[actor])
    api.call(
        "Play",
        pb.PlayRequest(game_id=game_id, expected_version=legal.version, move=legal.moves[0]),
        tokens[actor],
    )
    again = pb.PlayRequest(game_id=game_id, expected_version=legal.version, move=legal.moves[0])
    failure = refused(api.call, "Play", again, tokens[actor])
    assert failure.code == "resource_exhausted"
    assert failure.detail(error_details_pb2.ErrorInfo).reason == "MOVE_RATE_EXCEEDED"
    assert failure.detail(error_details_pb2.RetryInfo).retry_delay.seconds > 0
    subject = failure.detail(error_details_pb2.QuotaFailure).violations[0].subject
    assert subject.startswith(f"seat:{game_id}/")


def test_open_games_per_client_count_the_client_a_header_names(limited_api: Api) -> None:
    api = limited_api
    me = client_id()
    for _ in range(2):
        api.call(
            "CreateGame",
            pb.CreateGameRequest(allow_unkeyed_seats=True, options=options(), seat_count=2),
            headers=me,
        )
    create = pb.CreateGameRequest(allow_unkeyed_seats=True, options=options(), seat_count=2)
    failure = refused(api.call, "CreateGame", create, headers=me)
    assert failure.code == "resource_exhausted"
    assert failure.detail(error_details_pb2.ErrorInfo).reason == "TOO_MANY_OPEN_GAMES"
    quota = failure.detail(error_details_pb2.QuotaFailure)
    assert quota.violations[0].subject == f"client:id:{me['x-test-client']}"
    api.call("CreateGame", create, headers=client_id())  # another client may


def test_open_streams_per_client_and_per_connection(limited_api: Api) -> None:
    """A second open stream is refused. Over gRPC both share one connection, so the
    per-connection limit refuses it; a browser's streams each have a connection of their
    own, and the per-client limit refuses it: the limits see the browser, not the web
    port's one loopback connection to the gRPC server."""
    api = limited_api
    me = client_id()
    game_id, tokens, _ = seat_table(api, headers=client_id())
    first = api.stream("Watch", pb.WatchRequest(game_id=game_id), tokens[0], headers=me)
    assert next(first).event.version == 1
    try:
        failure = refused(
            lambda: next(api.stream("Watch", pb.WatchRequest(game_id=game_id), headers=me))
        )
        assert failure.code == "resource_exhausted"
        assert failure.detail(error_details_pb2.ErrorInfo).reason == "TOO_MANY_STREAMS"
        subject = failure.detail(error_details_pb2.QuotaFailure).violations[0].subject
        if api.name == "grpc":
            assert subject.startswith("connection:ipv4:127.0.0.1:")
        else:
            assert subject == f"client:id:{me['x-test-client']}"
    finally:
        first.close()  # type: ignore[attr-defined]
    # once the first stream is closed, its count is given back
    for _ in range(50):
        try:
            again = api.stream("Watch", pb.WatchRequest(game_id=game_id), headers=me)
            assert next(again).event.version == 1
            again.close()  # type: ignore[attr-defined]
            break
        except Failure:
            threading.Event().wait(0.1)
    else:
        raise AssertionError("the closed stream still counts")


# --- what only bytes can say -------------------------------------------------------------------


def test_a_request_over_the_size_limit_is_refused_with_its_quota(api: Api) -> None:
    game_id = api.call(
        "CreateGame",
        pb.CreateGameRequest(allow_unkeyed_seats=True, options=options(), seat_count=2),
    ).game_id
    huge = pb.JoinGameRequest(game_id=game_id, seat=0, player_name="长" * 400_000)  # 1.2 MB
    failure = refused(api.call, "JoinGame", huge)
    assert failure.code == "resource_exhausted"
    assert failure.detail(error_details_pb2.ErrorInfo).reason == "MESSAGE_TOO_LARGE"
    assert failure.detail(error_details_pb2.QuotaFailure).violations[0].subject == "request"


def post(port: int, path: str, body: bytes, content_type: str) -> tuple[int, bytes]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=body,
        method="POST",
        headers={"content-type": content_type},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def test_a_malformed_request_is_refused_as_over_grpc(server: ServerProcess) -> None:
    """Bytes that are no GetViewRequest, and JSON that is none: INVALID_ARGUMENT with the
    BadRequest the gRPC server gives malformed bytes (server/transport/limits.py)."""
    garbage = b"\x0a\xff\xff\xff"
    with grpc.insecure_channel(server.target) as channel:
        raw = channel.unary_unary("/tabletop.v1.TableService/GetView")
        with pytest.raises(grpc.RpcError) as e:
            raw(garbage, timeout=10)
        native = rpc_status.from_call(e.value)  # type: ignore[arg-type]
    assert native is not None and native.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    for body, ctype in (
        (garbage, "application/proto"),
        (b'{"gameId": [1', "application/json"),
        (b'{"noSuchField": 1, "gameId": 5}', "application/json"),
    ):
        status, data = post(server.web_port or 0, "/tabletop.v1.TableService/GetView", body, ctype)
        assert status == 400, (body, data)
        error = json.loads(data)
        assert error["code"] == "invalid_argument"
        assert error["message"] == native.message
        detail = any_pb2.Any(type_url=f"type.googleapis.com/{error['details'][0]['type']}")
        value = error["details"][0]["value"]
        detail.value = base64.b64decode(value + "=" * (-len(value) % 4))
        assert detail == native.details[0]
    assert isinstance(native, status_pb2.Status)


def test_a_native_grpc_call_on_the_web_port_is_pointed_to_the_grpc_port(
    server: ServerProcess,
) -> None:
    status, data = post(
        server.web_port or 0, "/tabletop.v1.TableService/GetSigningKey", b"", "application/grpc"
    )
    assert status == 415 and b"gRPC port" in data


def test_a_browser_reads_the_leaderboards_through_connect(server: ServerProcess) -> None:
    """RatingsService answers on the web port as on the gRPC port (issue 40): a kind's board,
    one player's rating, and a bad argument named as over gRPC."""
    path = "/tabletop.v1.RatingsService/"
    status, body = post(
        server.web_port, path + "ListLeaderboard", b'{"kind": "huaniao"}', "application/json"
    )
    assert status == 200, body
    assert json.loads(body).get("ratings", []) == []  # nobody rated on this server
    status, body = post(
        server.web_port,
        path + "GetRating",
        b'{"kind": "zipai", "player": "p1"}',
        "application/json",
    )
    assert status == 200 and json.loads(body)["rating"]["mu"] == 25, body
    status, body = post(
        server.web_port, path + "GetRating", b'{"kind": "chess", "player": "p"}', "application/json"
    )
    assert status == 400 and json.loads(body)["code"] == "invalid_argument", body
    assert "kind" in json.loads(body)["message"], body
