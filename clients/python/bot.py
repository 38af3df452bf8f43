"""Bots over the API: ``RandomBot`` plays uniformly random legal moves of any game;
``PolicyBot`` asks a policy of clients/python/bots.py (the heuristic by default), giving it
only the seat's own view and legal moves.

Two ways to drive them: ``play_to_end`` polls (GetView, then LegalMoves for each awaited
seat), and ``play_by_streams`` is what a mobile client does: each seat follows its own
Watch stream, which says when it is the seat's turn and what it may do, and a Play reply
says the same when the seat moves again at once. That is one RPC per move.
"""

from __future__ import annotations

import random
import threading
import time

import grpc

from clients.python.bots import POLICIES, Policy
from clients.python.client import draw_next_hand
from clients.python.seat import SeatClient
from tabletop.v1 import tabletop_pb2 as pb


class RandomBot:
    def __init__(self, seat: SeatClient, seed: int | None = None) -> None:
        self.seat = seat
        self.rng = random.Random(seed)

    def step(self) -> bool:
        """Play one legal move if this seat has one now. Returns whether it played."""
        return self.play_from(self.seat.legal_moves()) is not None

    def choose(self, legal: pb.LegalMovesResponse) -> pb.Move | None:
        return self.rng.choice(list(legal.moves)) if legal.moves else None

    def play_from(self, legal: pb.LegalMovesResponse) -> pb.PlayResponse | None:
        """Play one of ``legal``'s moves; the reply, or None if there was none to play or
        someone moved first (ABORTED: the move was not played)."""
        move = self.choose(legal)
        if move is None:
            return None
        try:
            return self.seat.play(move, legal.version)
        except grpc.RpcError as err:
            if err.code() == grpc.StatusCode.ABORTED:  # someone moved first: ask again
                return None
            raise


class PolicyBot(RandomBot):
    """A seat played by a policy that sees what the seat sees: its view and legal moves."""

    def __init__(
        self, seat: SeatClient, policy: Policy | str = "heuristic", seed: int | None = None
    ) -> None:
        super().__init__(seat, seed)
        self.policy = POLICIES[policy] if isinstance(policy, str) else policy

    def choose(self, legal: pb.LegalMovesResponse) -> pb.Move | None:
        if not legal.moves:
            return None
        view = self.seat.view()
        if view.version != legal.version:
            return None  # the game moved on since these moves: wait for the next turn
        pick = self.policy(view, list(legal.moves), self.rng)
        return None if pick is None else legal.moves[pick]


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


class BotMoves:
    """The versions the bots of one process produced, shared by their threads: a turn that
    follows one of them came from a bot; any other from a person (or the table itself)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._versions: set[int] = set()

    def add(self, version: int) -> None:
        with self._lock:
            self._versions.add(version)

    def __contains__(self, version: object) -> bool:
        with self._lock:
            return version in self._versions


def follow_and_play(
    bot: RandomBot,
    moves: list[int],
    exclude_own_moves: bool = False,
    delay_ms: int = 0,
    bot_moves: BotMoves | None = None,
) -> None:
    """One seat, stream-driven: play whenever its own Watch (or its last Play reply) says it
    is its turn, until the stream ends with the game. ``moves[0]`` counts the moves.
    ``exclude_own_moves``: the stream leaves out this seat's own moves (the Play replies
    carry them). ``delay_ms``: after a move that is not a bot's (``bot_moves``), wait this
    long before answering it, so that its person may still take it back (误操作: only before
    anyone else acts); if they did, the turn is stale, the play is refused (ABORTED) and the
    stream brings the next one."""
    done = 0  # the latest version this seat played from: a turn is taken once
    made = bot_moves if bot_moves is not None else BotMoves()
    for reply in bot.seat.watch_replies(exclude_own_moves=exclude_own_moves):
        turn = reply.legal_moves if reply.HasField("legal_moves") else None
        while turn is not None and turn.version > done:
            done = turn.version
            if delay_ms > 0 and turn.version not in made:
                time.sleep(delay_ms / 1000)
            played = bot.play_from(turn)
            if played is None:
                break  # someone moved first: the stream brings the next turn
            made.add(played.version)
            moves[0] += 1
            turn = played.legal_moves if played.HasField("legal_moves") else None


def play_by_streams(
    bots: list[RandomBot],
    timeout: float = 600.0,
    exclude_own_moves: bool = False,
    delay_ms: int = 0,
) -> int:
    """Drive bots until the game ends, each from its own seat's stream (one thread a seat,
    no LegalMoves, no polling); returns the number of moves played. ``delay_ms``: how long
    a bot waits before answering a move that is not a bot's (``follow_and_play``)."""
    counts = [[0] for _ in bots]
    failures: list[BaseException] = []
    made = BotMoves()

    def run(bot: RandomBot, count: list[int]) -> None:
        try:
            follow_and_play(bot, count, exclude_own_moves, delay_ms, made)
        except BaseException as exc:  # handed to the caller below
            failures.append(exc)

    threads = [
        threading.Thread(target=run, args=(b, c), daemon=True)
        for b, c in zip(bots, counts, strict=True)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    if failures:
        raise failures[0]
    if any(t.is_alive() for t in threads):
        raise RuntimeError(f"game did not end in {timeout} s")
    return sum(c[0] for c in counts)


def play_match(bots: list[RandomBot], max_moves: int = 20_000) -> tuple[int, pb.MatchView]:
    """Drive bots through every hand of their match; returns the moves played and the
    final match view.

    After each hand the next one is open (its commitment public): every bot commits to a
    fresh contribution on it (ReadyNextHand), then reveals it, and the server deals it, at
    AUTO and READY tables alike (the same tokens act in every hand).
    """
    viewer = bots[0].seat
    moves = 0
    while True:
        moves += play_to_end(bots, max_moves)
        match = viewer.view().match
        if match.finished:
            return moves, match
        before = viewer.game_id
        match = draw_next_hand([bot.seat for bot in bots])
        if match.current_game_id == before:
            raise RuntimeError(f"the match did not open hand {match.current_hand + 1}")
