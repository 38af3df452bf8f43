"""The referee console reads its embedded views without protobuf-es (src/console/view.ts, from
gen/view-shape.json: the console's bundle is half the size): Node holds what it reads equal to
protobuf-es's fromJson for every viewer's every version of two finished games, a judged
花鸟风月 game (reports, a ruling, an appeal, votes, penalties, a revocation) and a 川南字牌
game that ends in a 胡 (clients/web/test/view.test.ts)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from clients.python.client import TableClient
from clients.python.replay_html import write_replay_page
from clients.python.serverproc import ServerProcess
from tests.api.conftest import client  # noqa: F401  (on this module's server, below)
from tests.browser.pages import page_data
from tests.browser.test_page_words import finished_zipai, judged_huaniao
from tests.web.test_picker import run_web_test


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    flags = ["--allow-prepared-deals"]  # the games are seeded
    proc = ServerProcess(tmp_path_factory.mktemp("server"), extra=flags).start()
    yield proc
    proc.stop()


def test_the_console_reads_every_view_as_protobuf_es_does(
    client: TableClient,  # noqa: F811
    tmp_path: Path,
) -> None:
    views = []
    for game_id in (judged_huaniao(client)[0], finished_zipai(client)):
        page = tmp_path / f"{game_id}.html"
        write_replay_page(page, game=client.as_viewer(game_id))
        for viewer in page_data(page.read_text(encoding="utf-8"))["viewers"]:
            views += [step["view"] for step in viewer["steps"]]
    path = tmp_path / "views.json"
    path.write_text(json.dumps(views, ensure_ascii=False), encoding="utf-8")
    run = run_web_test("view", VIEWS=str(path))
    assert run.returncode == 0 and "views read alike" in run.stdout, "the console's reader differs"
