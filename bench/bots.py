"""Bot strength, measured in process: the domain engine drives the game, each seat's policy
sees exactly what the API would give that seat (its GameView and its legal moves, built by
the server's own translation), and nothing else.

    .venv/bin/python -m bench.bots [--games 1000] [--write]

prints win rates of the heuristic bot against the random one (2 seats: one of each, the
heuristic seat alternating; 4 seats: one heuristic against three random, its seat rotating)
and with ``--write`` puts the table into docs/bots.md.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clients.python.bots import Policy, heuristic_choice, random_choice
from domain.engine import GameRules, Outcome, Viewer
from domain.registry import rules_for
from server.wire.protoconv import fill
from server.wire.render_moves import move_proto
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.zipai.v1 import zipai_pb2

DOC = Path(__file__).resolve().parent.parent / "docs" / "bots.md"


def default_options(kind: str) -> Any:
    """The benchmarks' table options (基本 mode; 泸州 scoring); `tabletop play` and `make demo`
    deal 专业 with 阳春白雪 (clients/python/play.py DEFAULT_MODE)."""
    from domain.huaniao.options import Mode
    from domain.huaniao.options import Options as HuaniaoOptions
    from domain.zipai.options import Options as ZipaiOptions
    from domain.zipai.options import ScoringProfile

    if kind == "huaniao":
        return rules_for(kind).check_options(HuaniaoOptions(mode=Mode.BASIC))
    return rules_for(kind).check_options(ZipaiOptions(scoring=ScoringProfile.LUZHOU))


def seat_view(kind: str, rules: GameRules, state: Any, seat: int) -> pb.GameView:
    """The GameView the API gives ``seat`` (the game part and to_act, as server/wire/render.py
    builds them; the table part -- names, justice -- plays no role in a move)."""
    game_view = rules.view(state, Viewer.of_seat(seat))
    msg = pb.GameView(role=pb.ROLE_SEAT, seat=seat, phase=pb.GAME_PHASE_PLAYING)
    known = getattr(game_view, "awaiting", None)
    msg.to_act.extend(s for s in rules.to_act(state) if known is None or s in known)
    target = huaniao_pb2.View() if kind == "huaniao" else zipai_pb2.View()
    getattr(msg, kind).CopyFrom(fill(target, game_view))
    return msg


@dataclass
class GameResult:
    winners: tuple[int, ...]
    moves: int
    outcome: Outcome | None = None  # the game's whole outcome (tests/domain/test_ratings.py)


def play(
    kind: str, policies: Sequence[Policy], seed: int, options: Any = None, max_moves: int = 5000
) -> GameResult:
    """One game, seat ``i`` played by ``policies[i]``; deal and bots seeded by ``seed``."""
    rules = rules_for(kind)
    options = options if options is not None else default_options(kind)
    rng = random.Random(seed)
    deck = list(rules.new_deck(options))
    rng.shuffle(deck)
    state = rules.initial_state(options, len(policies), tuple(deck), rng.getrandbits(63))
    for event in rules.deal(state):
        state = rules.evolve(state, event)
    moves = 0
    while rules.outcome(state) is None:
        if moves >= max_moves:
            raise RuntimeError(f"seed={seed}: no end in {max_moves} moves")
        seat = rules.to_act(state)[0]
        legal = rules.legal_commands(state, seat)
        protos = [move_proto(kind, c) for c in legal]
        pick = policies[seat](seat_view(kind, rules, state, seat), protos, rng)
        assert pick is not None, "a game move is always offered to the seat to act"
        for event in rules.decide(state, legal[pick]):
            state = rules.evolve(state, event)
        moves += 1
    outcome = rules.outcome(state)
    assert outcome is not None
    return GameResult(tuple(outcome.winners), moves, outcome)


@dataclass
class Match:
    kind: str
    seats: int
    games: int
    wins: int  # games the heuristic seat won (alone or shared)
    decided: int  # games with a winner
    seconds: float

    @property
    def share(self) -> float:
        return self.wins / self.games

    @property
    def fair(self) -> float:
        """The share of games a seat would win if every seat played alike."""
        return self.decided / self.games / self.seats

    def lower_bound(self, z: float = 3.0) -> float:
        """A conservative lower bound of the true win share (Wilson score, ``z`` sigmas)."""
        n, p = self.games, self.share
        centre = p + z * z / (2 * n)
        margin = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        return (centre - margin) / (1 + z * z / n)


def match(kind: str, seats: int, games: int, seed: int = 0) -> Match:
    """``games`` games of one heuristic seat against random ones, the heuristic seat moving
    round the table from game to game (no seat's position favours it)."""
    wins = decided = 0
    start = time.perf_counter()
    for n in range(games):
        hero = n % seats
        policies = [heuristic_choice if s == hero else random_choice for s in range(seats)]
        result = play(kind, policies, seed + n)
        decided += bool(result.winners)
        wins += hero in result.winners
    return Match(kind, seats, games, wins, decided, time.perf_counter() - start)


def report(matches: list[Match]) -> list[str]:
    lines = [
        "| game | seats | games | heuristic wins | share | fair share | ratio to fair | "
        "decided | time |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for m in matches:
        lines.append(
            f"| {m.kind} | {m.seats} | {m.games} | {m.wins} | {m.share:.1%} | {m.fair:.1%} | "
            f"{m.share / m.fair:.2f}× | {m.decided / m.games:.1%} | {m.seconds:.0f} s |"
        )
    return lines


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--games", type=int, default=1000, help="games per line (default 1000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--write", action="store_true", help="write the table into docs/bots.md")
    args = p.parse_args(argv)
    matches = []
    for kind in ("huaniao", "zipai"):
        for seats in (2, 4):
            m = match(kind, seats, args.games, args.seed)
            matches.append(m)
            print(report([m])[-1], flush=True)
    lines = report(matches)
    print("\n".join(lines))
    if args.write:
        text = DOC.read_text(encoding="utf-8")
        start, end = "<!-- bots:begin -->", "<!-- bots:end -->"
        head, _, rest = text.partition(start)
        _, _, tail = rest.partition(end)
        DOC.write_text(head + start + "\n" + "\n".join(lines) + "\n" + end + tail, "utf-8")


if __name__ == "__main__":
    main()
