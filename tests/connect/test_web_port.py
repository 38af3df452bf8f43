"""The web port's own routes: the play page's files, POST /bots, origins, who the peer is."""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2

from clients.python.serverproc import ServerProcess
from server.transport.peers import FORWARDED_HEADER
from server.transport.web import api as web_api
from server.transport.web import origin as web_origin
from tabletop.v1 import tabletop_pb2 as pb
from tests.connect.apis import Failure, open_api
from tests.connect.test_same_api import options, refused

BOTS = [
    "--allow-prepared-deals",
    "--web-port",
    "0",
    "--web-bots",
    "--web-bots-delay-ms",
    "0",
    "--web-bots-max",
    "1",
    "--web-bots-timeout",
    "6",
]


def request(
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        reply = conn.getresponse()
        return reply.status, {k.lower(): v for k, v in reply.getheaders()}, reply.read()
    finally:
        conn.close()


def post_bots(port: int, payload: Any, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    status, _, data = request(
        port, "POST", "/bots", body, {"content-type": "application/json", **(headers or {})}
    )
    return status, data


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("dist")
    (root / "index.html").write_text(
        "<!doctype html><title>牌桌</title><script src=app.js></script>"
    )
    (root / "app.js").write_text("console.log('桌')")
    (root / "assets").mkdir()
    (root / "assets" / "style.css").write_text("body{}")
    (root.parent / "secret.txt").write_text("not for the web")
    return root


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory, page: Path) -> Iterator[ServerProcess]:
    proc = ServerProcess(
        tmp_path_factory.mktemp("webroot"),
        extra=[*BOTS, "--web-root", str(page), "--web-allow-origin", "https://app.example"],
    ).start()
    yield proc
    proc.stop()


def test_the_page_is_served_with_its_types_and_headers(web: ServerProcess) -> None:
    port = web.web_port or 0
    status, headers, body = request(port, "GET", "/")
    assert status == 200 and "牌桌" in body.decode()
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert headers["referrer-policy"] == "no-referrer"  # a seat link's token stays here
    assert headers["x-content-type-options"] == "nosniff"
    status, headers, body = request(port, "GET", "/app.js")
    assert status == 200 and headers["content-type"].startswith("text/javascript")
    status, headers, _ = request(port, "GET", "/assets/style.css")
    assert status == 200 and headers["content-type"].startswith("text/css")
    status, headers, body = request(port, "HEAD", "/app.js")
    assert status == 200 and body == b"" and int(headers["content-length"]) > 0
    # a link to a table or a seat (no file extension) opens the page
    status, _, body = request(port, "GET", "/table/abc?seat=1")
    assert status == 200 and "牌桌" in body.decode()
    for path in ("/missing.js", "/../secret.txt", "/assets/../../secret.txt", "/%2e%2e/secret.txt"):
        status, _, body = request(port, "GET", path)
        assert status in (400, 404) and b"not for the web" not in body, path
    status, _, _ = request(port, "DELETE", "/")
    assert status == 405


def test_an_unbuilt_page_says_how_to_build_it(tmp_path: Path) -> None:
    with ServerProcess(
        tmp_path, extra=["--web-port", "0", "--web-root", str(tmp_path / "no")]
    ) as s:
        status, _, body = request(s.web_port or 0, "GET", "/")
        assert status == 404 and body.decode() == web_origin.NOT_BUILT + "\n"
        # the API is served all the same, and bots are off unless asked for
        key = open_api("connect", s.target, s.web_port).call(
            "GetSigningKey", pb.GetSigningKeyRequest()
        )
        assert len(key.public_key) == 32
        status, data = post_bots(s.web_port or 0, {"game_id": "x", "token": "y"})
        assert status == 403 and b"--web-bots" in data


def test_other_origins_are_refused_unless_allowed(web: ServerProcess) -> None:
    port = web.web_port or 0
    path = "/tabletop.v1.TableService/GetSigningKey"
    headers = {"content-type": "application/json", "origin": "https://evil.example"}
    status, _, body = request(port, "POST", path, b"{}", headers)
    assert status == 403 and b"cross-origin" in body
    status, _, _ = request(port, "POST", "/bots", b"{}", headers)
    assert status == 403
    # the page's own origin, and one allowed by --web-allow-origin
    same = {**headers, "origin": f"http://127.0.0.1:{port}"}
    status, headers_out, body = request(port, "POST", path, b"{}", same)
    assert status == 200 and "access-control-allow-origin" not in headers_out
    allowed = {**headers, "origin": "https://app.example"}
    status, preflight, _ = request(
        port,
        "OPTIONS",
        path,
        None,
        {
            "origin": "https://app.example",
            "access-control-request-method": "POST",
            "access-control-request-headers": "x-seat-token, content-type",
        },
    )
    assert status == 204 and preflight["access-control-allow-origin"] == "https://app.example"
    assert "x-seat-token" in preflight["access-control-allow-headers"]
    status, headers_out, _ = request(port, "POST", path, b"{}", allowed)
    assert status == 200 and headers_out["access-control-allow-origin"] == "https://app.example"
    assert "grpc-status-details-bin" in headers_out["access-control-expose-headers"]


def test_bots_refuse_bad_asks(web: ServerProcess) -> None:
    port = web.web_port or 0
    api = open_api("grpc", web.target, None)
    mine = api.call(
        "CreateGame",
        pb.CreateGameRequest(allow_unkeyed_seats=True, options=options(), seat_count=2),
    )
    other = api.call(
        "CreateGame",
        pb.CreateGameRequest(allow_unkeyed_seats=True, options=options(), seat_count=2),
    )
    seat = api.call("JoinGame", pb.JoinGameRequest(game_id=mine.game_id, seat=0)).seat_token
    for payload, status in (
        (b"not json", 400),
        ([1, 2], 400),
        ({"token": seat}, 400),  # no game
        ({"game_id": mine.game_id}, 403),  # no token
        ({"game_id": mine.game_id, "token": "forged"}, 403),
        ({"game_id": other.game_id, "token": seat}, 403),  # a token of another game
        ({"game_id": other.game_id, "token": mine.arbiter_token}, 403),
        ({"game_id": "no-such-game", "token": seat}, 400),
    ):
        got, data = post_bots(port, payload)
        assert got == status, (payload, data)
        assert data.endswith(b"\n") and data.count(b"\n") == 1, "one line"
    status, _, data = request(port, "POST", "/bots", b"{}", {"content-type": "text/plain"})
    assert status == 415
    status, _, _ = request(port, "GET", "/bots")
    assert status == 405
    status, data = post_bots(port, b"{" + b" " * 5000 + b"}")
    assert status == 413


def test_bots_fill_the_free_seats_and_leave_when_the_game_ends(web: ServerProcess) -> None:
    port = web.web_port or 0
    api = open_api("grpc", web.target, None)
    created = api.call(
        "CreateGame",
        pb.CreateGameRequest(allow_unkeyed_seats=True, options=options(), seat_count=2, seed=7),
    )
    me = api.call("JoinGame", pb.JoinGameRequest(game_id=created.game_id, seat=0)).seat_token
    status, data = post_bots(port, {"game_id": created.game_id, "token": me})
    assert status == 202, data
    assert json.loads(data) == {"game_id": created.game_id, "seats": [1]}
    # one bot table at a time here (--web-bots-max 1), and one bots process per game
    again, data = post_bots(port, {"game_id": created.game_id, "token": created.arbiter_token})
    assert again in (400, 409), data  # running (409), or it took the seat already (400)
    second = api.call(
        "CreateGame",
        pb.CreateGameRequest(allow_unkeyed_seats=True, options=options(), seat_count=2),
    )
    status, data = post_bots(port, {"game_id": second.game_id, "token": second.arbiter_token})
    assert status == 429, data
    # the bot took seat 1 and dealt; play seat 0 to the end against it
    view = _wait(lambda: _dealt(api, created.game_id, me))
    assert view.seats[1].taken
    _play_seat_to_end(api, created.game_id, me)
    # its process leaves with the game: the next table may have bots
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        status, data = post_bots(port, {"game_id": second.game_id, "token": second.arbiter_token})
        if status != 429:
            break
        time.sleep(0.5)
    assert status == 202, data
    log = (web.data_dir / "server.log").read_text()
    assert f'msg="bots ended: the bots left" game_id={created.game_id} exit=0' in log


def test_a_bot_process_is_ended_at_its_timeout(web: ServerProcess) -> None:
    """--web-bots-timeout 6: bots waiting for a seat that never moves are ended, freeing
    the one slot (--web-bots-max 1) for the next table."""
    port = web.web_port or 0
    api = open_api("grpc", web.target, None)
    # a 完全模式 game, at which the bots soon wait for seat 0 (a short 简单 or 基本 game may end
    # before seat 0's first turn: the bots' own moves are random)
    # The bots' seats add their own entropy, so the deal differs run to run: a deal whose
    # game the bots end before seat 0's first turn is tried again at a new table.
    for attempt in range(3):
        waiting = api.call(
            "CreateGame",
            pb.CreateGameRequest(
                allow_unkeyed_seats=True, options=options("FULL"), seat_count=3, seed=11 + attempt
            ),
        )
        me = api.call("JoinGame", pb.JoinGameRequest(game_id=waiting.game_id, seat=0)).seat_token
        deadline = time.monotonic() + 40
        status = 0
        while time.monotonic() < deadline:  # (another test's bots may still hold the one slot)
            status, data = post_bots(port, {"game_id": waiting.game_id, "token": me})
            if status != 429:
                break
            time.sleep(0.5)
        assert status == 202
        # the seats fill and the bots deal; the seat at 0 never moves, so they wait for it
        gid = waiting.game_id
        _wait(lambda gid=gid, me=me: _dealt(api, gid, me))
        view = _wait(lambda gid=gid, me=me: _waits_for(api, gid, me, 0))
        if view.phase == pb.GAME_PHASE_PLAYING:
            break
        print(f"attempt {attempt}: the bots ended the game before seat 0's first turn")
    assert view.phase == pb.GAME_PHASE_PLAYING, "three deals ended without seat 0's turn"
    later = api.call(
        "CreateGame",
        pb.CreateGameRequest(allow_unkeyed_seats=True, options=options(), seat_count=2),
    )
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        status, data = post_bots(port, {"game_id": later.game_id, "token": later.arbiter_token})
        if status != 429:
            break
        time.sleep(0.5)
    assert status == 202, data
    log = (web.data_dir / "server.log").read_text()
    assert f'msg="bots ended: timed out (--web-bots-timeout)" game_id={waiting.game_id}' in log


def _dealt(api: Any, game_id: str, token: str) -> pb.GameView | None:
    view = api.call("GetView", pb.GetViewRequest(game_id=game_id), token).view
    return view if view.phase != pb.GAME_PHASE_WAITING else None


def _waits_for(api: Any, game_id: str, token: str, seat: int) -> pb.GameView | None:
    view = api.call("GetView", pb.GetViewRequest(game_id=game_id), token).view
    if view.phase == pb.GAME_PHASE_FINISHED:  # the bots ended it without seat 0: say so
        return view
    return view if list(view.to_act) == [seat] else None


def _wait(probe: Any, seconds: float = 30) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = probe()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError("timed out")


def _play_seat_to_end(api: Any, game_id: str, token: str) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        view = api.call("GetView", pb.GetViewRequest(game_id=game_id), token).view
        if view.phase == pb.GAME_PHASE_FINISHED:
            return
        legal = api.call("LegalMoves", pb.LegalMovesRequest(game_id=game_id), token)
        if not legal.moves:
            time.sleep(0.05)
            continue
        try:
            api.call(
                "Play",
                pb.PlayRequest(
                    game_id=game_id, expected_version=legal.version, move=legal.moves[0]
                ),
                token,
            )
        except Failure as failure:
            if failure.code != "aborted":
                raise
    raise AssertionError("the game against the bot did not end")


# --- who the peer is -------------------------------------------------------------------------


def test_a_forged_forwarded_peer_is_not_believed(limited: ServerProcess) -> None:
    """Only this process's forwarder may name a peer: a gRPC client naming another is
    counted as itself (per connection: its second stream is refused, naming its own)."""
    forged = {FORWARDED_HEADER: "guess ipv4:10.9.8.7:1234", "x-test-client": "forger"}
    api = open_api("grpc", limited.target, None)
    game = api.call(
        "CreateGame",
        pb.CreateGameRequest(allow_unkeyed_seats=True, options=options(), seat_count=2),
        headers={"x-test-client": "forger-games"},
    )
    first = api.stream("Watch", pb.WatchRequest(game_id=game.game_id), headers=forged)
    try:
        assert next(first).event.version == 1  # open, and waiting for the next event
        forged2 = {**forged, FORWARDED_HEADER: "guess ipv4:10.9.8.6:1"}
        failure = refused(
            lambda: next(
                api.stream("Watch", pb.WatchRequest(game_id=game.game_id), headers=forged2)
            )
        )
        subject = failure.detail(error_details_pb2.QuotaFailure).violations[0].subject
        assert "10.9.8" not in subject and "127.0.0.1" in subject
    finally:
        first.close()  # type: ignore[attr-defined]
        api.close()


def test_the_forwarder_drops_a_browsers_claim_to_a_peer() -> None:
    metadata = web_api._metadata(
        [
            ("x-seat-token", "t"),
            (FORWARDED_HEADER, "guess ipv4:1.2.3.4:5"),
            ("host", "h"),
            ("connect-timeout-ms", "5"),
            ("grpc-timeout", "1S"),
            ("cookie", "c"),
            ("x-trace-bin", "AAEC"),
            ("x-bad", "\u00e9"),
        ],
        "ipv4:127.0.0.1:5555",
    )
    keys = [k for k, _ in metadata]
    assert keys == ["x-seat-token", "x-trace-bin", FORWARDED_HEADER]
    assert metadata[1] == ("x-trace-bin", b"\x00\x01\x02")
    assert str(metadata[-1][1]).endswith(" ipv4:127.0.0.1:5555")
    assert web_api._browser_peer("::1:80") == "ipv6:[::1]:80"
    assert web_api._browser_peer("10.0.0.1:80") == "ipv4:10.0.0.1:80"


def test_grpc_codes_map_to_connect_codes() -> None:
    assert len(web_api._CODES) == len(grpc.StatusCode) - 1  # every code but OK
    assert web_api._CODES[grpc.StatusCode.CANCELLED].value == "canceled"


# --- start and stop ----------------------------------------------------------------------------


def test_a_taken_web_port_is_refused_in_one_line(web: ServerProcess, tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "server.startup.main",
            "--port",
            "0",
            "--store",
            "memory",
            "--data-dir",
            str(tmp_path),
            "--web-port",
            str(web.web_port),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert "web-port" in lines[-1] and "already in use" in lines[-1], result.stderr


@pytest.mark.parametrize("name", ["connect", "grpc-web"])
def test_shutdown_ends_a_browsers_stream_with_where_to_resume(tmp_path: Path, name: str) -> None:
    proc = ServerProcess(tmp_path, extra=["--web-port", "0"]).start()
    try:
        api = open_api(name, proc.target, proc.web_port)
        game = api.call(
            "CreateGame",
            pb.CreateGameRequest(allow_unkeyed_seats=True, options=options(), seat_count=2),
        )
        stream = api.stream("Watch", pb.WatchRequest(game_id=game.game_id))
        assert next(stream).event.version == 1
        assert proc.proc is not None
        started = time.monotonic()
        proc.proc.send_signal(signal.SIGTERM)
        failure = refused(lambda: next(stream))
        assert failure.code == "unavailable"
        info = failure.detail(error_details_pb2.ErrorInfo)
        assert info.reason == "SHUTTING_DOWN" and info.metadata["after_version"] == "1"
        assert proc.proc.wait(timeout=20) == 0
        assert time.monotonic() - started < 10
    finally:
        proc.stop()


class _Context:
    def __init__(self, metadata: list[tuple[str, str]]) -> None:
        self.metadata = metadata

    def invocation_metadata(self) -> list[tuple[str, str]]:
        return self.metadata

    def peer(self) -> str:
        return "ipv4:127.0.0.1:4000"


def test_only_this_process_can_name_a_forwarded_peer() -> None:
    from server.transport import peers

    named = _Context([(FORWARDED_HEADER, peers.forwarded("ipv4:1.2.3.4:5"))])
    assert peers.peer_of(named) == "ipv4:1.2.3.4:5"
    secret = peers.forwarded("x").split(" ")[0]
    for value in ("ipv4:1.2.3.4:5", f"{secret[:-1]}? ipv4:1.2.3.4:5", f"{secret} ", "", " x"):
        assert peers.peer_of(_Context([(FORWARDED_HEADER, value)])) == "ipv4:127.0.0.1:4000"
    assert peers.peer_of(_Context([])) == "ipv4:127.0.0.1:4000"


def test_asks_at_once_start_one_bots_process(web: ServerProcess) -> None:
    port = web.web_port or 0
    api = open_api("grpc", web.target, None)
    created = api.call(
        "CreateGame",
        pb.CreateGameRequest(allow_unkeyed_seats=True, options=options(), seat_count=2, seed=9),
    )
    me = api.call("JoinGame", pb.JoinGameRequest(game_id=created.game_id, seat=0)).seat_token
    _wait(lambda: _slot_free(web), seconds=40)  # (another test's bots may hold the one slot)
    ask = {"game_id": created.game_id, "token": me}
    with ThreadPoolExecutor(4) as pool:
        answers = sorted(status for status, _ in pool.map(lambda _: post_bots(port, ask), range(4)))
    assert answers[0] == 202 and answers[1:] == [409, 409, 409], answers
    _wait(lambda: _dealt(api, created.game_id, me))
    _play_seat_to_end(api, created.game_id, me)


def _slot_free(web: ServerProcess) -> bool:
    """No bots process runs: every "bots started" line has its "bots ended" line."""
    log = (web.data_dir / "server.log").read_text()
    return log.count('msg="bots started"') == log.count('msg="bots ended')
