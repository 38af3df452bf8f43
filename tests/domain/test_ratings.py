"""Ratings (issue 40), at the rule level: which results rate whom, the seats' order by
result, a fold that depends on the results alone (not the order a server saw them), and a
stronger bot policy rising above a random one over a few hundred games played in process.
(Through a real server, live against recomputed: tests/api/test_ratings.py.)"""

from __future__ import annotations

import dataclasses
import random

from bench.bots import default_options, play
from clients.python.bots import heuristic_choice, random_choice
from domain import match, ratings
from domain import table as tables
from domain.engine import Outcome
from domain.match import Advance, HandEnded, HandOpened, MatchEnded, Standing
from domain.registry import register, rules_for
from domain.table.state import VOID
from domain.zipai.state import Phase as ZipaiPhase
from tests.support import fakegame

register(fakegame.RULES)
ALICE, BOB, CAROL = ("a" * 64, "b" * 64, "c" * 64)
GID = "11111111-2222-4333-8444-555555555555"
MID = "8f1c0a52-31c2-4f3e-9a53-3f2b1c9d0e11"


def seated_table(logins: bool = True) -> tables.Table:
    (created,) = tables.create(
        fakegame.RULES, fakegame.Options(), 3, "a", "s", player_login_required=logins
    )
    table = tables.evolve(None, created)
    for seat, player in enumerate((ALICE, BOB, CAROL)):
        for fact in tables.take_seat(table, seat, f"p{seat}", f"t{seat}", player=player):
            table = tables.evolve(table, fact)
    return table


def finished(table: tables.Table, discards: tuple[tuple[int, ...], ...]) -> tables.Table:
    """The table with the fake game played out: each seat discarded these cards."""
    state = fakegame.State(3, 3, (), ((), (), ()), discards, 0)
    return dataclasses.replace(table, game=state)


def test_winners_first_then_the_others_by_score_in_the_games_direction() -> None:
    outcome = Outcome((1,), (7, 0, 3, 7), "EMPTIED_HAND")
    assert ratings.seat_ranks(outcome, 4, lower_score_wins=True) == (3, 1, 2, 3)
    assert ratings.seat_ranks(outcome, 4, lower_score_wins=False) == (2, 1, 4, 2)
    assert ratings.lower_score_wins("huaniao") and not ratings.lower_score_wins("zipai")


def test_a_forfeit_ranks_every_other_seat_first_and_the_forfeited_seat_last() -> None:
    forfeit = Outcome((0, 2), (0, -1, 0), "FORFEIT")
    assert ratings.seat_ranks(forfeit, 3, lower_score_wins=True) == (1, 3, 1)
    assert ratings.seat_ranks(forfeit, 3, lower_score_wins=False) == (1, 3, 1)


def test_a_finished_login_table_rates_its_players_by_result() -> None:
    table = finished(seated_table(), ((1,), (9,), (5,)))
    result = ratings.game_result(GID, table, "2026-01-01T00:00:00.000000Z")
    assert result == ratings.RatedResult(
        GID, "fake", "2026-01-01T00:00:00.000000Z", (ALICE, BOB, CAROL), (1, 2, 3)
    )


def test_tables_without_logins_void_games_and_a_matchs_hands_rate_nobody() -> None:
    at = "2026-01-01T00:00:00.000000Z"
    assert ratings.game_result(GID, finished(seated_table(False), ((1,), (9,), (5,))), at) is None
    void = tables.evolve(seated_table(), tables.DealAbandoned((1,)))
    assert void.phase is tables.Phase.FINISHED
    assert ratings.game_result(GID, void, at) is None
    hand = dataclasses.replace(finished(seated_table(), ((1,), (9,), (5,))), match_id=MID, hand=1)
    assert ratings.game_result(GID, hand, at) is None
    assert ratings.game_result(GID, seated_table(), at) is None  # not finished


def ended_match(*ended: object) -> match.Match:
    state = match.evolve(
        None, match.MatchCreated(MID, "fake", 3, 2, 0, Advance.AUTO, lower_score_wins=True)
    )
    for fact in ended:
        state = match.evolve(state, fact)
    return state


def test_a_match_rates_by_its_standings_and_an_abandoning_seat_ranks_last() -> None:
    standings = (Standing(0, 3, 1, 1), Standing(1, 5, 0, 2), Standing(2, 9, 0, 3))
    played = (HandOpened(1, GID), HandEnded(1, GID, (0,), (3, 5, 9), "LOWEST", "h"))
    at = "2026-01-01T00:00:00.000000Z"
    complete = ended_match(*played, MatchEnded(standings, (0,)))
    result = ratings.match_result(complete, seated_table(), at)
    assert result is not None and result.match and result.ranks == (1, 2, 3)
    # hand 2's draw waited for seat 0, the leader: it ranks last, the others keep their order
    void = (HandOpened(2, "g2"), HandEnded(2, "g2", (), (), VOID, "h2"))
    walked = ended_match(*played, *void, MatchEnded(standings, (), True, (0,)))
    walked_result = ratings.match_result(walked, seated_table(), at)
    assert walked_result is not None and walked_result.ranks == (3, 1, 2)
    # a match whose first hand was void: nothing was played, nobody is rated
    nothing = ended_match(HandOpened(1, GID), HandEnded(1, GID, (), (), VOID, "h"))
    nothing = match.evolve(nothing, MatchEnded(standings, (), True, (1,)))
    assert ratings.match_result(nothing, seated_table(), at) is None


def results(n: int, seed: int) -> list[ratings.RatedResult]:
    rng = random.Random(seed)
    players = [f"{c}" * 64 for c in "abcdef"]
    out = []
    for i in range(n):
        seats = rng.sample(players, 3)
        ranks = tuple(rng.choice(((1, 2, 3), (1, 1, 3), (2, 1, 3), (3, 2, 1))))
        out.append(
            ratings.RatedResult(
                f"g{i:04}", "fake", f"2026-01-01T00:{i:02}:00Z", tuple(seats), ranks
            )
        )
    return out


def test_the_fold_depends_on_the_results_alone_and_counts_each_once() -> None:
    seed = random.randrange(2**32)
    print(f"seed={seed}")
    given = results(40, seed)
    expected = ratings.rate(given)
    shuffled = given[:]
    random.Random(seed).shuffle(shuffled)
    assert ratings.rate(shuffled + shuffled[:7]).by_kind == expected.by_kind  # any order, twice
    # folding in two goes equals folding at once when the second part comes later...
    first = ratings.rate(given[:25])
    assert first.in_order(given[25:])
    assert ratings.rate(given[25:], first).by_kind == expected.by_kind
    # ...and is not claimed to when an earlier result arrives late
    late = ratings.rate(given[10:])
    assert not late.in_order(given[:10])


def test_the_model_is_openskills_plackett_luce_with_its_published_defaults() -> None:
    r = ratings.rate([ratings.RatedResult("g", "fake", "t", (ALICE, BOB), (1, 2))])
    winner, loser = r.of("fake", ALICE), r.of("fake", BOB)
    assert winner is not None and loser is not None
    # openskill 6.2.0's PlackettLuce, one game between two new players (the library's value)
    assert round(winner.mu, 9) == 27.635389493 and round(loser.mu, 9) == 22.364610507
    assert round(winner.sigma, 9) == round(loser.sigma, 9) == 8.065901414


def test_a_stronger_bot_rises_above_a_random_one_over_a_few_hundred_games() -> None:
    """Four players, two playing the heuristic and two at random, meet two at a time at
    花鸟风月 tables (seats by lot) for 300 games: the heuristic players end rated above
    the random ones (each heuristic player's ordinal above each random player's)."""
    seed = random.randrange(2**32)
    print(f"seed={seed}")
    rng = random.Random(seed)
    policy = {"heuristic-1": heuristic_choice, "heuristic-2": heuristic_choice,
              "random-1": random_choice, "random-2": random_choice}  # fmt: skip
    rated = []
    for n in range(300):
        players = rng.sample(sorted(policy), 2)
        game = play("huaniao", [policy[p] for p in players], rng.getrandbits(32))
        assert game.outcome is not None
        ranks = ratings.seat_ranks(game.outcome, 2, ratings.lower_score_wins("huaniao"))
        rated.append(ratings.RatedResult(f"g{n:04}", "huaniao", f"t{n:04}", tuple(players), ranks))
    board = ratings.rate(rated).board("huaniao")
    print([(r.player, round(r.mu, 2), round(r.sigma, 2)) for r in board])
    top, bottom = board[:2], board[2:]
    assert {r.player for r in top} == {"heuristic-1", "heuristic-2"}
    assert min(r.ordinal for r in top) > max(r.ordinal for r in bottom)
    assert all(r.results > 100 for r in board)  # every player was rated often


def test_a_seat_that_sat_the_game_out_is_not_rated_for_it() -> None:
    """川南字牌 with four players: the dealer's opposite sits the hand out (zipai rules)."""
    zipai = rules_for("zipai")
    options = default_options("zipai")
    (created,) = tables.create(zipai, options, 4, "a", "s", player_login_required=True)
    table = tables.evolve(None, created)
    players = ("a" * 64, "b" * 64, "c" * 64, "d" * 64)
    for seat, player in enumerate(players):
        for fact in tables.take_seat(table, seat, f"p{seat}", f"t{seat}", player=player):
            table = tables.evolve(table, fact)
    state = zipai.initial_state(options, 4, zipai.new_deck(options), 7)
    for event in zipai.deal(state):
        state = zipai.evolve(state, event)
    (out,) = zipai.sitting_out(state)
    over = dataclasses.replace(state, phase=ZipaiPhase.OVER, winner=(out + 1) % 4, scores=(0,) * 4)
    result = ratings.game_result(GID, dataclasses.replace(table, game=over), "t")
    assert result is not None
    assert result.players == tuple(p for s, p in enumerate(players) if s != out)
    assert sorted(result.ranks) == [1, 2, 2]
