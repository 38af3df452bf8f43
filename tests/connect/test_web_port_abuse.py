"""The web port tried as an attacker would (issue 37, point 7): DNS rebinding, and one client
holding every bot process. (The seat link that overwrote a stored token is a page's matter:
tests/browser/test_seat_links.py; the live viewer's flood: tests/hardening/
test_live_viewer_limits.py.)

Several client networks on one machine: Linux routes all of 127.0.0.0/8 to loopback, so a
connection from 127.0.N.M (``source_address``) is a browser in the /24 127.0.N.0.
"""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from clients.python.serverproc import ServerProcess
from domain.table import deal
from server.transport.web.hosts import HostAllowList, host_name
from tabletop.v1 import tabletop_pb2 as pb
from tests.connect.apis import Api, open_api
from tests.connect.test_same_api import options

API_PATH = "/tabletop.v1.TableService/GetSigningKey"


def ask(
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    source: str = "127.0.0.1",
) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    try:
        conn.request(method, path, body=body, headers=headers or {})
        reply = conn.getresponse()
        return reply.status, reply.read()
    finally:
        conn.close()


def post_bots(port: int, game_id: str, token: str, source: str) -> tuple[int, str]:
    body = json.dumps({"game_id": game_id, "token": token}).encode()
    status, data = ask(port, "POST", "/bots", body, {"content-type": "application/json"}, source)
    return status, data.decode()


# --- DNS rebinding: the Host allow-list -------------------------------------------------------


@pytest.fixture(scope="module")
def named(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(
        tmp_path_factory.mktemp("named"),
        extra=["--web-port", "0", "--web-allow-host", "tables.example.org"],
    ).start()
    yield proc
    proc.stop()


def test_a_rebound_name_is_refused_before_anything_is_served(named: ServerProcess) -> None:
    """``evil.example`` re-pointed at this server: its page's calls are same-origin to
    themselves (Origin and Host agree), so only the Host allow-list can tell."""
    port = named.web_port or 0
    evil = f"evil.example:{port}"
    rebound = {"host": evil, "origin": f"http://{evil}", "content-type": "application/json"}
    for method, path, body in (
        ("POST", API_PATH, b"{}"),
        ("POST", "/bots", b"{}"),
        ("GET", "/", None),
        ("GET", "/server.json", None),
        ("OPTIONS", API_PATH, None),
    ):
        status, data = ask(port, method, path, body, rebound)
        assert status == 421, (method, path, status, data)
        assert b"--web-allow-host" in data and b"public_key" not in data
    # with no Origin at all (a top-level navigation to the rebound name): refused too
    status, _ = ask(port, "GET", "/server.json", headers={"host": evil})
    assert status == 421


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1:{port}",
        "localhost:{port}",
        "LOCALHOST.:{port}",
        "app.localhost:{port}",
        "[::1]:{port}",
        "192.168.1.20:{port}",
        "tables.example.org:{port}",
        "tables.example.org",
    ],
)
def test_addresses_localhost_and_listed_names_are_served(named: ServerProcess, host: str) -> None:
    port = named.web_port or 0
    h = host.format(port=port)
    status, data = ask(
        port, "POST", API_PATH, b"{}", {"host": h, "content-type": "application/json"}
    )
    assert status == 200, (h, data)


def test_host_names_are_read_as_browsers_send_them() -> None:
    assert host_name("Evil.Example.:8080") == "evil.example"
    assert host_name("[::1]:80") == "::1" and host_name("[fe80::1") == ""
    hosts = HostAllowList(["Tables.Example.org"])
    assert hosts.allows("tables.example.org:1") and not hosts.allows("example.org")
    assert not hosts.allows(None) and not hosts.allows("") and not hosts.allows("localhost.evil")
    assert HostAllowList(["*"]).allows("anything.example")


# --- /bots: one client cannot hold them all ---------------------------------------------------


QUOTA = [
    "--web-port",
    "0",
    "--web-bots",
    "--web-bots-max",
    "8",
    "--web-bots-per-network",
    "2",
    "--web-bots-per-client",
    "1",
]


@pytest.fixture(scope="module")
def quota(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path_factory.mktemp("quota"), extra=QUOTA).start()
    yield proc
    proc.stop()


def waiting_table(api: Api) -> tuple[str, str]:
    """A 2-seat table whose seat 0 is taken (committed, never revealed): its bots join and
    then wait for seat 0 for as long as anyone likes. Returns the game id and seat 0's token."""
    created = api.call(
        "CreateGame",
        pb.CreateGameRequest(allow_unkeyed_seats=True, options=options(), seat_count=2),
    )
    commitment = deal.contribution_commitment("never revealed")
    joined = api.call(
        "JoinGame",
        pb.JoinGameRequest(game_id=created.game_id, seat=0, contribution_commitment=commitment),
    )
    return created.game_id, joined.seat_token


def test_one_client_or_network_cannot_take_every_bot_process(quota: ServerProcess) -> None:
    """Before: one global cap of 8, so one client opening 8 tables held them all (2 hours
    each) and everybody else got 429. Now: 1 per address, 2 per /24 here."""
    port = quota.web_port or 0
    api = open_api("grpc", quota.target, None)
    tables = [waiting_table(api) for _ in range(5)]
    status, said = post_bots(port, *tables[0], source="127.0.0.2")
    assert status == 202, said
    status, said = post_bots(port, *tables[1], source="127.0.0.2")  # the same creator again
    assert status == 429 and "--web-bots-per-client" in said, said
    status, said = post_bots(port, *tables[1], source="127.0.0.3")  # its neighbour
    assert status == 202, said
    status, said = post_bots(port, *tables[2], source="127.0.0.4")  # a third in that /24
    assert status == 429 and "127.0.0.0/24" in said and "--web-bots-per-network" in said, said
    status, said = post_bots(port, *tables[2], source="127.0.1.2")  # another network: served
    assert status == 202, said
    api.close()


@pytest.fixture(scope="module")
def idle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(
        tmp_path_factory.mktemp("idle"),
        extra=[
            "--web-port",
            "0",
            "--web-bots",
            "--web-bots-per-client",
            "1",
            "--web-bots-idle",
            "3",
        ],
    ).start()
    yield proc
    proc.stop()


def test_bots_leave_a_game_whose_person_went_away(idle: ServerProcess) -> None:
    """--web-bots-idle 3: the bots' game waits for seat 0, which never moves; the bots leave
    after 3 s of standing still (not at the 2-hour timeout), and their creator may ask again."""
    port = idle.web_port or 0
    api = open_api("grpc", idle.target, None)
    first, second = waiting_table(api), waiting_table(api)
    status, said = post_bots(port, *first, source="127.0.0.2")
    assert status == 202, said
    status, said = post_bots(port, *second, source="127.0.0.2")
    assert status == 429, said  # one bots process per address here
    log = idle.data_dir / "server.log"
    line = f'msg="bots ended: the game stood still (--web-bots-idle)" game_id={first[0]}'
    _wait(lambda: line in log.read_text(), seconds=60)
    status, said = post_bots(port, *second, source="127.0.0.2")
    assert status == 202, said
    api.close()


def _wait(probe: Any, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if probe():
            return
        time.sleep(0.2)
    raise AssertionError(f"not within {seconds} s")
