"""The lobby through a real server (issue 40), on SQLite: refusals with clear statuses that
append nothing; open tables listed by game kind and rules; a lone player seated with bots
after the wait it named; seated players take their seats with their login. The
matchmaking of many players across two replicas is in tests/e2e/test_lobby_replicas.py."""

from __future__ import annotations

import json
import sqlite3
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from clients.python.audit_verify import verify_game
from clients.python.bot import RandomBot, play_by_streams
from clients.python.client import TableClient
from clients.python.seat import login_metadata
from clients.python.serverproc import ServerProcess
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import lobby_pb2 as lpb
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import huaniao_options
from tests.support.lobby import NONE, SEATED, WAITING, Lobby, refused, seed_ratings
from tests.support.oidc import IdentityProvider, server_flags

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, idp: IdentityProvider
) -> Iterator[ServerProcess]:
    flags = [*server_flags(idp), "--web-port", "0"]  # the browsers' door too (Connect)
    proc = ServerProcess(tmp_path_factory.mktemp("server"), extra=flags).start()
    yield proc
    proc.stop()


@pytest.fixture()
def lobby(server: ServerProcess, idp: IdentityProvider) -> Iterator[Lobby]:
    caller = Lobby(server.target, idp)
    yield caller
    caller.close()


def stored_rows(server: ServerProcess) -> int:
    """Every event the store holds (the lobby's streams and the tables')."""
    with sqlite3.connect(f"file:{server.data_dir / 'games.sqlite'}?mode=ro", uri=True) as db:
        (tables,) = db.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name LIKE '%events'"
        ).fetchone()
        return int(db.execute(f"SELECT COUNT(*) FROM {tables}").fetchone()[0])


def seated(lobby: Lobby, player: str, polls: int = 400) -> lpb.QueueStatus:
    """Poll until the matchmaker seated ``player`` (bounded; no timing is asserted)."""
    for _ in range(polls):
        status = lobby.status(player)
        if status.state == SEATED:
            return status
        time.sleep(0.05)
    raise AssertionError(f"{player} was not seated: {lobby.status(player)}")


def test_refusals_name_why_and_append_nothing(lobby: Lobby, server: ServerProcess) -> None:
    basic = huaniao_options("BASIC")
    # a 5-seat table of these rules never fills: the player waits there for the test
    lobby.queue("sub-ref-1", basic, 4, window=1)
    lobby.queue("sub-ref-2", basic, 4, window=1)  # two of four: both wait
    before = stored_rows(server)
    bad_mode = pb.GameOptions(huaniao=huaniao_pb2.Options(mode=99))  # no such rules
    cases = {
        "duplicate": ((lobby.queue, "sub-ref-1", basic, 4),
                      (grpc.StatusCode.FAILED_PRECONDITION, "ALREADY_QUEUED")),
        "another queue": ((lobby.queue, "sub-ref-1", huaniao_options("FULL"), 3),
                          (grpc.StatusCode.FAILED_PRECONDITION, "ALREADY_QUEUED")),
        "bad rules": ((lobby.queue, "sub-ref-3", bad_mode, 4),
                      (grpc.StatusCode.INVALID_ARGUMENT, "options.huaniao.mode")),
        "no game": ((lobby.queue, "sub-ref-3", pb.GameOptions(), 4),
                    (grpc.StatusCode.INVALID_ARGUMENT, "options")),
        "seat count": ((lobby.queue, "sub-ref-3", basic, 7),
                       (grpc.StatusCode.INVALID_ARGUMENT, "seat_count")),
        "window": ((lobby.queue, "sub-ref-3", basic, 4, -5),
                   (grpc.StatusCode.INVALID_ARGUMENT, "rating_window")),
        "bot wait": ((lobby.queue, "sub-ref-3", basic, 4, 0, 10**9),
                     (grpc.StatusCode.INVALID_ARGUMENT, "bot_wait_ms")),
        "a claimed rating": ((lobby.queue, "sub-ref-3", basic, 4, 0, 0, 3000),
                             (grpc.StatusCode.INVALID_ARGUMENT, "rating")),
        "leave twice": ((lobby.leave, "sub-ref-3"),
                        (grpc.StatusCode.FAILED_PRECONDITION, "NOT_QUEUED")),
    }  # fmt: skip
    for name, ((call, *args), expected) in cases.items():
        assert refused(call, *args) == expected, name
    no_login = lpb.GetQueueStatusRequest()
    assert refused(lobby.stub.GetQueueStatus, no_login) == (
        grpc.StatusCode.UNAUTHENTICATED, "LOGIN_REQUIRED",
    )  # fmt: skip
    assert stored_rows(server) == before
    assert lobby.status("sub-ref-1").state == WAITING
    assert lobby.status("sub-ref-3").state == NONE
    lobby.leave("sub-ref-1")
    lobby.leave("sub-ref-2")
    assert lobby.status("sub-ref-1").state == NONE
    assert refused(lobby.leave, "sub-ref-1") == (
        grpc.StatusCode.FAILED_PRECONDITION, "NOT_QUEUED",
    )  # fmt: skip


def test_a_low_rated_player_is_matched_by_the_servers_rating_not_its_claim(
    lobby: Lobby, server: ServerProcess
) -> None:
    """The cheater: a player the server rates low asks for the high band. Its claim is
    refused (INVALID_ARGUMENT rating, nothing stored), and queued without one it is compared
    at the server's rating: the high players' narrow windows keep it out of their table."""
    mus = seed_ratings(
        {"PERSISTENCE_MODULE": "eventsourcing.sqlite",
         "SQLITE_DBNAME": str(server.data_dir / "games.sqlite")},
        "zipai", {"sub-band-hi-1": 8, "sub-band-hi-2": 7, "sub-band-lo": -8},
    )  # fmt: skip
    assert mus["sub-band-hi-1"] - mus["sub-band-lo"] > 10, mus
    zipai = pb.GameOptions(zipai=pb.GameOptions().zipai.__class__())
    before = stored_rows(server)
    high = mus["sub-band-hi-1"]
    assert refused(lobby.queue, "sub-band-lo", zipai, 2, 0, 0, high) == (
        grpc.StatusCode.INVALID_ARGUMENT, "rating",
    )  # fmt: skip
    assert stored_rows(server) == before and lobby.status("sub-band-lo").state == NONE
    lobby.queue("sub-band-hi-1", zipai, 2, window=3)  # the oldest: its table is formed first
    lobby.queue("sub-band-lo", zipai, 2)  # accepts anyone; nobody of the band accepts it
    lobby.queue("sub-band-hi-2", zipai, 2, window=3)
    one, two = seated(lobby, "sub-band-hi-1"), seated(lobby, "sub-band-hi-2")
    assert one.game_id == two.game_id
    assert lobby.status("sub-band-lo").state == WAITING
    lobby.leave("sub-band-lo")


def test_a_seat_the_matchmaker_reserved_is_taken_by_its_player_only(
    lobby: Lobby, server: ServerProcess, idp: IdentityProvider
) -> None:
    """The cheater holds the game id (a seated player shares it, or guesses it from a
    notice): it cannot take a seat the matchmaker meant for someone else, with its own login
    or with none, nor can a seated player take its partner's seat; nothing is appended."""
    options = huaniao_options("SIMPLE")
    lobby.queue("sub-resv-1", options, 2)
    lobby.queue("sub-resv-2", options, 2)
    one, two = seated(lobby, "sub-resv-1"), seated(lobby, "sub-resv-2")
    gid = one.game_id
    with TableClient(server.target) as client:
        before = client.as_viewer(gid).view().version
        for who, seat in (("sub-thief", one.seat), (None, one.seat), ("sub-resv-2", one.seat)):
            login = idp.token(who) if who else None
            assert refused(client.join, gid, seat, "thief", login=login) == (
                grpc.StatusCode.FAILED_PRECONDITION, "SEAT_RESERVED",
            ), who  # fmt: skip
        assert client.as_viewer(gid).view().version == before
        mine = client.join(gid, one.seat, "one", login=idp.token("sub-resv-1"))
        assert mine.view().seat == one.seat
        client.join(gid, two.seat, "two", login=idp.token("sub-resv-2"))


def test_a_table_is_its_players_app_s_and_apps_never_share_one(
    lobby: Lobby, server: ServerProcess, idp: IdentityProvider
) -> None:
    """The app is the login's client id (azp), as the identity provider signed it: players
    of two apps wanting the same game queue apart, and the table records its app
    (GameCreated.app), whose webhooks alone it owes (tests/server/test_webhooks.py)."""
    lobby.apps |= {"sub-app-x1": "app-x", "sub-app-y1": "app-y", "sub-app-x2": "app-x"}
    options = huaniao_options("SIMPLE")
    for player in ("sub-app-x1", "sub-app-y1", "sub-app-x2"):
        lobby.queue(player, options, 2)
    one, two = seated(lobby, "sub-app-x1"), seated(lobby, "sub-app-x2")
    assert one.game_id == two.game_id and lobby.status("sub-app-y1").state == WAITING
    lobby.leave("sub-app-y1")
    with TableClient(server.target) as client:
        (created, *_) = client.as_viewer(one.game_id).history()
    assert created.table.game_created.app == "app-x"
    assert len(created.table.game_created.reserved_players) == 2
    opened = lobby.stub.OpenTable(
        lpb.OpenTableRequest(options=options, seat_count=2),
        metadata=login_metadata(idp.token("sub-app-opener", azp="app-y")),
    )
    with TableClient(server.target) as client:
        (created, *_) = client.as_viewer(opened.game_id).history()
        assert created.table.game_created.app == "app-y"
        # a login of app x takes no seat at app y's table (app y alone hears of it); nothing
        # is appended, and app y's own player sits down
        before = client.as_viewer(opened.game_id).view().version
        stranger = idp.token("sub-app-x3", azp="app-x")
        assert refused(client.join, opened.game_id, 1, "x3", login=stranger) == (
            grpc.StatusCode.FAILED_PRECONDITION, "OTHER_APP",
        )  # fmt: skip
        assert client.as_viewer(opened.game_id).view().version == before
        client.join(opened.game_id, 1, "y2", login=idp.token("sub-app-y2", azp="app-y"))


def test_a_lone_player_gets_bots_the_server_plays_to_the_end(
    lobby: Lobby, server: ServerProcess, idp: IdentityProvider
) -> None:
    """After the wait it named, a lone player is seated with bots, and the server starts
    them itself (--lobby-bots, on by default): no bot command of the app's. They take the
    open seats only (the player's is reserved for its login), deal once it sat down and
    play to the end; the record verifies, reservation included."""
    options = huaniao_options("REGULAR")
    waiting = lobby.queue("sub-bots-1", options, 3, bot_wait_ms=300)
    assert waiting.state == WAITING
    status = seated(lobby, "sub-bots-1")
    assert (status.seat, list(status.bot_seats)) == (0, [1, 2])
    with TableClient(server.target) as client:
        # the cheater holds the game id (the player shares it with a friend): it cannot sit
        # in as a "bot", with a login, with none, or with a made-up lobby bot secret, before
        # or after the server's bots sat down (their seats are reserved for them)
        for how in ("login", "none", "secret"):
            login = idp.token("sub-friend") if how == "login" else None
            guess = "not-the-tables-secret" if how == "secret" else None
            for seat in status.bot_seats:
                got = refused(
                    client.join, status.game_id, seat, "bot?", login=login, lobby_bot=guess
                )
                assert got == (grpc.StatusCode.FAILED_PRECONDITION, "SEAT_RESERVED"), (how, got)
        me = client.join(
            status.game_id, status.seat, "me", contribution="", login=idp.token("sub-bots-1")
        )
        assert me.view().seat == 0
        moves = play_by_streams([RandomBot(me, 7)], timeout=90)  # seed 7
        end = client.as_viewer(status.game_id).view()
        assert end.phase == pb.GAME_PHASE_FINISHED, end.outcome.reason
        print(f"the player made {moves} moves; {end.outcome.reason}")
        assert [s.seat for s in end.seats if s.taken] == [0, 1, 2]
        assert [s.player_name for s in end.seats] == ["me", "bot-1", "bot-2"]  # the bots' seats
        verified = verify_game(client, status.game_id)  # raises AuditFailure if it lies
        print(verified)
    for _ in range(150):  # (bounded) the bots' process ends with the game, and is reaped
        if "lobby: bots ended" in (server.data_dir / "server.log").read_text():
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the lobby's bots did not end with their game")


def test_players_without_a_bot_wait_are_never_given_bots(lobby: Lobby) -> None:
    lobby.queue("sub-nobots-1", huaniao_options("SIMPLE"), 4)
    lobby.queue("sub-nobots-2", huaniao_options("SIMPLE"), 4, bot_wait_ms=1)
    # the second's wait passed; the first named none, so the two wait for two more
    lobby.queue("sub-nobots-3", huaniao_options("SIMPLE"), 4)
    lobby.queue("sub-nobots-4", huaniao_options("SIMPLE"), 4)
    table = {seated(lobby, f"sub-nobots-{i}").game_id for i in range(1, 5)}
    assert len(table) == 1
    assert not seated(lobby, "sub-nobots-1").bot_seats


def test_open_tables_are_listed_by_game_kind_and_rules(
    lobby: Lobby, server: ServerProcess, idp: IdentityProvider
) -> None:
    login = lobby.login("sub-opener")
    basic, full = huaniao_options("BASIC"), huaniao_options("FULL")
    a = lobby.stub.OpenTable(lpb.OpenTableRequest(options=basic, seat_count=2), metadata=login)
    b = lobby.stub.OpenTable(lpb.OpenTableRequest(options=full, seat_count=2), metadata=login)

    def listed(**kw: object) -> list[tuple[str, list[int]]]:
        request = lpb.ListOpenTablesRequest(game_kind="huaniao", **kw)  # type: ignore[arg-type]
        return [(t.game_id, list(t.free_seats)) for t in lobby.stub.ListOpenTables(request).tables]

    assert {a.game_id, b.game_id} <= {g for g, _ in listed()}
    only_basic = listed(options=basic, seat_count=2)
    assert a.game_id in {g for g, _ in only_basic} and b.game_id not in {g for g, _ in only_basic}
    with TableClient(server.target) as client:
        client.join(a.game_id, 0, "A", login=idp.token("sub-open-a"))
        assert (a.game_id, [1]) in listed(options=basic, seat_count=2)
        client.join(a.game_id, 1, "B", login=idp.token("sub-open-b"))
    assert a.game_id not in {g for g, _ in listed()}  # full: no longer open
    page = lobby.stub.ListOpenTables(lpb.ListOpenTablesRequest(game_kind="huaniao", page_size=1))
    assert page.next_page_token
    assert refused(lobby.stub.ListOpenTables, lpb.ListOpenTablesRequest(game_kind="chess")) == (
        grpc.StatusCode.INVALID_ARGUMENT, "kind",
    )  # fmt: skip
    assert refused(
        lobby.stub.ListOpenTables,
        lpb.ListOpenTablesRequest(game_kind="zipai", options=basic, seat_count=2),
    ) == (grpc.StatusCode.INVALID_ARGUMENT, "options")


def test_the_queue_survives_a_restart(idp: IdentityProvider, tmp_path: Path) -> None:
    proc = ServerProcess(tmp_path, extra=server_flags(idp)).start()
    try:
        lobby = Lobby(proc.target, idp)
        lobby.queue("sub-restart-1", huaniao_options("SIMPLE"), 2)
        lobby.close()
        proc.stop()
        proc.start()
        lobby = Lobby(proc.target, idp)
        assert lobby.status("sub-restart-1").state == WAITING
        lobby.queue("sub-restart-2", huaniao_options("SIMPLE"), 2)
        first, second = seated(lobby, "sub-restart-1"), seated(lobby, "sub-restart-2")
        assert first.game_id == second.game_id and {first.seat, second.seat} == {0, 1}
        lobby.close()
    finally:
        proc.stop()


def test_a_browser_queues_through_connect(
    lobby: Lobby, server: ServerProcess, idp: IdentityProvider
) -> None:
    def call(method: str, body: dict[str, object], login: str) -> dict[str, object]:
        request = urllib.request.Request(
            f"http://127.0.0.1:{server.web_port}/tabletop.v1.LobbyService/{method}",
            data=json.dumps(body).encode(),
            headers={"content-type": "application/json", "authorization": f"Bearer {login}"},
        )
        with urllib.request.urlopen(request, timeout=10) as reply:
            return dict(json.load(reply))

    login = idp.token("sub-web-1")
    wish = {"options": {"zipai": {}}, "seatCount": 2, "ratingWindow": 100}
    queued = call("JoinQueue", wish, login)
    assert queued["status"]["state"] == "QUEUE_STATE_WAITING"  # type: ignore[index]
    with pytest.raises(urllib.error.HTTPError) as again:
        call("JoinQueue", wish, login)
    assert again.value.code == 400  # Connect's FAILED_PRECONDITION
    body = json.load(again.value)
    assert body["code"] == "failed_precondition" and "already waits" in body["message"]
    call("LeaveQueue", {}, login)
    assert lobby.status("sub-web-1").state == NONE


def kept_bot_tables(server: ServerProcess) -> list[str]:
    """The game ids whose bot secrets the server keeps (its store's own table)."""
    with sqlite3.connect(f"file:{server.data_dir / 'games.sqlite'}?mode=ro", uri=True) as db:
        return [g for (g,) in db.execute("SELECT game_id FROM tabletop_lobby_bots")]


def test_a_reserved_player_who_never_comes_voids_the_table_after_the_servers_limit(
    idp: IdentityProvider, tmp_path: Path
) -> None:
    """The reservation expiry, through a real server: with --lobby-abandon-after-ms 1000 a
    lobby table whose player never sits down is void a second after it was formed (the
    server's clock abandons its draw, naming the empty reserved seat; nobody else took it
    meanwhile), its bots leave, its kept bot secret is forgotten, and the player may queue
    again."""
    flags = [*server_flags(idp), "--lobby-abandon-after-ms", "1000"]
    proc = ServerProcess(tmp_path, extra=flags).start()
    lobby = Lobby(proc.target, idp)
    try:
        lobby.queue("sub-never", huaniao_options("BASIC"), 3, bot_wait_ms=100)
        status = seated(lobby, "sub-never")
        with TableClient(proc.target) as client:
            viewer = client.as_viewer(status.game_id)
            (created, *_) = viewer.history()
            assert created.table.game_created.abandon_after_ms == 1000  # in the record
            for _ in range(100):  # (bounded) the server's clock, about a second after
                view = viewer.view()
                if view.void:
                    break
                time.sleep(0.05)
            assert view.void and view.phase == pb.GAME_PHASE_FINISHED, view
            assert status.seat in view.void_waiting_for  # the player who never came
            assert not view.seats[status.seat].taken  # and nobody took its seat meanwhile
            verify_game(client, status.game_id)  # the verifier re-decides the abandonment
        for _ in range(150):  # (bounded) the bots leave the void table, its secret goes
            if not kept_bot_tables(proc) and "lobby: bots ended" in (
                proc.data_dir / "server.log"
            ).read_text():
                break
            time.sleep(0.05)
        else:
            raise AssertionError(f"still kept: {kept_bot_tables(proc)}")
        assert lobby.queue("sub-never", huaniao_options("BASIC"), 3).state == WAITING
    finally:
        lobby.close()
        proc.stop()
