"""The transparency log's calls: signed tree heads, inclusion and consistency proofs
(docs/api.md, "Transparency log"). The logs themselves are server/store/translog.py; this
checks the arguments (each refusal names its field; nothing is ever appended) and keeps the
store's blocking reads off the event loop."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass

from domain import translog
from domain.engine import MalformedCommand, RuleViolation
from server.store.translog import NotLogged, ShardLog, TransparencyLogs
from server.usecases.games import Games, NotFound


@dataclass(frozen=True)
class Inclusion:
    head: translog.TreeHead
    seals: list[tuple[int, int, int, list[bytes]]]  # (first, last, index, audit path)


class Transparency:
    def __init__(self, games: Games, logs: TransparencyLogs) -> None:
        self.games = games
        self.logs = logs

    def _log(self, log_id: str) -> ShardLog:
        try:
            uuid.UUID(log_id)
        except (ValueError, AttributeError, TypeError):
            raise MalformedCommand("log_id", "is not a log id (a UUID)") from None
        found = self.logs.by_id.get(log_id.lower())
        if found is None:
            raise NotFound(f"no log {log_id}")
        return found

    @staticmethod
    def _size(field: str, size: int, shard: ShardLog) -> int:
        if size < 0:
            raise MalformedCommand(field, f"{size} is negative")
        if size > shard.size:
            raise MalformedCommand(field, f"{size} is larger than the log (size {shard.size})")
        return size or shard.size

    async def tree_head(self, log_id: str, tree_size: int) -> translog.TreeHead:
        shard = self._log(log_id)
        await asyncio.to_thread(shard.sequence)
        size = self._size("tree_size", tree_size, shard)
        return await asyncio.to_thread(self.logs.head, shard, size)

    async def inclusion(self, game_id: str, match_id: str, tree_size: int) -> Inclusion:
        if bool(game_id) == bool(match_id):
            raise MalformedCommand("game_id", "give a game_id or a match_id (one of them)")
        if game_id:
            record = self.games.parse_id(game_id)
            await self.games.load(record)  # NotFound for an unknown game
        else:
            try:
                record = uuid.UUID(match_id)
            except (ValueError, AttributeError, TypeError):
                raise MalformedCommand("match_id", "is not a match id") from None
            await self.games.load_match(record)
        shard = self.logs.log_of(record)
        await asyncio.to_thread(shard.sequence)  # the record's latest seals, if not yet placed
        size = self._size("tree_size", tree_size, shard)
        try:
            seals = await asyncio.to_thread(shard.inclusions, str(record), size)
        except NotLogged as exc:
            raise RuleViolation("NOT_YET_LOGGED", "transparency log", str(exc)) from None
        return Inclusion(await asyncio.to_thread(self.logs.head, shard, size), seals)

    async def consistency(
        self, log_id: str, first_size: int, second_size: int
    ) -> tuple[list[bytes], translog.TreeHead, translog.TreeHead]:
        shard = self._log(log_id)
        await asyncio.to_thread(shard.sequence)
        second = self._size("second_size", second_size, shard)
        if first_size < 1:
            raise MalformedCommand("first_size", "must be at least 1")
        if first_size > second:
            raise MalformedCommand(
                "first_size", f"{first_size} is larger than second_size {second}"
            )
        path = await asyncio.to_thread(shard.consistency, first_size, second)
        first_head = await asyncio.to_thread(self.logs.head, shard, first_size)
        second_head = await asyncio.to_thread(self.logs.head, shard, second)
        return path, first_head, second_head
