"""The referee's console: one self-contained HTML page (viewer.html, with the console's
bundle and stylesheet from clients/web/dist inlined).

The same page serves a replay saved to a file (all its steps embedded, no network) and the
server's live spectator view (``live`` set: the page follows the server's event stream).
The page renders views the server rendered per viewer; it never re-runs a move.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

from server.wire.page.terms import enum_names, terms

KIND_NAMES = {"huaniao": "花鸟风月", "zipai": "川南字牌"}

# The console is the second door of the one front end (clients/web): its bundle
# (src/console.ts: the shared table, seats and cards, plus the console's own parts) and its
# stylesheet, built by `make web` into clients/web/dist and inlined here into the page's one
# <script> and <style>: its Content-Security-Policy loads nothing from anywhere, live or offline,
# and lets run only that script, by its hash.
BUNDLE = Path(__file__).resolve().parents[3] / "clients" / "web" / "dist"


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _bundle(name: str) -> str:
    try:
        return (BUNDLE / name).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RuntimeError(
            f"the console's bundle {BUNDLE / name} is missing: build it with `make web`"
        ) from None


def _inline_script(text: str) -> str:
    """A script as the body of an inline <script>: no '</script' or '<!--' can end it early."""
    return re.sub(r"<(/script|!--)", r"<\\\1", text, flags=re.I)


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
    script = _inline_script(_bundle("console.js"))
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    out = _asset("viewer.html")
    out = out.replace("{{connect}}", "'self'" if live else "'none'", 1)
    out = out.replace("{{script_hash}}", f"'sha256-{digest}'", 1)
    out = out.replace("{{title}}", html.escape(title), 1)
    out = out.replace("/*css*/", _bundle("console.css").replace("</", "<\\/"), 1)
    out = out.replace("/*js*/", script, 1)
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
