"""A local webhook receiver (127.0.0.1, a free port) and the notices a record owes.

``Receiver`` verifies every delivery's Standard Webhooks signature with the
``standardwebhooks`` package and keeps what arrived, in arrival order. Its ``script`` says
how it answers the n-th request (0 first): "fail" (HTTP 503), "slow" (answers 200 only after
``slow_seconds``, past the server's time limit) or "ok".

``owed`` re-derives, from a store opened directly, the notices every move of a game owes
(server/usecases/webhooks.py): each move ends with a sealed event.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import subprocess
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from standardwebhooks.webhooks import Webhook

from server.store.eventstore import TableApplication
from server.usecases.webhooks import Notice, notices

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"  # the Standard Webhooks docs' example


@dataclass
class Arrival:
    msg_id: str
    body: dict[str, Any]
    answered: str  # what the script did with it


@dataclass
class Receiver:
    script: Callable[[int], str] = lambda n: "ok"
    slow_seconds: float = 2.0
    secret: str = SECRET
    arrivals: list[Arrival] = field(default_factory=list)
    bad_signatures: int = 0
    requests: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._webhook = Webhook(self.secret)
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                receiver.answer(self, body)

            def log_message(self, *_: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_port}/hooks"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def answer(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        with self._lock:
            n = self.requests
            self.requests += 1
        what = self.script(n)
        try:
            payload = self._webhook.verify(body, dict(handler.headers.items()))
        except Exception:
            with self._lock:
                self.bad_signatures += 1
            handler.send_response(400)
            handler.end_headers()
            return
        if what == "fail":
            handler.send_response(503)
            handler.end_headers()
            return
        if what == "slow":
            time.sleep(self.slow_seconds)
        with self._lock:
            self.arrivals.append(Arrival(handler.headers["webhook-id"], payload, what))
        handler.send_response(204)
        handler.end_headers()

    def received(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {a.msg_id: a.body for a in self.arrivals}

    def first_arrivals(self) -> list[str]:
        """Each id once, in the order it first arrived."""
        seen: dict[str, None] = {}
        with self._lock:
            for a in self.arrivals:
                seen.setdefault(a.msg_id, None)
        return list(seen)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def write_settings(path: Path, url: str, timeout: float = 1.0, **more: Any) -> Path:
    """A webhooks TOML file with one app ("demo") at ``url``."""
    lines = [
        f"timeout_seconds = {timeout}",
        "retry_base_seconds = 0.1",
        "retry_max_seconds = 1.0",
        "concurrency = 4",
        *(f"{k} = {json.dumps(v)}" for k, v in more.items()),
        "",
        "[[apps]]",
        'name = "demo"',
        f'url = "{url}"',
        f'secret = "{SECRET}"',
        "unowned = true",  # CreateGame's tables are of no app
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def owed(app: TableApplication, record_id: str) -> list[Notice]:
    """Every notice a game's or a match's moves owe, in order, re-derived from its stored
    record move by move (each move ends with a sealed event)."""
    game = uuid.UUID(record_id)
    out: list[Notice] = []
    move: list[Any] = []
    e: Any
    for e in app.events.get(game):
        move.append(e)
        if e.seal is not None:  # a move's last event
            agg: Any = app.repository.get(game, version=e.originator_version)
            out += notices(agg, move)
            move = []
    return out


def wait_for(check: Callable[[], bool], timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.1)
    return check()


EXAMPLE_DIR = (
    Path(__file__).resolve().parents[2] / "clients" / "node" / "examples" / "webhook-receiver"
)


def ensure_example_modules() -> None:
    """``npm ci`` in the Node webhook example unless its node_modules matches its lock."""
    want = hashlib.sha256((EXAMPLE_DIR / "package-lock.json").read_bytes()).hexdigest()
    stamp = EXAMPLE_DIR / "node_modules" / ".package-lock.sha256"
    with open(EXAMPLE_DIR.parent / ".npm-ci.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.exists() and stamp.read_text().strip() == want:
            return
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"],
            cwd=EXAMPLE_DIR,
            check=True,
            timeout=600,
            stdin=subprocess.DEVNULL,
        )
        stamp.write_text(want + "\n")
