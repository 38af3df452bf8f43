"""API tests run against a real server process on a random port."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from clients.python.client import TableClient
from clients.python.serverproc import ServerProcess
from tests.support.oidc import IdentityProvider

PREPARED = ["--allow-prepared-deals"]  # the setting that lets tests seed or prepare deals


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    # the API tests use seeded and prepared tables (reproducible deals): allowed here only
    proc = ServerProcess(tmp_path_factory.mktemp("server"), extra=PREPARED).start()
    yield proc
    proc.stop()


@pytest.fixture()
def client(server: ServerProcess) -> Iterator[TableClient]:
    with TableClient(server.target) as c:
        yield c


@pytest.fixture(scope="module")
def idp(tmp_path_factory: pytest.TempPathFactory) -> IdentityProvider:
    """The app's identity provider for the login tests: its own keys, made in the test."""
    return IdentityProvider(tmp_path_factory.mktemp("idp") / "jwks.json")
