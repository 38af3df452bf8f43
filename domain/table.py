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
from domain import justice as J
from domain.codec import from_data, to_data
from domain.engine import (
    ARBITER,
    GameRules,
    MalformedCommand,
    Outcome,
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
    enforcement: J.Enforcement = J.Enforcement.REJECT
    time_limit_ms: int = 0  # per action; 0 = no clock


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
    t.__name__: t
    for t in (GameCreated, SeatTaken, GameStarted, ShuffleRevealed, *J.JUSTICE_EVENT_TYPES)
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
    version: int = 0  # facts applied so far (= the stream version)
    enforcement: J.Enforcement = J.Enforcement.REJECT
    time_limit_ms: int = 0
    cases: tuple[J.Case, ...] = ()  # reports and appeals
    penalties: tuple[J.PenaltyRecord, ...] = ()
    misplays: tuple[int, ...] = ()  # 误操作 used, per seat
    violations: tuple[int, ...] = ()  # the violation record, per seat
    warnings: tuple[int, ...] = ()  # 弃牌违规 warnings, per seat
    # 弃牌违规 (p2:45), per seat: the discard it owed at its last discard violation (0: none)
    discard_counts: tuple[int, ...] = ()
    first_seat: int | None = None  # the first seat taken (a game may deal from it)
    forfeited: tuple[int, ...] = ()  # seats declared lost (判负)
    redeals: int = 0  # 重新洗牌发牌 so far
    penalty_facts_pending: int = 0  # game facts still to come for the last penalty

    @property
    def phase(self) -> Phase:
        if self.game is None:
            return Phase.WAITING
        return Phase.PLAYING if self.outcome is None else Phase.FINISHED

    @property
    def outcome(self) -> Outcome | None:
        if self.game is None:
            return None
        if self.forfeited:  # 判负: the game ends; every other seat wins
            winners = tuple(s for s in range(self.seat_count) if s not in self.forfeited)
            scores = tuple(-1 if s in self.forfeited else 0 for s in range(self.seat_count))
            return Outcome(winners, scores, "FORFEIT")
        return registry_rules(self.kind).outcome(self.game)

    @property
    def paused(self) -> bool:
        """A report or appeal is open: no game move until it is settled."""
        return any(c.status is J.CaseStatus.OPEN for c in self.cases)


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
    enforcement: J.Enforcement = J.Enforcement.REJECT,
    time_limit_ms: int = 0,
) -> list[Any]:
    options = rules.check_options(options)
    if seat_count not in rules.seat_counts(options):
        raise MalformedCommand(
            "seat_count", f"{rules.name} is played by {rules.seat_counts(options)} seats"
        )
    if prepared_deck and sorted(prepared_deck) != sorted(rules.new_deck(options)):
        raise MalformedCommand("deck", "must be a permutation of the mode's deck")
    if not 0 <= time_limit_ms <= 3_600_000:
        raise MalformedCommand("turn_time_limit_ms", "0 (no clock) up to one hour")
    if enforcement is not J.Enforcement.REJECT and not isinstance(rules, J.PenaltyRules):
        raise MalformedCommand("enforcement", f"{rules.name} supports REJECT only")
    return [
        GameCreated(
            kind=rules.name,
            options=options,
            seat_count=seat_count,
            arbiter_token_hash=arbiter_token_hash,
            secret=secret,
            commitment=audit.commitment(secret, prepared_deck),
            prepared_deck=prepared_deck,
            enforcement=enforcement,
            time_limit_ms=time_limit_ms,
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
    rules = registry_rules(table.kind)
    if table.phase is Phase.FINISHED:
        # a game may take a few ritual commands after its end (花鸟风月's closing verse)
        if not isinstance(command, tuple(getattr(rules, "after_end_command_types", ()))):
            raise RuleViolation("GAME_OVER", "table", "the game has ended")
        return rules.decide(table.game, command)
    if table.paused:
        raise RuleViolation("GAME_PAUSED", "仲裁", "a report or appeal must be settled first")
    try:
        return with_reveal(table, rules.decide(table.game, command))
    except RuleViolation as error:
        if table.enforcement is J.Enforcement.REJECT or not isinstance(rules, J.PenaltyRules):
            raise
        found = rules.violation_of(table.game, command, error)
        if found is None:  # protocol-level: refused in every mode
            raise
        if table.enforcement is J.Enforcement.PLAYERS:  # honour system: stands as played
            return with_reveal(table, rules.play_as_attempt(table.game, command))
        from domain import tribunal

        return tribunal.referee(table, command.seat, found, error)


def act(table: Table, command: Any, last_move: Any = None) -> list[Any]:
    """Decide a table command (justice) or a game move. ``last_move`` (a
    tribunal.LastMove read from the history) is needed only for a retraction."""
    from domain import tribunal

    if isinstance(command, J.Retract):
        return tribunal.retract(table, command, last_move, table.version)
    if isinstance(command, J.Report):
        return tribunal.report(table, command, table.version)
    if isinstance(command, J.CastVote):
        return tribunal.vote(table, command)
    if isinstance(command, J.Appeal):
        return tribunal.appeal(table, command)
    if isinstance(command, J.Rule):
        return tribunal.rule(table, command)
    if isinstance(command, J.Redeal):
        return tribunal.redeal(table)
    return play(table, command)


ARBITER_COMMANDS = (J.Rule, J.Redeal)


def concurrent(kind: str, facts: list[Any], seat: int) -> bool:
    """Whether ``facts``, appended after the version a client played against, leave ``seat``'s
    move exactly as valid as it was: game facts only, each one the game calls independent of
    ``seat``'s decision (``independent_of``; 川南字牌: another seat's answer in the same claim
    window). The move is then decided on the current state instead of being ABORTED."""
    hook = getattr(registry_rules(kind), "independent_of", None)
    if hook is None or not facts:
        return False
    return all(type(f).__name__ not in TABLE_EVENT_TYPES and hook(f, seat) for f in facts)


def to_act(table: Table) -> tuple[int, ...]:
    """Seats the table waits for: the voters of an open case, else the game's."""
    from domain import tribunal

    if table.phase is not Phase.PLAYING:
        return ()
    case = tribunal.open_case(table)
    if case is not None:
        voted = {v.seat for v in tribunal.votes_with_reporter(case)}
        return tuple(s for s in tribunal.voters(table, case) if s not in voted)
    return registry_rules(table.kind).to_act(table.game)


def legal_commands(table: Table, seat: int, last_move: Any = None) -> list[Any]:
    """Everything ``seat`` may send now: votes on an open case; else the game's moves, a
    retraction of its own last move and an appeal of a fresh penalty."""
    from domain import tribunal

    if table.phase is not Phase.PLAYING:
        return []
    case = tribunal.open_case(table)
    if case is not None:
        if seat in to_act(table):
            return [J.CastVote(seat, case.id, True), J.CastVote(seat, case.id, False)]
        return []
    legal = list(registry_rules(table.kind).legal_commands(table.game, seat))
    extra: list[Any] = [
        J.Appeal(seat, p.case_id, "")
        for p in table.penalties
        if p.seat == seat and p.before is not None and not p.revoked
    ]
    retract = J.Retract(seat, J.MISPLAY_PHRASES[0])
    if last_move is not None and last_move.seat == seat:
        try:
            tribunal.retract(table, retract, last_move, table.version)
            extra.append(retract)
        except RuleViolation:
            pass
    return legal + extra


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


def redecide(
    table: Table, cause: dict[str, Any], first_fact: Any, last_move: Any = None
) -> list[Any]:
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
        types = {**_command_types(registry_rules(table.kind)), **TABLE_COMMAND_TYPES}
        command = from_data(types[cause["command"]["type"]], cause["command"]["data"])
        if cause["seat"] is not None and command.seat != cause["seat"]:
            raise MalformedCommand("cause", "the command's seat is not the cause's seat")
        return act(table, command, last_move)
    if action == "timeout":
        from domain import tribunal

        return tribunal.time_out_all(table)
    raise MalformedCommand("cause", f"unknown action {action!r}")


TABLE_COMMAND_TYPES: dict[str, type] = {t.__name__: t for t in J.TABLE_COMMAND_TYPES}


def _command_types(rules: GameRules) -> dict[str, type]:
    return {t.__name__: t for t in rules.command_types}


# --- evolve ------------------------------------------------------------------------------


def evolve(table: Table | None, event: Any) -> Table:
    if table is not None:
        table = dataclasses.replace(table, version=table.version + 1)
    return _apply(table, event)


def _apply(table: Table | None, event: Any) -> Table:
    if isinstance(event, GameCreated):
        return Table(
            version=1,
            enforcement=event.enforcement,
            time_limit_ms=event.time_limit_ms,
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
        first = event.seat if table.first_seat is None else table.first_seat
        return dataclasses.replace(table, seats=tuple(seats), first_seat=first)
    if isinstance(event, ShuffleRevealed):
        return dataclasses.replace(table, revealed=True)
    rules = registry_rules(table.kind)
    if isinstance(event, GameStarted):
        options = table.options
        at_start = getattr(rules, "options_at_start", None)  # e.g. 川南字牌's first dealer
        if at_start is not None and table.first_seat is not None:
            options = at_start(options, table.first_seat)
        game = rules.initial_state(options, table.seat_count, event.deck, event.seed)
        zeros = (0,) * table.seat_count
        return dataclasses.replace(
            table,
            options=options,
            game=game,
            misplays=zeros,
            violations=zeros,
            warnings=zeros,
            discard_counts=zeros,
        )
    if isinstance(event, J.MoveRetracted):
        return dataclasses.replace(
            table, game=event.restored, misplays=_bump(table.misplays, event.seat)
        )
    if type(event) in J.JUSTICE_EVENT_TYPES:
        from domain import tribunal

        return tribunal.apply(table, event)
    from domain import tribunal

    table = tribunal.after_game_fact(table)
    return dataclasses.replace(table, game=rules.evolve(table.game, event))


def _bump(counts: tuple[int, ...], seat: int) -> tuple[int, ...]:
    return tuple(n + 1 if i == seat else n for i, n in enumerate(counts))


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
    if isinstance(event, J.MoveRetracted):
        return event if viewer == ARBITER else dataclasses.replace(event, restored=None)
    if isinstance(event, J.GameRedealt):
        return event if viewer == ARBITER else J.GameRedealt((), 0, event.round)
    if type(event) in J.JUSTICE_EVENT_TYPES or isinstance(event, ShuffleRevealed):
        return event
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
    if type(event) in J.JUSTICE_EVENT_TYPES:
        from domain.tribunal import describe as describe_justice

        return describe_justice(event)
    return registry_rules(table_kind).describe(event)


# --- storage -----------------------------------------------------------------------------


def encode_event(event: Any) -> dict[str, Any]:
    return {"type": type(event).__name__, "data": to_data(event)}


def decode_event(kind: str, data: dict[str, Any]) -> Any:
    name = data["type"]
    if name == "GameCreated":
        created: GameCreated = from_data(GameCreated, data["data"])  # options still raw data
        options_type = registry_rules(created.kind).options_type
        return dataclasses.replace(created, options=from_data(options_type, created.options))
    if name == "MoveRetracted":
        retracted: J.MoveRetracted = from_data(J.MoveRetracted, data["data"])  # state raw
        state_type = registry_rules(kind).state_type
        return dataclasses.replace(retracted, restored=from_data(state_type, retracted.restored))
    if name in TABLE_EVENT_TYPES:
        return from_data(TABLE_EVENT_TYPES[name], data["data"])
    rules = registry_rules(kind)
    return from_data(_event_types(rules)[name], data["data"])


def _event_types(rules: GameRules) -> dict[str, type]:
    return {t.__name__: t for t in rules.event_types}


def encode_table(table: Table) -> dict[str, Any]:
    return to_data(table)


def decode_table(data: dict[str, Any]) -> Table:
    """The inverse of encode_table: the game-typed fields are decoded with the game's types."""
    rules = registry_rules(data["kind"])
    generic = {k: v for k, v in data.items() if k not in _GAME_TYPED}
    plain: Table = from_data(Table, {**generic, "options": None, "game": None, "penalties": []})
    penalties = tuple(
        dataclasses.replace(
            from_data(J.PenaltyRecord, {**p, "before": None}),
            before=None if p["before"] is None else from_data(rules.state_type, p["before"]),
        )
        for p in data["penalties"]
    )
    return dataclasses.replace(
        plain,
        options=from_data(rules.options_type, data["options"]),
        game=None if data["game"] is None else from_data(rules.state_type, data["game"]),
        penalties=penalties,
    )


_GAME_TYPED = ("options", "game", "penalties")
