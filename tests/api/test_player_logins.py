"""Players from the app's own login, through a real server (issue 40): a local identity
provider (keys made here, rotated here) signs the logins; the server checks them against
its --oidc-* settings. Bad logins are refused UNAUTHENTICATED with their reason and append
nothing; a seat is bound to its player (SeatTaken.player); the player lists its games and
resumes its seat from a second device; another login can neither take nor resume it."""

from __future__ import annotations

import json
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from clients.python.audit_verify import signing_key, verify_game
from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient
from clients.python.exports import export_lines
from clients.python.seat import login_metadata
from clients.python.serverproc import ServerProcess
from server.transport.logins import player_id
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import huaniao_options
from tests.support.nodejs import ensure_node_modules
from tests.support.oidc import ISSUER, IdentityProvider, server_flags

NODE_VERIFY = Path(__file__).resolve().parents[2] / "clients" / "node" / "bin" / "verify.js"


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, idp: IdentityProvider
) -> Iterator[ServerProcess]:
    flags = [*server_flags(idp), "--web-port", "0"]  # the browsers' door too (Connect)
    proc = ServerProcess(tmp_path_factory.mktemp("server"), extra=flags).start()
    yield proc
    proc.stop()


@pytest.fixture()
def client(server: ServerProcess) -> Iterator[TableClient]:
    with TableClient(server.target) as c:
        yield c


def login_table(client: TableClient) -> str:
    return client.create_game(huaniao_options("BASIC"), 4, require_player_login=True).game_id


def version(client: TableClient, game_id: str) -> int:
    return client.view(game_id).version


def refused(call: object, *args: object, **kw: object) -> tuple[grpc.StatusCode, str]:
    """The status code and ErrorInfo reason of a refused call."""
    with pytest.raises(grpc.RpcError) as err:
        call(*args, **kw)  # type: ignore[operator]
    status = rpc_status.from_call(err.value)  # type: ignore[arg-type]
    reason = ""
    for detail in status.details if status else ():
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            reason = info.reason
    return err.value.code(), reason  # type: ignore[attr-defined]


def bad_logins(idp: IdentityProvider) -> dict[str, str]:
    now = int(time.time())
    return {
        "TOKEN_EXPIRED": idp.token("sub-eve", exp=now - 120, iat=now - 900),
        "WRONG_AUDIENCE": idp.token("sub-eve", aud="another-app"),
        "WRONG_ISSUER": idp.token("sub-eve", iss="https://evil.test/"),
        "BAD_SIGNATURE": idp.forged("sub-eve"),
        "UNSUPPORTED_ALGORITHM": idp.unsigned("sub-eve"),
        "MALFORMED_TOKEN": "x.y.z",
    }


@pytest.mark.parametrize(
    "reason",
    [
        "TOKEN_EXPIRED",
        "WRONG_AUDIENCE",
        "WRONG_ISSUER",
        "BAD_SIGNATURE",
        "UNSUPPORTED_ALGORITHM",
        "MALFORMED_TOKEN",
    ],  # fmt: skip
)
def test_a_bad_login_is_unauthenticated_naming_why_and_appends_nothing(
    client: TableClient, idp: IdentityProvider, reason: str
) -> None:
    gid = login_table(client)
    before = version(client, gid)
    token = bad_logins(idp)[reason]
    code, got = refused(client.join, gid, 0, "E", login=token)
    assert (code, got) == (grpc.StatusCode.UNAUTHENTICATED, reason)
    code, got = refused(client.resume, gid, token)
    assert (code, got) == (grpc.StatusCode.UNAUTHENTICATED, reason)
    code, got = refused(lambda: list(client.my_games(token)))
    assert (code, got) == (grpc.StatusCode.UNAUTHENTICATED, reason)
    # a bad login is refused on a read as well, never taken for a spectator
    code, got = refused(
        client.stub.GetView, pb.GetViewRequest(game_id=gid), metadata=login_metadata(token)
    )
    assert (code, got) == (grpc.StatusCode.UNAUTHENTICATED, reason)
    assert version(client, gid) == before


def test_a_login_table_seats_signed_in_players_only(
    client: TableClient, idp: IdentityProvider
) -> None:
    gid = login_table(client)
    code, reason = refused(client.join, gid, 0, "anon")
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "PLAYER_LOGIN_REQUIRED")
    client.join(gid, 0, "A", login=idp.token("sub-alice"))
    code, reason = refused(client.join, gid, 1, "A again", login=idp.token("sub-alice"))
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "PLAYER_SEATED")
    assert version(client, gid) == 2


def test_seat_tokens_remain_at_tables_created_without_identity(client: TableClient) -> None:
    gid = client.create_game(huaniao_options("BASIC"), 4).game_id
    seats = [client.join(gid, s, f"p{s}", contribution="") for s in range(4)]
    assert seats[0].token and seats[0].start() > 5
    assert seats[1].view().seat == 1  # the token, as ever


def test_one_credential_a_call(client: TableClient, idp: IdentityProvider) -> None:
    gid = login_table(client)
    seat = client.join(gid, 0, "A", login=idp.token("sub-one"))
    both = (("x-seat-token", seat.token or ""), *login_metadata(idp.token("sub-one")))
    code, _ = refused(client.stub.GetView, pb.GetViewRequest(game_id=gid), metadata=both)
    assert code == grpc.StatusCode.INVALID_ARGUMENT


def test_a_player_resumes_its_game_from_a_second_device(
    client: TableClient, server: ServerProcess, idp: IdentityProvider, tmp_path: Path
) -> None:
    gid = login_table(client)
    subjects = ["sub-alice-7", "sub-bob-7", "sub-carol-7", "sub-dave-7"]
    phone = client.join(gid, 0, "A", contribution="", login=idp.token(subjects[0]))
    others = [
        client.join(gid, s, f"p{s}", contribution="", login=idp.token(subjects[s]))
        for s in (1, 2, 3)
    ]
    # the record names each seat's player, and holds no subject
    taken = [e.table.seat_taken for e in others[0].history() if e.table.HasField("seat_taken")]
    assert [t.player for t in taken] == [player_id(ISSUER, s) for s in subjects]
    record = b"".join(e.SerializeToString() for e in others[0].history())
    assert not any(s.encode() in record for s in subjects)

    with TableClient(server.target) as tablet:  # the second device: the same login, anew
        login = idp.token(subjects[0])
        listed = [(g.game_id, g.seat) for g in tablet.my_games(login)]
        assert (gid, 0) in listed
        before = version(client, gid)
        resumed = tablet.resume(gid, login)  # this device's key, recorded as a re-key
        assert resumed.seat == 0 and version(client, gid) == before + 1
        events = list(resumed.history())
        assert events[-1].table.seat_rekeyed.public_key == resumed.public_key
        # the phone's key was replaced: its signed command is refused, nothing appended
        code, reason = refused(phone.start)
        assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "SEAT_SIGNATURE_INVALID")
        assert version(client, gid) == before + 1
        assert resumed.view().seat == 0  # the login stands for the seat, no seat token
        assert resumed.start() > before + 1  # signed by the tablet's key, on the login
        # the game waits for its first player; whichever it is, it plays on its login
        actor = resumed.view().to_act[0]
        mover = resumed if actor == 0 else others[actor - 1]
        legal = mover.legal_moves()
        played = mover.play(legal.moves[0], legal.version)
        assert played.events[0].version == legal.version + 1
        play_to_end([RandomBot(s, i) for i, s in enumerate([resumed, *others])])  # seeds 0..3
    # both verifiers take the record: the bindings re-decided, the re-key signed by the new key
    verified = verify_game(client, gid)
    assert verified is not None
    export = tmp_path / "game.jsonl"
    export.write_text("\n".join(export_lines(client.as_viewer(gid).history())) + "\n")
    ensure_node_modules()
    key = signing_key(client).hex()
    run = subprocess.run(
        ["node", str(NODE_VERIFY), str(export), "--public-key", key],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr


def test_another_login_cannot_take_or_resume_a_players_seat(
    client: TableClient, idp: IdentityProvider
) -> None:
    gid = login_table(client)
    client.join(gid, 0, "A", login=idp.token("sub-alice-8"))
    before = version(client, gid)
    mallory = idp.token("sub-mallory-8")
    code, reason = refused(client.join, gid, 0, "M", login=mallory)
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "SEAT_TAKEN")
    code, reason = refused(client.resume, gid, mallory)
    assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_YOUR_SEAT")
    assert gid not in [g.game_id for g in client.my_games(mallory)]
    view = client.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=login_metadata(mallory))
    assert view.view.role == pb.ROLE_SPECTATOR  # a login that holds no seat sees the public
    rekey = pb.RekeySeatRequest(game_id=gid, seat_public_key=b"\x01" * 32)
    code, _ = refused(client.stub.RekeySeat, rekey, metadata=login_metadata(mallory))
    assert code == grpc.StatusCode.PERMISSION_DENIED
    assert version(client, gid) == before


def test_a_rotated_issuer_key_is_taken_at_once(client: TableClient, idp: IdentityProvider) -> None:
    gid = login_table(client)
    client.join(gid, 0, "A", login=idp.token("sub-rot-1"))  # the JWKS as it was
    new = idp.rotate()
    client.join(gid, 1, "B", login=idp.token("sub-rot-2", kid=new))  # fetched for its kid
    assert version(client, gid) == 3


def test_a_players_games_page_newest_first(client: TableClient, idp: IdentityProvider) -> None:
    login = idp.token("sub-pager")
    games = [login_table(client) for _ in range(5)]
    for gid in games:
        client.join(gid, 1, "P", login=login)
    listed = [g.game_id for g in client.my_games(login, page_size=2)]
    assert listed == games[::-1]


def test_logins_are_refused_where_the_server_has_no_issuer(
    tmp_path: Path, idp: IdentityProvider
) -> None:
    proc = ServerProcess(tmp_path).start()
    try:
        with TableClient(proc.target) as plain:
            gid = plain.create_game(huaniao_options("BASIC"), 4).game_id
            code, reason = refused(plain.join, gid, 0, "A", login=idp.token("sub-alice"))
            assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "LOGINS_NOT_CONFIGURED")
            assert plain.view(gid).version == 1
    finally:
        proc.stop()


def test_a_browser_sends_the_login_through_connect(
    client: TableClient, server: ServerProcess, idp: IdentityProvider
) -> None:
    gid = login_table(client)
    client.join(gid, 2, "W", login=idp.token("sub-web"))

    def list_games(login: str) -> dict[str, object]:
        request = urllib.request.Request(
            f"http://127.0.0.1:{server.web_port}/tabletop.v1.TableService/ListMyGames",
            data=b"{}",
            headers={"content-type": "application/json", "authorization": f"Bearer {login}"},
        )
        with urllib.request.urlopen(request, timeout=10) as reply:
            return dict(json.load(reply))

    games = list_games(idp.token("sub-web"))["games"]
    assert [(g["gameId"], g.get("seat")) for g in games] == [(gid, 2)]  # type: ignore[index,union-attr]
    with pytest.raises(urllib.error.HTTPError) as refused:
        list_games(bad_logins(idp)["TOKEN_EXPIRED"])
    assert refused.value.code == 401  # Connect's UNAUTHENTICATED
    assert json.load(refused.value)["code"] == "unauthenticated"
