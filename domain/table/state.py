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


class Phase(enum.Enum):
    WAITING = 1
    PLAYING = 2
    FINISHED = 3


@dataclass(frozen=True)
class Seat:
    player_name: str
    token_hash: str  # sha256 of the seat token; the token itself is never stored
    contribution: str  # the seat's revealed contribution ("" until revealed)
    commitment: str = ""  # its commitment ("" when it committed to nothing)
    withheld: bool = False  # not revealed in time: the commitment stands in for it

    @property
    def status(self) -> deal.Contribution:
        if not self.commitment:
            return deal.Contribution.NONE
        if self.contribution:
            return deal.Contribution.REVEALED
        return deal.Contribution.WITHHELD if self.withheld else deal.Contribution.PENDING

    @property
    def entry(self) -> str:
        """This seat's input to the table key (deal.entry)."""
        return deal.entry(self.commitment, self.contribution or None, self.withheld)


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

    @property
    def pending_reveals(self) -> tuple[int, ...]:
        """Seats that committed and have not revealed (nor been passed over)."""
        return tuple(
            i
            for i, s in enumerate(self.seats)
            if s is not None and s.status is deal.Contribution.PENDING
        )

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
        if self.game is None:
            return Phase.WAITING
        return Phase.PLAYING if self.outcome is None else Phase.FINISHED

    @property
    def outcome(self) -> Outcome | None:
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
        """A report or appeal is open: no game move until it is settled."""
        return self.justice.paused
