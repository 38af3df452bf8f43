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


# Receipts of format 2 (a seal lists every viewer's salted hashes), the default until
# 2026-12: modules that read or forge their seals override ``server`` with this one.
RECEIPTS_2 = [*PREPARED, "--receipt-format", "2"]


@pytest.fixture(scope="module")
def server_receipts_2(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path_factory.mktemp("server2"), extra=RECEIPTS_2).start()
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
