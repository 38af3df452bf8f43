"""Ratings (issue 40): note each finished game's and match's result in the store, and read
the leaderboards folded from them (domain/ratings.py says what is rated and how).

The live ratings are never a second computation: they are ``domain.ratings.rate`` over the
kind's ledger (server/store/ratings.py), the same fold ``tabletop-audit ratings`` makes
over verified exports. Each replica folds the ledger it reads, incrementally while new
results come in their order, from scratch when one arrives out of it (a replica's result
noted late).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass, field

from domain import ratings
from domain.engine import MalformedCommand
from domain.registry import games as game_kinds
from domain.table.records import timestamp_text
from server.store import ratings as ledger
from server.store.eventstore import GameAggregate
from server.usecases.games import Games

log = logging.getLogger("tabletop.service")
FOLD_ON_LOOP = 64  # new results folded on the event loop at most (about 4 ms), else a thread


@dataclass
class _Folded:
    """A kind's ledger as read so far, and the ratings folded from it."""

    position: int = 0
    results: list[ratings.RatedResult] = field(default_factory=list)
    ratings: ratings.Ratings = field(default_factory=ratings.Ratings)


class Ratings:
    def __init__(self, games: Games) -> None:
        """``games``: the game store (the ledger lives beside the games) and the games and
        matches whose ends are rated."""
        self.games = games
        self._folded: dict[str, _Folded] = {}
        self._lock = asyncio.Lock()

    async def game_finished(self, agg: GameAggregate) -> None:
        """A single game ended here: note its result (a table without logins or a void game
        gives none). A failure is logged, never the move's: the game is stored."""
        await self._note(self._game_result(agg))

    @staticmethod
    def _game_result(agg: GameAggregate) -> ratings.RatedResult | None:
        """The game's result, timed by its last record (as its export is)."""
        return ratings.game_result(str(agg.id), agg.table, timestamp_text(agg.modified_on))

    async def match_finished(self, match_id: str) -> None:
        """A match's end was recorded here: note its result, by its standings."""
        try:
            result = await self._match_result(match_id)
        except Exception:
            log.exception("match %s ended but was not rated", match_id)
            return
        await self._note(result)

    async def _match_result(self, match_id: str) -> ratings.RatedResult | None:
        """The match's result, timed by its last hand's last record (its HandClosed)."""
        match = (await self.games.load_match(uuid.UUID(match_id), refresh=True)).match
        if not match.hands:
            return None
        first = await self.games.load(uuid.UUID(match.hands[0].game_id))
        last = await self.games.load(uuid.UUID(match.hands[-1].game_id), refresh=True)
        return ratings.match_result(match, first.table, timestamp_text(last.modified_on))

    async def _note(self, result: ratings.RatedResult | None) -> bool:
        """Note ``result`` unless it is noted already; whether it was noted now."""
        if result is None:
            return False
        try:
            folded = await self._refresh(result.kind)
            if result.result_id in folded.ratings.counted:
                return False  # noted already (a replay, another replica): never rated twice
            await asyncio.to_thread(ledger.note, self.games.store, result)
            return True
        except Exception:
            log.exception("the result of %s was not rated", result.result_id)
            return False

    async def sweep(self) -> int:
        """After a restart: note every game and match between signed-in players that ended
        but is not in the ledger (the server died between the end and the noting). Reads
        the players' indexes once and loads each login game or match not rated yet (running
        ones included, so the cost grows with the login games not yet rated). Returns how
        many it noted."""
        counted: set[str] = set()
        for kind in sorted(game_kinds()):
            counted |= (await self._refresh(kind)).ratings.counted
        noted = 0
        for game_id, match_id in await asyncio.to_thread(ledger.login_seatings, self.games.store):
            if (match_id or game_id) in counted:
                continue
            counted.add(match_id or game_id)
            noted += await self._noted_if_ended(game_id, match_id)
        return noted

    async def _noted_if_ended(self, game_id: str, match_id: str) -> bool:
        try:
            if match_id:
                match = (await self.games.load_match(uuid.UUID(match_id))).match
                return match.finished and await self._note(await self._match_result(match_id))
            agg = await self.games.load(uuid.UUID(game_id))
        except Exception:
            log.exception("%s was not looked at for its rating", match_id or game_id)
            return False
        return await self._note(self._game_result(agg))

    async def _refresh(self, kind: str) -> _Folded:
        """The kind's ratings with every result noted so far (this replica's or another's)."""
        async with self._lock:
            folded = self._folded.setdefault(kind, _Folded())
            new, position = await asyncio.to_thread(
                ledger.results_after, self.games.store, kind, folded.position
            )
            folded.position = position
            if not new:
                return folded
            folded.results.extend(new)
            if len(new) <= FOLD_ON_LOOP and folded.ratings.in_order(new):
                ratings.rate(new, folded.ratings)
            else:  # the first read, a long tail, or a result earlier than one folded
                # already: fold all again, in order, off the loop (readers keep the old
                # ratings until the swap)
                folded.ratings = await asyncio.to_thread(ratings.rate, list(folded.results))
            return folded

    async def board(self, kind: str, offset: int, size: int) -> tuple[list[ratings.Rating], int]:
        """``size`` ratings of the kind's board from ``offset`` (0: the best), and how many
        players the board holds."""
        known_kind(kind)
        board = (await self._refresh(kind)).ratings.board(kind)
        return board[offset : offset + size], len(board)

    async def rating(self, kind: str, player: str) -> tuple[ratings.Rating, int]:
        """The player's rating at the kind (a new player's if it has none) and its place on
        the board (1 = best; 0: not on it)."""
        known_kind(kind)
        if not player:
            raise MalformedCommand("player", "a player id is required")
        folded = await self._refresh(kind)
        found = folded.ratings.of(kind, player)
        if found is None:
            return ratings.Rating(player), 0
        place = 1 + folded.ratings.board(kind).index(found)
        return found, place


def known_kind(kind: str) -> None:
    if kind not in game_kinds():
        raise MalformedCommand("kind", f"not a game kind of this server: {sorted(game_kinds())}")
