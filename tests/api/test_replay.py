"""Replay for appeals: version by version, each as the viewer could see it then."""

from __future__ import annotations

import grpc
import pytest

from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient
from tabletop.v1 import tabletop_pb2 as pb
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


def test_after_the_end_every_viewpoint_is_open_to_everyone(client: TableClient) -> None:
    """A finished game keeps the viewer's identity: a version before the end shows what that
    viewer saw then, and anyone, token or not, may ask for it as any seat or the arbiter."""
    game_id, seats, arbiter_token = seated_game(client, seed=18)
    arbiter = client.as_viewer(game_id, arbiter_token)
    before = {s.seat: s.view(10) for s in seats}  # while it runs, what each seat saw at v10
    before_arbiter = arbiter.view(10)
    play_to_end([RandomBot(s, i) for i, s in enumerate(seats)])
    spectator = client.as_viewer(game_id)
    (step,) = spectator.replay(10, 10)
    assert step.view.role == pb.ROLE_SPECTATOR and not step.view.HasField("seat")
    assert sum(hands_shown(step)) == 0, "v10 as the spectator saw it: no hand"
    for seat in seats:
        as_seen = spectator.view(10, as_seat=seat.seat)
        assert as_seen.role == pb.ROLE_SEAT and as_seen.seat == seat.seat
        assert as_seen.huaniao == before[seat.seat].huaniao, "exactly what the seat saw then"
        (replayed,) = spectator.replay(10, 10, as_seat=seat.seat)
        assert replayed.view == as_seen
        own = seat.view(10)
        assert own.role == pb.ROLE_SEAT and own.seat == seat.seat, "the seat keeps its identity"
        assert own.huaniao == before[seat.seat].huaniao
    everything = spectator.view(10, as_arbiter=True)
    assert everything.role == pb.ROLE_ARBITER and everything.huaniao == before_arbiter.huaniao
    last = spectator.view()
    assert last.role == pb.ROLE_SPECTATOR
    everything_now = spectator.view(as_arbiter=True).huaniao
    assert sum(len(s.cards) for s in everything_now.seats) > 0
    assert last.huaniao == everything_now, "the end shows everything to everyone"
    assert spectator.view(last.version, as_seat=1).huaniao == everything_now
    with pytest.raises(grpc.RpcError) as e:
        spectator.view(10, as_seat=1, as_arbiter=True)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_before_the_end_only_the_arbiter_asks_for_other_viewpoints(client: TableClient) -> None:
    game_id, seats, arbiter_token = seated_game(client, seed=21)
    for who in (client.as_viewer(game_id), seats[0]):
        for ask in ({"as_seat": 1}, {"as_arbiter": True}):
            with pytest.raises(grpc.RpcError) as e:
                who.view(5, **ask)  # type: ignore[arg-type]
            assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
            with pytest.raises(grpc.RpcError) as e:
                list(who.replay(1, 5, **ask))  # type: ignore[arg-type]
            assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert client.as_viewer(game_id, arbiter_token).view(5, as_arbiter=True).role == (
        pb.ROLE_ARBITER
    )


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
