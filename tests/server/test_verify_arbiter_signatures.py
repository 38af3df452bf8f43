"""Nobody but the table's named arbiter rules (issue 35): at an arbitrated table whose seats
sign, the arbiter's key is recorded in GameCreated and every ruling carries its signature.
A hand recorded in process as the server records it (tests/support/matchplay.py, signed with
tests/support/seatsign.py), then the ruling forged the way the operator could (it holds the
server's key: the record is re-chained and re-sealed, tests/server/test_verify_seat_
signatures.py ``forged``), and ``verify`` must name it.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from domain import table as tables
from domain.engine import RuleViolation
from domain.registry import rules_for
from domain.table import deal
from domain.table.justice import facts as J
from domain.verify import AuditFailure, Record
from tests.server.test_verify_seat_signatures import GAME, KIND, OPTIONS, N, check, forged
from tests.support import matchplay, seatsign

SEED = 36


def ruled_hand(seed: int = SEED, arbiter_keyed: bool = True) -> tuple[list[Record], Any, int]:
    """A hand at an arbitrated table: seat 1 reports seat 0, seat 0 disputes it, the arbiter
    upholds it; then random legal moves to the end. Returns the records, the arbiter's key
    and the ruling's version. ``arbiter_keyed`` False: a table that admits unkeyed seats,
    whose arbiter sent no key (its rulings stand on the server's word)."""
    rng = random.Random(seed)
    keys = [seatsign.seat_key(f"{seed}-{s}") for s in range(N)]
    arbiter = seatsign.seat_key(f"{seed}-arbiter")
    hand = matchplay.HandRecorder(f"secret-{seed}", game_id=GAME)
    hand.signer = seatsign.signer(keys, arbiter if arbiter_keyed else None)
    create = tables.create(
        rules_for(KIND),
        OPTIONS,
        N,
        "",
        hand.secret,
        arbitrated=True,
        seat_keys_required=arbiter_keyed,
        arbiter_public_key=seatsign.public_hex(arbiter) if arbiter_keyed else "",
    )
    hand.append(create, tables.cause("create"))
    for seat in range(N):
        commitment = deal.contribution_commitment(f"c{seat}")
        key = seatsign.public_hex(keys[seat])
        facts = tables.take_seat(hand.table, seat, f"p{seat}", "", "", commitment, key)
        hand.append(facts, tables.cause("join", seat))
    for seat in range(N):
        hand.append(tables.reveal(hand.table, seat, f"c{seat}"), tables.cause("reveal", seat))
    hand.append(tables.start(hand.table), tables.cause("start"))  # the arbiter deals
    warning = J.Penalty(J.PenaltyKind.WARNING)
    report = J.Report(1, 0, J.ViolationKind.OTHER, (hand.table.version,), warning, "")
    hand.append(tables.act(hand.table, report), tables.cause("play", 1, report))
    ruled = 0
    for _ in range(5000):
        table = hand.table
        if table.phase is tables.Phase.FINISHED:
            return hand.records, arbiter, ruled
        case = table.justice.open_case
        acting = tables.to_act(table)
        if case is not None and not acting:
            ruling = J.Rule(0, case.id, True)
            ruled = ruled or table.version + 1  # the move's first event keeps its cause
            hand.append(tables.act(table, ruling), tables.cause("play", None, ruling))
            continue
        if case is not None:  # the accused disputes, every other voter confirms
            vote = J.CastVote(acting[0], case.id, acting[0] != 0)
            hand.append(tables.act(table, vote), tables.cause("play", acting[0], vote))
            continue
        seat = rng.choice(acting)
        legal = [
            c for c in tables.legal_commands(table, seat) if not isinstance(c, J.Report | J.Appeal)
        ]
        command = rng.choice(matchplay._eager(legal))
        hand.append(tables.act(table, command), tables.cause("play", seat, command))
    raise AssertionError(f"seed {seed}: the hand did not end")


@pytest.fixture(scope="module")
def honest() -> tuple[list[Record], Any, int]:
    return ruled_hand()


def ruling_cause(rs: list[Record], version: int) -> dict[str, Any]:
    cause = rs[version - 1].cause
    assert cause is not None and cause["action"] == "play" and cause["command"]["type"] == "Rule"
    return {k: v for k, v in cause.items() if k != "signed"}


def test_the_keyed_arbiters_signed_rulings_verify_and_the_line_says_so(
    honest: tuple[list[Record], Any, int],
) -> None:
    rs, arbiter, ruled = honest
    assert ruled, "the hand had no ruling to check"
    report = check(rs)
    assert report.arbiter_key == seatsign.public_hex(arbiter)
    assert report.arbiter_commands >= 2, "the start and the ruling"
    assert "the arbiter keyed: all" in report.seat_words


def test_an_unsigned_ruling_written_by_the_operator_fails_verify(
    honest: tuple[list[Record], Any, int],
) -> None:
    rs, _, ruled = honest
    with pytest.raises(AuditFailure, match=f"version {ruled}: the arbiter's play carries no"):
        check(forged(rs, ruled, ruling_cause(rs, ruled)))


@pytest.mark.parametrize("how", ["the operator's key", "another ruling's signature"])
def test_a_ruling_the_arbiter_did_not_sign_fails_verify(
    honest: tuple[list[Record], Any, int], how: str
) -> None:
    """The operator signs the ruling with its own key, or carries the arbiter's signature of
    another ruling (the same case rejected): both are caught."""
    rs, arbiter, ruled = honest
    cause = ruling_cause(rs, ruled)
    version, head = ruled - 1, rs[ruled - 2].hash
    if how == "the operator's key":
        key, signs = seatsign.seat_key("operator"), cause
        expected = "is not signed by the arbiter's key"
    else:
        case_id = cause["command"]["data"]["case_id"]
        other = J.Rule(0, case_id, False)
        key, signs = arbiter, tables.cause("play", None, other)
        expected = "is another move than the one recorded"
    signed = seatsign.signature(key, KIND, GAME, signs, [], version, head)
    with pytest.raises(AuditFailure, match=expected):
        check(forged(rs, ruled, {**cause, "signed": signed}))


def test_an_arbiter_without_a_key_stands_on_the_servers_word_and_the_line_says_so() -> None:
    rs, _, ruled = ruled_hand(arbiter_keyed=False)
    assert ruled
    report = check(rs)
    assert report.arbiter_key == "" and report.arbiter_commands == 0
    assert "the arbiter UNKEYED: its rulings stand on the server's word alone" in (
        report.seat_words
    )


def test_an_arbitrated_table_whose_seats_sign_needs_the_arbiters_key() -> None:
    with pytest.raises(RuleViolation) as refused:
        tables.create(
            rules_for(KIND), OPTIONS, N, "", "s" * 64, arbitrated=True, seat_keys_required=True
        )
    assert refused.value.reason == "ARBITER_KEY_REQUIRED"
    assert refused.value.rule == "arbiter_public_key"
    # a table that admits unkeyed seats may leave its arbiter unkeyed; no arbiter, no key
    assert tables.create(rules_for(KIND), OPTIONS, N, "", "s" * 64, arbitrated=True)
    assert tables.create(rules_for(KIND), OPTIONS, N, "", "s" * 64, seat_keys_required=True)
