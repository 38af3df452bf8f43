"""Delivers the webhook outbox (server/store/outbox.py) to the apps, Standard Webhooks style.

Each delivery is an HTTP POST of the notice's JSON, signed by the ``standardwebhooks``
package: ``webhook-id`` (the notice's id: the receiver's idempotency key),
``webhook-timestamp`` (the send time, seconds) and ``webhook-signature``
(``v1,<base64 HMAC-SHA256 of "id.timestamp.body">`` under the app's ``whsec_`` secret).

The worker runs on a thread and event loop of its own, so a dead or slow endpoint never
touches the tables' loop or the group commit: at most ``concurrency`` requests at once, each
bounded by ``timeout``. A 2xx deletes the row; anything else (an error status, a refused
connection, a timeout) retries it after a backoff that doubles from ``retry_base`` up to
``retry_max``, for as long as it takes: deliveries are at least once. One app's rows of one
game (or match) go one at a time, in the order they were written.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import threading
import time
import tomllib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from standardwebhooks.webhooks import Webhook

from server.store.outbox import Claimed, Outbox
from server.usecases.webhooks import TYPES, App

if TYPE_CHECKING:
    import aiohttp

log = logging.getLogger("tabletop.webhooks")


@dataclass(frozen=True)
class WebhookSettings:
    apps: tuple[App, ...]
    timeout: float = 5.0  # seconds a delivery may take
    concurrency: int = 8  # deliveries in flight at once
    retry_base: float = 1.0  # seconds before the first retry (then doubling)
    retry_max: float = 600.0  # the longest wait between two attempts
    poll: float = 0.2  # seconds between looks at the outbox when idle


def load_settings(path: Path) -> WebhookSettings:
    """The webhook settings from a TOML file (docs/operations.md, "Webhooks"); ValueError
    names what is wrong."""
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"webhooks file {path}: {exc}") from None
    apps = []
    for i, entry in enumerate(data.get("apps", [])):
        where = f"webhooks file {path}: apps[{i}]"
        missing = [k for k in ("name", "url", "secret") if not entry.get(k)]
        if missing:
            raise ValueError(f"{where} needs {', '.join(missing)}")
        if not str(entry["secret"]).startswith("whsec_"):
            raise ValueError(f"{where}.secret must be 'whsec_' + base64")
        try:
            Webhook(entry["secret"])
        except Exception as exc:
            raise ValueError(f"{where}.secret is not base64: {exc}") from None
        types = tuple(entry.get("events", TYPES))
        unknown = sorted(set(types) - set(TYPES))
        if unknown:
            raise ValueError(
                f"{where}.events: unknown {', '.join(unknown)} (known: {', '.join(TYPES)})"
            )
        clients = entry.get("clients", [])
        if not isinstance(clients, list) or not all(isinstance(c, str) and c for c in clients):
            raise ValueError(f"{where}.clients must be a list of login client ids (azp)")
        unowned = entry.get("unowned", False)
        if not isinstance(unowned, bool):
            raise ValueError(f"{where}.unowned must be true or false")
        if not clients and not unowned:
            raise ValueError(
                f'{where} receives no table: name its login clients (clients = ["..."], '
                "the azp of its players' logins) or take the tables of no app (unowned = true)"
            )
        apps.append(
            App(entry["name"], entry["url"], entry["secret"], types, tuple(clients), unowned)
        )
    names = [a.name for a in apps]
    if len(set(names)) != len(names):
        raise ValueError(f"webhooks file {path}: app names must differ")
    return WebhookSettings(
        tuple(apps),
        timeout=float(data.get("timeout_seconds", 5.0)),
        concurrency=int(data.get("concurrency", 8)),
        retry_base=float(data.get("retry_base_seconds", 1.0)),
        retry_max=float(data.get("retry_max_seconds", 600.0)),
    )


def backoff(attempts: int, base: float, longest: float) -> float:
    """Seconds before the next attempt after ``attempts`` failed ones (full jitter above
    half, so a fleet of rows that failed together does not come back together)."""
    step = min(longest, base * 2 ** max(0, attempts - 1))
    return step / 2 + random.random() * step / 2


class Deliverer:
    """The delivery worker over every shard's outbox."""

    def __init__(self, outboxes: list[Outbox], settings: WebhookSettings) -> None:
        self.outboxes = outboxes
        self.settings = settings
        self.apps = {a.name: a for a in settings.apps}
        self.signers = {a.name: Webhook(a.secret) for a in settings.apps}
        self.delivered = 0
        self.failed = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._main, name="webhooks", daemon=True)

    def start(self) -> Deliverer:
        # aiohttp is loaded here, before the server serves, not in the thread: imported there
        # it held up the first delivery by as long as the import took beside the server's own
        # start, and a server killed within a second never tried one
        import aiohttp  # noqa: F401

        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=self.settings.timeout + 5)

    def _main(self) -> None:
        asyncio.run(self._run())

    async def _run(self) -> None:
        import aiohttp  # here, not at the top: a server without webhooks never loads it

        timeout = aiohttp.ClientTimeout(total=self.settings.timeout)
        connector = aiohttp.TCPConnector(limit=self.settings.concurrency)
        async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:
            busy: dict[tuple[str, str], asyncio.Task[None]] = {}
            while not self._stop.is_set():
                free = self.settings.concurrency - len(busy)
                for outbox in self.outboxes:
                    if free <= 0:
                        break
                    claimed = await self._claim(outbox, free, set(busy))
                    for job in claimed:
                        lane = (job.row.app, job.row.record_id)
                        busy[lane] = asyncio.create_task(self._deliver(session, outbox, job))
                        busy[lane].add_done_callback(functools.partial(_free, busy, lane))
                    free -= len(claimed)
                await asyncio.sleep(self.settings.poll)
            for task in list(busy.values()):
                task.cancel()

    async def _claim(self, outbox: Outbox, free: int, busy: set[tuple[str, str]]) -> list[Claimed]:
        lease = self.settings.timeout + 30  # past any attempt of ours
        try:
            return await asyncio.to_thread(outbox.claim, free, lease, busy)
        except Exception:
            log.warning("reading the webhook outbox failed", exc_info=True)
            return []

    async def _deliver(self, session: aiohttp.ClientSession, outbox: Outbox, job: Claimed) -> None:
        app = self.apps.get(job.row.app)
        if app is None:  # an app removed from the settings: its rows wait for it
            await asyncio.to_thread(outbox.retry_at, job.seq, time.time() + self.settings.retry_max)
            return
        ok = await self._post(session, app, job)
        try:
            if ok:
                self.delivered += 1
                await asyncio.to_thread(outbox.delivered, job.seq)
            else:
                self.failed += 1
                wait = backoff(job.attempts, self.settings.retry_base, self.settings.retry_max)
                await asyncio.to_thread(outbox.retry_at, job.seq, time.time() + wait)
        except Exception:  # the lease runs out and the row is sent again: at least once
            log.warning("recording a webhook delivery failed", exc_info=True)

    async def _post(self, session: aiohttp.ClientSession, app: App, job: Claimed) -> bool:
        import aiohttp

        now = datetime.now(UTC)
        headers = {
            "content-type": "application/json",
            "webhook-id": job.row.msg_id,
            "webhook-timestamp": str(int(now.timestamp())),
            "webhook-signature": self.signers[app.name].sign(job.row.msg_id, now, job.row.body),
        }
        try:
            async with session.post(app.url, data=job.row.body.encode(), headers=headers) as reply:
                if 200 <= reply.status < 300:
                    return True
                log.info("webhook %s to %s: HTTP %d", job.row.msg_id, app.name, reply.status)
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            log.info("webhook %s to %s: %s", job.row.msg_id, app.name, type(exc).__name__)
        return False


def _free(busy: dict[tuple[str, str], Any], lane: tuple[str, str], _task: Any) -> None:
    busy.pop(lane, None)


def describe(settings: WebhookSettings) -> str:
    def whose(a: App) -> str:
        return ", ".join([*(f"client {c}" for c in a.clients), *(["no app"] if a.unowned else [])])

    return "; ".join(
        f"{a.name} -> {a.url} ({len(a.types)} types; tables of {whose(a)})" for a in settings.apps
    )
