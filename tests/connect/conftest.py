"""Servers with the web port (``--web-port 0``) for the Connect/gRPC-Web tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from clients.python.serverproc import ServerProcess
from tests.connect.apis import TRANSPORTS, Api, open_api

WEB = ["--allow-prepared-deals", "--web-port", "0"]
# low limits, each client named by a header the tests set (so transports do not share one)
LIMITED = [
    *WEB,
    "--move-rate",
    "0.01",
    "--move-burst",
    "1",
    "--max-open-games-per-client",
    "2",
    "--max-streams-per-client",
    "1",
    "--max-streams-per-connection",
    "1",
    "--client-id-header",
    "x-test-client",
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path_factory.mktemp("web"), extra=WEB).start()
    assert proc.web_port, "the server wrote no .web port file"
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path_factory.mktemp("limited"), extra=LIMITED).start()
    yield proc
    proc.stop()


@pytest.fixture(params=TRANSPORTS)
def api(request: pytest.FixtureRequest, server: ServerProcess) -> Iterator[Api]:
    a = open_api(request.param, server.target, server.web_port)
    yield a
    a.close()


@pytest.fixture()
def grpc_api(server: ServerProcess) -> Iterator[Api]:
    a = open_api("grpc", server.target, None)
    yield a
    a.close()
