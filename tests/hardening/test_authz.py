"""The authorisation matrix: every RPC x every role, with the status each must get.

Roles: no token, an empty token, a forged token, each of the four seats (the one whose turn
it is and the three others), the table's arbiter, and a seat token and the arbiter token of
*another* game. Every cell runs against a fresh game, checks the status (and for OK cells
what the reply says about the caller's role), and checks that a refused cell appended
nothing. A new RPC without a row fails the test: add its row.

The matrix is about tokens, so its tables admit unkeyed seats (raw, unsigned requests); what
a keyed seat must add, its signature, is tested below it for every seat command.

Below the matrix: tokens are unguessable (``secrets.token_urlsafe``, 192 bits), stored only
as SHA-256 hashes, and compared in constant time (``hmac.compare_digest``): shown by reading
the code path and by watching it run.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import inspect
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from clients.python.client import TOKEN_HEADER, TableClient
from clients.python.serverproc import ServerProcess
from server.usecases import games as service_module
from server.usecases.seats import Seats, new_token
from server.wire import seatsig
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.v1 import tabletop_pb2_grpc as pb_grpc
from tests.api.helpers import huaniao_options
from tests.hardening.common import record_figure, server

OK = grpc.StatusCode.OK
PD = grpc.StatusCode.PERMISSION_DENIED
FP = grpc.StatusCode.FAILED_PRECONDITION
UA = grpc.StatusCode.UNAUTHENTICATED

ROLES = (
    "none",
    "empty",
    "forged",
    "seat0",
    "seat1",
    "seat2",
    "seat3",
    "arbiter",
    "other_seat",
    "other_arbiter",
)
# For Play the seat whose turn it is gets OK and the others FAILED_PRECONDITION (NOT_YOUR_TURN):
ACTOR = "actor"
READ = {  # reads: anyone with no or a valid token of this game; a bad token is refused
    "none": OK,
    "empty": OK,
    "forged": PD,
    "seat0": OK,
    "seat1": OK,
    "seat2": OK,
    "seat3": OK,
    "arbiter": OK,
    "other_seat": PD,
    "other_arbiter": PD,
}
MOVE = {  # a seat's move: the seat whose turn it is (ACTOR); no one else
    "none": PD,
    "empty": PD,
    "forged": PD,
    "seat0": ACTOR,
    "seat1": ACTOR,
    "seat2": ACTOR,
    "seat3": ACTOR,
    "arbiter": PD,
    "other_seat": PD,
    "other_arbiter": PD,
}
MATRIX: dict[str, dict[str, Any]] = {
    "CreateGame": dict.fromkeys(ROLES, OK),  # anyone may open a table; tokens are ignored
    "JoinGame": dict.fromkeys(ROLES, FP),  # a taken seat stays taken, whatever the token
    "StartGame": {
        "none": PD,
        "empty": PD,
        "forged": PD,
        "seat0": OK,
        "seat1": OK,
        "seat2": OK,
        "seat3": OK,
        "arbiter": OK,
        "other_seat": PD,
        "other_arbiter": PD,
    },
    # seats commit to c0..c3 and the call reveals "c0": seat 0's own value is accepted,
    # another seat sending it does not match its commitment; only a seat reveals
    "RevealContribution": {
        "none": PD,
        "empty": PD,
        "forged": PD,
        "seat0": OK,
        "seat1": FP,
        "seat2": FP,
        "seat3": FP,
        "arbiter": PD,
        "other_seat": PD,
        "other_arbiter": PD,
    },
    "Play": MOVE,
    # a PlaySession watches as Watch does and plays as Play does (each Play checked alone)
    "PlaySession": MOVE,
    "PlaySession@watch": READ,
    "LegalMoves": READ,
    "GetView": READ,
    "GetView@past": READ,
    "GetHistory": READ,
    "Watch": READ,
    "Replay": READ,
    # a seat of the match; during hand 1 the next hand is not open yet (NEXT_HAND_NOT_OPEN):
    # a refusal past authorisation
    "ReadyNextHand": {
        "none": PD,
        "empty": PD,
        "forged": PD,
        "seat0": FP,
        "seat1": FP,
        "seat2": FP,
        "seat3": FP,
        "arbiter": PD,
        "other_seat": PD,
        "other_arbiter": PD,
    },
    # a seat of a table drawing a deal from seated seats; at a table playing, nothing to
    # commit to (NOTHING_TO_COMMIT): a refusal past authorisation
    "CommitContribution": {
        "none": PD,
        "empty": PD,
        "forged": PD,
        "seat0": FP,
        "seat1": FP,
        "seat2": FP,
        "seat3": FP,
        "arbiter": PD,
        "other_seat": PD,
        "other_arbiter": PD,
    },
    "GetMatch": READ,  # a match is public; a bad token is still refused
    "GetSigningKey": dict.fromkeys(ROLES, OK),  # the public key is public; tokens are ignored
    # the transparency log is public too (seals and their hashes reveal nothing)
    "GetTreeHead": dict.fromkeys(ROLES, OK),
    "GetInclusionProof": dict.fromkeys(ROLES, OK),
    "GetConsistencyProof": dict.fromkeys(ROLES, OK),
    # only a keyed seat re-keys; the matrix's seats are unkeyed (SEAT_NOT_KEYED)
    "RekeySeat": {
        "none": PD,
        "empty": PD,
        "forged": PD,
        "seat0": FP,
        "seat1": FP,
        "seat2": FP,
        "seat3": FP,
        "arbiter": PD,
        "other_seat": PD,
        "other_arbiter": PD,
    },
    # a player's calls take the app's login (authorization), never a token: none here
    # (tests/api/test_player_logins.py tests them with logins)
    "ListMyGames": dict.fromkeys(ROLES, UA),
    "ResumeSeat": dict.fromkeys(ROLES, UA),
}
MATCH_ROWS = ("ReadyNextHand", "GetMatch")  # these run against the first hand of a match
EXPECTED_ROLE = {"none": pb.ROLE_SPECTATOR, "empty": pb.ROLE_SPECTATOR, "arbiter": pb.ROLE_ARBITER}


@dataclass
class Game:
    game_id: str
    seat_tokens: list[str]
    arbiter: str
    actor: int  # the seat to act (-1 before the start)


@pytest.fixture(scope="module")
def proc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with server(tmp_path_factory.mktemp("authz")) as p:
        yield p


def new_game(
    client: TableClient,
    seed: int,
    start: bool = True,
    match: bool = False,
    commit: bool = False,
    keyed: bool = False,
) -> Game:
    settings = pb.MatchSettings(hands=2) if match else None
    created = client.create_game(
        huaniao_options("BASIC"), 4, seed=seed, match=settings, allow_unkeyed_seats=not keyed
    )
    seats = [
        client.join(created.game_id, s, f"p{s}", contribution=f"c{s}" if commit else "", sign=keyed)
        for s in range(4)
    ]
    actor = -1
    if start:
        seats[0].start()
        actor = client.as_viewer(created.game_id, created.arbiter_token).view().to_act[0]
    return Game(created.game_id, [s.token or "" for s in seats], created.arbiter_token, actor)


def token_of(role: str, game: Game, other: Game) -> str | None:
    return {
        "none": None,
        "empty": "",
        "forged": "f" * 32,
        "arbiter": game.arbiter,
        "other_seat": other.seat_tokens[0],
        "other_arbiter": other.arbiter,
    }.get(role, game.seat_tokens[int(role[-1])] if role.startswith("seat") else None)


def call(
    stub: pb_grpc.TableServiceStub, rpc: str, game: Game, token: str | None, client: TableClient
) -> Any:
    md = () if token is None else ((TOKEN_HEADER, token),)
    gid = game.game_id
    if rpc == "CreateGame":
        return stub.CreateGame(
            pb.CreateGameRequest(options=huaniao_options(), seat_count=4), metadata=md
        )
    if rpc == "JoinGame":
        return stub.JoinGame(pb.JoinGameRequest(game_id=gid, seat=2, player_name="x"), metadata=md)
    if rpc == "StartGame":
        return stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=md)
    if rpc == "RevealContribution":
        request = pb.RevealContributionRequest(game_id=gid, contribution="c0")
        return stub.RevealContribution(request, metadata=md)
    if rpc in ("Play", "PlaySession"):
        actor = client.as_viewer(gid, game.seat_tokens[game.actor])
        legal = actor.legal_moves()
        move = pb.Move()
        move.CopyFrom(legal.moves[0])
        getattr(move.huaniao, move.huaniao.WhichOneof("kind")).seat = 0  # "my seat"
        request = pb.PlayRequest(game_id=gid, expected_version=legal.version, move=move)
        if rpc == "Play":
            return stub.Play(request, metadata=md)
        return session_answer(stub, gid, md, request)
    if rpc == "PlaySession@watch":
        return session_answer(stub, gid, md, None)
    if rpc == "LegalMoves":
        return stub.LegalMoves(pb.LegalMovesRequest(game_id=gid), metadata=md)
    if rpc == "GetView":
        return stub.GetView(pb.GetViewRequest(game_id=gid), metadata=md).view
    if rpc == "GetView@past":
        return stub.GetView(pb.GetViewRequest(game_id=gid, version=2), metadata=md).view
    if rpc == "GetHistory":
        return stub.GetHistory(pb.GetHistoryRequest(game_id=gid), metadata=md)
    if rpc == "Watch":
        stream = stub.Watch(pb.WatchRequest(game_id=gid), metadata=md)
        first = next(stream)
        stream.cancel()
        return first
    if rpc == "Replay":
        return list(stub.Replay(pb.ReplayRequest(game_id=gid, to_version=3), metadata=md))
    if rpc == "ReadyNextHand":
        request = pb.ReadyNextHandRequest(game_id=gid, commitment="c" * 64)
        return stub.ReadyNextHand(request, metadata=md).match
    if rpc == "CommitContribution":
        request = pb.CommitContributionRequest(game_id=gid, commitment="c" * 64)
        return stub.CommitContribution(request, metadata=md)
    if rpc == "GetMatch":
        match_id = client.as_viewer(gid).view().match.match_id
        return stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=md)
    if rpc == "GetSigningKey":
        return stub.GetSigningKey(pb.GetSigningKeyRequest(), metadata=md)
    if rpc in ("GetTreeHead", "GetConsistencyProof"):
        log_id = stub.GetSigningKey(pb.GetSigningKeyRequest()).tree_heads[0].log_id
        if rpc == "GetTreeHead":
            return stub.GetTreeHead(pb.GetTreeHeadRequest(log_id=log_id), metadata=md)
        request = pb.GetConsistencyProofRequest(log_id=log_id, first_size=1)
        return stub.GetConsistencyProof(request, metadata=md)
    if rpc == "GetInclusionProof":
        request = pb.GetInclusionProofRequest(game_id=gid)
        return stub.GetInclusionProof(request, metadata=md)
    if rpc == "RekeySeat":
        key = Ed25519PrivateKey.generate()
        request = pb.RekeySeatRequest(game_id=gid, seat_public_key=seatsig.public_bytes(key))
        request.seat_signature.CopyFrom(seatsig.sign(key, gid, "RekeySeat", 0, "", request))
        return stub.RekeySeat(request, metadata=md)
    if rpc == "ListMyGames":
        return stub.ListMyGames(pb.ListMyGamesRequest(), metadata=md)
    if rpc == "ResumeSeat":
        return stub.ResumeSeat(pb.ResumeSeatRequest(game_id=gid), metadata=md)
    raise AssertionError(f"no way to call {rpc}")


class SessionRefused(grpc.RpcError):
    """A PlaySession's refused Play, as the code a Play call would have ended with."""

    def __init__(self, refusal: pb.PlaySessionRefusal) -> None:
        self.refusal = refusal

    def code(self) -> grpc.StatusCode:
        return next(c for c in grpc.StatusCode if c.value[0] == self.refusal.code)


def session_answer(
    stub: pb_grpc.TableServiceStub,
    game_id: str,
    md: tuple[tuple[str, str], ...],
    play: pb.PlayRequest | None,
) -> Any:
    """A PlaySession's first Watch message (``play`` None), or its answer to ``play``: the
    reply, or a refusal raised as the call's error would be."""
    requests = [pb.PlaySessionRequest(watch=pb.WatchRequest(game_id=game_id))]
    if play is not None:
        requests.append(pb.PlaySessionRequest(play=play))
    stream = stub.PlaySession(iter(requests), metadata=md, timeout=30)
    try:
        for message in stream:
            which = message.WhichOneof("response")
            if play is None:
                return message.watch
            if which == "played":
                return message.played
            if which == "refused":
                raise SessionRefused(message.refused)
        raise AssertionError("the session ended without an answer")
    finally:
        stream.cancel()


def check_reply(rpc: str, role: str, game: Game, reply: Any) -> None:
    seat = int(role[-1]) if role.startswith("seat") else None
    if rpc in ("GetView", "GetView@past"):
        want = EXPECTED_ROLE.get(role, pb.ROLE_SEAT)
        assert reply.role == want, f"{rpc} as {role}: role {reply.role}"
        if seat is not None:
            assert reply.seat == seat
    if rpc == "LegalMoves":
        assert bool(reply.moves) == (seat == game.actor), f"LegalMoves as {role}"
    if rpc == "Replay":
        assert [r.event.version for r in reply] == [1, 2, 3]
    if rpc == "ReadyNextHand":
        assert list(reply.ready) == [seat], f"ReadyNextHand as {role}: ready {reply.ready}"
    if rpc == "GetMatch":
        assert reply.match.current_game_id == game.game_id and reply.facts
    if rpc == "GetSigningKey":
        assert len(reply.public_key) == 32 and reply.algorithm == "ed25519"


def test_the_service_has_a_row_for_every_rpc() -> None:
    methods = {m.name for m in pb.DESCRIPTOR.services_by_name["TableService"].methods}
    rows = {r.split("@")[0] for r in MATRIX}
    assert methods <= rows, f"add rows to MATRIX for {sorted(methods - rows)}"


def test_authorisation_matrix(proc: ServerProcess) -> None:
    problems: list[str] = []
    cells = 0
    with TableClient(proc.target) as client:
        stub = pb_grpc.TableServiceStub(client.channel)
        other = new_game(client, 9_999)
        seed = 1_000
        for rpc, row in MATRIX.items():
            for role in ROLES:
                seed += 1
                waiting = rpc in ("StartGame", "RevealContribution")
                game = new_game(
                    client, seed, not waiting, rpc in MATCH_ROWS, rpc == "RevealContribution"
                )
                expected = row[role]
                if expected == ACTOR:
                    expected = OK if int(role[-1]) == game.actor else FP
                arbiter = client.as_viewer(game.game_id, game.arbiter)
                before = arbiter.view().version
                try:
                    reply = call(stub, rpc, game, token_of(role, game, other), client)
                    got = OK
                except grpc.RpcError as err:
                    got, reply = err.code(), None
                cells += 1
                if got != expected:
                    problems.append(f"{rpc} as {role}: {got.name}, expected {expected.name}")
                    continue
                if got == OK:
                    check_reply(rpc, role, game, reply)
                elif arbiter.view().version != before:
                    problems.append(f"{rpc} as {role} was refused but appended events")
    print(f"authorisation matrix: {cells} cells")
    record_figure("authz", cells=cells, problems=len(problems))
    assert cells == len(MATRIX) * len(ROLES)
    assert not problems, "\n".join(problems)


# the seat commands a fresh table can take (a commitment needs a draw under way: a keyed
# seat's unsigned commitment is refused in tests/api/test_seat_signatures.py)
SEAT_COMMANDS = ("StartGame", "RevealContribution", "Play")


def test_a_keyed_seats_unsigned_commands_are_refused_and_append_nothing(
    proc: ServerProcess,
) -> None:
    """The matrix's seat cells again, at keyed tables: the right seat's token without the
    seat's signature is PERMISSION_DENIED SEAT_SIGNATURE_REQUIRED, before any rule."""
    with TableClient(proc.target) as client:
        stub = pb_grpc.TableServiceStub(client.channel)
        for i, rpc in enumerate(SEAT_COMMANDS):
            waiting = rpc in ("StartGame", "RevealContribution")
            game = new_game(
                client,
                70_000 + i,
                start=not waiting,
                commit=rpc == "RevealContribution",
                keyed=True,
            )
            seat = max(game.actor, 0)
            before = client.as_viewer(game.game_id, game.arbiter).view().version
            with pytest.raises(grpc.RpcError) as refused:
                call(stub, rpc, game, game.seat_tokens[seat], client)
            assert refused.value.code() == PD, f"{rpc}: {refused.value.code()}"
            assert "signature" in (refused.value.details() or ""), rpc
            after = client.as_viewer(game.game_id, game.arbiter).view().version
            assert after == before, f"{rpc} was refused but appended events"


def test_joining_a_free_seat_needs_no_token_and_a_token_grants_none(proc: ServerProcess) -> None:
    with TableClient(proc.target) as client:
        created = client.create_game(huaniao_options(), 4, seed=5, allow_unkeyed_seats=True)
        stub = pb_grpc.TableServiceStub(client.channel)
        reply = stub.JoinGame(
            pb.JoinGameRequest(game_id=created.game_id, seat=1),
            metadata=((TOKEN_HEADER, created.arbiter_token),),
        )
        assert reply.seat == 1 and reply.seat_token != created.arbiter_token
        # the seat token of seat 1 is not a token of seat 0, nor the arbiter's
        as_seat = client.as_viewer(created.game_id, reply.seat_token).view()
        assert as_seat.role == pb.ROLE_SEAT and as_seat.seat == 1


# --- tokens ---------------------------------------------------------------------------


def test_tokens_are_unguessable_and_never_stored(proc: ServerProcess) -> None:
    """Tokens come from ``secrets.token_urlsafe(24)`` (through ``new_token``, which draws
    again a token that would start with "-"): 192 random bits, 32 url-safe characters, all
    distinct; the store holds only their SHA-256."""
    src = inspect.getsource(Seats.create_game)
    src += inspect.getsource(Seats.join_game)
    assert src.count("new_token()") == 2, "tokens must come from new_token"
    assert "secrets.token_urlsafe(24)" in inspect.getsource(new_token), "... and from secrets"
    tokens: list[str] = []
    with TableClient(proc.target) as client:
        for seed in range(20):
            game = new_game(client, 50_000 + seed, start=False)
            tokens += [game.arbiter, *game.seat_tokens]
    assert len(set(tokens)) == len(tokens)
    for t in tokens:
        assert len(t) == 32 and len(base64.urlsafe_b64decode(t + "==")) == 24
    stored = b"".join(
        bytes(str(row), "utf-8")
        for row in sqlite3.connect(Path(proc.data_dir) / "games.sqlite").execute(
            "SELECT * FROM stored_events"
        )
    )
    leaked = [t for t in tokens if t.encode() in stored]
    assert not leaked, "a token was stored in the clear"
    hashed = [t for t in tokens if hashlib.sha256(t.encode()).hexdigest().encode() in stored]
    assert hashed or b"token_hash" in stored


def test_tokens_are_compared_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """authenticate() compares the presented token's hash with every stored hash through
    hmac.compare_digest, and never with ``==`` (the code path, read and run)."""
    import asyncio

    from domain.engine import Role
    from server.startup.compose import table_server
    from server.store.eventstore import TableApplication
    from server.usecases.games import Games

    src = inspect.getsource(Games.authenticate)
    assert "hmac.compare_digest" in src
    assert "== agg" not in src and "token_hash ==" not in src and "== info" not in src

    compared: list[tuple[str, str]] = []
    real: Callable[..., bool] = hmac.compare_digest

    def spy(a: Any, b: Any) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(service_module.hmac, "compare_digest", spy)

    async def run() -> None:
        ts = table_server(
            TableApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}),
            allow_prepared_deals=True,  # seeded and prepared tables: reproducible hunts
        )
        try:
            from domain.huaniao.options import Mode, Options

            gid, _, arbiter = await ts.seats.create_game(
                "huaniao", Options(mode=Mode.BASIC), 4, 1, allow_unkeyed_seats=True
            )
            seat_tokens = [(await ts.seats.join_game(gid, s, f"p{s}"))[0] for s in range(4)]
            compared.clear()
            viewer = await ts.games.authenticate(gid, seat_tokens[3])
            assert viewer.role is Role.SEAT and viewer.seat == 3
            assert len(compared) >= 4  # the arbiter's hash and seats 0..3, each in constant time
            compared.clear()
            from server.usecases.games import PermissionDenied

            with pytest.raises(PermissionDenied):
                await ts.games.authenticate(gid, "x" * 32)
            assert len(compared) == 5  # a forged token is compared with every hash
            assert (await ts.games.authenticate(gid, arbiter)).role is Role.ARBITER
        finally:
            ts.games.close()

    asyncio.run(run())
