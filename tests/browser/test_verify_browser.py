"""The record verified in the browser (clients/web/src/verify: the Node verifier's own code,
bundled with WebCrypto Ed25519): headless Chromium loads dist/verify.js from the web port and
runs ``verifyExport`` on a real game's export and seat 0's receipts, honest and lied about,
and says what ``node clients/node/bin/verify.js`` says of the same files: the same status, the
same lines."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from clients.python.audit_verify import signing_key
from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient, reveal_and_start
from clients.python.exports import export_lines
from clients.python.receipts import ReceiptLog
from clients.python.serverproc import ServerProcess
from server.wire.signing import KEY_FILE
from tests.api.helpers import huaniao_options
from tests.api.test_node_verify import receipt_claimed_key_holder
from tests.support.nodejs import ensure_node_modules

pytestmark = pytest.mark.xdist_group("browser")
ROOT = Path(__file__).parents[2]
NODE_VERIFY = ROOT / "clients" / "node" / "bin" / "verify.js"


@dataclass
class Game:
    web: ServerProcess
    dir: Path
    key: str  # the server's public key, hex
    signer: Ed25519PrivateKey
    export: list[str]
    receipts: list[dict[str, Any]]  # as test_node_verify's Played holds them
    gid: str


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Game]:
    """A 花鸟风月 game played to its end by four random bots (seat 0 keeps its receipts) on a
    server with the play page, built first (`make web`)."""
    assert shutil.which("node"), "node is required for the Node verifier"
    ensure_node_modules()
    built = subprocess.run(
        ["make", "-s", "web"], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert built.returncode == 0, f"make web failed:\n{built.stdout[-3000:]}{built.stderr[-3000:]}"
    base = tmp_path_factory.mktemp("browser-verify")
    # receipts of format 2: the tamperings below are test_node_verify's, which edit their
    # seals (the page on format 3: test_play_page_receipts3.py)
    flags = ["--web-port", "0", "--receipt-format", "2"]
    proc = ServerProcess(base / "server", extra=flags).start()
    try:
        with TableClient(proc.target) as client:
            key = signing_key(client)
            signer = serialization.load_pem_private_key(
                (proc.data_dir / KEY_FILE).read_bytes(), password=None
            )
            assert isinstance(signer, Ed25519PrivateKey)
            log = ReceiptLog()
            gid = client.create_game(huaniao_options("BASIC"), 4).game_id
            seats = [
                client.join(gid, s, f"花{s}", receipts=log if s == 0 else None) for s in range(4)
            ]
            reveal_and_start(seats)
            play_to_end([RandomBot(s, 90 + i) for i, s in enumerate(seats)])
            seats[0].view()
            export = list(export_lines(list(client.as_viewer(gid).history())))
            receipts = [json.loads(x) for x in log.lines()]
        yield Game(proc, base, key.hex(), signer, export, receipts, gid)
    finally:
        proc.stop()


def node(game: Game, name: str, export: list[str], receipts: list[str] | None) -> dict[str, Any]:
    """What the Node verifier says: its status and the lines it printed."""
    path = game.dir / f"{name}.jsonl"
    path.write_text("".join(line + "\n" for line in export))
    cmd = ["node", str(NODE_VERIFY), str(path), "--public-key", game.key]
    if receipts is not None:
        saved = game.dir / f"{name}-receipts.jsonl"
        saved.write_text("".join(line + "\n" for line in receipts))
        cmd += ["--receipts", str(saved)]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    return {"status": run.returncode, "lines": (run.stdout + run.stderr).strip().splitlines()}


# as the page runs it: in the verifier's own worker (the page's policy has no eval)
RUN = """
const [cases, key, done] = arguments;
const worker = new Worker('/verify-worker.js');
const ask = (message) => new Promise((resolve) => {
  worker.onmessage = (e) => resolve(e.data);
  worker.postMessage(message);
});
(async () => {
  const out = [];
  for (const c of cases) {
    const options = c.fromServer ? {} : {publicKeys: [key], names: c.names};
    const receipts = c.receipts === null ? undefined : [c.receipts];
    out.push(await ask(c.gameId ? {gameId: c.gameId, options} : {text: c.text, receipts, options}));
  }
  done(out);
})().catch((e) => done({error: String(e && e.stack || e)}));
"""


def test_the_browser_says_what_the_node_verifier_says(game: Game, browser: Any) -> None:
    honest = game.export
    receipts = [json.dumps(r, sort_keys=True) for r in game.receipts]
    altered = [json.loads(x) for x in honest]
    taken = next(x for x in altered if x["fact"]["type"] == "SeatTaken")
    taken["fact"]["data"]["player_name"] = "mallory"  # the chain no longer holds
    mutated = [json.dumps(x, ensure_ascii=False, sort_keys=True) for x in altered]

    @dataclass
    class Holder:  # what receipt_claimed_key_holder reads of test_node_verify's Played
        receipts: list[dict[str, Any]]
        signer: Ed25519PrivateKey

    lie = receipt_claimed_key_holder(Holder(copy.deepcopy(game.receipts), game.signer))  # type: ignore[arg-type]
    cases = {
        "honest": (honest, None),
        "honest-with-receipts": (honest, receipts),
        "mutated": (mutated, None),
        "receipt-lie": (honest, lie),
    }
    port = game.web.web_port or 0
    browser.get(f"http://127.0.0.1:{port}/")
    WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.ID, "app"))
    browser.set_script_timeout(60)
    sent = [
        {
            "text": "\n".join(e) + "\n",
            "receipts": None if r is None else "\n".join(r) + "\n",
            "names": {  # as the Node verifier names the files in a proof
                "export": str(game.dir / f"{name}.jsonl"),
                "receipts": [str(game.dir / f"{name}-receipts.jsonl")],
            },
        }
        for name, (e, r) in cases.items()
    ]
    sent.append({"text": "\n".join(honest) + "\n", "receipts": None, "fromServer": True})
    # as the end screen's panel asks: the record read from the server by the worker itself
    sent.append({"gameId": game.gid, "receipts": None, "fromServer": True})
    got = browser.execute_async_script(RUN, sent, game.key)
    assert isinstance(got, list), got
    for (name, (export, saved)), verdict in zip(cases.items(), got, strict=False):
        said = node(game, name, export, saved)
        differ = [(a, b) for a, b in zip(verdict["lines"], said["lines"], strict=False) if a != b]
        assert not differ, f"{name}: browser {differ[0][0]!r}, node {differ[0][1]!r}"
        assert {"status": verdict["status"], "lines": verdict["lines"]} == said, name
        assert verdict["ok"] is (said["status"] == 0)
    by_name = dict(zip(cases, got, strict=False))
    assert by_name["honest"]["status"] == 0
    assert by_name["honest"]["lines"][0].startswith("verified game ")
    assert "receipts: " in by_name["honest-with-receipts"]["lines"][0]
    assert by_name["mutated"]["status"] == 1
    assert "the chain hash does not match" in by_name["mutated"]["lines"][0]
    assert by_name["receipt-lie"]["status"] == 3
    assert by_name["receipt-lie"]["lines"][0].startswith("PROOF: the server signed ")
    # with no key given, the page's own server names it (GetSigningKey over Connect)
    from_server = got[-2]
    assert from_server["status"] == 0 and from_server["lines"] == by_name["honest"]["lines"]
    read = got[-1]  # the record the worker read through GetHistory: the same lines
    assert read.get("status") == 0 and read["lines"] == by_name["honest"]["lines"], read


def test_a_forged_signature_is_refused_by_webcrypto(game: Game, browser: Any) -> None:
    """A seal whose signature is another's: WebCrypto's Ed25519 says no (not the optimistic
    first run), and the line names the seal as Node's does."""
    lines = [json.loads(x) for x in game.export]
    sealed = [x for x in lines if x["seal"]]
    sealed[1]["seal"]["signature"], sealed[2]["seal"]["signature"] = (
        sealed[2]["seal"]["signature"],
        sealed[1]["seal"]["signature"],
    )
    forged = [json.dumps(x, ensure_ascii=False, sort_keys=True) for x in lines]
    port = game.web.web_port or 0
    browser.get(f"http://127.0.0.1:{port}/")
    got = browser.execute_async_script(
        RUN, [{"text": "\n".join(forged) + "\n", "receipts": None}], game.key
    )
    said = node(game, "forged", forged, None)
    assert said["status"] == 1 and "is not signed by" in said["lines"][0]
    assert {"status": got[0]["status"], "lines": got[0]["lines"]} == said
