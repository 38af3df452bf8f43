"""P4: engine speed, moves per second of random self-play, pure domain, one core.

The baseline in the same run is a fixed pure-Python workload (sorting and hashing a list),
so the ratio survives the drift of shared machines; moves/s is printed too.
"""

from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass
from typing import Any

from domain.engine import GameRules
from tests.support.selfplay import play_random_game


@dataclass
class EngineResult:
    game: str
    variant: str
    games: int
    moves: int
    seconds: float

    @property
    def moves_per_s(self) -> float:
        return self.moves / self.seconds


def calibration_ops_per_s(seconds: float = 1.0) -> float:
    """A fixed CPU-bound workload: how many 'ops' per second this core gives right now."""
    rng = random.Random(1)
    data = [rng.random() for _ in range(200)]
    ops = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        sorted(data)
        hashlib.sha256(repr(data[:20]).encode()).digest()
        ops += 1
    return ops / (time.perf_counter() - start)


def measure(rules: GameRules, options: Any, seats: int, games: int, label: str) -> EngineResult:
    moves = 0
    start = time.perf_counter()
    for seed in range(games):
        played = play_random_game(rules, options, seats, seed, roundtrip=False)
        moves += len(played.commands)
    return EngineResult(rules.name, label, games, moves, time.perf_counter() - start)
