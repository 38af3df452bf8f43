"""Settings and the listening port (issue 13, problems 5 and 6): a bad value, a port out of
range or a port another server holds stops the server at once with one clear line and no
traceback; booleans such as ``off`` mean false; ``--help`` lists every variable."""

from __future__ import annotations

import gc
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from clients.python.client import TableClient
from server.startup.config import OPTIONS, from_args
from tests.api.helpers import seated_game
from tests.hardening.common import server
from tests.support.pgfixtures import PG
from tests.support.pgserver import PgServer


def run_server(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    """Start ``server.startup.main`` and wait for it to exit (a server that starts is a failure)."""
    return subprocess.run(
        [sys.executable, "-m", "server.startup.main", "--data-dir", str(tmp_path / "data"), *args],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=30,
    )


def one_line(result: Any, *words: str) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return str(lines[0])


@pytest.mark.parametrize(
    ("args", "env", "names"),
    [
        (["--port", "99999"], {}, ["--port", "99999", "65535"]),
        (["--port", "-1"], {}, ["--port"]),
        ([], {"TABLETOP_PORT": "abc"}, ["TABLETOP_PORT", "abc"]),
        ([], {"TABLETOP_CREATE_TABLES": "maybe"}, ["TABLETOP_CREATE_TABLES", "maybe"]),
        (["--move-rate", "-5"], {}, ["--move-rate"]),
        ([], {"TABLETOP_MAX_BATCH": "0"}, ["TABLETOP_MAX_BATCH"]),
        (["--store", "mysql"], {}, ["--store", "mysql"]),
        (["--metrics-port", "70000"], {}, ["--metrics-port"]),
        (["--gc-full-every", "0"], {}, ["--gc-full-every"]),
    ],
)
def test_a_bad_value_stops_the_server_with_one_line(
    tmp_path: Path, args: list[str], env: dict[str, str], names: list[str]
) -> None:
    result = run_server(tmp_path, *args, env=env)
    assert result.returncode == 2, result.stderr
    one_line(result, "tabletop-server", *names)
    assert not (tmp_path / "data" / "games.sqlite").exists(), "nothing was opened"


@pytest.mark.parametrize(
    ("args", "env", "hint"),
    [
        (["--port", "99999"], {}, "Invalid value for '--port': 99999"),
        ([], {"TABLETOP_PORT": "99999"}, "'--port' (env var: 'TABLETOP_PORT'): 99999"),
    ],
)
def test_a_bad_value_names_where_it_came_from(
    tmp_path: Path, args: list[str], env: dict[str, str], hint: str
) -> None:
    """A flag's bad value names the flag alone, and a variable's names the variable too
    (issue 29: ``--port 99999`` was reported as coming from TABLETOP_PORT)."""
    one_line(run_server(tmp_path, *args, env=env), hint)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("off", False),
        ("no", False),
        ("0", False),
        ("false", False),
        ("", False),
        ("on", True),
        ("yes", True),
        ("1", True),
        ("true", True),
    ],
)
def test_booleans_read_the_usual_spellings(
    monkeypatch: pytest.MonkeyPatch, text: str, value: bool
) -> None:
    monkeypatch.setenv("TABLETOP_CREATE_TABLES", text)
    assert from_args([])[0].create_tables is value
    assert from_args(["--create-tables"])[0].create_tables is True  # a flag wins


@PG
def test_create_tables_off_through_a_real_server(
    pg_server: PgServer, new_database: Callable[[], str], tmp_path: Path
) -> None:
    """``TABLETOP_CREATE_TABLES=off`` was read as true: the server created the tables of a
    fresh database. Now it refuses to start on it and names the command that creates them."""
    env = {**pg_server.env(new_database()), "TABLETOP_CREATE_TABLES": "off"}
    result = run_server(tmp_path, "--store", "postgres", "--port", "0", env=env)
    assert result.returncode == 1
    assert "server.startup.migrate" in one_line(result)
    import psycopg

    with psycopg.connect(
        host=env["POSTGRES_HOST"],
        port=env["POSTGRES_PORT"],
        user=env["POSTGRES_USER"],
        dbname=env["POSTGRES_DBNAME"],
    ) as conn:
        tables = conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_name LIKE 'tabletop%'"
        ).fetchone()
    assert tables == (0,)


@pytest.mark.parametrize(("env", "full"), [({}, 100), ({"TABLETOP_GC_FULL_EVERY": "37"}, 37)])
def test_the_server_spaces_its_full_collections_as_set(env: dict[str, str], full: int) -> None:
    """Full collections pause the event loop longest (docs/operations.md): the running
    server applies ``--gc-full-every`` after its start-up freeze and names the thresholds."""
    from clients.python.serverproc import ServerProcess

    with ServerProcess(env=env) as running:
        log = (running.data_dir / "server.log").read_text()
    young, middle = gc.get_threshold()[:2]  # the server keeps CPython's own for the others
    assert f"collector thresholds {young}/{middle}/{full}" in log, log[-2000:]


def test_help_lists_every_environment_variable(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "server.startup.main", "--help"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0
    text = re.sub(r"\s+", " ", result.stdout)
    for option in OPTIONS:
        if option.envvar:
            assert f"env var: {option.envvar}" in text, option.envvar
            assert option.opts[0] in text
    assert "TABLETOP_MIN_TURN_TIME" in text and "TABLETOP_STREAM_STALL_TIMEOUT" in text


def test_a_taken_port_is_refused_and_the_first_server_keeps_it(tmp_path: Path) -> None:
    """grpcio's default SO_REUSEPORT let a second server start on a taken port, and clients
    reached either at random. Now the second exits with one line; the first serves on."""
    with server(tmp_path / "first") as first, TableClient(first.target) as client:
        game_id, _seats, _arbiter = seated_game(client, seed=5)
        result = run_server(tmp_path, "--port", str(first.port))
        assert result.returncode == 1
        one_line(result, str(first.port), "already in use")
        for _ in range(5):  # every call reaches the first server
            assert client.as_viewer(game_id).view().game_id == game_id
        result = run_server(tmp_path, "--port", "0", "--metrics-port", str(first.port))
        assert result.returncode == 1
        one_line(result, "metrics-port", "already in use")
