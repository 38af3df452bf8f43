"""Replay for appeals: version by version, each as the viewer could see it then."""

from __future__ import annotations

import grpc
import pytest

from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient
from tests.api.helpers import seated_game


def hands_shown(step) -> list[int]:  # type: ignore[no-untyped-def]
    """How many seats' cards this view shows."""
    return [len(s.cards) for s in step.view.huaniao.seats]


def test_a_seat_replays_only_what_it_saw_and_the_arbiter_everything(client: TableClient) -> None:
    game_id, seats, arbiter_token = seated_game(client, seed=17)
    bots = [RandomBot(s, i) for i, s in enumerate(seats)]
    for _ in range(6):
        for seat in client.as_viewer(game_id).view().to_act:
            bots[seat].step()
    latest = client.as_viewer(game_id).view().version
    steps = list(seats[2].replay())
    assert [s.view.version for s in steps] == list(range(1, latest + 1))
    assert [s.event.version for s in steps] == list(range(1, latest + 1))
    dealt = [s for s in steps if s.view.HasField("huaniao") and any(hands_shown(s))]
    assert dealt, "the seat sees its own hand"
    for step in dealt:
        shown = hands_shown(step)
        assert all(n == 0 for i, n in enumerate(shown) if i != 2), "only its own cards"
    arbiter_steps = list(client.as_viewer(game_id, arbiter_token).replay(8, 10))
    assert [s.view.version for s in arbiter_steps] == [8, 9, 10]
    assert all(n > 0 for n in hands_shown(arbiter_steps[-1]))
    assert len(arbiter_steps[-1].view.huaniao.deck) == arbiter_steps[-1].view.huaniao.deck_size


def test_after_the_end_everyone_replays_everything(client: TableClient) -> None:
    game_id, seats, _ = seated_game(client, seed=18)
    play_to_end([RandomBot(s, i) for i, s in enumerate(seats)])
    spectator = client.as_viewer(game_id)
    steps = list(spectator.replay(10, 10))
    assert len(steps) == 1
    assert sum(hands_shown(steps[0])) > 0, "a spectator sees the hands once the game is over"


def test_a_replay_range_outside_the_game_is_invalid(client: TableClient) -> None:
    game_id, seats, _ = seated_game(client, seed=19)
    with pytest.raises(grpc.RpcError) as e:
        list(seats[0].replay(5, 10_000))
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_the_arbiter_sees_the_disputed_moment_as_each_seat_saw_it(client: TableClient) -> None:
    game_id, seats, arbiter_token = seated_game(client, seed=23)
    arbiter = client.as_viewer(game_id, arbiter_token)
    moment = arbiter.view().version
    for seat in seats:
        as_seen = arbiter.view(moment, as_seat=seat.seat)
        own = seat.view(moment)
        assert as_seen == own, f"seat {seat.seat}: the arbiter sees exactly what the seat saw"
        steps = list(arbiter.replay(moment - 2, moment, as_seat=seat.seat))
        assert [s.view for s in steps][-1] == own
    with pytest.raises(grpc.RpcError) as e:
        seats[0].view(moment, as_seat=1)
    assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
