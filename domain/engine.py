"""The small interface every game implements: a Decider.

A game is a module-level object satisfying :class:`GameRules`. Everything here is pure:
no I/O, no clock, no global random, no grpc, no eventsourcing.

Vocabulary
----------
* ``Command``  – a frozen dataclass a seat sends (always has ``seat: int``).
* ``Event``    – a frozen dataclass naming a fact in the past tense, with concrete cards.
* ``State``    – a frozen dataclass; ``evolve`` returns a new one and never mutates.
* ``View``     – a frozen dataclass: what one viewer may see of a state.

The server translates these dataclasses to and from protobuf messages of the same name
(see ``domain/codec.py``), so field names and types follow the codec's conventions.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable


class Role(enum.Enum):
    """Who is looking at a game."""

    SEAT = 1  # a player: sees own hand, others' counts, public table
    SPECTATOR = 2  # public state only
    ARBITER = 3  # everything


@dataclass(frozen=True)
class Viewer:
    role: Role
    seat: int | None = None

    @staticmethod
    def of_seat(seat: int) -> Viewer:
        return Viewer(Role.SEAT, seat)


SPECTATOR = Viewer(Role.SPECTATOR)
ARBITER = Viewer(Role.ARBITER)


def effective_viewer(viewer: Viewer, game_over: bool) -> Viewer:
    """Once a game is over every card is open to everyone (ARCHITECTURE: hidden information)."""
    return ARBITER if game_over else viewer


class DomainError(Exception):
    """Base of every refusal raised by ``decide``. Nothing is appended when one is raised."""


class RuleViolation(DomainError):
    """A rule forbids the command (→ FAILED_PRECONDITION).

    ``reason`` is a stable UPPER_SNAKE code (e.g. ``MUST_RAISE``); ``rule`` names the clause of
    the seed in the game's own words (e.g. ``吟诵``); ``message`` explains it to a human.
    """

    def __init__(self, reason: str, rule: str, message: str) -> None:
        super().__init__(f"{reason} [{rule}]: {message}")
        self.reason = reason
        self.rule = rule
        self.message = message


class NotYourTurn(RuleViolation):
    def __init__(self, seat: int, message: str = "") -> None:
        super().__init__("NOT_YOUR_TURN", "turn order", message or f"seat {seat} may not act now")


class MalformedCommand(DomainError):
    """The command is not well formed (→ INVALID_ARGUMENT with a field violation)."""

    def __init__(self, field: str, description: str) -> None:
        super().__init__(f"{field}: {description}")
        self.field = field
        self.description = description


class InvalidOptions(MalformedCommand):
    """Options that the mode forbids or that do not exist (→ INVALID_ARGUMENT)."""


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended. ``winners`` are seats; ``scores`` is one int per seat."""

    winners: tuple[int, ...]
    scores: tuple[int, ...]
    reason: str  # e.g. "EMPTIED_HAND", "LOWEST_SCORE", "SHOWDOWN", "HUANG_ZHUANG"


class GameRules(Protocol):
    """What the server needs from a game. One instance per game kind, registered by name."""

    @property
    def name(self) -> str:
        """Registry key and proto package, e.g. "huaniao"."""

    @property
    def command_types(self) -> Sequence[type]:
        """The dataclasses a seat may send."""

    @property
    def event_types(self) -> Sequence[type]:
        """The dataclasses decide/deal may return."""

    @property
    def state_type(self) -> type: ...

    @property
    def view_type(self) -> type: ...

    @property
    def options_type(self) -> type: ...

    def check_options(self, options: Any) -> Any:
        """Validate an ``options_type`` value (the mode is one of its fields) and return it
        with defaults filled in; raise InvalidOptions naming the field a mode forbids."""

    def seat_counts(self, options: Any) -> tuple[int, ...]:
        """How many seats a table with these options may have."""

    def new_deck(self, options: Any) -> tuple[int, ...]:
        """The card ids of an unshuffled deck for these options (the server shuffles)."""

    def initial_state(self, options: Any, seat_count: int, deal: tuple[int, ...], seed: int) -> Any:
        """The state before the deal; ``deal`` is the shuffled deck, ``seed`` feeds the
        game's own generator for later random choices."""

    def deal(self, state: Any) -> list[Any]:
        """The opening facts (cards dealt, leader chosen, ...)."""

    def decide(self, state: Any, command: Any) -> list[Any]:
        """Validate ``command`` against ``state``; return the facts it causes or raise."""

    def evolve(self, state: Any, event: Any) -> Any:
        """Apply one fact. Never fails, never decides, never mutates ``state``."""

    def legal_commands(self, state: Any, seat: int) -> Sequence[Any]:
        """What ``seat`` may do now (empty when it may do nothing), in a stable order: a
        ``list`` or a ``MadeWhenRead`` (each command made when it is read)."""

    def to_act(self, state: Any) -> tuple[int, ...]:
        """Seats whose command the game is waiting for."""

    def view(self, state: Any, viewer: Viewer) -> Any:
        """What ``viewer`` may see of ``state``."""

    def redact(self, event: Any, viewer: Viewer) -> Any:
        """The event as ``viewer`` may see it (hidden cards replaced by None)."""

    def describe(self, event: Any) -> str:
        """One readable line for an (already redacted) event, cards by name."""

    def outcome(self, state: Any) -> Outcome | None:
        """None while the game runs."""

    def label(self, state: Any, command: Any) -> str:
        """What a legal command is, in the game's own words, its kind first ("诵 5", "碰 五"):
        the menu line of a client that knows nothing of the rules (LegalMovesResponse.labels)."""


@runtime_checkable
class MatchRules(Protocol):
    """A game whose hands follow one another at one table (a match, ``domain/match/``).

    Optional: a game without it deals every hand with the table's options and ranks a
    match by higher totals."""

    lower_score_wins: bool  # how a match ranks the seats' totals of the hands' scores

    def first_hand(self, options: Any, first_seat: int) -> Any:
        """The options the table's first hand is dealt with, knowing which seat was taken
        first (川南字牌: 首进入房间的玩家坐庄, unless the options name the dealer)."""

    def next_hand(self, options: Any, state: Any) -> Any:
        """The options of the next hand of a match, from the finished hand's options and
        final state (川南字牌: 胡牌者当庄 or 轮庄)."""


@runtime_checkable
class SittingOut(Protocol):
    """A game in which a seat may sit a game out (川南字牌 with four players: the dealer's
    opposite). Optional: without it every seat plays. Ratings rate only the seats that
    played (domain/ratings.py)."""

    def sitting_out(self, state: Any) -> tuple[int, ...]:
        """The seats that sat this game out."""


S = TypeVar("S")
T = TypeVar("T")


def instance(cls: type[T], fields: dict[str, Any]) -> T:
    """``cls(**fields)`` for a frozen dataclass, without its ``__init__``.

    Why: a frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``,
    and the engines build some of them by the dozen per move (every legal command, every
    state). ``fields`` must name every field, in field order; ``cls`` must have no
    ``__post_init__``. The result is an ordinary, equal-comparable instance.
    """
    new = object.__new__(cls)
    new.__dict__.update(fields)
    return new


def replaced(obj: T, **changes: Any) -> T:
    """``dataclasses.replace(obj, **changes)`` for a frozen dataclass without
    ``__post_init__``, without re-running its ``__init__``: one copy of the instance's
    dictionary, made in one step. Why: the table and the games' states are replaced after
    every fact they apply, and ``replace`` on their 24-40 fields dominated the engines'
    profiles (P4) and was 5% of the server's event loop (bench/profile/stages.py, closed
    load). A name that is not a field is refused, as ``replace`` refuses it."""
    fields = {**obj.__dict__, **changes}
    if len(fields) != len(obj.__dict__):  # (a name that is not a field adds a key)
        raise TypeError(f"not fields of {type(obj).__name__}: {set(changes) - set(obj.__dict__)}")
    new = object.__new__(type(obj))
    object.__setattr__(new, "__dict__", fields)
    return new


R = TypeVar("R")


class MadeWhenRead(Sequence[T]):
    """A read-only list of ``count`` items whose ``i``-th is ``make(i)``, made when read.

    Why: a seat is offered dozens of legal commands (every play a 花鸟风月 hand allows), and
    building each as a frozen dataclass was the largest part of ``legal_commands`` in the
    engine's profile (P4), while a caller picking one move reads one. Reading every item
    (iterating, ``list(...)``, ``in``) makes them all, in the same order as a list would hold
    them; it equals a ``list`` of equal items, and prints as one. ``make`` must be pure: an
    item read twice is made twice, equal both times."""

    __slots__ = ("_count", "_make")
    __hash__ = None  # type: ignore[assignment]  # like a list

    def __init__(self, count: int, make: Callable[[int], T]) -> None:
        self._count = count
        self._make = make

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self._make(i) for i in range(*index.indices(self._count))]
        i = index.__index__()
        if i < 0:
            i += self._count
        if not 0 <= i < self._count:
            raise IndexError("legal command index out of range")
        return self._make(i)

    def __iter__(self) -> Iterator[T]:
        make = self._make
        return (make(i) for i in range(self._count))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MadeWhenRead | list):
            return list(self) == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return repr(list(self))


class RememberedPerState(Generic[S, R]):
    """``fn(state)`` answered from memory for the last ``size`` states it was asked about.

    Why: the server renders every viewer's view of one state in a row (server/wire/receipts.py),
    and parts that every viewer shares are then made once. States are frozen, so an answer
    stays right; entries are found by the state's ``id`` and checked by identity against the
    state they keep alive, so a reused ``id`` never answers for another object. The memo
    is dropped whole when full (``clear`` drops it at any time)."""

    def __init__(self, fn: Callable[[S], R], size: int = 64) -> None:
        self.fn, self.size = fn, size
        self._memo: dict[int, tuple[S, R]] = {}
        functools.update_wrapper(self, fn)

    def __call__(self, state: S) -> R:
        hit = self._memo.get(id(state))
        if hit is not None and hit[0] is state:
            return hit[1]
        out = self.fn(state)
        if len(self._memo) >= self.size:
            self._memo.clear()
        self._memo[id(state)] = (state, out)
        return out

    def clear(self) -> None:
        self._memo.clear()


def remembers_folds(evolve: Callable[[S, Any], S], size: int = 256) -> Callable[[S, Any], S]:
    """``evolve`` that answers a fold it has just made from memory.

    Why: ``decide`` folds its facts over the state to find what follows them, and its caller
    (the table, the self-play) then folds the very same fact objects over the very same state
    object again -- half of every game's ``evolve`` time in the engine profile (P4). States
    and facts are frozen and ``evolve`` is pure, so the second fold may return the first's
    result. Entries are found by the fact's ``id`` and checked by identity against the state
    and fact they keep alive, so a reused ``id`` never answers for another object; a fact
    folded over another state is simply folded again.
    """
    memo: dict[int, tuple[Any, Any, S]] = {}

    @functools.wraps(evolve)
    def remembered(state: S, event: Any) -> S:
        hit = memo.get(id(event))
        if hit is not None and hit[0] is state and hit[1] is event:
            return hit[2]
        after = evolve(state, event)
        if len(memo) >= size:
            memo.clear()
        memo[id(event)] = (state, event, after)
        return after

    return remembered
