"""The limits of server/transport/limits.py, each set low, each refusing with RESOURCE_EXHAUSTED and a
detail, and each leaving the games untouched.

The server runs with ``--client-id-header x-client-id`` so that one test process can act
as several clients; without the flag a client is its IP address (see server/transport/limits.py).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2

from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TOKEN_HEADER, TableClient, reveal_and_start
from clients.python.serverproc import ServerProcess
from server.transport.limits import Limits, LimitSettings, peer_host
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.v1 import tabletop_pb2_grpc as pb_grpc
from tests.api.helpers import history_versions, huaniao_options, seated_game
from tests.hardening.common import detail, server

RE = grpc.StatusCode.RESOURCE_EXHAUSTED
FLAGS = (
    "--max-message-bytes",
    "4096",
    "--max-streams-per-connection",
    "3",
    "--max-streams-per-client",
    "5",
    "--max-open-games-per-client",
    "3",
    "--client-id-header",
    "x-client-id",
    "--move-rate",
    "0",
    "--finished-game-cooldown",
    "0",
)


@pytest.fixture(scope="module")
def proc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with server(tmp_path_factory.mktemp("limits"), *FLAGS) as p:
        yield p


def exhausted(err: grpc.RpcError, reason: str) -> error_details_pb2.QuotaFailure:
    assert err.code() == RE, f"{err.code()}: {err.details()}"
    info = detail(err, error_details_pb2.ErrorInfo)
    assert info.reason == reason and info.metadata["limit"]
    quota: error_details_pb2.QuotaFailure = detail(err, error_details_pb2.QuotaFailure)
    assert quota.violations[0].subject and quota.violations[0].description
    return quota


def md(client: str, token: str | None = None) -> tuple[tuple[str, str], ...]:
    out = (("x-client-id", client),)
    return out + ((TOKEN_HEADER, token),) if token else out


def test_request_size(proc: ServerProcess) -> None:
    with TableClient(proc.target) as client:
        game_id, seats, arbiter = seated_game(client, seed=3)
        before = history_versions(client, game_id, arbiter)
        stub = pb_grpc.TableServiceStub(client.channel)
        with pytest.raises(grpc.RpcError) as e:  # over the limit: refused with a detail
            stub.JoinGame(pb.JoinGameRequest(game_id=game_id, seat=1, player_name="x" * 5000))
        exhausted(e.value, "MESSAGE_TOO_LARGE")
        with pytest.raises(grpc.RpcError) as e:  # far over it: the transport refuses it
            stub.GetView(pb.GetViewRequest(game_id="x" * 20_000))
        assert e.value.code() == RE
        assert history_versions(client, game_id, arbiter) == before
        assert stub.GetView(pb.GetViewRequest(game_id=game_id)).view.version == before[-1]


def test_streams_per_connection_and_per_client(proc: ServerProcess) -> None:
    with TableClient(proc.target) as client:
        game_id, _, _ = seated_game(client, seed=4)
        stub = pb_grpc.TableServiceStub(client.channel)
        open_ = [stub.Watch(pb.WatchRequest(game_id=game_id), metadata=md("a")) for _ in range(3)]
        for s in open_:
            next(s)  # each stream is open and answering
        with pytest.raises(grpc.RpcError) as e:
            next(stub.Watch(pb.WatchRequest(game_id=game_id), metadata=md("b")))
        quota = exhausted(e.value, "TOO_MANY_STREAMS")
        assert quota.violations[0].subject.startswith("connection:")
        open_.pop().cancel()
        time.sleep(0.2)
        again = stub.Watch(pb.WatchRequest(game_id=game_id), metadata=md("a"))
        next(again)  # a slot freed by a closed stream is reusable
        # per client: client "a" has 3 streams; two more on other connections, then refused
        channels = [grpc.insecure_channel(proc.target, options=[("x.c", i)]) for i in range(3)]
        try:
            stubs = [pb_grpc.TableServiceStub(c) for c in channels]
            more = [
                stubs[i].Watch(pb.WatchRequest(game_id=game_id), metadata=md("a")) for i in (0, 1)
            ]
            for s in more:
                next(s)
            with pytest.raises(grpc.RpcError) as e:
                next(stubs[2].Watch(pb.WatchRequest(game_id=game_id), metadata=md("a")))
            quota = exhausted(e.value, "TOO_MANY_STREAMS")
            assert quota.violations[0].subject == "client:id:a"
            other = stubs[2].Watch(pb.WatchRequest(game_id=game_id), metadata=md("c"))
            next(other)  # another client is not affected
            for s in [*open_, again, *more, other]:
                s.cancel()
        finally:
            for c in channels:
                c.close()


def test_open_games_per_client(proc: ServerProcess) -> None:
    with TableClient(proc.target) as client:
        stub = pb_grpc.TableServiceStub(client.channel)

        def create(who: str) -> pb.CreateGameResponse:
            return stub.CreateGame(
                pb.CreateGameRequest(options=huaniao_options("SIMPLE"), seat_count=4, seed=9),
                metadata=md(who),
            )

        games = [create("g") for _ in range(3)]
        with pytest.raises(grpc.RpcError) as e:
            create("g")
        exhausted(e.value, "TOO_MANY_OPEN_GAMES")
        create("h")  # another client may
        # finishing one of its games frees a slot
        gid = games[0].game_id
        seats = [client.join(gid, s, f"p{s}") for s in range(4)]
        reveal_and_start(seats)
        play_to_end([RandomBot(s, i) for i, s in enumerate(seats)])
        assert client.as_viewer(gid).view().phase == pb.GAME_PHASE_FINISHED
        create("g")
        with pytest.raises(grpc.RpcError) as e:
            create("g")
        exhausted(e.value, "TOO_MANY_OPEN_GAMES")


def seat_to_act(
    client: TableClient, keyed: bool = True
) -> tuple[str, list[Any], str, Any, Any, list[int]]:
    """A started table: its id, seats, arbiter token, the seat to act, its legal moves and
    the history's versions (``keyed=False``: unkeyed seats, for raw unsigned Plays)."""
    game_id, seats, arbiter = seated_game(client, seed=6, keyed=keyed)
    actor = seats[client.as_viewer(game_id).view().to_act[0]]
    return (
        game_id,
        seats,
        arbiter,
        actor,
        actor.legal_moves(),
        history_versions(client, game_id, arbiter),
    )


def test_move_rate_per_seat(tmp_path: Path) -> None:
    # one Play a second refills the bucket: the four Plays below need not fit in 100 ms (at
    # ten a second they did not, once, on a loaded machine)
    with (
        server(tmp_path, "--move-rate", "1", "--move-burst", "3") as proc,
        TableClient(proc.target) as client,
    ):
        game_id, seats, arbiter, actor, legal, before = seat_to_act(client)
        codes = []
        for _ in range(3):  # the burst: stale moves, refused by the rules but counted
            with pytest.raises(grpc.RpcError) as e:
                actor.play(legal.moves[0], legal.version - 1)
            codes.append(e.value.code())
        assert codes == [grpc.StatusCode.ABORTED] * 3
        with pytest.raises(grpc.RpcError) as e:  # the fourth at once: the bucket is empty
            actor.play(legal.moves[0], legal.version)
        exhausted(e.value, "MOVE_RATE_EXCEEDED")
        retry = detail(e.value, error_details_pb2.RetryInfo)
        wait = retry.retry_delay.ToMilliseconds() / 1000
        assert 0 < wait <= 1.0 + 1e-9
        assert history_versions(client, game_id, arbiter) == before  # nothing appended
        other = next(s for s in seats if s is not actor)
        other.legal_moves()  # other calls and other seats are not limited
        mine = pb.Move()  # the actor's move with its seat left 0: "my seat" for `other`
        mine.CopyFrom(legal.moves[0])
        getattr(mine.huaniao, mine.huaniao.WhichOneof("kind")).seat = 0
        with pytest.raises(grpc.RpcError) as e:
            other.play(mine, legal.version - 1)
        assert e.value.code() == grpc.StatusCode.ABORTED
        time.sleep(wait + 0.02)
        assert actor.play(legal.moves[0], legal.version).version > legal.version


def spellings(game_id: str) -> list[str]:
    """Ways the server accepts to write one game id (uuid.UUID parses them all)."""
    u = uuid.UUID(game_id)
    return [str(u), str(u).upper(), u.hex, "{" + str(u) + "}", u.urn, u.hex.upper()]


def test_every_spelling_of_a_game_id_shares_one_move_bucket(tmp_path: Path) -> None:
    """Found by the second hardening round: with 16 spellings of one game id, 1,691 of 1,920
    rapid Plays got past a limit of burst 100. The bucket is now keyed by the parsed id."""
    with (
        server(tmp_path, "--move-rate", "1", "--move-burst", "4") as proc,
        TableClient(proc.target) as client,
    ):
        game_id, seats, arbiter, actor, legal, before = seat_to_act(client, keyed=False)
        stub = pb_grpc.TableServiceStub(client.channel)
        codes = []
        for spelling in spellings(game_id):  # stale moves: refused by the rules, but counted
            request = pb.PlayRequest(
                game_id=spelling, move=legal.moves[0], expected_version=legal.version - 1
            )
            with pytest.raises(grpc.RpcError) as e:
                stub.Play(request, metadata=((TOKEN_HEADER, actor.token),))
            codes.append(e.value.code())
        assert codes[:4] == [grpc.StatusCode.ABORTED] * 4, "the burst, whatever the spelling"
        assert codes[4:] == [RE] * (len(codes) - 4), codes
        assert history_versions(client, game_id, arbiter) == before


def test_a_finished_game_still_counts_for_its_cool_down(tmp_path: Path) -> None:
    """Games finished at once (a fast clock, say) must not free their slot at once."""
    flags = (
        "--max-open-games-per-client",
        "1",
        "--client-id-header",
        "x-client-id",
        "--move-rate",
        "0",
        "--finished-game-cooldown",
        "3",
    )
    with server(tmp_path, *flags) as proc, TableClient(proc.target) as client:
        stub = pb_grpc.TableServiceStub(client.channel)
        request = pb.CreateGameRequest(options=huaniao_options("SIMPLE"), seat_count=4, seed=9)
        gid = stub.CreateGame(request, metadata=md("k")).game_id
        seats = [client.join(gid, s, f"p{s}") for s in range(4)]
        reveal_and_start(seats)
        play_to_end([RandomBot(s, i) for i, s in enumerate(seats)])
        assert client.as_viewer(gid).view().phase == pb.GAME_PHASE_FINISHED
        with pytest.raises(grpc.RpcError) as e:  # finished, but within its cool-down
            stub.CreateGame(request, metadata=md("k"))
        exhausted(e.value, "TOO_MANY_OPEN_GAMES")
        time.sleep(3.2)
        assert stub.CreateGame(request, metadata=md("k")).game_id  # the cool-down is over


def test_limit_bookkeeping_in_process() -> None:
    """Unit checks: peers, bucket refill, pruning, stream counting by connection."""
    assert peer_host("ipv4:127.0.0.1:5555") == "127.0.0.1"
    assert peer_host("ipv6:[::1]:5555") == "::1"
    assert peer_host("unix:/tmp/x") == "unix:/tmp/x"
    now = [0.0]
    limits = Limits(LimitSettings(move_rate=2, move_burst=2), clock=lambda: now[0])
    g = uuid.uuid4()
    limits.take_move(g, 1)
    limits.take_move(g, 1)
    with pytest.raises(Exception) as e:
        limits.take_move(g, 1)
    assert getattr(e.value, "reason", "") == "MOVE_RATE_EXCEEDED"
    limits.take_move(g, 2)  # another seat has its own bucket
    now[0] = 0.5
    limits.take_move(g, 1)  # half a second refills one move
    now[0] = 100.0
    limits._prune_buckets(now[0])
    assert not limits._buckets  # idle buckets are forgotten (they would be full anyway)


@pytest.mark.parametrize("limit", [5, 10_000])
def test_open_games_are_counted_exactly_at_the_limit_and_rarely_below_it(limit: int) -> None:
    """A client allowed many games used to have every one of them looked up on each
    CreateGame (O(games) per call). Now they are looked up only at the limit, or when the
    list has doubled since it was last pruned: the refusals are the same, and creating N
    games costs O(N) look-ups in all."""
    looked_up: list[uuid.UUID] = []
    finished: dict[uuid.UUID, float] = {}

    def finished_for(game_id: uuid.UUID) -> float | None:
        looked_up.append(game_id)
        return finished.get(game_id)

    settings = LimitSettings(max_open_games_per_client=limit, finished_game_cooldown=60)
    limits = Limits(settings, finished_for=finished_for)
    created = 0
    for n in range(3000):
        try:
            limits.check_create("c")
        except Exception as e:
            assert getattr(e, "reason", "") == "TOO_MANY_OPEN_GAMES"
            assert created == limit and n == limit, (created, n)
            # a game finished long ago frees its slot; one within its cool-down does not
            first, second = list(limits._games["c"])[:2]
            finished[first] = 30.0
            with pytest.raises(Exception, match="TOO_MANY_OPEN_GAMES|open games"):
                limits.check_create("c")
            finished[second] = 61.0
            limits.check_create("c")
            break
        gid = uuid.uuid4()
        limits.created("c", str(gid))
        created += 1
    else:
        assert limit > 3000
    assert len(looked_up) <= 4 * (created + 64), len(looked_up)  # not created**2 / 2
    if limit > 3000:  # far from the limit: the list is pruned, never counted per call
        for gid in list(limits._games["c"])[:2500]:
            finished[gid] = 61.0
        for _ in range(3000):
            limits.check_create("c")
            limits.created("c", str(uuid.uuid4()))
        assert len(limits._games["c"]) < 2 * 3500 + 64
