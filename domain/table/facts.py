"""The table's own facts: the same for every game kind."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.table.deal import DealSource
from domain.table.justice import facts as J


@dataclass(frozen=True)
class GameCreated:
    """The table was opened for ``kind`` with these options and seats."""

    kind: str
    options: Any  # the game's options_type
    seat_count: int
    arbiter_token_hash: str
    secret: str  # the server's shuffle secret: hidden until the game ends
    commitment: str  # public: deal.commitment(secret, salt, prepared_deck)
    prepared_deck: tuple[int, ...]  # a prepared deal, or () to shuffle
    enforcement: J.Enforcement = J.Enforcement.REJECT
    time_limit_ms: int = 0  # per action; 0 = no clock
    arbitrated: bool = False  # an arbiter rules on disputes (else they close UNRESOLVED)
    match_id: str = ""  # the match this table is a hand of (domain/match/), or ""
    hand: int = 0  # the hand's number in its match, from 1 (0: not in a match)
    salt: str = ""  # random, hidden until the game ends: the commitment never reveals a seed
    deal_source: DealSource = DealSource.SHUFFLED  # public: a prepared deal is marked
    # public: how long after the latest seat or reveal the deal waits for pending reveals
    # (the server's setting, recorded so every view's deadline follows from the record)
    reveal_timeout_ms: int = 0
    # public: at most this many 重新洗牌发牌 in this game's match (a single game: in it);
    # None in records made before the cap existed (no cap then)
    max_redeals: int | None = None
    # public: how long an open case waits for its next step (a vote, the arbiter's ruling)
    # before the server times it out; 0 in records made before case deadlines (then the
    # table's clock, if any)
    case_time_limit_ms: int = 0
    # public: how long a draw (the first deal, a match's later hand, a redeal) waits for
    # every seat's commitment and reveal, from the fact that opened it, before the server
    # abandons it (DealAbandoned: the game ends void); 0 in records made before issue 35
    abandon_after_ms: int = 0
    # public: the time cases may pause this hand in all (reports and appeals are refused
    # once spent, and an open case runs out at it); 0 in records made before it, which
    # also keep the justice rules they were played under (the arbiter's Redeal)
    justice_budget_ms: int = 0
    # public, a match's later hand: the redeals its earlier hands made (they count toward
    # max_redeals, per match) and each seat's failed reports in them (toward REPORT_LIMIT)
    match_redeals_used: int = 0
    match_failed_reports: tuple[int, ...] = ()
    # public: every seat joins with an Ed25519 key and signs its commands (docs/api.md,
    # "Seat signatures"); False in records made before seat keys (unkeyed seats then), and
    # at a table created with allow_unkeyed_seats
    seat_keys_required: bool = False
    # public: the arbiter's Ed25519 key (64 lowercase hex), which signs its every command
    # (rulings, its StartGame); "" without an arbiter, at a table that admits unkeyed seats
    # whose arbiter did not send one, and in records made before arbiter keys (the
    # arbiter's commands then stand on the server's word)
    arbiter_public_key: str = ""
    # public, a match's hand: the match's settings (MatchCreated's hands, target_score and
    # advance, by name), signed in the hand's first seal with its match_id and number, so a
    # hand cannot be presented under another match's settings; 0, 0 and "" outside a match
    # and in records made before issue 36
    match_hands: int = 0
    match_target_score: int = 0
    match_advance: str = ""
    # public: every seat is taken by a player signed in with the app's own login (issue 40):
    # each SeatTaken names its player; False at tables whose seats stand on seat tokens alone
    # and in records made before player logins
    player_login_required: bool = False
    # public, a table the lobby formed (issue 40): per seat, the player id the matchmaker
    # seated there, which only that player's login may take ("": a seat open to anyone, a
    # bot's); () at every other table and in records made before reservations. A reserved
    # seat nobody takes keeps the draw waiting from this fact on: after abandon_after_ms
    # the game ends void (DealAbandoned names the empty reserved seats)
    reserved_players: tuple[str, ...] = ()
    # public: the app whose table this is (issue 40): the client id (azp) of the login that
    # opened it or queued for it, as the identity provider signed it; its webhooks go to
    # that app's endpoints only. "": no app (CreateGame's tables, and records before apps)
    app: str = ""


@dataclass(frozen=True)
class SeatTaken:
    """A player took ``seat``."""

    seat: int
    player_name: str
    token_hash: str
    contribution: str  # legacy: a contribution revealed at once (hidden until the end)
    commitment: str = ""  # public: deal.contribution_commitment(the seat's contribution)
    public_key: str = ""  # public: the seat's Ed25519 key, 64 lowercase hex; "": unkeyed
    # public: the player id of the app login that took the seat (a hash of the login's
    # issuer and subject, docs/api.md "Players"); "": a seat taken without a login
    player: str = ""


@dataclass(frozen=True)
class SeatRekeyed:
    """``seat``'s key was replaced by ``public_key`` (RekeySeat, on the seat token's word):
    its later commands are signed by the new key."""

    seat: int
    public_key: str  # 64 lowercase hex
    old_public_key: str


@dataclass(frozen=True)
class SeatCommitted:
    """``seat``, already seated, committed to its contribution to the deal being drawn: a
    match's later hand (its seats are carried over, so they commit after the hand's
    commitment is public) or a 重新洗牌发牌. An empty ``commitment`` adds nothing."""

    seat: int
    commitment: str


@dataclass(frozen=True)
class RedealOpened:
    """重新洗牌发牌 was asked for (``requested_by``: "arbiter" or "seats"): the redeal number
    ``round`` is drawn through a fresh commit–reveal. ``commitment`` is public now;
    ``secret``, the server's fresh secret for it, is hidden until the game ends."""

    round: int
    requested_by: str
    commitment: str
    secret: str


@dataclass(frozen=True)
class RedealSecretsRevealed:
    """The game ended: the secrets of its redeals, in order, so anyone can check each
    redeal's commitment and recompute its deck."""

    secrets: tuple[str, ...]


@dataclass(frozen=True)
class ContributionRevealed:
    """``seat`` revealed the contribution it committed to (the value is hidden until the
    end, from everyone: the last to reveal learns nothing from the others)."""

    seat: int
    contribution: str


@dataclass(frozen=True)
class RevealWithheld:
    """The old form (records made before issue 35): ``seat`` did not reveal (or, seated
    first, commit) in time and its commitment (or nothing) stood in for it. No new record
    holds one: a deal is made from every seat's entropy or not at all (DealAbandoned)."""

    seat: int


@dataclass(frozen=True)
class DealAbandoned:
    """The draw ``round`` (0: the first deal; n: the n-th 重新洗牌发牌) waited the table's
    abandonment limit (GameCreated.abandon_after_ms) for the seats ``waiting_for`` to
    commit or reveal: no deal is made and the game ends void (no winner, no scores). A
    match's hand abandoned so ends the match incomplete."""

    waiting_for: tuple[int, ...]
    round: int = 0


@dataclass(frozen=True)
class GameStarted:
    """The deck was fixed (from chance or a prepared deal) and the game began. ``seed`` is
    the game's own seed for its in-game chance, derived like the deck."""

    deck: tuple[int, ...]
    seed: int


@dataclass(frozen=True)
class ShuffleRevealed:
    """The game ended; the shuffle secret is revealed so anyone can check the deal."""

    secret: str
    salt: str = ""


@dataclass(frozen=True)
class HandClosed:
    """A match's hand, after its end: the match decided what follows, and the hand's own
    signed stream says it (issue 36). ``last``: the match ended with this hand (complete or
    incomplete); else ``next_game_id`` names the next hand's game. The hand's last fact:
    nothing follows it on the hand's stream."""

    match_id: str
    hand: int
    last: bool
    next_game_id: str = ""  # "" when last


TABLE_EVENT_TYPES: dict[str, type] = {
    t.__name__: t
    for t in (
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
}
TABLE_COMMAND_TYPES: dict[str, type] = {t.__name__: t for t in J.TABLE_COMMAND_TYPES}
