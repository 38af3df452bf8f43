"""The table's evolve: each fact applied to the state, the table's own and the game's and
justice's (each part by its own evolve). Under the draw and the decider, which decide on
the state it folds."""

from __future__ import annotations

from typing import Any

from domain.engine import MatchRules, replaced
from domain.table import deal
from domain.table.facts import (
    ContributionRevealed,
    DealAbandoned,
    GameCreated,
    GameStarted,
    HandClosed,
    RedealOpened,
    RedealSecretsRevealed,
    RevealWithheld,
    SeatCommitted,
    SeatRekeyed,
    SeatTaken,
    ShuffleRevealed,
)
from domain.table.justice import facts as J
from domain.table.justice.state import JusticeState, after_game_fact
from domain.table.justice.state import evolve as evolve_justice
from domain.table.state import Entropy, Redraw, Seat, Table

# the table's own facts; any other is a game's or justice's (``_play``)
_TABLE_FACTS = (
    GameCreated,
    SeatTaken,
    SeatCommitted,
    SeatRekeyed,
    ContributionRevealed,
    RevealWithheld,
    RedealOpened,
    RedealSecretsRevealed,
    DealAbandoned,
    ShuffleRevealed,
    HandClosed,
    GameStarted,
)
_JUSTICE_FACTS = frozenset(J.JUSTICE_EVENT_TYPES)


def evolve(table: Table | None, event: Any) -> Table:
    drew = table is not None and table.drawing
    if table is None or isinstance(event, _TABLE_FACTS):
        if table is not None:
            table = replaced(table, version=table.version + 1)
        after = _apply(table, event)
    else:
        after = _play(table, event, table.version + 1)
    if not drew and after.drawing:  # a draw opens: its abandonment clock runs from here
        return replaced(after, draw_opened=after.version)
    return after


def _play(table: Table, event: Any, version: int) -> Table:
    """A game's or justice's fact (most of a table's), at ``version``. Why apart: the table
    is copied once, with its new version (issue 40: the table's 40 fields were copied twice
    for every fact)."""
    if type(event) in _JUSTICE_FACTS:
        justice_state, game = evolve_justice(table.justice, event, version, table.game)
        if isinstance(event, J.GameRedealt):  # the table deals; justice only counts it
            game = _new_game(table, event.deck, event.seed)
            return replaced(table, version=version, justice=justice_state, game=game, redraw=None)
        if isinstance(event, J.PenaltyRevoked) and event.deck:  # the reshuffled unseen deck
            game = table.rules.with_deck(game, event.deck)  # type: ignore[attr-defined]
        return replaced(table, version=version, justice=justice_state, game=game)
    return replaced(
        table,
        version=version,
        justice=after_game_fact(table.justice),
        game=table.rules.evolve(table.game, event),
    )


def _apply(table: Table | None, event: Any) -> Table:
    if isinstance(event, GameCreated):
        return Table(
            version=1,
            enforcement=event.enforcement,
            time_limit_ms=event.time_limit_ms,
            arbitrated=event.arbitrated,
            kind=event.kind,
            options=event.options,
            seat_count=event.seat_count,
            arbiter_token_hash=event.arbiter_token_hash,
            secret=event.secret,
            commitment=event.commitment,
            prepared_deck=event.prepared_deck,
            seats=(None,) * event.seat_count,
            match_id=event.match_id,
            hand=event.hand,
            salt=event.salt,
            deal_source=event.deal_source,
            reveal_timeout_ms=event.reveal_timeout_ms,
            max_redeals=event.max_redeals,
            case_time_limit_ms=event.case_time_limit_ms,
            abandon_after_ms=event.abandon_after_ms,
            justice_budget_ms=event.justice_budget_ms,
            match_redeals_used=event.match_redeals_used,
            match_failed_reports=event.match_failed_reports,
            seat_keys_required=event.seat_keys_required,
            arbiter_public_key=event.arbiter_public_key,
            player_login_required=event.player_login_required,
            reserved_players=event.reserved_players,
            app=event.app,
        )
    assert table is not None
    if isinstance(event, SeatTaken):
        committed = event.commitment
        if event.contribution and not committed:  # the older form: committed and revealed
            committed = deal.contribution_commitment(event.contribution)
        awaited = table.hand >= 2 and not committed  # a match's later hand: commits after
        seat = Seat(event.player_name, event.token_hash, event.contribution, committed)
        seat = replaced(seat, awaited=awaited, public_key=event.public_key, player=event.player)
        first = event.seat if table.first_seat is None else table.first_seat
        return replaced(_with_seat(table, event.seat, seat), first_seat=first)
    if isinstance(event, SeatCommitted):
        return _with_inputs(table, event.seat, commitment=event.commitment, awaited=False)
    if isinstance(event, SeatRekeyed):
        taken = table.seats[event.seat]
        assert taken is not None
        rekeyed_at = (*taken.rekeyed_at, table.version)
        keyed = replaced(taken, public_key=event.public_key, rekeyed_at=rekeyed_at)
        return _with_seat(table, event.seat, keyed)
    if isinstance(event, ContributionRevealed):
        return _with_inputs(table, event.seat, contribution=event.contribution)
    if isinstance(event, RevealWithheld):
        return _with_inputs(table, event.seat, withheld=True, awaited=False)
    if isinstance(event, RedealOpened):
        redraw = Redraw(
            event.round,
            event.requested_by,
            event.secret,
            event.commitment,
            (Entropy(),) * table.seat_count,
        )
        return replaced(
            table,
            redraw=redraw,
            redeals_requested_by=(*table.redeals_requested_by, event.requested_by),
            redeal_secrets=(*table.redeal_secrets, event.secret),
        )
    if isinstance(event, RedealSecretsRevealed):
        return table
    if isinstance(event, DealAbandoned):
        return replaced(table, abandoned=tuple(event.waiting_for))
    if isinstance(event, ShuffleRevealed):
        return replaced(table, revealed=True)
    if isinstance(event, HandClosed):
        return replaced(table, closed=(event.last, event.next_game_id))
    if isinstance(event, GameStarted):
        table = replaced(table, options=hand_options(table))
        return replaced(
            table,
            game=_new_game(table, event.deck, event.seed),
            justice=JusticeState.for_seats(
                table.seat_count, table.match_failed_reports, table.justice_budget_ms <= 0
            ),
        )
    raise AssertionError(f"not a table fact: {type(event).__name__}")  # (see _play)


def hand_options(table: Table) -> Any:
    """The options the hand is dealt with: a game played in hands (MatchRules) may decide
    from the seat taken first who deals (川南字牌: 首进入房间的玩家坐庄, zp:9)."""
    rules = table.rules
    if isinstance(rules, MatchRules) and table.first_seat is not None:
        return rules.first_hand(table.options, table.first_seat)
    return table.options


def _with_inputs(table: Table, index: int, **changes: Any) -> Table:
    """The seat's input to the draw under way changed: a redeal's fresh one, else its own."""
    if table.redraw is not None:
        entropy = list(table.redraw.entropy)
        entropy[index] = replaced(entropy[index], **changes)
        redraw = replaced(table.redraw, entropy=tuple(entropy))
        return replaced(table, redraw=redraw)
    seat = table.seats[index]
    assert seat is not None
    return _with_seat(table, index, replaced(seat, **changes))


def _with_seat(table: Table, index: int, seat: Seat) -> Table:
    seats = list(table.seats)
    seats[index] = seat
    return replaced(table, seats=tuple(seats))


def _new_game(table: Table, deck: tuple[int, ...], seed: int) -> Any:
    return table.rules.initial_state(table.options, table.seat_count, deck, seed)
