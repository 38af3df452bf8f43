"""The table around any game: its facts and decider, justice, the deal, the stored form.

Floors, lowest first (each module imports only those below it; tests/test_layers.py and
the import-linter contracts in pyproject.toml keep it so):

* ``deal``              the shuffle commitment, the seats' entropy, the deck derivation
* ``justice.facts``     justice's vocabulary: cases, facts, commands
* ``justice.state``     justice's own state and its evolve
* ``justice.decide``    justice's decisions, on a ``Court`` (never the table)
* ``facts``, ``state``  the table's own facts; its state (settings, game, justice)
* ``evolution``, ``records``, ``clock``  the table's evolve; facts and states as stored
                        data, causes, the hash chain; the justice clock (case deadlines,
                        the hand's budget)
* ``draw``              the deal's draw: commit, reveal, the deal, abandonment, redeals'
                        draws, their deadlines
* ``decider``, ``redaction``  decide for the whole table (seats, moves, justice, a cause
                        re-decided); redaction and description

This module re-exports the table's public names, so callers write ``tables.start(...)``.
"""

from domain.table.clock import (
    CLOCK_FACT_TYPES,
    CaseClock,
    budget_end,
    case_deadline,
    check_justice_budget,
    clock_after,
    justice_spent,
)
from domain.table.decider import (
    ARBITER_COMMANDS,
    MAX_REKEYS,
    REDEAL_COMMANDS,
    act,
    close_hand,
    command_of,
    concurrent,
    court,
    create,
    is_seat_key,
    last_move,
    legal_commands,
    play,
    redecide,
    rekey,
    take_seat,
    time_out_all,
    to_act,
)
from domain.table.draw import (
    DEFAULT_ABANDON_AFTER_MS,
    DEFAULT_MAX_REDEALS,
    MAX_ABANDON_AFTER_MS,
    MAX_REDEALS,
    MIN_ABANDON_AFTER_MS,
    abandon,
    abandon_deadline,
    commit,
    deal_status,
    reveal,
    reveal_deadline,
    start,
    start_withheld,
    with_reveal,
)
from domain.table.evolution import evolve
from domain.table.facts import (
    TABLE_COMMAND_TYPES,
    TABLE_EVENT_TYPES,
    ContributionRevealed,
    DealAbandoned,
    GameCreated,
    GameStarted,
    HandClosed,
    RedealOpened,
    RedealSecretsRevealed,
    RevealWithheld,
    SeatCommitted,
    SeatRekeyed,
    SeatTaken,
    ShuffleRevealed,
)
from domain.table.records import (
    cause,
    decode_event,
    decode_table,
    encode_event,
    encode_table,
)
from domain.table.redaction import (
    describe,
    hand_closed_words,
    prepared_marking,
    redact,
    viewer_for,
)
from domain.table.state import Phase, Seat, Table

__all__ = [
    "ARBITER_COMMANDS",
    "CLOCK_FACT_TYPES",
    "REDEAL_COMMANDS",
    "DEFAULT_MAX_REDEALS",
    "MAX_REDEALS",
    "MAX_REKEYS",
    "TABLE_COMMAND_TYPES",
    "TABLE_EVENT_TYPES",
    "ContributionRevealed",
    "DealAbandoned",
    "DEFAULT_ABANDON_AFTER_MS",
    "MAX_ABANDON_AFTER_MS",
    "MIN_ABANDON_AFTER_MS",
    "GameCreated",
    "GameStarted",
    "HandClosed",
    "Phase",
    "RedealOpened",
    "RedealSecretsRevealed",
    "RevealWithheld",
    "SeatCommitted",
    "SeatRekeyed",
    "Seat",
    "SeatTaken",
    "ShuffleRevealed",
    "Table",
    "abandon",
    "abandon_deadline",
    "act",
    "budget_end",
    "case_deadline",
    "check_justice_budget",
    "cause",
    "close_hand",
    "command_of",
    "commit",
    "concurrent",
    "court",
    "create",
    "deal_status",
    "decode_event",
    "decode_table",
    "describe",
    "is_seat_key",
    "encode_event",
    "encode_table",
    "evolve",
    "hand_closed_words",
    "justice_spent",
    "CaseClock",
    "clock_after",
    "last_move",
    "legal_commands",
    "play",
    "prepared_marking",
    "redact",
    "redecide",
    "rekey",
    "reveal",
    "reveal_deadline",
    "start",
    "start_withheld",
    "take_seat",
    "time_out_all",
    "to_act",
    "viewer_for",
    "with_reveal",
]
