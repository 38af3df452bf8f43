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

A notice about a fact carries that fact's version, so it is the same whether the fact was
saved alone or with others. The turns are read from the state after the whole save: one
save of several sealed moves (a match's next hand: its creation, then its seats) waits for
no seat before its last move, so re-deriving move by move (tests/support/webhooks.py) gives
the same notices.
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
    app: str = ""  # the app whose table it is about (GameCreated.app; "": none)


@dataclass(frozen=True)
class App:
    """An app that receives webhooks: its endpoint, its secret, the types it wants, and
    whose tables: those of its login ``clients`` (the client ids its players' logins carry,
    GameCreated.app), and, if ``unowned``, the tables of no app (CreateGame's, and a
    match's notices). Never another app's."""

    name: str
    url: str
    secret: str  # "whsec_" + base64
    types: tuple[str, ...] = TYPES
    clients: tuple[str, ...] = ()
    unowned: bool = False

    def receives(self, notice: Notice) -> bool:
        if notice.type not in self.types:
            return False
        return notice.app in self.clients if notice.app else self.unowned


def message_id(record_id: str, version: int, type_: str, seat: int | None = None) -> str:
    key = f"{record_id}:{version}:{type_}:{'' if seat is None else seat}"
    return "msg_" + hashlib.sha256(key.encode()).hexdigest()[:32]


def _notice(
    agg: Any, type_: str, data: dict[str, Any], seat: int | None = None, at: Any = None
) -> Notice:
    """``at``: when the fact was recorded (the move's last event's time by default). A
    game's notice is its table's app's; a match's, no app's."""
    record_id = str(agg.id)
    version = int(data["version"])
    when = (at or agg.modified_on).isoformat()
    body = {"type": type_, "timestamp": when, "data": data}
    app = agg.table.app if isinstance(agg, GameAggregate) else ""
    msg_id = message_id(record_id, version, type_, seat)
    return Notice(msg_id, type_, record_id, version, body, app)


def notices(agg: Any, events: Sequence[Any], max_run: int = MAX_RUN) -> list[Notice]:
    """The notices of one save: ``events`` its stored events (each with its ``fact``, its
    version and its time), ``agg`` the game or match as it stands after them."""
    if isinstance(agg, MatchAggregate):
        return _match_notices(agg, events)
    if isinstance(agg, GameAggregate):
        return _game_notices(agg, events, max_run)
    return []


def _game_notices(agg: GameAggregate, events: Sequence[Any], max_run: int) -> list[Notice]:
    """A game's notices: each fact's own at its version, then the turns the game now waits
    for (at the move's last version)."""
    table = agg.table
    game_id = str(agg.id)
    out: list[Notice] = []
    for event in events:
        fact, version, at = event.fact, event.originator_version, event.timestamp
        data: dict[str, Any] = {"game_id": game_id, "version": version}
        kind = fact["type"]
        if kind == "GameCreated":
            data |= {
                "kind": table.kind,
                "seat_count": table.seat_count,
                "match_id": table.match_id,
                "hand": table.hand,
            }
            out.append(_notice(agg, TABLE_OPENED, data, at=at))
        elif kind in CASE_OPENING_FACTS:  # a case's id is the version of the fact opening it
            out.append(_notice(agg, CASE_OPENED, data | {"case_id": version}, at=at))
        elif kind == "CaseClosed":
            closed = fact["data"]
            ruled = {"case_id": int(closed["case_id"]), "status": closed["status"]}
            out.append(_notice(agg, CASE_RULED, data | ruled, at=at))
        elif kind == GAME_END_FACT and table.outcome is not None:
            outcome = table.outcome
            data |= {
                "winners": list(outcome.winners),
                "scores": list(outcome.scores),
                "reason": outcome.reason,
                "match_id": table.match_id,
                "hand": table.hand,
            }
            out.append(_notice(agg, GAME_ENDED, data, at=at))
    return out + _turns(agg, max_run)


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


def _match_notices(agg: MatchAggregate, events: Sequence[Any]) -> list[Notice]:
    match_id = str(agg.id)
    out = []
    for event in events:
        fact, version, at = event.fact, event.originator_version, event.timestamp
        data = fact["data"]
        if fact["type"] == "HandEnded":
            hand = {
                "match_id": match_id,
                "version": version,
                "hand": data["hand"],
                "game_id": data["game_id"],
                "winners": data["winners"],
                "scores": data["scores"],
                "reason": data["reason"],
            }
            out.append(_notice(agg, HAND_ENDED, hand, at=at))
        elif fact["type"] == "MatchEnded":
            ended = {
                "match_id": match_id,
                "version": version,
                "winners": data["winners"],
                "standings": data["standings"],
                "incomplete": data.get("incomplete", False),
            }
            out.append(_notice(agg, MATCH_ENDED, ended, at=at))
    return out


def outbox_rows(
    apps: Sequence[App], max_run: int = MAX_RUN
) -> Callable[[list[Pending]], list[OutboxRow]]:
    """The group commit's ``outbox_for``: the rows for the moves of a batch, one per notice
    and app that receives it (its table's app only: ``App.receives``)."""

    def rows(pending: list[Pending]) -> list[OutboxRow]:
        out = []
        for agg, events, _future in pending:
            for notice in notices(agg, events, max_run):
                text = orjson.dumps(notice.body).decode()
                out += [
                    OutboxRow(app.name, notice.msg_id, notice.record_id, notice.type, text)
                    for app in apps
                    if app.receives(notice)
                ]
        return out

    return rows
