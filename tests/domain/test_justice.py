"""Justice at a 花鸟风月 table, through domain.table.act / play and domain.tribunal
(given/when/then): every violation kind in each enforcement mode, misplay retraction,
reports, votes, the arbiter, forfeit, redeal, appeals and timeouts -- with the real game,
whose penalties touch the cards (domain/huaniao/penalties.py).

``part2:N`` is line N of huaniao-rules-part2-decoded.txt (四、违规与仲裁, lines 29-72). Every
fact also goes through storage and a table rebuilt from the stored facts (the harness).
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import random
from datetime import datetime, timedelta
from typing import Any

import pytest

from domain import table as tables
from domain.engine import SPECTATOR, MalformedCommand, RuleViolation
from domain.huaniao import RULES, Combo, Discard, Mode, Options, Play
from domain.huaniao.cards import CARDS, CardKind
from domain.huaniao.events import (
    AttemptPlayed,
    DanceBanned,
    Dealt,
    Discarded,
    Drew,
    PenaltyDiscarded,
    Perched,
)
from domain.huaniao.rules import dance_banned, initial_state
from domain.huaniao.terms import Cause, Phase, Season
from domain.table.justice import decide as tribunal
from domain.table.justice import facts as J
from domain.table.justice.verdict import Verdict, seats_verdict, voters
from tests.domain.huaniao.justice_support import (
    Harness,
    Stats,
    cards_in_play,
    conserved,
    no_leaks,
    play_justice_game,
    prepared_deck,
)

E = J.Enforcement
K = J.ViolationKind
P = J.PenaltyKind

HANDS = [
    "鸟鸟鸟鸟鸟十十十",  # seat 0: most birds, opens
    "花风月风十百千万",  # seat 1: four function cards and 十百千万, no bird
    "鸟鸟鸟鸟百百千千",
    "鸟鸟鸟鸟十十百百",
]
TOP = "万万十百千鸟鸟鸟月月"


def opened(
    mode: Mode = Mode.REGULAR,
    enforcement: E = E.REJECT,
    seats: int = 3,
    time_limit_ms: int = 0,
    arbitrated: bool = False,
) -> Harness:
    """Given a table dealt ``HANDS`` where seat 0 has opened with one bird: seat 1 to act."""
    options = Options(mode=mode)
    deck = prepared_deck(options, HANDS[:seats], TOP)
    h = Harness.open(
        options,
        seats,
        enforcement,
        deck,
        time_limit_ms=time_limit_ms,
        check=conserved,
        arbitrated=arbitrated,
    )
    (opening, *_) = RULES.legal_commands(h.game, 0)
    h.act(opening)
    assert h.game.turn == 1
    return h


def cards(h: Harness, seat: int, spec: str) -> tuple[int, ...]:
    free = list(h.game.hands[seat].cards)
    out = []
    for ch in spec:
        kind = {
            "鸟": CardKind.BIRD,
            "十": CardKind.TEN,
            "百": CardKind.HUNDRED,
            "千": CardKind.THOUSAND,
            "万": CardKind.TEN_THOUSAND,
            "花": CardKind.FLOWER,
            "风": CardKind.WIND,
            "月": CardKind.MOON,
        }[ch]
        c = next(i for i in free if CARDS[i].kind is kind)
        free.remove(c)
        out.append(c)
    return tuple(sorted(out))


def names(facts: list[Any]) -> list[str]:
    return [type(f).__name__ for f in facts]


# The four violations a command can commit, each set up at an opened table (seat 1 to act,
# or seat 2 owing a discard), with the seat that commits it.


def illegal_combo(h: Harness) -> tuple[int, Any]:
    """part2:38 在不启用四季更替模式时打出“风花雪月” (常规模式)."""
    return 1, Play(
        1, cards(h, 1, "花风月风"), combo=Combo.FENG_HUA_XUE_YUE, chosen_season=Season.WINTER
    )


def wrong_declaration(h: Harness) -> tuple[int, Any]:
    """part2:35 错误宣告其效果: 天上天下 announcing 4 (宣言1-3张)."""
    return 1, Play(1, cards(h, 1, "十百千万"), combo=Combo.TIANSHANG_TIANXIA, announce=4)


def season_rule(h: Harness) -> tuple[int, Any]:
    """part2:41 未按照当前季节规则出牌: 风 declared in winter while it is spring."""
    return 1, Play(1, cards(h, 1, "风"), target=2, season=Season.WINTER)


def discard_order(h: Harness) -> tuple[int, Any]:
    """part2:44 未按照规定的顺序（鸟→数量→功能）弃牌: seat 2, hit by 风, throws a 百 while
    holding birds."""
    h.act(Play(1, cards(h, 1, "风"), target=2))
    assert h.game.phase == Phase.DISCARDING and tables.to_act(h.table) == (2,)
    return 2, Discard(2, cards(h, 2, "百"))


KINDS = {
    K.ILLEGAL_COMBO: (Mode.REGULAR, illegal_combo, "ILLEGAL_COMBO"),
    K.WRONG_DECLARATION: (Mode.REGULAR, wrong_declaration, "ANNOUNCE_REQUIRED"),
    K.SEASON_RULE: (Mode.FULL, season_rule, "WRONG_SEASON"),
    K.DISCARD_ORDER: (Mode.REGULAR, discard_order, "DISCARD_ORDER"),
}


# --- REJECT ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(KINDS), ids=[k.name for k in KINDS])
def test_reject_refuses_every_violation_and_appends_nothing(kind: J.ViolationKind) -> None:
    """Enforcement REJECT (apps): a forbidden move is refused (FAILED_PRECONDITION)."""
    mode, setup, reason = KINDS[kind]
    h = opened(mode)
    seat, command = setup(h)
    version, game = h.version, h.game
    with pytest.raises(RuleViolation) as e:
        h.act(command)
    assert e.value.reason == reason
    assert (h.version, h.game) == (version, game)


def test_create_allows_referee_and_players_for_huaniao() -> None:
    """domain.table.create takes REFEREE/PLAYERS only for games with PenaltyRules."""
    assert isinstance(RULES, J.PenaltyRules)
    for enforcement in E:
        (created,) = tables.create(RULES, Options(), 4, "a", "s", (), enforcement)
        assert created.enforcement is enforcement


# --- REFEREE ---------------------------------------------------------------------------------


def test_referee_illegal_combo_is_discarded_from_the_hand_and_one_drawn() -> None:
    """part2:39 棄掉違規組合中的所有牌，並(摸)1張牌; the attempt was seat 1's action (栖,
    without its draw)."""
    h = opened(enforcement=E.REFEREE)
    seat, command = illegal_combo(h)
    facts = h.act(command)
    assert names(facts) == [
        "AttemptRefereed",
        "PenaltyApplied",
        "PenaltyDiscarded",
        "Drew",
        "Perched",
    ]
    assert facts[0] == J.AttemptRefereed(
        1, K.ILLEGAL_COMBO, command.cards, "非法组合", "ILLEGAL_COMBO"
    )
    penalty = J.Penalty(P.DISCARD_AND_DRAW, 1, command.cards)
    assert facts[1] == J.PenaltyApplied(h.version - 4, 1, penalty, 3)  # + the turn (栖)
    assert facts[2] == PenaltyDiscarded(1, tuple(CARDS[c] for c in command.cards), False)
    assert facts[3].count == 1 and facts[3].cause is Cause.PENALTY
    assert set(command.cards) <= set(h.game.discarded) and h.game.turn == 2
    assert len(h.game.hands[1].cards) == 5


def test_referee_wrong_declaration_is_discarded_and_two_drawn() -> None:
    """part2:36 棄掉違規牌組中的所有牌，並(摸)2張牌作為懲罰."""
    h = opened(enforcement=E.REFEREE)
    _, command = wrong_declaration(h)
    facts = h.act(command)
    assert names(facts)[:4] == ["AttemptRefereed", "PenaltyApplied", "PenaltyDiscarded", "Drew"]
    assert facts[1].penalty == J.Penalty(P.DISCARD_AND_DRAW, 2, command.cards)
    assert facts[3].count == 2 and len(h.game.hands[1].cards) == 6


def test_referee_season_rule_bans_wu_on_the_next_turn() -> None:
    """part2:42 下回合不可进行“舞”."""
    h = opened(Mode.FULL, E.REFEREE)
    _, command = season_rule(h)
    facts = h.act(command)
    assert names(facts) == ["AttemptRefereed", "PenaltyApplied", "DanceBanned", "Perched"]
    assert facts[2] == DanceBanned(1, 1) and facts[3] == Perched(1)
    while h.game.turn != 1:
        h.act(RULES.legal_commands(h.game, tables.to_act(h.table)[0])[0])
    assert dance_banned(h.game, 1)
    assert all(getattr(c, "combo", None) is None for c in RULES.legal_commands(h.game, 1))


def test_referee_a_missing_verse_draws_one_and_the_opening_passes_on() -> None:
    """p1:55-57 出牌前需吟诵, left out at a REFEREE table: 其他违规, 根据情节轻重 (p2:51). The
    referee gives 摸1张 (as 出牌超时, p2:33), never a forced discard, which would bring the
    offender closer to going out: seat 0 ends its turn one card up, the opening passes to
    seat 1 and the verse is still owed."""
    options = Options(mode=Mode.REGULAR)
    deck = prepared_deck(options, HANDS[:3], TOP)
    h = Harness.open(options, 3, E.REFEREE, deck, check=conserved)
    before = len(h.game.hands[0].cards)
    (opening, *_) = RULES.legal_commands(h.game, 0)
    facts = h.act(dataclasses.replace(opening, verse=None))
    assert names(facts) == ["AttemptRefereed", "PenaltyApplied", "Drew", "Perched"]
    assert facts[0].violation is K.OTHER and facts[0].reason == "VERSE_REQUIRED"
    assert facts[1].penalty == J.Penalty(P.DRAW, 1)
    assert facts[2].count == 1 and facts[2].cause is Cause.PENALTY
    assert len(h.game.hands[0].cards) == before + 1, "the offender is a card further from out"
    assert h.game.turn == 1 and h.game.verse_due, "seat 1 opens, with the verse"


def test_referee_discard_order_warns_first_then_forces_the_discard() -> None:
    """part2:45 警告一次，若再次违规，则强制按正确顺序弃…的数量; the owed discard stays owed."""
    h = opened(enforcement=E.REFEREE)
    seat, wrong = discard_order(h)
    facts = h.act(wrong)
    assert names(facts) == ["AttemptRefereed", "PenaltyApplied"]
    assert facts[1].penalty == J.Penalty(P.WARNING) and facts[1].game_facts == 0
    assert h.table.justice.warnings[2] == 1 and tables.to_act(h.table) == (2,)
    facts = h.act(wrong)
    assert names(facts) == ["AttemptRefereed", "PenaltyApplied", "PenaltyDiscarded"]
    # the count owed at the previous violation (one card, for the 风)
    assert facts[1].penalty == J.Penalty(P.FORCED_DISCARD, 1)
    assert facts[0].owed == 1 and h.table.justice.discard_counts[2] == 1
    assert facts[2].cards[0].kind is CardKind.BIRD, "the right order: a bird first"
    assert tables.to_act(h.table) == (2,), "the discard owed is still owed"
    facts = h.act(Discard(2, cards(h, 2, "鸟")))
    assert names(facts) == ["Discarded"] and h.game.phase == Phase.PLAYING


# --- PLAYERS ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind, penalty_facts",
    [
        (K.ILLEGAL_COMBO, ["PenaltyDiscarded", "Drew"]),
        (K.WRONG_DECLARATION, ["PenaltyDiscarded", "Drew"]),
        (K.SEASON_RULE, ["DanceBanned"]),
    ],
    ids=["ILLEGAL_COMBO", "WRONG_DECLARATION", "SEASON_RULE"],
)
def test_players_a_forbidden_play_stands_until_reported_and_voted(
    kind: J.ViolationKind, penalty_facts: list[str]
) -> None:
    """PLAYERS (the honour system): the move is recorded as played; a report pointing at it
    pauses the game (part2:54-55); every seat but the accused confirms it (part2:57) and the
    penalty is executed at once (part2:58). The penalty's cards are the engine's, not the
    reporter's (the reporter named other cards)."""
    mode, setup, reason = KINDS[kind]
    h = opened(mode, E.PLAYERS)
    seat, command = setup(h)
    (attempt,) = h.act(command)
    assert isinstance(attempt, AttemptPlayed) and attempt.reason == reason
    assert set(command.cards) <= set(h.game.played) and h.game.turn == 2
    evidence = h.version
    elsewhere = cards(h, 0, "鸟")
    (reported,) = h.act(J.Report(0, 1, kind, (evidence,), J.Penalty(P.WARNING, 0, elsewhere), ""))
    assert h.table.paused and tables.to_act(h.table) == (1, 2), "the accused votes too"
    with pytest.raises(RuleViolation) as e:
        h.act(RULES.legal_commands(h.game, 2)[0])
    assert e.value.reason == "GAME_PAUSED"
    facts = h.act(J.CastVote(2, evidence + 1, True))
    assert names(facts) == ["VoteCast", "CaseClosed", "PenaltyApplied", *penalty_facts]
    assert facts[1] == J.CaseClosed(evidence + 1, J.CaseStatus.UPHELD)
    assert h.table.justice.violations == (0, 1, 0) and not h.table.paused
    if kind is not K.SEASON_RULE:
        assert not set(command.cards) & set(h.game.played), "discarded from the table"
        assert set(command.cards) <= set(h.game.discarded)
    assert reported.penalty == J.seed_penalty(kind, command.cards, False)


def test_players_discard_order_warning_and_no_second_report_of_the_same_move() -> None:
    """part2:45: the wrong discard stands; the report is a warning (the seed's penalty, not
    a proposal); the same move cannot be reported again once the table has moved on
    (p2:55 立即)."""
    h = opened(enforcement=E.PLAYERS)
    _, wrong = discard_order(h)
    assert names(h.act(wrong)) == ["Discarded"]
    first = h.version
    h.act(J.Report(0, 2, K.DISCARD_ORDER, (first,), J.Penalty(P.FORFEIT), "百 before 鸟"))
    facts = h.act(J.CastVote(1, first + 1, True))
    assert names(facts) == ["VoteCast", "CaseClosed", "PenaltyApplied"]
    assert facts[2].penalty == J.Penalty(P.WARNING) and h.table.justice.warnings[2] == 1
    with pytest.raises(RuleViolation) as e:
        h.act(J.Report(0, 2, K.DISCARD_ORDER, (first,), None, "again"))
    assert e.value.reason == "REPORT_THE_LAST_MOVE"


def test_part2_45_a_repeated_discard_violation_forces_the_count_owed_at_the_previous_one() -> None:
    """part2:45-48 强制按正确顺序弃上个回合违规时需要丢弃的牌的数量 (the example: warned when it
    owed 3, the next violation discards 3). Given seat 2 warned at a violation where it owed 3;
    when it breaks the order again owing 1; then it is forced to discard 3 (not the attempt's
    1), its owed discard stays owed, and 1 is remembered for a third violation."""
    h = opened(enforcement=E.REFEREE)
    _, wrong = discard_order(h)
    h.roundtrip = False  # the given is set directly, not rebuilt from stored facts
    justice = dataclasses.replace(h.table.justice, warnings=(0, 0, 1), discard_counts=(0, 0, 3))
    h.table = dataclasses.replace(h.table, justice=justice)
    before = len(h.game.hands[2].cards)
    facts = h.act(wrong)
    assert names(facts) == ["AttemptRefereed", "PenaltyApplied", "PenaltyDiscarded"]
    assert facts[1].penalty == J.Penalty(P.FORCED_DISCARD, 3)
    assert len(facts[2].cards) == 3 and len(h.game.hands[2].cards) == before - 3
    assert tables.to_act(h.table) == (2,) and h.table.justice.discard_counts[2] == 1


def test_players_a_report_must_name_the_violation_the_move_was() -> None:
    """At a PLAYERS table the engine re-decides the reported move: a legal move, or another
    violation than the one named, is refused and nothing is appended."""
    h = opened(enforcement=E.PLAYERS)
    _, command = illegal_combo(h)
    h.act(command)
    version = h.version
    with pytest.raises(RuleViolation) as e:
        h.act(J.Report(0, 1, K.SEASON_RULE, (version,), None, ""))
    assert e.value.reason == "NOT_THAT_VIOLATION" and h.version == version
    h2 = opened(enforcement=E.PLAYERS)
    h2.act(Play(1, cards(h2, 1, "风"), target=2))
    with pytest.raises(RuleViolation) as e:
        h2.act(J.Report(0, 1, K.ILLEGAL_COMBO, (h2.version,), None, ""))
    assert e.value.reason == "MOVE_WAS_LEGAL"


# --- misplay (part2:64-68) ---------------------------------------------------------------------


def test_part2_66_a_misplay_is_retracted_once_and_the_second_is_refused() -> None:
    """part2:65-68 误操作: 「風過無痕，月照無意」 (or 「且慢」) undoes the last move before anyone
    else acts; once per game; the move stays in the history, absent from the state."""
    h = opened(enforcement=E.PLAYERS)
    before = h.game
    _, command = illegal_combo(h)
    (attempt,) = h.act(command)
    last = h.last_move()
    assert last is not None and last.facts == (attempt,) and last.before == before
    retracted = tribunal.retract(tables.court(h.table), J.Retract(1, "風過無痕，月照無意"), last)
    assert retracted == [J.MoveRetracted(1, h.version, h.version, "風過無痕，月照無意", before)]
    h.act(J.Retract(1, "且慢"))
    assert h.game == before and h.table.justice.misplays == (0, 1, 0)
    assert any(e["type"] == "AttemptPlayed" for e in h.stored), "kept in the history"
    h.act(Play(1, cards(h, 1, "风"), target=2))
    with pytest.raises(RuleViolation) as e:
        h.act(J.Retract(1, "且慢"))
    assert e.value.reason == "MISPLAY_ALREADY_USED"


def test_a_second_misplay_stands_and_is_penalised_as_an_ordinary_violation() -> None:
    """p2:68 每位玩家每局游戏仅有一次“误操作”机会，若再次出现误操作，则按正常违规处理: at a PLAYERS
    table seat 1 retracts a forbidden play once; the same play made again cannot be
    retracted, stays on the table, and a report of it takes the seed's penalty for 非法组合
    (p2:39: its cards discarded, 摸1张)."""
    h = opened(enforcement=E.PLAYERS)
    _, command = illegal_combo(h)
    h.act(command)
    h.act(J.Retract(1, "且慢"))
    (attempt,) = h.act(command)
    with pytest.raises(RuleViolation) as e:
        h.act(J.Retract(1, "且慢"))
    assert e.value.reason == "MISPLAY_ALREADY_USED"
    assert isinstance(attempt, AttemptPlayed) and set(command.cards) <= set(h.game.played)
    evidence = h.version
    h.act(J.Report(0, 1, K.ILLEGAL_COMBO, (evidence,), None, "again"))
    facts = h.act(J.CastVote(2, evidence + 1, True))
    assert facts[1] == J.CaseClosed(evidence + 1, J.CaseStatus.UPHELD)
    assert facts[2].penalty == J.Penalty(P.DISCARD_AND_DRAW, 1, command.cards)
    assert set(command.cards) <= set(h.game.discarded), "discarded from the table"


def test_a_move_that_drew_a_card_cannot_be_retracted() -> None:
    h = opened(enforcement=E.REFEREE)
    _, command = illegal_combo(h)
    h.act(command)  # the penalty drew a hidden card
    with pytest.raises(RuleViolation) as e:
        h.act(J.Retract(1, "且慢"))
    assert e.value.reason == "MOVE_REVEALED_CARDS"


@pytest.mark.parametrize("kind", [*KINDS, K.REPEATED_MISPLAY], ids=lambda k: k.name)
@pytest.mark.parametrize("enforcement", [E.REJECT, E.REFEREE], ids=lambda e: e.name)
def test_what_the_engine_enforces_cannot_be_reported(kind: J.ViolationKind, enforcement: E) -> None:
    """At a REJECT or REFEREE table the engine refused or refereed every rule violation
    (a second 误操作 is refused as MISPLAY_ALREADY_USED, p2:68): a report claiming one for a
    move the engine accepted is refused, and nothing is appended."""
    h = opened(enforcement=enforcement)
    h.act(Play(1, cards(h, 1, "风"), target=2))
    version = h.version
    with pytest.raises(RuleViolation) as e:
        h.act(J.Report(0, 1, kind, (version,), None, "it was wrong"))
    assert e.value.reason == "ENGINE_ENFORCED" and h.version == version


def test_other_violations_stay_reportable_with_an_open_hand() -> None:
    """其他违规 (p2:50-51) is what the server cannot see: the reporter proposes one of the
    graded penalties, here 公开手牌1回合, and every other seat confirms it, the accused too."""
    h = opened(enforcement=E.REJECT)
    h.act(Play(1, cards(h, 1, "风"), target=2))
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.OPEN_HAND), "peeked"))
    case = h.version
    assert h.act(J.CastVote(2, case, True)) == [J.VoteCast(2, case, True)], "not yet"
    facts = h.act(J.CastVote(1, case, True))
    assert names(facts)[-1] == "HandOpened"
    seen = RULES.view(h.game, SPECTATOR)
    assert seen.seats[1].open_hand and len(seen.seats[1].cards) == 7


@pytest.mark.parametrize(
    "penalty, field",
    [
        (None, "penalty"),
        (J.Penalty(P.DRAW, 10), "penalty"),
        (J.Penalty(P.NO_WU_NEXT_TURN), "penalty"),
        (J.Penalty(P.FORCED_DISCARD, 2, (1, 2)), "penalty.cards"),
        (J.Penalty(P.FORCED_DISCARD, 40), "penalty.count"),
    ],
    ids=["none", "draw", "no-wu", "cards", "count"],
)
def test_a_reporter_proposes_only_what_the_seed_leaves_open(
    penalty: J.Penalty | None, field: str
) -> None:
    """p2:51: 其他违规 takes 警告、强制弃牌、公开手牌1回合 or 判负; the reporter never picks cards."""
    from domain.engine import MalformedCommand

    h = opened()
    version = h.version
    with pytest.raises(MalformedCommand) as e:
        h.act(J.Report(0, 1, K.OTHER, (version,), penalty, ""))
    assert e.value.field == field and h.version == version


def test_forfeit_needs_an_arbiter() -> None:
    """p2:72 经仲裁确认后，可直接判该玩家负: at a table without an arbiter 判负 cannot even be
    proposed; at an arbitrated one the seats' votes cannot give it, only the ruling."""
    h = opened()
    with pytest.raises(RuleViolation) as e:
        h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.FORFEIT), "cheating"))
    assert e.value.reason == "FORFEIT_NEEDS_ARBITER"
    h = opened(arbitrated=True)
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.FORFEIT), "cheating"))
    case = h.version
    h.act(J.CastVote(2, case, True))
    assert h.act(J.CastVote(1, case, True)) == [J.VoteCast(1, case, True)], "no verdict"
    assert h.table.paused and tables.to_act(h.table) == (), "the arbiter is awaited"


@pytest.mark.parametrize("evidence", [(), tuple(range(1, 18)), (3, 3)], ids=["none", "17", "dup"])
def test_report_evidence_is_bounded(evidence: tuple[int, ...]) -> None:
    from domain.engine import MalformedCommand

    h = opened()
    version = h.version
    with pytest.raises(MalformedCommand) as e:
        h.act(J.Report(0, 1, K.OTHER, evidence, J.Penalty(P.WARNING), ""))
    assert e.value.field == "evidence" and h.version == version


# --- votes, the arbiter, forfeit, redeal (part2:53-58, 69-72) --------------------------------


def test_a_report_the_seats_reject_changes_nothing() -> None:
    """Four seats: every seat but the reporter rejects it, the accused included."""
    h = opened(seats=4)
    game = h.game
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.WARNING), "?"))
    case = h.version
    assert h.act(J.CastVote(2, case, False)) == [J.VoteCast(2, case, False)]
    assert h.act(J.CastVote(3, case, False)) == [J.VoteCast(3, case, False)]
    facts = h.act(J.CastVote(1, case, False))
    assert facts[-1] == J.CaseClosed(case, J.CaseStatus.REJECTED)
    assert h.game == game and not h.table.paused and h.table.justice.violations == (0, 0, 0, 0)


def test_the_accused_cannot_vote_a_report_down_alone() -> None:
    """Three seats: the accused's no alone rejects nothing (the other seat may still
    reject too); the other seat confirms: 其他违规 needs every voter, so it is a dispute,
    and without an arbiter it closes UNRESOLVED."""
    h = opened(seats=3)
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.WARNING), "stalling"))
    case = h.version
    assert h.act(J.CastVote(1, case, False)) == [J.VoteCast(1, case, False)]
    facts = h.act(J.CastVote(2, case, True))
    assert facts[1] == J.CaseClosed(case, J.CaseStatus.UNRESOLVED)
    assert h.table.justice.violations[1] == 0


def test_a_split_table_without_an_arbiter_leaves_the_report_unresolved() -> None:
    """Four seats split 1-1 (the accused against): a dispute (若有争议); with no arbiter it is
    recorded UNRESOLVED, nothing is applied and the game goes on -- never a redeal."""
    h = opened(seats=4)
    game = h.game
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.WARNING), "stalling"))
    case = h.version
    h.act(J.CastVote(2, case, True))
    facts = h.act(J.CastVote(3, case, False))  # a yes and a no: seat 1 cannot change that
    assert facts[-1] == J.CaseClosed(case, J.CaseStatus.UNRESOLVED)
    assert h.game == game and not h.table.paused and h.table.justice.redeals == 0
    with pytest.raises(RuleViolation) as e:
        h.act(J.Rule(0, case, True))
    assert e.value.reason == "NO_ARBITER"


def test_part2_57_the_arbiter_settles_a_case_at_once() -> None:
    """part2:57 若有争议，可由第三方（如裁判或旁观者）介入仲裁."""
    h = opened(enforcement=E.PLAYERS, arbitrated=True)
    _, command = wrong_declaration(h)
    h.act(command)
    h.act(
        J.Report(
            0, 1, K.WRONG_DECLARATION, (h.version,), J.Penalty(P.WARNING, 0, command.cards), ""
        )
    )
    facts = h.act(J.Rule(0, h.version, True))
    assert names(facts) == [
        "ArbiterRuled",
        "CaseClosed",
        "PenaltyApplied",
        "PenaltyDiscarded",
        "Drew",
    ]


def test_part2_72_forfeit_ends_the_game() -> None:
    """part2:72 经仲裁确认后，可直接判该玩家负 (其他违规 with the graded penalty 判负)."""
    h = opened(arbitrated=True)
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.FORFEIT), "cheating"))
    facts = h.act(J.Rule(0, h.version, True))
    assert names(facts) == ["ArbiterRuled", "CaseClosed", "PenaltyApplied", "ShuffleRevealed"]
    outcome = h.table.outcome
    assert outcome is not None and outcome.reason == "FORFEIT" and outcome.winners == (0, 2)


def test_part2_70_redeal_only_when_every_seat_agrees() -> None:
    """part2:70 可暂停游戏，重新洗牌发牌 is a *may*: a split vote never redeals by itself; when
    every seat agrees (AgreeRedeal) on the open case, a new deal at the same table follows,
    with the old game kept in the history."""
    h = opened(seats=3)
    old_events = len(h.stored)
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.WARNING), "stalling"))
    case = h.version
    assert h.act(J.AgreeRedeal(0, case)) == [J.RedealAgreed(0, case)]
    assert h.act(J.AgreeRedeal(1, case)) == [J.RedealAgreed(1, case)]
    with pytest.raises(RuleViolation) as e:
        h.act(J.AgreeRedeal(1, case))
    assert e.value.reason == "ALREADY_AGREED"
    facts = h.act(J.AgreeRedeal(2, case), draw=False)
    assert names(facts) == ["RedealAgreed", "CaseClosed", "RedealOpened"]
    assert facts[1].status is J.CaseStatus.DEADLOCKED
    assert facts[2].requested_by == "seats", "drawn through a fresh commit–reveal next"
    facts = h.draw_redeal({s: f"fresh{s}" for s in range(3)})
    redealt = facts[0]
    assert names(facts) == ["GameRedealt", "Dealt", "Dealt", "Dealt", "LeaderChosen"]
    fresh = initial_state(h.table.options, 3, redealt.deck, redealt.seed)
    for f in facts[1:]:
        fresh = RULES.evolve(fresh, f)
    assert h.game == fresh and h.table.justice.redeals == 1
    assert sum(isinstance(f, Dealt) for f in facts) == 3 and len(h.stored) > old_events
    assert h.stored[old_events - 1]["type"] == "Played", "the old game stays in the history"


def test_the_arbiter_never_redeals_not_even_a_dispute() -> None:
    """p2:70 重新洗牌发牌 is the table's, by every seat's consent: the arbiter's Redeal is
    refused (REDEAL_NEEDS_EVERY_SEAT), nothing appended, before a case, on an open case and
    on a dispute; it rules instead."""
    h = opened(arbitrated=True)
    version = h.version
    with pytest.raises(RuleViolation) as e:
        h.act(J.Redeal(0))
    assert e.value.reason == "REDEAL_NEEDS_EVERY_SEAT" and h.version == version
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.WARNING), "stalling"))
    case = h.version
    h.act(J.CastVote(2, case, True))
    h.act(J.CastVote(1, case, False))
    assert h.table.paused and tables.to_act(h.table) == (), "a dispute: the arbiter's"
    version = h.version
    with pytest.raises(RuleViolation) as e:
        h.act(J.Redeal(0))
    assert e.value.reason == "REDEAL_NEEDS_EVERY_SEAT" and e.value.rule == J.REDEAL_RULE
    assert h.version == version and h.table.justice.redeals == 0
    h.act(J.Rule(0, case, False))
    assert not h.table.paused
    h2 = opened()
    h2.act(J.Report(0, 1, K.OTHER, (h2.version,), J.Penalty(P.WARNING), "stalling"))
    with pytest.raises(RuleViolation) as e:
        h2.act(J.Redeal(0))
    assert e.value.reason == "NO_ARBITER", "no arbiter at this table"


@pytest.mark.parametrize("seats", [2, 3])
def test_an_arbiter_and_a_colluding_seat_cannot_redeal_without_the_honest_seat(
    seats: int,
) -> None:
    """Given an arbitrated table where seat 0 colludes with the arbiter (and, at 3 seats,
    seat 2 with them): however they report, vote and agree, no redeal happens until the
    honest seat 1 agrees too; the honest seat refuses by not agreeing."""
    h = opened(arbitrated=True, seats=seats)
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.WARNING), "made up"))
    case = h.version
    colluders = [s for s in range(seats) if s != 1]
    for seat in colluders:
        h.act(J.AgreeRedeal(seat, case))
    if seats == 3:
        h.act(J.CastVote(2, case, True))  # the partner confirms: a dispute with seat 1's no
    h.act(J.CastVote(1, case, False))
    for command in (J.Redeal(0), J.AgreeRedeal(0, case)):
        version = h.version
        with pytest.raises(RuleViolation):
            h.act(command)
        assert h.version == version, "nothing appended"
    assert h.table.redraw is None and h.table.justice.redeals == 0
    assert not any(isinstance(f, tables.RedealOpened) for b in h.batches for f in b.facts)
    h.act(J.Rule(0, case, True))  # the arbiter can only rule: a warning, no new deal
    assert not h.table.paused and h.table.justice.redeals == 0


def test_a_report_that_ends_in_a_redeal_is_a_failed_report() -> None:
    """Every seat agreed to 重新洗牌发牌 on seat 0's report: the game is redealt, and the
    report counts toward seat 0's REPORT_LIMIT like a rejected one."""
    h = opened(seats=3)
    assert h.table.justice.reports_left(0) == J.FAILED_REPORTS_ALLOWED
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.WARNING), "1"))
    case = h.version
    for seat in range(3):
        h.act(J.AgreeRedeal(seat, case))
    assert h.table.justice.redeals == 1
    assert h.table.justice.cases[-1].status is J.CaseStatus.DEADLOCKED
    assert h.table.justice.failed_reports(0) == 1
    assert h.table.justice.reports_left(0) == J.FAILED_REPORTS_ALLOWED - 1


def test_an_open_case_runs_on_the_table_clock() -> None:
    """A report cannot stall a timed table: voters who never vote time out, and the case
    closes UNRESOLVED."""
    h = opened(time_limit_ms=1000, seats=4)
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.WARNING), "stalling"))
    case = h.version
    h.act(J.CastVote(2, case, True))
    facts = h.timeout()
    assert facts == [J.CaseTimedOut(case, (1, 3)), J.CaseClosed(case, J.CaseStatus.UNRESOLVED)]
    assert not h.table.paused and h.table.justice.violations == (0, 0, 0, 0)


# --- appeals (part2:61-62) ----------------------------------------------------------------------


def penalised(h: Harness, accepted: bool = False) -> tuple[Any, int]:
    """Seat 1's illegal combo stands (PLAYERS), is reported by seat 0 and upheld: every
    other seat confirms it, or seat 1 accepts it (``accepted``; then the other seats may
    decide its appeal). Returns the game state just before the penalty and the case id."""
    _, command = illegal_combo(h)
    h.act(command)
    h.act(J.Report(0, 1, K.ILLEGAL_COMBO, (h.version,), J.Penalty(P.WARNING, 0, command.cards), ""))
    case = h.version
    before = h.game
    for seat in (1,) if accepted else range(2, h.table.seat_count):
        h.act(J.CastVote(seat, case, True))
    assert h.game != before
    return before, case


def test_part2_62_an_upheld_appeal_restores_the_exact_prior_state() -> None:
    """part2:61-62 处罚执行后立即提出申诉 … 若申诉成立，撤销处罚. The seats that did not report
    or confirm the penalised case decide (seat 1 accepted it, seat 0 reported it)."""
    h = opened(enforcement=E.PLAYERS, seats=4)
    before, case = penalised(h, accepted=True)
    assert J.Appeal(1, case, "") in tables.legal_commands(h.table, 1)
    h.act(J.Appeal(1, case, "it was 花鸟风月 plus two"))
    appeal = h.version
    assert tables.to_act(h.table) == (2, 3)
    h.act(J.CastVote(2, appeal, True))
    facts = h.act(J.CastVote(3, appeal, True))
    assert names(facts) == ["VoteCast", "CaseClosed", "PenaltyRevoked"]
    assert_restored(h, before)
    assert h.table.justice.violations == (0, 0, 0, 0)


def assert_restored(h: Harness, before: Any) -> None:
    """The game is as before the penalty except the deck, which is the same cards
    reshuffled from the committed randomness (the drawn cards tell the seat nothing)."""
    from dataclasses import replace

    assert replace(h.game, deck=before.deck) == before, "restored exactly, but for the deck"
    assert sorted(h.game.deck) == sorted(before.deck)
    assert h.game.deck != before.deck, "the deck was reshuffled"


def test_a_revoked_draw_does_not_tell_the_seat_its_next_draws() -> None:
    """The deck peek: a DRAW penalty shows the seat the top cards; revoked, those cards must
    not sit on top of the deck again in the order the seat saw."""
    h = opened(time_limit_ms=20_000)
    before = h.game
    facts = h.timeout()  # 出牌超时: 摸1张 and the turn
    seen = next(f for f in facts if isinstance(f, Drew)).cards
    case_id = facts[1].case_id
    h.act(J.Appeal(1, case_id, "the clock was wrong"))
    h.act(J.CastVote(0, h.version, True))
    revoked = h.act(J.CastVote(2, h.version - 1, True))[-1]
    assert isinstance(revoked, J.PenaltyRevoked) and revoked.deck == h.game.deck
    assert_restored(h, before)
    assert tables.redact("huaniao", revoked, SPECTATOR).deck == (), "the order stays hidden"
    assert h.game.deck[: len(seen)] != tuple(c.id for c in seen) or len(seen) == 0


def test_part2_62_a_rejected_appeal_keeps_the_penalty() -> None:
    """若申诉不成立，维持原处罚决定; and a penalty is appealed once."""
    h = opened(enforcement=E.PLAYERS, seats=4)
    _, case = penalised(h, accepted=True)
    after = h.game
    h.act(J.Appeal(1, case, "no"))
    h.act(J.CastVote(2, h.version, False))
    facts = h.act(J.CastVote(3, h.version - 1, False))
    assert facts[-1].status is J.CaseStatus.REJECTED and h.game == after
    with pytest.raises(RuleViolation) as e:
        h.act(J.Appeal(1, case, "again"))
    assert e.value.reason == "APPEAL_TOO_LATE"


def test_an_appeal_comes_too_late_after_the_next_move() -> None:
    h = opened(enforcement=E.PLAYERS)
    _, case = penalised(h)
    h.act(RULES.legal_commands(h.game, h.game.turn)[0])
    with pytest.raises(RuleViolation) as e:
        h.act(J.Appeal(1, case, "late"))
    assert e.value.reason == "APPEAL_TOO_LATE"


# --- timeouts (part2:31-33) -------------------------------------------------------------------


def test_part2_33_a_timeout_draws_one_and_the_turn_is_taken_as_perch() -> None:
    """part2:32-33 出牌超时 → 摸1张; reading: the turn counts as 栖 without 栖's own draw. Seat
    1 holds 8: the limit is at its base, so the draw asks for no discard (p1:119)."""
    h = opened(time_limit_ms=20_000)
    hand = h.game.hands[1].cards
    facts = h.timeout()
    # seat 1 held 8: the limit is at its base, so nothing is owed (p1:119, 削减期间 only)
    assert names(facts) == ["TurnTimedOut", "PenaltyApplied", "Drew", "Perched"]
    assert facts[0] == J.TurnTimedOut(1, 20_000)
    assert (
        facts[1].penalty == J.Penalty(P.DRAW, 1) and facts[1].game_facts == len(facts) - 2
    )  # the draw and the turn
    assert isinstance(facts[2], Drew) and facts[2].cause is Cause.PENALTY
    assert len(h.game.hands[1].cards) == len(hand) + 1 and h.game.turn == 2
    assert h.table.justice.violations == (0, 1, 0) and tables.to_act(h.table) == (2,)


def test_a_table_where_nobody_ever_acts_still_ends() -> None:
    """The server fires the timer again and again: each timeout draws one and passes the
    turn; once the deck is out the next timed-out 栖 ends the song."""
    h = opened(time_limit_ms=1000)
    for _ in range(500):
        if h.table.phase is not tables.Phase.PLAYING:
            break
        h.timeout()
    assert h.table.outcome is not None and h.table.revealed
    assert cards_in_play(h.game) == list(range(108))


def test_a_timed_out_discard_is_made_for_the_seat() -> None:
    h = opened(time_limit_ms=1000)
    h.act(Play(1, cards(h, 1, "风"), target=2))
    facts = h.timeout()
    assert names(facts) == ["TurnTimedOut", "PenaltyApplied", "Drew", "Discarded"]
    assert [c.kind for c in facts[-1].cards] == [CardKind.BIRD], "in the order 鸟→数量→功能"
    assert h.game.phase == Phase.PLAYING and len(h.game.hands[2].cards) == 8


def test_every_seat_owing_a_discard_times_out_at_once() -> None:
    """雀舞满山 (all draw 3, limit -1) leaves seats 0 and 2 over the limit; the clock runs out
    for both (server/usecases/timers.py: time_out_all): each draws its penalty card, which adds to
    what it owes, and the discard is made for it in order."""
    options = Options(mode=Mode.REGULAR)
    hands = ["鸟鸟鸟鸟鸟鸟鸟十", "鸟鸟鸟鸟鸟鸟十十", "鸟鸟鸟鸟十十十十"]
    h = Harness.open(
        options, 3, E.REJECT, prepared_deck(options, hands), time_limit_ms=1000, check=conserved
    )
    h.act(RULES.legal_commands(h.game, 0)[0])
    h.act(Play(1, cards(h, 1, "鸟鸟鸟鸟鸟鸟"), combo=Combo.QUE_WU_MAN_SHAN))
    assert tables.to_act(h.table) == (0, 2) and h.game.hand_limit == 7
    facts = h.timeout()
    assert names(facts) == 2 * [
        "TurnTimedOut",
        "PenaltyApplied",
        "Drew",
        "DiscardRequired",
        "Discarded",
    ]
    assert [len(f.cards) for f in facts if isinstance(f, Discarded)] == [4, 5]
    assert [len(hand.cards) for hand in h.game.hands] == [7, 5, 7]
    assert h.game.phase == Phase.PLAYING and h.game.turn == 2


# --- random self-play with table commands ------------------------------------------------------

SELFPLAY_OPTIONS = [
    Options(mode=Mode.SIMPLE),
    Options(mode=Mode.BASIC),
    Options(mode=Mode.REGULAR),
    Options(mode=Mode.REGULAR, silent_night=(Combo.TIANSHANG_TIANXIA,)),
    Options(mode=Mode.FULL),
    Options(mode=Mode.PRO, lofty_tune=True, blossoms=True),
    Options(mode=Mode.PRO, spring_snow=True, continuo=True, twin_swallows=True),
]
GAMES = int(os.environ.get("JUSTICE_SELFPLAY_GAMES", "300"))


@pytest.mark.parametrize("enforcement", list(E), ids=[e.name for e in E])
def test_random_games_with_table_commands_end_and_rebuild(enforcement: J.Enforcement) -> None:
    """≥300 games per enforcement mode, over every mode: bots sometimes try forbidden moves,
    retract, report (random kinds), vote, appeal and time out. After every fact: the mode's
    cards are conserved and the table rebuilt from the stored facts (encode/decode + evolve)
    equals the live one. Every game ends. A failure names its seed."""
    stats = Stats()
    base = random.Random(enforcement.name).randrange(1 << 30)
    for i in range(GAMES):
        seed = base + i
        options = SELFPLAY_OPTIONS[i % len(SELFPLAY_OPTIONS)]
        try:
            play_justice_game(
                options, (4, 4, 3, 2)[i % 4], seed, enforcement, stats, timid=i % 3 == 0
            )
        except Exception as error:
            raise AssertionError(f"seed={seed} options={options}: {error}") from error
    assert stats.games == GAMES
    seen = set(stats.kinds)
    assert {"report", "retracted", "timeout", "appeal", "redealt"} <= seen, seen
    assert {"REPORT:UPHELD", "REPORT:REJECTED", "APPEAL:UPHELD"} <= seen, seen
    made = {k.split(":")[1] for k in seen if k.startswith(("refused:", "REFEREE:", "PLAYERS:"))}
    # OTHER: an opening without the verse the table requires (a ritual, 其他违规)
    kinds = {"ILLEGAL_COMBO", "WRONG_DECLARATION", "SEASON_RULE", "DISCARD_ORDER", "OTHER"}
    assert made == kinds, seen


@pytest.mark.parametrize("enforcement", list(E), ids=[e.name for e in E])
def test_no_redacted_fact_or_view_leaks_a_hidden_card_in_games_with_justice(
    enforcement: J.Enforcement,
) -> None:
    """Hidden information with penalties, open hands, retractions and redeals in the games:
    a seat or spectator never gets a card hidden from it, by a fact or a view."""
    base = random.Random("leaks-" + enforcement.name).randrange(1 << 30)
    for i in range(30):
        seed = base + i
        options = SELFPLAY_OPTIONS[i % len(SELFPLAY_OPTIONS)]
        try:
            play_justice_game(options, 4, seed, enforcement, roundtrip=False, check=no_leaks())
        except Exception as error:
            raise AssertionError(f"seed={seed} options={options}: {error}") from error


def test_a_refereed_penalty_can_be_appealed_and_the_turn_comes_back() -> None:
    """part2 申诉 (「處罰執行後立即提出申訴」): the turn taken for a refereed attempt is part of
    its penalty, so an upheld appeal restores the game exactly as before the attempt."""
    h = opened(enforcement=E.REFEREE)
    before = h.game
    _seat, command = illegal_combo(h)
    facts = h.act(command)
    case_id = facts[1].case_id
    h.act(J.Appeal(1, case_id, "it was legal"))
    appeal_case = h.table.justice.cases[-1]
    assert appeal_case.kind is J.CaseKind.APPEAL
    h.act(J.CastVote(0, appeal_case.id, True))
    h.act(J.CastVote(2, appeal_case.id, True))
    assert_restored(h, before)
    assert h.game.turn == 1, "seat 1 has its turn back"
    assert h.table.justice.penalties[-1].revoked


def test_with_two_seats_the_reporter_alone_never_wins() -> None:
    """The 2-seat FORFEIT/OPEN_HAND attack: the reporter is not a voter; the accused may
    accept the report, else only an arbiter upholds it; without one it is UNRESOLVED."""
    h = opened(seats=2)
    with pytest.raises(RuleViolation):
        h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.FORFEIT), "no arbiter"))
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.OPEN_HAND), "peek"))
    case = h.version
    assert h.table.paused and tables.to_act(h.table) == (1,), "only the accused votes"
    facts = h.act(J.CastVote(1, case, False))
    assert facts[-1] == J.CaseClosed(case, J.CaseStatus.UNRESOLVED)
    assert not RULES.view(h.game, SPECTATOR).seats[1].open_hand, "seat 0 saw nothing"
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.WARNING), "stalling"))
    facts = h.act(J.CastVote(1, h.version, True))
    assert names(facts)[:3] == ["VoteCast", "CaseClosed", "PenaltyApplied"], "it accepts"
    assert not h.table.paused and h.table.justice.violations == (0, 1)


def test_with_two_seats_an_arbiter_settles_a_refused_report() -> None:
    h = opened(seats=2, arbitrated=True)
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.FORFEIT), "cheating"))
    case = h.version
    assert h.act(J.CastVote(1, case, False)) == [J.VoteCast(1, case, False)]
    assert h.table.paused and tables.to_act(h.table) == ()
    facts = h.act(J.Rule(0, case, False))
    assert facts[-1] == J.CaseClosed(case, J.CaseStatus.REJECTED) and h.table.outcome is None


# --- collusion, deadlines and the report limit (issue 24) ---------------------------------------
#
# p2:55-57 「所有玩家共同確認違規行為是否成立」「若有爭議，可由第三方（如裁判或旁觀者）介入仲裁」:
# a report the engine cannot check (其他违规) stands only when every voter confirms it, the
# accused included; a dispute goes to the arbiter, or closes UNRESOLVED at a table without one.

GRADED = {
    "open-hand": J.Penalty(P.OPEN_HAND),
    "forced-discard": J.Penalty(P.FORCED_DISCARD, 7),
}


def hand_and_record(h: Harness, seat: int) -> tuple[Any, ...]:
    """What a penalty on ``seat`` would change: its cards, whether its hand is open, its
    violation record."""
    seen = RULES.view(h.game, SPECTATOR).seats[seat]
    return h.game.hands[seat].cards, seen.open_hand, h.table.justice.violations[seat]


@pytest.mark.parametrize("seats", [3, 4], ids=["3-seats", "4-seats"])
@pytest.mark.parametrize("victim_first", [False, True], ids=["colluders-first", "victim-first"])
@pytest.mark.parametrize("penalty", list(GRADED), ids=list(GRADED))
def test_colluders_cannot_penalise_the_seat_they_report_without_an_arbiter(
    seats: int, victim_first: bool, penalty: str
) -> None:
    """Given every seat but seat 1 colluding (seat 0 reports 其他违规, the rest confirm) and
    seat 1 rejecting, at a table without an arbiter: the report closes UNRESOLVED, seat 1's
    hand is neither shown nor discarded from, and its record stays clean."""
    h = opened(seats=seats)
    before = hand_and_record(h, 1)
    h.act(J.Report(0, 1, K.OTHER, (h.version,), GRADED[penalty], "colluding"))
    case = h.version
    colluders = list(range(2, seats))
    order = [1, *colluders] if victim_first else [*colluders, 1]
    # it closes as soon as a yes and a no are in: the votes still to come cannot change that
    closing = 1 if victim_first else len(order) - 1
    for seat in order[:closing]:
        assert h.act(J.CastVote(seat, case, seat != 1)) == [J.VoteCast(seat, case, seat != 1)]
    seat = order[closing]
    facts = h.act(J.CastVote(seat, case, seat != 1))
    assert facts == [J.VoteCast(seat, case, seat != 1), J.CaseClosed(case, J.CaseStatus.UNRESOLVED)]
    assert hand_and_record(h, 1) == before and not h.table.paused
    assert h.table.justice.cases[-1].status is J.CaseStatus.UNRESOLVED


@pytest.mark.parametrize("penalty", list(GRADED), ids=list(GRADED))
def test_the_accused_accepting_alone_does_not_take_an_unchecked_penalty(penalty: str) -> None:
    """A colluding "accused" would take a forced discard that helps it go out: its yes alone
    upholds nothing while another voter rejects."""
    h = opened(seats=3)
    before = hand_and_record(h, 1)
    h.act(J.Report(0, 1, K.OTHER, (h.version,), GRADED[penalty], "help me"))
    case = h.version
    assert h.act(J.CastVote(1, case, True)) == [J.VoteCast(1, case, True)]
    facts = h.act(J.CastVote(2, case, False))
    assert facts[-1] == J.CaseClosed(case, J.CaseStatus.UNRESOLVED)
    assert hand_and_record(h, 1) == before


@pytest.mark.parametrize("seats", [3, 4], ids=["3-seats", "4-seats"])
def test_at_an_arbitrated_table_the_arbiter_rules_a_disputed_report(seats: int) -> None:
    """The same collusion at a table with an arbiter: a dispute, the remaining votes are
    closed, and only the arbiter's ruling decides (an arbitrated table trusts its arbiter)."""
    h = opened(seats=seats, arbitrated=True)
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.FORFEIT), "colluding"))
    case = h.version
    h.act(J.CastVote(2, case, True))
    assert h.act(J.CastVote(1, case, False)) == [J.VoteCast(1, case, False)]
    assert h.table.paused and tables.to_act(h.table) == (), "the arbiter is awaited"
    if seats == 4:
        with pytest.raises(RuleViolation) as e:
            h.act(J.CastVote(3, case, True))
        assert e.value.reason == "VOTE_CLOSED", "seat 3 can no longer change a dispute"
    assert h.table.outcome is None, "the seats' votes forfeit nobody"
    facts = h.act(J.Rule(0, case, False))
    assert facts[-1] == J.CaseClosed(case, J.CaseStatus.REJECTED) and h.table.outcome is None


@pytest.mark.parametrize("seats", [3, 4], ids=["3-seats", "4-seats"])
def test_an_appeal_is_not_decided_by_the_seats_that_reported_or_confirmed(seats: int) -> None:
    """The arbiter upheld the colluders' report against seat 1 (a forced discard); seat 1's
    appeal is not theirs to decide: the reporter and every seat that voted to uphold are
    recused, nobody is left, and the arbiter rules again."""
    h = opened(seats=seats, arbitrated=True)
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.FORCED_DISCARD, 7), "colluding"))
    case = h.version
    for seat in range(2, seats):
        h.act(J.CastVote(seat, case, True))
    h.act(J.CastVote(1, case, False))
    before = h.game
    h.act(J.Rule(0, case, True))
    assert len(h.game.hands[1].cards) == 1, "7 of seat 1's 8 cards discarded"
    h.act(J.Appeal(1, case, "they colluded"))
    appeal = h.version
    assert h.table.justice.cases[-1].recused == tuple(s for s in range(seats) if s != 1)
    assert h.table.paused and tables.to_act(h.table) == (), "no seat may vote on it"
    for colluder in (0, *range(2, seats)):
        with pytest.raises(RuleViolation) as e:
            h.act(J.CastVote(colluder, appeal, False))
        assert e.value.reason == "NOT_A_VOTER"
    facts = h.act(J.Rule(0, appeal, True))
    assert names(facts) == ["ArbiterRuled", "CaseClosed", "PenaltyRevoked"]
    assert_restored(h, before)


def test_an_appeal_nobody_may_decide_closes_unresolved_and_the_penalty_stands() -> None:
    """Without an arbiter: seat 1's rule violation was reported by seat 0 and confirmed by
    seat 2, so no seat is left to hear the appeal (维持原处罚决定)."""
    h = opened(enforcement=E.PLAYERS)
    _, case = penalised(h)
    after = h.game
    facts = h.act(J.Appeal(1, case, "they colluded"))
    appeal = h.version - 1
    assert facts == [
        J.AppealFiled(1, case, "they colluded"),
        J.CaseClosed(appeal, J.CaseStatus.UNRESOLVED),
    ]
    assert h.game == after and not h.table.paused and h.table.justice.violations[1] == 1


def test_a_split_appeal_without_an_arbiter_keeps_the_penalty_unresolved() -> None:
    h = opened(enforcement=E.PLAYERS, seats=4)
    _, case = penalised(h, accepted=True)
    after = h.game
    h.act(J.Appeal(1, case, "no"))
    appeal = h.version
    assert h.act(J.CastVote(2, appeal, True)) == [J.VoteCast(2, appeal, True)]
    facts = h.act(J.CastVote(3, appeal, False))
    assert facts[-1] == J.CaseClosed(appeal, J.CaseStatus.UNRESOLVED) and h.game == after


def test_a_clockless_table_whose_voter_never_votes_moves_on_at_the_case_deadline() -> None:
    """No turn clock (the default): a case still has its deadline (the table's case limit,
    recorded at creation); the vote not cast lapses, the 其他违规 report cannot be upheld
    on the others' word, and the case closes UNRESOLVED."""
    h = opened(seats=3)
    assert h.table.time_limit_ms == 0 and h.table.case_time_limit_ms == J.CASE_TIME_LIMIT_MS
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.OPEN_HAND), "stalling"))
    case = h.version
    assert h.case_deadline() == h.at[case] + timedelta(milliseconds=J.CASE_TIME_LIMIT_MS)
    h.act(J.CastVote(2, case, True))
    assert tables.to_act(h.table) == (1,), "seat 1 stalls"
    facts = h.timeout()
    assert facts == [J.CaseTimedOut(case, (1,)), J.CaseClosed(case, J.CaseStatus.UNRESOLVED)]
    assert not h.table.paused and h.case_deadline() is None
    assert not RULES.view(h.game, SPECTATOR).seats[1].open_hand
    assert tables.to_act(h.table) == (1,), "the game goes on: seat 1's turn"


def test_at_an_arbitrated_clockless_table_a_lapsed_vote_sends_the_case_to_the_arbiter() -> None:
    h = opened(seats=4, arbitrated=True)
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.WARNING), "stalling"))
    case = h.version
    h.act(J.CastVote(2, case, True))
    assert h.timeout() == [J.CaseTimedOut(case, (1, 3))]
    assert h.table.paused and tables.to_act(h.table) == (), "the arbiter, on the clock again"
    assert h.table.justice.cases[-1].lapsed == (1, 3)
    with pytest.raises(RuleViolation) as e:
        h.act(J.CastVote(3, case, True))
    assert e.value.reason == "VOTE_CLOSED", "a lapsed vote stays lapsed"
    assert h.timeout() == [J.CaseTimedOut(case, ()), J.CaseClosed(case, J.CaseStatus.UNRESOLVED)]
    assert not h.table.paused


def test_a_record_made_before_case_deadlines_keeps_no_deadline_without_a_clock() -> None:
    """GameCreated without case_time_limit_ms (0): as before, no case deadline at a table
    without a clock."""
    options = Options(mode=Mode.REGULAR)
    deck = prepared_deck(options, HANDS[:3], TOP)
    h = Harness.open(options, 3, E.REJECT, deck, check=conserved)
    legacy = dataclasses.replace(h.table, case_time_limit_ms=0)  # as such a record evolves
    h.table = h.rebuilt = legacy
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.WARNING), "old"))
    assert h.case_deadline() is None
    with pytest.raises(RuleViolation) as e:
        tables.time_out_all(h.table)
    assert e.value.reason == "NO_TIMER"
    with pytest.raises(MalformedCommand) as m:  # a new table always has one
        tables.create(RULES, options, 3, "h", "s", deck, case_time_limit_ms=0)
    assert m.value.field == "case_time_limit_ms"


def test_a_seat_is_refused_after_two_reports_rejected_or_unresolved() -> None:
    """No stalling through justice: seat 0's reports fail twice (rejected, unresolved); its
    third is refused, nothing appended; an upheld report does not count, other seats may
    still report."""
    h = opened(seats=3)
    assert h.table.justice.reports_left(0) == J.FAILED_REPORTS_ALLOWED == 2
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.WARNING), "1"))
    h.act(J.CastVote(1, h.version, True))
    h.act(J.CastVote(2, h.version - 1, True))
    assert h.table.justice.cases[-1].status is J.CaseStatus.UPHELD
    assert h.table.justice.reports_left(0) == 2, "an upheld report costs nothing"
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.WARNING), "2"))
    h.act(J.CastVote(1, h.version, False))
    h.act(J.CastVote(2, h.version - 1, False))
    assert h.table.justice.cases[-1].status is J.CaseStatus.REJECTED
    h.act(J.Report(0, 2, K.OTHER, (h.version,), J.Penalty(P.WARNING), "3"))
    h.act(J.CastVote(1, h.version, True))
    h.act(J.CastVote(2, h.version - 1, False))
    assert h.table.justice.cases[-1].status is J.CaseStatus.UNRESOLVED
    assert h.table.justice.reports_left(0) == 0
    version = h.version
    with pytest.raises(RuleViolation) as e:
        h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.WARNING), "4"))
    assert e.value.reason == "REPORT_LIMIT" and h.version == version
    h.act(J.Report(2, 1, K.OTHER, (h.version,), J.Penalty(P.WARNING), "another seat"))
    assert h.table.paused


# --- the same in 川南字牌 (WARNING and, with an arbiter, FORFEIT: it has no PenaltyRules) ---------


def zipai_table(seats: int, arbitrated: bool = False) -> tables.Table:
    from domain.zipai import RULES as ZIPAI
    from domain.zipai import Options as ZipaiOptions

    (created,) = tables.create(ZIPAI, ZipaiOptions(), seats, "h", "s", arbitrated=arbitrated)
    table = tables.evolve(None, created)
    for seat in range(seats):
        table = fold(table, tables.take_seat(table, seat, f"p{seat}", f"h{seat}", f"c{seat}"))
    return fold(table, tables.start(table))


def fold(table: tables.Table, facts: list[Any]) -> tables.Table:
    for fact in facts:
        table = tables.evolve(table, fact)
    return table


def zipai_act(table: tables.Table, command: Any) -> tuple[tables.Table, list[Any]]:
    facts = tables.act(table, command)
    return fold(table, facts), facts


@pytest.mark.parametrize("seats", [3, 4], ids=["3-seats", "4-seats"])
def test_zipai_colluders_cannot_warn_or_forfeit_the_seat_they_report(seats: int) -> None:
    t = zipai_table(seats)
    with pytest.raises(RuleViolation) as e:
        tables.act(t, J.Report(0, 1, K.OTHER, (t.version,), J.Penalty(P.OPEN_HAND), ""))
    assert e.value.reason == "PENALTY_NOT_SUPPORTED", "川南字牌 takes WARNING or FORFEIT only"
    t, _ = zipai_act(t, J.Report(0, 1, K.OTHER, (t.version,), J.Penalty(P.WARNING), ""))
    case = t.version
    for seat in range(2, seats):
        t, _ = zipai_act(t, J.CastVote(seat, case, True))
    t, facts = zipai_act(t, J.CastVote(1, case, False))
    assert facts[-1] == J.CaseClosed(case, J.CaseStatus.UNRESOLVED)
    assert t.justice.violations[1] == 0 and t.justice.warnings[1] == 0 and not t.paused

    t = zipai_table(seats, arbitrated=True)
    t, _ = zipai_act(t, J.Report(0, 1, K.OTHER, (t.version,), J.Penalty(P.FORFEIT), ""))
    case = t.version
    for seat in range(2, seats):
        t, _ = zipai_act(t, J.CastVote(seat, case, True))
    t, facts = zipai_act(t, J.CastVote(1, case, False))
    assert facts == [J.VoteCast(1, case, False)] and t.outcome is None
    assert t.paused and tables.to_act(t) == (), "the arbiter rules"


def test_zipai_a_clockless_case_times_out_and_a_seat_is_limited_to_two_failed_reports() -> None:
    t = zipai_table(3)
    for note in ("1", "2"):
        t, _ = zipai_act(t, J.Report(0, 1, K.OTHER, (t.version,), J.Penalty(P.WARNING), note))
        case = t.version
        t, _ = zipai_act(t, J.CastVote(2, case, True))
        facts = tables.time_out_all(t)  # seat 1 never votes
        assert facts == [J.CaseTimedOut(case, (1,)), J.CaseClosed(case, J.CaseStatus.UNRESOLVED)]
        t = fold(t, facts)
    with pytest.raises(RuleViolation) as e:
        tables.act(t, J.Report(0, 1, K.OTHER, (t.version,), J.Penalty(P.WARNING), "3"))
    assert e.value.reason == "REPORT_LIMIT"


# --- issue 35: redeals and reports per match, case clocks nobody stretches ---------------


def test_redeals_count_per_match_a_later_hand_carries_those_already_used() -> None:
    """A match's later hand whose GameCreated records the match's one redeal already used
    (cap 1): a seat's agreement is refused REDEAL_LIMIT at once, nothing appended."""
    options = Options(mode=Mode.REGULAR)
    deck = prepared_deck(options, HANDS[:3], TOP)
    h = Harness.open(options, 3, E.REJECT, deck, max_redeals=1, match_redeals_used=1)
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.WARNING), "x"))
    case = h.version
    version = h.version
    with pytest.raises(RuleViolation) as e:
        h.act(J.AgreeRedeal(0, case))
    assert e.value.reason == "REDEAL_LIMIT" and "per match" in e.value.args[0]
    assert h.version == version and h.table.redraw is None


def test_report_limits_count_per_match_a_later_hand_carries_the_failed_reports() -> None:
    options = Options(mode=Mode.REGULAR)
    deck = prepared_deck(options, HANDS[:3], TOP)
    h = Harness.open(options, 3, E.REJECT, deck, match_failed_reports=(2, 1, 0))
    assert [h.table.justice.reports_left(s) for s in range(3)] == [0, 1, 2]
    version = h.version
    with pytest.raises(RuleViolation) as e:
        h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.WARNING), "x"))
    assert e.value.reason == "REPORT_LIMIT" and h.version == version


def test_the_next_hand_of_a_match_carries_its_redeals_and_failed_reports() -> None:
    """domain/match next_hand: the new hand's GameCreated records what the match used so
    far (the hand before's carried counts plus its own), so no hand resets them."""
    from domain import match as matches

    state = matches.evolve(
        None, matches.MatchCreated(MID, "huaniao", 3, 3, 0, matches.Advance.AUTO, True)
    )
    state = matches.evolve(state, matches.HandOpened(1, matches.hand_id(MID, 1)))
    options = Options(mode=Mode.REGULAR)
    h = Harness.open(options, 3, E.REJECT, prepared_deck(options, HANDS[:3], TOP))
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.WARNING), "x"))
    for seat in range(3):
        h.act(J.AgreeRedeal(seat, h.table.justice.cases[-1].id))
    previous = dataclasses.replace(
        h.table, match_id=MID, hand=1, match_redeals_used=1, match_failed_reports=(0, 1, 0)
    )
    previous = dataclasses.replace(
        previous, justice=dataclasses.replace(previous.justice, failed_before=(0, 1, 0))
    )
    state = matches.evolve(
        state, matches.HandEnded(1, matches.hand_id(MID, 1), (0,), (0, 0, 0), "X", "h")
    )
    ((_, (created,)), *_) = matches.next_hand(state, previous, "s" * 64, "t" * 64)
    assert created.match_redeals_used == 2, "one before hand 1, one in it"
    assert created.match_failed_reports == (1, 1, 0), "seat 0's redealt report failed"
    assert created.max_redeals == tables.MAX_REDEALS
    assert created.justice_budget_ms == J.DEFAULT_JUSTICE_BUDGET_MS


MID = "8f1c0a52-31c2-4f3e-9a53-3f2b1c9d0e11"


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("max_redeals", tables.MAX_REDEALS + 1),
        ("case_time_limit_ms", J.MAX_CASE_TIME_LIMIT_MS + 1),
        ("justice_budget_ms", J.MAX_JUSTICE_BUDGET_MS + 1),
        ("justice_budget_ms", 0),
    ],
)
def test_the_redeal_cap_the_case_limit_and_the_justice_budget_are_capped(
    setting: str, value: int
) -> None:
    """Refused above the cap (INVALID_ARGUMENT naming the field): nothing is created."""
    options = Options(mode=Mode.REGULAR)
    with pytest.raises(MalformedCommand) as e:
        tables.create(RULES, options, 3, "h", "s", **{setting: value})
    assert e.value.field == setting
    assert J.MAX_CASE_TIME_LIMIT_MS == 600_000 and J.MAX_JUSTICE_BUDGET_MS == 3_600_000
    assert tables.MAX_REDEALS == 3


LIMIT = J.CASE_TIME_LIMIT_MS


def test_an_agreement_to_redeal_does_not_move_the_case_deadline() -> None:
    """The deadline runs from the report; AgreeRedeal (anyone's, any time) leaves it."""
    h = opened(seats=3)
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.WARNING), "x"))
    case = h.version
    due = h.at[case] + timedelta(milliseconds=LIMIT)
    for seat in (0, 2):
        h.tick(LIMIT // 2)
        h.act(J.AgreeRedeal(seat, case))
        assert h.case_deadline() == due


def test_each_awaited_voter_moves_the_deadline_once_and_nothing_else_does() -> None:
    """4 seats, an unchecked report: seat 2's vote (awaited) moves the deadline to its time;
    seat 2 cannot vote again, and its agreement to redeal moves nothing; seat 3's vote moves
    it once more. After the seats' timeout the arbiter gets one window, then it closes."""
    h = opened(seats=4, arbitrated=True)
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.WARNING), "x"))
    case = h.version
    assert h.case_deadline() == h.at[case] + timedelta(milliseconds=LIMIT)
    h.tick(LIMIT - 1000)
    h.act(J.CastVote(2, case, False))
    moved = h.version
    assert h.case_deadline() == h.at[moved] + timedelta(milliseconds=LIMIT)
    h.tick(1000)
    with pytest.raises(RuleViolation) as e:
        h.act(J.CastVote(2, case, True))
    assert e.value.reason == "ALREADY_VOTED"
    h.act(J.AgreeRedeal(2, case))
    assert h.case_deadline() == h.at[moved] + timedelta(milliseconds=LIMIT), "not moved"
    h.tick(1000)
    h.act(J.CastVote(3, case, False))
    assert h.case_deadline() == h.at[h.version] + timedelta(milliseconds=LIMIT)
    assert h.table.justice.open_case is not None
    assert h.table.justice.open_case.clocked_by == (2, 3)
    h.tick(LIMIT)
    assert h.timeout() == [J.CaseTimedOut(case, (1,))]  # seat 1 lapsed: the arbiter's turn
    assert h.case_deadline() == h.at[h.version] + timedelta(milliseconds=LIMIT)
    h.tick(LIMIT)
    assert h.timeout()[-1] == J.CaseClosed(case, J.CaseStatus.UNRESOLVED)


def test_a_case_runs_out_at_the_hands_justice_budget_and_then_no_case_opens() -> None:
    """A budget of 3 minutes, a case limit of 2: the first case's deadline moves with the
    votes but never past the budget; once the cases spent it, a report is refused
    (JUSTICE_BUDGET_SPENT) and nothing is appended."""
    options = Options(mode=Mode.REGULAR)
    deck = prepared_deck(options, HANDS[:4], TOP)
    h = Harness.open(options, 4, E.REJECT, deck, justice_budget_ms=180_000)
    (opening, *_) = RULES.legal_commands(h.game, 0)
    h.act(opening)
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.WARNING), "x"))
    case = h.version
    h.tick(100_000)
    h.act(J.CastVote(2, case, False))
    budget_end = h.at[case] + timedelta(milliseconds=180_000)
    assert h.case_deadline() == budget_end, "the budget, not the vote's time + limit"
    h.tick(80_000)
    assert h.now == budget_end
    tables.check_justice_budget(h.table, h.at, h.now - timedelta(milliseconds=1))
    h.timeout()
    assert h.table.justice.open_case is None
    assert tables.justice_spent(h.table, h.at, h.now) == timedelta(milliseconds=180_000)
    with pytest.raises(RuleViolation) as e:
        tables.check_justice_budget(h.table, h.at, h.now)
    assert e.value.reason == "JUSTICE_BUDGET_SPENT" and e.value.rule == J.BUDGET_RULE


def run_clock(h: Harness, until: datetime) -> None:
    """The server's clock up to ``until``: each case deadline that passes fires on time."""
    while (due := h.case_deadline()) is not None and due <= until:
        h.now = max(h.now, due)
        h.timeout()
    h.now = until


@pytest.mark.parametrize("seats", [3, 4])
def test_colluders_cannot_stretch_one_report_past_the_documented_bound(seats: int) -> None:
    """The old clock restarted at every event: two colluders agreeing to redeal in turn
    stretched a report to ~3 limits. Now, whatever they send just before each deadline
    (agreements, then every colluding voter's vote), the case is over within seats x limit
    of its opening (docs/api.md: a window from the opening, one per voter's first vote,
    one for the arbiter after the seats' timeout)."""
    h = opened(seats=seats, arbitrated=True)
    h.act(J.Report(0, 1, K.OTHER, (h.version,), J.Penalty(P.WARNING), "x"))
    case = h.version
    opened_at = h.at[case]
    steps: list[Any] = [J.AgreeRedeal(s, case) for s in range(seats) if s != 1]
    steps += [J.CastVote(s, case, True) for s in range(2, seats)]
    for command in steps:
        run_clock(h, h.now + timedelta(milliseconds=LIMIT - 1))
        if h.table.justice.open_case is None:
            break
        try:
            h.act(command)
        except RuleViolation:
            pass  # a vote already closed by the timeout
    run_clock(h, h.now + timedelta(milliseconds=10 * LIMIT))
    closed = next(b.first for b in h.batches for f in b.facts if isinstance(f, J.CaseClosed))
    assert h.at[closed] - opened_at <= timedelta(milliseconds=seats * LIMIT)


# --- the seats' verdict, remembered (issue 40) ---------------------------------------------


def _verdict_by_every_ballot(seat_count: int, case: J.Case) -> Any:
    """The seats' verdict as first written: every way the missing votes may go, each read
    from scratch (``seats_verdict`` now stops early and remembers; it must agree)."""
    seats = voters(seat_count, case)
    ballot: dict[int, Any] = {v.seat: v.uphold for v in case.votes}
    ballot.update(dict.fromkeys(case.lapsed))
    missing = [s for s in seats if s not in ballot]
    others = [s for s in seats if s != case.accused]
    outcomes = set()
    for ways in itertools.product((True, False, None), repeat=len(missing)):
        b = {**ballot, **dict(zip(missing, ways, strict=True))}
        if case.kind is J.CaseKind.REPORT and not case.unchecked:
            if b[case.accused] is True or (others and all(b[s] is True for s in others)):
                outcomes.add(Verdict.UPHELD)
                continue
        elif seats and all(b[s] is True for s in seats):
            outcomes.add(Verdict.UPHELD)
            continue
        rejected = others and all(b[s] is False for s in seats)
        outcomes.add(Verdict.REJECTED if rejected else Verdict.DISPUTED)
    return outcomes.pop() if len(outcomes) == 1 else None


def test_the_remembered_seats_verdict_is_every_ballots_verdict() -> None:
    """Random cases at 2-4 seats, reports (checked or not) and appeals, with votes, lapses
    and recused seats, each asked twice (the second answer is remembered): the verdict is
    the one trying every ballot gives. A vote that is not a bool (1) counts as no vote, as
    the verdict reads it, and never takes a remembered True's answer."""
    seed = 40
    rng = random.Random(seed)
    for _ in range(3000):
        n = rng.choice((2, 3, 4))
        by = rng.randrange(n)
        appeal = rng.random() < 0.3
        accused = by if appeal else rng.choice([s for s in range(n) if s != by])
        others = [s for s in range(n) if s != by]
        recused = tuple(sorted(rng.sample(others, rng.randint(0, 1)))) if appeal else ()
        voting = rng.sample(others, rng.randint(0, len(others)))
        votes = tuple(J.Vote(s, rng.choice((True, False, True, False, 1))) for s in voting[1:])
        lapsed = tuple(voting[:1]) if rng.random() < 0.3 else ()
        case = J.Case(
            id=1,
            kind=J.CaseKind.APPEAL if appeal else J.CaseKind.REPORT,
            by=by,
            accused=accused,
            violation=rng.choice(list(J.ViolationKind)),
            evidence=(),
            penalty=J.Penalty(J.PenaltyKind.WARNING),
            note="",
            votes=votes,
            recused=recused,
            lapsed=lapsed,
        )
        expected = _verdict_by_every_ballot(n, case)
        for _ask in range(2):
            assert seats_verdict(n, case) == expected, f"seed={seed}: {case}"
