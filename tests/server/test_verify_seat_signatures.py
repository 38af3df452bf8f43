"""The verifier checks every keyed seat's signature (docs/api.md, "Seat signatures", "What
is recorded"): hands recorded in process as the server records them (tests/support/
matchplay.py, seats signing with tests/support/seatsign.py), then one cause forged the way
the operator could (it holds the server's key: the record is re-chained and re-sealed), and
``verify`` with the reader of signed commands (server/wire/signedcommands.py) must name it.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from domain import match
from domain import table as tables
from domain.huaniao.options import Mode
from domain.huaniao.options import Options as HuaniaoOptions
from domain.registry import rules_for
from domain.table import deal, records
from domain.verify import AuditFailure, AuditReport, Record, verify, verify_match
from domain.zipai.options import DealerRule, ScoringProfile
from domain.zipai.options import Options as ZipaiOptions
from server.wire.signedcommands import read_signed_command
from tests.support import matchplay, seatsign

KIND, OPTIONS, N = "huaniao", HuaniaoOptions(mode=Mode.BASIC), 3
GAME = "00000000-0000-4000-8000-0000000000a1"
SEED = 35


@dataclasses.dataclass
class Played:
    hand: matchplay.HandRecorder
    keys: list[Any]  # each seat's private key at the end

    @property
    def records(self) -> list[Record]:
        return self.hand.records


def play(
    seed: int = SEED,
    unkeyed: tuple[int, ...] = (),
    rekey: tuple[int, int] | None = None,
    start_by: int | None = None,
    game_id: str = GAME,
) -> Played:
    """A hand every keyed seat signs: joined, revealed, started (by the arbiter, or by
    ``start_by``), played with random legal moves to the end; ``rekey`` (move, seat) re-keys
    the seat before that move, after which its new key signs."""
    rng = random.Random(seed)
    keys = [seatsign.seat_key(f"{seed}-{s}") for s in range(N)]
    hand = matchplay.HandRecorder(f"secret-{seed}", game_id=game_id)
    hand.signer = seatsign.signer(keys)
    required = not unkeyed
    create = tables.create(
        rules_for(KIND), OPTIONS, N, "", hand.secret, seat_keys_required=required
    )
    hand.append(create, tables.cause("create"))
    for seat in range(N):
        key = "" if seat in unkeyed else seatsign.public_hex(keys[seat])
        commitment = deal.contribution_commitment(f"c{seat}")
        facts = tables.take_seat(hand.table, seat, f"p{seat}", "", "", commitment, key)
        hand.append(facts, tables.cause("join", seat))
    for seat in range(N):
        hand.append(tables.reveal(hand.table, seat, f"c{seat}"), tables.cause("reveal", seat))
    hand.append(tables.start(hand.table), tables.cause("start", start_by))
    for n in range(5000):
        if hand.table.phase is tables.Phase.FINISHED:
            return Played(hand, keys)
        if rekey is not None and n == rekey[0]:
            keys[rekey[1]] = seatsign.seat_key(f"{seed}-{rekey[1]}-new")
            new = seatsign.public_hex(keys[rekey[1]])
            hand.append(tables.rekey(hand.table, rekey[1], new), tables.cause("rekey", rekey[1]))
        seat = rng.choice(tables.to_act(hand.table))
        command = rng.choice(matchplay._eager(tables.legal_commands(hand.table, seat)))
        hand.append(tables.act(hand.table, command), tables.cause("play", seat, command))
    raise AssertionError(f"seed {seed}: the hand did not end")


def check(rs: list[Record], game_id: str = GAME) -> AuditReport:
    return verify(rs, matchplay.PUBLIC_KEY, game_id, command_reader=read_signed_command)


def forged(rs: list[Record], version: int, cause: dict[str, Any] | None) -> list[Record]:
    """The record with the cause at ``version`` replaced, re-chained and re-sealed with the
    server's key, as the operator could: only the seat signatures can catch it."""
    created = rs[0].fact["data"]
    key = records.chain_key(created["secret"], created.get("salt", ""))
    out: list[Record] = []
    for r in rs:
        c = cause if r.version == version else r.cause
        prev = out[-1].hash if out else ""
        digest = records.chain_hash(key, prev, r.version, r.fact, c, r.recorded_at)
        out.append(Record(r.version, r.fact, c, digest, r.seal, r.recorded_at))
    for i, r in enumerate(out):
        if r.seal is not None:
            seal = {**r.seal, "head": r.hash}
            body = records.seal_body(
                seal["game_id"], seal["first"], seal["last"], r.hash, seal["receipts"]
            )
            out[i] = dataclasses.replace(
                r, seal={**seal, "signature": matchplay.KEY.sign(body).hex()}
            )
    return out


@pytest.fixture(scope="module")
def honest() -> Played:
    return play()


def plays_of(rs: list[Record], seat: int) -> list[Record]:
    return [r for r in rs if r.cause and r.cause["action"] == "play" and r.cause["seat"] == seat]


def victim(played: Played) -> tuple[Record, int]:
    """A late game move of seat 1: the command the forgeries stand in for."""
    r = plays_of(played.records, 1)[-1]
    return r, 1


def resigned(played: Played, r: Record, key: Any, **changes: Any) -> dict[str, Any]:
    """``r``'s cause with its signature made again by ``key`` (``changes``: as
    seatsign.signature's, and ``version``/``head`` for the version seen)."""
    assert r.cause is not None
    version = changes.pop("version", r.version - 1)
    head = changes.pop("head", played.records[version - 1].hash)
    cause = {k: v for k, v in r.cause.items() if k != "signed"}
    signed = seatsign.signature(key, KIND, GAME, cause, [], version, head, **changes)
    return {**cause, "signed": signed}


# --- the honest record ------------------------------------------------------------------


def test_an_honest_keyed_record_verifies_and_names_its_keyed_seats(honest: Played) -> None:
    report = check(honest.records)
    assert report.keyed_seats == (0, 1, 2) and not report.unkeyed_seats and not report.rekeys
    assert report.seat_keys == tuple(seatsign.public_hex(k) for k in honest.keys)
    seat_moves = [r for r in honest.records if r.cause and "signed" in r.cause]
    assert report.signed_commands == len(seat_moves) > N * 2
    assert "seats 0, 1, 2 keyed" in report.seat_words and "UNKEYED" not in report.seat_words


def test_without_the_command_reader_a_keyed_record_fails(honest: Played) -> None:
    with pytest.raises(AuditFailure, match="needs the command reader"):
        verify(honest.records, matchplay.PUBLIC_KEY, GAME)


# --- forgeries ----------------------------------------------------------------------------


def test_a_command_with_no_signature_fails(honest: Played) -> None:
    r, seat = victim(honest)
    assert r.cause is not None
    bare = {k: v for k, v in r.cause.items() if k != "signed"}
    with pytest.raises(AuditFailure, match=f"version {r.version}: seat {seat}'s play carries no"):
        check(forged(honest.records, r.version, bare))


@pytest.mark.parametrize("signer", ["the server's key", "another seat's key"])
def test_a_command_signed_by_another_key_fails(honest: Played, signer: str) -> None:
    r, seat = victim(honest)
    key = seatsign.seat_key("operator") if signer == "the server's key" else honest.keys[2]
    with pytest.raises(AuditFailure, match=f"version {r.version}: .*not signed by seat {seat}'s"):
        check(forged(honest.records, r.version, resigned(honest, r, key)))


def test_another_commands_signature_replayed_fails(honest: Played) -> None:
    """The seat's real signature of its earlier move, on the forged one."""
    r, seat = victim(honest)
    earlier = next(
        p
        for p in plays_of(honest.records, seat)
        if p.cause and p.cause["command"] != (r.cause or {})["command"]
    )
    assert r.cause is not None and earlier.cause is not None
    replayed = {**r.cause, "signed": earlier.cause["signed"]}
    with pytest.raises(AuditFailure, match=f"version {r.version}: .*another move"):
        check(forged(honest.records, r.version, replayed))


def test_the_same_signed_command_causing_two_moves_fails(honest: Played) -> None:
    """A seat's real signed move recorded again, as a later move of the seat."""
    first, *_, later = plays_of(honest.records, 1)
    assert first.cause is not None and later.cause is not None
    again = {**later.cause, "command": first.cause["command"], "signed": first.cause["signed"]}
    with pytest.raises(AuditFailure, match=f"version {later.version}: .*signed command of version"):
        check(forged(honest.records, later.version, again))


def test_a_command_signed_for_another_game_fails(honest: Played) -> None:
    r, _ = victim(honest)
    other = "00000000-0000-4000-8000-0000000000b2"
    cause = resigned(honest, r, honest.keys[1], for_game=other)
    with pytest.raises(AuditFailure, match=f"version {r.version}: .*signed for game"):
        check(forged(honest.records, r.version, cause))


def test_a_whole_signed_command_of_another_game_fails(honest: Played) -> None:
    """The same seats and keys at another table: its signed move lifted into this record."""
    there = play(game_id="00000000-0000-4000-8000-0000000000b3")
    r, seat = victim(honest)
    lifted = next(
        p
        for p in plays_of(there.records, seat)
        if p.cause and p.cause["command"] == (r.cause or {})["command"]
    )
    assert r.cause is not None and lifted.cause is not None
    cause = {**r.cause, "signed": lifted.cause["signed"]}
    with pytest.raises(AuditFailure, match=f"version {r.version}: .*signed for game"):
        check(forged(honest.records, r.version, cause))


def test_a_command_signed_at_a_later_version_fails(honest: Played) -> None:
    """Moved back in the record: signed having seen a version not yet recorded."""
    r, _ = victim(honest)
    cause = resigned(honest, r, honest.keys[1], version=r.version, head="ab" * 32)
    with pytest.raises(AuditFailure, match=f"version {r.version}: .*not before the move"):
        check(forged(honest.records, r.version, cause))


def test_a_head_hash_that_is_not_the_chains_fails(honest: Played) -> None:
    r, _ = victim(honest)
    cause = resigned(honest, r, honest.keys[1], head="ab" * 32)
    with pytest.raises(AuditFailure, match=f"version {r.version}: .*head hash is not"):
        check(forged(honest.records, r.version, cause))


def test_a_play_with_no_head_hash_fails(honest: Played) -> None:
    r, _ = victim(honest)
    cause = resigned(honest, r, honest.keys[1], head="")
    with pytest.raises(AuditFailure, match=f"version {r.version}: .*names no head hash"):
        check(forged(honest.records, r.version, cause))


def test_a_command_signed_as_another_method_fails(honest: Played) -> None:
    r, _ = victim(honest)
    cause = resigned(honest, r, honest.keys[1], method="StartGame")
    with pytest.raises(AuditFailure, match=f"version {r.version}: .*signed as a 'StartGame'"):
        check(forged(honest.records, r.version, cause))


def test_a_join_whose_signed_request_names_another_key_fails(honest: Played) -> None:
    """The seat's join signed, but the record keys the seat with the operator's key."""
    join = next(r for r in honest.records if r.cause and r.cause["action"] == "join")
    assert join.cause is not None
    operator = seatsign.seat_key("operator")
    fact = {**join.fact, "data": {**join.fact["data"], "public_key": seatsign.public_hex(operator)}}
    rs = [dataclasses.replace(r, fact=fact) if r is join else r for r in honest.records]
    with pytest.raises(AuditFailure, match=f"version {join.version}: .*not signed by seat 0"):
        check(forged(rs, join.version, join.cause))


def test_a_seats_move_recorded_as_nobodys_fails(honest: Played) -> None:
    """A seat's command recorded with no seat in its cause: still in that seat's name."""
    r, _ = victim(honest)
    assert r.cause is not None
    cause = {k: v for k, v in r.cause.items() if k != "signed"} | {"seat": None}
    with pytest.raises(AuditFailure, match=f"version {r.version}: the cause names seat None"):
        check(forged(honest.records, r.version, cause))


# --- unkeyed seats, re-keys, a seat's start ---------------------------------------------


def test_an_unkeyed_seat_is_named() -> None:
    played = play(unkeyed=(2,))
    report = check(played.records)
    assert report.keyed_seats == (0, 1) and report.unkeyed_seats == (2,)
    assert "seat 2 UNKEYED: its commands stand on the server's word alone" in report.seat_words


def test_a_record_of_unkeyed_seats_verifies_without_a_reader() -> None:
    """Records made before seat keys (every seat unkeyed) verify as before."""
    played = play(unkeyed=(0, 1, 2))
    report = verify(played.records, matchplay.PUBLIC_KEY, GAME)
    assert report.unkeyed_seats == (0, 1, 2) and report.signed_commands == 0


def test_a_rekey_is_named_and_the_old_key_signs_nothing_after_it() -> None:
    played = play(rekey=(2, 1))
    report = check(played.records)
    (rekeyed,) = [r for r in played.records if r.fact["type"] == "SeatRekeyed"]
    assert report.rekeys == ((rekeyed.version, 1),)
    assert f"seat 1 RE-KEYED at version {rekeyed.version}" in report.seat_words
    after = next(r for r in plays_of(played.records, 1) if r.version > rekeyed.version)
    old = seatsign.seat_key(f"{SEED}-1")
    with pytest.raises(AuditFailure, match=f"version {after.version}: .*not signed by seat 1"):
        check(forged(played.records, after.version, resigned(played, after, old)))


def test_a_keyed_seats_start_is_checked() -> None:
    played = play(start_by=0)
    check(played.records)
    start = next(r for r in played.records if r.cause and r.cause["action"] == "start")
    assert start.cause is not None and "signed" in start.cause
    bare = {k: v for k, v in start.cause.items() if k != "signed"}
    with pytest.raises(AuditFailure, match=f"version {start.version}: seat 0's start carries no"):
        check(forged(played.records, start.version, bare))


# --- a match: the same per hand -------------------------------------------------------------

ZIPAI = ZipaiOptions(dealer_rule=DealerRule.WINNER, scoring=ScoringProfile.LUZHOU)


def keyed_match() -> matchplay.PlayedMatch:
    keys = [seatsign.seat_key(f"match-{s}") for s in range(3)]
    public = tuple(seatsign.public_hex(k) for k in keys)
    return matchplay.play_match(
        "zipai",
        ZIPAI,
        3,
        seed=11,
        hands=2,
        advance=match.Advance.READY,
        keys=public,
        signer=seatsign.signer(keys),
    )


def test_a_keyed_match_verifies_hand_by_hand_and_a_forged_later_commitment_fails() -> None:
    played = keyed_match()
    m = played.match
    report = verify_match(
        m.match_id,
        m.records,
        played.exported(),
        matchplay.PUBLIC_KEY,
        command_reader=read_signed_command,
    )
    assert [h.keyed_seats for h in report.hands] == [(0, 1, 2)] * 2
    assert all(h.signed_commands > 0 for h in report.hands)
    with pytest.raises(AuditFailure, match="needs the command reader"):
        verify_match(m.match_id, m.records, played.exported(), matchplay.PUBLIC_KEY)
    gid, hand2 = list(played.hands.items())[1]
    commit = next(r for r in hand2.records if r.cause and r.cause["action"] == "commit")
    assert commit.cause is not None
    bare = {k: v for k, v in commit.cause.items() if k != "signed"}
    hands = {**played.exported(), gid: forged(hand2.records, commit.version, bare)}
    with pytest.raises(AuditFailure, match=f"hand 2 .*version {commit.version}: .*carries no"):
        verify_match(
            m.match_id, m.records, hands, matchplay.PUBLIC_KEY, command_reader=read_signed_command
        )
