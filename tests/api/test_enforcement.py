"""The three enforcement modes through gRPC (四、违规与仲裁 1): the same forbidden combo —
风花雪月 at a 常规 table, where it is illegal — refused, refereed, or recorded as played."""

from __future__ import annotations

import grpc
import pytest
from google.rpc import error_details_pb2

from clients.python.client import TableClient
from clients.python.seat import SeatClient
from domain.huaniao import Combo, Mode, Options, Play
from domain.huaniao.cards import KIND_OF, CardKind
from domain.huaniao.terms import Season
from server.wire.protoconv import fill_oneof
from tabletop.huaniao.v1 import huaniao_pb2 as hn
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.test_game_api import detail
from tests.domain.huaniao.justice_support import prepared_deck

HANDS = ["鸟鸟鸟鸟鸟十十十", "花风月风十百千万", "鸟鸟鸟鸟百百千千"]
TOP = "万万十百千鸟鸟鸟月月"


def table(client: TableClient, enforcement: int) -> tuple[str, list[SeatClient], str]:
    deck = prepared_deck(Options(mode=Mode.REGULAR), HANDS, TOP)
    created = client.create_game(
        pb.GameOptions(huaniao=hn.Options(mode=hn.MODE_REGULAR)),
        3,
        seed=1,
        deck=list(deck),
        enforcement=enforcement,
    )
    seats = [client.join(created.game_id, s, contribution="") for s in range(3)]
    seats[0].start()
    legal = seats[0].legal_moves()  # seat 0 (most birds) opens with one bird
    seats[0].play(legal.moves[0], legal.version)
    return created.game_id, seats, created.arbiter_token


def forbidden_combo(seat: SeatClient) -> pb.Move:
    hand = next(s for s in seat.view().huaniao.seats if s.seat == seat.seat).cards
    ids = [c.id for c in hand if KIND_OF[c.id] in (CardKind.FLOWER, CardKind.WIND, CardKind.MOON)]
    play = Play(1, tuple(ids), combo=Combo.FENG_HUA_XUE_YUE, chosen_season=Season.WINTER)
    move = pb.Move()
    fill_oneof(move.huaniao, play)
    return move


def texts(client: TableClient, game_id: str) -> list[str]:
    return [e.text for e in client.as_viewer(game_id).history()]


def test_reject_refuses_the_combo_and_appends_nothing(client: TableClient) -> None:
    game_id, seats, _ = table(client, pb.ENFORCEMENT_REJECT)
    before = texts(client, game_id)
    with pytest.raises(grpc.RpcError) as e:
        seats[1].play(forbidden_combo(seats[1]), seats[1].view().version)
    assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    info = detail(e.value, error_details_pb2.ErrorInfo)
    assert info.metadata["rule"]  # type: ignore[attr-defined]
    assert texts(client, game_id) == before


def test_referee_takes_the_attempt_and_applies_the_penalty(client: TableClient) -> None:
    game_id, seats, _ = table(client, pb.ENFORCEMENT_REFEREE)
    reply = seats[1].play(forbidden_combo(seats[1]), seats[1].view().version)
    kinds = [
        e.table.WhichOneof("kind") if e.HasField("table") else e.huaniao.WhichOneof("kind")
        for e in reply.events
    ]
    assert kinds[:2] == ["attempt_refereed", "penalty_applied"]
    assert reply.events[0].table.attempt_refereed.violation == pb.VIOLATION_KIND_ILLEGAL_COMBO
    penalty = reply.events[1].table.penalty_applied.penalty
    assert penalty.kind == pb.PENALTY_KIND_DISCARD_AND_DRAW and penalty.count == 1
    view = client.as_viewer(game_id).view()
    assert list(view.violations) == [0, 1, 0] and view.penalties[0].appealable


def test_players_records_the_move_and_a_report_penalises_it(client: TableClient) -> None:
    game_id, seats, arbiter = table(client, pb.ENFORCEMENT_PLAYERS)
    reply = seats[1].play(forbidden_combo(seats[1]), seats[1].view().version)
    evidence = reply.events[0].version
    assert not client.as_viewer(game_id).view().violations[1], "nobody has reported it yet"
    report = pb.Report(
        accused=1,
        violation=pb.VIOLATION_KIND_ILLEGAL_COMBO,
        evidence=[evidence],
        note="风花雪月 at 常规",
    )
    v = seats[2].play(pb.Move(table=pb.TableCommand(report=report)), reply.version).version
    vote = pb.CastVote(case_id=v, uphold=True)  # seat 0, the other seat, confirms it
    seats[0].play(pb.Move(table=pb.TableCommand(cast_vote=vote)), v)
    view = client.as_viewer(game_id).view()
    assert view.cases[0].status == pb.CASE_STATUS_UPHELD and view.violations[1] == 1
    penalty = view.cases[0].penalty
    assert penalty.kind == pb.PENALTY_KIND_DISCARD_AND_DRAW, "the seed fixes it"
    assert sorted(penalty.cards) == sorted(forbidden_cards(reply)), "the engine names the cards"
    assert any("penalty on seat 1" in t for t in texts(client, game_id))


def forbidden_cards(reply: pb.PlayResponse) -> list[int]:
    ids: list[int] = []
    for event in reply.events:
        if event.HasField("huaniao"):
            body = getattr(event.huaniao, event.huaniao.WhichOneof("kind"))
            for field in ("cards",):
                if field in body.DESCRIPTOR.fields_by_name:
                    ids += [c.id for c in getattr(body, field)]
    return ids
