"""Seat views are made once per state and shared between viewers (issue 16: the sealer renders
every viewer's view after each move). Sharing must change nothing a viewer sees: each view
equals one made from scratch, and a seat's own view (its hand, its guess or 过张) is never the
object another viewer gets, except the arbiter."""

from __future__ import annotations

import random

import pytest

from bench.variants import engine_variants
from domain.engine import ARBITER, SPECTATOR, Viewer
from domain.huaniao import views as huaniao_views
from domain.zipai import views as zipai_views
from tests.support.selfplay import play_random_game

VIEWS = {"huaniao": huaniao_views, "zipai": zipai_views}


@pytest.mark.parametrize(
    ("rules", "options", "seats", "label"),
    engine_variants(),
    ids=[f"{v[0].name}-{v[3]}" for v in engine_variants()],
)
def test_shared_seat_views_change_nothing_a_viewer_sees(
    rules: object, options: object, seats: int, label: str
) -> None:
    seed = random.randrange(1 << 30)
    module = VIEWS[rules.name]  # type: ignore[attr-defined]
    played = play_random_game(rules, options, seats, seed, roundtrip=False)  # type: ignore[arg-type]
    viewers = [Viewer.of_seat(s) for s in range(seats)] + [SPECTATOR, ARBITER]
    for state in played.states[:: max(1, len(played.states) // 40)]:
        shared = [module.view(state, v) for v in viewers]
        module._seat_views.clear()  # from scratch: no seat view kept from another viewer
        fresh = [module.view(state, v) for v in viewers]
        for v, a in zip(viewers, shared, strict=True):
            module._seat_views.clear()
            assert a == module.view(state, v), f"seed {seed}, {label}, {v}"
        assert shared == fresh, f"seed {seed}, {label}"
        if shared[-2] == shared[-1]:
            continue  # the spectator sees what the arbiter sees: the game is over, all open
        for i, a in enumerate(shared):
            for k, seat_view in enumerate(a.seats):
                if viewers[i] in (ARBITER, Viewer.of_seat(seat_view.seat)):
                    continue
                # another seat or a spectator: nothing of that seat's own
                assert not _private(seat_view), f"seed {seed}, {label}, {viewers[i]}, seat {k}"
                for j, b in enumerate(shared):
                    if b.seats[k] is seat_view:  # shared: only with those who see it alike
                        assert viewers[j] not in (ARBITER, Viewer.of_seat(seat_view.seat)) or (
                            not _private(b.seats[k])
                        ), f"seed {seed}, {label}"


def _private(seat_view: object) -> bool:
    """Whether a seat view holds what only that seat and the arbiter may see."""
    if isinstance(seat_view, huaniao_views.SeatView):
        return (bool(seat_view.cards) and not seat_view.open_hand) or seat_view.guess is not None
    assert isinstance(seat_view, zipai_views.SeatView)
    return bool(seat_view.hand or seat_view.guo_zhang) or seat_view.guo_hu_fan is not None
