"""In-process fan-out of newly stored events to Watch streams.

Publishing is once per batch of events; each watcher gets a reference to the same batch,
and the per-viewer rendering is memoised on the batch, so N watchers with the same viewer
cost one rendering. A watcher whose queue overflows is marked lagging and catches up from
the store, so a slow client never blocks the game or loses an event.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from server.wire.stored import StoredEvent


class Batch:
    def __init__(self, events: list[StoredEvent], table: Any = None) -> None:
        self.events = events
        # the game right after the batch's last event, when the publisher had it (a seat's
        # turn at that version is decided from it without rebuilding the game)
        self.table = table
        self._rendered: dict[Any, Any] = {}

    def render(self, key: Any, render: Callable[[list[StoredEvent]], Any]) -> Any:
        if key not in self._rendered:
            self._rendered[key] = render(self.events)
        return self._rendered[key]


class Subscription:
    def __init__(self, hub: Hub, game_id: Any, maxsize: int) -> None:
        self.hub = hub
        self.game_id = game_id
        self.queue: asyncio.Queue[Batch] = asyncio.Queue(maxsize)
        self.lagging = False

    def offer(self, batch: Batch) -> None:
        try:
            self.queue.put_nowait(batch)
        except asyncio.QueueFull:
            self.lagging = True  # the reader will re-read from the store

    async def next_batch(self) -> Batch:
        return await self.queue.get()

    def close(self) -> None:
        self.hub.unsubscribe(self)


class Hub:
    def __init__(self, queue_size: int = 256) -> None:
        self.queue_size = queue_size
        self._subs: dict[Any, set[Subscription]] = defaultdict(set)
        # The newest version published per watched game: an event reaches the hub from this
        # process's own write and, on PostgreSQL, possibly from the store feed too; it is
        # passed on once.
        self._last: dict[Any, int] = {}
        # told every batch published, watched or not (Watch keeps a young game's events)
        self._listeners: list[Callable[[Any, list[StoredEvent]], None]] = []

    def listen(self, listener: Callable[[Any, list[StoredEvent]], None]) -> None:
        self._listeners.append(listener)

    def subscribe(self, game_id: Any) -> Subscription:
        sub = Subscription(self, game_id, self.queue_size)
        self._subs[game_id].add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        subs = self._subs.get(sub.game_id)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self._subs[sub.game_id]
                self._last.pop(sub.game_id, None)

    def publish(self, game_id: Any, events: list[StoredEvent], table: Any = None) -> None:
        """Pass ``events`` on to the game's watchers; ``table``: the game after the last."""
        if not events:
            return
        for listener in self._listeners:
            listener(game_id, events)
        subs = self._subs.get(game_id)
        if not subs:
            return
        last = self._last.get(game_id, 0)
        if events[0].version <= last:
            events = [e for e in events if e.version > last]
            if not events:
                return
        self._last[game_id] = events[-1].version
        batch = Batch(events, table)
        for sub in list(subs):
            sub.offer(batch)

    def wake(self, key: Any) -> None:
        """Wake the watchers of ``key`` with an empty batch: something they wait for moved
        and they look again (a match, under the key ("match", id))."""
        for sub in list(self._subs.get(key, ())):
            sub.offer(Batch([]))

    def watching(self, game_id: Any) -> bool:
        return game_id in self._subs

    def open_streams(self) -> int:
        return sum(len(s) for s in self._subs.values())
