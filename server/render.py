"""Protobuf <-> domain for the table API: the only place that knows both shapes.

Game-specific messages are found by the game's registered name: the proto field named
after the kind (``huaniao``, ``zipai``) in each oneof, and the message classes of the same
names as the domain dataclasses. Redaction happens here, once per viewer, through the
domain's ``redact``; nothing is rendered for a viewer without it.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp

from domain import audit
from domain import table as tables
from domain.engine import ARBITER, MalformedCommand, Role, Viewer
from domain.registry import rules_for
from server.protoconv import fill, fill_oneof, read, read_oneof
from server.service import Snapshot
from server.store import StoredEvent
from tabletop.v1 import tabletop_pb2 as pb

_ROLE = {Role.SEAT: pb.ROLE_SEAT, Role.SPECTATOR: pb.ROLE_SPECTATOR, Role.ARBITER: pb.ROLE_ARBITER}
_PHASE = {
    tables.Phase.WAITING: pb.GAME_PHASE_WAITING,
    tables.Phase.PLAYING: pb.GAME_PHASE_PLAYING,
    tables.Phase.FINISHED: pb.GAME_PHASE_FINISHED,
}


def read_options(msg: pb.GameOptions) -> tuple[str, Any]:
    kind = msg.WhichOneof("game")
    if kind is None:
        raise MalformedCommand("options", "choose a game kind")
    return kind, read(getattr(msg, kind), rules_for(kind).options_type, f"options.{kind}.")


def read_move(kind: str, msg: pb.Move) -> Any:
    which = msg.WhichOneof("game")
    if which != kind:
        raise MalformedCommand("move", f"this game is {kind}, the move is {which or 'empty'}")
    return read_oneof(getattr(msg, kind), rules_for(kind).command_types, f"move.{kind}")


def options_proto(kind: str, options: Any) -> pb.GameOptions:
    msg = pb.GameOptions()
    fill(getattr(msg, kind), options)
    getattr(msg, kind).SetInParent()
    return msg


def move_proto(kind: str, command: Any) -> pb.Move:
    msg = pb.Move()
    fill_oneof(getattr(msg, kind), command)
    return msg


def event_proto(kind: str, stored: StoredEvent, viewer: Viewer) -> pb.GameEvent:
    fact = tables.redact(kind, stored.fact, viewer)
    ts = Timestamp()
    ts.FromDatetime(stored.recorded_at)
    msg = pb.GameEvent(version=stored.version, recorded_at=ts, text=tables.describe(kind, fact))
    msg.hash = stored.hash
    if viewer == ARBITER and stored.stored is not None:
        msg.stored_json = audit.canonical({"fact": stored.stored, "cause": stored.cause})
    if isinstance(fact, tables.GameCreated):
        msg.table.game_created.options.CopyFrom(options_proto(fact.kind, fact.options))
        msg.table.game_created.seat_count = fact.seat_count
        msg.table.game_created.commitment = fact.commitment
    elif isinstance(fact, tables.SeatTaken):
        msg.table.seat_taken.seat = fact.seat
        msg.table.seat_taken.player_name = fact.player_name
        msg.table.seat_taken.contribution = fact.contribution
    elif isinstance(fact, tables.GameStarted):
        msg.table.game_started.deck.extend(fact.deck)
        msg.table.game_started.deck_hidden = not fact.deck
        msg.table.game_started.seed = fact.seed
    elif isinstance(fact, tables.ShuffleRevealed):
        msg.table.shuffle_revealed.secret = fact.secret
    else:
        fill_oneof(getattr(msg, kind), fact)
    return msg


def events_proto(kind: str, events: list[StoredEvent], viewer: Viewer) -> list[pb.GameEvent]:
    return [event_proto(kind, e, viewer) for e in events]


def to_act(table: tables.Table) -> list[int]:
    return [] if table.game is None else list(rules_for(table.kind).to_act(table.game))


def view_proto(snap: Snapshot) -> pb.GameView:
    table = snap.table
    rules = rules_for(table.kind)
    viewer = snap.viewer
    msg = pb.GameView(
        game_id=str(snap.game_id),
        version=snap.version,
        phase=_PHASE[table.phase],
        role=_ROLE[viewer.role],
        options=options_proto(table.kind, table.options),
        head_hash=snap.head_hash,
        commitment=table.commitment,
    )
    if viewer.seat is not None:
        msg.seat = viewer.seat
    for seat, info in enumerate(table.seats):
        msg.seats.add(
            seat=seat, taken=info is not None, player_name=info.player_name if info else ""
        )
    if table.game is not None:
        msg.to_act.extend(to_act(table))
        fill(getattr(msg, table.kind), rules.view(table.game, viewer))
        getattr(msg, table.kind).SetInParent()
    outcome = table.outcome
    if outcome is not None:
        msg.outcome.winners.extend(outcome.winners)
        msg.outcome.scores.extend(outcome.scores)
        msg.outcome.reason = outcome.reason
    return msg
