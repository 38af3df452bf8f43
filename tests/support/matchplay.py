"""A match played in process through the domain alone, recorded as the server stores it
(each hand's hash-chained records, the match's own record), for the match tests and the
verifier's tests. Random legal moves; everything follows from the seed."""

from __future__ import annotations

import dataclasses
import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain import match
from domain import table as tables
from domain.match import Match
from domain.match import records as match_records
from domain.registry import rules_for
from domain.table import deal, records
from domain.verify import MatchRecord, Record

KEY = Ed25519PrivateKey.generate()
PUBLIC_KEY = KEY.public_key().public_bytes_raw()
_T0 = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass
class HandRecorder:
    """One hand's stream as the server stores it: facts (token hashes kept out), causes,
    the recorded times, the keyed hash chain and a seal on every move."""

    secret: str
    records: list[Record] = field(default_factory=list)
    table: Any = None
    game_id: str = ""
    key: Ed25519PrivateKey = KEY  # the server's signing key; a forger's in some tests
    late: timedelta = timedelta(0)  # added to every time from now on (a draw abandoned)
    # the seats' signatures: (this, facts, cause) -> the cause as recorded (tests/support/
    # seatsign.py ``signer``); None records causes as given
    signer: Callable[[HandRecorder, list[Any], dict[str, Any]], dict[str, Any]] | None = None

    def append(self, facts: list[Any], cause: dict[str, Any] | None) -> None:
        if cause is not None and self.signer is not None:
            cause = self.signer(self, facts, cause)
        for i, fact in enumerate(facts):
            self.table = tables.evolve(self.table, fact)
            key = records.chain_key(self.table.secret, self.table.salt)
            data, _ = records.split_private(records.encode_event(fact))
            c = cause if i == 0 else None
            prev = self.records[-1].hash if self.records else ""
            version = len(self.records) + 1
            at = records.timestamp_text(_T0 + timedelta(seconds=version) + self.late)
            digest = records.chain_hash(key, prev, version, data, c, at)
            self.records.append(Record(version, data, c, digest, None, at))
        if not self.game_id and self.table.match_id:
            self.game_id = match.hand_id(self.table.match_id, self.table.hand)
        first = len(self.records) - len(facts) + 1
        last = len(self.records)
        receipts = [["0" * 64, "0" * 64]] * (self.table.seat_count + 2)
        head = self.records[-1].hash
        body = records.seal_body(self.game_id, first, last, head, receipts)
        seal = {
            "game_id": self.game_id,
            "first": first,
            "last": last,
            "head": head,
            "receipts": receipts,
            "signature": self.key.sign(body).hex(),
        }
        self.records[-1] = dataclasses.replace(self.records[-1], seal=seal)

    @property
    def head(self) -> str:
        return self.records[-1].hash


@dataclass
class MatchRecorder:
    """A match's own record as the server stores it: the chain keyed by the match's secret
    (MatchCreated's blanked), each append one move, sealed on its last fact."""

    match_id: str
    records: list[MatchRecord] = field(default_factory=list)
    state: Any = None
    key: Ed25519PrivateKey = KEY

    def append(self, facts: list[Any]) -> None:
        for fact in facts:
            self.state = match.evolve(self.state, fact)
            data, _ = match_records.split_private(match.encode_fact(fact))
            prev = self.records[-1].hash if self.records else ""
            version = len(self.records) + 1
            digest = match_records.fact_hash(self.match_id, self.state.secret, prev, version, data)
            self.records.append(MatchRecord(version, data, digest))
        first = len(self.records) - len(facts) + 1
        self.records[-1] = sealed(self.records[-1], self.match_id, first, self.key)


def sealed(
    record: MatchRecord, match_id: str, first: int, key: Ed25519PrivateKey = KEY
) -> MatchRecord:
    """``record`` carrying the seal of the match move ``first``..its version."""
    body = match_records.seal_body(match_id, first, record.version, record.hash)
    seal = {
        "match_id": match_id,
        "first": first,
        "last": record.version,
        "head": record.hash,
        "signature": key.sign(body).hex(),
    }
    return dataclasses.replace(record, seal=seal)


@dataclass
class PlayedMatch:
    seed: int
    match: MatchRecorder
    hands: dict[str, HandRecorder]  # by game id, in play order

    @property
    def state(self) -> Match:  # not match.Match: the field `match` shadows the module here
        return self.match.state

    def finals(self) -> list[tables.Table]:
        return [h.table for h in self.hands.values()]

    def exported(self) -> dict[str, list[Record]]:
        return {gid: list(h.records) for gid, h in self.hands.items()}


def play_hand(hand: HandRecorder, rng: random.Random, max_moves: int = 5000) -> None:
    """Random legal game moves (``_eager`` ones) until the hand ends."""
    for _ in range(max_moves):
        table = hand.table
        if table.phase is tables.Phase.FINISHED:
            return
        seat = rng.choice(tables.to_act(table))
        legal = table.rules.legal_commands(table.game, seat)
        command = rng.choice(_eager(legal))
        hand.append(tables.act(table, command), tables.cause("play", seat, command))
    raise AssertionError(f"the hand did not end in {max_moves} moves")


EAGER = ("Hu", "Long", "Zhao", "Peng", "Chi")  # 川南字牌's claims, the best first


def _eager(legal: list[Any]) -> list[Any]:
    """The legal commands of the best claim kind on offer, else all of them: a seat that
    may 胡 always does, and melds rather than passing, so hands are won, not only 荒庄."""
    for name in EAGER:
        found = [c for c in legal if type(c).__name__ == name]
        if found:
            return found
    return legal


def first_hand(
    kind: str,
    options: Any,
    seats: int,
    match_id: str,
    secret: str,
    join_order: list[int],
    keys: tuple[str, ...] = (),
    signer: Any = None,
    settings: tuple[int, int, str] = (0, 0, ""),
) -> HandRecorder:
    """Hand 1 as clients open it: created, the seats taken in ``join_order`` (with their
    public ``keys``, hex, if given), dealt."""
    hand = HandRecorder(secret, game_id=match.hand_id(match_id, 1), signer=signer)
    rules = rules_for(kind)
    created = tables.create(
        rules,
        options,
        seats,
        "arbiter-hash",
        secret,
        match_id=match_id,
        hand=1,
        match_settings=settings,
    )
    hand.append(created, tables.cause("create"))
    for seat in join_order:
        key = keys[seat] if keys else ""
        facts = tables.take_seat(
            hand.table, seat, f"p{seat}", f"token-hash-{seat}", f"c{seat}", public_key=key
        )
        hand.append(facts, tables.cause("join", seat))
    hand.append(tables.start(hand.table), tables.cause("start"))
    return hand


def draw_hand(
    hand: HandRecorder, contributions: dict[int, str], revealing: tuple[int, ...] | None = None
) -> None:
    """A later hand (or a redeal) drawn as the server and its clients draw it: each seat in
    ``contributions`` commits to its value ("": to nothing, it adds no entropy), those in
    ``revealing`` (every committed seat by default) reveal once every commitment is in,
    and it is dealt. A seat left out (not in ``contributions``, or committed and not
    revealing) is waited for until the table's abandonment limit: the draw is abandoned
    and the hand is void, as the server's clock does it."""
    for seat, value in contributions.items():
        commitment = deal.contribution_commitment(value) if value else ""
        hand.append(tables.commit(hand.table, seat, commitment), tables.cause("commit", seat))
    table = hand.table
    if not table.awaited_commitments:
        for seat in table.pending_reveals:
            if revealing is None or seat in revealing:
                hand.append(
                    tables.reveal(hand.table, seat, contributions[seat]),
                    tables.cause("reveal", seat),
                )
    abandon_or_deal(hand)


def abandon_or_deal(hand: HandRecorder) -> None:
    """Deal the draw if every input is in; else abandon it once its limit has passed."""
    if hand.table.awaited_inputs:
        hand.late += timedelta(milliseconds=hand.table.abandon_after_ms)
        hand.append(tables.abandon(hand.table), tables.cause("abandon"))
    else:
        hand.append(tables.start(hand.table), tables.cause("start"))


def play_match(
    kind: str,
    options: Any,
    seats: int,
    seed: int,
    hands: int = 3,
    target_score: int = 0,
    advance: match.Advance = match.Advance.AUTO,
    join_order: list[int] | None = None,
    void_at: int = 0,
    missing: tuple[int, ...] = (1,),
    keys: tuple[str, ...] = (),
    signer: Any = None,
    stop_after: int = 0,
) -> PlayedMatch:
    """A whole match, as the server plays it: after each hand its end, then the next hand
    opened through ``match.next_hand`` (its commitment, its seats) and drawn: every seat
    commits, then reveals, then it is dealt (``draw_hand``). At hand ``void_at`` (from 2)
    the seats ``missing`` never commit: that draw is abandoned, the hand is void and the
    match ends incomplete. ``keys`` (hex) key the seats at hand 1 (carried into every
    hand), ``signer`` signs their commands (tests/support/seatsign.py). ``stop_after``: stop
    once that many hands ended (the match not over)."""
    rng = random.Random(seed)
    match_id = str(uuid.UUID(int=rng.getrandbits(128)))
    recorder = MatchRecorder(match_id)
    secret = f"{rng.getrandbits(256):064x}"
    rules = rules_for(kind)
    recorder.append(match.create(rules, match_id, seats, hands, target_score, advance, secret))
    order = join_order if join_order is not None else list(range(seats))
    hand = first_hand(
        kind,
        options,
        seats,
        match_id,
        f"secret-{seed}-1",
        order,
        keys,
        signer,
        match.settings(recorder.state),
    )
    played = {match.hand_id(match_id, 1): hand}
    while True:
        play_hand(hand, rng)
        close_and_end(recorder, hand)
        if recorder.state.finished or len(played) == stop_after:
            return PlayedMatch(seed, recorder, played)
        n = recorder.state.next_number
        hand = HandRecorder(f"secret-{seed}-{n}", game_id=match.hand_id(match_id, n), signer=signer)
        for cause, facts in match.next_hand(recorder.state, hand_table(played), hand.secret):
            hand.append(facts, cause)
        recorder.append(match.open_hand(recorder.state))
        order = rng.sample(range(seats), seats)
        left_out = missing if n == void_at else ()
        draw_hand(hand, {seat: f"r{seat}-{n}" for seat in order if seat not in left_out})
        played[match.hand_id(match_id, n)] = hand


def close_and_end(recorder: MatchRecorder, hand: HandRecorder) -> None:
    """An ended hand, as the server records it: the hand's HandClosed on its own stream
    first (what the match decided follows it), then the match's HandEnded (naming the
    hand's head after it) and, after the last hand, MatchEnded."""
    hand.append(match.close_hand(recorder.state, hand.table), tables.cause("close"))
    recorder.append(match.end_hand(recorder.state, hand.table, hand.head))


def hand_table(played: dict[str, HandRecorder]) -> tables.Table:
    return list(played.values())[-1].table
