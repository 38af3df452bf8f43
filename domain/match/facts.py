"""A match's facts: a series of hands at one table, and how it stands.

Each hand is a table of its own (its own stream, verifiable alone, with its own entropy);
the match is a record of its own that links the hands in order and carries the standings.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

MAX_HANDS = 64  # the longest match, and the bound of a match played to a target score


class Advance(enum.Enum):
    """How the table moves to the next hand (a table option)."""

    AUTO = 1  # by itself, as soon as a hand ends
    READY = 2  # once every seat has said it is ready


@dataclass(frozen=True)
class Standing:
    """A seat's place in the match."""

    seat: int
    total: int  # the sum of its hands' scores
    wins: int  # hands it won
    rank: int  # 1 = leading; seats level on total and wins share a rank


@dataclass(frozen=True)
class MatchCreated:
    """A match was opened: ``hands`` hands at most, or until a seat's total reaches
    ``target_score`` (0: no target); the hands are tables of ``kind``."""

    match_id: str
    kind: str
    seat_count: int
    hands: int  # at most this many hands (0: up to MAX_HANDS, for a target score)
    target_score: int  # the match ends after the hand where a seat's total reaches it
    advance: Advance
    lower_score_wins: bool  # the game's way of ranking totals (engine.MatchRules)
    # the match's chain secret (records.chain_key): random, kept beside the stored fact and
    # blanked in the record ("") until MatchEnded reveals it; "" in records made before
    # issue 36 (their chain key followed from the match id alone: unsealed)
    secret: str = ""


@dataclass(frozen=True)
class HandOpened:
    """Hand number ``hand`` is the table ``game_id``."""

    hand: int
    game_id: str


@dataclass(frozen=True)
class SeatReady:
    """``seat`` is ready for hand number ``hand``, and adds ``contribution`` (public, at
    most 128 characters) to that hand's shuffle: every hand gets fresh entropy."""

    seat: int
    hand: int
    contribution: str


@dataclass(frozen=True)
class HandEnded:
    """Hand number ``hand`` ended with this outcome; ``head_hash`` is the chain hash of the
    hand's last event, which ties the match to that exact record."""

    hand: int
    game_id: str
    winners: tuple[int, ...]
    scores: tuple[int, ...]  # the hand's own scores (Outcome.scores)
    reason: str
    head_hash: str


@dataclass(frozen=True)
class MatchEnded:
    """The match is over: the final standing, seat by seat, and the seats ranked first.

    ``incomplete``: a hand's draw was abandoned (DealAbandoned) waiting for the seats
    ``waiting_for``: that hand is void, the hands before it stand, no hand is skipped or
    drawn again, and nobody wins the match (``winners`` is empty; ``standings`` are the
    totals of the hands played)."""

    standings: tuple[Standing, ...]
    winners: tuple[int, ...]
    incomplete: bool = False
    waiting_for: tuple[int, ...] = ()  # the seats an incomplete match's last draw waited for
    secret: str = ""  # the match's chain secret, revealed: anyone can check the chain now


MATCH_EVENT_TYPES: dict[str, type] = {
    t.__name__: t for t in (MatchCreated, HandOpened, SeatReady, HandEnded, MatchEnded)
}
