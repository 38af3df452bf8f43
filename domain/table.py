"""The table around a game: seats, start, and the wrapping of a game's own facts.

A Decider like the games, shared by every game kind. Table facts are the same for every
kind (GameCreated, SeatTaken, GameStarted); after the start the table delegates to the
game's rules. Pure: the server supplies the token hashes, the deck and the seed.
"""

from __future__ import annotations

import dataclasses
import enum
import random
from dataclasses import dataclass
from typing import Any

from domain import audit
from domain.codec import from_data, to_data
from domain.engine import (
    ARBITER,
    GameRules,
    MalformedCommand,
    Outcome,
    Role,
    RuleViolation,
    Viewer,
    effective_viewer,
)


class Phase(enum.Enum):
    WAITING = 1
    PLAYING = 2
    FINISHED = 3


@dataclass(frozen=True)
class Seat:
    player_name: str
    token_hash: str  # sha256 of the seat token; the token itself is never stored
    contribution: str  # the seat's share of the shuffle seed (audit)


# --- table facts -------------------------------------------------------------------------


@dataclass(frozen=True)
class GameCreated:
    """The table was opened for ``kind`` with these options and seats."""

    kind: str
    options: Any  # the game's options_type
    seat_count: int
    arbiter_token_hash: str
    secret: str  # the server's shuffle secret: hidden until the game ends
    commitment: str  # public: audit.commitment(secret, prepared_deck)
    prepared_deck: tuple[int, ...]  # a prepared deal, or () to shuffle


@dataclass(frozen=True)
class SeatTaken:
    """A player took ``seat``."""

    seat: int
    player_name: str
    token_hash: str
    contribution: str  # the seat's share of the shuffle seed, public


@dataclass(frozen=True)
class GameStarted:
    """The deck was fixed (from chance or a prepared deal) and the game began."""

    deck: tuple[int, ...]
    seed: int


@dataclass(frozen=True)
class ShuffleRevealed:
    """The game ended; the shuffle secret is revealed so anyone can check the deal."""

    secret: str


TABLE_EVENT_TYPES: dict[str, type] = {
    t.__name__: t for t in (GameCreated, SeatTaken, GameStarted, ShuffleRevealed)
}


@dataclass(frozen=True)
class Table:
    kind: str
    options: Any
    seat_count: int
    arbiter_token_hash: str
    secret: str
    commitment: str
    prepared_deck: tuple[int, ...]
    seats: tuple[Seat | None, ...]
    game: Any = None  # the game's state once started
    revealed: bool = False

    @property
    def phase(self) -> Phase:
        if self.game is None:
            return Phase.WAITING
        return Phase.PLAYING if self.outcome is None else Phase.FINISHED

    @property
    def outcome(self) -> Outcome | None:
        return None if self.game is None else registry_rules(self.kind).outcome(self.game)


def registry_rules(kind: str) -> GameRules:
    from domain.registry import rules_for  # late import: registry imports the games

    return rules_for(kind)


# --- decide ------------------------------------------------------------------------------


def create(
    rules: GameRules,
    options: Any,
    seat_count: int,
    arbiter_token_hash: str,
    secret: str,
    prepared_deck: tuple[int, ...] = (),
) -> list[Any]:
    options = rules.check_options(options)
    if seat_count not in rules.seat_counts(options):
        raise MalformedCommand(
            "seat_count", f"{rules.name} is played by {rules.seat_counts(options)} seats"
        )
    if prepared_deck and sorted(prepared_deck) != sorted(rules.new_deck(options)):
        raise MalformedCommand("deck", "must be a permutation of the mode's deck")
    return [
        GameCreated(
            kind=rules.name,
            options=options,
            seat_count=seat_count,
            arbiter_token_hash=arbiter_token_hash,
            secret=secret,
            commitment=audit.commitment(secret, prepared_deck),
            prepared_deck=prepared_deck,
        )
    ]


def shuffle(deck: tuple[int, ...], seed: int) -> tuple[int, ...]:
    """The published shuffle: Python's Mersenne Twister seeded with ``seed``, Fisher-Yates."""
    cards = list(deck)
    random.Random(seed).shuffle(cards)
    return tuple(cards)


def take_seat(
    table: Table, seat: int, player_name: str, token_hash: str, contribution: str = ""
) -> list[Any]:
    if not 0 <= seat < table.seat_count:
        raise MalformedCommand("seat", f"seat must be 0..{table.seat_count - 1}")
    if len(player_name) > 64:
        raise MalformedCommand("player_name", "at most 64 characters")
    if len(contribution) > 128:
        raise MalformedCommand("contribution", "at most 128 characters")
    if table.phase is not Phase.WAITING:
        raise RuleViolation("GAME_ALREADY_STARTED", "table", "seats are fixed once dealt")
    if table.seats[seat] is not None:
        raise RuleViolation("SEAT_TAKEN", "table", f"seat {seat} is taken")
    return [SeatTaken(seat, player_name, token_hash, contribution)]


def start(table: Table) -> list[Any]:
    """The GameStarted fact followed by the game's opening facts (the deal)."""
    rules = registry_rules(table.kind)
    if table.phase is not Phase.WAITING:
        raise RuleViolation("GAME_ALREADY_STARTED", "table", "the game was already dealt")
    if any(s is None for s in table.seats):
        raise RuleViolation("SEATS_NOT_FILLED", "table", "every seat must be taken first")
    contributions = tuple(s.contribution for s in table.seats if s is not None)
    seed = audit.shuffle_seed(table.secret, contributions)
    deck = table.prepared_deck or shuffle(rules.new_deck(table.options), seed)
    started = GameStarted(deck, seed)
    state = evolve(table, started).game
    return [started, *rules.deal(state)]


def play(table: Table, command: Any) -> list[Any]:
    if table.phase is Phase.WAITING:
        raise RuleViolation("GAME_NOT_STARTED", "table", "the game has not been dealt")
    if table.phase is Phase.FINISHED:
        raise RuleViolation("GAME_OVER", "table", "the game has ended")
    return with_reveal(table, registry_rules(table.kind).decide(table.game, command))


def with_reveal(table: Table, facts: list[Any]) -> list[Any]:
    """Append ShuffleRevealed to the facts that end the game."""
    after = table
    for fact in facts:
        after = evolve(after, fact)
    if after.phase is Phase.FINISHED and not after.revealed:
        return [*facts, ShuffleRevealed(table.secret)]
    return facts


def cause(action: str, seat: int | None = None, command: Any = None) -> dict[str, Any]:
    """What made a move's facts, stored with its first fact: the audit re-decides from it."""
    return {
        "action": action,
        "seat": seat,
        "command": None if command is None else encode_event(command),
    }


def redecide(table: Table, cause: dict[str, Any], first_fact: Any) -> list[Any]:
    """The facts the engine decides for a recorded cause (the audit's replay).

    A join is re-decided with the recorded token hash and contribution (inputs the engine
    cannot know); everything else from the cause alone."""
    action = cause["action"]
    if action == "join" and isinstance(first_fact, SeatTaken):
        f = first_fact
        return take_seat(table, f.seat, f.player_name, f.token_hash, f.contribution)
    if action == "start":
        return start(table)
    if action == "play":
        rules = registry_rules(table.kind)
        command = from_data(
            _command_types(rules)[cause["command"]["type"]], cause["command"]["data"]
        )
        if command.seat != cause["seat"]:
            raise MalformedCommand("cause", "the command's seat is not the cause's seat")
        return play(table, command)
    raise MalformedCommand("cause", f"unknown action {action!r}")


def _command_types(rules: GameRules) -> dict[str, type]:
    return {t.__name__: t for t in rules.command_types}


# --- evolve ------------------------------------------------------------------------------


def evolve(table: Table | None, event: Any) -> Table:
    if isinstance(event, GameCreated):
        return Table(
            kind=event.kind,
            options=event.options,
            seat_count=event.seat_count,
            arbiter_token_hash=event.arbiter_token_hash,
            secret=event.secret,
            commitment=event.commitment,
            prepared_deck=event.prepared_deck,
            seats=(None,) * event.seat_count,
        )
    assert table is not None
    if isinstance(event, SeatTaken):
        seats = list(table.seats)
        seats[event.seat] = Seat(event.player_name, event.token_hash, event.contribution)
        return dataclasses.replace(table, seats=tuple(seats))
    if isinstance(event, ShuffleRevealed):
        return dataclasses.replace(table, revealed=True)
    rules = registry_rules(table.kind)
    if isinstance(event, GameStarted):
        game = rules.initial_state(table.options, table.seat_count, event.deck, event.seed)
        return dataclasses.replace(table, game=game)
    return dataclasses.replace(table, game=rules.evolve(table.game, event))


# --- views -------------------------------------------------------------------------------


def viewer_for(table: Table, viewer: Viewer) -> Viewer:
    return effective_viewer(viewer, table.phase is Phase.FINISHED)


def redact(table_kind: str, event: Any, viewer: Viewer) -> Any:
    """``event`` as ``viewer`` may see it. Table facts hide the deck, seed and token hashes."""
    if isinstance(event, GameStarted):
        return event if viewer == ARBITER else GameStarted((), 0)
    if isinstance(event, GameCreated):
        return dataclasses.replace(event, arbiter_token_hash="", secret="", prepared_deck=())
    if isinstance(event, SeatTaken):
        return dataclasses.replace(event, token_hash="")
    return registry_rules(table_kind).redact(event, viewer)


def describe(table_kind: str, event: Any) -> str:
    if isinstance(event, GameCreated):
        return f"table opened: {event.kind}, {event.seat_count} seats"
    if isinstance(event, SeatTaken):
        return f"seat {event.seat} taken by {event.player_name or 'anonymous'}"
    if isinstance(event, GameStarted):
        return "game started: cards dealt" + ("" if event.deck else " (deck hidden)")
    if isinstance(event, ShuffleRevealed):
        return f"shuffle secret revealed: {event.secret}"
    return registry_rules(table_kind).describe(event)


def is_seat(viewer: Viewer) -> bool:
    return viewer.role is Role.SEAT


# --- storage -----------------------------------------------------------------------------


def encode_event(event: Any) -> dict[str, Any]:
    return {"type": type(event).__name__, "data": to_data(event)}


def decode_event(kind: str, data: dict[str, Any]) -> Any:
    name = data["type"]
    if name == "GameCreated":
        created: GameCreated = from_data(GameCreated, data["data"])  # options still raw data
        options_type = registry_rules(created.kind).options_type
        return dataclasses.replace(created, options=from_data(options_type, created.options))
    if name in TABLE_EVENT_TYPES:
        return from_data(TABLE_EVENT_TYPES[name], data["data"])
    rules = registry_rules(kind)
    return from_data(_event_types(rules)[name], data["data"])


def _event_types(rules: GameRules) -> dict[str, type]:
    return {t.__name__: t for t in rules.event_types}


def encode_table(table: Table) -> dict[str, Any]:
    return to_data(table)


def decode_table(data: dict[str, Any]) -> Table:
    rules = registry_rules(data["kind"])
    return Table(
        kind=data["kind"],
        options=from_data(rules.options_type, data["options"]),
        seat_count=data["seat_count"],
        arbiter_token_hash=data["arbiter_token_hash"],
        secret=data["secret"],
        commitment=data["commitment"],
        prepared_deck=tuple(data["prepared_deck"]),
        seats=from_data(tuple[Seat | None, ...], data["seats"]),
        game=None if data["game"] is None else from_data(rules.state_type, data["game"]),
        revealed=data["revealed"],
    )
