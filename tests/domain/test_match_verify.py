"""Verifying a whole match (domain/verify.py, verify_match): each hand, the links, the
standings; and each way of forging one is caught."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain import match
from domain import table as tables
from domain.engine import MalformedCommand, RuleViolation
from domain.huaniao.options import Mode
from domain.huaniao.options import Options as HuaniaoOptions
from domain.match import records as match_records
from domain.verify import AuditFailure, MatchRecord, Record, verify, verify_match
from domain.zipai.options import DealerRule, ScoringProfile
from domain.zipai.options import Options as ZipaiOptions
from tests.support import matchplay

ZIPAI = ZipaiOptions(dealer_rule=DealerRule.WINNER, scoring=ScoringProfile.LUZHOU)


@pytest.fixture(scope="module")
def played() -> matchplay.PlayedMatch:
    return matchplay.play_match("zipai", ZIPAI, 3, seed=11, hands=3, advance=match.Advance.READY)


def check(played: matchplay.PlayedMatch, **changes: Any) -> match.Match | None:
    records = changes.get("records", played.match.records)
    hands = changes.get("hands", played.exported())
    report = verify_match(
        changes.get("match_id", played.match.match_id), records, hands, matchplay.PUBLIC_KEY
    )
    return report  # type: ignore[return-value]


def rechained(
    match_id: str, facts: list[dict[str, Any]], key: Any = matchplay.KEY
) -> list[MatchRecord]:
    """A match record with every hash recomputed (with the secret its MatchEnded reveals)
    and every fact sealed anew by ``key``: with the server's own key, only the re-decision
    can catch it."""
    secret = facts[-1]["data"].get("secret", "")
    out: list[MatchRecord] = []
    for version, fact in enumerate(facts, start=1):
        prev = out[-1].hash if out else ""
        digest = match_records.fact_hash(match_id, secret, prev, version, fact)
        out.append(matchplay.sealed(MatchRecord(version, fact, digest), match_id, version, key))
    return out


def test_a_whole_match_verifies_with_its_standings(played: matchplay.PlayedMatch) -> None:
    report = verify_match(
        played.match.match_id, played.match.records, played.exported(), matchplay.PUBLIC_KEY
    )
    assert played.state.ended is not None
    assert report.standings == played.state.ended.standings
    assert report.winners == played.state.ended.winners
    assert [h.winners for h in report.hands] == [t.outcome.winners for t in played.finals()]


def test_a_huaniao_match_verifies() -> None:
    played = matchplay.play_match("huaniao", HuaniaoOptions(mode=Mode.BASIC), 3, seed=2, hands=3)
    report = verify_match(
        played.match.match_id, played.match.records, played.exported(), matchplay.PUBLIC_KEY
    )
    assert len(report.hands) == 3 and report.kind == "huaniao"


def test_an_altered_match_fact_breaks_the_chain(played: matchplay.PlayedMatch) -> None:
    records = list(played.match.records)
    fact = records[-1].fact
    records[-1] = dataclasses.replace(records[-1], fact={**fact, "type": fact["type"]} | {"x": 1})
    with pytest.raises(AuditFailure, match="chain hash mismatch"):
        check(played, records=records)


def _ended_index(played: matchplay.PlayedMatch) -> int:
    return next(i for i, r in enumerate(played.match.records) if r.fact["type"] == "HandEnded")


def test_standings_that_do_not_follow_from_the_hands_are_caught(
    played: matchplay.PlayedMatch,
) -> None:
    facts = [r.fact for r in played.match.records]
    i = _ended_index(played)
    data = dict(facts[i]["data"])
    data["scores"] = [s + 5 if seat == 0 else s for seat, s in enumerate(data["scores"])]
    facts[i] = {"type": "HandEnded", "data": data}
    with pytest.raises(AuditFailure, match="recorded facts differ"):
        check(played, records=rechained(played.match.match_id, facts))


def test_a_hand_whose_record_is_not_the_one_that_ended_is_caught(
    played: matchplay.PlayedMatch,
) -> None:
    facts = [r.fact for r in played.match.records]
    i = _ended_index(played)
    facts[i] = {"type": "HandEnded", "data": {**facts[i]["data"], "head_hash": "0" * 64}}
    with pytest.raises(AuditFailure, match="recorded facts differ"):
        check(played, records=rechained(played.match.match_id, facts))


def test_a_match_cut_before_its_end_is_not_verified(played: matchplay.PlayedMatch) -> None:
    with pytest.raises(AuditFailure, match="stops before its MatchEnded"):
        check(played, records=played.match.records[:-1])


def test_a_missing_hand_is_caught(played: matchplay.PlayedMatch) -> None:
    hands = played.exported()
    del hands[match.hand_id(played.match.match_id, 2)]
    with pytest.raises(AuditFailure, match="hand 2 .* is missing"):
        check(played, hands=hands)


def test_a_hand_of_another_match_is_caught(played: matchplay.PlayedMatch) -> None:
    other = matchplay.play_match("zipai", ZIPAI, 3, seed=12, hands=3)
    hands = played.exported()
    second = match.hand_id(played.match.match_id, 2)
    hands[second] = other.exported()[match.hand_id(other.match.match_id, 2)]
    with pytest.raises(
        AuditFailure, match="does not name this match|this record is not that game's"
    ):
        check(played, hands=hands)


def test_a_tampered_hand_fails_as_that_hand(played: matchplay.PlayedMatch) -> None:
    hands = played.exported()
    third = match.hand_id(played.match.match_id, 3)
    records = list(hands[third])
    records[5] = dataclasses.replace(records[5], cause={"action": "start", "seat": 1})
    hands[third] = records
    with pytest.raises(AuditFailure, match="hand 3"):
        check(played, hands=hands)


def _forged_second_hand(
    played: matchplay.PlayedMatch, edit: Any, key: Any = matchplay.KEY
) -> dict[str, list[Record]]:
    """Hand 2 opened from an edited hand 1 (its records chain and verify on their own),
    sealed with ``key`` (the server's own unless a test says otherwise)."""
    mid = played.match.match_id
    before = None
    for r in played.match.records:
        fact = match.decode_fact(r.fact)
        if isinstance(fact, match.HandOpened) and fact.hand == 2:
            break
        before = match.evolve(before, fact)
    assert before is not None
    first = played.hands[match.hand_id(mid, 1)].table
    hand = matchplay.HandRecorder("forged-secret", game_id=match.hand_id(mid, 2), key=key)
    for cause, facts in match.next_hand(before, edit(first), hand.secret):
        hand.append(facts, cause)
    matchplay.draw_hand(hand, {seat: f"forged{seat}" for seat in range(3)})
    matchplay.play_hand(hand, random.Random(1))
    opened = match.evolve(before, match.HandOpened(2, match.hand_id(mid, 2)))
    hand.append(match.close_hand(opened, hand.table), tables.cause("close"))  # as a forger would
    hands = played.exported()
    hands[match.hand_id(mid, 2)] = hand.records
    return hands


def _evil_token(table: Any) -> Any:
    seats = list(table.seats)
    seats[1] = dataclasses.replace(seats[1], token_hash="a-token-the-seat-never-had")
    return dataclasses.replace(table, seats=tuple(seats))


def test_a_hand_forged_with_another_seats_token_is_caught_by_the_match(
    played: matchplay.PlayedMatch,
) -> None:
    """Token hashes never enter the chained record, so the opening check cannot see a
    changed token; even a forger holding the server's key is caught, because the match's
    HandEnded names the head hash of the hand that really was played."""
    with pytest.raises(AuditFailure, match="recorded facts differ"):
        check(played, hands=_forged_second_hand(played, _evil_token))


def test_a_hand_forged_without_the_servers_key_is_caught(
    played: matchplay.PlayedMatch,
) -> None:
    """What stops a forger who rewrites the match's public chain to suit a new hand: the
    hand's seals, which only the server's key makes."""
    forger = Ed25519PrivateKey.generate()
    hands = _forged_second_hand(played, _evil_token, key=forger)
    with pytest.raises(AuditFailure, match="hand 2 .*not signed by the given server key"):
        check(played, hands=hands)


def test_a_hand_dealt_by_the_wrong_dealer_is_caught(played: matchplay.PlayedMatch) -> None:
    first = played.hands[match.hand_id(played.match.match_id, 1)].table

    def other_result(table: Any) -> Any:  # as if someone else had won hand 1
        winner = ((first.game.winner or first.game.dealer) + 1) % 3
        return dataclasses.replace(table, game=dataclasses.replace(table.game, winner=winner))

    with pytest.raises(AuditFailure, match="did not open as the match says"):
        check(played, hands=_forged_second_hand(played, other_result))


def test_a_contribution_in_the_match_record_is_refused(played: matchplay.PlayedMatch) -> None:
    """The older form: a seat's ready contribution public in the match (SeatReady) before
    the hand it feeds had a commitment. A server could choose that hand's secret after
    seeing it, so a record holding one never verifies."""
    mid = played.match.match_id
    facts = [r.fact for r in played.match.records]
    ended = next(i for i, f in enumerate(facts) if f["type"] == "HandEnded")
    ready = {"type": "SeatReady", "data": {"seat": 0, "hand": 2, "contribution": "zz"}}
    facts.insert(ended + 1, ready)
    with pytest.raises(AuditFailure, match="before that hand's commitment"):
        check(played, records=rechained(mid, facts))


def test_a_later_hand_seated_with_its_entropy_is_refused(played: matchplay.PlayedMatch) -> None:
    """A hand 2 whose seats carry contributions in their SeatTaken (the at-once form): the
    seats' inputs were in before, or with, the hand's commitment. Refused by the table's
    own rule, re-decided in verify."""
    from domain import table as tables

    mid = played.match.match_id
    first = played.hands[match.hand_id(mid, 1)].table
    before = None
    for r in played.match.records:
        fact = match.decode_fact(r.fact)
        if isinstance(fact, match.HandOpened) and fact.hand == 2:
            break
        before = match.evolve(before, fact)
    assert before is not None
    hand = matchplay.HandRecorder("early-secret", game_id=match.hand_id(mid, 2))
    (create, (created,)), *_ = match.next_hand(before, first, hand.secret)
    hand.append([created], create)
    for seat in range(3):  # as the old server wrote it: the contribution with the seat
        taken = tables.SeatTaken(seat, f"p{seat}", "", f"early{seat}")
        hand.append([taken], tables.cause("join", seat))
    hand.append(tables.start(hand.table), tables.cause("start"))
    matchplay.play_hand(hand, random.Random(1))
    hands = played.exported()
    hands[match.hand_id(mid, 2)] = hand.records
    with pytest.raises(AuditFailure, match="hand 2 .*CONTRIBUTION_TOO_EARLY|did not open"):
        check(played, hands=hands)


def test_every_hand_closes_with_what_follows_it(played: matchplay.PlayedMatch) -> None:
    """Issue 36: each hand's own signed stream ends with its HandClosed: every hand but the
    last names the next hand's game, the last says it is the last; a hand verified alone
    says so in its report."""
    mid = played.match.match_id
    for n in (1, 2, 3):
        records = played.exported()[match.hand_id(mid, n)]
        assert records[-1].fact["type"] == "HandClosed" and records[-1].cause["action"] == "close"
        report = verify(records, matchplay.PUBLIC_KEY, match.hand_id(mid, n))
        follows = "the last" if n == 3 else f"hand {n + 1} follows: {match.hand_id(mid, n + 1)}"
        assert report.hand_words == f"hand {n} of match {mid} ({follows})"


def test_a_match_cut_short_by_the_key_holder_fails_on_the_last_hands_statement(
    played: matchplay.PlayedMatch,
) -> None:
    """The match record cut after hand 2 (MatchEnded moved up, re-chained and re-sealed
    with the server's own key, hand 3 dropped): hand 2's own signed stream says hand 3
    follows."""
    facts = [r.fact for r in played.match.records]
    ended2 = [i for i, f in enumerate(facts) if f["type"] == "HandEnded"][1]
    cut = [*facts[: ended2 + 1], facts[-1]]
    hands = played.exported()
    del hands[match.hand_id(played.match.match_id, 3)]
    with pytest.raises(AuditFailure, match=r"ends at hand 2 .*says hand 3 follows.*cut short"):
        check(played, records=rechained(played.match.match_id, cut), hands=hands)


def test_a_hand_that_does_not_close_is_refused(played: matchplay.PlayedMatch) -> None:
    """A hand without its HandClosed (a record made before issue 36, or one cut): refused."""
    hands = played.exported()
    third = match.hand_id(played.match.match_id, 3)
    hands[third] = hands[third][:-1]
    with pytest.raises(AuditFailure, match="hand 3 .*does not close with HandClosed"):
        check(played, hands=hands)


def test_a_hand_closes_once_after_its_end_and_takes_nothing_after(
    played: matchplay.PlayedMatch,
) -> None:
    mid = played.match.match_id
    closed = played.hands[match.hand_id(mid, 1)].table
    assert closed.closed == (False, match.hand_id(mid, 2))
    with pytest.raises(RuleViolation, match="already closed"):
        tables.close_hand(closed, True)
    ended = dataclasses.replace(closed, closed=None)
    with pytest.raises(MalformedCommand):
        tables.close_hand(ended, True, "some-game")
    with pytest.raises(MalformedCommand):
        tables.close_hand(ended, False)
    with pytest.raises(RuleViolation, match="one hand"):
        tables.close_hand(dataclasses.replace(ended, match_id=""), True)
    with pytest.raises(RuleViolation, match="has not ended"):
        tables.close_hand(dataclasses.replace(ended, revealed=False), True)
    legal = closed.rules.legal_commands(closed.game, 0)
    if legal:
        with pytest.raises(RuleViolation, match="closed"):
            tables.play(closed, legal[0])
