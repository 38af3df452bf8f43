"""A match's state and its evolve: the hands so far, who is ready, the standings."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from domain.match.facts import (
    Advance,
    HandEnded,
    HandOpened,
    MatchCreated,
    MatchEnded,
    SeatReady,
    Standing,
)


@dataclass(frozen=True)
class Hand:
    """One hand of the match: its table, and how it ended once it has."""

    hand: int
    game_id: str
    ended: HandEnded | None = None


@dataclass(frozen=True)
class Match:
    match_id: str
    kind: str
    seat_count: int
    hands_limit: int
    target_score: int
    advance: Advance
    lower_score_wins: bool
    hands: tuple[Hand, ...] = ()
    ready: tuple[str | None, ...] = ()  # per seat: its contribution once ready for the next
    standings: tuple[Standing, ...] = ()  # per seat, in seat order
    ended: MatchEnded | None = None
    version: int = 0
    secret: str = ""  # the chain secret (MatchCreated's, private until MatchEnded)

    @property
    def current(self) -> Hand | None:
        return self.hands[-1] if self.hands else None

    @property
    def finished(self) -> bool:
        return self.ended is not None

    @property
    def next_number(self) -> int:
        return len(self.hands) + 1

    def ready_seats(self) -> tuple[int, ...]:
        return tuple(s for s, c in enumerate(self.ready) if c is not None)


def points(lower_score_wins: bool, ended: HandEnded) -> tuple[int, ...]:
    """What a hand adds to each seat's total: its scores. A FORFEIT (the table's 判负,
    scored -1 for the forfeited seat and 0 for the others) costs the forfeited seat one
    point in the game's direction, so it never helps it."""
    if ended.reason == "FORFEIT" and lower_score_wins:
        return tuple(-s for s in ended.scores)
    return ended.scores


def rank(lower_score_wins: bool, totals: tuple[int, ...], wins: tuple[int, ...]) -> tuple[int, ...]:
    """Each seat's rank: by total (lower or higher first, by the game), then by more hands
    won; seats level on both share a rank (1, 1, 3)."""

    def key(seat: int) -> tuple[int, int]:
        total = totals[seat] if lower_score_wins else -totals[seat]
        return (total, -wins[seat])

    return tuple(1 + sum(key(o) < key(s) for o in range(len(totals))) for s in range(len(totals)))


def standings_after(match: Match, ended: HandEnded) -> tuple[Standing, ...]:
    gained = points(match.lower_score_wins, ended)
    if not gained:  # a void hand (its draw abandoned): no scores, the standings stand
        gained = (0,) * match.seat_count
    totals = tuple(s.total + g for s, g in zip(match.standings, gained, strict=True))
    wins = tuple(s.wins + (s.seat in ended.winners) for s in match.standings)
    ranks = rank(match.lower_score_wins, totals, wins)
    return tuple(Standing(s, totals[s], wins[s], ranks[s]) for s in range(match.seat_count))


def evolve(match: Match | None, event: object) -> Match:
    if isinstance(event, MatchCreated):
        n = event.seat_count
        return Match(
            match_id=event.match_id,
            kind=event.kind,
            seat_count=n,
            hands_limit=event.hands,
            target_score=event.target_score,
            advance=event.advance,
            lower_score_wins=event.lower_score_wins,
            ready=(None,) * n,
            standings=tuple(Standing(s, 0, 0, 1) for s in range(n)),
            version=1,
            secret=event.secret,
        )
    assert match is not None
    match = dataclasses.replace(match, version=match.version + 1)
    if isinstance(event, HandOpened):
        hands = (*match.hands, Hand(event.hand, event.game_id))
        return dataclasses.replace(match, hands=hands, ready=(None,) * match.seat_count)
    if isinstance(event, SeatReady):
        ready = list(match.ready)
        ready[event.seat] = event.contribution
        return dataclasses.replace(match, ready=tuple(ready))
    if isinstance(event, HandEnded):
        hands = tuple(
            dataclasses.replace(h, ended=event) if h.hand == event.hand else h for h in match.hands
        )
        return dataclasses.replace(match, hands=hands, standings=standings_after(match, event))
    if isinstance(event, MatchEnded):
        return dataclasses.replace(match, ended=event)
    raise TypeError(f"not a match fact: {type(event).__name__}")
