"""Matches (domain/match/): a series of hands at one table, moved on from what is stored,
safe from any replica at any time.
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
import uuid
from typing import Any

from eventsourcing.persistence import IntegrityError

from domain import match as matches
from domain import table as tables
from domain.engine import MalformedCommand, Role, RuleViolation, Viewer
from domain.table import deal
from server.store.eventstore import GameAggregate, MatchAggregate
from server.usecases.games import (
    Aborted,
    Games,
    NotFound,
    PermissionDenied,
    _MatchMoved,
    log,
)
from server.usecases.ports import CommitContribution, MatchFinished, no_rating
from server.wire import seatsig
from server.wire.seatsig import SignedCall
from server.wire.stored import StoredEvent, StoredMatchFact


class Matches:
    """ReadyNextHand, GetMatch, and the match moving on after each hand."""

    def __init__(
        self, games: Games, commit: CommitContribution, *, reveal_timeout_ms: int = 30_000
    ) -> None:
        """What matches touch: ``games`` (lock, load and append games and matches, seal,
        the cache a next hand enters, the hub, the game store, the ``after_append`` hook
        that arms a new hand's commit window), ``commit`` (Deal.commit_contribution:
        ReadyNextHand commits through it) and ``reveal_timeout_ms`` (recorded in each next
        hand's table, as CreateGame records it)."""
        self.games = games
        self.commit = commit
        self.reveal_timeout_ms = reveal_timeout_ms
        self.match_finished: MatchFinished = no_rating  # (set by the composition root)

    async def hand_ended(self, match_id: str) -> None:
        """A hand of a match ended here: move the match on. The hand's own facts are already
        durable, so a failure here loses nothing: the next look (a ready, a watcher between
        hands, the start-up recovery) moves the match on instead."""
        try:
            await self.advance_match(match_id)
        except Exception:
            log.exception("match %s did not move on after its hand ended", match_id)

    async def advance_match(self, match_id: str) -> None:
        """Bring the match forward from what is stored: record the hand that ended (and the
        end of the match after its last hand), then open the next hand (its commitment and
        its seats, no entropy: the seats commit on it next) and link it. Idempotent, safe
        from any replica
        at any time: each step is an append the store lets in once (the next hand's id is
        derived from the match, so only one table can be that hand)."""
        mid = uuid.UUID(match_id)
        async with self.games.lock(mid):
            for _attempt in range(8 + 4 * matches.MAX_HANDS):
                agg = await self.games.load_match(mid)
                try:
                    if not await self._advance_step(agg):
                        return
                except _MatchMoved:
                    continue

    async def _advance_step(self, agg: MatchAggregate) -> bool:
        """One step of ``advance_match``; True when it wrote something."""
        state = agg.match
        current = state.current
        if state.finished or current is None:
            return False
        hand = await self.games.load(uuid.UUID(current.game_id))
        if current.ended is None:
            if hand.table.phase is not tables.Phase.FINISHED:
                return False
            if hand.table.closed is None:  # the hand says what follows it, first
                await self._close_hand(state, hand)
                return True
            facts = matches.end_hand(state, hand.table, hand.head_hash)
            await self.games.append_match(agg, facts)
            if any(isinstance(f, matches.MatchEnded) for f in facts):
                await self.match_finished(state.match_id)
            return True
        if not matches.next_due(state):
            return False
        next_id = uuid.UUID(matches.hand_id(state.match_id, state.next_number))
        if not await self._exists(next_id):
            moves = matches.next_hand(
                state,
                hand.table,
                secrets.token_hex(32),
                secrets.token_hex(32),
                self.reveal_timeout_ms,
            )
            await self._open_hand(next_id, moves)
        await self.games.append_match(agg, matches.open_hand(state))
        return True

    async def _close_hand(self, state: matches.Match, hand: GameAggregate) -> None:
        """Append the ended hand's HandClosed (the last hand, or the next one's game id) to
        its own stream, sealed as every move is, before the match records the hand's end:
        a crash between the two leaves a closed hand whose end the next look records (its
        HandEnded then names the hand's head after HandClosed). The hand's lock may be held
        by the move that ended it (this runs from its append): the store lets in one append
        per version, so a writer that came first makes this one re-read (_MatchMoved)."""
        try:
            await self.games.append(
                hand, matches.close_hand(state, hand.table), tables.cause("close")
            )
        except Aborted:
            raise _MatchMoved() from None

    async def _exists(self, game_id: uuid.UUID) -> bool:
        try:
            await self.games.load(game_id)
        except NotFound:
            return False
        return True

    async def _open_hand(self, game_id: uuid.UUID, moves: list[Any]) -> None:
        """Write a hand's opening moves (create, then the seats) as one append; if another
        writer opened the hand first, theirs stands."""
        (first_cause, (created,)), *rest = moves
        agg = GameAggregate.open(game_id, created, first_cause)
        stored = self._stored_move(agg, [created], 0)
        for cause, move in rest:
            done = len(agg.pending_events)
            for i, fact in enumerate(move):
                agg.record(fact, cause if i == 0 else None)
            stored += self._stored_move(agg, move, done)
        try:
            await asyncio.wrap_future(self.games.store.submit(agg))
        except IntegrityError:
            return
        self.games.remember(agg)
        self.games.hub.publish(game_id, stored, agg.table)
        self.games.after_append(game_id, agg)  # the new hand's commit window (AUTO: the clock)

    def _stored_move(self, agg: GameAggregate, facts: list[Any], done: int) -> list[StoredEvent]:
        """The move just recorded on ``agg`` (its pending events after the first ``done``),
        sealed under the hand's own id as every single table's move is."""
        pending: list[Any] = list(agg.pending_events)[done:]
        move = [
            StoredEvent(e.originator_version, e.timestamp, fact, e.hash, e.fact, e.cause)
            for e, fact in zip(pending, facts, strict=True)
        ]
        return self.games.seal(agg, move)

    async def ready_next_hand(
        self,
        game_id: str,
        viewer: Viewer,
        contribution: str = "",
        commitment: str = "",
        signed: SignedCall | None = None,
    ) -> tuple[matches.Match, str, list[StoredEvent]]:
        """The viewer's seat is ready for the match's next hand (at any hand's id of the
        match: the same token acts in every hand): it commits to its contribution to that
        hand's deal, on that hand's own stream, once the hand is open (it opens as soon as
        the hand before ends, its commitment first). The contribution is revealed with
        RevealContribution on that hand once every seat has committed. Returns the match,
        the hand's game id and the acknowledgement (the move on that hand's stream that
        took the commitment, as CommitContribution returns it). A keyed seat's ready is
        ``signed`` for the hand its commitment goes into (which the request then names)."""
        if viewer.role is not Role.SEAT or viewer.seat is None:
            raise PermissionDenied("only a seated player says it is ready")
        table = (await self.games.load(self.games.parse_id(game_id))).table
        if not table.match_id:
            raise RuleViolation("NOT_A_MATCH", matches.decide.RULE, "this table plays one hand")
        await self.advance_match(table.match_id)  # a hand that ended is followed by the next
        mid = uuid.UUID(table.match_id)
        match = (await self.games.load_match(mid)).match
        current = match.current
        assert current is not None
        hand = (await self.games.load(uuid.UUID(current.game_id))).table
        drawing = current.hand >= 2 and hand.drawing
        matches.check_ready(match, viewer.seat, contribution, drawing)
        if not drawing:
            raise RuleViolation(
                "NEXT_HAND_NOT_OPEN",
                matches.decide.RULE,
                "the next hand opens (its commitment first) when this hand ends: commit then",
            )
        if signed is not None and signed.game_id != current.game_id:
            raise MalformedCommand(
                seatsig.FIELD,
                f"the signed command names game {signed.game_id}; the commitment goes into "
                f"hand {current.hand}, game {current.game_id}: sign and send that one",
            )
        _v, stored, _a, _d = await self.commit(current.game_id, viewer, commitment, signed)
        # the match, with the seats that have committed to the hand being opened as ready
        hand = (await self.games.load(uuid.UUID(current.game_id))).table
        committed = tuple(
            None if s is not None and s.status is deal.Contribution.AWAITED else ""
            for s in hand.seats
        )
        match = dataclasses.replace((await self.games.load_match(mid)).match, ready=committed)
        return match, current.game_id, stored

    async def match_record(self, match_id: str) -> tuple[matches.Match, list[StoredMatchFact]]:
        """A match and its stored facts (public: a match's facts hide nothing)."""
        try:
            mid = uuid.UUID(match_id)
        except ValueError:
            raise MalformedCommand("match_id", "is not a match id") from None
        agg = await self.games.load_match(mid, refresh=True)
        facts = await asyncio.to_thread(self.games.store.match_facts, mid)
        return agg.match, facts

    async def recover_matches(self) -> int:
        """After a restart: move on every match that was left between two steps (a hand
        ended but not recorded, a next hand due but not dealt). Returns how many moved."""
        moved = 0
        for match_id in await asyncio.to_thread(self.games.store.match_ids):
            agg = await self.games.load_match(match_id, refresh=True)
            if agg.match.finished:
                continue
            before = agg.version
            await self.advance_match(str(match_id))
            after = await self.games.load_match(match_id)
            moved += after.version > before
            if after.match.current is not None:  # a hand waiting for its draw: its windows
                hand = await self.games.load(uuid.UUID(after.match.current.game_id))
                self.games.after_append(hand.id, hand)
        return moved
