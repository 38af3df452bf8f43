"""The page's move picker (clients/web/src/picker.ts), run by Node over hands the Python
engine deals: never more than one phone screen of choices, every play reachable by
touching its cards (clients/web/test/picker.test.ts)."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.web.hands import hands

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"


def run_web_test(only: str, **env: str) -> subprocess.CompletedProcess[str]:
    """One clients/web/test/ONLY.test.ts, bundled and run by Node (test/run.mjs)."""
    node = shutil.which("node")
    assert node, "Node is needed (make web)"
    if not (WEB / "node_modules" / "esbuild").exists() or not (WEB / "gen").exists():
        pytest.fail("clients/web is not built: run make web")
    run = subprocess.run(
        [node, "test/run.mjs"],
        cwd=WEB,
        env={**os.environ, "HANDS": "", **env, "ONLY": only},
        capture_output=True,
        text=True,
        timeout=120,
    )
    print(run.stdout[-3000:], run.stderr[-3000:])
    return run


def test_the_picker_never_shows_more_than_a_screen(tmp_path: Path) -> None:
    seed = int(os.environ.get("PICKER_SEED", random.randrange(1 << 30)))
    print("seed", seed)
    dealt = hands(seed, 3)
    assert sum(h["kind"] == "zipai" for h in dealt) > 50
    path = tmp_path / "hands.json"
    path.write_text(json.dumps(dealt, ensure_ascii=False), encoding="utf-8")
    run = run_web_test("picker", HANDS=str(path), SEED=str(seed))
    assert run.returncode == 0, f"seed {seed}: the picker test failed"


def test_the_report_form_offers_the_games_own_kinds() -> None:
    """clients/web/test/justice.test.ts: 川南字牌's form never offers 花鸟风月's kinds."""
    assert run_web_test("justice").returncode == 0, "the report form test failed"


def test_a_lost_claim_and_a_fed_win_are_said_on_the_table() -> None:
    """clients/web/test/outcomes.test.ts: a 川南字牌 seat whose claim lost to a higher one, or
    whose discard fed another's 胡 (点炮), is told so on the table (src/outcomes.ts)."""
    run = run_web_test("outcomes")
    assert run.returncode == 0 and "# pass 3" in run.stdout, "the outcomes test failed"
