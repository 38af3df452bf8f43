"""PlaySession (issue 38): a seat's Watch and its Plays on one call, through a real server.

What it must keep of Watch and Play: every event once, each Play answered in order, a
refused Play a message that appends nothing (the session goes on), a seat's moves only its
own and signed, a retried request_id played once; and what a stream owes the server: a
client that does not read holds up its own Plays, not the server's memory."""

from __future__ import annotations

import random
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2

from clients.python.client import TableClient
from clients.python.seat import SeatClient
from clients.python.serverproc import ServerProcess
from clients.python.session import PlaySession, Refused
from server.wire import seatsig
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.v1 import tabletop_pb2_grpc as pb_grpc
from tests.api.helpers import seated_game
from tests.api.test_ecosystem import sample, scrape
from tests.hardening.common import metrics_port

SERVICE = "tabletop.v1.TableService"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(
        tmp_path_factory.mktemp("session"),
        extra=["--metrics-port", "0", "--log-format", "text", "--allow-prepared-deals"],
    ).start()
    assert metrics_port(proc)
    yield proc
    proc.cleanup()


def version_of(client: TableClient, game_id: str) -> int:
    return int(client.view(game_id).version)


def session_bot(
    seat: SeatClient, rng: random.Random, got: list[pb.PlaySessionResponse], plays: list[int]
) -> None:
    """Play a random legal move at every turn the session says is this seat's."""
    session = PlaySession(seat, exclude_own_moves=True)
    done = 0
    try:
        for message in session:
            got.append(message)
            which = message.WhichOneof("response")
            if which == "refused":
                assert message.refused.code == grpc.StatusCode.ABORTED.value[0], message
                continue  # another seat moved first: the stream brings the next turn
            reply = message.watch if which == "watch" else message.played
            if reply.HasField("legal_moves") and reply.legal_moves.version > done:
                done = reply.legal_moves.version
                session.play(rng.choice(list(reply.legal_moves.moves)), done)
                plays.append(done)
    finally:
        session.cancel()


@pytest.mark.parametrize("seats", [4, 3])
def test_seats_play_a_whole_game_on_their_sessions(
    server: ServerProcess, client: TableClient, seats: int
) -> None:
    seed = random.randrange(1 << 30)
    before = scrape(server)
    game_id, players, _ = seated_game(client, seed=seed % 10_000, seats=seats)
    got: list[list[pb.PlaySessionResponse]] = [[] for _ in players]
    plays: list[list[int]] = [[] for _ in players]
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            session_bot(players[i], random.Random(seed + i), got[i], plays[i])
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(seats)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, (errors, seed)
    assert not any(t.is_alive() for t in threads), f"a session did not end (seed {seed})"
    view = client.view(game_id)
    assert view.phase == pb.GAME_PHASE_FINISHED, f"seed {seed}"
    for i, messages in enumerate(got):
        # every version reached the seat exactly once: its stream's, or its own Play replies
        versions = [
            e.version
            for m in messages
            for e in (m.watch.events if m.HasField("watch") else m.played.events)
        ]
        assert sorted(versions) == list(range(1, view.version + 1)), (i, seed)
        played = [m.played for m in messages if m.HasField("played")]
        assert all(p.receipt.signature for p in played), "each Play reply carries its receipt"
    # moves are counted as Play's are; the session is a stream of its own kind
    deadline = time.monotonic() + 5
    ok = sum(len([m for m in ms if m.HasField("played")]) for ms in got)
    while True:
        after = scrape(server)
        ended = sample(
            after,
            "grpc_server_handled_total",
            grpc_service=SERVICE,
            grpc_method="PlaySession",
            grpc_type="bidi_stream",
            grpc_code="OK",
        ) - sample(
            before,
            "grpc_server_handled_total",
            grpc_service=SERVICE,
            grpc_method="PlaySession",
            grpc_type="bidi_stream",
            grpc_code="OK",
        )
        if ended >= seats or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert ended == seats
    counted = sum(  # a game move, or a table move (误操作, a report) a random seat chose
        sample(after, "tabletop_moves_appended_total", kind=kind)
        - sample(before, "tabletop_moves_appended_total", kind=kind)
        for kind in ("huaniao", "table")
    )
    assert counted >= ok > 0  # (other tests' games may move meanwhile: at least ours)


def first_turn(
    session: PlaySession,
) -> tuple[Iterator[pb.PlaySessionResponse], pb.LegalMovesResponse]:
    messages = iter(session)
    for message in messages:
        if message.HasField("watch") and message.watch.HasField("legal_moves"):
            return messages, message.watch.legal_moves
    raise AssertionError("the session ended before the seat's turn")


def answer(messages: Iterator[pb.PlaySessionResponse]) -> pb.PlaySessionResponse:
    """The next Play answer (the stream's own messages in between are passed over)."""
    for message in messages:
        if not message.HasField("watch"):
            return message
    raise AssertionError("the session ended without an answer")


def rich(refusal: pb.PlaySessionRefusal, kind: type) -> Any:
    status = Refused(refusal).status
    assert status.code == refusal.code and status.message == refusal.message
    for detail in status.details:
        if detail.Is(kind.DESCRIPTOR):
            found = kind()
            detail.Unpack(found)
            return found
    raise AssertionError(f"no {kind.__name__} in {status}")


def test_a_refused_play_is_a_message_appends_nothing_and_the_session_goes_on(
    client: TableClient,
) -> None:
    game_id, players, _ = seated_game(client, seed=41)
    mover = next(p for p in players if p.legal_moves().moves)
    session = PlaySession(mover)
    messages, turn = first_turn(session)
    at = version_of(client, game_id)
    assert turn.version == at
    # a stale version: ABORTED, named by its request_id
    session.play(turn.moves[0], at - 1, request_id="stale")
    refused = answer(messages).refused
    assert refused.code == grpc.StatusCode.ABORTED.value[0]
    assert (refused.request_id, refused.expected_version) == ("stale", at - 1)
    # a move that is no legal move of the seat's: refused by the rules, with its reason
    illegal = pb.Move(huaniao=huaniao_pb2.Command(end_turn=huaniao_pb2.EndTurn()))
    session.play(illegal, at, request_id="illegal")
    refused = answer(messages).refused
    assert refused.code in (
        grpc.StatusCode.FAILED_PRECONDITION.value[0],
        grpc.StatusCode.INVALID_ARGUMENT.value[0],
    ), refused
    assert refused.request_id == "illegal" and refused.status_details
    # a second WatchRequest: refused, the field named
    session.send(pb.PlaySessionRequest(watch=pb.WatchRequest(game_id=game_id)))
    refused = answer(messages).refused
    assert refused.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert rich(refused, error_details_pb2.BadRequest).field_violations[0].field == "play"
    assert version_of(client, game_id) == at, "a refused Play appended something"
    # and the session goes on: the legal move plays
    session.play(turn.moves[0], at, request_id="good")
    played = answer(messages).played
    assert played.version > at and played.events[0].version == at + 1
    assert version_of(client, game_id) == played.version
    session.cancel()


def test_a_seat_plays_only_its_own_signed_moves(client: TableClient) -> None:
    game_id, players, _ = seated_game(client, seed=43)
    mover = next(p for p in players if p.legal_moves().moves)
    other = next(p for p in players if p is not mover)
    legal = mover.legal_moves()
    at = legal.version
    # another seat's session sends the mover's move (signed with its own key): not its seat
    session = PlaySession(other)
    messages = iter(session)
    request = pb.PlayRequest(game_id=game_id, expected_version=at, move=legal.moves[0])
    session.send(pb.PlaySessionRequest(play=other._sign(request, "Play", at)))
    refused = answer(messages).refused
    assert refused.code in (
        grpc.StatusCode.PERMISSION_DENIED.value[0],
        grpc.StatusCode.FAILED_PRECONDITION.value[0],
        grpc.StatusCode.INVALID_ARGUMENT.value[0],
    ), refused
    session.cancel()
    # the mover's own session, unsigned: its key must sign every move
    session = PlaySession(mover)
    messages = iter(session)
    unsigned = pb.PlayRequest(game_id=game_id, expected_version=at, move=legal.moves[0])
    session.send(pb.PlaySessionRequest(play=unsigned))
    refused = answer(messages).refused
    assert refused.code == grpc.StatusCode.PERMISSION_DENIED.value[0], refused
    assert rich(refused, error_details_pb2.ErrorInfo).reason == "SEAT_SIGNATURE_REQUIRED"
    # signed by another seat's key: refused too
    forged = pb.PlayRequest(game_id=game_id, expected_version=at, move=legal.moves[0])
    forged.seat_signature.CopyFrom(
        seatsig.sign(other.seat_key, game_id, "Play", at, mover._hash_at(at), forged)
    )
    session.send(pb.PlaySessionRequest(play=forged))
    refused = answer(messages).refused
    assert refused.code == grpc.StatusCode.PERMISSION_DENIED.value[0], refused
    session.cancel()
    # a spectator's session watches, and may not play
    spectator = client.as_viewer(game_id)
    session = PlaySession(spectator)
    messages = iter(session)
    session.send(pb.PlaySessionRequest(play=unsigned))
    refused = answer(messages).refused
    assert refused.code == grpc.StatusCode.PERMISSION_DENIED.value[0], refused
    session.cancel()
    assert version_of(client, game_id) == at, "nothing was appended"


def test_a_retried_request_id_is_played_once(client: TableClient) -> None:
    game_id, players, _ = seated_game(client, seed=47)
    mover = next(p for p in players if p.legal_moves().moves)
    legal = mover.legal_moves()
    session = PlaySession(mover)
    messages = iter(session)
    session.play(legal.moves[0], legal.version, request_id="once")
    session.play(legal.moves[0], legal.version, request_id="once")  # the same signed bytes
    first, again = answer(messages).played, answer(messages).played
    assert first.version == again.version and list(first.events) == list(again.events)
    assert version_of(client, game_id) == first.version
    session.cancel()


def test_a_session_must_open_with_a_watch_request(
    server: ServerProcess, client: TableClient
) -> None:
    game_id, players, _ = seated_game(client, seed=53)
    legal = next(p.legal_moves() for p in players if p.legal_moves().moves)
    at = legal.version
    with grpc.insecure_channel(server.target) as channel:
        call = pb_grpc.TableServiceStub(channel).PlaySession(
            iter(
                [pb.PlaySessionRequest(play=pb.PlayRequest(game_id=game_id, move=legal.moves[0]))]
            ),
            metadata=players[0].metadata,
            timeout=30,
        )
        with pytest.raises(grpc.RpcError) as err:
            list(call)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "WatchRequest" in (err.value.details() or "")
    assert version_of(client, game_id) == at


def test_a_client_that_does_not_read_holds_up_its_own_plays(
    server: ServerProcess, client: TableClient
) -> None:
    """Plays sent without reading the answers: the server stops taking them once its
    bounded queue and the transport's windows are full, and answers every one, in order,
    once the client reads; nothing is appended."""
    game_id, players, _ = seated_game(client, seed=59)
    mover = next(p for p in players if p.legal_moves().moves)
    legal = mover.legal_moves()
    at = legal.version
    sent = 5_000
    handed = [0]
    head = mover._hash_at(at - 1)
    stale = []
    for i in range(sent):
        request = pb.PlayRequest(
            game_id=game_id, expected_version=at - 1, move=legal.moves[0], request_id=f"r{i}"
        )
        assert mover.seat_key is not None
        request.seat_signature.CopyFrom(
            seatsig.sign(mover.seat_key, game_id, "Play", at - 1, head, request)
        )
        stale.append(request)

    def requests() -> Iterator[pb.PlaySessionRequest]:
        yield pb.PlaySessionRequest(watch=pb.WatchRequest(game_id=game_id, batched=True))
        for request in stale:
            handed[0] += 1
            yield pb.PlaySessionRequest(play=request)

    # a client with a small receive window (no BDP probing), reading nothing for a while
    with grpc.insecure_channel(server.target, options=[("grpc.http2.bdp_probe", 0)]) as channel:
        call = pb_grpc.TableServiceStub(channel).PlaySession(
            requests(), metadata=mover.metadata, timeout=120
        )
        readings = []
        for _ in range(6):
            time.sleep(1.0)
            readings.append(handed[0])
        assert readings[-1] == readings[-2] == readings[-3], f"still taking Plays: {readings}"
        assert readings[-1] < sent, "the server took every Play while nobody read its answers"
        answers = []
        for message in call:
            if not message.HasField("watch"):
                answers.append(message.refused)
                if len(answers) == sent:
                    call.cancel()
                    break
    assert [a.request_id for a in answers] == [f"r{i}" for i in range(sent)], "in order"
    # ABORTED, or past the seat's move rate (--move-rate) RESOURCE_EXHAUSTED
    codes = {grpc.StatusCode.ABORTED.value[0], grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]}
    assert {a.code for a in answers} <= codes
    assert version_of(client, game_id) == at, "nothing was appended"


def test_a_session_counts_against_the_clients_streams(tmp_path: Path) -> None:
    """A session is a stream (--max-streams-per-client): one more is refused, and a slot
    is free again once a session ends."""
    proc = ServerProcess(
        tmp_path, extra=["--allow-prepared-deals", "--max-streams-per-client", "1"]
    ).start()
    try:
        with TableClient(proc.target) as client:
            game_id, players, _ = seated_game(client, seed=61)
            first = PlaySession(players[0])
            messages = iter(first)
            assert next(messages).HasField("watch")  # open and counted
            second = PlaySession(players[1])
            with pytest.raises(grpc.RpcError) as err:
                next(iter(second))
            assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            first.cancel()
            deadline = time.monotonic() + 10
            while True:  # the cancelled session's slot is released
                again = PlaySession(players[1])
                try:
                    assert next(iter(again)).HasField("watch")
                    break
                except grpc.RpcError as e:
                    assert e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                    assert time.monotonic() < deadline, "the slot was never freed"
                    time.sleep(0.1)
            again.cancel()
    finally:
        proc.stop()


def test_a_server_that_stops_ends_a_session_with_where_to_resume(tmp_path: Path) -> None:
    proc = ServerProcess(tmp_path, extra=["--allow-prepared-deals", "--shutdown-grace", "5"])
    proc.start()
    try:
        with TableClient(proc.target) as client:
            game_id, players, _ = seated_game(client, seed=67)
            at = version_of(client, game_id)
            session = PlaySession(players[2])
            got: list[int] = []
            with pytest.raises(grpc.RpcError) as err:
                for message in session:
                    got += [e.version for e in message.watch.events]
                    if got and got[-1] == at:
                        assert proc.proc is not None
                        proc.proc.send_signal(signal.SIGTERM)
            assert proc.proc is not None and proc.proc.wait(timeout=20) == 0
    finally:
        proc.proc = None
        proc.stop()
    assert err.value.code() == grpc.StatusCode.UNAVAILABLE, err.value
    assert f"after_version={at}" in (err.value.details() or "")
    assert got == list(range(1, at + 1))


def test_a_client_session_leaves_no_thread_behind(client: TableClient) -> None:
    """gRPC's thread that sends a session's requests ends with the session, cancelled or
    refused: left waiting on the request queue, it would block every later fork of the
    process in gRPC's fork handler (a pty subprocess hung the suite that way)."""
    game_id, players, _ = seated_game(client, seed=71)
    before = threading.active_count()
    for seat in players:
        session = PlaySession(seat)
        assert next(iter(session)).HasField("watch")
        session.cancel()
    refused = PlaySession(client.as_viewer(game_id, "no-such-token"))
    with pytest.raises(grpc.RpcError):
        next(iter(refused))
    deadline = time.monotonic() + 10
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert threading.active_count() <= before, threading.enumerate()
