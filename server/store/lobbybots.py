"""The secrets of the lobby's tables that have bot seats (issue 40), kept so that the bots
outlive the replica that started them.

The matchmaker draws one secret per table it forms with bot seats; the table's record
reserves each bot seat for a player id made from it (``domain.lobby.lobby_bot_player``),
and the bot process gets it in its environment. The secret is kept here, in a table of the
store's own beside the events (``tabletop_lobby_bots``: the game id, the secret, when it was
written), never in an event: no record, export, history or stream carries it, and no RPC
reads this table. Any replica's lobby-bots loop (server/transport/lobbybots.py) reads it to
start the bots again for a table whose replica died, under the table's lease
(server/store/leases.py); the row goes once the table's game has ended (or its bots gave
it up).

SQLite, PostgreSQL, or a dict when the store is in memory; created where the library
creates its own tables (a lone process, or ``server.startup.migrate``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from server.store.outbox import _rows_of, store_kind

TABLE = "tabletop_lobby_bots"


@dataclass(frozen=True)
class BotTable:
    """A lobby table whose bot seats the server plays: its game id and secret."""

    game_id: str
    secret: str


class BotSecrets:
    """One shard's table of lobby bot secrets (the first shard's is the one used)."""

    def __init__(self, recorder: Any) -> None:
        self.recorder = recorder
        self.kind = store_kind(recorder)
        self.table = TABLE
        if self.kind == "postgres":
            schema = str(recorder.datastore.schema or "public")
            self.table = f'"{schema}".{TABLE}'
        self._lock = threading.Lock()
        self._memory: dict[str, str] = {}

    def create_table(self) -> None:
        if self.kind == "memory":
            return
        self._run(
            [
                (
                    "CREATE TABLE IF NOT EXISTS T_ (game_id TEXT PRIMARY KEY, "
                    "secret TEXT NOT NULL, written DOUBLE PRECISION NOT NULL)",
                    (),
                )
            ]
        )

    def _run(self, statements: Iterable[tuple[str, tuple[Any, ...]]]) -> list[Any]:
        """Run statements in one transaction; the last one's rows (for a SELECT)."""
        with self.recorder.datastore.transaction(commit=True) as cursor:
            rows: list[Any] = []
            for text, args in statements:
                text = text.replace("T_", self.table)
                cursor.execute(text.replace("?", "%s") if self.kind == "postgres" else text, args)
                rows = _rows_of(cursor) if text.lstrip().startswith("SELECT") else []
            return rows

    def add(self, game_id: str, secret: str) -> None:
        """Keep a new table's secret (blocking)."""
        if self.kind == "memory":
            with self._lock:
                self._memory[game_id] = secret
            return
        self._run(
            [
                (
                    "INSERT INTO T_ (game_id, secret, written) VALUES (?, ?, ?) "
                    "ON CONFLICT DO NOTHING",
                    (game_id, secret, time.time()),
                )
            ]
        )

    def tables(self) -> list[BotTable]:
        """Every table whose bots are still owed, oldest first (blocking; a few rows: one a
        table with bots being played)."""
        if self.kind == "memory":
            with self._lock:
                return [BotTable(g, s) for g, s in self._memory.items()]
        rows = self._run([("SELECT game_id, secret FROM T_ ORDER BY written", ())])
        return [BotTable(str(g), str(s)) for g, s in rows]

    def remove(self, game_id: str) -> None:
        """Forget a table's secret: its game ended, or its bots gave it up (blocking)."""
        if self.kind == "memory":
            with self._lock:
                self._memory.pop(game_id, None)
            return
        self._run([("DELETE FROM T_ WHERE game_id = ?", (game_id,))])
