"""The referee's console as a file: a self-contained HTML replay of one game.

``write_replay_page`` is the one entry point, for ``tabletop replay GAME_ID --html FILE``
(from the server) and ``tabletop-audit verify --file EXPORT --html FILE`` (from an export).
The page embeds, for each viewer it may show, the steps the server rendered for that viewer
(the Replay RPC, or the same rendering applied to an export), the verify result and whether
the deal was prepared. It carries nothing a viewer may not see: a seat's page holds only
that seat's steps; every viewpoint is embedded only when the record allows it (the game is
over, or the caller is the arbiter).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from clients.python.client import TableClient
from clients.python.exports import export_lines
from clients.python.seat import SeatClient
from domain.verify import AuditFailure, AuditReport, PublicKeys, Record, parse_export, verify
from server.wire import page as web
from server.wire.signedcommands import read_signed_command
from tabletop.v1 import tabletop_pb2 as pb

# What a passing verify has checked (domain/verify.py, verify's steps 1-4).
CHECKS = ("chain", "commitment", "seals (server key)", "deck", "moves re-decided", "outcome")


@dataclass(frozen=True)
class Viewpoint:
    """One viewer of the page: a seat, the spectator or the arbiter."""

    key: str
    label: str
    as_seat: int | None = None
    as_arbiter: bool = False
    spectator: bool = False


def write_replay_page(
    path: str | Path,
    *,
    game: SeatClient | None = None,
    as_seat: int | None = None,
    export: list[Record] | None = None,
    source: str = "",
    public_key: PublicKeys | None = None,
) -> str:
    """Write the page for ``game`` (over the API, as its token allows; ``as_seat`` for one
    seat's page) or for the records of an ``export`` file (``audit_verify.parse_lines``),
    verified with ``public_key`` (from the game's server when not given). Returns a one-line
    summary."""
    if (game is None) == (export is None):
        raise ValueError("give either a game or an export")
    if game is not None:
        data = _from_server(game, as_seat, public_key)
    else:
        data = _from_export(export or [], public_key)
    data["source"] = source or data.get("source", "")
    data["generated_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    Path(path).write_text(web.page(data), encoding="utf-8")
    steps = len(data["viewers"][0]["steps"]) if data["viewers"] else 0
    names = ", ".join(v["label"] for v in data["viewers"])
    return f"wrote {path}: {steps} versions as {names}; verify {data['verify']['status']}"


def write(
    client: TableClient, game_id: str, token: str | None, as_seat: int | None, path: str
) -> str:
    """``tabletop replay GAME_ID --html FILE``: the page as this token may see the game."""
    return write_replay_page(path, game=client.as_viewer(game_id, token), as_seat=as_seat)


def write_from_records(
    records: list[Record], path: str, source: str = "", public_key: PublicKeys | None = None
) -> str:
    """``tabletop-audit verify ... --html FILE``: the page of a complete record."""
    return write_replay_page(path, export=records, source=source, public_key=public_key)


# --- over the API ---------------------------------------------------------------------------


def _from_server(game: SeatClient, as_seat: int | None, key: PublicKeys | None) -> dict[str, Any]:
    now = game.view()
    latest = now.version
    finished = now.phase == pb.GAME_PHASE_FINISHED
    viewpoints = _viewpoints(now, as_seat)
    public = SeatClient(game.target, game.game_id, None, None, game.channel)
    viewers = []
    for vp in viewpoints:
        replayer = public if vp.spectator else game
        steps = [
            web.step(int(s.view.version), s.event if s.HasField("event") else None, s.view)
            for s in replayer.replay(1, latest, as_seat=vp.as_seat, as_arbiter=vp.as_arbiter)
        ]
        viewers.append({"key": vp.key, "label": vp.label, "steps": steps})
    records = None  # the complete record: public after the end, to nobody before it
    if finished:
        records = _records(game.history())
        if key is None:
            reply = game.stub.GetSigningKey(pb.GetSigningKeyRequest())
            key = [bytes(reply.public_key), *(bytes(k.public_key) for k in reply.retired)]
    return {
        "game_id": game.game_id,
        "kind": now.options.WhichOneof("game") or "",
        "options": web.as_dict(now.options),
        "viewers": viewers,
        "default_viewer": viewers[0]["key"],
        "verify": _verify(records, finished, key),
        "prepared_deal": _prepared(records),
        "deal_source": _deal_source(records),
        "source": f"server {game.target}, version {latest}",
    }


def _viewpoints(now: pb.GameView, as_seat: int | None) -> list[Viewpoint]:
    """The viewers the record allows: one seat when asked for; every seat, the spectator and
    the arbiter once the game is over or for the arbiter; else the caller only."""
    names = {s.seat: s.player_name for s in now.seats}
    seat = [
        Viewpoint(f"seat-{s}", f"seat {s}" + (f" · {names[s]}" if names.get(s) else ""), s)
        for s in range(len(now.seats))
    ]
    if as_seat is not None:
        return [seat[as_seat]] if 0 <= as_seat < len(seat) else [Viewpoint("seat", "", as_seat)]
    if now.phase == pb.GAME_PHASE_FINISHED or now.role == pb.ROLE_ARBITER:
        return [
            Viewpoint("arbiter", "arbiter (everything)", as_arbiter=True),
            *seat,
            Viewpoint("spectator", "spectator", spectator=True),
        ]
    if now.role == pb.ROLE_SEAT:
        return [dataclasses.replace(seat[now.seat], as_seat=None)]
    return [Viewpoint("spectator", "spectator", spectator=True)]


def _records(events: Iterable[pb.GameEvent]) -> list[Record]:
    """The complete record from a history that carries the stored form of every event (after
    the end), read as `tabletop-audit` reads an export."""
    return parse_export(export_lines(events))


# --- from an export file --------------------------------------------------------------------


def _from_export(records: list[Record], key: PublicKeys | None) -> dict[str, Any]:
    from domain.engine import ARBITER, SPECTATOR, Viewer
    from server.wire.offline import record_kind, replay_records

    if not records:
        raise AuditFailure("empty history")
    seat_count = int(records[0].fact["data"]["seat_count"])
    names = _player_names(records)
    viewpoints = [(ARBITER, "arbiter", "arbiter (everything)")]
    for s in range(seat_count):
        label = f"seat {s}" + (f" · {names[s]}" if names.get(s) else "")
        viewpoints.append((Viewer.of_seat(s), f"seat-{s}", label))
    viewpoints.append((SPECTATOR, "spectator", "spectator"))
    rendered = replay_records(records, [v for v, _, _ in viewpoints])
    viewers = [
        {
            "key": key,
            "label": label,
            "steps": [web.step(int(r.view.version), r.event, r.view) for r in rendered[v]],
        }
        for v, key, label in viewpoints
    ]
    finished = any(r.fact.get("type") == "ShuffleRevealed" for r in records)
    return {
        "game_id": "",
        "kind": record_kind(records),
        "viewers": viewers,
        "default_viewer": "arbiter",
        "verify": _verify(records, finished, key),
        "prepared_deal": _prepared(records),
        "deal_source": _deal_source(records),
        "source": f"export file, {len(records)} events",
    }


def _player_names(records: list[Record]) -> dict[int, str]:
    return {
        int(r.fact["data"]["seat"]): str(r.fact["data"]["player_name"])
        for r in records
        if r.fact.get("type") == "SeatTaken"
    }


# --- verify ---------------------------------------------------------------------------------


def _verify(records: list[Record] | None, finished: bool, key: PublicKeys | None) -> dict[str, Any]:
    """The verifier's result for the page: its report's fields, whatever they are."""
    if records is None or not finished:
        why = "the game has not ended" if not finished else "this viewer has no complete record"
        return {"status": "not yet", "message": f"{why}: verify runs on the complete record"}
    if key is None:
        return {"status": "not yet", "message": "no server key to verify the seals with"}
    try:
        report = verify(records, key, command_reader=read_signed_command)
    except AuditFailure as exc:
        return {"status": "failed", "message": str(exc), "report": {}}
    return {
        "status": "verified",
        "checks": [{"name": name, "ok": True} for name in CHECKS],
        "report": _report_fields(report),
        "message": "",
    }


def _report_fields(report: AuditReport) -> dict[str, Any]:
    fields = {**dataclasses.asdict(report), "seat_words": report.seat_words}
    return {
        k: v if isinstance(v, str | int | bool) else json.loads(json.dumps(v, default=str))
        for k, v in fields.items()
    }


def _deal_source(records: list[Record] | None) -> str | None:
    """The record's deal source as the API names it (``DEAL_SOURCE_PREPARED_SEED``), from
    its GameCreated; None without a complete record. A record made before deal sources were
    stored says only whether it had a prepared deck."""
    if not records or records[0].fact.get("type") != "GameCreated":
        return None
    data = records[0].fact["data"]
    source = data.get("deal_source")
    if source is None:
        source = "PREPARED_DECK" if data.get("prepared_deck") else "SHUFFLED"
    return f"DEAL_SOURCE_{source}"


def _prepared(records: list[Record] | None) -> bool | None:
    """Whether the deal was prepared (a client-given seed or deck), None when not known."""
    source = _deal_source(records)
    return None if source is None else source != "DEAL_SOURCE_SHUFFLED"
