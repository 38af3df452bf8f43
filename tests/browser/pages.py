"""Reading the console page back: its embedded data, and what its DOM shows right now."""

from __future__ import annotations

import json
import re
from typing import Any

from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import card_ids

DATA = re.compile(r'<script id="tabletop-data" type="application/json">(.*?)</script>', re.S)

# What the page shows now: the version, the viewer, and the card ids in each seat's panel and
# on the rest of the table (the centre and the board: every `.card[data-card]`), the count of a
# seat's face-down hand (the shared Backs, `data-n`), the new cards.
SHOWN = """
const ids = (root, sel) => [...root.querySelectorAll(sel)].map((c) => Number(c.dataset.card));
const out = {version: Number(document.body.dataset.version), viewer: document.body.dataset.viewer,
  seats: {}, backs: {}, fresh: {}, board: ids(document, '#centre .card[data-card], #board .card[data-card]'),
  everywhere: ids(document, '.card[data-card]'),
  markers: [...document.querySelectorAll('#markers .marker')].map((m) => Number(m.dataset.version)),
  slider: Number(document.getElementById('replay-slider').value), verify: document.getElementById('verify').innerText};
document.querySelectorAll('#seats .seat').forEach((p) => {
  out.seats[p.dataset.seat] = ids(p, '.card[data-card]');
  const backs = p.querySelector(':scope > .backs');
  out.backs[p.dataset.seat] = backs ? Number(backs.dataset.n) : 0;
  out.fresh[p.dataset.seat] = ids(p, '.card.new[data-card]');
});
return out;
"""


def page_data(html: str) -> dict[str, Any]:
    found = DATA.search(html)
    assert found, "the page embeds its data"
    return json.loads(found.group(1))  # type: ignore[no-any-return]


def shown(browser: Any) -> dict[str, Any]:
    return browser.execute_script(SHOWN)  # type: ignore[no-any-return]


def expected(view: pb.GameView) -> dict[str, Any]:
    """What the DOM must show for this API view: each seat's cards, the table's, the backs."""
    game: Any = getattr(view, view.WhichOneof("game") or "huaniao")
    by_seat = {s.seat: s for s in game.seats}
    seats, backs = {}, {}
    for info in view.seats:  # a panel per table seat, whatever the game shows of it
        s = by_seat.get(info.seat)
        seats[str(info.seat)] = sorted(card_ids(s)) if s is not None else []
        count, hand = (s.hand_count, s.cards) if hasattr(s, "hand_count") else (0, [])
        if s is not None and not hasattr(s, "hand_count"):
            count, hand = s.hand_size, s.hand
        backs[str(info.seat)] = count if count and not len(hand) else 0
    rest = type(game)()
    rest.CopyFrom(game)
    rest.ClearField("seats")
    rest.ClearField("options")
    return {"seats": seats, "board": sorted(card_ids(rest)), "backs": backs}
