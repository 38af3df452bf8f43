"""Crash safety under load: bots play many games while the server is SIGKILLed at random
points and restarted on the same store; nothing accepted is lost, nothing refused is kept.

How it runs. Games of 花鸟风月 and 川南字牌 are played in rounds: each round picks, in every
live game, an awaited seat and a legal move, and sends all those Plays *at once*
(``Play.future``), each with a fresh request_id. Some rounds also send a deliberately bad
Play (a stale version, or another seat's move) that must be refused. At chosen rounds the
server is killed with SIGKILL a random 0-4 ms after the Plays went out, so kills land
before, during and after group commits and replies; then it is restarted on the same data
(the same SQLite file, or the same PostgreSQL database).

Every Play ends in one of three outcomes: OK (its reply's versions), an error status (it
must not be stored), or *unknown* (UNAVAILABLE / CANCELLED / DEADLINE_EXCEEDED because the
server died with it in flight). An unknown Play is resolved after the restart from the
game's history: the arbiter's view says whether the game moved past the Play's expected
version (only that Play could have moved it: one Play per game per round); then the same
request is sent again with the same request_id. If it was stored, the retry returns the
original reply (and appends nothing); if not, the retry is decided now. Either way the move
is in the game exactly once, and the resolution must agree with what history said.

At the end the store is opened directly (not through the server) and checked:

* every Play that returned OK, or was resolved as stored, is in its game, at the versions
  and with the hashes its reply gave (moves lost: must be 0);
* no Play that returned an error is in any game; every stored move was answered OK or
  resolved (nothing unexplained, nothing played twice);
* every game rebuilds from the store (snapshot and events) and ended with an outcome.
"""

from __future__ import annotations

import collections
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import grpc

from clients.python.client import TOKEN_HEADER
from clients.python.serverproc import ServerProcess
from domain import table as tables
from server.store.eventstore import TableApplication
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.v1 import tabletop_pb2_grpc as pb_grpc
from tabletop.zipai.v1 import zipai_pb2
from tests.support.records import acknowledged_hashes

UNKNOWN = (
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.CANCELLED,
    grpc.StatusCode.DEADLINE_EXCEEDED,
)


@dataclass
class Game:
    game_id: str
    seats: list[str]
    arbiter: str
    kind: str = "huaniao"
    done: bool = False


@dataclass
class Attempt:
    game: Game
    seat: int
    request: pb.PlayRequest
    bad: bool  # sent to be refused
    at: int  # the game's version when it was sent
    outcome: str = "pending"  # ok | error | unknown -> ok/error once resolved
    code: str = ""
    versions: list[int] = field(default_factory=list)
    hashes: dict[int, str] = field(default_factory=dict)  # acknowledged chain hashes
    resolved_from_history: str = ""  # stored | absent, for unknowns


@dataclass
class CrashReport:
    seed: int
    kills: int = 0
    rounds: int = 0
    games: int = 0
    plays_ok: int = 0
    plays_refused: int = 0
    unknown: int = 0
    unknown_stored: int = 0
    lost: list[str] = field(default_factory=list)
    kept_refused: list[str] = field(default_factory=list)
    unexplained: list[str] = field(default_factory=list)
    twice: list[str] = field(default_factory=list)
    unfinished: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (
            self.lost
            or self.kept_refused
            or self.unexplained
            or self.twice
            or self.unfinished
            or self.problems
        )

    def summary(self) -> str:
        return (
            f"seed={self.seed}: {self.kills} kills over {self.rounds} rounds of {self.games} "
            f"games; {self.plays_ok} "
            f"Plays OK, {self.plays_refused} refused, {self.unknown} in flight at a kill "
            f"({self.unknown_stored} of them had been stored); lost {len(self.lost)}, refused "
            f"but stored {len(self.kept_refused)}, unexplained {len(self.unexplained)}, played "
            f"twice {len(self.twice)}, unfinished games {len(self.unfinished)}"
        )

    def figures(self) -> dict[str, int]:
        return {
            "seed": self.seed,
            "kills": self.kills,
            "rounds": self.rounds,
            "games": self.games,
            "plays_ok": self.plays_ok,
            "plays_refused": self.plays_refused,
            "in_flight_at_kill": self.unknown,
            "in_flight_stored": self.unknown_stored,
            "lost": len(self.lost),
            "refused_but_stored": len(self.kept_refused),
            "unexplained": len(self.unexplained),
            "twice": len(self.twice),
            "unfinished": len(self.unfinished),
        }

    def failures(self) -> str:
        parts = [
            *self.problems,
            *self.lost,
            *self.kept_refused,
            *self.unexplained,
            *self.twice,
            *self.unfinished,
        ]
        return f"seed={self.seed}\n" + "\n".join(parts[:40])


class CrashRun:
    def __init__(
        self,
        proc: ServerProcess,
        open_store: Callable[[], TableApplication],
        seed: int,
        games: int,
        kills: int,
    ) -> None:
        self.proc = proc
        self.open_store = open_store
        self.rng = random.Random(seed)
        self.report = CrashReport(seed)
        self.games_wanted = games  # played at once; a finished game is replaced while kills remain
        self.kill_rounds = set(self.rng.sample(range(2, 2 + kills * 5), kills))
        self.attempts: list[Attempt] = []
        self.games: list[Game] = []
        self._connect()

    def _connect(self) -> None:
        self.channel = grpc.insecure_channel(self.proc.target)
        self.stub = pb_grpc.TableServiceStub(self.channel)

    @staticmethod
    def md(token: str) -> tuple[tuple[str, str]]:
        return ((TOKEN_HEADER, token),)

    def new_game(self, i: int) -> Game:
        if i % 2 == 0:
            mode = ("SIMPLE", "BASIC", "REGULAR")[i // 2 % 3]
            options = pb.GameOptions(
                huaniao=huaniao_pb2.Options(mode=huaniao_pb2.Mode.Value(f"MODE_{mode}"))
            )
            seats = 4
        else:
            options = pb.GameOptions(zipai=zipai_pb2.Options())
            seats = (2, 3, 4)[i // 2 % 3]
        created = self.stub.CreateGame(
            pb.CreateGameRequest(
                options=options,
                seat_count=seats,
                allow_unkeyed_seats=True,
                seed=self.rng.randrange(2**40),
            )
        )
        tokens = [
            self.stub.JoinGame(pb.JoinGameRequest(game_id=created.game_id, seat=s)).seat_token
            for s in range(seats)
        ]
        self.stub.StartGame(
            pb.StartGameRequest(game_id=created.game_id), metadata=self.md(tokens[0])
        )
        return Game(created.game_id, tokens, created.arbiter_token, options.WhichOneof("game"))

    def view(self, g: Game) -> pb.GameView:
        return self.stub.GetView(
            pb.GetViewRequest(game_id=g.game_id), metadata=self.md(g.arbiter)
        ).view

    # --- one round ----------------------------------------------------------------------

    def round(self, number: int) -> None:
        batch: list[Attempt] = []
        for g in self.games:
            if g.done:
                continue
            view = self.view(g)
            if view.phase == pb.GAME_PHASE_FINISHED or not view.to_act:
                g.done = True
                continue
            seat = self.rng.choice(list(view.to_act))
            legal = self.stub.LegalMoves(
                pb.LegalMovesRequest(game_id=g.game_id), metadata=self.md(g.seats[seat])
            )
            move = self.rng.choice(list(legal.moves))
            request = pb.PlayRequest(
                game_id=g.game_id,
                expected_version=legal.version,
                move=move,
                request_id=uuid.uuid4().hex,
            )
            if self.rng.random() < 0.08:  # a Play that must be refused (a stale or a future
                # version), sent instead of this game's move this round
                delta = self.rng.choice((-1, 1))
                if g.kind == "zipai":  # a stale answer may stand in a 川南字牌 claim window
                    delta = 1  # (play.py, _concurrent): only a future version is always wrong
                request.expected_version += delta
                batch.append(Attempt(g, seat, request, True, legal.version))
                continue
            batch.append(Attempt(g, seat, request, False, legal.version))
        if not batch:
            return
        futures = [
            (
                a,
                self.stub.Play.future(
                    a.request, metadata=self.md(a.game.seats[a.seat]), timeout=20
                ),
            )
            for a in batch
        ]
        killed = False
        if number in self.kill_rounds:
            time.sleep(self.rng.uniform(0, 0.004))
            self.proc.stop(kill=True)
            self.report.kills += 1
            killed = True
        for a, fut in futures:
            try:
                reply = fut.result()
                self._ok(a, reply)
            except grpc.RpcError as err:
                if err.code() in UNKNOWN and killed:
                    a.outcome = "unknown"
                    self.report.unknown += 1
                else:
                    a.outcome, a.code = "error", err.code().name
            self.attempts.append(a)
        if killed:
            self.channel.close()
            self.proc.start()
            self._connect()
            for a, _ in futures:
                if a.outcome == "unknown":
                    self._resolve(a)
        for a, _ in futures:
            if a.bad and a.outcome == "ok":
                self.report.problems.append(f"a bad Play was accepted: {a.request}")
            if not a.bad and a.outcome == "error":
                self.report.problems.append(
                    f"a legal Play got {a.code} ({'after a kill' if killed else 'no kill'}): "
                    f"game {a.game.game_id} v{a.request.expected_version}"
                )

    def _ok(self, a: Attempt, reply: pb.PlayResponse) -> None:
        a.outcome = "ok"
        a.versions = [e.version for e in reply.events]
        a.hashes = acknowledged_hashes(reply)

    def _resolve(self, a: Attempt) -> None:
        """An in-flight Play after a kill: history says whether it was stored; a retry with
        the same request_id then gives its original reply or decides it now."""
        now = self.view(a.game).version
        a.resolved_from_history = "stored" if now > a.at else "absent"
        try:
            reply = self.stub.Play(a.request, metadata=self.md(a.game.seats[a.seat]), timeout=20)
        except grpc.RpcError as err:
            a.outcome, a.code = "error", err.code().name
            if a.resolved_from_history == "stored":
                self.report.problems.append(
                    f"history shows game {a.game.game_id} moved past v{a.request.expected_version} "
                    f"but the retry of its only Play got {err.code().name}"
                )
            return
        self._ok(a, reply)
        if a.resolved_from_history == "stored":
            self.report.unknown_stored += 1
            if reply.events[0].version != a.request.expected_version + 1 or reply.version > now:
                self.report.problems.append(
                    f"the retry of a stored Play did not return it: {a.request}"
                )
        elif reply.events[0].version != now + 1:
            self.report.problems.append(
                f"the retry of an unstored Play did not play it now: {a.request}"
            )

    # --- the run ------------------------------------------------------------------------

    def run(self, max_rounds: int = 2000) -> CrashReport:
        try:
            self.games = [self.new_game(i) for i in range(self.games_wanted)]
            number = 0
            while number < max_rounds:
                live = sum(not g.done for g in self.games)
                if self.report.kills < len(self.kill_rounds):
                    self.games += [
                        self.new_game(len(self.games)) for _ in range(self.games_wanted - live)
                    ]
                elif not live:
                    break
                self.round(number)
                number += 1
            self.report.rounds = number
            self.report.games = len(self.games)
        finally:
            self.channel.close()
            self.proc.stop()
        self.check_store()
        return self.report

    def check_store(self) -> None:
        r = self.report
        app = self.open_store()
        try:
            stored: dict[str, list[tuple[int, Any, str]]] = collections.defaultdict(list)
            by_request: dict[tuple[str, int, str], list[int]] = collections.defaultdict(list)
            for g in self.games:
                for e in app.stored_events(uuid.UUID(g.game_id)):
                    stored[g.game_id].append((e.version, e.cause, e.hash))
                    if e.cause and e.cause.get("request_id"):
                        by_request[(g.game_id, int(e.cause["seat"]), e.cause["request_id"])].append(
                            e.version
                        )
                versions = [v for v, _, _ in stored[g.game_id]]
                if versions != list(range(1, len(versions) + 1)):
                    r.problems.append(f"game {g.game_id}: stored versions are not 1..N")
                rebuilt = app.repository.get(uuid.UUID(g.game_id))
                if rebuilt.table.phase is not tables.Phase.FINISHED or rebuilt.version != len(
                    versions
                ):
                    r.unfinished.append(f"game {g.game_id} ended at v{rebuilt.version} unfinished")
            answered: set[tuple[str, int, str]] = set()
            hashes = {(gid, v): h for gid, evs in stored.items() for v, _, h in evs}
            for a in self.attempts:
                key = (a.game.game_id, a.seat, a.request.request_id)
                if a.outcome == "ok":
                    r.plays_ok += 1
                    answered.add(key)
                    if by_request.get(key) != a.versions[:1]:
                        r.lost.append(f"LOST: game {key[0]} seat {a.seat} v{a.versions} not stored")
                    elif any(hashes.get((key[0], v)) != h for v, h in a.hashes.items()):
                        r.lost.append(
                            f"CHANGED: game {key[0]} v{a.versions} differs from its reply"
                        )
                else:
                    r.plays_refused += 1
                    if key in by_request:
                        r.kept_refused.append(f"KEPT: a refused Play ({a.code}) is stored: {key}")
            for key, firsts in by_request.items():
                if key not in answered:
                    r.unexplained.append(f"UNEXPLAINED: stored move {key} at v{firsts}")
                if len(firsts) > 1:
                    r.twice.append(f"TWICE: {key} stored at v{firsts}")
        finally:
            app.close()
