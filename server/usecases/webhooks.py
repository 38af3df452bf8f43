"""What a move owes the apps' webhooks (docs/integrating.md, "Webhooks").

``notices`` reads a move from its stored facts and the record's state after it: the same
function serves the group commit (the rows stored with the move, server/store/outbox.py)
and anyone re-deriving them from a record (the tests do, to check that none was lost).

What a notice may say is public: a seat's turn names only the game, the seat, its player,
the version and the deadline, never a card, a hand or a token (tests/api/test_webhooks.py
holds every notice of a played game to this). A game's result is sent once it ended, when
the record reveals everything anyway.

The webhook-id of a notice is derived from what it is about (the record, the version, the
type, the seat), so a move written again after an unknown outcome owes the same ids, and a
receiver can use it as its idempotency key.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from domain import table as tables
from server.store.commit import Pending
from server.store.eventstore import GameAggregate, MatchAggregate
from server.store.outbox import OutboxRow
from server.usecases.timers import MAX_RUN, deadline_of

TABLE_OPENED = "table.opened"
SEAT_TURN = "seat.turn"
CASE_OPENED = "case.opened"
CASE_RULED = "case.ruled"
GAME_ENDED = "game.ended"
HAND_ENDED = "hand.ended"
MATCH_ENDED = "match.ended"
TYPES = (TABLE_OPENED, SEAT_TURN, CASE_OPENED, CASE_RULED, GAME_ENDED, HAND_ENDED, MATCH_ENDED)

CASE_OPENING_FACTS = ("ViolationReported", "AppealFiled")
GAME_END_FACT = "ShuffleRevealed"  # appended with the facts that end a game (domain/table/draw.py)


@dataclass(frozen=True)
class Notice:
    msg_id: str  # the webhook-id
    type: str
    record_id: str
    version: int
    body: dict[str, Any]  # {"type", "timestamp", "data"}: the Standard Webhooks payload


@dataclass(frozen=True)
class App:
    """An app that receives webhooks: its endpoint, its secret, the types it wants."""

    name: str
    url: str
    secret: str  # "whsec_" + base64
    types: tuple[str, ...] = TYPES


def message_id(record_id: str, version: int, type_: str, seat: int | None = None) -> str:
    key = f"{record_id}:{version}:{type_}:{'' if seat is None else seat}"
    return "msg_" + hashlib.sha256(key.encode()).hexdigest()[:32]


def _notice(agg: Any, type_: str, data: dict[str, Any], seat: int | None = None) -> Notice:
    record_id = str(agg.id)
    version = int(data["version"])
    body = {"type": type_, "timestamp": agg.modified_on.isoformat(), "data": data}
    return Notice(message_id(record_id, version, type_, seat), type_, record_id, version, body)


def notices(agg: Any, facts: Sequence[dict[str, Any]], max_run: int = MAX_RUN) -> list[Notice]:
    """The notices of one move: ``facts`` its stored facts ({"type", "data"}), ``agg`` the
    game or match as it stands after them."""
    if isinstance(agg, MatchAggregate):
        return _match_notices(agg, facts)
    if isinstance(agg, GameAggregate):
        return _game_notices(agg, facts, max_run)
    return []


def _game_notices(agg: GameAggregate, facts: Sequence[dict[str, Any]], max_run: int) -> list[Notice]:
    table = agg.table
    game_id = str(agg.id)
    version = agg.version
    out: list[Notice] = []
    kinds = [f["type"] for f in facts]
    if "GameCreated" in kinds:
        out.append(
            _notice(
                agg,
                TABLE_OPENED,
                {
                    "game_id": game_id,
                    "version": version,
                    "kind": table.kind,
                    "seat_count": table.seat_count,
                    "match_id": table.match_id,
                    "hand": table.hand,
                },
            )
        )
    if any(k in CASE_OPENING_FACTS for k in kinds) and table.justice.open_case is not None:
        case_id = table.justice.open_case.id
        data = {"game_id": game_id, "version": version, "case_id": case_id}
        out.append(_notice(agg, CASE_OPENED, data, seat=case_id))
    for fact in facts:
        if fact["type"] == "CaseClosed":
            case_id = int(fact["data"]["case_id"])
            data = {
                "game_id": game_id,
                "version": version,
                "case_id": case_id,
                "status": fact["data"]["status"],
            }
            out.append(_notice(agg, CASE_RULED, data, seat=case_id))
    if GAME_END_FACT in kinds and table.outcome is not None:
        outcome = table.outcome
        data = {
            "game_id": game_id,
            "version": version,
            "winners": list(outcome.winners),
            "scores": list(outcome.scores),
            "reason": outcome.reason,
            "match_id": table.match_id,
            "hand": table.hand,
        }
        out.append(_notice(agg, GAME_ENDED, data))
    out += _turns(agg, max_run)
    return out


def _turns(agg: GameAggregate, max_run: int) -> list[Notice]:
    """One seat.turn per seat the table now waits for: public facts only."""
    table = agg.table
    if table.phase is not tables.Phase.PLAYING:
        return []
    deadline = deadline_of(agg, max_run)
    out = []
    for seat in tables.to_act(table):
        holder = table.seats[seat]
        data = {
            "game_id": str(agg.id),
            "seat": seat,
            "player": holder.player if holder is not None else "",
            "version": agg.version,
            "deadline": None if deadline is None else deadline.isoformat(),
        }
        out.append(_notice(agg, SEAT_TURN, data, seat=seat))
    return out


def _match_notices(agg: MatchAggregate, facts: Sequence[dict[str, Any]]) -> list[Notice]:
    match_id = str(agg.id)
    out = []
    for fact in facts:
        data = fact["data"]
        if fact["type"] == "HandEnded":
            hand = {
                "match_id": match_id,
                "version": agg.version,
                "hand": data["hand"],
                "game_id": data["game_id"],
                "winners": data["winners"],
                "scores": data["scores"],
                "reason": data["reason"],
            }
            out.append(_notice(agg, HAND_ENDED, hand, seat=int(data["hand"])))
        elif fact["type"] == "MatchEnded":
            ended = {
                "match_id": match_id,
                "version": agg.version,
                "winners": data["winners"],
                "standings": data["standings"],
                "incomplete": data.get("incomplete", False),
            }
            out.append(_notice(agg, MATCH_ENDED, ended))
    return out


def outbox_rows(apps: Sequence[App], max_run: int = MAX_RUN) -> Callable[[list[Pending]], list[OutboxRow]]:
    """The group commit's ``outbox_for``: every app's rows for the moves of a batch."""

    def rows(pending: list[Pending]) -> list[OutboxRow]:
        out = []
        for agg, events, _future in pending:
            for notice in notices(agg, [e.fact for e in events], max_run):
                text = orjson.dumps(notice.body).decode()
                out += [
                    OutboxRow(app.name, notice.msg_id, notice.record_id, notice.type, text)
                    for app in apps
                    if notice.type in app.types
                ]
        return out

    return rows
