"""Suite-wide: the known-long test files run first.

`make test` runs ``pytest -n 2 --dist loadgroup``: every ``xdist_group`` is one unit of work
(xdist queues the groups first, the largest first), then every other test is a unit of its
own, in collection order, handed to whichever worker is free. A long test at the end of that
queue (tests/test_bench_smoke.py, collected last, took 2 minutes) leaves the other core idle
while it runs; queued first, the short tests fill in around it. So the files below, longest
single tests first, are moved to the front (each file whole and in its own order, so that its
module-scoped server starts once per worker). An entry that goes stale costs nothing but its
place in the queue; measure with ``--durations`` before adding one.
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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {path: i for i, path in enumerate(LONG_FIRST)}
    last = len(LONG_FIRST)
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], last))
