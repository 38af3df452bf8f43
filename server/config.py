"""Server settings from flags and environment variables (flags win)."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    host: str
    port: int
    store: str  # sqlite | memory | postgres
    data_dir: Path
    max_batch: int

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
        if self.store == "postgres":
            return {"PERSISTENCE_MODULE": "eventsourcing.postgres"}  # POSTGRES_* from env
        raise ValueError(f"unknown store {self.store!r}")


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
        "--port-file",
        type=Path,
        default=None,
        help="write the bound port to this file once serving (for tests and scripts)",
    )
    return p


def from_args(argv: list[str] | None = None) -> tuple[Settings, argparse.Namespace]:
    a = parser().parse_args(argv)
    return Settings(a.host, a.port, a.store, a.data_dir, a.max_batch), a
