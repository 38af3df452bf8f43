"""A lobby table's bots outlive the replica that started them (issue 40): two replicas on
one PostgreSQL database; a lone player queued with a short bot wait on replica A, whose
matchmaker forms the table and starts its bots; A is SIGKILLed once the bots have moved (its
bot process ends with it); the player comes back on replica B with its login, B's
lobby-bots loop takes the table over (the table's lease went with A's session) and its bots
resume their seats with the kept secret, and the game is played to its end; the record
verifies. On SQLite (one process a store) the same with B being A started again. Before
this, the game stood still there for good ("the game stands still at version 35, waiting
for seats [1]").

The cheater's side: the table's secret (which would let anyone sit in the bots' seats) is
in no byte of the history, of a seat's Watch stream, of the export, nor of the servers'
logs; and it is forgotten once the game has ended."""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from clients.python import exports
from clients.python.audit_verify import verify_game
from clients.python.bot import RandomBot
from clients.python.client import TableClient
from clients.python.serverproc import ServerProcess
from server.store.shards import Store
from tabletop.huaniao.v1 import huaniao_pb2 as hn
from tabletop.v1 import tabletop_pb2 as pb
from tests.e2e.test_replicas import migrate
from tests.support.lobby import SEATED, WAITING, Lobby
from tests.support.oidc import IdentityProvider, server_flags
from tests.support.pgfixtures import PG
from tests.support.pgserver import PgServer

pytestmark = [PG, pytest.mark.timeout(120)]

SEED = 11  # the player's random moves
# 专业 with 阳春白雪: every card played makes every seat draw first in spring and summer, so
# nobody goes out in the first rounds and the bots still have moves to make after the kill
OPTIONS = pb.GameOptions(huaniao=hn.Options(mode=hn.MODE_PRO, spring_snow=True))
TAKEOVER = "lobby: this replica plays the bots of table"


def log_of(server: ServerProcess) -> str:
    return (server.data_dir / "server.log").read_text()


def bots_pid(server: ServerProcess) -> int:
    """The pid of the bot process the replica's log says it started (the only one)."""
    (pid,) = re.findall(r'msg="lobby: bots started" .*pid=(\d+)', log_of(server))
    return int(pid)


def gone(pid: int) -> bool:
    """Whether the process has ended (a zombie nobody reaped yet has)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] in "ZX"
    except (FileNotFoundError, ProcessLookupError):
        return True


def play_until_the_bots_moved(bot: RandomBot, deadline: float) -> int:
    """The player's moves, until a move that was not the player's has been made after the
    deal (the bots play as soon as it is their turn); returns the version then."""
    mine = 0  # the version the player's last move reached
    dealt = 0
    while time.monotonic() < deadline:
        view = bot.seat.view()
        assert view.phase != pb.GAME_PHASE_FINISHED, "the game ended before the bots moved"
        if view.phase == pb.GAME_PHASE_PLAYING:
            dealt = dealt or view.version
            if view.version > max(dealt, mine):
                return view.version
            played = bot.play_from(bot.seat.legal_moves())
            if played is not None:
                mine = played.version
        time.sleep(0.05)
    raise AssertionError("the bots made no move on replica A")


def play_to_the_end(bot: RandomBot, stall: float, deadline: float) -> int:
    """The player's moves until the game ends (polling, one thread: a failure leaves no
    stream behind); fails once the game has stood still for ``stall`` seconds while it
    waits for another seat than the player's. Returns the player's moves."""
    moves, version, moved_at = 0, -1, time.monotonic()
    while time.monotonic() < deadline:
        view = bot.seat.view()
        if view.phase == pb.GAME_PHASE_FINISHED:
            return moves
        if view.version != version:
            version, moved_at = view.version, time.monotonic()
        legal = bot.seat.legal_moves()
        if legal.moves:
            moves += bot.play_from(legal) is not None
            continue
        if time.monotonic() - moved_at > stall:
            raise AssertionError(
                f"the game stands still at version {version}, waiting for seats "
                f"{list(view.to_act)}: nobody plays the bots of the dead replica"
            )
        time.sleep(0.05)
    raise AssertionError("the game did not end in time")


@dataclass
class Deployment:
    """Where the table's two servers run: ``start("a")`` the first, ``start("b")`` the one
    that takes over; ``beside``: B runs beside A (two replicas on PostgreSQL), else B is A
    started again on A's store once A is dead (SQLite: one process at a time)."""

    start: Callable[[str], ServerProcess]
    kept: Callable[[], dict[str, str]]  # the kept bot secrets by game id, from the store
    beside: bool


def test_a_lobby_tables_bots_are_taken_over_when_their_replica_dies(
    pg_server: PgServer, new_database: Callable[[], str], tmp_path: Path
) -> None:
    env = pg_server.env(new_database())
    migrate(env)
    idp = IdentityProvider(tmp_path / "jwks.json")

    def start(name: str) -> ServerProcess:
        flags = server_flags(idp)
        return ServerProcess(tmp_path / name, store="postgres", env=env, extra=flags).start()

    def kept() -> dict[str, str]:
        store_env = dict(env, PERSISTENCE_MODULE="eventsourcing.postgres", CREATE_TABLE="n")
        store = Store.open([store_env])
        try:
            return {t.game_id: t.secret for t in store.shards[0].bot_secrets.tables()}
        finally:
            store.close()

    failover(Deployment(start, kept, beside=True), idp)


def test_a_lobby_tables_bots_are_played_again_after_a_restart_on_sqlite(tmp_path: Path) -> None:
    """The same on SQLite, where one process serves a store: killed and started again (a
    crash and its restart), the server plays the kept tables' bots again."""
    idp = IdentityProvider(tmp_path / "jwks.json")

    def start(_name: str) -> ServerProcess:
        return ServerProcess(tmp_path / "server", extra=server_flags(idp)).start()

    def kept() -> dict[str, str]:
        path = tmp_path / "server" / "games.sqlite"
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            return dict(db.execute("SELECT game_id, secret FROM tabletop_lobby_bots"))

    failover(Deployment(start, kept, beside=False), idp)


def failover(where: Deployment, idp: IdentityProvider) -> None:
    print(f"seed={SEED}")
    a = where.start("a")
    b: ServerProcess | None = None
    try:
        on_a = Lobby(a.target, idp)
        assert on_a.queue("sub-lone", OPTIONS, 3, bot_wait_ms=200).state == WAITING
        for _ in range(200):  # (bounded) A alone matches: it forms the table, starts its bots
            status = on_a.status("sub-lone")
            if status.state == SEATED:
                break
            time.sleep(0.05)
        assert status.state == SEATED and list(status.bot_seats) == [1, 2], status
        game_id = status.game_id
        secret = where.kept()[game_id]  # kept in the store, for any replica
        if where.beside:
            b = where.start("b")

        login = idp.token("sub-lone")
        with TableClient(a.target) as client:
            me = client.join(game_id, status.seat, "me", contribution="", login=login)
            play_until_the_bots_moved(RandomBot(me, SEED), time.monotonic() + 30)
        if b is not None:  # A plays them while it lives: B could not take them over
            assert TAKEOVER not in log_of(b)
        a.stop(kill=True)  # SIGKILL: its bots' lease goes with its database session
        on_a.close()
        orphan = bots_pid(a)  # and its bot process ends with it (not left playing)
        assert any(gone(orphan) or time.sleep(0.05) for _ in range(100)), "A's bots live on"
        if b is None:
            b = where.start("b")

        with TableClient(b.target) as client:
            again = client.resume(game_id, login)  # the player, from B, with its login
            moves = play_to_the_end(RandomBot(again, SEED + 1), 15, time.monotonic() + 60)
            end = client.as_viewer(game_id).view()
            assert end.phase == pb.GAME_PHASE_FINISHED, end.outcome.reason
            print(f"after the kill: the player made {moves} moves; {end.outcome.reason}")
            assert [s.player_name for s in end.seats] == ["me", "bot-1", "bot-2"]
            print(verify_game(client, game_id))  # raises AuditFailure if the record lies
            assert TAKEOVER in log_of(b)  # B's loop took the table over

            events = list(client.as_viewer(game_id).history())
            joins = [e for e in events if e.table.WhichOneof("kind") == "seat_taken"]
            assert len(joins) == 3  # the bots resumed their seats: nothing appended for it

            # the secret is nowhere a client or a reader of the record could see it
            history = b"".join(e.SerializeToString() for e in events)
            watched = b"".join(e.SerializeToString() for e in again.watch())
            exported = "".join(exports.export_lines(client.as_viewer(game_id).history()))
        for name, text in (
            ("GetHistory", history),
            ("Watch", watched),
            ("the export", exported.encode()),
            ("A's log", log_of(a).encode()),
            ("B's log", log_of(b).encode()),
        ):
            assert len(text) > 1000 and secret.encode() not in text, name
        for _ in range(200):  # (bounded) the ended table's secret is forgotten
            if game_id not in where.kept():
                break
            time.sleep(0.1)
        else:
            raise AssertionError("the ended table's secret is still kept")
    finally:
        a.stop()
        if b is not None:
            b.stop()
