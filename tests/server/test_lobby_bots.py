"""The lobby-bots loop (server/transport/lobbybots.py) on its own: which kept tables a
replica starts bots for, and when it lets a table go. Bot processes are stand-ins (a
Python that sleeps, or exits at once); the game's status and the leases are given."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from server.store.lobbybots import BotSecrets
from server.transport import lobbybots
from server.transport.lobbybots import LobbyBots, LobbyBotSettings, lease_name


class Leases:
    """Leases as a replica sees them: ``others`` are held by another replica."""

    def __init__(self) -> None:
        self.others: set[str] = set()
        self.released: list[str] = []

    def hold(self, name: str) -> bool:
        return name not in self.others

    def release(self, name: str) -> None:
        self.released.append(name)

    def release_all(self) -> None:
        pass


@pytest.fixture()
def bots(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[LobbyBots, dict[str, Any]]]:
    """A LobbyBots with stand-in processes: ``world["exits"]`` makes them exit at once,
    ``world["ended"]`` lists the games that ended, ``world["spawned"]`` the games started."""
    world: dict[str, Any] = {"exits": False, "ended": set(), "spawned": []}

    async def spawn(game_id: str, target: str, env: dict[str, str]) -> Any:
        world["spawned"].append((game_id, env[lobbybots.LOBBY_BOT_SECRET]))
        code = "pass" if world["exits"] else "import time; time.sleep(30)"
        return await asyncio.create_subprocess_exec(sys.executable, "-c", code)

    async def status(game_id: str) -> tuple[int, bool]:
        return 5, game_id in world["ended"]

    monkeypatch.setattr(lobbybots, "spawn", spawn)
    monkeypatch.setattr(lobbybots, "RESTART_AFTER", 0.0)
    runner = LobbyBots(
        LobbyBotSettings(max_processes=2), "127.0.0.1:1", status, BotSecrets(None), Leases(), 0.05
    )
    world["leases"] = runner.leases
    yield runner, world


async def settle(runner: LobbyBots) -> None:
    """Until every stand-in process has exited and its watcher has let its table go (a
    process that has not even started yet, on a loaded machine, counts as running: waiting
    only for exited ones returned at once and failed the next look in a full suite), and
    its watcher has finished."""
    deadline = time.monotonic() + 30
    while (runner.runs or runner._tasks) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)  # _tasks: the watchers, which forget a table after its exit
    assert not runner.runs and not runner._tasks, "the stand-in processes did not exit"


def test_a_table_is_started_once_and_taken_over_only_when_nobody_plays_it(
    bots: tuple[LobbyBots, dict[str, Any]],
) -> None:
    runner, world = bots

    async def scenario() -> None:
        await runner.keep("g1", "s1")  # the matchmaker formed it: kept, not started yet
        assert await runner.take_over() == 0  # a look meanwhile does not start it too
        await runner.start("g1", "s1")
        assert await runner.take_over() == 0  # running here
        runner.kept.add("g2", "s2")  # a table of a replica that died
        world["leases"].others.add(lease_name("g3"))
        runner.kept.add("g3", "s3")  # a table another replica plays
        assert await runner.take_over() == 1
        assert world["spawned"] == [("g1", "s1"), ("g2", "s2")]
        runner.kept.add("g4", "s4")
        assert await runner.take_over() == 0  # two processes at most on this replica
        world["ended"].add("g4")
        world["leases"].others.add(lease_name("g2"))  # g2's lease went to another replica
        await asyncio.sleep(0.2)  # its watcher sees it on its next look
        assert "g2" not in runner.runs
        assert [t.game_id for t in runner.kept.tables()] == ["g1", "g2", "g3", "g4"]  # g2 kept
        assert await runner.take_over() == 0  # g4 ended: forgotten, not started
        assert [t.game_id for t in runner.kept.tables()] == ["g1", "g2", "g3"]
        assert lease_name("g4") in world["leases"].released
        await runner.close()

    asyncio.run(scenario())


def test_bots_that_keep_leaving_are_started_again_then_given_up(
    bots: tuple[LobbyBots, dict[str, Any]],
) -> None:
    runner, world = bots
    world["exits"] = True  # every process leaves at once, its game not ended

    async def scenario() -> None:
        runner.kept.add("g1", "s1")
        for _ in range(lobbybots.MAX_RESTARTS + 1):
            assert await runner.take_over() == 1
            await settle(runner)
            await asyncio.sleep(0.05)
        assert await runner.take_over() == 0  # given up: forgotten
        assert runner.kept.tables() == []
        assert len(world["spawned"]) == lobbybots.MAX_RESTARTS + 1
        await runner.close()

    asyncio.run(scenario())


def test_bots_that_leave_an_ended_game_forget_it(
    bots: tuple[LobbyBots, dict[str, Any]],
) -> None:
    runner, world = bots
    world["exits"] = True

    async def scenario() -> None:
        runner.kept.add("g1", "s1")
        assert await runner.take_over() == 1
        world["ended"].add("g1")  # the game ended, and its bots left
        await settle(runner)
        await asyncio.sleep(0.05)
        assert runner.kept.tables() == []
        assert world["leases"].released == [lease_name("g1")]
        await runner.close()

    asyncio.run(scenario())
