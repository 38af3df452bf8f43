"""The table around any game: its facts and decider, justice, the deal, the stored form.

Floors, lowest first (each module imports only those below it; tests/test_layers.py and
the import-linter contracts in pyproject.toml keep it so):

* ``deal``              the shuffle commitment, the seats' entropy, the deck derivation
* ``justice.facts``     justice's vocabulary: cases, facts, commands
* ``justice.state``     justice's own state and its evolve
* ``justice.decide``    justice's decisions, on a ``Court`` (never the table)
* ``facts``, ``state``  the table's own facts; its state (settings, game, justice)
* ``records``           facts and states as stored data, causes, the hash chain
* ``decider``           decide and evolve for the whole table, redaction, description

This module re-exports the table's public names, so callers write ``tables.start(...)``.
"""

from domain.table.decider import (
    ARBITER_COMMANDS,
    CLOCK_FACT_TYPES,
    DEFAULT_MAX_REDEALS,
    MAX_REDEALS,
    REDEAL_COMMANDS,
    act,
    budget_end,
    case_deadline,
    check_justice_budget,
    command_of,
    commit,
    concurrent,
    court,
    create,
    describe,
    evolve,
    justice_spent,
    last_move,
    legal_commands,
    play,
    prepared_marking,
    redact,
    redecide,
    reveal,
    reveal_deadline,
    start,
    take_seat,
    time_out_all,
    to_act,
    viewer_for,
    with_reveal,
)
from domain.table.facts import (
    TABLE_COMMAND_TYPES,
    TABLE_EVENT_TYPES,
    ContributionRevealed,
    GameCreated,
    GameStarted,
    RedealOpened,
    RedealSecretsRevealed,
    RevealWithheld,
    SeatCommitted,
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
from domain.table.state import Phase, Seat, Table

__all__ = [
    "ARBITER_COMMANDS",
    "CLOCK_FACT_TYPES",
    "REDEAL_COMMANDS",
    "DEFAULT_MAX_REDEALS",
    "MAX_REDEALS",
    "TABLE_COMMAND_TYPES",
    "TABLE_EVENT_TYPES",
    "ContributionRevealed",
    "GameCreated",
    "GameStarted",
    "Phase",
    "RedealOpened",
    "RedealSecretsRevealed",
    "RevealWithheld",
    "SeatCommitted",
    "Seat",
    "SeatTaken",
    "ShuffleRevealed",
    "Table",
    "act",
    "budget_end",
    "case_deadline",
    "check_justice_budget",
    "cause",
    "command_of",
    "commit",
    "concurrent",
    "court",
    "create",
    "decode_event",
    "decode_table",
    "describe",
    "encode_event",
    "encode_table",
    "evolve",
    "justice_spent",
    "last_move",
    "legal_commands",
    "play",
    "prepared_marking",
    "redact",
    "redecide",
    "reveal",
    "reveal_deadline",
    "start",
    "take_seat",
    "time_out_all",
    "to_act",
    "viewer_for",
    "with_reveal",
]
