"""The table server: every use case of a table in one object, for the transport floor.

Each job is a file of its own (seats.py, deal.py, play.py, watch.py, matches.py) over the
common ground of games.py: this class only joins them.
"""

from __future__ import annotations

from server.usecases.deal import Deal
from server.usecases.matches import Matches
from server.usecases.play import Play
from server.usecases.seats import Seats
from server.usecases.watch import Watch


class TableServer(Seats, Deal, Play, Watch, Matches):
    """Create, join, deal, play, watch and replay games, and move matches on."""
