"""A deal nobody can choose, through a real server (docs/api.md, "Audit").

Each attack is tried the way a cheating seat, arbiter or table creator would try it: the
last joiner and an arbiter in the last seat pick their contributions after seeing every
other commitment and then try to change them; a seat withholds its reveal; a spectator
tries to find a small seed from the public commitment; a creator prepares the deal. Both
games are covered.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from clients.python import cli
from clients.python.audit_verify import verify_game
from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient, reveal_and_start
from clients.python.exports import export_lines
from clients.python.seat import NotAcknowledged, SeatClient, acknowledgement_problem, commit
from clients.python.serverproc import ServerProcess
from domain.table import deal
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.zipai.v1 import zipai_pb2
from tests.api.helpers import huaniao_options

REVEAL_TIMEOUT = 1.0  # seconds: short, so the withholding tests wait little


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """Prepared deals allowed (the marking tests make some) and a short reveal window."""
    flags = ["--allow-prepared-deals", "--reveal-timeout", str(REVEAL_TIMEOUT)]
    proc = ServerProcess(tmp_path_factory.mktemp("deal"), extra=flags).start()
    yield proc
    proc.cleanup()


@pytest.fixture(scope="module")
def strict(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server as deployed: default settings."""
    proc = ServerProcess(tmp_path_factory.mktemp("strict")).start()
    yield proc
    proc.cleanup()


def zipai_options() -> pb.GameOptions:
    return pb.GameOptions(
        zipai=zipai_pb2.Options(
            variant=zipai_pb2.VARIANT_LUZHOU,
            dealer_rule=zipai_pb2.DEALER_RULE_WINNER,
            scoring=zipai_pb2.SCORING_PROFILE_LUZHOU,
        )
    )


GAMES = {"huaniao": (huaniao_options("BASIC"), 4), "zipai": (zipai_options(), 3)}


def refusal(call: Any) -> tuple[grpc.StatusCode, error_details_pb2.ErrorInfo]:
    with pytest.raises(grpc.RpcError) as e:
        call()
    status = rpc_status.from_call(e.value)  # type: ignore[arg-type]
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    assert any(d.Unpack(info) for d in status.details), status
    return e.value.code(), info  # type: ignore[attr-defined]


def export(client: TableClient, game_id: str) -> tuple[list[str], list[dict[str, Any]]]:
    """The finished game's export: its lines and the stored records they hold."""
    lines = list(export_lines(client.as_viewer(game_id).history()))
    return lines, [json.loads(line) for line in lines]


def facts(records: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [r["fact"]["data"] for r in records if r["fact"]["type"] == kind]


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def key_for(secret: str, entries: list[str]) -> bytes:
    """The table key of docs/api.md, written out here (not deal.table_key) on purpose."""
    return hashlib.sha256("|".join(["tabletop-deal", secret, *entries]).encode()).digest()


def the_deck(records: list[dict[str, Any]]) -> tuple[int, ...]:
    (started,) = facts(records, "GameStarted")
    return tuple(started["deck"])


def deck_from(records: list[dict[str, Any]], entries: list[str]) -> tuple[int, ...]:
    """The deck those entries give, with the secret revealed at the end."""
    (revealed,) = facts(records, "ShuffleRevealed")
    cards = sorted(the_deck(records))  # the mode's card ids
    return deal.deck_for_round(key_for(revealed["secret"], entries), cards, 0)


def committed_before_any_reveal(records: list[dict[str, Any]]) -> dict[int, str]:
    """Every seat's commitment, each recorded before the first reveal."""
    versions = {r["fact"]["type"]: r["version"] for r in reversed(records)}
    first_reveal = versions.get("ContributionRevealed", versions["GameStarted"])
    seated = [r for r in records if r["fact"]["type"] == "SeatTaken"]
    assert all(r["version"] < first_reveal for r in seated)
    return {r["fact"]["data"]["seat"]: r["fact"]["data"]["commitment"] for r in seated}


def finish(seats: list[SeatClient]) -> None:
    play_to_end([RandomBot(s, 90 + i) for i, s in enumerate(seats)])


# --- steering the deal ----------------------------------------------------------------------


def last_seat_tries_to_steer(
    client: TableClient, kind: str, as_arbiter: bool
) -> tuple[str, list[SeatClient], str]:
    """Every seat but the last joins (committing by default); the last joiner (a player, or
    the table's creator with the arbiter token) picks its contribution from everything it
    can see, then tries every trick it has. Returns the game id, the seats and the last
    seat's contribution."""
    options, n = GAMES[kind]
    created = client.create_game(options, n)
    gid = created.game_id
    early = [client.join(gid, s, f"p{s}") for s in range(n - 1)]
    code, info = refusal(early[0].reveal)  # nobody reveals before every seat has committed
    assert (code, info.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "REVEAL_TOO_EARLY")

    snooper = client.as_viewer(gid, created.arbiter_token if as_arbiter else None)
    seen = snooper.view()
    pending = [s.contribution_status for s in seen.seats[: n - 1]]
    assert pending == [pb.CONTRIBUTION_STATUS_PENDING] * (n - 1), "clients commit by default"
    others = [s.contribution_commitment for s in seen.seats[: n - 1]]
    assert all(len(c) == 64 for c in others)
    mine = sha("grind|" + "|".join(others))[:32]  # chosen after seeing every commitment
    last = client.join(gid, n - 1, "last", contribution=mine)
    for seat in early:
        reply = seat.reveal()
        assert reply is not None
    assert list(reply.awaiting_reveals) == [n - 1]

    # Before its own reveal it sees no other seat's contribution in what it receives.
    # (stored_json, the export form, is left to the record's own leak tests.)
    received = b"".join(
        [snooper.view().SerializeToString(), last.view().SerializeToString()]
        + [_without_stored(e) for e in [*last.history(), *snooper.history()]]
    )
    for seat in early:
        assert seat.contribution.encode() not in received

    # Now it would like another contribution: every one is refused and nothing recorded.
    before = snooper.view().version
    for attempt in range(40):
        request = pb.RevealContributionRequest(game_id=gid, contribution=sha(f"{attempt}")[:32])
        code, info = refusal(
            lambda r=request: last.stub.RevealContribution(r, metadata=last.metadata)
        )
        assert (code, info.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "REVEAL_MISMATCH")
    assert snooper.view().version == before
    if as_arbiter:  # nor can it deal around its own reveal while the window is open
        code, info = refusal(snooper.start)
        assert info.reason == "REVEALS_PENDING"
    assert last.reveal() is not None
    (snooper if as_arbiter else last).start()
    return gid, [*early, last], mine


def _without_stored(event: pb.GameEvent) -> bytes:
    copy = pb.GameEvent()
    copy.CopyFrom(event)
    copy.ClearField("stored_json")
    return copy.SerializeToString()


def assert_dealt_from_commitments(records: list[dict[str, Any]], n: int, last: str) -> None:
    """The recorded deck is the one the commitments fixed before anyone revealed."""
    commitments = committed_before_any_reveal(records)
    reveals = {f["seat"]: f["contribution"] for f in facts(records, "ContributionRevealed")}
    assert set(reveals) == set(range(n)) and reveals[n - 1] == last
    for seat, value in reveals.items():
        assert sha(f"tabletop-contribution|{value}") == commitments[seat]
    entries = ["r" + sha(f"tabletop-reveal|{reveals[s]}") for s in range(n)]
    assert the_deck(records) == deck_from(records, entries)
    # There was no other deck for it: withholding deals nothing (the game would be void).


def steer_then_check(server: ServerProcess, kind: str, as_arbiter: bool) -> None:
    with TableClient(server.target) as client:
        gid, seats, mine = last_seat_tries_to_steer(client, kind, as_arbiter)
        finish(seats)
        lines, records = export(client, gid)
        verified = verify_game(client, gid)  # signed by the server's key, as GetSigningKey gives it
    assert_dealt_from_commitments(records, GAMES[kind][1], mine)
    assert verified.report.events == len(records) == len(lines)


def test_the_last_joiner_cannot_steer_the_deal(server: ServerProcess) -> None:
    steer_then_check(server, "huaniao", as_arbiter=False)


def test_an_arbiter_in_the_last_seat_cannot_steer_the_deal(server: ServerProcess) -> None:
    """The table's creator keeps the arbiter token and takes the last seat: before the deal
    the arbiter knows no more than a seat, and after committing it changes nothing."""
    steer_then_check(server, "zipai", as_arbiter=True)


@pytest.mark.parametrize("kind", ["huaniao", "zipai"])
def test_a_withheld_reveal_holds_the_deal_and_nobody_stands_in(
    server: ServerProcess, kind: str
) -> None:
    """The last seat does not reveal: the deal waits, past its reveal window too, and says
    for whom; the late reveal of the committed value is taken (and acknowledged) and the
    one deal of every seat's entropy follows. No record holds RevealWithheld."""
    options, n = GAMES[kind]
    with TableClient(server.target) as client:
        created = client.create_game(options, n)
        gid = created.game_id
        seats = [client.join(gid, s, f"p{s}") for s in range(n)]
        for seat in seats[:-1]:
            seat.reveal()
        code, info = refusal(seats[0].start)
        assert (code, info.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "REVEALS_PENDING")
        waiting = client.as_viewer(gid).view()
        assert waiting.HasField("reveal_deadline") and waiting.HasField("abandon_deadline")
        assert list(waiting.awaiting_seats) == [n - 1]
        assert waiting.deal_status == f"waiting for seat(s) {n - 1} to reveal"
        assert f"waiting for seat(s) {n - 1} to reveal" in cli_view(server, gid)
        left = waiting.reveal_deadline.ToDatetime().timestamp() - time.time()
        assert 0 < left <= REVEAL_TIMEOUT + 1
        time.sleep(max(0.0, left) + 1.0)  # the window passed: nothing changes
        code, info = refusal(seats[0].start)
        assert info.reason == "REVEALS_PENDING", "no timeout stands a seat in"
        late = client.as_viewer(gid).view()
        assert late.phase == pb.GAME_PHASE_WAITING and list(late.awaiting_seats) == [n - 1]
        assert late.seats[n - 1].contribution_status == pb.CONTRIBUTION_STATUS_PENDING
        reply = seats[-1].reveal()  # late, and still taken
        assert reply is not None and reply.HasField("receipt")
        again = seats[-1].reveal()  # a repeat gets the same acknowledgement
        assert again is not None and again.receipt == reply.receipt
        seats[0].start()
        dealt = client.as_viewer(gid).view()
        statuses = {s.contribution_status for s in dealt.seats}
        assert statuses == {pb.CONTRIBUTION_STATUS_REVEALED}
        assert not dealt.HasField("reveal_deadline") and not dealt.awaiting_seats
        finish(seats)
        lines, records = export(client, gid)
        verified = verify_game(client, gid)
    assert not facts(records, "RevealWithheld") and not facts(records, "DealAbandoned")
    reveals = {f["seat"]: f["contribution"] for f in facts(records, "ContributionRevealed")}
    entries = ["r" + sha(f"tabletop-reveal|{reveals[s]}") for s in range(n)]
    assert the_deck(records) == deck_from(records, entries)
    assert verified.report.events == len(records) == len(lines)
    assert verified.report.every_seat_entropy and verified.report.void is None
    assert "every deal from every seat's entropy" in verified.line()


ABANDON_MS = 4000  # the abandonment limit of the censoring tests: generous, not flaky


def test_a_censoring_operator_gets_the_one_deal_or_a_void_game(server: ServerProcess) -> None:
    """An operator that never delivers some seats' reveals (simulated: those calls are never
    made) for every subset short of all, at a 3-seat table: every such table waits, then
    its draw is abandoned and the game is void; it verifies as void, naming the seats.
    Only the table where every reveal got through deals."""
    options, n = GAMES["zipai"]
    subsets = [tuple(s for s in range(n) if m >> s & 1) for m in range(2**n)]
    with TableClient(server.target) as client:
        tables_ = {}
        for through in subsets:
            created = client.create_game(options, n, abandon_after_ms=ABANDON_MS)
            seats = [client.join(created.game_id, s, f"p{s}") for s in range(n)]
            for s in through:
                seats[s].reveal()
            tables_[through] = (created.game_id, seats)
        gid, seats = tables_[tuple(range(n))]
        seats[0].start()
        deadline = time.time() + ABANDON_MS / 1000 + 15
        for through, (gid, seats) in tables_.items():
            if len(through) == n:
                continue
            missing = [s for s in range(n) if s not in through]
            view = client.as_viewer(gid).view()
            while view.phase != pb.GAME_PHASE_FINISHED and time.time() < deadline:
                assert list(view.awaiting_seats) == missing
                time.sleep(0.25)
                view = client.as_viewer(gid).view()
            assert view.void and list(view.void_waiting_for) == missing, through
            assert view.deal_status == "void: no deal, waiting for seat(s) " + ", ".join(
                map(str, missing)
            )
            assert not view.outcome.winners and not view.outcome.scores
            assert view.outcome.reason == "VOID"
            assert "void: no deal, waiting for seat(s)" in cli_view(server, gid)
            code, info = refusal(seats[0].start)
            assert info.reason == "GAME_VOID"
            lines, records = export(client, gid)
            assert not facts(records, "GameStarted") and not facts(records, "RevealWithheld")
            (abandoned,) = facts(records, "DealAbandoned")
            assert abandoned["waiting_for"] == missing and abandoned["round"] == 0
            verified = verify_game(client, gid)
            assert verified.report.void == tuple(missing) and verified.report.winners == ()
            assert "void: no deal, waiting for seat(s)" in verified.line()
        gid, seats = tables_[tuple(range(n))]
        finish(seats)
        assert verify_game(client, gid).report.every_seat_entropy


# --- prepared deals ---------------------------------------------------------------------------


def cli_view(server: ServerProcess, game_id: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cli.main(["--target", server.target, "--no-color", "view", game_id])
    return out.getvalue()


MARK = "prepared deal: chosen by the table's creator"


@pytest.mark.parametrize(
    ("kind", "how", "source"),
    [
        ("huaniao", "deck", pb.DEAL_SOURCE_PREPARED_DECK),
        ("zipai", "seed", pb.DEAL_SOURCE_PREPARED_SEED),
        ("huaniao", "seed", pb.DEAL_SOURCE_PREPARED_SEED),
        ("zipai", "none", pb.DEAL_SOURCE_SHUFFLED),
    ],
)
def test_a_prepared_deck_and_a_seed_are_marked(
    server: ServerProcess, kind: str, how: str, source: int
) -> None:
    """Marked in GameCreated, every view, the event text, the CLI and verify's result."""
    options, n = GAMES[kind]
    with TableClient(server.target) as client:
        if how == "deck":
            created = client.create_game(options, n, deck=list(reversed(range(108))))
        elif how == "seed":
            created = client.create_game(options, n, seed=7)
        else:
            created = client.create_game(options, n)
        gid = created.game_id
        seats = [client.join(gid, s, f"p{s}") for s in range(n)]
        first = next(iter(client.as_viewer(gid).history()))
        assert first.table.game_created.deal_source == source
        marked = source != pb.DEAL_SOURCE_SHUFFLED
        assert (MARK in first.text) is marked
        for token in (None, created.arbiter_token, seats[1].token):
            assert client.as_viewer(gid, token).view().deal_source == source
        assert (MARK in cli_view(server, gid)) is marked
        reveal_and_start(seats)
        assert seats[0].view().deal_source == source
        finish(seats)
        verified = verify_game(client, gid)  # the seals checked against the server's key
    report = verified.report
    assert report.seals == report.moves_redecided + 1
    assert (MARK in report.prepared_deal) is marked
    assert (report.prepared_deal == "") is not marked
    assert (MARK in verified.line()) is marked


def test_prepared_deals_are_refused_by_default(
    strict: ServerProcess, server: ServerProcess
) -> None:
    with TableClient(strict.target) as client:
        for kwargs in ({"seed": 1}, {"deck": list(range(108))}):
            code, info = refusal(lambda kw=kwargs: client.create_game(huaniao_options(), 4, **kw))  # type: ignore[misc]
            assert code == grpc.StatusCode.FAILED_PRECONDITION
            assert info.reason == "PREPARED_DEALS_DISABLED"
            assert "--allow-prepared-deals" in info.metadata["rule"]
            assert "TABLETOP_ALLOW_PREPARED_DEALS" in info.metadata["rule"]
        shuffled = client.create_game(huaniao_options(), 4)  # a shuffled table is fine
        assert client.as_viewer(shuffled.game_id).view().deal_source == pb.DEAL_SOURCE_SHUFFLED
    log = (server.data_dir / "server.log").read_text()
    assert "prepared deals are ALLOWED" in log, "a server that allows them says so"
    assert "prepared deals are ALLOWED" not in (strict.data_dir / "server.log").read_text()


def test_a_seed_cannot_be_found_from_the_commitment(server: ServerProcess) -> None:
    """A spectator tries every seed below 2^16 against the public commitment, with the
    old formula (secret from the seed, no salt) and the new one without its salt."""
    seed = 4_242
    with TableClient(server.target) as client:
        a = client.create_game(huaniao_options(), 4, seed=seed)
        b = client.create_game(huaniao_options(), 4, seed=seed)
        public = {client.as_viewer(g.game_id).view().commitment for g in (a, b)}
    assert len(public) == 2, "the same seed never gives the same commitment"
    for guess in range(1 << 16):
        secret = sha(f"tabletop-seed|{guess}")
        for candidate in (sha(f"tabletop-commit|{secret}|"), sha(f"tabletop-commit|{secret}||")):
            assert candidate not in public, f"seed {guess} found from the commitment"


def test_clients_commit_and_nobody_commits_for_a_seat(server: ServerProcess) -> None:
    """A JoinGame commitment is checked; a seat that sends none contributes nothing."""
    with TableClient(server.target) as client:
        created = client.create_game(huaniao_options(), 4)
        gid = created.game_id
        stub = client.stub
        for bad in ("x" * 64, commit("a").upper(), commit("a")[:63]):
            with pytest.raises(grpc.RpcError) as e:
                stub.JoinGame(pb.JoinGameRequest(game_id=gid, seat=0, contribution_commitment=bad))
            assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
        quiet = client.join(gid, 0, "quiet", contribution="")
        assert client.as_viewer(gid).view().version == 1 + 1, "refused joins appended nothing"
        code, info = refusal(
            lambda: stub.RevealContribution(
                pb.RevealContributionRequest(game_id=gid, contribution="late"),
                metadata=quiet.metadata,
            )
        )
        assert info.reason == "REVEAL_TOO_EARLY"
        others = [client.join(gid, s) for s in range(1, 4)]
        code, info = refusal(
            lambda: stub.RevealContribution(
                pb.RevealContributionRequest(game_id=gid, contribution="late"),
                metadata=quiet.metadata,
            )
        )
        assert info.reason == "NOTHING_TO_REVEAL"
        statuses = [s.contribution_status for s in client.as_viewer(gid).view().seats]
        assert statuses == [pb.CONTRIBUTION_STATUS_NONE] + [pb.CONTRIBUTION_STATUS_PENDING] * 3
        for seat in others:
            first = seat.reveal()
            again = seat.reveal()  # a retried reveal changes nothing
            assert first is not None and again is not None and again.version == first.version
        with pytest.raises(grpc.RpcError) as e:
            client.as_viewer(gid).stub.RevealContribution(
                pb.RevealContributionRequest(game_id=gid, contribution="x")
            )
        assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED  # type: ignore[attr-defined]
        quiet.start()


def test_the_cli_and_the_demo_make_no_prepared_table_by_default(strict: ServerProcess) -> None:
    """On a server as deployed (which refuses seeds), `tabletop bots` and the demo play:
    they asked for no seed, and every seat committed and revealed."""
    from clients.python import demo

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cli.main(["--target", strict.target, "--json", "-q", "bots", "--games", "1"])
    (game,) = json.loads(out.getvalue())["games"]
    assert game["seed"] is None
    with TableClient(strict.target) as client:
        view = client.as_viewer(game["game_id"]).view()
    assert view.deal_source == pb.DEAL_SOURCE_SHUFFLED
    assert {s.contribution_status for s in view.seats} == {pb.CONTRIBUTION_STATUS_REVEALED}
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        demo.run(strict.target)  # refused, were it to seed its table
    assert "a deal nobody chose" in " ".join(shown.getvalue().split())


def test_an_older_client_contribution_is_committed_and_revealed_at_once(
    server: ServerProcess,
) -> None:
    """JoinGame.contribution (the form before commit–reveal) still works: the seat counts as
    revealed, nothing waits for it, and its value reaches nobody while the game runs."""
    with TableClient(server.target) as client:
        created = client.create_game(huaniao_options(), 4, allow_unkeyed_seats=True)
        gid = created.game_id
        values = [f"older-client-{s}-{sha(gid)[:8]}" for s in range(4)]
        tokens = [
            client.stub.JoinGame(pb.JoinGameRequest(game_id=gid, seat=s, contribution=v)).seat_token
            for s, v in enumerate(values)
        ]
        viewer = client.as_viewer(gid, tokens[1])
        seen = viewer.view()
        assert {s.contribution_status for s in seen.seats} == {pb.CONTRIBUTION_STATUS_REVEALED}
        assert seen.seats[0].contribution_commitment == commit(values[0])
        viewer.start()  # no reveal is pending
        arbiter = client.as_viewer(gid, created.arbiter_token)
        received = b"".join(
            [viewer.view().SerializeToString(), arbiter.view().SerializeToString()]
            + [_without_stored(e) for e in [*viewer.history(), *arbiter.history()]]
        )
    for value in values:
        assert value.encode() not in received


def test_a_seat_without_a_valid_acknowledgement_knows_it_was_refused(
    server: ServerProcess,
) -> None:
    """The client checks every reveal's acknowledgement: a reply without the signed receipt
    (a censoring operator's), or with one over other events, is a refusal, said so."""
    options, n = GAMES["zipai"]
    with TableClient(server.target) as client:
        created = client.create_game(options, n)
        seats = [client.join(created.game_id, s, f"p{s}") for s in range(n)]
        reply = seats[0].reveal()
        assert reply is not None
        keys = seats[0]._server_keys()
        ok = acknowledgement_problem(reply, created.game_id, 0, "contribution_revealed", None, keys)
        assert ok == ""
        stripped = pb.RevealContributionResponse()
        stripped.CopyFrom(reply)
        stripped.ClearField("receipt")
        problem = acknowledgement_problem(
            stripped, created.game_id, 0, "contribution_revealed", None, keys
        )
        assert problem == "no signed acknowledgement came back"
        other = pb.RevealContributionResponse()
        other.CopyFrom(reply)
        other.events[0].table.contribution_revealed.seat = 1  # another seat's, claimed
        problem = acknowledgement_problem(
            other, created.game_id, 1, "contribution_revealed", None, keys
        )
        assert "does not check" in problem
        assert acknowledgement_problem(
            reply, created.game_id, 1, "contribution_revealed", None, keys
        )
        with pytest.raises(NotAcknowledged, match="seat 0's reveal was refused"):
            seats[0]._acknowledged(
                stripped, created.game_id, "reveal", "contribution_revealed", None
            )
