"""The live viewer over HTTP (--http-port): public view only, no token, steps in order, live."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient
from clients.python.serverproc import ServerProcess
from server.wire import page as web
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import seated_game


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    flags = ["--http-port", "0", "--allow-prepared-deals"]  # seeded tables
    proc = ServerProcess(tmp_path_factory.mktemp("live"), extra=flags).start()
    yield proc
    proc.stop()


def url(proc: ServerProcess, path: str) -> str:
    return f"http://127.0.0.1:{proc.http_port}{path}"


def get_json(address: str, **headers: str) -> tuple[int, Any]:
    request = urllib.request.Request(address, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def sse(address: str, **headers: str) -> Iterator[tuple[str, str, Any]]:
    """(id, event, data) of each Server-Sent Event, as they come."""
    request = urllib.request.Request(address, headers=headers)
    with urllib.request.urlopen(request, timeout=20) as reply:
        assert reply.headers["Content-Type"].startswith("text/event-stream")
        fields: dict[str, str] = {}
        for raw in reply:
            line = raw.decode().rstrip("\n")
            if not line:
                if "event" in fields:
                    yield fields.get("id", ""), fields["event"], json.loads(fields["data"])
                fields = {}
            elif not line.startswith(":"):
                key, _, value = line.partition(": ")
                fields[key] = value


def test_the_viewer_is_off_unless_asked_for(server: ServerProcess) -> None:
    assert server.http_port is None


def test_polling_gives_the_spectators_steps_whatever_token_is_sent(live: ServerProcess) -> None:
    with TableClient(live.target) as client:
        game_id, seats, arbiter = seated_game(client, seed=61)
        spectator = client.as_viewer(game_id)
        want = [web.step(s.view.version, s.event, s.view) for s in spectator.replay()]
        path = f"/games/{game_id}/steps.json?after=0"
        for headers in ({}, {"x-seat-token": seats[0].token}, {"x-seat-token": arbiter}):
            status, body = get_json(url(live, path), **headers)  # type: ignore[arg-type]
            assert status == 200 and body["steps"] == want, "the public view, token or not"
            assert not body["finished"] and body["version"] == len(want)
            assert all(s["view"]["role"] == "ROLE_SPECTATOR" for s in body["steps"])
        status, body = get_json(url(live, f"/games/{game_id}/steps.json?after=5&limit=2"))
        assert [s["version"] for s in body["steps"]] == [6, 7]


def test_the_event_stream_follows_the_game_to_its_end_and_resumes(live: ServerProcess) -> None:
    with TableClient(live.target) as client:
        game_id, seats, _ = seated_game(client, seed=62)
        spectator = client.as_viewer(game_id)
        bots = [RandomBot(s, 62 + i) for i, s in enumerate(seats)]
        stream = sse(url(live, f"/games/{game_id}/steps?after=0"))
        seen = []
        for event_id, kind, data in stream:
            assert kind == "step" and event_id == str(data["version"])
            seen.append(data["version"])
            if data["version"] == spectator.view().version:
                break
        play_to_end(bots)
        latest = spectator.view().version
        ended = False
        for _event_id, kind, data in stream:
            if kind == "end":
                ended = True
                break
            seen.append(data["version"])
        assert ended and seen == list(range(1, latest + 1)), "every version once, in order"
        assert data == {}
        resumed = sse(url(live, f"/games/{game_id}/steps"), **{"Last-Event-ID": "10"})
        first = next(resumed)
        assert first[0] == "11", "a reconnecting browser resumes after its last id"
        final = [s for s in spectator.replay(latest, latest)][0]
        rest = [first, *resumed]
        assert rest[-1][1] == "end"
        assert rest[-2][2] == web.step(latest, final.event, final.view)
        assert final.view.role == pb.ROLE_SPECTATOR


def test_bad_requests_get_clear_http_errors(live: ServerProcess) -> None:
    status, body = get_json(url(live, "/games/not-a-game/steps.json"))
    assert status == 400 and body["field"] == "game_id"
    status, body = get_json(url(live, "/games/00000000-0000-4000-8000-000000000000"))
    assert status == 404 and body["error"] == "NOT_FOUND"
    with TableClient(live.target) as client:
        game_id, _, _ = seated_game(client, seed=63)
    status, body = get_json(url(live, f"/games/{game_id}/steps.json?after=x"))
    assert status == 400 and body["field"] == "after"
    status, body = get_json(url(live, f"/games/{game_id}/steps?after=999"))
    assert status == 400 and body["field"] == "after", "a stream from beyond the end"
    with urllib.request.urlopen(url(live, f"/games/{game_id}"), timeout=10) as reply:
        page = reply.read().decode()
        assert reply.headers["Content-Type"].startswith("text/html")
    assert f'"steps_url":"/games/{game_id}/steps"' in page and "connect-src 'self'" in page
