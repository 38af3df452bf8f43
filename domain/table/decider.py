"""The table around a game, as a Decider: seats, the start, moves, justice, redaction.

Shared by every game kind. Table facts are the same for every kind (GameCreated,
SeatTaken, GameStarted, ShuffleRevealed); after the start the table hands game commands to
the game's rules and justice commands to justice (``justice/decide.py``), each of which
sees only its own part of the state. Pure: the server supplies token hashes and the secret.
"""

from __future__ import annotations

import dataclasses
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
)
from domain.registry import rules_for
from domain.table import deal
from domain.table.deal import DealSource
from domain.table.facts import (
    TABLE_COMMAND_TYPES,
    ContributionRevealed,
    GameCreated,
    GameStarted,
    RevealWithheld,
    SeatTaken,
    ShuffleRevealed,
)
from domain.table.justice import decide as justice
from domain.table.justice import facts as J
from domain.table.justice.decide import Court, LastMove
from domain.table.justice.state import JusticeState, after_game_fact
from domain.table.justice.state import evolve as evolve_justice
from domain.table.state import Phase, Seat, Table

ARBITER_COMMANDS = (J.Rule, J.Redeal)
DEAL_RULE = "deal"  # commit–reveal (docs/api.md, "Audit"), named in refusals


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
) -> list[Any]:
    """Open a table; in a match (``match_id``), as its hand number ``hand``. ``secret`` and
    ``salt`` come from the server (random, or the secret from a client-given seed:
    ``seeded``); a prepared deck or a seed marks the deal. ``reveal_timeout_ms`` is the
    server's reveal window, recorded (``reveal_deadline``)."""
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
    if enforcement is not J.Enforcement.REJECT and not isinstance(rules, J.PenaltyRules):
        raise MalformedCommand("enforcement", f"{rules.name} supports REJECT only")
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
        )
    ]


def take_seat(
    table: Table,
    seat: int,
    player_name: str,
    token_hash: str,
    contribution: str = "",
    commitment: str = "",
) -> list[Any]:
    """A seat is taken, committing to its contribution (``commitment``, revealed later
    with ``reveal``). A plain ``contribution`` (the older form) commits and reveals at once."""
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
    if table.phase is not Phase.WAITING:
        raise RuleViolation("GAME_ALREADY_STARTED", "table", "seats are fixed once dealt")
    if table.seats[seat] is not None:
        raise RuleViolation("SEAT_TAKEN", "table", f"seat {seat} is taken")
    return [SeatTaken(seat, player_name, token_hash, contribution, commitment)]


def reveal(table: Table, seat: int, contribution: str) -> list[Any]:
    """The seat reveals the contribution it committed to; nothing if it already did.

    Only once every seat has committed (all seats taken), so nobody commits after seeing
    a reveal; and only the committed value, so nobody changes its mind after."""
    if not 0 <= seat < table.seat_count:
        raise MalformedCommand("seat", f"seat must be 0..{table.seat_count - 1}")
    if not 0 < len(contribution) <= deal.MAX_CONTRIBUTION:
        raise MalformedCommand("contribution", f"1 to {deal.MAX_CONTRIBUTION} characters")
    if table.phase is not Phase.WAITING:
        raise RuleViolation("GAME_ALREADY_STARTED", DEAL_RULE, "the deal is already made")
    if any(s is None for s in table.seats):
        raise RuleViolation(
            "REVEAL_TOO_EARLY", DEAL_RULE, "reveals come once every seat has committed"
        )
    taken = table.seats[seat]
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


def start(table: Table, reveals_closed: bool = False) -> list[Any]:
    """GameStarted and the game's opening facts (the deal).

    While a committed seat has not revealed, the deal waits; once the server closes the
    reveal window (``reveals_closed``), each such seat is recorded as RevealWithheld and its
    commitment stands in for its contribution. Either way the deck follows from inputs
    fixed before anyone revealed: withholding changes nothing a seat could choose."""
    if table.phase is not Phase.WAITING:
        raise RuleViolation("GAME_ALREADY_STARTED", "table", "the game was already dealt")
    if any(s is None for s in table.seats):
        raise RuleViolation("SEATS_NOT_FILLED", "table", "every seat must be taken first")
    pending = table.pending_reveals
    if pending and not reveals_closed:
        seats = ", ".join(map(str, pending))
        raise RuleViolation(
            "REVEALS_PENDING",
            DEAL_RULE,
            f"seat(s) {seats} have not revealed their contributions; the deal waits for them "
            "until the reveal window closes",
        )
    facts: list[Any] = [RevealWithheld(s) for s in pending]
    current = table
    for fact in facts:
        current = evolve(current, fact)
    key = current.deal_key
    deck = table.prepared_deck or deal.deck_for_round(key, table.rules.new_deck(table.options), 0)
    started = GameStarted(deck, deal.seed_for_round(key, 0))
    return [*facts, started, *table.rules.deal(evolve(current, started).game)]


def reveal_deadline(table: Table, since: datetime) -> datetime | None:
    """When the deal stops waiting for pending reveals: the table's recorded reveal window
    after ``since``, the time its latest fact was recorded (the last seat taken or the
    latest reveal). None while seats are open or when nothing is pending. A function of the
    record, so a view's deadline is part of what its receipt proves."""
    if table.phase is not Phase.WAITING or any(s is None for s in table.seats):
        return None
    if not table.pending_reveals:
        return None
    return since + timedelta(milliseconds=table.reveal_timeout_ms)


def _redeal_facts(table: Table) -> list[Any]:
    """重新洗牌发牌: a fresh deck from the committed randomness, and the game's deal."""
    rules = table.rules
    n = table.justice.redeals + 1
    key = table.deal_key
    deck = deal.deck_for_round(key, rules.new_deck(table.options), n)
    redealt = J.GameRedealt(deck, deal.seed_for_round(key, n), n)
    return [redealt, *rules.deal(evolve(table, redealt).game)]


def court(table: Table) -> Court:
    """What justice may know of ``table`` to decide."""
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
        redeal=lambda: _redeal_facts(table),
        reshuffle=lambda cards, label: deal.reshuffle_unseen(table.deal_key, cards, label),
    )


def play(table: Table, command: Any) -> list[Any]:
    """A game move (no justice command), with the reveal if it ends the game."""
    return with_reveal(table, _play(table, command))


def _play(table: Table, command: Any) -> list[Any]:
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


def act(table: Table, command: Any, last_move: LastMove | None = None) -> list[Any]:
    """Decide a table command (justice) or a game move. ``last_move`` (read from the
    history) is needed only for a retraction. The facts that end the game are followed by
    the reveal of the shuffle secret."""
    return with_reveal(table, _decide(table, command, last_move))


def _decide(table: Table, command: Any, last_move: LastMove | None) -> list[Any]:
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
        return justice.redeal(court(table))
    if isinstance(command, J.AgreeRedeal):
        return justice.agree_redeal(court(table), command)
    return _play(table, command)


def time_out_all(table: Table) -> list[Any]:
    """Every awaited seat runs out of time at once (a claim window waits on several): each
    is timed out in turn, on the state the previous one left. On an open case the case
    itself runs out of time."""
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
        *J.JUSTICE_EVENT_TYPES,
    )
    return all(not isinstance(f, table_facts) and hook(f, seat) for f in facts)


def to_act(table: Table) -> tuple[int, ...]:
    """Seats the table waits for: the voters of an open case, else the game's."""
    if table.phase is not Phase.PLAYING:
        return ()
    awaited = justice.awaited_voters(table.justice, table.seat_count)
    return awaited if awaited is not None else table.rules.to_act(table.game)


def legal_commands(table: Table, seat: int, last_move: LastMove | None = None) -> list[Any]:
    """Everything ``seat`` may send now: votes on an open case; else the game's moves, a
    retraction of its own last move and an appeal of a fresh penalty."""
    if table.phase is not Phase.PLAYING:
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
        return [*facts, ShuffleRevealed(table.secret, table.salt)]
    return facts


def redecide(
    table: Table, cause: dict[str, Any], first_fact: Any, last_move: LastMove | None = None
) -> list[Any]:
    """The facts the engine decides for a recorded cause (the audit's replay).

    A join is re-decided with the recorded name, contribution and commitment (inputs the
    engine cannot know) and no token hash: token hashes never leave the server, so the record
    holds none (records.split_private). A reveal is re-decided with the recorded contribution,
    checked against the commitment. Everything else is re-decided from the cause alone."""
    action = cause["action"]
    if action == "join" and isinstance(first_fact, SeatTaken):
        f = first_fact
        return take_seat(table, f.seat, f.player_name, "", f.contribution, f.commitment)
    if action == "reveal" and isinstance(first_fact, ContributionRevealed):
        if cause.get("seat") != first_fact.seat:
            raise MalformedCommand("cause", "the reveal's seat is not the cause's seat")
        return reveal(table, first_fact.seat, first_fact.contribution)
    if action == "start":
        return start(table, reveals_closed=bool(cause.get("reveals_closed")))
    if action == "play":
        command = command_of(table.kind, cause)
        if cause["seat"] is not None and command.seat != cause["seat"]:
            raise MalformedCommand("cause", "the command's seat is not the cause's seat")
        return act(table, command, last_move)
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
    if table is not None:
        table = dataclasses.replace(table, version=table.version + 1)
    return _apply(table, event)


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
        )
    assert table is not None
    if isinstance(event, SeatTaken):
        committed = event.commitment
        if event.contribution and not committed:  # the older form: committed and revealed
            committed = deal.contribution_commitment(event.contribution)
        seat = Seat(event.player_name, event.token_hash, event.contribution, committed)
        first = event.seat if table.first_seat is None else table.first_seat
        return dataclasses.replace(_with_seat(table, event.seat, seat), first_seat=first)
    if isinstance(event, ContributionRevealed):
        revealing = table.seats[event.seat]
        assert revealing is not None
        revealed = dataclasses.replace(revealing, contribution=event.contribution)
        return _with_seat(table, event.seat, revealed)
    if isinstance(event, RevealWithheld):
        withholding = table.seats[event.seat]
        assert withholding is not None
        return _with_seat(table, event.seat, dataclasses.replace(withholding, withheld=True))
    if isinstance(event, ShuffleRevealed):
        return dataclasses.replace(table, revealed=True)
    if isinstance(event, GameStarted):
        table = dataclasses.replace(table, options=hand_options(table))
        return dataclasses.replace(
            table,
            game=_new_game(table, event.deck, event.seed),
            justice=JusticeState.for_seats(table.seat_count),
        )
    if type(event) in J.JUSTICE_EVENT_TYPES:
        justice_state, game = evolve_justice(table.justice, event, table.version, table.game)
        if isinstance(event, J.GameRedealt):  # the table deals; justice only counts it
            game = _new_game(table, event.deck, event.seed)
        if isinstance(event, J.PenaltyRevoked) and event.deck:  # the reshuffled unseen deck
            game = table.rules.with_deck(game, event.deck)  # type: ignore[attr-defined]
        return dataclasses.replace(table, justice=justice_state, game=game)
    return dataclasses.replace(
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
    if isinstance(event, RevealWithheld):
        return event
    if isinstance(event, J.MoveRetracted):
        return event if viewer == ARBITER else dataclasses.replace(event, restored=None)
    if isinstance(event, J.GameRedealt):
        return event if viewer == ARBITER else J.GameRedealt((), 0, event.round)
    if isinstance(event, J.PenaltyRevoked):
        return event if viewer == ARBITER else dataclasses.replace(event, deck=())
    if type(event) in J.JUSTICE_EVENT_TYPES or isinstance(event, ShuffleRevealed):
        return event
    return rules_for(table_kind).redact(event, viewer)


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
            f"seat {event.seat} did not reveal its contribution in time: "
            "its commitment stands in for it"
        )
    if isinstance(event, GameStarted):
        return "game started: cards dealt" + ("" if event.deck else " (deck hidden)")
    if isinstance(event, ShuffleRevealed):
        return f"shuffle secret revealed: {event.secret}"
    if type(event) in J.JUSTICE_EVENT_TYPES:
        return justice.describe(event)
    return rules_for(table_kind).describe(event)
