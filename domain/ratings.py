"""Ratings (issue 40): a rating per player and game kind from every rated result, with
OpenSkill's Weng–Lin model (the Plackett–Luce variant, ``openskill`` pinned in
pyproject.toml), recomputable from the records alone.

One pure path serves the server and the auditor: a finished single game's table
(``game_result``) or an ended match (``match_result``) gives a ``RatedResult``: who sat
where (the seats' player ids) and each seat's rank; ``rate`` folds results into ratings.
The server keeps the results it noted (server/store/ratings.py) and folds them with
``rate``; ``tabletop-audit ratings`` rebuilds the same results from verified exports and
folds them with the same ``rate``, so both give the same numbers (docs/api.md, "Ratings").

What is rated, and why (docs/api.md, "Ratings", says the same for app teams):

* **Only tables whose every seat is a signed-in player** (``player_login_required``).
  A seat token or a seat key belongs to one table: nothing ties two games' tokens to one
  person, so a rating per token would be a rating of one game, and anyone could open
  tokened tables to farm a leaderboard. Tables without logins rate nobody.
* **A single game** is rated when it ends; **a match** is rated once, when it ends, by its
  standings (its hands are not rated one by one: the match is what the seats play for, a
  hand's loss can be the match's plan, and rating each hand as well would count the same
  play twice and weigh long matches more).
* **Only the seats that played:** a seat that sat the game out (川南字牌 with four players:
  the dealer's opposite, ``engine.SittingOut``) is not rated for it.
* **Seats by result:** the winners share rank 1; the other seats follow by their score in
  the game's direction (花鸟风月: fewer points left is better, ``MatchRules.lower_score_wins``;
  川南字牌: more 胡 points is better), seats level sharing a rank. A match uses its own
  standings' ranks (total, then hands won).
* **A void game** (its draw abandoned, ``DealAbandoned``: no deal, no score, docs/rules)
  rates nobody: no card was dealt, so nothing was played to be rated.
* **判负 (FORFEIT)**, which only an arbiter's ruling gives (docs/rules/huaniao.md row 76),
  rates as the rules score it: every other seat wins (rank 1), the forfeited seats share
  the last rank. In a match the forfeit is already in the standings (it costs the seat a
  point, domain/match/state.py ``points``).
* **An incomplete match** (a later hand's draw abandoned: "the hands before it standing",
  docs/rules) is rated by the standings of the hands that stand, except that the seats the
  abandoned draw waited for rank last: otherwise a seat behind in a match could walk away
  from its rated loss by never revealing its entropy for the next hand. A match whose
  first hand was void (nothing played) rates nobody.

Order: ratings depend on the order results are folded in, so ``rate`` folds them by
(``ended_at``, ``result_id``), where ``ended_at`` is the record's own time of the result's
last event (a game: its last record; a match: the last record of its last hand), never
the order a server happened to see them; a result noted twice (a replay, a crash between
two writes, two replicas) counts once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from openskill.models import PlackettLuce

from domain import match as matches
from domain import table as tables
from domain.engine import MatchRules, Outcome, SittingOut
from domain.match.state import Match
from domain.registry import rules_for
from domain.table.state import VOID, Phase, Table

if TYPE_CHECKING:  # the verifier's record types only (why: importing domain.verify was
    # about 50 ms of every server start, which rates games but never verifies one)
    from domain.verify import MatchRecord, Record

# The model and its parameters: the Weng–Lin paper's and openskill's defaults, written out
# so a change of library default never changes a rating silently. mu and sigma: a new
# player's rating (25 ± 8.33); beta: the spread of one game's performance; kappa: the
# smallest variance; tau: the sigma added before each game (skill drifts); no margin, no
# sigma limit, no balance.
MU = 25.0
SIGMA = MU / 3
BETA = SIGMA / 2
KAPPA = 0.0001
TAU = MU / 300
MODEL = PlackettLuce(
    mu=MU,
    sigma=SIGMA,
    beta=BETA,
    kappa=KAPPA,
    tau=TAU,
    margin=0.0,
    limit_sigma=False,
    balance=False,
)
MODEL_NAME = "openskill 6.2.0 PlackettLuce (Weng–Lin)"

FORFEIT = "FORFEIT"


@dataclass(frozen=True)
class RatedResult:
    """One rated game or match: ``players[i]`` sat at seat ``i`` and ranked ``ranks[i]``
    (1 = first; seats level share a rank)."""

    result_id: str  # the game id of a single game, the match id of a match
    kind: str  # the game kind ("huaniao", "zipai")
    ended_at: str  # the record's time of the result's last event (records.timestamp_text)
    players: tuple[str, ...]
    ranks: tuple[int, ...]
    match: bool = False  # a match (by its standings) rather than a single game


@dataclass(frozen=True)
class Rating:
    """A player's rating at a game kind: mean ``mu``, uncertainty ``sigma``; the board
    ranks by ``ordinal`` (mu − 3σ: a 99.7% lower bound, so a newcomer's lucky first win
    does not top it)."""

    player: str
    mu: float = MU
    sigma: float = SIGMA
    results: int = 0  # games and matches rated

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


@dataclass
class Ratings:
    """Every player's rating per game kind, and the results folded into them."""

    by_kind: dict[str, dict[str, Rating]] = field(default_factory=dict)
    counted: set[str] = field(default_factory=set)
    last: tuple[str, str] = ("", "")  # the order key of the latest result folded in

    def in_order(self, results: Iterable[RatedResult]) -> bool:
        """Whether folding ``results`` after these gives what folding all from scratch
        gives: each new one sorts after every result already folded."""
        return all(order(r) > self.last for r in results if r.result_id not in self.counted)

    def of(self, kind: str, player: str) -> Rating | None:
        return self.by_kind.get(kind, {}).get(player)

    def board(self, kind: str) -> list[Rating]:
        """The kind's players, best first (ordinal, then mu, then player id: a total order,
        so pages never repeat or skip a player)."""
        return sorted(
            self.by_kind.get(kind, {}).values(), key=lambda r: (-r.ordinal, -r.mu, r.player)
        )


def _ranked_by(keys: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    """Standard competition ranks (1, 1, 3) of ``keys`` (smaller is better)."""
    return tuple(1 + sum(other < key for other in keys) for key in keys)


def seat_ranks(outcome: Outcome, seat_count: int, lower_score_wins: bool) -> tuple[int, ...]:
    """Each seat's rank in a finished game: winners first, then by score in the game's
    direction; a FORFEIT: every other seat first, the forfeited seats last."""
    winners = set(outcome.winners)
    scores = outcome.scores or (0,) * seat_count
    if outcome.reason == FORFEIT:
        return _ranked_by([(0 if s in winners else 1,) for s in range(seat_count)])
    sign = 1 if lower_score_wins else -1
    return _ranked_by([(0 if s in winners else 1, sign * scores[s]) for s in range(seat_count)])


def lower_score_wins(kind: str) -> bool:
    rules = rules_for(kind)
    return rules.lower_score_wins if isinstance(rules, MatchRules) else False


def seat_players(table: Table) -> tuple[str, ...] | None:
    """The seats' player ids, or None when the table does not rate (a seat without a login,
    or a table that does not require logins)."""
    if not table.player_login_required:
        return None
    players = tuple(s.player if s is not None else "" for s in table.seats)
    return players if all(players) else None


def game_result(game_id: str, table: Table, ended_at: str) -> RatedResult | None:
    """A finished single game's result, or None when it rates nobody (a match's hand, a
    void game, a table without logins, a game not finished)."""
    if table.match_id or table.phase is not Phase.FINISHED:
        return None
    outcome = table.outcome
    players = seat_players(table)
    if outcome is None or outcome.reason == VOID or players is None:
        return None
    ranks = seat_ranks(outcome, table.seat_count, lower_score_wins(table.kind))
    rules = rules_for(table.kind)
    out = set(rules.sitting_out(table.game)) if isinstance(rules, SittingOut) else set()
    played = [s for s in range(table.seat_count) if s not in out]
    if len(played) < 2:
        return None
    return RatedResult(
        game_id,
        table.kind,
        ended_at,
        tuple(players[s] for s in played),
        _ranked_by([(ranks[s],) for s in played]),
    )


def match_result(match: Match, first_hand: Table, ended_at: str) -> RatedResult | None:
    """An ended match's result (its seats are its first hand's), or None when it rates
    nobody (not ended, no hand played, a table without logins)."""
    ended = match.ended
    players = seat_players(first_hand)
    if ended is None or players is None:
        return None
    played = [h for h in match.hands if h.ended is not None and h.ended.reason != VOID]
    if not played:
        return None
    waited = set(ended.waiting_for) if ended.incomplete else set()
    ranks = _ranked_by(
        [(s.seat in waited, s.rank) for s in sorted(ended.standings, key=lambda s: s.seat)]
    )
    return RatedResult(match.match_id, match.kind, ended_at, players, ranks, match=True)


def table_of(records: Sequence[Record]) -> Table:
    """A game's table as its records leave it (facts applied as recorded: the caller has
    verified them, domain/verify.py)."""
    table: Table | None = None
    for r in records:
        table = tables.evolve(table, tables.decode_event(table.kind if table else "", r.fact))
    assert table is not None, "a record has at least its GameCreated"
    return table


def game_result_from_records(game_id: str, records: Sequence[Record]) -> RatedResult | None:
    """``game_result`` of a verified single game's export: the same result the server noted
    when the game ended (its time: the record's last event)."""
    return game_result(game_id, table_of(records), records[-1].recorded_at)


def match_result_from_records(
    records: Sequence[MatchRecord], hands: dict[str, list[Record]]
) -> RatedResult | None:
    """``match_result`` of a verified match export (its record and every hand's)."""
    state: Match | None = None
    for r in records:
        state = matches.evolve(state, matches.decode_fact(r.fact))
    if state is None or not state.hands:
        return None
    first = table_of(hands[state.hands[0].game_id])
    return match_result(state, first, hands[state.hands[-1].game_id][-1].recorded_at)


def order(result: RatedResult) -> tuple[str, str]:
    """The order results are folded in: the record's time, then the id (a total order)."""
    return (result.ended_at, result.result_id)


def rate(results: Iterable[RatedResult], ratings: Ratings | None = None) -> Ratings:
    """Fold ``results`` into ``ratings`` (new ones if None) in their own order (``order``);
    a result already counted is skipped. Folding into existing ratings equals folding all
    from scratch only when ``ratings.in_order(results)``."""
    ratings = ratings if ratings is not None else Ratings()
    for result in sorted(results, key=order):
        if result.result_id in ratings.counted:
            continue
        ratings.counted.add(result.result_id)
        ratings.last = max(ratings.last, order(result))
        _rate_one(ratings.by_kind.setdefault(result.kind, {}), result)
    return ratings


def _rate_one(board: dict[str, Rating], result: RatedResult) -> None:
    before = [board.get(p, Rating(p)) for p in result.players]
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    after = MODEL.rate(teams, ranks=list(result.ranks))
    for old, (new,) in zip(before, after, strict=True):
        board[old.player] = Rating(old.player, new.mu, new.sigma, old.results + 1)
