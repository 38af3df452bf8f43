"""The table server: every use case of a table, for the transport floor.

Each job is a class in a file of its own (seats.py, deal.py, play.py, watch.py,
matches.py, timers.py) over the common ground of games.py; server/startup/compose.py
builds and wires them. This class only holds them: a caller names the job it asks
(``server.play.play(...)``, ``server.watch.snapshot(...)``).
"""

from __future__ import annotations

from dataclasses import dataclass

from server.usecases.deal import Deal
from server.usecases.games import Games
from server.usecases.matches import Matches
from server.usecases.play import Play
from server.usecases.ratings import Ratings
from server.usecases.seats import Seats
from server.usecases.timers import TurnClock
from server.usecases.translog import Transparency
from server.usecases.watch import Watch


@dataclass(frozen=True)
class TableServer:
    """Create, join, deal, play, watch and replay games, and move matches on."""

    games: Games  # the common ground: authenticate, parse ids, versions, the store, close
    seats: Seats  # CreateGame, CreateMatch, JoinGame, RekeySeat
    deal: Deal  # CommitContribution, RevealContribution, StartGame
    play: Play  # Play, LegalMoves
    watch: Watch  # GetView, GetHistory, Replay, Watch
    matches: Matches  # ReadyNextHand, GetMatch, the match moving on
    clock: TurnClock | None = None  # the turn clock, where one runs (server/startup/main.py)
    log: Transparency | None = None  # the transparency log, where seals are signed
    ratings: Ratings | None = None  # the leaderboards (wired by server/startup/compose.py)
