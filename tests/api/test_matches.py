"""Matches through a real server: bots play a match of each game to its end, the dealer
passes by the table's rule, Watch follows every hand, the standings show in GetView and
the CLI, `tabletop-audit verify --match` checks the whole match, and a restart in the
middle of a match changes nothing."""

from __future__ import annotations

import json
import re
import threading

import grpc
import pytest
from click.testing import CliRunner
from google.rpc import error_details_pb2

from clients.python import audit
from clients.python.bot import make_bot, play_match, play_to_end
from clients.python.cli import tabletop
from clients.python.client import TableClient, draw_next_hand, reveal_and_start
from clients.python.seat import SeatClient
from clients.python.serverproc import ServerProcess
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.zipai.v1 import zipai_pb2
from tests.api.helpers import huaniao_options
from tests.api.test_game_api import detail

SEED = 7


def zipai_options(rule: int = zipai_pb2.DEALER_RULE_WINNER) -> pb.GameOptions:
    return pb.GameOptions(
        zipai=zipai_pb2.Options(dealer_rule=rule, scoring=zipai_pb2.SCORING_PROFILE_LUZHOU)  # type: ignore[arg-type]
    )


def seated_match(
    client: TableClient,
    options: pb.GameOptions,
    seats: int,
    settings: pb.MatchSettings,
    order: list[int] | None = None,
) -> tuple[pb.CreateGameResponse, list[SeatClient]]:
    created = client.create_game(options, seats, match=settings)
    joined = {s: client.join(created.game_id, s, f"p{s}") for s in (order or range(seats))}
    players = [joined[s] for s in range(seats)]
    reveal_and_start(players)
    return created, players


def hand_views(client: TableClient, match_id: str) -> list[pb.GameView]:
    stored = [json.loads(f.stored_json) for f in client.match(match_id).facts]
    ids = [f["data"]["game_id"] for f in stored if f["type"] == "HandOpened"]
    return [client.as_viewer(g).view() for g in ids]


def cli(server: ServerProcess, *args: str) -> str:
    result = CliRunner().invoke(tabletop, ["--target", server.target, "--no-color", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_zipai_match_of_four_hands_plays_to_its_end_and_the_winner_deals_next(
    server: ServerProcess, client: TableClient
) -> None:
    """zp:9–10: the first seat taken (seat 2) deals the first hand; 胡牌者当庄 after."""
    settings = pb.MatchSettings(hands=4, advance=pb.HAND_ADVANCE_READY)
    created, seats = seated_match(client, zipai_options(), 3, settings, order=[2, 0, 1])
    assert created.match_id
    moves, final = play_match([make_bot(s, "heuristic", SEED + i) for i, s in enumerate(seats)])
    assert final.finished and len(final.results) == 4 and moves > 0
    views = hand_views(client, created.match_id)
    played = [(v.zipai.dealer, list(v.outcome.winners)) for v in views]
    assert played[0][0] == 2, played
    for (dealer, winners), (following, _) in zip(played, played[1:], strict=False):
        assert following == (winners[0] if winners else dealer), f"seed={SEED}: {played}"
    totals = [sum(v.outcome.scores[s] for v in views) for s in range(3)]
    assert [s.total for s in final.standings] == totals
    last = views[-1]
    assert last.match.finished and last.match.hand == 4
    assert list(last.match.winners) == list(final.winners)


def test_a_huaniao_match_of_three_hands_is_watched_whole_and_verified(
    server: ServerProcess, client: TableClient, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    settings = pb.MatchSettings(hands=3)
    created, seats = seated_match(client, huaniao_options("BASIC"), 3, settings)
    seen: list[tuple[str, int]] = []
    moved: list[pb.NextHand] = []
    spectator = client.as_viewer(created.game_id)

    def watch() -> None:
        for reply in spectator.watch_match():
            if reply.HasField("next_hand"):
                moved.append(reply.next_hand)
            else:
                seen.append((reply.game_id, reply.event.version))

    watcher = threading.Thread(target=watch)
    watcher.start()
    _moves, final = play_match([make_bot(s, "heuristic", SEED + i) for i, s in enumerate(seats)])
    watcher.join(timeout=60)
    assert not watcher.is_alive(), "the stream should end with the match"
    games = [r.game_id for r in final.results]
    expected = []
    for game_id in games:
        last = client.as_viewer(game_id).view().version
        expected += [(game_id, v) for v in range(1, last + 1)]
    assert seen == expected, "every event of every hand, in order, no gap, no duplicate"
    assert [m.game_id for m in moved] == [*games[1:], ""]
    assert [m.hand for m in moved] == [2, 3, 0]
    assert [m.match.current_game_id for m in moved[:-1]] == games[1:]
    assert moved[-1].match.finished
    # the standings after each hand, in the next_hand messages
    assert [len(m.match.results) for m in moved] == [1, 2, 3]

    out = cli(server, "match", created.game_id)
    assert "standings (final): the lower total leads" in out and "hand 3" in out
    view_out = cli(server, "view", games[-1])
    assert "ended after 3 hands" in view_out

    export = tmp_path / "match.jsonl"
    assert (
        audit.main(
            ["--target", server.target, "export", "--match", created.match_id, "-o", str(export)]
        )
        == 0
    )
    assert audit.main(["--target", server.target, "verify", "--file", str(export)]) == 0
    assert audit.main(["--target", server.target, "verify", "--match", created.match_id]) == 0
    lines = export.read_text().splitlines()
    forged = [json.loads(line) for line in lines]
    ended = next(d for d in forged if d.get("fact", {}).get("type") == "HandEnded")
    ended["fact"]["data"]["scores"][0] -= 1
    export.write_text("\n".join(json.dumps(d) for d in forged) + "\n")
    with pytest.raises(SystemExit) as failed:
        audit.main(["--target", server.target, "verify", "--file", str(export)])
    assert failed.value.code == 1


def test_bots_play_matches_from_the_cli_and_show_the_standings(server: ServerProcess) -> None:
    out = cli(server, "bots", "--kind", "zipai", "--seats", "2", "--hands", "2", "--seed", "3")
    assert "standings (final): the higher total leads" in out
    assert "hand 1" in out and "hand 2" in out


def test_ready_and_match_errors_name_the_rule(server: ServerProcess, client: TableClient) -> None:
    single = client.create_game(huaniao_options("BASIC"), 2)
    seat = client.join(single.game_id, 0, "a")
    with pytest.raises(grpc.RpcError) as e:
        seat.ready_next_hand()
    assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    info = detail(e.value, error_details_pb2.ErrorInfo)
    assert info.reason == "NOT_A_MATCH" and info.metadata["rule"] == "match"
    created, _seats = seated_match(client, huaniao_options("BASIC"), 2, pb.MatchSettings(hands=2))
    with pytest.raises(grpc.RpcError) as e:
        client.as_viewer(created.game_id).ready_next_hand()
    assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(grpc.RpcError) as e:
        client.create_game(huaniao_options("BASIC"), 2, match=pb.MatchSettings(hands=65))
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    bad = detail(e.value, error_details_pb2.BadRequest)
    assert bad.field_violations[0].field == "match.hands"
    with pytest.raises(grpc.RpcError) as e:
        client.match("00000000-0000-4000-8000-000000000000")
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.RpcError) as e:
        client.match("not-an-id")
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as e:  # a game's id is no match's, and the other way
        client.match(created.game_id)
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.RpcError) as e:
        client.as_viewer(created.match_id).view()
    assert e.value.code() == grpc.StatusCode.NOT_FOUND


def test_a_match_continues_after_a_server_restart(tmp_path) -> None:  # type: ignore[no-untyped-def]
    proc = ServerProcess(tmp_path).start()
    try:
        with TableClient(proc.target) as client:
            settings = pb.MatchSettings(hands=3)
            created, seats = seated_match(client, huaniao_options("BASIC"), 2, settings)
            bots = [make_bot(s, "heuristic", SEED + i) for i, s in enumerate(seats)]
            play_to_end(bots)
            second = draw_next_hand(seats).current_game_id  # commit, reveal: dealt
            tokens = [s.credential for s in seats]
            for bot in bots:
                bot.seat.game_id = second
            for _ in range(6):
                for seat in client.as_viewer(second).view().to_act:
                    bots[seat].step()
            before = client.as_viewer(second).view()
        proc.stop(kill=True)
        proc.start()
        with TableClient(proc.target) as client:
            assert client.as_viewer(second).view() == before
            seats = [client.as_viewer(second, t) for t in tokens]
            for i, s in enumerate(seats):
                s.seat = i
            _moves, final = play_match(
                [make_bot(s, "heuristic", SEED + i) for i, s in enumerate(seats)]
            )
            assert final.finished and len(final.results) == 3
        assert audit.main(["--target", proc.target, "verify", "--match", created.match_id]) == 0
    finally:
        proc.stop()
        proc.cleanup()


def test_seats_say_ready_from_the_cli_and_a_watcher_follows_the_match(
    server: ServerProcess, client: TableClient
) -> None:
    settings = pb.MatchSettings(hands=2, advance=pb.HAND_ADVANCE_READY)
    created, seats = seated_match(client, huaniao_options("BASIC"), 2, settings)
    play_to_end([make_bot(s, "heuristic", SEED + i) for i, s in enumerate(seats)])
    first = cli(server, "ready", created.game_id, "--token", seats[0].credential)
    assert "committed to hand 2: seat 0" in first and "hand 2 of 2" in first
    found = re.search(r"tabletop reveal\s+(\S+)\s+--contribution\s+(\S+)", first)
    assert found is not None, first
    second = cli(server, "--json", "ready", created.game_id, "--token", seats[1].credential)
    dealt = json.loads(second)
    assert dealt["current_hand"] == 2 and dealt["current_game_id"] != created.game_id
    assert found.group(1) == dealt["current_game_id"]
    for token, contribution in (
        (seats[0].credential, found.group(2)),
        (seats[1].credential, dealt["contribution"]),
    ):
        cli(
            server,
            "reveal",
            dealt["current_game_id"],
            "--token",
            token or "",
            "--contribution",
            contribution,
        )
    for s in seats:
        s.game_id = dealt["current_game_id"]
    play_to_end([make_bot(s, "heuristic", SEED + i) for i, s in enumerate(seats)])
    lines = cli(server, "--json", "watch", created.game_id, "--follow-match").splitlines()
    replies = [json.loads(line) for line in lines]
    moved = [r["next_hand"] for r in replies if "next_hand" in r]
    assert [m.get("hand", 0) for m in moved] == [2, 0]
    hands = {r["game_id"] for r in replies if "event" in r}
    assert hands == {created.game_id, dealt["current_game_id"]}
