"""A match's decisions: open it, a hand ended, the next hand opened.

Pure. The next hand is a table like any other, opened through the table's own path
(``tables.create``, ``take_seat``): the same seats and tokens, a fresh secret from the
server and the options the game's dealer rule gives after the hand that ended
(``engine.MatchRules``). It is opened as soon as the hand before ends, with no seat's
entropy in it: its commitment is public first; the seats then commit (``tables.commit``),
reveal and are dealt on the hand's own stream, as at hand 1.
"""

from __future__ import annotations

import uuid
from typing import Any

from domain import table as tables
from domain.engine import GameRules, MalformedCommand, MatchRules, RuleViolation
from domain.match.facts import (
    MAX_HANDS,
    Advance,
    HandEnded,
    HandOpened,
    MatchCreated,
    MatchEnded,
    SeatReady,
)
from domain.match.state import Match, evolve
from domain.table.justice import facts as J

RULE = "match"  # named in refusals

# (the cause stored with a move's first fact, the move's facts): how a hand is written
Move = tuple[dict[str, Any], list[Any]]


def hand_id(match_id: str, hand: int) -> str:
    """The game id of hand number ``hand``: derived, so every replica (and a restart that
    finds a hand half opened) names the same table, and the store lets it be created once."""
    return str(uuid.uuid5(uuid.UUID(match_id), f"hand-{hand}"))


def create(
    rules: GameRules,
    match_id: str,
    seat_count: int,
    hands: int,
    target_score: int,
    advance: Advance = Advance.AUTO,
    secret: str = "",
) -> list[Any]:
    """MatchCreated and the first hand's link (its table is opened beside it). ``secret``:
    the server's random chain secret (records.chain_key), revealed by MatchEnded."""
    if not 0 <= hands <= MAX_HANDS:
        raise MalformedCommand("match.hands", f"0 (with a target score) up to {MAX_HANDS}")
    if target_score < 0:
        raise MalformedCommand("match.target_score", "0 (no target) or more")
    if not hands and not target_score:
        raise MalformedCommand("match", "give a number of hands, a target score, or both")
    if not isinstance(advance, Advance):
        raise MalformedCommand("match.advance", f"one of {[a.name for a in Advance]}")
    lower = rules.lower_score_wins if isinstance(rules, MatchRules) else False
    created = MatchCreated(
        match_id, rules.name, seat_count, hands, target_score, advance, lower, secret
    )
    return [created, HandOpened(1, hand_id(match_id, 1))]


def settings(match: Match) -> tuple[int, int, str]:
    """The match's settings as each of its hands' GameCreated names them."""
    return (match.hands_limit, match.target_score, match.advance.name)


def check_ready(
    match: Match, seat: int, contribution: str = "", current_drawing: bool = False
) -> None:
    """Check a seat's ready for the next hand: the match goes on and the seat sends a
    commitment (or nothing), never a plain contribution. The commitment itself goes into
    the next hand's stream (``tables.commit``), after that hand's own commitment; a match
    records no SeatReady any more (a contribution public before the hand's commitment is
    what let a server choose its secret after seeing it). ``current_drawing``: the match's
    current hand is still being drawn (a ready commits to it)."""
    if not 0 <= seat < match.seat_count:
        raise MalformedCommand("seat", f"seat must be 0..{match.seat_count - 1}")
    if match.finished or (_last_hand_played(match) and not current_drawing):
        raise RuleViolation("MATCH_OVER", RULE, "the match has ended: there is no next hand")
    if contribution:
        raise RuleViolation(
            "CONTRIBUTION_NOT_COMMITTED",
            RULE,
            "send a commitment with ReadyNextHand and reveal the contribution with "
            "RevealContribution once every seat has committed",
        )


def _last_hand_played(match: Match) -> bool:
    current = match.current
    last = match.hands_limit > 0 and len(match.hands) >= match.hands_limit
    return last and current is not None and current.hand == match.hands_limit


def end_hand(match: Match, hand: tables.Table, head_hash: str) -> list[Any]:
    """The current hand ended: its outcome joins the standings; the last hand ends the match."""
    current = match.current
    if match.finished or current is None or current.ended is not None:
        raise RuleViolation("NO_HAND_RUNNING", RULE, "no hand of this match is being played")
    if hand.match_id != match.match_id or hand.hand != current.hand:
        raise MalformedCommand("hand", f"the table is not hand {current.hand} of this match")
    outcome = hand.outcome
    if outcome is None or not hand.revealed:
        raise RuleViolation("HAND_RUNNING", RULE, f"hand {current.hand} has not ended")
    ended = HandEnded(
        current.hand, current.game_id, outcome.winners, outcome.scores, outcome.reason, head_hash
    )
    after = evolve(match, ended)
    if hand.abandoned is not None:  # a void hand: the match ends incomplete, never skips it
        return [ended, MatchEnded(after.standings, (), True, hand.abandoned, match.secret)]
    if not _over(after):
        return [ended]
    top = tuple(s.seat for s in after.standings if s.rank == 1)
    return [ended, MatchEnded(after.standings, top, secret=match.secret)]


def closing(match: Match, hand: tables.Table) -> tuple[bool, str]:
    """What the current hand, ended, says follows it (its HandClosed): (True, "") when the
    match ends with it (complete or incomplete), else (False, the next hand's game id).
    Decided as ``end_hand`` decides, before the match records it: the hand's stream says
    it first, so the HandEnded that follows names the hand's head after it."""
    current = match.current
    assert current is not None
    last = any(isinstance(f, MatchEnded) for f in end_hand(match, hand, ""))
    return last, "" if last else hand_id(match.match_id, current.hand + 1)


def close_hand(match: Match, hand: tables.Table) -> list[Any]:
    """The current hand's HandClosed, on its own stream (``closing``; ``tables.close_hand``)."""
    return tables.close_hand(hand, *closing(match, hand))


def _over(match: Match) -> bool:
    played = len(match.hands)
    if match.hands_limit and played >= match.hands_limit:
        return True
    if match.target_score and any(s.total >= match.target_score for s in match.standings):
        return True
    return played >= MAX_HANDS


def next_due(match: Match) -> bool:
    """Whether the next hand is to be opened now: the current one ended and the match goes
    on. (It is opened at once, with its commitment and no entropy: AUTO and READY differ
    in how its commit window closes, by the server's clock or once every seat is in.)"""
    current = match.current
    return not match.finished and current is not None and current.ended is not None


def open_hand(match: Match) -> list[Any]:
    """The link to the next hand (its table is written first, see ``next_hand``)."""
    if not next_due(match):
        raise RuleViolation("NEXT_HAND_NOT_DUE", RULE, _why_not_due(match))
    return [HandOpened(match.next_number, hand_id(match.match_id, match.next_number))]


def _why_not_due(match: Match) -> str:
    if match.finished:
        return "the match has ended"
    if match.current is None or match.current.ended is None:
        return "the current hand is still being played"
    return "the current hand is still being played"


def next_hand(
    match: Match,
    previous: tables.Table,
    secret: str,
    salt: str = "",
    reveal_timeout_ms: int = 0,
) -> list[Move]:
    """The next hand's table, opened and seated through the table's own path, not dealt.

    Everything carries over from ``previous`` (the hand that ended): the game and its
    options as the game's dealer rule moves them on, the seats with their names and token
    hashes (the same tokens act in every hand), the arbiter, the enforcement, the clock,
    the redeal cap, the case limit and the justice budget, the seat keys (each seat's
    current one) and whether keys are required, each seat's player and whether logins are
    required, and the match's counts so far
    (redeals and each seat's failed reports: ``_carried_justice``). ``secret`` and ``salt`` are the server's fresh ones for this hand and
    ``reveal_timeout_ms`` its window (the server's setting). The seats carry no entropy:
    they commit afterwards on the hand's own stream, so its commitment (version 1) comes
    before any seat's input to it."""
    if not next_due(match):
        raise RuleViolation("NEXT_HAND_NOT_DUE", RULE, _why_not_due(match))
    if previous.match_id != match.match_id or previous.hand != len(match.hands):
        raise MalformedCommand("hand", "the previous table is not this match's current hand")
    rules = previous.rules
    options = previous.options
    if isinstance(rules, MatchRules):
        options = rules.next_hand(options, previous.game)
    created = tables.create(
        rules,
        options,
        previous.seat_count,
        previous.arbiter_token_hash,
        secret,
        enforcement=previous.enforcement,
        time_limit_ms=previous.time_limit_ms,
        arbitrated=previous.arbitrated,
        match_id=match.match_id,
        hand=match.next_number,
        match_settings=settings(match),
        salt=salt,
        reveal_timeout_ms=reveal_timeout_ms,
        # carried over as it is (0 only after a hand recorded before the limit existed)
        abandon_after_ms=previous.abandon_after_ms,
        seat_keys_required=previous.seat_keys_required,
        arbiter_public_key=previous.arbiter_public_key,
        player_login_required=previous.player_login_required,
        **_carried_justice(previous),
    )
    moves: list[Move] = [(tables.cause("create"), created)]
    table = tables.evolve(None, created[0])
    for seat, taken in enumerate(previous.seats):
        assert taken is not None  # a hand that was played had every seat taken
        # the seat's current key (after any re-key) signs for it in this hand too
        facts = tables.take_seat(
            table,
            seat,
            taken.player_name,
            taken.token_hash,
            public_key=taken.public_key,
            player=taken.player,  # the same player holds the seat in every hand
        )
        moves.append((tables.cause("join", seat), facts))
        for fact in facts:
            table = tables.evolve(table, fact)
    return moves


def _carried_justice(previous: tables.Table) -> dict[str, Any]:
    """Justice's settings and counts a later hand carries from the hand before: redeals and
    failed reports count per match, so a new hand resets neither. A hand after one recorded
    under older caps (or none) gets today's caps and defaults."""
    cap = tables.DEFAULT_MAX_REDEALS if previous.max_redeals is None else previous.max_redeals
    limit = previous.case_time_limit_ms or J.CASE_TIME_LIMIT_MS
    seats = range(previous.seat_count)
    return {
        "max_redeals": min(cap, tables.MAX_REDEALS),
        "case_time_limit_ms": min(limit, J.MAX_CASE_TIME_LIMIT_MS),
        "justice_budget_ms": previous.justice_budget_ms or J.DEFAULT_JUSTICE_BUDGET_MS,
        "match_redeals_used": previous.match_redeals_used + len(previous.redeals_requested_by),
        "match_failed_reports": tuple(previous.justice.failed_reports(s) for s in seats),
    }


def describe(fact: Any) -> str:
    """One readable line for a match fact."""
    if isinstance(fact, MatchCreated):
        length = f"{fact.hands} hands" if fact.hands else f"up to {MAX_HANDS} hands"
        target = f", to {fact.target_score} points" if fact.target_score else ""
        return f"match opened: {fact.kind}, {fact.seat_count} seats, {length}{target}"
    if isinstance(fact, HandOpened):
        return f"hand {fact.hand} opened: game {fact.game_id}"
    if isinstance(fact, SeatReady):
        return f"seat {fact.seat} ready for hand {fact.hand}"
    if isinstance(fact, HandEnded) and fact.reason == "VOID":
        return f"hand {fact.hand} ended void: no deal"
    if isinstance(fact, HandEnded):
        won = ", ".join(map(str, fact.winners)) or "nobody"
        return f"hand {fact.hand} ended ({fact.reason}): won by {won}, scores {list(fact.scores)}"
    if isinstance(fact, MatchEnded) and fact.incomplete:
        totals = ", ".join(f"seat {s.seat} {s.total}" for s in fact.standings)
        waited = ", ".join(map(str, fact.waiting_for))
        return (
            f"match ended incomplete: the last hand is void (no deal, waiting for seat(s) "
            f"{waited}); the hands played stand: {totals}; no winner"
        )
    if isinstance(fact, MatchEnded):
        totals = ", ".join(f"seat {s.seat} {s.total} (#{s.rank})" for s in fact.standings)
        return f"match ended: {totals}"
    raise TypeError(f"not a match fact: {type(fact).__name__}")
