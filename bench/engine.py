"""P4: engine speed, moves per second of random self-play, pure domain, one core.

The baseline is a fixed pure-Python workload (sorting and hashing a list), measured in the
same run. Both sides are read in CPU time of this process (``time.process_time``), not wall
time, and the baseline is measured in slices interleaved with the games of each variant, so
that other work sharing the machine neither stretches one side only nor drifts between the
calibration and the variant it is divided into. moves/s is printed too.
"""

from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass
from typing import Any

from domain.engine import GameRules
from tests.support.selfplay import play_random_game

SLICES = 4  # calibration slices interleaved with each variant's games
SLICE_SECONDS = 0.15  # CPU seconds of calibration per slice
BATCH = 20


@dataclass
class EngineResult:
    game: str
    variant: str
    games: int
    moves: int
    seconds: float  # CPU seconds of the games
    calibration: float  # baseline ops per CPU second, measured between the games

    @property
    def moves_per_s(self) -> float:
        return self.moves / self.seconds

    @property
    def ratio(self) -> float:
        return self.moves_per_s / self.calibration


def _calibrate(seconds: float) -> tuple[int, float]:
    """Run the fixed workload for about ``seconds`` of CPU: (ops done, CPU seconds taken)."""
    rng = random.Random(1)
    data = [rng.random() for _ in range(200)]
    ops = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for _ in range(BATCH):  # the CPU clock is a system call: read it every BATCH ops
            sorted(data)
            hashlib.sha256(repr(data[:20]).encode()).digest()
        ops += BATCH
    return ops, time.process_time() - start


def calibration_ops_per_s(seconds: float = 1.0) -> float:
    """How many baseline 'ops' per CPU second this core gives right now."""
    ops, spent = _calibrate(seconds)
    return ops / spent


def measure(rules: GameRules, options: Any, seats: int, games: int, label: str) -> EngineResult:
    """Play seeds ``0..games-1`` in up to SLICES chunks, a calibration slice before each."""
    slices = max(1, min(SLICES, games))
    moves = 0
    spent = 0.0
    calib_ops = 0
    calib_spent = 0.0
    for i in range(slices):
        ops, took = _calibrate(SLICE_SECONDS)
        calib_ops += ops
        calib_spent += took
        start = time.process_time()
        for seed in range(i * games // slices, (i + 1) * games // slices):
            played = play_random_game(rules, options, seats, seed, roundtrip=False)
            moves += len(played.commands)
        spent += time.process_time() - start
    return EngineResult(rules.name, label, games, moves, spent, calib_ops / calib_spent)
