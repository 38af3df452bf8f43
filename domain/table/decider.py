"""The table around a game, as a Decider: seats, the start, moves, justice, redaction.

Shared by every game kind. Table facts are the same for every kind (GameCreated,
SeatTaken, GameStarted, ShuffleRevealed); after the start the table hands game commands to
the game's rules and justice commands to justice (``justice/decide.py``), each of which
sees only its own part of the state. Pure: the server supplies token hashes and the secret.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from domain.codec import from_data
from domain.engine import (
    ARBITER,
    MalformedCommand,
    MatchRules,
    RuleViolation,
    Viewer,
    effective_viewer,
    replaced,
)
from domain.registry import rules_for
from domain.table import deal
from domain.table.deal import DealSource
from domain.table.facts import (
    TABLE_COMMAND_TYPES,
    ContributionRevealed,
    DealAbandoned,
    GameCreated,
    GameStarted,
    RedealOpened,
    RedealSecretsRevealed,
    RevealWithheld,
    SeatCommitted,
    SeatRekeyed,
    SeatTaken,
    ShuffleRevealed,
)
from domain.table.justice import decide as justice
from domain.table.justice import facts as J
from domain.table.justice.decide import Court, LastMove
from domain.table.justice.state import JusticeState, after_game_fact
from domain.table.justice.state import evolve as evolve_justice
from domain.table.state import Entropy, Phase, Redraw, Seat, Table

ARBITER_COMMANDS = (J.Rule, J.Redeal)
REDEAL_COMMANDS = (J.Redeal, J.AgreeRedeal)  # the commands that may order 重新洗牌发牌
DEAL_RULE = "deal"  # commit–reveal (docs/api.md, "Audit"), named in refusals
REDEAL_RULE = J.REDEAL_RULE  # the redeal's cap, named in refusals
DEFAULT_MAX_REDEALS = 1  # per match (a single game: per game), when the creator gives no cap
MAX_REDEALS = 3  # the highest cap a table may set, per match
# the justice facts whose recorded times a case's deadline and the hand's budget follow from
CLOCK_FACT_TYPES = (J.ViolationReported, J.AppealFiled, J.VoteCast, J.CaseTimedOut, J.CaseClosed)
# how long a draw waits for every seat's commitment and reveal before it is abandoned
# (DealAbandoned: the game ends void), when the creator gives no limit; and the bounds
DEFAULT_ABANDON_AFTER_MS = 600_000  # ten minutes
MIN_ABANDON_AFTER_MS = 1_000
MAX_ABANDON_AFTER_MS = 86_400_000  # one day
MAX_REKEYS = 3  # RekeySeat, per seat per game (docs/api.md, "Seat signatures")
SEAT_KEY_FIELD = "seat_public_key"  # the request field a seat key comes in, named in refusals
ARBITER_KEY_FIELD = "arbiter_public_key"  # CreateGame's field for the arbiter's key
SEAT_KEY_RULE = "seat keys"  # named in refusals of keys


# --- decide ------------------------------------------------------------------------------


def create(
    rules: Any,
    options: Any,
    seat_count: int,
    arbiter_token_hash: str,
    secret: str,
    prepared_deck: tuple[int, ...] = (),
    enforcement: J.Enforcement = J.Enforcement.REJECT,
    time_limit_ms: int = 0,
    arbitrated: bool = False,
    match_id: str = "",
    hand: int = 0,
    salt: str = "",
    seeded: bool = False,
    reveal_timeout_ms: int = 0,
    max_redeals: int = DEFAULT_MAX_REDEALS,
    case_time_limit_ms: int = J.CASE_TIME_LIMIT_MS,
    abandon_after_ms: int = DEFAULT_ABANDON_AFTER_MS,
    justice_budget_ms: int = J.DEFAULT_JUSTICE_BUDGET_MS,
    match_redeals_used: int = 0,
    match_failed_reports: tuple[int, ...] = (),
    seat_keys_required: bool = False,
    arbiter_public_key: str = "",
) -> list[Any]:
    """Open a table; in a match (``match_id``), as its hand number ``hand``. ``secret`` and
    ``salt`` come from the server (random, or the secret from a client-given seed:
    ``seeded``); a prepared deck or a seed marks the deal. ``reveal_timeout_ms`` is the
    server's reveal window, recorded (``reveal_deadline``); ``max_redeals`` caps
    重新洗牌发牌 in the match, of which a later hand's earlier hands used
    ``match_redeals_used``; ``match_failed_reports`` are each seat's failed reports in them.
    ``justice_budget_ms`` is the time cases may pause this hand in all; ``abandon_after_ms``
    is how long a draw waits for every seat's commitment and reveal before the game ends
    void (``abandon``). ``seat_keys_required``: every seat joins with a key (the server's
    tables do, unless created with allow_unkeyed_seats); then an arbitrated table needs the
    arbiter's key too (``arbiter_public_key``, 64 lowercase hex), which signs its rulings."""
    options = rules.check_options(options)
    if seat_count not in rules.seat_counts(options):
        raise MalformedCommand(
            "seat_count", f"{rules.name} is played by {rules.seat_counts(options)} seats"
        )
    if prepared_deck and sorted(prepared_deck) != sorted(rules.new_deck(options)):
        raise MalformedCommand("deck", "must be a permutation of the mode's deck")
    if not 0 <= reveal_timeout_ms <= 86_400_000:
        raise MalformedCommand("reveal_timeout_ms", "0 up to one day")
    if not 0 <= time_limit_ms <= 3_600_000:
        raise MalformedCommand("turn_time_limit_ms", "0 (no clock) up to one hour")
    if not 0 <= max_redeals <= MAX_REDEALS:
        raise MalformedCommand("max_redeals", f"0 (no redeal) up to {MAX_REDEALS} per match")
    if not 0 < case_time_limit_ms <= J.MAX_CASE_TIME_LIMIT_MS:
        raise MalformedCommand(
            "case_time_limit_ms", f"up to {J.MAX_CASE_TIME_LIMIT_MS} ms (ten minutes)"
        )
    if not 0 < justice_budget_ms <= J.MAX_JUSTICE_BUDGET_MS:
        raise MalformedCommand(
            "justice_budget_ms", f"1 up to {J.MAX_JUSTICE_BUDGET_MS} ms (one hour) per hand"
        )
    _check_match_counts(seat_count, match_redeals_used, match_failed_reports)
    # 0 only in a match's hand after a record made before the limit (as that one): no limit
    if abandon_after_ms and not MIN_ABANDON_AFTER_MS <= abandon_after_ms <= MAX_ABANDON_AFTER_MS:
        raise MalformedCommand(
            "abandon_after_ms",
            f"{MIN_ABANDON_AFTER_MS} ms up to one day ({MAX_ABANDON_AFTER_MS} ms)",
        )
    if enforcement is not J.Enforcement.REJECT and not isinstance(rules, J.PenaltyRules):
        raise MalformedCommand("enforcement", f"{rules.name} supports REJECT only")
    _check_arbiter_key(arbitrated, seat_keys_required, arbiter_public_key)
    source = DealSource.SHUFFLED
    if seeded:
        source = DealSource.PREPARED_SEED
    if prepared_deck:
        source = DealSource.PREPARED_DECK
    return [
        GameCreated(
            kind=rules.name,
            options=options,
            seat_count=seat_count,
            arbiter_token_hash=arbiter_token_hash,
            secret=secret,
            commitment=deal.commitment(secret, salt, prepared_deck),
            prepared_deck=prepared_deck,
            enforcement=enforcement,
            time_limit_ms=time_limit_ms,
            arbitrated=arbitrated,
            match_id=match_id,
            hand=hand,
            salt=salt,
            deal_source=source,
            reveal_timeout_ms=reveal_timeout_ms,
            max_redeals=max_redeals,
            case_time_limit_ms=case_time_limit_ms,
            abandon_after_ms=abandon_after_ms,
            justice_budget_ms=justice_budget_ms,
            match_redeals_used=match_redeals_used,
            match_failed_reports=match_failed_reports,
            seat_keys_required=seat_keys_required,
            arbiter_public_key=arbiter_public_key,
        )
    ]


def _check_arbiter_key(arbitrated: bool, keys_required: bool, arbiter_key: str) -> None:
    """Nobody but the table's named arbiter rules: where every seat signs, so does the
    arbiter (else whoever runs the server could rule in its place, on a token alone)."""
    if arbiter_key and not is_seat_key(arbiter_key):
        raise MalformedCommand(ARBITER_KEY_FIELD, _KEY_FORM)
    if arbiter_key and not arbitrated:
        raise MalformedCommand(ARBITER_KEY_FIELD, "a table without an arbiter takes no arbiter key")
    if arbitrated and keys_required and not arbiter_key:
        raise RuleViolation(
            "ARBITER_KEY_REQUIRED",
            ARBITER_KEY_FIELD,
            "an arbitrated table whose seats sign needs the arbiter's Ed25519 public key "
            "(arbiter_public_key), made on the referee's device: the arbiter signs its rulings",
        )


def _check_match_counts(seat_count: int, redeals: int, failed: tuple[int, ...]) -> None:
    """What a match's later hand carries over from its earlier hands."""
    if redeals < 0:
        raise MalformedCommand("match_redeals_used", "0 or more")
    if failed and (len(failed) != seat_count or min(failed) < 0):
        raise MalformedCommand("match_failed_reports", "one count (0 or more) per seat")


def take_seat(
    table: Table,
    seat: int,
    player_name: str,
    token_hash: str,
    contribution: str = "",
    commitment: str = "",
    public_key: str = "",
) -> list[Any]:
    """A seat is taken, committing to its contribution (``commitment``, revealed later
    with ``reveal``). A plain ``contribution`` (the older form) commits and reveals at once.
    ``public_key`` is the seat's Ed25519 key (64 lowercase hex): required where the table
    requires seat keys; "" takes an unkeyed seat."""
    if not 0 <= seat < table.seat_count:
        raise MalformedCommand("seat", f"seat must be 0..{table.seat_count - 1}")
    if len(player_name) > 64:
        raise MalformedCommand("player_name", "at most 64 characters")
    if len(contribution) > deal.MAX_CONTRIBUTION:
        raise MalformedCommand("contribution", f"at most {deal.MAX_CONTRIBUTION} characters")
    if commitment and not deal.is_commitment(commitment):
        raise MalformedCommand("contribution_commitment", "64 lowercase hex digits (SHA-256)")
    if commitment and contribution:
        raise MalformedCommand(
            "contribution", "send the commitment now and the contribution with its reveal"
        )
    if public_key and not is_seat_key(public_key):
        raise MalformedCommand(SEAT_KEY_FIELD, _KEY_FORM)
    if table.seat_keys_required and not public_key:
        raise RuleViolation(
            "SEAT_KEY_REQUIRED",
            SEAT_KEY_FIELD,
            "this table admits keyed seats only: join with the seat's Ed25519 public key "
            "(seat_public_key) and sign the request with it",
        )
    if table.phase is not Phase.WAITING:
        raise RuleViolation("GAME_ALREADY_STARTED", "table", "seats are fixed once dealt")
    if table.seats[seat] is not None:
        raise RuleViolation("SEAT_TAKEN", "table", f"seat {seat} is taken")
    if table.hand >= 2 and (contribution or commitment):
        # a match's later hand is seated by the server before any seat commits: a value
        # given now would be known before the hand's commitment is public
        raise RuleViolation(
            "CONTRIBUTION_TOO_EARLY",
            DEAL_RULE,
            f"hand {table.hand} of a match is seated first; its seats commit after (SeatCommitted)",
        )
    return [SeatTaken(seat, player_name, token_hash, contribution, commitment, public_key)]


_KEY_FORM = "an Ed25519 public key: 32 bytes (64 lowercase hex digits in the record)"


def is_seat_key(public_key: str) -> bool:
    """A seat key as recorded: 64 lowercase hex digits (the 32 raw bytes)."""
    return len(public_key) == 64 and all(c in "0123456789abcdef" for c in public_key)


def rekey(table: Table, seat: int, public_key: str) -> list[Any]:
    """A keyed seat replaces its key (RekeySeat: its device lost the old one), on its
    token's word: at most MAX_REKEYS times a game. The same key again changes nothing."""
    if not 0 <= seat < table.seat_count:
        raise MalformedCommand("seat", f"seat must be 0..{table.seat_count - 1}")
    if not is_seat_key(public_key):
        raise MalformedCommand(SEAT_KEY_FIELD, _KEY_FORM)
    taken = table.seats[seat]
    if taken is None or not taken.public_key:
        raise RuleViolation(
            "SEAT_NOT_KEYED", SEAT_KEY_RULE, f"seat {seat} has no key to replace (an unkeyed seat)"
        )
    if table.phase is Phase.FINISHED:
        raise RuleViolation("GAME_OVER", "table", "the game has ended")
    if taken.public_key == public_key:
        return []  # a retried re-key: already recorded
    if len(taken.rekeyed_at) >= MAX_REKEYS:
        raise RuleViolation(
            "REKEY_LIMIT",
            SEAT_KEY_RULE,
            f"seat {seat} was re-keyed {MAX_REKEYS} times in this game: no more",
        )
    return [SeatRekeyed(seat, public_key, taken.public_key)]


def commit(table: Table, seat: int, commitment: str) -> list[Any]:
    """A seat already seated commits to its contribution to the deal being drawn (a
    match's later hand, or a 重新洗牌发牌): after the draw's own commitment is public, before
    any reveal. An empty ``commitment`` adds nothing. Saying the same again changes nothing."""
    if not 0 <= seat < table.seat_count:
        raise MalformedCommand("seat", f"seat must be 0..{table.seat_count - 1}")
    if commitment and not deal.is_commitment(commitment):
        raise MalformedCommand("contribution_commitment", "64 lowercase hex digits (SHA-256)")
    _not_void(table)
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
    _not_void(table)
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
    _can_deal(table)
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


def _not_void(table: Table) -> None:
    if table.abandoned is not None:
        raise RuleViolation("GAME_VOID", DEAL_RULE, _void_words(table.abandoned))


def _can_deal(table: Table) -> None:
    _not_void(table)
    if table.redraw is None and table.phase is not Phase.WAITING:
        raise RuleViolation("GAME_ALREADY_STARTED", "table", "the game was already dealt")
    if any(s is None for s in table.seats):
        raise RuleViolation("SEATS_NOT_FILLED", "table", "every seat must be taken first")


def _seats(seats: tuple[int, ...]) -> str:
    return ", ".join(map(str, seats))


def _void_words(waiting_for: tuple[int, ...]) -> str:
    return f"void: no deal, waiting for seat(s) {_seats(waiting_for)}"


def start_withheld(table: Table) -> list[Any]:
    """The old rule, only to replay records made before issue 35 (a ``start`` cause with
    ``reveals_closed``): each awaited or pending seat recorded RevealWithheld, its
    commitment (or nothing) standing in for it, and the deal made without its entropy. The
    server never decides it any more, and verify flags every deal made so."""
    _can_deal(table)
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
        return _void_words(table.abandoned)
    parts = []
    if table.drawing:
        awaited, pending = table.awaited_commitments, table.pending_reveals
        if awaited:
            parts.append(f"waiting for seat(s) {_seats(awaited)} to commit")
        elif pending:
            parts.append(f"waiting for seat(s) {_seats(pending)} to reveal")
    parts += [f"seat {s} added no entropy" for s in table.no_entropy]
    return "; ".join(parts)


def case_deadline(table: Table, at: Mapping[int, datetime]) -> datetime | None:
    """When the open case's next step is due: the table's case limit after the fact its
    clock runs from (``Case.clock``: the opening, an awaited voter's first vote, the seats'
    timeout), and never after the hand's justice budget runs out (``budget_end``). ``at``
    maps versions to their recorded times (at least the ``CLOCK_FACT_TYPES`` facts'). At
    the deadline the server appends the case's timeout (``time_out_all``). None when no
    case is open or the table has no case deadline (records made before it, without a
    clock). A function of the record, like ``reveal_deadline``: no other fact (an
    AgreeRedeal, a seat's key, a retry) moves it."""
    limit = table.case_time_limit_ms or table.time_limit_ms
    case = table.justice.open_case
    if table.phase is not Phase.PLAYING or case is None or limit <= 0:
        return None
    deadline = at[case.clock or case.id] + timedelta(milliseconds=limit)
    end = budget_end(table, at)
    return deadline if end is None else min(deadline, end)


def justice_spent(table: Table, at: Mapping[int, datetime], now: datetime) -> timedelta:
    """How long the hand's cases have paused it by ``now``: each closed case from its
    opening to its close, and the open one up to ``now``."""
    spent = timedelta()
    for case in table.justice.cases:
        end = at[case.closed] if case.closed else now
        spent += max(timedelta(), end - at[case.id])
    return spent


def budget_end(table: Table, at: Mapping[int, datetime]) -> datetime | None:
    """When the open case has used up the hand's justice budget (None: no budget, a record
    made before it, or no open case)."""
    case = table.justice.open_case
    if table.justice_budget_ms <= 0 or case is None:
        return None
    opened = at[case.id]
    before = justice_spent(table, at, opened)  # the earlier cases' (the open one's is 0)
    return opened + timedelta(milliseconds=table.justice_budget_ms) - before


def check_justice_budget(table: Table, at: Mapping[int, datetime], now: datetime) -> None:
    """A report or an appeal opens a case only while the hand's justice budget lasts: the
    bound on how long cases pause one hand (docs/api.md, "Justice")."""
    budget = table.justice_budget_ms
    if budget > 0 and justice_spent(table, at, now) >= timedelta(milliseconds=budget):
        raise RuleViolation(
            "JUSTICE_BUDGET_SPENT",
            J.BUDGET_RULE,
            f"this hand's cases have paused it for its whole budget ({budget} ms): "
            "no more reports or appeals in this hand",
        )


def _redeal_facts(table: Table, requested_by: str, secret: str) -> list[Any]:
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


def court(table: Table, requested_by: str = "", redeal_secret: str = "") -> Court:
    """What justice may know of ``table`` to decide; a redeal it orders is asked for by
    ``requested_by`` and drawn with the server's fresh ``redeal_secret``."""
    return Court(
        justice=table.justice,
        rules=table.rules,
        game=table.game,
        seat_count=table.seat_count,
        version=table.version,
        running=table.phase is Phase.PLAYING,
        time_limit_ms=table.time_limit_ms,
        enforcement=table.enforcement,
        arbitrated=table.arbitrated,
        redeal=lambda: _redeal_facts(table, requested_by, redeal_secret),
        reshuffle=lambda cards, label: deal.reshuffle_unseen(table.deal_key, cards, label),
        case_time_limit_ms=table.case_time_limit_ms,
        legacy_redeal=table.justice.legacy,
        redeals_left=_redeals_left(table),
        redeal_cap=table.max_redeals or 0,
    )


def _redeals_left(table: Table) -> int | None:
    if table.max_redeals is None:
        return None
    used = table.match_redeals_used + len(table.redeals_requested_by)
    return max(0, table.max_redeals - used)


def play(table: Table, command: Any) -> list[Any]:
    """A game move (no justice command), with the reveal if it ends the game."""
    return with_reveal(table, _play(table, command))


def _play(table: Table, command: Any) -> list[Any]:
    if table.abandoned is not None:
        raise RuleViolation("GAME_VOID", "table", _void_words(table.abandoned))
    if table.phase is Phase.WAITING:
        raise RuleViolation("GAME_NOT_STARTED", "table", "the game has not been dealt")
    rules = table.rules
    if table.phase is Phase.FINISHED:
        # a game may take a few ritual commands after its end (花鸟风月's closing verse)
        if not isinstance(command, tuple(getattr(rules, "after_end_command_types", ()))):
            raise RuleViolation("GAME_OVER", "table", "the game has ended")
        return rules.decide(table.game, command)
    if table.paused:
        raise RuleViolation("GAME_PAUSED", "仲裁", "a report or appeal must be settled first")
    try:
        return rules.decide(table.game, command)
    except RuleViolation as error:
        if table.enforcement is J.Enforcement.REJECT or not isinstance(rules, J.PenaltyRules):
            raise
        found = rules.violation_of(table.game, command, error)
        if found is None:  # protocol-level: refused in every mode
            raise
        if table.enforcement is J.Enforcement.PLAYERS:  # honour system: stands as played
            return rules.play_as_attempt(table.game, command)
        return justice.referee(court(table), command.seat, found, error)


def act(
    table: Table, command: Any, last_move: LastMove | None = None, redeal_secret: str = ""
) -> list[Any]:
    """Decide a table command (justice) or a game move. ``last_move`` (read from the
    history) is needed only for a retraction; ``redeal_secret`` (the server's fresh one)
    only for a command that orders 重新洗牌发牌. The facts that end the game are followed by
    the reveal of the shuffle secret."""
    _not_redrawing(table)
    if table.abandoned is not None:
        raise RuleViolation("GAME_VOID", "table", _void_words(table.abandoned))
    return with_reveal(table, _decide(table, command, last_move, redeal_secret))


def _not_redrawing(table: Table) -> None:
    if table.redraw is not None:
        raise RuleViolation(
            "REDEAL_DRAWING",
            DEAL_RULE,
            "a 重新洗牌发牌 is being drawn: the seats commit and reveal, then it is dealt",
        )


def _decide(
    table: Table, command: Any, last_move: LastMove | None, redeal_secret: str
) -> list[Any]:
    if isinstance(command, J.Retract):
        return justice.retract(court(table), command, last_move)
    if isinstance(command, J.Report):
        return justice.report(court(table), command, last_move)
    if isinstance(command, J.CastVote):
        return justice.vote(court(table), command)
    if isinstance(command, J.Appeal):
        return justice.appeal(court(table), command)
    if isinstance(command, J.Rule):
        return justice.rule(court(table), command)
    if isinstance(command, J.Redeal):
        return justice.redeal(court(table, "arbiter", redeal_secret))
    if isinstance(command, J.AgreeRedeal):
        return justice.agree_redeal(court(table, "seats", redeal_secret), command)
    return _play(table, command)


def time_out_all(table: Table) -> list[Any]:
    """Every awaited seat runs out of time at once (a claim window waits on several): each
    is timed out in turn, on the state the previous one left. On an open case the case
    itself runs out of time."""
    _not_redrawing(table)  # a draw is dealt by ``start`` or abandoned, never timed out
    if table.abandoned is not None:
        return []
    if table.phase is Phase.PLAYING and table.justice.open_case is not None:
        return justice.case_timed_out(court(table))
    facts: list[Any] = []
    current = table
    for seat in table.rules.to_act(table.game):
        if current.phase is not Phase.PLAYING or seat not in current.rules.to_act(current.game):
            continue
        step = justice.timed_out(court(current), seat)
        for fact in step:
            current = evolve(current, fact)
        facts += step
    return with_reveal(table, facts)


def concurrent(kind: str, facts: list[Any], seat: int) -> bool:
    """Whether ``facts``, appended after the version a client played against, leave ``seat``'s
    move exactly as valid as it was: game facts only, each one the game calls independent of
    ``seat``'s decision (``independent_of``; 川南字牌: another seat's answer in the same claim
    window). The server then decides the move on the current state instead of ABORTING it."""
    hook = getattr(rules_for(kind), "independent_of", None)
    if hook is None or not facts:
        return False
    table_facts = (
        GameCreated,
        SeatTaken,
        ContributionRevealed,
        RevealWithheld,
        GameStarted,
        ShuffleRevealed,
        SeatCommitted,
        RedealOpened,
        RedealSecretsRevealed,
        DealAbandoned,
        SeatRekeyed,
        *J.JUSTICE_EVENT_TYPES,
    )
    return all(not isinstance(f, table_facts) and hook(f, seat) for f in facts)


def to_act(table: Table) -> tuple[int, ...]:
    """Seats the table waits for: the voters of an open case, else the game's (nobody's
    move while a redeal is drawn)."""
    if table.phase is not Phase.PLAYING or table.redraw is not None:
        return ()
    awaited = justice.awaited_voters(table.justice, table.seat_count)
    return awaited if awaited is not None else table.rules.to_act(table.game)


def legal_commands(table: Table, seat: int, last_move: LastMove | None = None) -> list[Any]:
    """Everything ``seat`` may send now: votes on an open case; else the game's moves, a
    retraction of its own last move and an appeal of a fresh penalty."""
    if table.phase is not Phase.PLAYING or table.redraw is not None:
        return []
    case = table.justice.open_case
    if case is not None:
        if seat in to_act(table):
            return [J.CastVote(seat, case.id, True), J.CastVote(seat, case.id, False)]
        return []
    legal = list(table.rules.legal_commands(table.game, seat))
    extra: list[Any] = [
        J.Appeal(seat, p.case_id, "")
        for p in table.justice.penalties
        if p.seat == seat and p.before is not None and not p.revoked
    ]
    retract = J.Retract(seat, J.MISPLAY_PHRASES[0])
    if last_move is not None and last_move.seat == seat:
        try:
            justice.retract(court(table), retract, last_move)
            extra.append(retract)
        except RuleViolation:
            pass
    return legal + extra


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


def redecide(
    table: Table,
    cause: dict[str, Any],
    first_fact: Any,
    last_move: LastMove | None = None,
    recorded: tuple[Any, ...] = (),
) -> list[Any]:
    """The facts the engine decides for a recorded cause (the audit's replay).

    A join is re-decided with the recorded name, contribution and commitment (inputs the
    engine cannot know) and no token hash: token hashes never leave the server, so the record
    holds none (records.split_private). A reveal is re-decided with the recorded contribution,
    checked against the commitment, and a later commitment with the recorded one. A
    command that orders 重新洗牌发牌 is re-decided with the secret its recorded move
    (``recorded``) opened the redeal with: the engine checks it against its commitment
    later, and the deck follows from it and the seats' fresh reveals. Everything else is
    re-decided from the cause alone."""
    action = cause["action"]
    if action == "join" and isinstance(first_fact, SeatTaken):
        f = first_fact
        return take_seat(
            table, f.seat, f.player_name, "", f.contribution, f.commitment, f.public_key
        )
    if action == "rekey" and isinstance(first_fact, SeatRekeyed):
        if cause.get("seat") != first_fact.seat:
            raise MalformedCommand("cause", "the re-key's seat is not the cause's seat")
        return rekey(table, first_fact.seat, first_fact.public_key)
    if action == "reveal" and isinstance(first_fact, ContributionRevealed):
        if cause.get("seat") != first_fact.seat:
            raise MalformedCommand("cause", "the reveal's seat is not the cause's seat")
        return reveal(table, first_fact.seat, first_fact.contribution)
    if action == "commit" and isinstance(first_fact, SeatCommitted):
        if cause.get("seat") != first_fact.seat:
            raise MalformedCommand("cause", "the commitment's seat is not the cause's seat")
        return commit(table, first_fact.seat, first_fact.commitment)
    if action == "start":
        if cause.get("reveals_closed"):  # a record made before issue 35 (verify flags it)
            return start_withheld(table)
        return start(table)
    if action == "abandon":
        return abandon(table)
    if action == "play":
        command = command_of(table.kind, cause)
        if cause["seat"] is not None and command.seat != cause["seat"]:
            raise MalformedCommand("cause", "the command's seat is not the cause's seat")
        secret = next((f.secret for f in recorded if isinstance(f, RedealOpened)), "")
        return act(table, command, last_move, secret)
    if action == "timeout":
        return time_out_all(table)
    raise MalformedCommand("cause", f"unknown action {action!r}")


def command_of(kind: str, cause: dict[str, Any]) -> Any:
    """The command a stored ``play`` cause names, decoded."""
    types = {**{t.__name__: t for t in rules_for(kind).command_types}, **TABLE_COMMAND_TYPES}
    return from_data(types[cause["command"]["type"]], cause["command"]["data"])


def last_move(
    kind: str, cause: dict[str, Any], versions: tuple[int, int], facts: Any, before: Any
) -> LastMove:
    """A stored game move as a retraction or a report of it needs it."""
    first, last = versions
    return LastMove(cause["seat"], first, last, tuple(facts), before, command_of(kind, cause))


# --- evolve ------------------------------------------------------------------------------


def evolve(table: Table | None, event: Any) -> Table:
    drew = table is not None and table.drawing
    if table is not None:
        table = replaced(table, version=table.version + 1)
    after = _apply(table, event)
    if not drew and after.drawing:  # a draw opens: its abandonment clock runs from here
        return replaced(after, draw_opened=after.version)
    return after


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
        )
    assert table is not None
    if isinstance(event, SeatTaken):
        committed = event.commitment
        if event.contribution and not committed:  # the older form: committed and revealed
            committed = deal.contribution_commitment(event.contribution)
        awaited = table.hand >= 2 and not committed  # a match's later hand: commits after
        seat = Seat(event.player_name, event.token_hash, event.contribution, committed)
        seat = dataclasses.replace(seat, awaited=awaited, public_key=event.public_key)
        first = event.seat if table.first_seat is None else table.first_seat
        return dataclasses.replace(_with_seat(table, event.seat, seat), first_seat=first)
    if isinstance(event, SeatCommitted):
        return _with_inputs(table, event.seat, commitment=event.commitment, awaited=False)
    if isinstance(event, SeatRekeyed):
        taken = table.seats[event.seat]
        assert taken is not None
        rekeyed_at = (*taken.rekeyed_at, table.version)
        keyed = dataclasses.replace(taken, public_key=event.public_key, rekeyed_at=rekeyed_at)
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
        return dataclasses.replace(
            table,
            redraw=redraw,
            redeals_requested_by=(*table.redeals_requested_by, event.requested_by),
            redeal_secrets=(*table.redeal_secrets, event.secret),
        )
    if isinstance(event, RedealSecretsRevealed):
        return table
    if isinstance(event, DealAbandoned):
        return dataclasses.replace(table, abandoned=tuple(event.waiting_for))
    if isinstance(event, ShuffleRevealed):
        return dataclasses.replace(table, revealed=True)
    if isinstance(event, GameStarted):
        table = dataclasses.replace(table, options=hand_options(table))
        return dataclasses.replace(
            table,
            game=_new_game(table, event.deck, event.seed),
            justice=JusticeState.for_seats(
                table.seat_count, table.match_failed_reports, table.justice_budget_ms <= 0
            ),
        )
    if type(event) in J.JUSTICE_EVENT_TYPES:
        justice_state, game = evolve_justice(table.justice, event, table.version, table.game)
        if isinstance(event, J.GameRedealt):  # the table deals; justice only counts it
            game = _new_game(table, event.deck, event.seed)
            table = dataclasses.replace(table, redraw=None)
        if isinstance(event, J.PenaltyRevoked) and event.deck:  # the reshuffled unseen deck
            game = table.rules.with_deck(game, event.deck)  # type: ignore[attr-defined]
        return dataclasses.replace(table, justice=justice_state, game=game)
    return replaced(
        table,
        justice=after_game_fact(table.justice),
        game=table.rules.evolve(table.game, event),
    )


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
        entropy[index] = dataclasses.replace(entropy[index], **changes)
        redraw = dataclasses.replace(table.redraw, entropy=tuple(entropy))
        return dataclasses.replace(table, redraw=redraw)
    seat = table.seats[index]
    assert seat is not None
    return _with_seat(table, index, dataclasses.replace(seat, **changes))


def _with_seat(table: Table, index: int, seat: Seat) -> Table:
    seats = list(table.seats)
    seats[index] = seat
    return dataclasses.replace(table, seats=tuple(seats))


def _new_game(table: Table, deck: tuple[int, ...], seed: int) -> Any:
    return table.rules.initial_state(table.options, table.seat_count, deck, seed)


# --- views -------------------------------------------------------------------------------


def viewer_for(table: Table, viewer: Viewer) -> Viewer:
    return effective_viewer(viewer, table.phase is Phase.FINISHED)


def redact(table_kind: str, event: Any, viewer: Viewer) -> Any:
    """``event`` as ``viewer`` may see it. Table facts hide the deck, seed and token hashes."""
    game_rules = _GAME_FACTS.get(type(event))  # most facts are a game's: no table checks
    if game_rules is not None:
        return game_rules.redact(event, viewer)
    if isinstance(event, GameStarted):
        return event if viewer == ARBITER else GameStarted((), 0)
    if isinstance(event, GameCreated):
        return dataclasses.replace(
            event, arbiter_token_hash="", secret="", salt="", prepared_deck=()
        )
    if isinstance(event, SeatTaken):  # a contribution stays hidden: see ContributionRevealed
        return dataclasses.replace(event, token_hash="", contribution="")
    if isinstance(event, ContributionRevealed):
        return dataclasses.replace(event, contribution="")
    if isinstance(
        event, RevealWithheld | SeatCommitted | RedealSecretsRevealed | DealAbandoned | SeatRekeyed
    ):
        return event
    if isinstance(event, RedealOpened):  # the secret, like the table's, only at the end
        return dataclasses.replace(event, secret="")
    if isinstance(event, J.MoveRetracted):
        return event if viewer == ARBITER else dataclasses.replace(event, restored=None)
    if isinstance(event, J.GameRedealt):
        return event if viewer == ARBITER else J.GameRedealt((), 0, event.round)
    if isinstance(event, J.PenaltyRevoked):
        return event if viewer == ARBITER else dataclasses.replace(event, deck=())
    if type(event) in J.JUSTICE_EVENT_TYPES or isinstance(event, ShuffleRevealed):
        return event
    rules = rules_for(table_kind)
    if type(event) in rules.event_types:  # each game's fact types are its own
        _GAME_FACTS[type(event)] = rules
    return rules.redact(event, viewer)


# a game's fact type -> its rules, filled by ``redact`` as the types are met
_GAME_FACTS: dict[type, Any] = {}


def prepared_marking(source: DealSource) -> str:
    """The words every surface shows for a prepared deal ("" for a shuffled one)."""
    if source is DealSource.PREPARED_DECK:
        return "prepared deal: chosen by the table's creator (a prepared deck)"
    if source is DealSource.PREPARED_SEED:
        return "prepared deal: chosen by the table's creator (a client-given seed)"
    return ""


def describe(table_kind: str, event: Any) -> str:
    if isinstance(event, GameCreated):
        opened = f"table opened: {event.kind}, {event.seat_count} seats"
        marking = prepared_marking(event.deal_source)
        return f"{opened}; {marking}" if marking else opened
    if isinstance(event, SeatTaken):
        committed = ", committed to a contribution" if event.commitment else ""
        return f"seat {event.seat} taken by {event.player_name or 'anonymous'}{committed}"
    if isinstance(event, ContributionRevealed):
        return f"seat {event.seat} revealed its contribution"
    if isinstance(event, RevealWithheld):
        return (
            f"seat {event.seat}'s entropy did not go in (withheld: a record made before "
            "issue 35): its commitment (or nothing) stood in for it"
        )
    if isinstance(event, DealAbandoned):
        which = "the deal" if event.round == 0 else f"重新洗牌发牌 {event.round}"
        return f"{which} abandoned; {_void_words(tuple(event.waiting_for))}"
    if isinstance(event, SeatRekeyed):
        return (
            f"seat {event.seat} re-keyed (key {event.public_key[:16]}…, replacing "
            f"{event.old_public_key[:16]}…): its later commands stand on a key the server "
            "accepted on the seat token's word"
        )
    if isinstance(event, SeatCommitted):
        if not event.commitment:
            return f"seat {event.seat} committed to nothing: seat {event.seat} added no entropy"
        return f"seat {event.seat} committed to a contribution"
    if isinstance(event, RedealOpened):
        by = "the arbiter" if event.requested_by == "arbiter" else "every seat"
        return (
            f"重新洗牌发牌 {event.round} asked for by {by}: drawn through a fresh "
            f"commit–reveal (commitment {event.commitment[:12]}…)"
        )
    if isinstance(event, RedealSecretsRevealed):
        return f"redeal secrets revealed: {', '.join(event.secrets)}"
    if isinstance(event, GameStarted):
        return "game started: cards dealt" + ("" if event.deck else " (deck hidden)")
    if isinstance(event, ShuffleRevealed):
        return f"shuffle secret revealed: {event.secret}"
    if type(event) in J.JUSTICE_EVENT_TYPES:
        return justice.describe(event)
    return rules_for(table_kind).describe(event)
