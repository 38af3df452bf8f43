"""The table around a game, as a Decider: seats, moves, justice, and a cause re-decided.

Shared by every game kind. Table facts are the same for every kind (GameCreated,
SeatTaken, GameStarted, ShuffleRevealed); after the start the table hands game commands to
the game's rules and justice commands to justice (``justice/decide.py``), each of which
sees only its own part of the state. Pure: the server supplies token hashes and the secret.

The floors under it: the deal's draw (``draw``: commit, reveal, the deal, abandonment,
redeals' draws), the table's evolve (``evolution``). Redaction and description
(``redaction``) and the justice clock (``clock``) stand beside it.
"""

from __future__ import annotations

from typing import Any

from domain.codec import from_data
from domain.engine import MalformedCommand, RuleViolation
from domain.registry import rules_for
from domain.table import deal
from domain.table.deal import DealSource
from domain.table.draw import (
    DEAL_RULE,
    DEFAULT_ABANDON_AFTER_MS,
    DEFAULT_MAX_REDEALS,
    MAX_ABANDON_AFTER_MS,
    MAX_REDEALS,
    MIN_ABANDON_AFTER_MS,
    abandon,
    commit,
    not_redrawing,
    redeal_facts,
    redeals_left,
    reveal,
    start,
    start_withheld,
    void_words,
    with_reveal,
)
from domain.table.evolution import evolve
from domain.table.facts import (
    TABLE_COMMAND_TYPES,
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
from domain.table.justice import decide as justice
from domain.table.justice import facts as J
from domain.table.justice.decide import Court, LastMove
from domain.table.justice.verdict import awaited_voters
from domain.table.state import Phase, Table

ARBITER_COMMANDS = (J.Rule, J.Redeal)
REDEAL_COMMANDS = (J.Redeal, J.AgreeRedeal)  # the commands that may order 重新洗牌发牌
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
    match_settings: tuple[int, int, str] = (0, 0, ""),
    player_login_required: bool = False,
    reserved_players: tuple[str, ...] = (),
    app: str = "",
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
    arbiter's key too (``arbiter_public_key``, 64 lowercase hex), which signs its rulings.
    ``match_settings``: a match's hand names its match's (hands, target_score, advance).
    ``player_login_required``: every seat is taken by a player signed in with the app's login
    (``take_seat``'s ``player``). ``reserved_players``: per seat, the player id only whose
    login may take it ("": open), as the lobby's matchmaker seated them. ``app``: the app
    (its login's client id) whose table this is, "" for none."""
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
    _check_reservations(seat_count, reserved_players)
    if len(app) > MAX_PLAYER_ID:
        raise MalformedCommand("app", f"an app's client id of at most {MAX_PLAYER_ID} characters")
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
            match_hands=match_settings[0],
            match_target_score=match_settings[1],
            match_advance=match_settings[2],
            player_login_required=player_login_required,
            reserved_players=reserved_players,
            app=app,
        )
    ]


def _check_reservations(seat_count: int, reserved: tuple[str, ...]) -> None:
    if not reserved:
        return
    named = [p for p in reserved if p]
    if len(reserved) != seat_count or not named:
        raise MalformedCommand("reserved_players", 'one player id or "" per seat, one at least')
    if len(set(named)) != len(named) or max(map(len, named)) > MAX_PLAYER_ID:
        raise MalformedCommand(
            "reserved_players", f"distinct player ids of at most {MAX_PLAYER_ID} characters"
        )


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
    player: str = "",
    app: str = "",
) -> list[Any]:
    """A seat is taken, committing to its contribution (``commitment``, revealed later
    with ``reveal``). A plain ``contribution`` (the older form) commits and reveals at once.
    ``public_key`` is the seat's Ed25519 key (64 lowercase hex): required where the table
    requires seat keys; "" takes an unkeyed seat. ``player`` is the player id of the app
    login taking the seat (the server checked the login; "": none): required where the
    table requires player logins, and a player holds at most one seat at a table (one
    login never acts for two seats)."""
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
    _check_reservation(table, seat, player)
    _check_app(table, app)
    _check_player(table, player)
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
    return [SeatTaken(seat, player_name, token_hash, contribution, commitment, public_key, player)]


PLAYER_RULE = "player logins"  # named in refusals of a seat's player
MAX_PLAYER_ID = 128  # characters: the server's ids are 64 hex digits


def _check_player(table: Table, player: str) -> None:
    if len(player) > MAX_PLAYER_ID:
        raise MalformedCommand("player", f"a player id of at most {MAX_PLAYER_ID} characters")
    if table.player_login_required and not player:
        raise RuleViolation(
            "PLAYER_LOGIN_REQUIRED",
            PLAYER_RULE,
            "this table seats signed-in players only: join with the app's login "
            "(authorization: Bearer <token>)",
        )
    held = table.seat_of(player)
    if held is not None:
        raise RuleViolation(
            "PLAYER_SEATED", PLAYER_RULE, f"this player already holds seat {held} at this table"
        )


RESERVATION_RULE = "seat reservations"  # named in refusals of a reserved seat
APP_RULE = "an app's tables"  # named in refusals of another app's login


def _check_app(table: Table, app: str) -> None:
    """A login of another app takes no seat at an app's table (GameCreated.app): the table's
    notices go to its app's backend only, and that app would never hear of the stranger.
    ``app`` is the login's (its client id, signed by the identity provider); the record does
    not keep it, so the server decides this at the door and the verifiers do not re-decide
    it (take_seat with no ``app``), as they do not re-check a login's token."""
    if app and table.app and app != table.app:
        raise RuleViolation(
            "OTHER_APP",
            APP_RULE,
            f"this table is app {table.app}'s: a login of app {app} takes no seat at it",
        )


def _check_reservation(table: Table, seat: int, player: str) -> None:
    """A seat the lobby reserved is taken by its player's login only, and that player
    takes no other seat: nobody else holding the game id takes a seat meant for someone."""
    kept_for = table.reservation(seat)
    if kept_for and player != kept_for:
        raise RuleViolation(
            "SEAT_RESERVED",
            RESERVATION_RULE,
            f"seat {seat} is reserved for the player the lobby seated there: only that "
            "player's login takes it",
        )
    if player and not kept_for and player in table.reserved_players:
        mine = table.reserved_players.index(player)
        raise RuleViolation(
            "SEAT_RESERVED",
            RESERVATION_RULE,
            f"the lobby seated this player at seat {mine}, not seat {seat}",
        )


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


HAND_RULE = "match"  # named in refusals of HandClosed


def close_hand(table: Table, last: bool, next_game_id: str = "") -> list[Any]:
    """A match's hand, once ended, says what its match decided follows it (issue 36): it
    was the match's last hand (``last``), or the next hand is game ``next_game_id``. The
    server's move, once per hand, after the hand's end (its shuffle secret revealed); the
    hand's stream takes nothing after it. The match decides ``last`` and the next game's id
    (domain/match ``close_hand``); the verifiers check them against the match's record."""
    if not table.match_id:
        raise RuleViolation("NOT_A_MATCH", HAND_RULE, "this table plays one hand: nothing to close")
    if table.phase is not Phase.FINISHED or not table.revealed:
        raise RuleViolation("HAND_RUNNING", HAND_RULE, f"hand {table.hand} has not ended")
    if table.closed is not None:
        raise RuleViolation("HAND_CLOSED", HAND_RULE, f"hand {table.hand} was already closed")
    if last and next_game_id:
        raise MalformedCommand("next_game_id", "the last hand names no next hand")
    if not last and not next_game_id:
        raise MalformedCommand("next_game_id", "a hand the match goes on after names the next")
    return [HandClosed(table.match_id, table.hand, last, next_game_id)]


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
        redeal=lambda: redeal_facts(table, requested_by, redeal_secret),
        reshuffle=lambda cards, label: deal.reshuffle_unseen(table.deal_key, cards, label),
        case_time_limit_ms=table.case_time_limit_ms,
        legacy_redeal=table.justice.legacy,
        redeals_left=redeals_left(table),
        redeal_cap=table.max_redeals or 0,
    )


def play(table: Table, command: Any) -> list[Any]:
    """A game move (no justice command), with the reveal if it ends the game."""
    return with_reveal(table, _play(table, command))


def _play(table: Table, command: Any) -> list[Any]:
    if table.abandoned is not None:
        raise RuleViolation("GAME_VOID", "table", void_words(table.abandoned))
    if table.phase is Phase.WAITING:
        raise RuleViolation("GAME_NOT_STARTED", "table", "the game has not been dealt")
    rules = table.rules
    if table.closed is not None:
        raise RuleViolation("GAME_OVER", "table", f"hand {table.hand} has ended and is closed")
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
    not_redrawing(table)
    if table.abandoned is not None:
        raise RuleViolation("GAME_VOID", "table", void_words(table.abandoned))
    return with_reveal(table, _decide(table, command, last_move, redeal_secret))


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
    not_redrawing(table)  # a draw is dealt by ``start`` or abandoned, never timed out
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
        HandClosed,
        *J.JUSTICE_EVENT_TYPES,
    )
    return all(not isinstance(f, table_facts) and hook(f, seat) for f in facts)


def to_act(table: Table) -> tuple[int, ...]:
    """Seats the table waits for: the voters of an open case, else the game's (nobody's
    move while a redeal is drawn)."""
    if table.phase is not Phase.PLAYING or table.redraw is not None:
        return ()
    awaited = awaited_voters(table.justice, table.seat_count)
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
            table, f.seat, f.player_name, "", f.contribution, f.commitment, f.public_key, f.player
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
    if action == "close" and isinstance(first_fact, HandClosed):
        return close_hand(table, first_fact.last, first_fact.next_game_id)
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
