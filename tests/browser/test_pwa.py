"""The installable page (clients/web/src/pwa): the web port serves its manifest, icons and
service worker with their types and the page's CSP; in headless Chromium the service worker
registers, and once the server is gone the page's shell, its links and a saved replay still
open from the cache (offline)."""

from __future__ import annotations

import http.client
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from clients.python.serverproc import ServerProcess

pytestmark = pytest.mark.xdist_group("browser")
ROOT = Path(__file__).parents[2]


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server with the play page (built first: `make web`, a no-op when nothing changed);
    this module stops it itself to go offline."""
    built = subprocess.run(
        ["make", "-s", "web"], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert built.returncode == 0, f"make web failed:\n{built.stdout[-3000:]}{built.stderr[-3000:]}"
    proc = ServerProcess(tmp_path_factory.mktemp("pwa"), extra=["--web-port", "0"]).start()
    yield proc
    proc.stop()


def get(port: int, path: str) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        reply = conn.getresponse()
        return reply.status, {k.lower(): v for k, v in reply.getheaders()}, reply.read()
    finally:
        conn.close()


def test_the_manifest_worker_and_icons_are_served_with_their_types(web: ServerProcess) -> None:
    port = web.web_port or 0
    status, headers, body = get(port, "/manifest.webmanifest")
    assert status == 200 and headers["content-type"] == "application/manifest+json"
    manifest = json.loads(body)
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    sizes = {i["sizes"] for i in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes  # what an install needs
    for icon in manifest["icons"]:
        status, headers, _ = get(port, "/" + icon["src"])
        assert status == 200 and headers["content-type"].split(";")[0] == icon["type"]
    status, headers, body = get(port, "/sw.js")
    assert status == 200 and headers["content-type"].startswith("text/javascript")
    status, headers, body = get(port, "/")
    assert b'rel="manifest"' in body
    csp = headers["content-security-policy"]
    assert "script-src 'self';" in csp and "worker-src 'self'" in csp
    assert "unsafe-eval" not in csp  # only the verifier's worker may eval (its own policy)
    status, headers, _ = get(port, "/verify-worker.js")
    worker = headers["content-security-policy"]
    assert status == 200 and "'unsafe-eval'" in worker and "default-src 'none'" in worker
    assert "'unsafe-inline'" not in csp.split("script-src")[1].split(";")[0]
    assert "manifest-src 'self'" in csp and "frame-ancestors 'none'" in csp


REGISTER = """
const done = arguments[arguments.length - 1];
import('/pwa.js').then(async (pwa) => {
  const reg = await pwa.registerPwa();
  if (!reg) return done({error: 'no registration'});
  await navigator.serviceWorker.ready;
  const saved = await pwa.cacheReplay('game-7', '<!doctype html><title>回放 game-7</title><p>第 12 版</p>');
  done({scope: reg.scope, saved, kept: await pwa.cachedReplays(),
        notified: await pwa.notifyTurn('轮到你了：出牌')});
}).catch((e) => done({error: String(e)}));
"""


def test_the_service_worker_registers_and_serves_the_shell_offline(
    web: ServerProcess, browser: Any
) -> None:
    port = web.web_port or 0
    origin = f"http://127.0.0.1:{port}"
    browser.get(f"{origin}/")
    WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.ID, "app"))
    browser.set_script_timeout(20)
    got = browser.execute_async_script(REGISTER)
    assert "error" not in got, got
    assert got["scope"] == f"{origin}/"
    assert got["saved"] == f"{origin}/replays/game-7" and got["kept"] == ["game-7"]
    assert got["notified"] is False  # the tab is visible: no notification
    # the worker takes the page over (clients.claim), then the server goes away
    WebDriverWait(browser, 10).until(
        lambda b: b.execute_script("return !!navigator.serviceWorker.controller")
    )
    web.stop()
    with pytest.raises(OSError):
        get(port, "/")  # really offline
    browser.get(f"{origin}/?record=1")
    assert browser.title == "花鸟风月 · 川南字牌"
    assert browser.execute_script(
        "return [...document.scripts].some((s) => s.src.endsWith('/app.js'))"
    )
    browser.get(f"{origin}/t/some-table-link")  # a page link: the shell again
    assert browser.title == "花鸟风月 · 川南字牌"
    browser.get(f"{origin}/replays/game-7")  # the finished game's replay, kept on the device
    assert browser.title == "回放 game-7" and "第 12 版" in browser.page_source
    browser.get(f"{origin}/replays/game-8")  # one never saved: said so
    assert "没有存在本机" in browser.page_source
