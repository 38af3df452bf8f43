"""Ratings through a real server (issue 40): players from the app's login (a local identity
provider, tests/support/oidc.py) play single games and a match; the server's leaderboard
(RatingsService) equals the ratings `tabletop-audit ratings` recomputes from the exported
records alone; a table without logins rates nobody; a restart on the same store rates no
game twice; bad requests are refused naming the field."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from clients.python import audit
from clients.python.audit_verify import match_export_lines, signing_key
from clients.python.bot import RandomBot, play_match, play_to_end
from clients.python.client import TableClient
from clients.python.exports import export_lines
from clients.python.serverproc import ServerProcess
from server.transport.logins import player_id
from tabletop.v1 import ratings_pb2 as rpb
from tabletop.v1 import ratings_pb2_grpc as rpb_grpc
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import huaniao_options
from tests.support.oidc import ISSUER, IdentityProvider, server_flags

SUBJECTS = ["sub-r-ann", "sub-r-ben", "sub-r-cat", "sub-r-dan"]
PLAYERS = [player_id(ISSUER, s) for s in SUBJECTS]


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, idp: IdentityProvider
) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path_factory.mktemp("server"), extra=server_flags(idp)).start()
    yield proc
    proc.stop()


def seated(
    client: TableClient, idp: IdentityProvider, subjects: list[str], **create: object
) -> tuple[str, list[object]]:
    created = client.create_game(
        huaniao_options("BASIC"), len(subjects), require_player_login=True, **create
    )
    seats = [
        client.join(created.game_id, s, f"p{s}", contribution="", login=idp.token(sub))
        for s, sub in enumerate(subjects)
    ]
    seats[0].start()
    return created.match_id or created.game_id, seats


def board(client: TableClient, page_size: int) -> list[rpb.PlayerRating]:
    """The whole huaniao board, page by page."""
    stub = rpb_grpc.RatingsServiceStub(client.channel)
    found: list[rpb.PlayerRating] = []
    token = ""
    while True:
        page = stub.ListLeaderboard(
            rpb.ListLeaderboardRequest(kind="huaniao", page_size=page_size, page_token=token)
        )
        found += page.ratings
        assert page.total_players == 4
        token = page.next_page_token
        if not token:
            return found


def recomputed(paths: list[Path], key: str, capsys: pytest.CaptureFixture[str]) -> dict:
    args = ["ratings", "--json", "--public-key", key]
    for p in paths:
        args += ["--file", str(p)]
    capsys.readouterr()
    assert audit.main(args) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_live_ratings_equal_those_recomputed_from_the_exports(
    server: ServerProcess, idp: IdentityProvider, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = random.randrange(2**32)
    print(f"seed={seed}")
    rng = random.Random(seed)
    exports: list[Path] = []
    with TableClient(server.target) as client:
        # single games, two players each: everyone once, then two pairs drawn by lot
        pairs = [SUBJECTS[:2], SUBJECTS[2:], rng.sample(SUBJECTS, 2), rng.sample(SUBJECTS, 2)]
        for n, pair in enumerate(pairs):
            gid, seats = seated(client, idp, pair)
            play_to_end([RandomBot(s, rng.getrandbits(32)) for s in seats])  # type: ignore[arg-type]
            path = tmp_path / f"game{n}.jsonl"
            path.write_text("\n".join(export_lines(client.as_viewer(gid).history())) + "\n")
            exports.append(path)
        # a match of two hands among three players: rated once, by its standings
        mid, seats = seated(client, idp, SUBJECTS[1:], match=pb.MatchSettings(hands=2))
        play_match([RandomBot(s, rng.getrandbits(32)) for s in seats])  # type: ignore[arg-type]
        path = tmp_path / "match.jsonl"
        path.write_text("\n".join(match_export_lines(client, mid, None)) + "\n")
        exports.append(path)
        # a table without logins: played to the end, rated for nobody
        plain = client.create_game(huaniao_options("BASIC"), 2).game_id
        bots = [client.join(plain, s, f"x{s}", contribution="") for s in range(2)]
        bots[0].start()
        play_to_end([RandomBot(s, rng.getrandbits(32)) for s in bots])
        path = tmp_path / "plain.jsonl"
        path.write_text("\n".join(export_lines(client.as_viewer(plain).history())) + "\n")
        exports.append(path)

        key = signing_key(client).hex()
        live = board(client, page_size=3)  # two pages
    offline = recomputed(exports, key, capsys)
    assert offline["rated"] == 5  # four games and the match; the plain table none
    expected = offline["boards"]["huaniao"]
    assert [r.player for r in live] == [r["player"] for r in expected]
    assert set(PLAYERS) == {r.player for r in live}
    for got, want in zip(live, expected, strict=True):
        assert (got.mu, got.sigma, got.results, got.place) == (
            want["mu"], want["sigma"], want["results"], want["place"]
        )  # fmt: skip
    assert sum(r.results for r in live) == 4 * 2 + 3
    args = ["ratings", "--public-key", key, *(a for p in exports for a in ("--file", str(p)))]
    assert audit.main(args) == 0
    text = capsys.readouterr().out
    assert text.startswith("5 rated result(s) of 6 export(s)")
    assert f"    1  {live[0].player}  ordinal {live[0].ordinal:.3f}" in text
    # an export altered by one byte does not verify: nothing is rated from it
    broken = tmp_path / "broken.jsonl"
    broken.write_text(exports[0].read_text().replace('"seat":0', '"seat":1', 1))
    assert broken.read_text() != exports[0].read_text()
    with pytest.raises(SystemExit) as failed:
        audit.main(["ratings", "--public-key", key, "--file", str(broken)])
    assert failed.value.code == 1
    assert "VERIFY FAILED" in capsys.readouterr().err

    # a restart on the same store (the ends replayed from the store) rates nothing twice
    server.stop()
    server.start()
    with TableClient(server.target) as client:
        assert [(r.player, r.mu, r.sigma) for r in board(client, 100)] == [
            (r.player, r.mu, r.sigma) for r in live
        ]
        stub = rpb_grpc.RatingsServiceStub(client.channel)
        one = stub.GetRating(rpb.GetRatingRequest(kind="huaniao", player=live[1].player))
        assert one.rating == live[1]


def test_a_bad_request_is_refused_naming_the_field(server: ServerProcess) -> None:
    with TableClient(server.target) as client:
        stub = rpb_grpc.RatingsServiceStub(client.channel)
        for request, field in (
            (rpb.ListLeaderboardRequest(kind="chess"), "kind"),
            (rpb.ListLeaderboardRequest(kind="huaniao", page_size=101), "page_size"),
            (rpb.ListLeaderboardRequest(kind="huaniao", page_token="x"), "page_token"),
        ):
            with pytest.raises(grpc.RpcError) as err:
                stub.ListLeaderboard(request)
            assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
            assert field in (err.value.details() or "")  # type: ignore[attr-defined]
        with pytest.raises(grpc.RpcError) as err:
            stub.GetRating(rpb.GetRatingRequest(kind="huaniao"))
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
        fresh = stub.GetRating(rpb.GetRatingRequest(kind="zipai", player="f" * 64)).rating
        assert (fresh.mu, fresh.results, fresh.place) == (25.0, 0, 0)
