"""API tests run against a real server process on a random port."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from clients.python.client import TableClient
from clients.python.serverproc import ServerProcess


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path_factory.mktemp("server")).start()
    yield proc
    proc.stop()


@pytest.fixture()
def client(server: ServerProcess) -> Iterator[TableClient]:
    with TableClient(server.target) as c:
        yield c
