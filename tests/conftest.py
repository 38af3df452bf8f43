"""Suite-wide: the known-long test files run first.

`make test` runs ``pytest -n 2 --dist loadgroup``: every ``xdist_group`` is one unit of work
(xdist queues the groups first, the largest first), then every other test is a unit of its
own, in collection order, handed to whichever worker is free. A long test at the end of that
queue (tests/test_bench_smoke.py, collected last, took 2 minutes) leaves the other core idle
while it runs; queued first, the short tests fill in around it. So the files below, longest
single tests first, are moved to the front (each file whole and in its own order, so that its
module-scoped server starts once per worker). An entry that goes stale costs nothing but its
place in the queue; measure with ``--durations`` before adding one.

The tests named in BACKGROUND are marked ``background``: `make test` runs them in a second
pytest beside the rest, at the lowest CPU priority (Makefile, ``test``).
"""

from __future__ import annotations

import pytest

LONG_FIRST = (
    "tests/test_bench_smoke.py",  # every bench section at tiny sizes: ~2 min
    "tests/hardening/test_fuzz.py",
    "tests/api/test_node_client.py",
    "tests/hardening/test_streams.py",
    "tests/api/test_webhooks.py",
    "tests/api/test_leak_hunt.py",  # 8 hunts over gRPC, 20-27 s each
    "tests/hardening/test_leaks.py",  # 20 in-process hunts, 10-25 s each
    "tests/server/test_watch_race.py",
    "tests/api/test_conformance.py",
    "tests/domain/zipai/test_zipai_selfplay.py",
    "tests/domain/huaniao/test_huaniao_default_game.py",
    "tests/test_bench_peers.py",
    "tests/api/test_node_verify.py",
    "tests/hardening/test_crash.py",
    "tests/api/test_rendering_lie.py",
    "tests/api/test_long_history.py",
)


# In-process, untimed and CPU-bound (random games played and checked in the test's own
# process: no server, no clock, no port): about 430 s of CPU of the suite's 1,530, measured
# per test (the worker's CPU and its reaped children's, 2026-12-07). The rest of the suite
# waits about a quarter of its time (servers starting, browsers, PostgreSQL, timed waits),
# and these fill those waits at nice 19 instead of holding a worker; they never make another
# test wait for a core, which the timed ones would feel. Each entry: a node id's start.
BACKGROUND = (
    "tests/hardening/test_leaks.py::test_no_viewer_ever_learns_a_hidden_card",  # 274 s
    "tests/domain/huaniao/test_huaniao_selfplay.py",  # 55 s
    "tests/adversary/test_adversary.py",  # 25 s
    "tests/domain/huaniao/test_huaniao_default_game.py",  # 18 s
    "tests/domain/test_justice.py::test_random_games_with_table_commands",  # 15 s
    "tests/domain/test_justice.py::test_no_redacted_fact_or_view_leaks",  # 4 s
    "tests/api/test_bots.py::test_two_seats_the_heuristic_wins_most_games",  # 6 s
    "tests/api/test_bots.py::test_four_seats_one_heuristic_wins",  # 6 s
    "tests/domain/zipai/test_zipai_selfplay.py",  # 8 s
    "tests/domain/huaniao/test_huaniao_views.py::test_no_view_or_redacted_event_leaks",  # 7 s
    "tests/domain/zipai/test_zipai_views.py::test_no_hidden_card_reaches",  # 3 s
)


def pytest_itemcollected(item: pytest.Item) -> None:
    if item.nodeid.startswith(BACKGROUND):
        item.add_marker(pytest.mark.background)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {path: i for i, path in enumerate(LONG_FIRST)}
    last = len(LONG_FIRST)
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], last))
