"""The referee's console: one self-contained HTML page (viewer.html, .css and the scripts
inlined).

The same page serves a replay saved to a file (all its steps embedded, no network) and the
server's live spectator view (``live`` set: the page follows the server's event stream).
The page renders views the server rendered per viewer; it never re-runs a move.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from typing import Any

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

from server.wire.page.terms import enum_names, terms

KIND_NAMES = {"huaniao": "花鸟风月", "zipai": "川南字牌"}

# The page's script, in parts joined in this order into its one inline <script> (its
# Content-Security-Policy loads no script from anywhere, live or offline): viewer.js opens the
# page's function (its data, the words, cards, values and events), viewer-table.js renders
# the page around the table (header, viewers, log, timeline, facts, seats, board, win) and
# viewer-justice.js the justice side, then steps, deep links, controls and the live stream,
# and closes the function. Joined, they are the one script the page always had, byte for byte.
SCRIPTS = ("viewer.js", "viewer-table.js", "viewer-justice.js")


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def script_json(data: Any) -> str:
    """JSON that is safe inside a <script> element: no '</script>', no '<!--'."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def page(data: dict[str, Any], live: bool = False) -> str:
    """The page with ``data`` embedded (see clients/python/replay_html.py for its shape).

    Its Content-Security-Policy lets it talk to nobody, or with ``live`` to the server that
    served it (the live viewer's event stream) and nobody else."""

    data = {"enums": enum_names(), "terms": terms(), **data}
    kind = KIND_NAMES.get(data.get("kind", ""), data.get("kind", ""))
    title = f"{kind} · game {data.get('game_id', '')}".strip(" ·")
    out = _asset("viewer.html")
    out = out.replace("{{connect}}", "'self'" if live else "'none'", 1)
    out = out.replace("{{title}}", html.escape(title), 1)
    out = out.replace("/*css*/", _asset("viewer.css"), 1)
    out = out.replace("/*js*/", "".join(_asset(name) for name in SCRIPTS), 1)
    return out.replace("{{data}}", script_json(data), 1)  # last: data is never re-scanned


def step(version: int, event: Message | None, view: Message) -> dict[str, Any]:
    """One version as the page shows it: the event that made it and the view then, both as
    the server rendered them for one viewer. Dropped: the arbiter's stored form of the
    event (the audit has it) and the options, which never change (``data["options"]``)."""
    event_data = as_dict(event) if event is not None else None
    if event_data is not None:
        event_data.pop("stored_json", None)
    view_data = as_dict(view)
    view_data.pop("options", None)
    return {"version": version, "event": event_data, "view": view_data}


def as_dict(msg: Message) -> dict[str, Any]:
    """A message as the page reads it: proto JSON with the proto's own field names."""
    return MessageToDict(msg, preserving_proto_field_name=True)
