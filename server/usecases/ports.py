"""The shapes by which one use case calls another, wired in one place
(server/startup/compose.py): a job names the call it needs here, never another job's
module, so seats, deal, play, watch and matches stay independent siblings."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from datetime import datetime

from domain.engine import Viewer
from server.store.eventstore import GameAggregate
from server.wire.seatsig import SignedCall
from server.wire.stored import StoredEvent

AfterAppend = Callable[[uuid.UUID, GameAggregate], None]
"""Called with a game just moved (here or by another replica): the turn clock arms its
deadline (server/usecases/timers.py ``TurnClock.schedule``)."""

HandEnded = Callable[[str], Awaitable[None]]
"""Called with a match's id when one of its hands ended: the match moves on
(server/usecases/matches.py ``Matches.hand_ended``)."""

GameFinished = Callable[[GameAggregate], Awaitable[None]]
"""Called with a single game (no match's hand) that just finished here: its result is rated
(server/usecases/ratings.py ``Ratings.game_finished``)."""

MatchFinished = Callable[[str], Awaitable[None]]
"""Called with a match's id once its end is recorded here: its result is rated
(server/usecases/ratings.py ``Ratings.match_finished``)."""

CommitContribution = Callable[
    [str, Viewer, str, SignedCall | None],
    Awaitable[tuple[int, list[StoredEvent], tuple[int, ...], datetime | None]],
]
"""A seated seat commits to the draw under way (server/usecases/deal.py
``Deal.commit_contribution``): ReadyNextHand commits through it."""


def no_clock(game_id: uuid.UUID, agg: GameAggregate) -> None:
    """``AfterAppend`` where no turn clock runs (tests of other things): nothing."""


async def no_match(match_id: str) -> None:
    """``HandEnded`` before a server's matches are wired: nothing."""


async def no_rating(subject: object) -> None:
    """``GameFinished`` and ``MatchFinished`` before a server's ratings are wired: nothing."""
