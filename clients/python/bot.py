"""Bots over the API: ``RandomBot`` plays uniformly random legal moves of any game;
``PolicyBot`` asks a policy of clients/python/bots.py (the heuristic by default), giving it
only the seat's own view and legal moves."""

from __future__ import annotations

import random

import grpc

from clients.python.bots import POLICIES, Policy
from clients.python.client import SeatClient


class RandomBot:
    def __init__(self, seat: SeatClient, seed: int | None = None) -> None:
        self.seat = seat
        self.rng = random.Random(seed)

    def step(self) -> bool:
        """Play one legal move if this seat has one now. Returns whether it played."""
        legal = self.seat.legal_moves()
        if not legal.moves:
            return False
        move = self.rng.choice(list(legal.moves))
        try:
            self.seat.play(move, legal.version)
        except grpc.RpcError as err:
            if err.code() == grpc.StatusCode.ABORTED:  # someone moved first: ask again
                return False
            raise
        return True


class PolicyBot(RandomBot):
    """A seat played by a policy that sees what the seat sees: its view and legal moves."""

    def __init__(
        self, seat: SeatClient, policy: Policy | str = "heuristic", seed: int | None = None
    ) -> None:
        super().__init__(seat, seed)
        self.policy = POLICIES[policy] if isinstance(policy, str) else policy

    def step(self) -> bool:
        legal = self.seat.legal_moves()
        if not legal.moves:
            return False
        pick = self.policy(self.seat.view(), list(legal.moves), self.rng)
        if pick is None:
            return False
        move = legal.moves[pick]
        try:
            self.seat.play(move, legal.version)
        except grpc.RpcError as err:
            if err.code() == grpc.StatusCode.ABORTED:
                return False
            raise
        return True


def make_bot(seat: SeatClient, kind: str, seed: int | None = None) -> RandomBot:
    """``kind`` is "heuristic" or "random" (the `--bot` option)."""
    return RandomBot(seat, seed) if kind == "random" else PolicyBot(seat, kind, seed)


def play_to_end(bots: list[RandomBot], max_moves: int = 20_000) -> int:
    """Drive bots until the game ends; returns the number of moves played."""
    viewer = bots[0].seat
    by_seat = {b.seat.seat: b for b in bots}
    moves = 0
    while moves < max_moves:
        view = viewer.view()
        if view.HasField("outcome") and view.phase == 3:
            return moves
        acted = False
        for seat in view.to_act:
            if seat in by_seat and by_seat[seat].step():
                moves += 1
                acted = True
        if not acted and not view.to_act:
            # A seat's view need not name every awaited seat (a 川南字牌 claim is known only
            # to the claimant): ask every bot whether it has a move.
            for bot in bots:
                if bot.step():
                    moves += 1
                    acted = True
            if not acted:
                raise RuntimeError("nobody to act and no outcome")
    raise RuntimeError(f"game did not end in {max_moves} moves")
