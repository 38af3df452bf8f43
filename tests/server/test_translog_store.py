"""Each shard's transparency log in the store (server/store/translog.py), on SQLite and on a
real PostgreSQL: two replicas of one store, sequencing at once, write one order of leaves
(every seal once, in commit order), agree on the log's id and root, and prove every seal;
a retirement statement is stored once and signed by both keys."""

from __future__ import annotations

import asyncio
import threading
import uuid
from pathlib import Path
from typing import Any

from domain import translog
from domain.logaudit import checked_retirements, seal_refs
from domain.table import records
from server.startup.compose import table_server
from server.store.shards import Store
from server.store.translog import TransparencyLogs, create_tables
from server.wire.signing import Signer
from tests.server.test_replicas import next_move, seated
from tests.support.pgfixtures import PG

GAMES = 3
MOVES = 6


class PlainSealer:
    """Signs each move as the server does, with every viewer's hash left blank (the fake
    game has no protobuf rendering; the log takes a seal as it is stored)."""

    def __init__(self, signer: Signer) -> None:
        self.signer = signer

    def __call__(
        self, game_id: uuid.UUID, table: Any, head: str, move: list[Any]
    ) -> dict[str, Any]:
        first, last = move[0].version, move[-1].version
        hashes = [["0" * 64]] * (table.seat_count + 2)
        body = records.seal_body(str(game_id), first, last, head, hashes)
        seal = {"game_id": str(game_id), "first": first, "last": last, "head": head}
        return {
            **seal,
            "receipts": hashes,
            "signature": self.signer.sign(body),
            "key_id": self.signer.key_id,
        }

    def seal_match(self, match_id: uuid.UUID, first: int, last: int, head: str) -> dict[str, Any]:
        raise AssertionError("no matches here")


def play_games(env: dict[str, str], signer: Signer) -> list[str]:
    """A few sealed games on one replica; their ids."""

    async def scenario() -> list[str]:
        server = table_server(Store.open([env]), sealer=PlainSealer(signer))
        try:
            games = []
            for _ in range(GAMES):
                game_id = await seated(server)
                for _move in range(MOVES):
                    viewer, command, version = await next_move(server, game_id)
                    await server.play.play(game_id, viewer, version, command)
                games.append(game_id)
            return games
        finally:
            server.games.close()

    return asyncio.run(scenario())


def two_replicas_agree(env: dict[str, str]) -> None:
    signer = Signer.generate()
    games = play_games(env, signer)
    stores = [Store.open([dict(env, CREATE_TABLE="n" if i else "y")]) for i in range(2)]
    create_tables(stores[0].shards[0])  # as migrate does, before replicas start
    try:
        logs: list[TransparencyLogs] = []
        ready = threading.Barrier(2)

        def open_log(store: Store) -> None:
            ready.wait()  # both pick the log id and sequence at once
            logs.append(TransparencyLogs(store.shards, signer, store.shard_of))

        threads = [threading.Thread(target=open_log, args=(s,)) for s in stores]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        a, b = (x.logs[0] for x in logs)
        assert a.log_id == b.log_id
        assert a.tree.leaves == b.tree.leaves and a.size == b.size > GAMES * MOVES
        rows = a.rows.leaves_from(0)
        assert [r.index for r in rows] == list(range(a.size))
        assert [r.notification_id for r in rows] == sorted(r.notification_id for r in rows)
        for game_id in games:
            events = stores[0].stored_events(uuid.UUID(game_id))
            seals = seal_refs(e.seal for e in events if e.seal is not None)
            found = b.inclusions(game_id, b.size)
            assert [(f, last) for f, last, _, _ in found] == [(s.first, s.last) for s in seals]
            for seal, (_f, _l, index, path) in zip(seals, found, strict=True):
                translog.verify_inclusion(index, b.size, seal.leaf, path, a.root(a.size))
        successor = Signer.generate()
        stated = logs[0].retire(signer, successor)
        again = logs[1].retire(signer, successor)  # stored once: the second finds the first
        assert stated == again and stated.logs == ((a.log_id, a.size),)
        keys = {signer.key_id: signer.public_key, successor.key_id: successor.public_key}
        assert checked_retirements(keys, [stated])  # signed by both
    finally:
        for x in logs:
            x.close()
        for store in stores:
            store.close()


def test_two_replicas_on_sqlite_write_one_log(tmp_path: Path) -> None:
    two_replicas_agree(
        {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "t.db")}
    )


@PG
def test_two_replicas_on_postgres_write_one_log(pg_env: dict[str, str]) -> None:
    two_replicas_agree(pg_env)
