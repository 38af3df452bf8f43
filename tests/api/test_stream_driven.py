"""A stream-driven client needs one RPC per move (issue 16): a seat's own Watch says when it
is its turn and what it may do, and a Play reply says the same when the seat moves again.

The legal moves are the seat's own information: they must reach that seat's stream only,
never a spectator's, the arbiter's or another seat's, and they must be exactly what
LegalMoves answers at that version."""

from __future__ import annotations

import collections
import random
import threading
import time
import uuid
from typing import Any

import grpc
import pytest

from clients.python.bot import RandomBot, play_by_streams
from clients.python.client import TableClient, reveal_and_start
from clients.python.receipts import check_payload, payload_bytes
from clients.python.seat import SeatClient
from clients.python.serverproc import ServerProcess
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.zipai.v1 import zipai_pb2
from tests.api.helpers import history_versions, huaniao_options, seated_game


class Counting(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):
    """Counts the calls of each method made through a channel."""

    def __init__(self) -> None:
        self.calls: collections.Counter[str] = collections.Counter()

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        self.calls[details.method.rsplit("/", 1)[-1]] += 1
        return continuation(details, request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        self.calls[details.method.rsplit("/", 1)[-1]] += 1
        return continuation(details, request)


def counted_seats(
    client: TableClient, options: pb.GameOptions, seats: int, counter: Counting
) -> tuple[str, list[SeatClient]]:
    created = client.create_game(options, seats)
    joined = [client.join(created.game_id, s, f"p{s}") for s in range(seats)]
    channel = grpc.intercept_channel(client.channel, counter)
    players = [
        SeatClient(p.target, p.game_id, p.seat, p.token, channel, seat_key=p.seat_key)
        for p in joined
    ]
    reveal_and_start(joined)
    return created.game_id, players


GAMES = [
    ("huaniao", huaniao_options("BASIC"), 4),
    ("huaniao-full", huaniao_options("FULL"), 3),
    ("zipai-3", pb.GameOptions(zipai=zipai_pb2.Options()), 3),
    ("zipai-2", pb.GameOptions(zipai=zipai_pb2.Options()), 2),
]


@pytest.mark.parametrize(("name", "options", "seats"), GAMES, ids=[g[0] for g in GAMES])
def test_bots_play_to_the_end_from_their_streams_alone(
    client: TableClient, name: str, options: pb.GameOptions, seats: int
) -> None:
    seed = random.randrange(1 << 30)
    counter = Counting()
    game_id, players = counted_seats(client, options, seats, counter)
    moves = play_by_streams([RandomBot(p, seed + i) for i, p in enumerate(players)], 300)
    view = client.view(game_id)
    assert view.phase == pb.GAME_PHASE_FINISHED and view.HasField("outcome"), f"seed {seed}"
    # one Watch per seat for the whole game, and no LegalMoves or GetView at all: every move
    # was one Play. (Several seats may hold moves at once, e.g. 误操作 or a claim, so a Play
    # someone beat to it is answered ABORTED and plays nothing: Plays >= moves.)
    assert counter.calls["Watch"] == seats, (counter.calls, seed)
    assert counter.calls["LegalMoves"] == 0 and counter.calls["GetView"] == 0, counter.calls
    assert moves >= 1 and counter.calls["Play"] >= moves, (moves, counter.calls, seed)


def test_a_turn_is_exactly_what_legal_moves_answers_and_reaches_only_its_seat(
    client: TableClient,
) -> None:
    """Step a game by hand: after every move, each stream's messages so far are read; each
    seat the game waits for got its legal moves (equal to LegalMoves at that version) on the
    last message of the move, and no other stream ever carried any."""
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    created = client.create_game(pb.GameOptions(zipai=zipai_pb2.Options()), 3)
    players = [client.join(created.game_id, s, f"p{s}") for s in range(3)]
    watchers = {
        "spectator": client.as_viewer(created.game_id),
        "arbiter": client.as_viewer(created.game_id, created.arbiter_token),
        **{f"seat {p.seat}": p for p in players},
    }
    reveal_and_start(players)
    streams = {name: w.watch_replies() for name, w in watchers.items()}
    for _ in range(40):
        latest = client.view(created.game_id).version
        turns: dict[str, pb.LegalMovesResponse] = {}
        for name, stream in streams.items():
            reply = next(stream)
            while reply.events[-1].version < latest:
                assert not reply.HasField("legal_moves"), (name, reply.events[-1].version, seed)
                reply = next(stream)
            if reply.HasField("legal_moves"):
                turns[name] = reply.legal_moves
        assert "spectator" not in turns and "arbiter" not in turns, (turns.keys(), seed)
        for p in players:  # the seats the game waits for, each as far as it knows
            name, legal = f"seat {p.seat}", p.legal_moves()
            if p.seat in p.view().to_act and legal.moves:
                assert turns.get(name) == legal, (name, seed)
            else:
                assert name not in turns, (name, seed)
        if not turns:
            assert client.view(created.game_id).phase == pb.GAME_PHASE_FINISHED, seed
            return
        name = rng.choice(sorted(turns))
        seat = watchers[name]
        legal = turns[name]
        reply = seat.play(rng.choice(list(legal.moves)), legal.version)
        if reply.HasField("legal_moves"):  # the caller moves again: the reply says with what
            assert reply.legal_moves == seat.legal_moves(), seed
            assert reply.version == reply.legal_moves.version, seed


def test_a_batched_stream_carries_the_same_events_as_one_a_message(
    client: TableClient,
) -> None:
    """``batched`` changes only how events are packed: the same events, the same order, the
    same redaction, and the seat's turn on the last message of each move either way."""
    seed = random.randrange(1 << 30)
    counter = Counting()
    game_id, players = counted_seats(client, huaniao_options("BASIC"), 2, counter)
    play_by_streams([RandomBot(p, seed + i) for i, p in enumerate(players)], 300)
    seat = players[1]
    single = list(seat.stub.Watch(pb.WatchRequest(game_id=game_id), metadata=seat.metadata))
    batched = list(
        seat.stub.Watch(pb.WatchRequest(game_id=game_id, batched=True), metadata=seat.metadata)
    )
    assert all(not r.events for r in single) and all(not r.HasField("event") for r in batched)
    assert [r.event for r in single] == [e for r in batched for e in r.events], seed
    assert len(batched) < len(single), seed


def test_the_server_on_uvloop_serves_stream_driven_games() -> None:
    """``--event-loop uvloop`` (measured in docs/benchmarks.md): the same games, streams and
    receipts on libuv's loop; the log line names the loop in use."""

    seed = random.randrange(1 << 30)
    with ServerProcess(extra=["--event-loop", "uvloop"]) as server:
        client = TableClient(server.target)
        try:
            counter = Counting()
            game_id, players = counted_seats(client, huaniao_options("BASIC"), 4, counter)
            bots = [RandomBot(p, seed + i) for i, p in enumerate(players)]
            moves = play_by_streams(bots, 300)
            view = client.view(game_id)
        finally:
            client.close()
        log = (server.data_dir / "server.log").read_text()
    assert view.phase == pb.GAME_PHASE_FINISHED and moves >= 1, f"seed {seed}"
    assert counter.calls["LegalMoves"] == 0 and counter.calls["Watch"] == 4, counter.calls
    assert "on the uvloop.Loop event loop" in log, log[-2000:]


def _read_all(stream: Any, into: list[pb.WatchResponse]) -> threading.Thread:
    """A thread that reads ``stream`` to its end (or until it is cancelled) into ``into``,
    live, as a client would."""

    def run() -> None:
        try:
            for message in stream:
                into.append(message)
        except grpc.RpcError as ended:
            if ended.code() != grpc.StatusCode.CANCELLED:
                raise

    reader = threading.Thread(target=run, daemon=True)
    reader.start()
    return reader


def _facts(events: Any) -> list[tuple[int, str]]:
    """Each event's version and chain hash: what every viewer is sent alike (the words name
    a card only to those who may see it)."""
    return [(e.version, e.hash) for e in events]


def _moves(messages: list[pb.WatchResponse]) -> dict[int, pb.WatchResponse]:
    """Batched messages by the version of their last event (one move each)."""
    return {m.events[-1].version: m for m in messages}


@pytest.mark.parametrize("seats", [2, 3])
def test_a_seat_that_excludes_its_own_moves_gets_each_of_them_once_from_its_play_reply(
    server_receipts_2: ServerProcess, seats: int
) -> None:
    """``exclude_own_moves``: a 川南字牌 game stepped by hand while every seat follows two
    live streams, one with the flag and one without. The flagged stream is the plain one
    less exactly the moves the seat made with Play (same events, same receipts), and each
    of those came in its Play reply, equal to the plain stream's message; read again from
    the store, the flagged stream leaves out the same moves. On receipts of format 2, whose
    seal every stream shares (with format 3 each stream signs what it sent: docs/api.md)."""
    with TableClient(server_receipts_2.target) as client:
        _excluded_own_moves(client, seats)


def _excluded_own_moves(client: TableClient, seats: int) -> None:
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    created = client.create_game(pb.GameOptions(zipai=zipai_pb2.Options()), seats)
    players = [client.join(created.game_id, s, f"p{s}") for s in range(seats)]
    plain: dict[int, list[pb.WatchResponse]] = {p.seat: [] for p in players}
    flagged: dict[int, list[pb.WatchResponse]] = {p.seat: [] for p in players}
    readers = [_read_all(p.watch_replies(), plain[p.seat]) for p in players]
    readers += [
        _read_all(p.watch_replies(exclude_own_moves=True), flagged[p.seat]) for p in players
    ]
    reveal_and_start(players)
    replies: dict[int, list[pb.PlayResponse]] = {p.seat: [] for p in players}
    for _ in range(600):
        view = client.view(created.game_id)
        if view.phase == pb.GAME_PHASE_FINISHED:
            break
        turns = [(p, legal) for p in players if (legal := p.legal_moves()).moves]
        player, legal = rng.choice(turns)  # (who may claim a card is each seat's own news)
        replies[player.seat].append(player.play(rng.choice(list(legal.moves)), legal.version))
    else:
        pytest.fail(f"the game did not end, seed {seed}")
    for reader in readers:
        reader.join(30)
        assert not reader.is_alive(), f"a stream did not end with the game, seed {seed}"
    last = client.view(created.game_id).version
    for p in players:
        own = {e.version for r in replies[p.seat] for e in r.events}
        every, kept = _moves(plain[p.seat]), _moves(flagged[p.seat])
        assert own and not own & {e.version for m in kept.values() for e in m.events}, seed
        assert list(kept) == [v for v in every if v not in own], (p.seat, seed)
        for version, message in kept.items():
            assert list(message.events) == list(every[version].events), (version, seed)
            assert message.receipt == every[version].receipt, (version, seed)
        for reply in replies[p.seat]:  # each own move: once, in its reply, as streamed
            streamed = every[reply.events[-1].version]
            expected = streamed.receipt
            if reply.version == last:  # the stream shows the end opened up (every hand),
                # the reply the seat's own view of the same seal (docs/api.md): the same
                # facts by version and chain hash, the seat's share of them hashed in its
                # own receipt
                assert _facts(reply.events) == _facts(streamed.events), (reply.version, seed)
                check_payload(reply.receipt, payload_bytes(events=list(reply.events)))
                expected = pb.Receipt()
                expected.CopyFrom(streamed.receipt)
                expected.viewer, expected.nonce = reply.receipt.viewer, reply.receipt.nonce
            else:
                assert list(reply.events) == list(streamed.events), (reply.version, seed)
            assert reply.receipt == expected, (reply.version, seed)
        stored = p.stub.Watch(
            pb.WatchRequest(game_id=created.game_id, batched=True, exclude_own_moves=True),
            metadata=p.metadata,
        )
        assert list(_moves(list(stored))) == list(kept), (p.seat, seed)
        # read from the store a page at a time, a move is still one message with its receipt
        again = list(
            p.stub.Watch(
                pb.WatchRequest(game_id=created.game_id, batched=True), metadata=p.metadata
            )
        )
        assert list(_moves(again)) == list(every), (p.seat, seed)
        assert all(m.HasField("receipt") for m in again), (p.seat, seed)


def test_only_a_seat_may_exclude_its_own_moves(client: TableClient) -> None:
    """A spectator's and the arbiter's streams have no moves of their own: the flag is
    refused by name, and nothing is appended."""
    created = client.create_game(pb.GameOptions(zipai=zipai_pb2.Options()), 3)
    before = client.view(created.game_id).version
    for token in (None, created.arbiter_token):
        watcher = client.as_viewer(created.game_id, token)
        request = pb.WatchRequest(game_id=created.game_id, batched=True, exclude_own_moves=True)
        with pytest.raises(grpc.RpcError) as refused:
            list(watcher.stub.Watch(request, metadata=watcher.metadata))
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "exclude_own_moves" in (refused.value.details() or "")
    assert client.view(created.game_id).version == before


def test_a_lost_play_reply_is_recovered_by_its_retry_not_by_a_stream_that_excludes_it(
    client: TableClient,
) -> None:
    """The fault: a seat's Play reply is lost (its call gives up on a deadline while the
    server may already have stored the move), and the seat's stream leaves its own moves
    out. A retry with the same request_id brings the move, once, with its receipt; the
    seat's flagged stream never carries it, the other seat's stream does."""
    game_id, seats, arbiter = seated_game(client, seed=44, seats=2)
    view = client.as_viewer(game_id).view()
    actor = seats[view.to_act[0]]
    other = seats[1 - actor.seat]
    flagged: list[pb.WatchResponse] = []
    plain: list[pb.WatchResponse] = []
    calls = [
        actor.stub.Watch(
            pb.WatchRequest(game_id=game_id, batched=True, exclude_own_moves=True),
            metadata=actor.metadata,
        ),
        other.stub.Watch(pb.WatchRequest(game_id=game_id, batched=True), metadata=other.metadata),
    ]
    readers = [_read_all(calls[0], flagged), _read_all(calls[1], plain)]
    before = history_versions(client, game_id, arbiter)
    legal = actor.legal_moves()
    rid = uuid.uuid4().hex
    try:
        actor.play(legal.moves[0], legal.version, request_id=rid, timeout=0.0005)
    except grpc.RpcError as lost:
        assert lost.code() == grpc.StatusCode.DEADLINE_EXCEEDED, lost
    reply = actor.play(legal.moves[0], legal.version, request_id=rid)  # the retry
    assert reply.HasField("receipt") and reply.events
    mine = {e.version for e in reply.events}
    after = history_versions(client, game_id, arbiter)
    assert after == before + sorted(mine), "the move is stored once"
    deadline = time.monotonic() + 10
    while not any(e.version in mine for m in plain for e in m.events):
        assert time.monotonic() < deadline, "the other seat's stream never showed the move"
        time.sleep(0.05)
    for call in calls:
        call.cancel()
    for reader in readers:
        reader.join(10)
    assert not any(e.version in mine for m in flagged for e in m.events)
