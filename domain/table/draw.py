"""The deal's draw, on its own floor under the decider: the seats' commitments and reveals,
their windows and abandonment, the deal itself (the first, or a 重新洗牌发牌's), and the
shuffle secret's reveal at the game's end.

A draw's only outcomes are the one deal its committed inputs determine, or none (the game
void). Pure, like the decider above it (which imports it; never the other way round).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from domain.engine import MalformedCommand, RuleViolation
from domain.table import deal
from domain.table.evolution import evolve
from domain.table.facts import (
    ContributionRevealed,
    DealAbandoned,
    GameStarted,
    RedealOpened,
    RedealSecretsRevealed,
    RevealWithheld,
    SeatCommitted,
    ShuffleRevealed,
)
from domain.table.justice import facts as J
from domain.table.state import Phase, Table

DEAL_RULE = "deal"  # commit–reveal (docs/api.md, "Audit"), named in refusals
REDEAL_RULE = J.REDEAL_RULE  # the redeal's cap, named in refusals
DEFAULT_MAX_REDEALS = 1  # per match (a single game: per game), when the creator gives no cap
MAX_REDEALS = 3  # the highest cap a table may set, per match
# how long a draw waits for every seat's commitment and reveal before it is abandoned
# (DealAbandoned: the game ends void), when the creator gives no limit; and the bounds
DEFAULT_ABANDON_AFTER_MS = 600_000  # ten minutes
MIN_ABANDON_AFTER_MS = 1_000
MAX_ABANDON_AFTER_MS = 86_400_000  # one day


def commit(table: Table, seat: int, commitment: str) -> list[Any]:
    """A seat already seated commits to its contribution to the deal being drawn (a
    match's later hand, or a 重新洗牌发牌): after the draw's own commitment is public, before
    any reveal. An empty ``commitment`` adds nothing. Saying the same again changes nothing."""
    if not 0 <= seat < table.seat_count:
        raise MalformedCommand("seat", f"seat must be 0..{table.seat_count - 1}")
    if commitment and not deal.is_commitment(commitment):
        raise MalformedCommand("contribution_commitment", "64 lowercase hex digits (SHA-256)")
    not_void(table)
    inputs = table.draw_inputs()[seat]
    if not table.drawing or inputs is None:
        raise RuleViolation(
            "NOTHING_TO_COMMIT",
            DEAL_RULE,
            "no deal is being drawn from seated seats (hand 1 commits at JoinGame)",
        )
    if inputs.status is deal.Contribution.AWAITED:
        return [SeatCommitted(seat, commitment)]
    if inputs.withheld:
        raise RuleViolation("COMMITS_CLOSED", DEAL_RULE, f"seat {seat}'s commit window closed")
    if inputs.commitment != commitment:
        raise RuleViolation(
            "ALREADY_COMMITTED", DEAL_RULE, f"seat {seat} already committed to another value"
        )
    return []  # a retried commitment: already recorded


def reveal(table: Table, seat: int, contribution: str) -> list[Any]:
    """The seat reveals the contribution it committed to; nothing if it already did.

    Only once every seat has committed (all seats taken, every awaited commitment in or
    its window closed), so nobody commits after seeing a reveal; and only the committed
    value, so nobody changes its mind after. During a 重新洗牌发牌 it reveals the seat's
    fresh contribution."""
    if not 0 <= seat < table.seat_count:
        raise MalformedCommand("seat", f"seat must be 0..{table.seat_count - 1}")
    if not 0 < len(contribution) <= deal.MAX_CONTRIBUTION:
        raise MalformedCommand("contribution", f"1 to {deal.MAX_CONTRIBUTION} characters")
    not_void(table)
    if table.redraw is None and table.phase is not Phase.WAITING:
        raise RuleViolation("GAME_ALREADY_STARTED", DEAL_RULE, "the deal is already made")
    if any(s is None for s in table.seats) or table.awaited_commitments:
        waiting = f" (waiting for seat(s) {_seats(table.awaited_commitments)} to commit)"
        raise RuleViolation(
            "REVEAL_TOO_EARLY",
            DEAL_RULE,
            "reveals come once every seat has committed"
            + (waiting if table.awaited_commitments else ""),
        )
    taken = table.draw_inputs()[seat]
    assert taken is not None
    if taken.status is deal.Contribution.NONE:
        raise RuleViolation("NOTHING_TO_REVEAL", DEAL_RULE, f"seat {seat} committed to nothing")
    if deal.contribution_commitment(contribution) != taken.commitment:
        raise RuleViolation(
            "REVEAL_MISMATCH", DEAL_RULE, "the contribution does not match the seat's commitment"
        )
    if taken.status is deal.Contribution.REVEALED:
        return []  # a retried reveal: already done
    return [ContributionRevealed(seat, contribution)]


def start(table: Table) -> list[Any]:
    """GameStarted and the game's opening facts (the deal), or a 重新洗牌发牌's GameRedealt,
    once every seat has committed and revealed (a seat that committed to nothing has
    nothing to reveal). Nobody stands in for a seat: while one is awaited the deal waits,
    past its reveal window too, with the same committed inputs; after the table's
    abandonment limit the server abandons the draw (``abandon``) and the game is void. So
    the only possible outcomes of a draw are the one deal its inputs determine, or none."""
    can_deal(table)
    awaited = table.awaited_commitments
    if awaited:
        raise RuleViolation(
            "COMMITMENTS_PENDING",
            DEAL_RULE,
            f"waiting for seat(s) {_seats(awaited)} to commit: the deal is made from every "
            "seat's entropy or not at all",
        )
    pending = table.pending_reveals
    if pending:
        raise RuleViolation(
            "REVEALS_PENDING",
            DEAL_RULE,
            f"waiting for seat(s) {_seats(pending)} to reveal their contributions: the deal is "
            "made from every seat's entropy or not at all",
        )
    return _deal(table)


def not_void(table: Table) -> None:
    if table.abandoned is not None:
        raise RuleViolation("GAME_VOID", DEAL_RULE, void_words(table.abandoned))


def can_deal(table: Table) -> None:
    not_void(table)
    if table.redraw is None and table.phase is not Phase.WAITING:
        raise RuleViolation("GAME_ALREADY_STARTED", "table", "the game was already dealt")
    if any(s is None for s in table.seats):
        raise RuleViolation("SEATS_NOT_FILLED", "table", "every seat must be taken first")


def _seats(seats: tuple[int, ...]) -> str:
    return ", ".join(map(str, seats))


def void_words(waiting_for: tuple[int, ...]) -> str:
    return f"void: no deal, waiting for seat(s) {_seats(waiting_for)}"


def start_withheld(table: Table) -> list[Any]:
    """The old rule, only to replay records made before issue 35 (a ``start`` cause with
    ``reveals_closed``): each awaited or pending seat recorded RevealWithheld, its
    commitment (or nothing) standing in for it, and the deal made without its entropy. The
    server never decides it any more, and verify flags every deal made so."""
    can_deal(table)
    awaited = table.awaited_commitments
    if awaited:
        closed: list[Any] = [RevealWithheld(s) for s in awaited]
        after = _evolve_all(table, closed)
        return closed if after.pending_reveals else closed + _deal(after)
    facts: list[Any] = [RevealWithheld(s) for s in table.pending_reveals]
    return facts + _deal(_evolve_all(table, facts))


def abandon(table: Table) -> list[Any]:
    """The draw under way waited the table's abandonment limit for a seat's commitment or
    reveal: DealAbandoned names the seats it waited for, and the game ends void (the
    shuffle secret is revealed, as at every end, so the commitment can be checked). The
    server decides it at ``abandon_deadline``; nothing is dealt."""
    if not table.drawing:
        raise RuleViolation("NOTHING_TO_ABANDON", DEAL_RULE, "no deal is being drawn")
    waiting_for = table.awaited_inputs
    if not waiting_for:
        raise RuleViolation(
            "NOTHING_TO_ABANDON", DEAL_RULE, "every seat's input is in: the draw is dealt"
        )
    round_ = table.redraw.round if table.redraw is not None else 0
    return with_reveal(table, [DealAbandoned(waiting_for, round_)])


def abandon_deadline(table: Table, opened_at: datetime) -> datetime | None:
    """When the draw under way is abandoned: the table's limit after ``opened_at``, the
    time of the fact that opened the draw (``table.draw_opened``: the last seat taken, a
    match's later hand seated, RedealOpened). None when no draw waits for a seat, or in a record made before
    the limit existed."""
    if not table.drawing or not table.awaited_inputs or table.abandon_after_ms <= 0:
        return None
    return opened_at + timedelta(milliseconds=table.abandon_after_ms)


def _evolve_all(table: Table, facts: list[Any]) -> Table:
    for fact in facts:
        table = evolve(table, fact)
    return table


def _deal(table: Table) -> list[Any]:
    """The deal of the draw whose inputs are all fixed: the first, or a redeal's."""
    rules = table.rules
    if table.redraw is not None:  # 重新洗牌发牌: the fresh secret and the fresh entries
        key, n = table.redraw.key, table.redraw.round
        deck = deal.deck_for_round(key, rules.new_deck(table.options), n)
        redealt = J.GameRedealt(deck, deal.seed_for_round(key, n), n)
        return with_reveal(table, [redealt, *rules.deal(evolve(table, redealt).game)])
    key = table.deal_key
    deck = table.prepared_deck or deal.deck_for_round(key, rules.new_deck(table.options), 0)
    started = GameStarted(deck, deal.seed_for_round(key, 0))
    return [started, *rules.deal(evolve(table, started).game)]


def reveal_deadline(table: Table, since: datetime) -> datetime | None:
    """When the seats awaited by the draw are late: the table's recorded window after
    ``since``, the time its latest fact was recorded (the last seat taken, the latest
    commitment or reveal). Past it the draw still waits, with the same committed inputs
    (a late reveal of the committed value is accepted), until ``abandon_deadline``. None
    while seats are open or when nothing is awaited. A function of the record, so a view's
    deadline is part of what its receipt proves."""
    if not table.drawing:
        return None
    if not table.pending_reveals and not table.awaited_commitments:
        return None
    return since + timedelta(milliseconds=table.reveal_timeout_ms)


def deal_status(table: Table) -> str:
    """One line on the draw, as every surface shows it: whom it waits for, that the game is
    void, and the seats that added no entropy ("" once dealt with every seat's entropy)."""
    if table.abandoned is not None:
        return void_words(table.abandoned)
    parts = []
    if table.drawing:
        awaited, pending = table.awaited_commitments, table.pending_reveals
        if awaited:
            parts.append(f"waiting for seat(s) {_seats(awaited)} to commit")
        elif pending:
            parts.append(f"waiting for seat(s) {_seats(pending)} to reveal")
    parts += [f"seat {s} added no entropy" for s in table.no_entropy]
    return "; ".join(parts)


def redeal_facts(table: Table, requested_by: str, secret: str) -> list[Any]:
    """重新洗牌发牌, within the table's cap: a fresh draw opens, committed to the server's
    fresh ``secret``; the seats commit and reveal fresh contributions, and ``start`` deals
    it. Neither the arbiter nor the server can pick among deals."""
    asked = len(table.redeals_requested_by)
    used = table.match_redeals_used + asked  # the match's earlier hands count too
    if table.max_redeals is not None and used >= table.max_redeals:
        raise RuleViolation(
            "REDEAL_LIMIT",
            REDEAL_RULE,
            f"this table allows {table.max_redeals} 重新洗牌发牌 per match; {used} so far",
        )
    if not deal.is_commitment(secret):
        raise MalformedCommand("redeal_secret", "the server's fresh secret: 64 hex digits")
    return [RedealOpened(asked + 1, requested_by, deal.commitment(secret), secret)]


def redeals_left(table: Table) -> int | None:
    if table.max_redeals is None:
        return None
    used = table.match_redeals_used + len(table.redeals_requested_by)
    return max(0, table.max_redeals - used)


def not_redrawing(table: Table) -> None:
    if table.redraw is not None:
        raise RuleViolation(
            "REDEAL_DRAWING",
            DEAL_RULE,
            "a 重新洗牌发牌 is being drawn: the seats commit and reveal, then it is dealt",
        )


def with_reveal(table: Table, facts: list[Any]) -> list[Any]:
    """Append ShuffleRevealed to the facts that end the game."""
    after = table
    for fact in facts:
        after = evolve(after, fact)
    if after.phase is Phase.FINISHED and not after.revealed:
        revealed = ShuffleRevealed(table.secret, table.salt)
        if after.redeal_secrets:  # a separate fact: a game without redeals records as before
            return [*facts, revealed, RedealSecretsRevealed(after.redeal_secrets)]
        return [*facts, revealed]
    return facts
