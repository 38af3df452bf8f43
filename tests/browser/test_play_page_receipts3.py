"""The play page against a server run with ``--receipt-format 3`` (docs/api.md, "Receipts of
format 3"): events come without their chain hashes, a Play reply's receipt signs the reply's
events, a Watch stream's receipt signs every event the stream sent since its previous one
(clients/web/src/session.ts keeps them), and the end screen's own check (duties.ts
``verifyGame``) holds each receipt's signature over what the page received. One 2-seat
花鸟风月 game against a bot from the desktop viewport (the Connect protocol); the receipts
file the page offers is then verified against the record by ``tabletop-audit verify
--receipts`` (each receipt's payload re-rendered from the record, byte for byte).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from clients.python.audit import main as audit
from clients.python.client import TableClient
from clients.python.exports import export_lines
from clients.python.receipts import check_signature, is_v3, parse_receipts
from clients.python.serverproc import ServerProcess
from tabletop.v1 import tabletop_pb2 as pb
from tests.browser.test_play_page import (
    DESKTOP,
    ROOT,
    body,
    click,
    create_table,
    js_text,
    open_page,
    play_to_end,
)

pytestmark = pytest.mark.xdist_group("browser")


@pytest.fixture(scope="module")
def web3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    built = subprocess.run(
        ["make", "-s", "web"], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert built.returncode == 0, f"make web failed:\n{built.stdout[-3000:]}{built.stderr[-3000:]}"
    flags = ["--web-port", "0", "--web-bots", "--web-bots-delay-ms", "0", "--allow-prepared-deals"]
    flags += ["--receipt-format", "3"]
    proc = ServerProcess(tmp_path_factory.mktemp("web3"), extra=flags).start()
    assert proc.web_port, "the server writes the web port"
    yield proc
    proc.stop()


def test_the_page_plays_and_checks_receipts_of_format_3(
    web3: ServerProcess, browser: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    open_page(browser, web3, DESKTOP)
    gid = create_table(browser, "huaniao", seats=2, mode="2")
    click(browser, By.ID, "bots")
    WebDriverWait(browser, 30).until(lambda b: body(b, "phase") in ("playing", "finished"))
    played, _ = play_to_end(browser, "play-page-receipts3")
    assert played >= 1, "the page's seat played"
    # the end screen's own check: every receipt the page kept holds, none fails
    WebDriverWait(browser, 15).until(lambda b: "✓" in js_text(b, "#verify-line"))
    line = js_text(browser, "#verify-line")
    assert "✗" not in line, line
    kept = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(document.getElementById('receipts-link').href).then((r) => r.text())"
        ".then(done, (e) => done('ERROR ' + e));"
    )
    receipts = parse_receipts(kept.splitlines())
    assert len(receipts) >= 2, "the page kept its Play replies' and its stream's receipts"
    assert f"✓ {len(receipts)} " in line, (line, len(receipts))
    with TableClient(web3.target) as client:
        key = bytes(client.stub.GetSigningKey(pb.GetSigningKeyRequest()).public_key)
        record = list(export_lines(client.as_viewer(gid).history()))
    for receipt, payload in receipts:
        assert is_v3(receipt) and len(receipt.head) == 32 and not receipt.hashes, receipt
        check_signature(receipt, key, payload, gid)
    # the receipts file against the record, re-rendered for the page's seat
    export = tmp_path / "game.jsonl"
    export.write_text("".join(x + "\n" for x in record))
    saved = tmp_path / "page.receipts"
    saved.write_text(kept)
    capsys.readouterr()
    try:
        status = audit(
            ["verify", "--file", str(export), "--receipts", str(saved), "--public-key", key.hex()]
        )
    except SystemExit as exc:
        status = int(exc.code or 0)
    out = capsys.readouterr()
    assert status == 0, out
    assert f"receipts: {len(receipts)} verified" in out.out, out.out
