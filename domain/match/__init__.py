"""A match: a series of hands at one table (the same seats and tokens), its length, the
game's dealer rule between hands, cumulative scores per seat and a final standing.

Floors, lowest first: ``facts``; ``state`` (evolve, standings); ``decide`` and ``records``.
It stands on the table (``domain/table/``): each hand is a table of its own.
"""

from domain.match.decide import (
    check_ready,
    close_hand,
    closing,
    create,
    describe,
    end_hand,
    hand_id,
    next_due,
    next_hand,
    open_hand,
    settings,
)
from domain.match.facts import (
    MATCH_EVENT_TYPES,
    MAX_HANDS,
    Advance,
    HandEnded,
    HandOpened,
    MatchCreated,
    MatchEnded,
    SeatReady,
    Standing,
)
from domain.match.records import decode_fact, decode_match, encode_fact, encode_match, fact_hash
from domain.match.state import Hand, Match, evolve

__all__ = [
    "MATCH_EVENT_TYPES",
    "MAX_HANDS",
    "Advance",
    "Hand",
    "HandEnded",
    "HandOpened",
    "Match",
    "MatchCreated",
    "MatchEnded",
    "SeatReady",
    "Standing",
    "check_ready",
    "close_hand",
    "closing",
    "create",
    "decode_fact",
    "describe",
    "decode_match",
    "encode_fact",
    "encode_match",
    "end_hand",
    "evolve",
    "fact_hash",
    "hand_id",
    "next_due",
    "next_hand",
    "open_hand",
    "settings",
]
