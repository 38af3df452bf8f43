"""Browser tests: a real headless Chromium (tests/support/browser.py) against the pages, and a
server with the live viewer on (--http-port)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from clients.python.serverproc import ServerProcess
from tests.api.conftest import client  # noqa: F401  (on this module's server, below)
from tests.support.browser import chromium


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    # the browser tests seed their tables: prepared deals allowed
    flags = ["--http-port", "0", "--allow-prepared-deals"]
    proc = ServerProcess(tmp_path_factory.mktemp("server"), extra=flags).start()
    assert proc.http_port, "the server writes the live viewer's port"
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as session:
        yield session
