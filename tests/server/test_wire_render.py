"""The wire floor's shortcuts (issue 26) give the messages the plain way gives: a legal-moves
answer from cached move messages and one look at the hand per answer, an event built in one
constructor, ``to_act`` without a view for a game that waits in public."""

from __future__ import annotations

import datetime
import types
from typing import Any

import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from domain import table as tables
from domain.engine import ARBITER, SPECTATOR, MalformedCommand, Viewer
from domain.registry import rules_for
from domain.table import records
from server.wire import render, render_moves
from server.wire.protoconv import fill_oneof
from server.wire.stored import StoredEvent
from tabletop.v1 import tabletop_pb2 as pb
from tests.support.selfplay import PlayedGame, play_random_game

SEATS = {"huaniao": 2, "zipai": 3}


def played(kind: str, seed: int) -> PlayedGame:
    rules = rules_for(kind)
    print("kind", kind, "seed", seed)
    return play_random_game(rules, rules.options_type(), SEATS[kind], seed, roundtrip=False)


@pytest.mark.parametrize("kind", ["huaniao", "zipai"])
@pytest.mark.parametrize("seed", [5, 6])
def test_a_legal_moves_answer_is_each_commands_own_rendering(kind: str, seed: int) -> None:
    rules = rules_for(kind)
    game = played(kind, seed)
    answers = 0
    for state in game.states:
        if rules.outcome(state) is not None:
            continue
        table: Any = types.SimpleNamespace(kind=kind, game=state)
        for seat in rules.to_act(state):
            commands = list(rules.legal_commands(state, seat))
            want = pb.LegalMovesResponse(
                version=7,
                moves=[render_moves.move_proto(kind, c) for c in commands],
                # each label on its own: the hand looked at afresh for every command
                labels=[render_moves.game_move_label(kind, state, c) for c in commands],
            )
            assert render_moves.legal_moves_proto(table, 7, commands) == want
            assert render_moves.legal_moves_proto(table, 7, commands) == want  # from the cache
            assert len(set(want.labels)) == len(commands)
            # and back: each move reads as its command (protoconv's per-class read plans)
            assert [render_moves.read_move(kind, m) for m in want.moves] == commands
            answers += 1
    assert answers > 10


@pytest.mark.parametrize("kind", ["huaniao", "zipai"])
def test_an_event_built_whole_is_the_event_filled_field_by_field(kind: str) -> None:
    game = played(kind, 8)
    start = datetime.datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=datetime.UTC)
    for version, fact in enumerate(game.events, 1):
        at = start + datetime.timedelta(milliseconds=1500 * (version // 3))  # moves share
        stored = StoredEvent(version, at, fact, f"hash{version}")
        want = pb.GameEvent(version=version, text=tables.describe(kind, fact))
        want.recorded_at.FromDatetime(at)
        want.hash = stored.hash
        fill_oneof(getattr(want, kind), fact)
        got = render.event_proto(kind, stored, ARBITER)
        assert got.SerializeToString() == want.SerializeToString(), (version, fact)
        assert got == want
    # a kept time is never the message's own: changing one event's leaves the next alone
    first = render.event_proto(kind, StoredEvent(1, start, game.events[0], "h"), ARBITER)
    first.recorded_at.seconds += 1
    again = render.event_proto(kind, StoredEvent(1, start, game.events[0], "h"), ARBITER)
    assert again.recorded_at == Timestamp(seconds=int(start.timestamp()), nanos=678901000)


def test_to_act_needs_a_view_only_for_a_game_that_names_whom_it_awaits() -> None:
    assert not render._names_awaiting(rules_for("huaniao").view_type)  # waits in public
    assert render._names_awaiting(rules_for("zipai").view_type)  # claims: a seat sees itself
    assert render._names_awaiting(None)  # rules that name no view type: look at the view


def test_a_move_without_its_required_enum_is_refused_by_its_field() -> None:
    move = pb.Move()
    move.huaniao.guess.seat = 1  # card_class left UNSPECIFIED: it has no default
    with pytest.raises(MalformedCommand) as refused:
        render_moves.read_move("huaniao", move)
    assert refused.value.field == "move.huaniao.guess.card_class"
    move.huaniao.guess.card_class = 1
    assert render_moves.read_move("huaniao", move).seat == 1


@pytest.mark.parametrize("kind", ["huaniao", "zipai"])
def test_viewers_who_see_a_fact_alike_share_one_rendering_of_it(kind: str) -> None:
    """Sealing renders each event for every viewer with one ``shared`` memo: each viewer's
    message is exactly its own rendering, and equal redactions (a new object per viewer,
    e.g. a card hidden from every seat but its owner's) are rendered once."""
    game = played(kind, 9)
    at = datetime.datetime(2026, 1, 2, tzinfo=datetime.UTC)
    taken = tables.SeatTaken(1, "p1", "token-hash", "", "commitment")
    facts = [taken, *game.events]
    viewers = records.receipt_viewers(SEATS[kind])
    private = 0
    for version, fact in enumerate(facts, 1):
        stored = StoredEvent(version, at, fact, f"hash{version}")
        shared: render.Shared = {}
        got = [render.event_proto(kind, stored, v, shared=shared) for v in viewers]
        for viewer, msg in zip(viewers, got, strict=True):
            assert msg == render.event_proto(kind, stored, viewer), (version, viewer)
        # the fact itself (a viewer who sees all of it) is one rendering, and equal
        # redacted copies are one more each
        seen = [tables.redact(kind, fact, v) for v in viewers]
        forms = {("itself",) if r is fact else ("copy", r) for r in seen}
        assert len({id(m) for m in got}) == len(forms), (version, fact)
        private += len(forms) > 1
    assert private > 0  # some facts are seen differently (a hand, a drawn card)


@pytest.mark.parametrize("last", [False, True])
def test_a_hand_closed_renders_for_every_viewer_in_words(last: bool) -> None:
    """Issue 36: a match's hand says what follows it, the same for every viewer."""
    fact = tables.HandClosed("m-1", 2, last, "" if last else "g-3")
    stored = StoredEvent(7, None, fact, "ab" * 32)
    follows = "the last" if last else "hand 3 follows: g-3"
    for viewer in (ARBITER, SPECTATOR, Viewer.of_seat(0)):
        msg = render.event_proto("zipai", stored, viewer)
        assert msg.table.WhichOneof("kind") == "hand_closed"
        closed = msg.table.hand_closed
        assert (closed.match_id, closed.hand, closed.last) == ("m-1", 2, last)
        assert closed.next_game_id == ("" if last else "g-3")
        assert msg.text == f"closed: hand 2 of match m-1 ({follows})"
