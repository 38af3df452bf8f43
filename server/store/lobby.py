"""The lobby's queues in the store (issue 40), so they survive a restart and are shared by
every replica on one database.

Three kinds of stream, all in the first shard so that one transaction can write to several:

- a queue's stream (``Queued``, ``Left``, ``Formed``), its id from the queue's key;
- a player's lobby stream (``Waiting``, ``Gone``, ``Seated``): where the player stands, so
  a player waits in one queue at most and a poll reads one row;
- the directory of queues (``QueueNamed``), which the matchmakers walk.

Every change writes the queue's and the players' streams together, each at the version
after the one it read: two replicas (or two matchmakers) that raced find one of them
refused by the store's (stream, version) key, and that one re-reads and tries again. So
nobody is queued twice or seated twice, whatever runs at once.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from eventsourcing.domain import Aggregate
from eventsourcing.persistence import IntegrityError

from domain.lobby import Formation, Ticket
from server.store.eventstore import TableApplication
from server.store.shards import Store

_NAMESPACE = uuid.UUID("9d1f2c55-6c6f-6262-792d-71756575652e")  # fixed: ids never move
DIRECTORY = uuid.uuid5(_NAMESPACE, "queues")
RETRIES = 16
PAGE = 100  # events read back a page


class LobbyQueue(Aggregate):
    """A queue's stream (its events are read directly; never constructed)."""

    class Queued(Aggregate.Event):
        player: str
        rating: float
        window: float
        bot_wait_ms: int

    class Left(Aggregate.Event):
        player: str

    class Formed(Aggregate.Event):
        game_id: str
        players: list[str]
        bot_seats: list[int]

    class Carried(Aggregate.Event):
        """A checkpoint: the players waiting then (a reader starts from the latest)."""

        tickets: list[dict[str, Any]]


class LobbyPlayer(Aggregate):
    """A player's lobby stream: the last event says where it stands."""

    class Waiting(Aggregate.Event):
        queue: str  # the queue's key

    class Gone(Aggregate.Event):
        queue: str

    class Seated(Aggregate.Event):
        queue: str
        game_id: str
        seat: int
        bot_seats: list[int]


class LobbyDirectory(Aggregate):
    """Every queue ever used: its key, game kind, options (as data) and seat count."""

    class QueueNamed(Aggregate.Event):
        queue: str
        kind: str
        options: Any
        seat_count: int
        app: str = ""  # the app whose players queue here (their logins' client id)


class LobbyListing(Aggregate):
    """The open tables of one game kind, as they were opened (a hint: the table decides)."""

    class Listed(Aggregate.Event):
        game_id: str
        queue: str  # the key its rules and seat count would queue under
        seat_count: int


@dataclass(frozen=True)
class QueueInfo:
    key: str
    kind: str
    options: Any  # the options as data (domain.codec)
    seat_count: int
    app: str = ""  # the app whose players queue here: its tables are that app's


@dataclass(frozen=True)
class Standing:
    """Where a player stands in the lobby: ``state`` is "waiting", "seated" or "none"."""

    state: str
    queue: str = ""
    game_id: str = ""
    seat: int = -1
    bot_seats: tuple[int, ...] = ()
    since: datetime | None = None


def queue_id(key: str) -> uuid.UUID:
    return uuid.uuid5(_NAMESPACE, f"queue\n{key}")


def player_id(player: str) -> uuid.UUID:
    return uuid.uuid5(_NAMESPACE, f"player\n{player}")


def _app(store: Store) -> TableApplication:
    return store.shards[0]


def _last(app: TableApplication, stream: uuid.UUID) -> Any | None:
    found = list(app.events.get(stream, desc=True, limit=1))
    return found[0] if found else None


def _event(cls: Any, stream: uuid.UUID, last: Any | None, **fields: Any) -> Any:
    version = last.originator_version + 1 if last is not None else 1
    return cls(
        originator_id=stream, originator_version=version, timestamp=datetime.now(UTC), **fields
    )


def _retry(write: Callable[[], None]) -> None:
    for _attempt in range(RETRIES):
        try:
            write()
            return
        except IntegrityError:
            continue  # another writer moved a stream on: read again
    raise IntegrityError("the lobby kept moving")


def standing(store: Store, player: str) -> Standing:
    """Where ``player`` stands (blocking: one row read)."""
    return _standing(_last(_app(store), player_id(player)))


def _standing(last: Any | None) -> Standing:
    """The standing the last event of a player's stream says."""
    if isinstance(last, LobbyPlayer.Waiting):
        return Standing("waiting", last.queue, since=last.timestamp)
    if isinstance(last, LobbyPlayer.Seated):
        bots = tuple(last.bot_seats)
        return Standing("seated", last.queue, last.game_id, last.seat, bots, last.timestamp)
    return Standing("none")


@dataclass(frozen=True)
class Waiting:
    """A queue's waiting players, oldest first, as of ``version`` of its stream, and how many
    events were read after the last checkpoint (``Carried``)."""

    tickets: list[Ticket]
    version: int
    since_checkpoint: int


def waiting(store: Store, key: str) -> Waiting:
    """The queue's waiting players (blocking). Reads back from the end to the last
    checkpoint only, so the cost follows the queue's recent events, not its history."""
    recent: list[Any] = []
    stream, lte = queue_id(key), None
    while True:
        page = list(_app(store).events.get(stream, lte=lte, desc=True, limit=PAGE))
        recent.extend(page)
        if len(page) < PAGE or any(isinstance(e, LobbyQueue.Carried) for e in page):
            break
        lte = page[-1].originator_version - 1
    cut = next((i for i, e in enumerate(recent) if isinstance(e, LobbyQueue.Carried)), None)
    start = recent[cut] if cut is not None else None
    tickets = {t.player: t for t in _carried(start)}
    later = recent[:cut] if cut is not None else recent
    for e in reversed(later):
        _apply(tickets, e)
    version = recent[0].originator_version if recent else 0
    return Waiting(list(tickets.values()), version, len(later))


def _carried(event: Any | None) -> list[Ticket]:
    if event is None:
        return []
    return [Ticket(**t) for t in event.tickets]


def _apply(tickets: dict[str, Ticket], e: Any) -> None:
    if isinstance(e, LobbyQueue.Queued):
        at = int(e.timestamp.timestamp() * 1000)
        tickets[e.player] = Ticket(e.player, e.rating, e.window, e.bot_wait_ms, at)
    elif isinstance(e, LobbyQueue.Left):
        tickets.pop(e.player, None)
    elif isinstance(e, LobbyQueue.Formed):
        for p in e.players:
            tickets.pop(p, None)


def carry(store: Store, key: str, now: Waiting) -> bool:
    """Write a checkpoint of the waiting players after ``now.version`` (blocking); False if
    the queue moved on meanwhile (the next pass writes it)."""
    stream = queue_id(key)
    event = LobbyQueue.Carried(  # type: ignore[call-arg]  # (the event class's fields)
        originator_id=stream,
        originator_version=now.version + 1,
        timestamp=datetime.now(UTC),
        tickets=[asdict(t) for t in now.tickets],
    )
    try:
        _app(store).save(event)
    except IntegrityError:
        return False
    return True


def queues(store: Store) -> list[QueueInfo]:
    """Every queue ever used (blocking; a queue per kind, rules and seat count: a few)."""
    return [
        QueueInfo(e.queue, e.kind, e.options, e.seat_count, getattr(e, "app", ""))
        for e in _app(store).events.get(DIRECTORY)
        if isinstance(e, LobbyDirectory.QueueNamed)
    ]


def enqueue(
    store: Store, info: QueueInfo, ticket: Ticket, refuse: Callable[[Standing], None]
) -> None:
    """Put ``ticket`` in the queue, with the player's stream, in one transaction; ``refuse``
    raises if the player's standing forbids it (already waiting). Blocking."""
    app = _app(store)

    def write() -> None:
        pstream, qstream = player_id(ticket.player), queue_id(info.key)
        plast = _last(app, pstream)
        refuse(_standing(plast))
        qlast = _last(app, qstream)
        events = [
            _event(LobbyPlayer.Waiting, pstream, plast, queue=info.key),
            _event(
                LobbyQueue.Queued,
                qstream,
                qlast,
                player=ticket.player,
                rating=ticket.rating,
                window=ticket.window,
                bot_wait_ms=ticket.bot_wait_ms,
            ),
        ]
        if qlast is None:  # a new queue: named in the directory
            events.append(
                _event(
                    LobbyDirectory.QueueNamed,
                    DIRECTORY,
                    _last(app, DIRECTORY),
                    queue=info.key,
                    kind=info.kind,
                    options=info.options,
                    seat_count=info.seat_count,
                    app=info.app,
                )
            )
        app.save(*events)

    _retry(write)


def leave(store: Store, player: str, refuse: Callable[[Standing], None]) -> None:
    """Take the player out of its queue (``refuse`` raises unless it is waiting). Blocking."""
    app = _app(store)

    def write() -> None:
        pstream = player_id(player)
        plast = _last(app, pstream)
        now = _standing(plast)
        refuse(now)
        qstream = queue_id(now.queue)
        app.save(
            _event(LobbyPlayer.Gone, pstream, plast, queue=now.queue),
            _event(LobbyQueue.Left, qstream, _last(app, qstream), player=player),
        )

    _retry(write)


def seat(store: Store, key: str, game_id: str, formation: Formation) -> bool:
    """Record a formed table: the queue's Formed and each player's Seated, in one
    transaction, only if every player still waits in this queue. Blocking. Returns whether
    it was recorded (False: someone left, or another matchmaker seated them first). A
    player joining the queue meanwhile moves the queue's stream on: read again, retry."""
    for _attempt in range(RETRIES):
        events = _seating(_app(store), key, game_id, formation)
        if events is None:
            return False
        try:
            _app(store).save(*events)
            return True
        except IntegrityError:
            continue
    return False


def _seating(
    app: TableApplication, key: str, game_id: str, formation: Formation
) -> list[Any] | None:
    """The events that seat ``formation``, at the versions after those read now; None if a
    player no longer waits in this queue."""
    qstream = queue_id(key)
    bots = list(formation.bot_seats)
    formed = _event(
        LobbyQueue.Formed,
        qstream,
        _last(app, qstream),
        game_id=game_id,
        players=list(formation.players),
        bot_seats=bots,
    )
    events: list[Any] = [formed]
    for number, player in enumerate(formation.players):
        pstream = player_id(player)
        plast = _last(app, pstream)
        if not isinstance(plast, LobbyPlayer.Waiting) or plast.queue != key:
            return None
        events.append(
            _event(
                LobbyPlayer.Seated,
                pstream,
                plast,
                queue=key,
                game_id=game_id,
                seat=number,
                bot_seats=bots,
            )
        )
    return events


def listing_id(kind: str) -> uuid.UUID:
    return uuid.uuid5(_NAMESPACE, f"listing\n{kind}")


def list_table(store: Store, info: QueueInfo, game_id: str) -> None:
    """List an open table under its game kind (blocking)."""
    app, stream = _app(store), listing_id(info.kind)

    def write() -> None:
        app.save(
            _event(
                LobbyListing.Listed,
                stream,
                _last(app, stream),
                game_id=game_id,
                queue=info.key,
                seat_count=info.seat_count,
            )
        )

    _retry(write)


@dataclass(frozen=True)
class Listed:
    game_id: str
    queue: str
    seat_count: int
    position: int  # its place in the kind's listing (pages start below it)


def listed(store: Store, kind: str, before: int | None, limit: int) -> list[Listed]:
    """Up to ``limit`` tables listed under ``kind``, newest first, below ``before``."""
    lte = None if before is None else before - 1
    found = _app(store).events.get(listing_id(kind), lte=lte, desc=True, limit=limit)
    return [
        Listed(e.game_id, e.queue, e.seat_count, e.originator_version)
        for e in found
        if isinstance(e, LobbyListing.Listed)
    ]
