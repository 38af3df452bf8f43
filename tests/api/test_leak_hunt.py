"""Leak hunt over at least 200 random games through a real server (four chunks of 50)."""

from __future__ import annotations

import pytest

from clients.python.client import TableClient
from tests.api.helpers import huaniao_options
from tests.api.leakhunt import hunt

GAMES_PER_CHUNK = 50


@pytest.mark.parametrize("chunk", range(4))
def test_no_seat_ever_receives_a_card_it_may_not_see(client: TableClient, chunk: int) -> None:
    checks = 0
    leaks: list[str] = []
    for i in range(GAMES_PER_CHUNK):
        seed = 10_000 + chunk * GAMES_PER_CHUNK + i
        mode = "SIMPLE" if seed % 2 else "BASIC"
        result = hunt(client, huaniao_options(mode), 4, seed)
        checks += result.checks
        leaks += result.leaks
    print(f"chunk {chunk}: {GAMES_PER_CHUNK} games, {checks} messages checked, {len(leaks)} leaks")
    assert checks > GAMES_PER_CHUNK * 20
    assert not leaks, "\n".join(leaks[:20])


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_no_zipai_seat_ever_receives_a_card_it_may_not_see(client: TableClient, seats: int) -> None:
    from tabletop.v1 import tabletop_pb2 as pb
    from tabletop.zipai.v1 import zipai_pb2 as zp

    checks, leaks = 0, []
    for i in range(30):
        seed = 20_000 + seats * 100 + i
        result = hunt(client, pb.GameOptions(zipai=zp.Options()), seats, seed)
        checks += result.checks
        leaks += result.leaks
    print(f"zipai {seats} seats: 30 games, {checks} messages checked, {len(leaks)} leaks")
    assert checks > 30 * 20
    assert not leaks, "\n".join(leaks[:20])


def test_no_leak_with_retractions_reports_penalties_and_appeals(client: TableClient) -> None:
    """Random bots retract and appeal when LegalMoves offers it; every 7th move a report with
    a forced-discard penalty goes to a random vote (四、违规与仲裁 in the hunt)."""
    checks, leaks, reported = 0, [], 0
    for i in range(40):
        seed = 30_000 + i
        result = hunt(
            client, huaniao_options("REGULAR" if i % 2 else "BASIC"), 4, seed, reports=True
        )
        checks += result.checks
        leaks += result.leaks
        history = [e.text for e in client.as_viewer(result.game_id).history()]
        reported += sum("reports seat" in t for t in history)
    assert reported >= 10, "the hunt really filed reports"
    assert not leaks, "\n".join(leaks[:20])
