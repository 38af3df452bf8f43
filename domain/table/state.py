"""The table's state: seats, settings, the game's state and justice's state side by side."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from domain.engine import GameRules, Outcome
from domain.registry import rules_for
from domain.table import deal
from domain.table.deal import DealSource
from domain.table.justice import facts as J
from domain.table.justice.state import JusticeState

VOID = "VOID"  # the outcome's reason when a draw was abandoned (DealAbandoned)


class Phase(enum.Enum):
    WAITING = 1
    PLAYING = 2
    FINISHED = 3


class _DealInput:
    """A seat's input to a deal: its commitment, its reveal, and whether it was withheld or is
    still awaited (``Seat`` for the first deal, ``Entropy`` for a 重新洗牌发牌)."""

    commitment: str
    contribution: str
    withheld: bool
    awaited: bool

    @property
    def status(self) -> deal.Contribution:
        if self.awaited:
            return deal.Contribution.AWAITED
        if self.contribution and self.commitment:
            return deal.Contribution.REVEALED
        if self.withheld:
            return deal.Contribution.WITHHELD
        return deal.Contribution.PENDING if self.commitment else deal.Contribution.NONE

    @property
    def entry(self) -> str:
        """This input to the table key (deal.entry)."""
        return deal.entry(self.commitment, self.contribution or None, self.withheld)


@dataclass(frozen=True)
class Seat(_DealInput):
    player_name: str
    token_hash: str  # sha256 of the seat token; the token itself is never stored
    contribution: str  # the seat's revealed contribution ("" until revealed)
    commitment: str = ""  # its commitment ("" when it committed to nothing)
    withheld: bool = False  # not revealed (or not committed) in time
    awaited: bool = False  # seated first (a match's later hand): its commitment is to come
    public_key: str = ""  # the seat's current Ed25519 key (64 hex); "": an unkeyed seat
    rekeyed_at: tuple[int, ...] = ()  # the versions of its SeatRekeyed facts, oldest first
    player: str = ""  # the player id of the login that took the seat (SeatTaken); "": none


@dataclass(frozen=True)
class Entropy(_DealInput):
    """A seat's fresh input to a 重新洗牌发牌, as ``Seat`` holds its input to the first deal."""

    commitment: str = ""
    contribution: str = ""
    withheld: bool = False
    awaited: bool = True


@dataclass(frozen=True)
class Redraw:
    """A 重新洗牌发牌 being drawn: the game pauses until the seats' fresh reveals are in (or
    their windows closed); then ``start`` deals it."""

    round: int
    requested_by: str  # "arbiter" or "seats"
    secret: str  # the server's fresh secret (hidden until the end)
    commitment: str  # deal.commitment(secret): public from RedealOpened on
    entropy: tuple[Entropy, ...]  # per seat

    @property
    def key(self) -> bytes:
        return deal.table_key(self.secret, tuple(e.entry for e in self.entropy))


@dataclass(frozen=True)
class Table:
    kind: str
    options: Any
    seat_count: int
    arbiter_token_hash: str
    secret: str
    commitment: str
    prepared_deck: tuple[int, ...]
    seats: tuple[Seat | None, ...]
    game: Any = None  # the game's state once started
    revealed: bool = False
    version: int = 0  # facts applied so far (= the stream version)
    enforcement: J.Enforcement = J.Enforcement.REJECT
    time_limit_ms: int = 0
    arbitrated: bool = False
    justice: JusticeState = JusticeState()
    match_id: str = ""  # the match this table is a hand of, or ""
    hand: int = 0  # the hand's number in its match, from 1
    first_seat: int | None = None  # the first seat taken (川南字牌: 首进入房间的玩家坐庄)
    salt: str = ""
    deal_source: DealSource = DealSource.SHUFFLED
    reveal_timeout_ms: int = 0  # the recorded reveal window (GameCreated)
    max_redeals: int | None = None  # the cap on 重新洗牌发牌 (None: an old record, no cap)
    case_time_limit_ms: int = 0  # an open case's deadline (GameCreated; 0: an old record)
    justice_budget_ms: int = 0  # the time cases may pause this hand (GameCreated; 0: old)
    match_redeals_used: int = 0  # redeals in the match's earlier hands (GameCreated)
    match_failed_reports: tuple[int, ...] = ()  # per seat, in the earlier hands (GameCreated)
    redraw: Redraw | None = None  # a 重新洗牌发牌 being drawn
    redeals_requested_by: tuple[str, ...] = ()  # who asked for each redeal, in order
    redeal_secrets: tuple[str, ...] = ()  # each redeal's secret (revealed at the end)
    abandon_after_ms: int = 0  # how long a draw waits before it is abandoned (0: old record)
    # DealAbandoned: the seats the abandoned draw waited for (the game ended void), or None
    abandoned: tuple[int, ...] | None = None
    draw_opened: int = 0  # the version of the fact that opened the latest draw (its clock)
    seat_keys_required: bool = False  # every seat joins keyed (GameCreated; False: old record)
    arbiter_public_key: str = ""  # the arbiter's Ed25519 key, hex (GameCreated; "": unkeyed)
    # a match's hand after HandClosed: (last, next_game_id), what its match said follows;
    # None before it (and in hands recorded before issue 36)
    closed: tuple[bool, str] | None = None
    player_login_required: bool = False  # every seat is a signed-in player's (GameCreated)
    reserved_players: tuple[str, ...] = ()  # per seat, the player it is kept for (GameCreated)
    app: str = ""  # the app whose table this is (GameCreated; "": none)

    @property
    def seat_keys(self) -> tuple[str, ...]:
        """Each seat's current Ed25519 key (64 hex), "" for an unkeyed or empty seat."""
        return tuple(s.public_key if s is not None else "" for s in self.seats)

    def seat_key(self, seat: int) -> str:
        taken = self.seats[seat] if 0 <= seat < self.seat_count else None
        return taken.public_key if taken is not None else ""

    def seat_of(self, player: str) -> int | None:
        """The seat the player holds at this table, if any (a player holds at most one)."""
        if not player:
            return None
        return next(
            (i for i, s in enumerate(self.seats) if s is not None and s.player == player), None
        )

    def draw_inputs(self) -> tuple[Seat | Entropy | None, ...]:
        """The inputs of the draw under way: a redeal's fresh ones, else the seats'."""
        return self.seats if self.redraw is None else self.redraw.entropy

    def _with_status(self, status: deal.Contribution) -> tuple[int, ...]:
        return tuple(
            i for i, s in enumerate(self.draw_inputs()) if s is not None and s.status is status
        )

    @property
    def pending_reveals(self) -> tuple[int, ...]:
        """Seats that committed and have not revealed (nor been passed over)."""
        return self._with_status(deal.Contribution.PENDING)

    @property
    def awaited_commitments(self) -> tuple[int, ...]:
        """Seats, seated first, whose commitments are still to come."""
        return self._with_status(deal.Contribution.AWAITED)

    @property
    def awaited_reserved(self) -> tuple[int, ...]:
        """Reserved seats (GameCreated.reserved_players) not taken yet, before the deal."""
        if self.game is not None or self.redraw is not None:
            return ()
        return tuple(i for i, p in enumerate(self.reserved_players) if p and self.seats[i] is None)

    def reservation(self, seat: int) -> str:
        """The player id ``seat`` is kept for ("": none)."""
        return self.reserved_players[seat] if seat < len(self.reserved_players) else ""

    @property
    def awaited_inputs(self) -> tuple[int, ...]:
        """Seats the draw under way waits for: reserved seats still empty, else those whose
        commitments are to come, else (every seat committed) those whose reveals are
        pending. A seat that committed cannot reveal before the last commitment: it is not
        what the draw waits for."""
        return self.awaited_reserved or self.awaited_commitments or self.pending_reveals

    @property
    def no_entropy(self) -> tuple[int, ...]:
        """Seats that committed to nothing for the draw under way (or the last one): they
        add no entropy, by their own choice."""
        return self._with_status(deal.Contribution.NONE)

    @property
    def drawing(self) -> bool:
        """A deal is being drawn: the first (seats taken, not dealt) or a redeal."""
        if self.abandoned is not None:
            return False
        if self.redraw is not None:
            return True
        if self.game is not None:
            return False
        # a table with reserved seats waits for their players from its creation on
        return all(s is not None for s in self.seats) or bool(self.awaited_reserved)

    @property
    def deal_key(self) -> bytes:
        """The key every shuffle at this table derives from (deal.table_key)."""
        entries = tuple(s.entry if s is not None else "n" for s in self.seats)
        return deal.table_key(self.secret, entries)

    @property
    def rules(self) -> GameRules:
        return rules_for(self.kind)

    @property
    def phase(self) -> Phase:
        if self.abandoned is not None:
            return Phase.FINISHED  # void: no deal was made
        if self.game is None:
            return Phase.WAITING
        return Phase.PLAYING if self.outcome is None else Phase.FINISHED

    @property
    def outcome(self) -> Outcome | None:
        if self.abandoned is not None:  # void: no winner, no scores
            return Outcome((), (), VOID)
        if self.game is None:
            return None
        forfeited = self.justice.forfeited
        if forfeited:  # 判负: the game ends; every other seat wins
            winners = tuple(s for s in range(self.seat_count) if s not in forfeited)
            scores = tuple(-1 if s in forfeited else 0 for s in range(self.seat_count))
            return Outcome(winners, scores, "FORFEIT")
        return self.rules.outcome(self.game)

    @property
    def paused(self) -> bool:
        """A report or appeal is open, or a redeal is being drawn: no game move until then."""
        return self.justice.paused or self.redraw is not None
