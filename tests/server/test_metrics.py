"""server.metrics in isolation: store timing, the readiness probe, structured log lines."""

from __future__ import annotations

import json
import logging
from typing import Any

from prometheus_client import CollectorRegistry

from server.health import StoreHealth
from server.metrics import Metrics, StructuredFormatter, instrument_store


class FakeRecorder:
    def __init__(self) -> None:
        self.up = True

    def max_notification_id(self) -> int:
        if not self.up:
            raise ConnectionError("the database went away")
        return 7


class FakeRepository:
    def get(self, aggregate_id: Any, version: int | None = None) -> str:
        return f"{aggregate_id}@{version}"


class FakeApp:
    def __init__(self) -> None:
        self.recorder = FakeRecorder()
        self.repository = FakeRepository()
        self.saved: list[Any] = []

    def save(self, *events: Any) -> list[Any]:
        self.saved.extend(events)
        return list(events)

    def stored_events(self, game_id: Any, gt: int | None = None) -> list[int]:
        return [1, 2, 3]


def value(metrics: Metrics, name: str, **labels: str) -> float:
    return metrics.registry.get_sample_value(name, labels) or 0.0


def test_store_calls_are_timed_and_events_counted() -> None:
    metrics = Metrics(CollectorRegistry())
    app = FakeApp()
    instrument_store(app, metrics)
    assert app.save("a", "b", "c") == ["a", "b", "c"]
    assert app.repository.get("g") == "g@None"
    assert app.repository.get("g", version=3) == "g@3"
    assert app.stored_events("g", gt=1) == [1, 2, 3]
    assert value(metrics, "tabletop_events_appended_total") == 3
    assert value(metrics, "tabletop_commit_batch_events_count") == 1
    assert value(metrics, "tabletop_commit_batch_events_sum") == 3
    for op in ("save", "load", "load_version", "read"):
        assert value(metrics, "tabletop_store_seconds_count", op=op) == 1, op


def test_the_probe_reports_a_store_that_stops_answering() -> None:
    metrics = Metrics(CollectorRegistry())
    app = FakeApp()
    health = StoreHealth([app], metrics)
    assert health.probe(0) is True and health.ok
    app.recorder.up = False
    assert health.probe(0) is False and not health.ok
    assert value(metrics, "tabletop_store_faults_total", op="probe") == 1
    app.recorder.up = True
    assert health.probe(0) is True and health.ok
    assert value(metrics, "tabletop_store_seconds_count", op="probe") == 3


def record(**fields: Any) -> logging.LogRecord:
    r = logging.LogRecord("tabletop.rpc", logging.INFO, __file__, 1, "rpc", None, None)
    r.fields = fields
    return r


def test_log_lines_are_key_value_or_json() -> None:
    fields = {"method": "Play", "code": "OK", "game_id": "g-1", "version": 12, "note": "a b"}
    text = StructuredFormatter("text").format(record(**fields))
    assert "level=info logger=tabletop.rpc msg=rpc method=Play code=OK" in text
    assert "game_id=g-1 version=12" in text and 'note="a b"' in text
    data = json.loads(StructuredFormatter("json").format(record(**fields)))
    assert data["game_id"] == "g-1" and data["version"] == 12 and data["msg"] == "rpc"
