"""Server settings from flags and environment variables (flags win)."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path

from server.limits import LimitSettings


@dataclass(frozen=True)
class Settings:
    host: str
    port: int
    store: str  # sqlite | memory | postgres
    data_dir: Path
    max_batch: int
    metrics_port: int | None = None  # None: no metrics endpoint; 0: a free port
    log_format: str = "text"  # text (key=value) | json
    log_level: str = "info"  # debug logs every call; info logs writes, refusals, streams
    shutdown_grace: float = 5.0
    shards: str = ""  # postgres: TABLETOP_SHARDS, see server.shards.parse_shards
    create_tables: bool = False  # postgres: create missing tables at start (one process only)
    max_connection_age: float = 0.0  # seconds; 0 = never (see docs/operations.md)
    allow_prepared_deals: bool = False  # client seeds and decks (docs/api.md, "Audit")
    reveal_timeout: float = 30.0  # seconds the deal waits for the seats' reveals
    limits: LimitSettings = LimitSettings()  # server/limits.py (docs/reliability.md)

    def store_env(self) -> dict[str, str]:
        """The eventsourcing settings for the chosen store."""
        if self.store == "memory":
            return {"PERSISTENCE_MODULE": "eventsourcing.popo"}
        if self.store == "sqlite":
            self.data_dir.mkdir(parents=True, exist_ok=True)
            return {
                "PERSISTENCE_MODULE": "eventsourcing.sqlite",
                "SQLITE_DBNAME": str(self.data_dir / "games.sqlite"),
            }
        if self.store == "postgres":  # POSTGRES_* from the environment
            return {
                "PERSISTENCE_MODULE": "eventsourcing.postgres",
                "CREATE_TABLE": "y" if self.create_tables else "n",
            }
        raise ValueError(f"unknown store {self.store!r}")

    def store_envs(self) -> list[dict[str, str]]:
        """One eventsourcing env per shard (a single one unless postgres has shards)."""
        if self.store != "postgres":
            return [self.store_env()]
        from server.shards import shard_envs

        return shard_envs(self.store_env(), self.shards)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tabletop-server",
        description="Event-sourced gRPC server for 花鸟风月 and 川南字牌.",
        epilog="Every flag can also be set by the environment variable named in its help.",
    )
    p.add_argument(
        "--host",
        default=os.environ.get("TABLETOP_HOST", "127.0.0.1"),
        help="address to listen on (TABLETOP_HOST, default 127.0.0.1)",
    )
    p.add_argument(
        "--port",
        type=int,
        default=int(os.environ.get("TABLETOP_PORT", "50051")),
        help="port to listen on; 0 picks a free one (TABLETOP_PORT, default 50051)",
    )
    p.add_argument(
        "--store",
        choices=["sqlite", "memory", "postgres"],
        default=os.environ.get("TABLETOP_STORE", "sqlite"),
        help="event store (TABLETOP_STORE, default sqlite); postgres reads POSTGRES_* variables",
    )
    p.add_argument(
        "--data-dir",
        type=Path,
        default=Path(os.environ.get("TABLETOP_DATA_DIR", "data")),
        help="directory of the SQLite file games.sqlite (TABLETOP_DATA_DIR, default ./data)",
    )
    p.add_argument(
        "--max-batch",
        type=int,
        default=int(os.environ.get("TABLETOP_MAX_BATCH", "64")),
        help="most games saved in one group-commit transaction (TABLETOP_MAX_BATCH, default 64)",
    )
    p.add_argument(
        "--metrics-port",
        type=int,
        default=_optional_int(os.environ.get("TABLETOP_METRICS_PORT")),
        help="serve Prometheus metrics on http://HOST:PORT/metrics; 0 picks a free port "
        "(TABLETOP_METRICS_PORT, default off)",
    )
    p.add_argument(
        "--log-format",
        choices=["text", "json"],
        default=os.environ.get("TABLETOP_LOG_FORMAT", "text"),
        help="log lines as key=value text or JSON objects (TABLETOP_LOG_FORMAT, default text)",
    )
    p.add_argument(
        "--log-level",
        choices=["debug", "info", "warning", "error"],
        default=os.environ.get("TABLETOP_LOG_LEVEL", "info"),
        help="debug logs every call, info every write, refusal and stream (TABLETOP_LOG_LEVEL, "
        "default info)",
    )
    p.add_argument(
        "--shutdown-grace",
        type=float,
        default=float(os.environ.get("TABLETOP_SHUTDOWN_GRACE", "5")),
        help="seconds in-flight calls get to finish on SIGTERM (TABLETOP_SHUTDOWN_GRACE, "
        "default 5)",
    )
    p.add_argument(
        "--shards",
        default=os.environ.get("TABLETOP_SHARDS", ""),
        help="postgres: games spread over these shards by game id, comma-separated; each a "
        "postgresql://user:password@host:port/dbname?schema=name URL (missing parts come from "
        "POSTGRES_*) or a schema name in the POSTGRES_DBNAME database (TABLETOP_SHARDS, "
        "default: one shard, the POSTGRES_* database)",
    )
    p.add_argument(
        "--create-tables",
        action="store_true",
        default=_flag(os.environ.get("TABLETOP_CREATE_TABLES")),
        help="postgres: create missing tables at start; for a single process only, replicas "
        "need `python -m server.migrate` first (TABLETOP_CREATE_TABLES, default off)",
    )
    p.add_argument(
        "--max-connection-age",
        type=float,
        default=float(os.environ.get("TABLETOP_MAX_CONNECTION_AGE", "0")),
        help="close each client connection after this many seconds (streams get 10 s grace "
        "and resume elsewhere), spreading long Watch streams over replicas "
        "(TABLETOP_MAX_CONNECTION_AGE, default 0 = never)",
    )
    p.add_argument(
        "--allow-prepared-deals",
        action="store_true",
        default=_flag(os.environ.get("TABLETOP_ALLOW_PREPARED_DEALS")),
        help="accept CreateGame with a seed or a deck: deals chosen by the table's creator, "
        "marked as such; for development, tests, tournaments and reproducing disputes "
        "(TABLETOP_ALLOW_PREPARED_DEALS, default off: refused with FAILED_PRECONDITION)",
    )
    p.add_argument(
        "--reveal-timeout",
        type=float,
        default=float(os.environ.get("TABLETOP_REVEAL_TIMEOUT", "30")),
        help="seconds the deal waits for seats to reveal their contributions, counted from "
        "the table's latest event once every seat is taken; after that StartGame deals and "
        "a missing reveal's commitment stands in for it (TABLETOP_REVEAL_TIMEOUT, default 30)",
    )
    _limit_arguments(p)
    p.add_argument(
        "--port-file",
        type=Path,
        default=None,
        help="write the bound port to this file once serving (for tests and scripts); "
        "the metrics port goes to the same path with .metrics appended",
    )
    return p


def from_args(argv: list[str] | None = None) -> tuple[Settings, argparse.Namespace]:
    a = parser().parse_args(argv)
    return (
        Settings(
            a.host,
            a.port,
            a.store,
            a.data_dir,
            a.max_batch,
            metrics_port=a.metrics_port,
            log_format=a.log_format,
            log_level=a.log_level,
            shutdown_grace=a.shutdown_grace,
            shards=a.shards,
            create_tables=a.create_tables,
            max_connection_age=a.max_connection_age,
            allow_prepared_deals=a.allow_prepared_deals,
            reveal_timeout=a.reveal_timeout,
            limits=LimitSettings(
                max_message_bytes=a.max_message_bytes,
                max_streams_per_connection=a.max_streams_per_connection,
                max_streams_per_client=a.max_streams_per_client,
                move_rate=a.move_rate,
                move_burst=a.move_burst,
                max_open_games_per_client=a.max_open_games_per_client,
                client_id_header=a.client_id_header.lower(),
            ),
        ),
        a,
    )


def _limit_arguments(p: argparse.ArgumentParser) -> None:
    """The limits of server/limits.py; each refuses with RESOURCE_EXHAUSTED and a detail."""
    d = LimitSettings()
    env = os.environ.get
    p.add_argument(
        "--max-message-bytes",
        type=int,
        default=int(env("TABLETOP_MAX_MESSAGE_BYTES", str(d.max_message_bytes))),
        help=f"largest request accepted (TABLETOP_MAX_MESSAGE_BYTES, default {d.max_message_bytes})",
    )
    p.add_argument(
        "--max-streams-per-connection",
        type=int,
        default=int(env("TABLETOP_MAX_STREAMS_PER_CONNECTION", str(d.max_streams_per_connection))),
        help="open Watch/Replay streams per connection (TABLETOP_MAX_STREAMS_PER_CONNECTION, "
        f"default {d.max_streams_per_connection})",
    )
    p.add_argument(
        "--max-streams-per-client",
        type=int,
        default=int(env("TABLETOP_MAX_STREAMS_PER_CLIENT", str(d.max_streams_per_client))),
        help="open streams per client, see --client-id-header (TABLETOP_MAX_STREAMS_PER_CLIENT, "
        f"default {d.max_streams_per_client})",
    )
    p.add_argument(
        "--move-rate",
        type=float,
        default=float(env("TABLETOP_MOVE_RATE", str(d.move_rate))),
        help="Play calls per second per seat, 0 = unlimited (TABLETOP_MOVE_RATE, "
        f"default {d.move_rate:g})",
    )
    p.add_argument(
        "--move-burst",
        type=int,
        default=int(env("TABLETOP_MOVE_BURST", str(d.move_burst))),
        help=f"Play calls a seat may make at once (TABLETOP_MOVE_BURST, default {d.move_burst})",
    )
    p.add_argument(
        "--max-open-games-per-client",
        type=int,
        default=int(env("TABLETOP_MAX_OPEN_GAMES_PER_CLIENT", str(d.max_open_games_per_client))),
        help="unfinished games one client may have created in the last hour "
        f"(TABLETOP_MAX_OPEN_GAMES_PER_CLIENT, default {d.max_open_games_per_client})",
    )
    p.add_argument(
        "--client-id-header",
        default=env("TABLETOP_CLIENT_ID_HEADER", ""),
        help="call metadata naming the client for the per-client limits, set by a trusted "
        "gateway (TABLETOP_CLIENT_ID_HEADER, default: the peer's IP address)",
    )


def _flag(value: str | None) -> bool:
    return (value or "").lower() not in ("", "0", "no", "false")


def _optional_int(value: str | None) -> int | None:
    return int(value) if value not in (None, "") else None
