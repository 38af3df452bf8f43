"""The web port's bots and a person's justice: they vote on a case as an honest player would
(so a report at their table closes in seconds, not at the case limit), and they wait
``--web-bots-delay-ms`` after the person's move, so that 误操作 can be used against them.

One server for the module; a table: the person at seat 0 is this test, seats 1-2
are the bots of ``POST /bots`` (a ``tabletop bots --join --bot-delay-ms`` process)."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest

from clients.python.bots import honest_vote
from clients.python.play import game_options
from clients.python.serverproc import ServerProcess
from tabletop.v1 import tabletop_pb2 as pb
from tests.connect.apis import Failure, open_api
from tests.connect.test_web_port import post_bots

# the first deal: seat 0 deals, so its opening discard can be taken back at once
SEED = int(os.environ.get("TABLETOP_TEST_SEED", "3"))
# Long enough for the test's LegalMoves and 误操作 to come before the bots' answer; a
# retraction is possible only after a move no card was drawn after (a discard a bot may
# claim), so the test waits out the bots' answers several times in a game.
DELAY_MS = 1000
CASE_LIMIT_S = 120  # the server's default case limit: the bots must close a case long before
PHRASE = "風過無痕，月照無意"


class GameOver(Exception):
    """The bots ended the game (one went out), or left the test no chance at it, before the
    test was done: take a new table."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    root = tmp_path_factory.mktemp("dist")
    (root / "index.html").write_text("<!doctype html><title>牌桌</title>")
    flags = [
        "--allow-prepared-deals",
        "--web-port",
        "0",
        "--web-bots",
        "--web-root",
        str(root),
        "--web-bots-delay-ms",
        str(DELAY_MS),
        "--web-bots-per-client",
        "8",
        "--web-bots-per-network",
        "8",
    ]
    proc = ServerProcess(tmp_path_factory.mktemp("justice"), extra=flags).start()
    yield proc
    proc.stop()


def new_table(server: ServerProcess, seed: int) -> tuple[Any, str, str]:
    """A 川南字牌 table of 3: seat 0 is the person (this test), bots fill seats 1-2 and deal.
    Returns (api, game id, seat 0's token). (Not 花鸟风月: its easy modes often end at a bot's
    first turn, and under 阳春白雪 every play draws, which no 误操作 can take back.)"""
    api = open_api("grpc", server.target, None)
    created = api.call(
        "CreateGame",
        pb.CreateGameRequest(
            allow_unkeyed_seats=True, options=game_options("zipai"), seat_count=3, seed=seed
        ),
    )
    me = api.call("JoinGame", pb.JoinGameRequest(game_id=created.game_id, seat=0)).seat_token
    status, data = post_bots(server.web_port or 0, {"game_id": created.game_id, "token": me})
    assert status == 202, data
    _until(lambda: _view(api, created.game_id, me).phase == pb.GAME_PHASE_PLAYING, 30)
    return api, created.game_id, me


def on_fresh_tables(server: ServerProcess, check: Any) -> None:
    """Run ``check(api, game_id, token)`` at a bots' table, on a new one when the bots
    end a game first (their choices are their own: the deal is seeded, their play is not;
    four tables all ended first once in a loaded full suite)."""
    for attempt in range(8):
        try:
            check(*new_table(server, SEED + attempt))
            return
        except GameOver as why:
            print(f"the game of seed {SEED + attempt}: {str(why) or 'it ended first'}; another table")
    raise AssertionError("eight games ended, or gave no chance, before the test was done")


def _view(api: Any, game_id: str, token: str) -> pb.GameView:
    return api.call("GetView", pb.GetViewRequest(game_id=game_id), token).view


def _until(probe: Any, seconds: float) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = probe()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"timed out after {seconds} s")


def _my_turn(api: Any, game_id: str, token: str) -> pb.LegalMovesResponse:
    """Seat 0's legal game moves, once it is its turn (the game must still run)."""

    def probe() -> pb.LegalMovesResponse | None:
        view = _view(api, game_id, token)
        if view.phase != pb.GAME_PHASE_PLAYING:
            raise GameOver
        legal = api.call("LegalMoves", pb.LegalMovesRequest(game_id=game_id), token)
        return legal if any(m.WhichOneof("game") == "zipai" for m in legal.moves) else None

    found: pb.LegalMovesResponse = _until(probe, 60)
    return found


def _small_move(legal: pb.LegalMovesResponse) -> pb.Move:
    """A pass on a claim, else a discard (they reveal nothing hidden), else the first move."""
    game = [m for m in legal.moves if m.WhichOneof("game") == "zipai"]
    for kind in ("pass_claim", "discard"):
        found = [m for m in game if m.zipai.WhichOneof("kind") == kind]
        if found:
            return found[0]
    return game[0]


def test_a_report_at_a_bots_table_closes_on_their_votes_in_seconds(server: ServerProcess) -> None:
    on_fresh_tables(server, _report_closes)


def _report_closes(api: Any, game_id: str, me: str) -> None:
    _my_turn(api, game_id, me)
    at = _view(api, game_id, me).version
    report = pb.TableCommand(
        report=pb.Report(
            accused=1,
            violation=pb.VIOLATION_KIND_OTHER,
            evidence=[at],
            penalty=pb.Penalty(kind=pb.PENALTY_KIND_WARNING),
            note="他偷看了我的牌",
        )
    )
    started = time.monotonic()
    filed = api.call(
        "Play", pb.PlayRequest(game_id=game_id, expected_version=at, move=pb.Move(table=report)), me
    )
    case_id = filed.version - len(filed.events) + 1  # the version of the ViolationReported

    def closed() -> pb.CaseView | None:
        case = next(c for c in _view(api, game_id, me).cases if c.id == case_id)
        return case if case.status != pb.CASE_STATUS_OPEN else None

    case = _until(closed, 30)
    took = time.monotonic() - started
    # 其他违规 is what the engine cannot check: every bot, the accused included, rejects it
    assert case.status == pb.CASE_STATUS_REJECTED, case
    assert sorted(case.rejected_by) == [1, 2] and not case.upheld_by and not case.lapsed
    assert took < 15 < CASE_LIMIT_S, f"the case took {took:.1f} s"


def test_a_bot_waits_before_answering_so_misplay_works_against_it(server: ServerProcess) -> None:
    on_fresh_tables(server, _misplay_works)


def _misplay_works(api: Any, game_id: str, me: str) -> None:
    waited: list[float] = []
    retracted = False
    for _ in range(12):
        legal = _my_turn(api, game_id, me)
        move = _small_move(legal)
        played = api.call(
            "Play", pb.PlayRequest(game_id=game_id, expected_version=legal.version, move=move), me
        )
        after = api.call("LegalMoves", pb.LegalMovesRequest(game_id=game_id), me)
        undo = [m for m in after.moves if m.table.WhichOneof("kind") == "retract"]
        if not retracted and undo and after.version == played.version:
            # 误操作 against the bots: their answer is still pending (they wait DELAY_MS)
            try:
                back = api.call(
                    "Play",
                    pb.PlayRequest(
                        game_id=game_id,
                        expected_version=after.version,
                        move=pb.Move(table=pb.TableCommand(retract=pb.Retract(phrase=PHRASE))),
                    ),
                    me,
                )
            except Failure as lost:  # a bot answered between the two calls (a loaded machine)
                assert lost.code in ("aborted", "failed_precondition"), lost
            else:
                assert back.version > played.version
                assert any(e.table.WhichOneof("kind") == "move_retracted" for e in back.events)
                retracted = True
                continue
        started = time.monotonic()

        def answered(v: int = played.version) -> pb.GameView | None:
            w = _view(api, game_id, me)
            if w.phase != pb.GAME_PHASE_PLAYING:
                raise GameOver
            return w if w.version > v or list(w.to_act) == [0] else None

        if _until(answered, 30).version > played.version:  # a bot answered (not seat 0 again)
            waited.append(time.monotonic() - started)
        if retracted and waited:
            break
    if not retracted:  # every answer came first (a loaded machine): another table
        raise GameOver("no move of seat 0 could be taken back before a bot answered it")
    assert waited and min(waited) >= DELAY_MS / 1000 * 0.8, f"the bots answered after {waited} s"


@pytest.mark.parametrize(
    "violation,appeal,uphold",
    [
        (pb.VIOLATION_KIND_ILLEGAL_COMBO, False, True),  # the engine re-decided the move: confirm
        (pb.VIOLATION_KIND_DISCARD_ORDER, False, True),
        (pb.VIOLATION_KIND_OTHER, False, False),  # what the engine cannot check: reject
        (pb.VIOLATION_KIND_TIMEOUT, False, False),
        (pb.VIOLATION_KIND_ILLEGAL_COMBO, True, False),  # an appeal against a checked penalty
        (pb.VIOLATION_KIND_OTHER, True, True),  # an appeal against an unchecked one
    ],
)
def test_the_honest_vote(violation: int, appeal: bool, uphold: bool) -> None:
    """The policy alone, on a view with an open case (a report, or an appeal of case 5)."""
    view = pb.GameView()
    if appeal:
        view.cases.add(id=5, violation=violation, status=pb.CASE_STATUS_UPHELD)
        view.cases.add(id=9, is_appeal=True, evidence=[5], status=pb.CASE_STATUS_OPEN)
    else:
        view.cases.add(id=9, violation=violation, status=pb.CASE_STATUS_OPEN)
    votes = [
        pb.Move(table=pb.TableCommand(cast_vote=pb.CastVote(case_id=9, uphold=u)))
        for u in random.Random(violation).sample([True, False], 2)
    ]
    pick = honest_vote(view, votes)
    assert pick is not None and votes[pick].table.cast_vote.uphold is uphold
    assert honest_vote(view, []) is None  # no vote to cast: nothing chosen


def test_a_view_without_the_case_gets_no_vote() -> None:
    votes = [pb.Move(table=pb.TableCommand(cast_vote=pb.CastVote(case_id=3, uphold=True)))]
    assert honest_vote(pb.GameView(), votes) is None
