"""Hostile input through real gRPC: at least 10,000 malformed or adversarial requests.

A seeded generator (tests/hardening/fuzzgen.py) sends, over a real connection to a real
server process:

* raw bytes that are not a valid message (a generic ``channel.unary_unary`` with identity
  serialisers), and valid encodings with bytes flipped, inserted, cut or spliced;
* well-formed messages of every request type with hostile field values: negative and
  overflowing numbers, unknown enum values, odd or huge strings, long repeated fields;
* requests over the size limit (refused with a detail) and far over it (refused by the
  transport), and oversized or garbage tokens;
* against live 花鸟风月 and 川南字牌 games: moves of cards not held (other seats', the
  deck's, ids that do not exist), moves out of turn, stale and future versions, the move of
  another seat, tokens of another seat or another game, the arbiter trying to play, moves on
  finished games, and replays of earlier requests with and without their request_id.

Pass: no INTERNAL or UNKNOWN status; no adversarial move accepted; no rejected call
appended anything (every game's version is checked against the versions of the calls that
succeeded, every 250 requests and at the end, and the store is read directly at the end:
each stored move's request_id belongs to a Play that returned OK); and the server still
answers SERVING to grpc.health.v1. ``HARDENING_FUZZ_REQUESTS`` and ``HARDENING_FUZZ_SEED``
change the run; a failure prints the seed and the requests that failed.
"""

from __future__ import annotations

import collections
import random
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc

from clients.python.client import TOKEN_HEADER
from server.usecases.play import MAX_CONCURRENT
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.v1 import tabletop_pb2_grpc as pb_grpc
from tabletop.zipai.v1 import zipai_pb2
from tests.api.leakhunt import hidden_sets
from tests.hardening.common import BAD_CODES, env_int, record_figure, server
from tests.hardening.fuzzgen import mutate, noise, random_message

REQUESTS = env_int("HARDENING_FUZZ_REQUESTS", 10_000)
SEED = env_int("HARDENING_FUZZ_SEED", 20_261_129)
SERVICE = pb.DESCRIPTOR.services_by_name["TableService"]
CHECK_EVERY = 250
MODES = ("SIMPLE", "BASIC", "REGULAR", "FULL", "PRO")
REFUSED_MOVE = {  # an adversarial move must get one of these, never OK
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
}


@dataclass
class Game:
    game_id: str
    kind: str
    seats: list[str]
    arbiter: str
    version: int
    done: bool = False
    legal_at: int = -1
    legal: dict[int, pb.LegalMovesResponse] = field(default_factory=dict)
    arbiter_view: pb.GameView | None = None


@dataclass
class Sent:
    what: str
    method: str
    code: grpc.StatusCode
    detail: str = ""


class Fuzzer:
    def __init__(self, target: str, seed: int) -> None:
        self.rng = random.Random(seed)
        self.seed = seed
        opts = [
            ("grpc.max_send_message_length", 64 << 20),
            ("grpc.max_receive_message_length", 64 << 20),
        ]
        self.channel = grpc.insecure_channel(target, options=opts)
        self.stub = pb_grpc.TableServiceStub(self.channel)
        self.health = health_pb2_grpc.HealthStub(self.channel)
        self.games: list[Game] = []
        self.finished: list[Game] = []
        self.sent = 0
        self.codes: collections.Counter[tuple[str, str]] = collections.Counter()
        self.problems: list[str] = []
        self.recent: collections.deque[Sent] = collections.deque(maxlen=CHECK_EVERY)
        self.ok_ids: set[tuple[int, str]] = set()  # (seat, request_id) of Plays that returned OK
        self.ok_replies: dict[str, pb.PlayResponse] = {}
        self.played: list[tuple[Game, str, pb.PlayRequest, pb.PlayResponse]] = []

    # --- plumbing ---------------------------------------------------------------------

    def md(self, token: str | None) -> tuple[tuple[str, str], ...]:
        return () if token is None else ((TOKEN_HEADER, token),)

    def note(self, what: str, method: str, code: grpc.StatusCode, detail: str = "") -> None:
        self.sent += 1
        self.codes[(what, code.name)] += 1
        self.recent.append(Sent(what, method, code, detail[:200]))
        if code in BAD_CODES:
            self.problems.append(
                f"seed={self.seed} #{self.sent} {what} {method}: {code.name} {detail[:300]}"
            )

    def raw(
        self, method: str, data: bytes, token: str | None, what: str
    ) -> tuple[grpc.StatusCode, bytes | None]:
        m = SERVICE.methods_by_name.get(method)
        path = f"/tabletop.v1.TableService/{method}"
        try:
            if m is not None and m.server_streaming:
                if m.client_streaming:  # (PlaySession) the one message, then half-closed
                    send: Any = self.channel.stream_stream(path)
                    call = send(iter([data]), metadata=self.md(token), timeout=0.3)
                else:
                    send = self.channel.unary_stream(path)
                    call = send(data, metadata=self.md(token), timeout=0.3)
                for i, _ in enumerate(call):
                    if i >= 2:
                        call.cancel()
                        break
                code, out = grpc.StatusCode.OK, None
            else:
                out = self.channel.unary_unary(path)(data, metadata=self.md(token), timeout=5)
                code = grpc.StatusCode.OK
        except grpc.RpcError as err:
            code, out = err.code(), None
            if code == grpc.StatusCode.CANCELLED:
                code = grpc.StatusCode.OK  # we cancelled a stream that was answering
            self.note(what, method, code, err.details() or "")
            return code, None
        self.note(what, method, code)
        return code, out

    def typed(
        self, method: str, request: Message, token: str | None, what: str
    ) -> tuple[grpc.StatusCode, Any]:
        """Send a message through the typed stub; streams are read a little, then cancelled."""
        m = SERVICE.methods_by_name[method]
        try:
            call = getattr(self.stub, method)
            if m.server_streaming:
                sent: Any = iter([request]) if m.client_streaming else request
                stream = call(sent, metadata=self.md(token), timeout=0.3)
                got = []
                for reply in stream:
                    got.append(reply)
                    if len(got) >= 3:
                        stream.cancel()
                        break
                reply_out: Any = got
            else:
                reply_out = call(request, metadata=self.md(token), timeout=10)
        except grpc.RpcError as err:
            code = err.code()
            if code == grpc.StatusCode.CANCELLED:
                self.note(what, method, grpc.StatusCode.OK)
                return grpc.StatusCode.OK, None
            self.note(what, method, code, err.details() or "")
            return code, None
        self.note(what, method, grpc.StatusCode.OK)
        return grpc.StatusCode.OK, reply_out

    # --- games ------------------------------------------------------------------------

    def new_game(self) -> Game:
        rng = self.rng
        if rng.random() < 0.5:
            options = pb.GameOptions(
                huaniao=huaniao_pb2.Options(
                    mode=huaniao_pb2.Mode.Value(f"MODE_{rng.choice(MODES[:3])}")
                )
            )
            kind, seats = "huaniao", 4
        else:
            options = pb.GameOptions(zipai=zipai_pb2.Options())
            kind, seats = "zipai", rng.choice((2, 3, 4))
        created = self.stub.CreateGame(
            pb.CreateGameRequest(
                options=options,
                seat_count=seats,
                allow_unkeyed_seats=True,
                seed=rng.randrange(2**40),
            )
        )
        tokens = [
            self.stub.JoinGame(pb.JoinGameRequest(game_id=created.game_id, seat=s)).seat_token
            for s in range(seats)
        ]
        start = self.stub.StartGame(
            pb.StartGameRequest(game_id=created.game_id), metadata=self.md(tokens[0])
        )
        game = Game(created.game_id, kind, tokens, created.arbiter_token, start.version)
        self.games.append(game)
        return game

    def refresh(self, game: Game) -> None:
        """The arbiter's view (it names every seat awaited) and the legal moves of one of
        the awaited seats, at the game's version."""
        if game.legal_at == game.version:
            return
        view = self.stub.GetView(
            pb.GetViewRequest(game_id=game.game_id), metadata=self.md(game.arbiter)
        ).view
        game.arbiter_view = view
        game.legal = {}
        if view.to_act:
            s = self.rng.choice(list(view.to_act))
            game.legal[s] = self.stub.LegalMoves(
                pb.LegalMovesRequest(game_id=game.game_id), metadata=self.md(game.seats[s])
            )
        game.legal_at = game.version
        if view.phase == pb.GAME_PHASE_FINISHED:
            game.done = True

    def actor(self, game: Game) -> int | None:
        actors = [s for s, legal in game.legal.items() if legal.moves]
        return actors[0] if actors else None

    def idle_seats(self, game: Game, actor: int) -> list[int]:
        assert game.arbiter_view is not None
        return [s for s in range(len(game.seats)) if s not in game.arbiter_view.to_act]

    def game(self) -> Game:
        live = [g for g in self.games if not g.done]
        while len(live) < 6:
            live.append(self.new_game())
        return self.rng.choice(live)

    def verify_versions(self, final: bool = False) -> None:
        for g in [*self.games, *(self.finished if final else ())]:
            view = self.stub.GetView(
                pb.GetViewRequest(game_id=g.game_id), metadata=self.md(g.arbiter)
            ).view
            if view.version != g.version:
                window = "\n  ".join(
                    f"{s.what} {s.method} {s.code.name} {s.detail}" for s in self.recent
                )
                self.problems.append(
                    f"seed={self.seed}: game {g.game_id} is at v{view.version} but the calls that "
                    f"succeeded took it to v{g.version}; the last requests:\n  {window}"
                )
                g.version = view.version
        self.finished += [g for g in self.games if g.done]
        self.games = [g for g in self.games if not g.done]

    # --- the cases --------------------------------------------------------------------

    def known_strings(self) -> list[str]:
        out = []
        for g in self.games[-4:]:
            out += [g.game_id, g.arbiter, *g.seats]
        return out

    def case_noise(self) -> None:
        if self.rng.random() < 0.1:
            self.other_services()
            return
        method = self.rng.choice([*SERVICE.methods_by_name, "NoSuchMethod"])
        data = noise(self.rng)
        token = self.rng.choice((None, None, "x" * 40, *self.known_strings()[:3]))
        self.raw(method, data, token, "noise")

    def other_services(self) -> None:
        """Noise and mutations for the health and reflection services beside ours."""
        rng = self.rng
        which = rng.choice(("check", "watch", "reflection"))
        valid = health_pb2.HealthCheckRequest(service=rng.choice(("", SERVICE.full_name, "x")))
        data = rng.choice((noise(rng), mutate(valid.SerializeToString(), rng)))
        try:
            if which == "check":
                self.channel.unary_unary("/grpc.health.v1.Health/Check")(data, timeout=5)
            elif which == "watch":
                for _ in self.channel.unary_stream("/grpc.health.v1.Health/Watch")(
                    data, timeout=0.3
                ):
                    break
            else:
                path = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"
                for _ in self.channel.stream_stream(path)(iter([data]), timeout=2):
                    break
            code = grpc.StatusCode.OK
        except grpc.RpcError as err:
            code = err.code()
        self.note("other-services", which, code)

    def case_mutated(self) -> None:
        method, request = self.some_request()
        data = mutate(request.SerializeToString(), self.rng)
        token = self.some_token()
        code, _ = self.raw(method, data, token, "mutated")
        if code == grpc.StatusCode.OK and method in ("Play", "JoinGame", "StartGame", "CreateGame"):
            self.resync(data, method, token)

    def case_fields(self) -> None:
        method, _ = self.some_request()
        cls = getattr(pb, SERVICE.methods_by_name[method].input_type.name)
        request = random_message(cls, self.rng, self.known_strings())
        data = request.SerializeToString()
        if len(data) > (1 << 20):
            what = "huge"
        else:
            what = "fields"
        token = self.some_token()
        code, _ = self.typed(method, request, token, what)
        if code == grpc.StatusCode.OK and method in ("Play", "JoinGame", "StartGame", "CreateGame"):
            self.resync(data, method, token)

    def case_huge(self) -> None:
        rng = self.rng
        g = self.game()
        size = rng.choice(((1 << 20) + 1, (1 << 20) + 1, 2 << 20, 5 << 20))
        method = rng.choice(("CreateGame", "JoinGame", "Play", "GetView", "Watch", "GetHistory"))
        if size > (2 << 20):  # over the transport's limit: one long string is cheap to build
            method = "JoinGame"
        if method == "CreateGame":
            request: Message = pb.CreateGameRequest(
                seat_count=4, deck=[2**31 - 1] * (size // 5 + 1)
            )
        elif method == "JoinGame":
            request = pb.JoinGameRequest(game_id=g.game_id, seat=1, player_name="名" * size)
        elif method == "Play":
            move = pb.Move(huaniao=huaniao_pb2.Command(play=huaniao_pb2.Play(cards=[1, 2, 3])))
            request = pb.PlayRequest(
                game_id=g.game_id, expected_version=g.version, move=move, request_id="r" * size
            )
        else:
            cls = getattr(pb, SERVICE.methods_by_name[method].input_type.name)
            request = cls(game_id=g.game_id + "x" * size)
        assert request.ByteSize() > size
        code, _ = self.typed(method, request, rng.choice((None, g.seats[0])), "huge")
        if code != grpc.StatusCode.RESOURCE_EXHAUSTED:
            self.problems.append(f"seed={self.seed}: a {size}-byte {method} got {code.name}")

    def case_token(self) -> None:
        rng = self.rng
        g = self.game()
        token = rng.choice(
            (
                "",
                "a" * rng.choice((1, 31, 32, 33, 1000, 7000)),  # printable ASCII: the client
                # library refuses to send other header values (INTERNAL, client side)
                g.seats[0][:-1],
                g.seats[0] + "=",
                g.seats[0].upper(),
                " " + g.arbiter,
            )
        )
        if rng.random() < 0.03:  # over gRPC's metadata limit: RESOURCE_EXHAUSTED from the
            token = "a" * 9000  # transport, which also drops the connection (slow: rare)
        method = rng.choice(
            ("StartGame", "Play", "LegalMoves", "GetView", "GetHistory", "Watch", "Replay")
        )
        cls = getattr(pb, SERVICE.methods_by_name[method].input_type.name)
        request = cls(game_id=g.game_id)
        if method == "Play":
            request.expected_version = g.version
            request.move.huaniao.perch.seat = 0
        self.typed(method, request, token, "token")

    def case_adversarial(self) -> None:
        rng = self.rng
        g = self.game()
        self.refresh(g)
        if g.done:
            return
        actor = self.actor(g)
        if actor is None:
            return
        legal = g.legal[actor]
        move = pb.Move()
        move.CopyFrom(rng.choice(list(legal.moves)))
        cmd = getattr(move, move.WhichOneof("game") or g.kind)  # the game's or a table command
        body = getattr(cmd, cmd.WhichOneof("kind") or "")
        attack = rng.choice(
            (
                "not_held",
                "not_held",
                "out_of_turn",
                "stale",
                "other_seat_move",
                "other_game_token",
                "arbiter",
                "spectator",
                "replay",
                "replay",
                "perturb",
                "perturb",
                "finished",
            )
        )
        token: str | None = g.seats[actor]
        version = legal.version
        request_id = uuid.uuid4().hex
        if attack == "not_held":
            assert g.arbiter_view is not None
            theirs = sorted(hidden_sets(g.arbiter_view, len(g.seats))[actor])
            pool = theirs + [-1, 108, 999, 2**31 - 1, -(2**31)]
            for name in ("cards", "card"):
                if name in body.DESCRIPTOR.fields_by_name:
                    fd = body.DESCRIPTOR.fields_by_name[name]
                    if fd.is_repeated:
                        del getattr(body, name)[:]
                        getattr(body, name).extend(
                            rng.choice(pool) for _ in range(rng.randrange(1, 4))
                        )
                    else:
                        setattr(body, name, rng.choice(pool))
                    break
            else:
                attack = "perturb"
        if attack == "perturb":
            random_message(body, rng)
            body.seat = rng.choice((0, actor))
        if attack == "out_of_turn":
            idle = self.idle_seats(g, actor)
            if not idle:
                return
            token = g.seats[rng.choice(idle)]
            body.seat = 0  # "my seat": the idle seat plays the actor's move as its own
        elif attack == "stale":
            version = rng.choice((version - 1, version + 1, 0, -1, 2**63 - 1, version - 5))
        elif attack == "other_seat_move":  # seat 0 would mean "my seat": then the move is stale
            token = g.seats[(actor + rng.randrange(1, len(g.seats))) % len(g.seats)]
            body.seat = actor
            if actor == 0:
                version -= 1
        elif attack == "other_game_token":
            others = [o for o in self.games if o is not g]
            token = rng.choice(rng.choice(others).seats) if others else "x"
        elif attack == "arbiter":
            token = g.arbiter
        elif attack == "spectator":
            token = None
        elif attack == "finished":
            if not self.finished:
                return
            f = rng.choice(self.finished)
            request = pb.PlayRequest(game_id=f.game_id, expected_version=f.version, move=move)
            code, _ = self.typed("Play", request, f.seats[actor % len(f.seats)], "adv:finished")
            self.expect_refused("finished", code)
            return
        if attack == "replay":
            self.case_replay()
            return
        request = pb.PlayRequest(
            game_id=g.game_id, expected_version=version, move=move, request_id=request_id
        )
        code, reply = self.typed("Play", request, token, f"adv:{attack}")
        if code == grpc.StatusCode.OK:
            # a random edit may still be a legal move; a stale answer behind only other seats'
            # answers in the same 川南字牌 claim window is decided by design
            if attack != "perturb" and not self.behind_other_claims(
                g, version, legal.version, actor
            ):
                self.problems.append(f"seed={self.seed}: the {attack} move {move} was accepted")
            self.accepted(g, token, request, reply)
        else:
            self.expect_refused(attack, code)

    def behind_other_claims(self, g: Game, stale: int, current: int, actor: int) -> bool:
        """Whether every fact after ``stale`` up to ``current`` is another seat's answer in a
        claim window (``ClaimMade``, at most MAX_CONCURRENT of them): the server then decides
        the move on the current state instead of ABORTING it (docs/rules/zipai.md, Z3)."""
        if g.kind != "zipai" or not 0 < current - stale <= MAX_CONCURRENT:
            return False
        history = self.stub.GetHistory(
            pb.GetHistoryRequest(game_id=g.game_id, page_size=1000), metadata=self.md(g.arbiter)
        )
        between = [e for e in history.events if stale < e.version <= current]
        return len(between) == current - stale and all(
            e.WhichOneof("body") == "zipai"
            and e.zipai.WhichOneof("kind") == "claim_made"
            and e.zipai.claim_made.seat != actor
            for e in between
        )

    def expect_refused(self, attack: str, code: grpc.StatusCode) -> None:
        if code not in REFUSED_MOVE:
            self.problems.append(f"seed={self.seed}: adversarial {attack} got {code.name}")

    def case_replay(self) -> None:
        """An earlier Play sent again: with its request_id it gets the original reply and
        appends nothing; without one it is a stale move."""
        if not self.played:
            return
        g, token, request, original = self.rng.choice(self.played)
        if self.rng.random() < 0.5:
            code, reply = self.typed("Play", request, token, "replay:same-id")
            if (
                code != grpc.StatusCode.OK
                or reply.version != original.version
                or list(reply.events) != list(original.events)
            ):
                self.problems.append(
                    f"seed={self.seed}: a replayed request_id got {code.name}, not its original reply"
                )
        else:
            again = pb.PlayRequest()
            again.CopyFrom(request)
            again.request_id = ""
            code, _ = self.typed("Play", again, token, "replay:no-id")
            if code == grpc.StatusCode.OK and not g.done:
                self.problems.append(f"seed={self.seed}: a replayed move was played twice")
            self.expect_refused("replay", code)

    def case_valid(self) -> None:
        """A legal move, so that games advance and the states the fuzzer sees vary."""
        g = self.game()
        self.refresh(g)
        actor = self.actor(g)
        if actor is None:
            return
        legal = g.legal[actor]
        request = pb.PlayRequest(
            game_id=g.game_id,
            expected_version=legal.version,
            move=self.rng.choice(list(legal.moves)),
            request_id=uuid.uuid4().hex,
        )
        code, reply = self.typed("Play", request, g.seats[actor], "valid")
        if code != grpc.StatusCode.OK:
            self.problems.append(f"seed={self.seed}: a legal move got {code.name}")
            return
        self.accepted(g, g.seats[actor], request, reply)

    def accepted(
        self, g: Game, token: str | None, request: pb.PlayRequest, reply: pb.PlayResponse
    ) -> None:
        g.version = reply.version
        assert token in g.seats
        self.ok_ids.add((g.seats.index(token), request.request_id))
        self.played.append((g, token, request, reply))
        if len(self.played) > 200:
            self.played.pop(0)

    def resync(self, data: bytes, method: str, token: str | None) -> None:
        """A random or mutated request that happened to succeed: learn what it changed."""
        if method == "Play":
            request = pb.PlayRequest.FromString(data)
            for g in self.games:
                if token in g.seats:
                    self.ok_ids.add((g.seats.index(token), request.request_id))
        for g in self.games:
            g.version = self.stub.GetView(
                pb.GetViewRequest(game_id=g.game_id), metadata=self.md(g.arbiter)
            ).view.version

    def some_request(self) -> tuple[str, Message]:
        """A valid-looking request for a random method, about a live game."""
        g = self.game()
        method = self.rng.choice(list(SERVICE.methods_by_name))
        cls = getattr(pb, SERVICE.methods_by_name[method].input_type.name)
        request = cls()
        if "game_id" in cls.DESCRIPTOR.fields_by_name:
            request.game_id = g.game_id
        if method == "Play":
            self.refresh(g)
            actor = self.actor(g)
            if actor is not None:
                request.move.CopyFrom(g.legal[actor].moves[0])
                request.expected_version = g.version
        return method, request

    def some_token(self) -> str | None:
        g = self.rng.choice(self.games) if self.games else None
        if g is None or self.rng.random() < 0.3:
            return None
        return self.rng.choice([g.arbiter, *g.seats])

    # --- the run ----------------------------------------------------------------------

    def run(self, requests: int) -> None:
        cases = (
            (self.case_noise, 18),
            (self.case_mutated, 20),
            (self.case_fields, 22),
            (self.case_adversarial, 24),
            (self.case_token, 6),
            (self.case_valid, 8),
            (self.case_huge, 0.5),
        )
        fns = [c for c, _ in cases]
        weights = [w for _, w in cases]
        next_check = CHECK_EVERY
        spent: collections.Counter[str] = collections.Counter()
        while self.sent < requests:
            fn = self.rng.choices(fns, weights)[0]
            t0 = time.perf_counter()
            fn()
            spent[fn.__name__] += time.perf_counter() - t0
            if self.sent >= next_check:
                self.verify_versions()
                next_check += CHECK_EVERY
        self.verify_versions(final=True)
        self.spent = spent


def stored_request_ids(db: Path) -> list[tuple[int, str]]:
    """(seat, request_id) of every stored move that carried one, read from SQLite directly."""
    from server.store.eventstore import TableApplication

    app = TableApplication(
        env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(db)}
    )
    try:
        out = []
        for n in app.recorder.select_notifications(start=1, limit=10**9):
            event: Any = app.mapper.to_domain_event(n)
            cause = getattr(event, "cause", None)
            if cause and cause.get("request_id"):
                out.append((int(cause["seat"]), str(cause["request_id"])))
        return out
    finally:
        app.close()


def test_ten_thousand_hostile_requests(tmp_path: Path) -> None:
    started = time.monotonic()
    # the move rate limit is raised so that the fuzzer's moves reach the rules
    with server(tmp_path, "--move-rate", "0") as proc:
        fuzzer = Fuzzer(proc.target, SEED)
        try:
            fuzzer.run(REQUESTS)
            health = fuzzer.health.Check(health_pb2.HealthCheckRequest(service=""), timeout=5)
            alive = proc.proc is not None and proc.proc.poll() is None
        finally:
            fuzzer.channel.close()
        proc.stop()
        stored = stored_request_ids(Path(proc.data_dir) / "games.sqlite")
        log = (Path(proc.data_dir) / "server.log").read_text(errors="replace")
    unexplained = [r for r in stored if r not in fuzzer.ok_ids]
    by_code = collections.Counter(code for (_, code), n in fuzzer.codes.items() for _ in range(n))
    print(
        f"fuzz seed={SEED}: {fuzzer.sent} requests in {time.monotonic() - started:.1f} s, "
        f"{len(fuzzer.games) + len(fuzzer.finished)} games; statuses {dict(by_code)}; "
        f"{len(stored)} stored moves with a request_id, all from OK Plays: {not unexplained}"
    )
    print({k: round(v, 2) for k, v in fuzzer.spent.items()})
    record_figure(
        "fuzz",
        seed=SEED,
        requests=fuzzer.sent,
        statuses=dict(by_code),
        games=len(fuzzer.games) + len(fuzzer.finished),
        stored_moves=len(stored),
        problems=len(fuzzer.problems),
        unexplained=len(unexplained),
    )
    assert fuzzer.sent >= REQUESTS
    assert health.status == health_pb2.HealthCheckResponse.SERVING and alive
    assert not fuzzer.problems, f"seed={SEED}:\n" + "\n".join(fuzzer.problems[:30])
    assert not unexplained, (
        f"seed={SEED}: stored moves no OK reply accounts for: {unexplained[:10]}"
    )
    assert "unexpected failure" not in log, log[log.index("unexpected failure") - 200 :][:3000]
    assert by_code["INTERNAL"] == by_code["UNKNOWN"] == 0
