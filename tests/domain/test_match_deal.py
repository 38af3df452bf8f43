"""Every hand of a match is dealt like hand 1, and every 重新洗牌发牌 too: the draw's
commitment is public before any seat's entropy for it exists, the seats commit and then
reveal, and the deal recomputes from docs/api.md ("The derivation, for any language" and
"Every hand, every redeal") with hashlib alone. The cheater's tests come first: a server
that chooses a later hand's secret after seeing the seats' contributions, and an arbiter
with one seat redealing until the deal suits them."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from domain import match
from domain import table as tables
from domain.engine import ARBITER, MalformedCommand, RuleViolation
from domain.huaniao.cards import FIRST_FUNCTION_ID
from domain.huaniao.options import Mode
from domain.huaniao.options import Options as HuaniaoOptions
from domain.registry import rules_for
from domain.table import deal
from domain.table.justice import facts as J
from domain.verify import AuditFailure, Record, verify_match
from domain.zipai.options import DealerRule, ScoringProfile
from domain.zipai.options import Options as ZipaiOptions
from tests.domain.huaniao.justice_support import Harness
from tests.support import matchplay

HUANIAO = HuaniaoOptions(mode=Mode.REGULAR)
ZIPAI = ZipaiOptions(dealer_rule=DealerRule.WINNER, scoring=ScoringProfile.LUZHOU)
GAMES = [("huaniao", HUANIAO), ("zipai", ZIPAI)]


def function_cards(table: tables.Table, seat: int) -> int:
    return sum(c >= FIRST_FUNCTION_ID for c in table.game.hands[seat].cards)


# --- the rigged server ---------------------------------------------------------------------


def rigged_match(seed: int, in_the_match_record: bool) -> tuple[matchplay.PlayedMatch, int]:
    """A huaniao match whose hand 2 a rigged server dealt as the old code did: the seats'
    contributions first (public SeatReady facts, or sent with the seats), then secrets tried
    until seat 0 holds at least 4 function cards (a fair deal gives it 1.33). Returns the
    match and the number of secrets tried."""
    played = matchplay.play_match("huaniao", HUANIAO, 3, seed=seed, hands=2, stop_after=1)
    rng = random.Random(seed)
    mid = played.match.match_id
    # the same match, but 2 hands long: rebuild its record up to hand 1's end
    recorder = matchplay.MatchRecorder(mid)
    recorder.append(match.create(rules_for("huaniao"), mid, 3, 2, 0, secret="ab" * 32))
    first = list(played.hands.values())[0]
    recorder.append(match.end_hand(recorder.state, first.table, first.head))
    contributions = {seat: f"ready-{seat}-{rng.random()}" for seat in range(3)}
    if in_the_match_record:
        for seat, value in contributions.items():
            recorder.append([match.SeatReady(seat, 2, value)])
    for tries in range(1, 5000):
        secret = hashlib.sha256(f"grind|{seed}|{tries}".encode()).hexdigest()
        hand = matchplay.HandRecorder(secret, game_id=match.hand_id(mid, 2))
        (create, created), *_ = match.next_hand(recorder.state, first.table, secret)
        hand.append(created, create)
        for seat, value in contributions.items():  # the old at-once form
            taken = tables.SeatTaken(seat, f"p{seat}", "", value)
            hand.append([taken], tables.cause("join", seat))
        hand.append(tables.start(hand.table), tables.cause("start"))
        if function_cards(hand.table, 0) >= 4:
            break
    else:
        raise AssertionError(f"seed {seed}: no secret found")
    recorder.append(match.open_hand(recorder.state))
    matchplay.play_hand(hand, rng)
    matchplay.close_and_end(recorder, hand)
    hands = {**played.hands, hand.game_id: hand}
    return matchplay.PlayedMatch(seed, recorder, hands), tries


@pytest.mark.parametrize("in_the_match_record", [True, False])
def test_a_server_that_grinds_a_later_hands_secret_is_refused(in_the_match_record: bool) -> None:
    seed = 2  # the server tries 39 secrets before one suits it
    rigged, tries = rigged_match(seed, in_the_match_record)
    assert tries > 1, f"seed {seed}: the first secret already suited the server"
    with pytest.raises(AuditFailure) as refused:
        verify_match(
            rigged.match.match_id, rigged.match.records, rigged.exported(), matchplay.PUBLIC_KEY
        )
    expected = "before that hand's commitment" if in_the_match_record else "CONTRIBUTION_TOO_EARLY"
    assert expected in str(refused.value), f"seed {seed}: {refused.value}"


def test_a_later_hand_refuses_a_seat_with_its_entropy_at_the_table() -> None:
    played = matchplay.play_match("zipai", ZIPAI, 3, seed=3, hands=2)
    second = list(played.hands.values())[1]
    opened = tables.evolve(None, tables.decode_event("zipai", second.records[0].fact))
    with pytest.raises(RuleViolation) as e:
        tables.take_seat(opened, 0, "p0", "h", "", deal.contribution_commitment("x"))
    assert e.value.reason == "CONTRIBUTION_TOO_EARLY"


# --- a fair match: every hand recomputes from the docs -------------------------------------


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def docs_shuffle(cards: list[int], key: bytes) -> list[int]:
    """docs/api.md's shuffle, written out with hashlib alone."""

    def stream() -> Any:
        counter = 0
        while True:
            yield from hashlib.sha256(key + counter.to_bytes(8, "big")).digest()
            counter += 1

    source = stream()

    def uniform(n: int) -> int:
        limit = 2**32 - 2**32 % n
        while True:
            x = int.from_bytes(bytes(next(source) for _ in range(4)), "big")
            if x < limit:
                return x % n

    deck = sorted(cards)
    for i in range(len(deck) - 1, 0, -1):
        j = uniform(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def docs_deck(records: list[Record]) -> tuple[list[int], list[int]]:
    """(the recorded deck, the deck recomputed from the record as docs/api.md says): a
    later hand's seats are seated with nothing; each commits (SeatCommitted) after version
    1, reveals (ContributionRevealed) or is passed over (RevealWithheld)."""
    facts = [(r.version, r.fact["type"], r.fact["data"]) for r in records]
    created = facts[0][2]
    (secret,) = [d["secret"] for _, t, d in facts if t == "ShuffleRevealed"]
    assert created["commitment"] == sha(f"tabletop-commit|{secret}|{created['salt']}|")
    seats = created["seat_count"]
    commitment: dict[int, str] = {}
    revealed: dict[int, str] = {}
    withheld: set[int] = set()
    for version, kind, data in facts:
        if kind == "SeatTaken":
            assert data["commitment"] == "" and data["contribution"] == "", "seated with entropy"
        if kind == "SeatCommitted":
            assert version > 1
            commitment[data["seat"]] = data["commitment"]
        if kind == "ContributionRevealed":
            assert len(commitment) + len(withheld) == seats, "a reveal before every commitment"
            revealed[data["seat"]] = data["contribution"]
        if kind == "RevealWithheld":
            withheld.add(data["seat"])
        if kind == "GameStarted":
            recorded = data["deck"]
            break
    entries = []
    for seat in range(seats):
        if seat in revealed:
            assert sha(f"tabletop-contribution|{revealed[seat]}") == commitment[seat]
            entries.append("r" + sha(f"tabletop-reveal|{revealed[seat]}"))
        elif seat in withheld and commitment.get(seat):
            entries.append("w" + commitment[seat])
        else:
            entries.append("n")
    key = hashlib.sha256("|".join(["tabletop-deal", secret, *entries]).encode()).digest()
    return recorded, docs_shuffle(recorded, hashlib.sha256(key + b"deck-0").digest())


@pytest.mark.parametrize(("kind", "options"), GAMES)
@pytest.mark.parametrize("advance", [match.Advance.AUTO, match.Advance.READY])
def test_every_hand_of_a_fair_match_recomputes_from_the_docs(
    kind: str, options: Any, advance: match.Advance
) -> None:
    played = matchplay.play_match(kind, options, 3, seed=21, hands=3, advance=advance)
    report = verify_match(
        played.match.match_id, played.match.records, played.exported(), matchplay.PUBLIC_KEY
    )
    assert len(report.hands) == 3
    later = list(played.exported().items())[1:]
    for game_id, records in later:
        recorded, recomputed = docs_deck(records)
        assert recorded == recomputed, f"hand {game_id} does not recompute"


# --- seat entropy in every hand; a seat that never commits ---------------------------------


def second_hand(
    kind: str, options: Any, contributions: dict[int, str], revealing: tuple[int, ...] | None
) -> tuple[matchplay.PlayedMatch, matchplay.HandRecorder]:
    """Hand 2 of a 3-seat AUTO match, opened with a fixed secret and drawn from
    ``contributions`` (seats missing from it never commit)."""
    played = matchplay.play_match(kind, options, 3, seed=4, hands=2, stop_after=1)
    mid = played.match.match_id
    recorder = matchplay.MatchRecorder(mid)
    recorder.append(match.create(rules_for(kind), mid, 3, 2, 0, secret="ab" * 32))
    first = list(played.hands.values())[0]
    recorder.append(match.end_hand(recorder.state, first.table, first.head))
    hand = matchplay.HandRecorder("fixed-secret", game_id=match.hand_id(mid, 2))
    for cause, facts in match.next_hand(recorder.state, first.table, hand.secret):
        hand.append(facts, cause)
    recorder.append(match.open_hand(recorder.state))
    matchplay.draw_hand(hand, contributions, revealing)
    return matchplay.PlayedMatch(4, recorder, {**played.hands, hand.game_id: hand}), hand


@pytest.mark.parametrize(("kind", "options"), GAMES)
def test_a_seats_commitment_changes_a_later_hands_deck(kind: str, options: Any) -> None:
    _, fair = second_hand(kind, options, {0: "a", 1: "b", 2: "c"}, None)
    _, other = second_hand(kind, options, {0: "a", 1: "b", 2: "c'"}, None)
    assert fair.table.game is not None and other.table.game is not None
    deck = [r for r in fair.records if r.fact["type"] == "GameStarted"][0].fact["data"]["deck"]
    other_deck = [r for r in other.records if r.fact["type"] == "GameStarted"]
    assert deck != other_deck[0].fact["data"]["deck"], "seat 2's entropy made no difference"


@pytest.mark.parametrize(("kind", "options"), GAMES)
def test_a_seat_that_never_commits_voids_the_hand_and_the_match_ends_incomplete(
    kind: str, options: Any
) -> None:
    """Given hand 2 of a match whose seat 2 never commits (or an operator that fails every
    call of it), when the draw waited its abandonment limit, then nothing is dealt: the
    hand is void, the match ends incomplete naming seat 2, and it verifies so."""
    played, hand = second_hand(kind, options, {0: "a", 1: "b"}, None)
    table = hand.table
    assert table.phase is tables.Phase.FINISHED and table.game is None
    assert table.abandoned == (2,), "the seat whose commitment never came"
    assert not [r for r in hand.records if r.fact["type"] in ("RevealWithheld", "GameStarted")]
    (abandoned,) = [r for r in hand.records if r.fact["type"] == "DealAbandoned"]
    assert abandoned.cause == tables.cause("abandon")
    hand.append(match.close_hand(played.match.state, hand.table), tables.cause("close"))
    assert hand.table.closed == (True, ""), "a void hand ends its match: the last"
    ended = match.end_hand(played.match.state, hand.table, hand.head)
    assert ended[0].reason == "VOID" and ended[0].winners == () and ended[0].scores == ()
    assert ended[1].incomplete and ended[1].waiting_for == (2,) and ended[1].winners == ()
    before = played.match.state.standings
    played.match.append(ended)
    assert played.match.state.standings == before, "the hands played stand as they were"
    report = verify_match(
        played.match.match_id, played.match.records, played.exported(), matchplay.PUBLIC_KEY
    )
    assert report.incomplete and report.waiting_for == (2,) and report.winners == ()
    assert report.hands[1].void == (2,)


def test_a_seat_that_commits_and_never_reveals_voids_the_hand() -> None:
    _, hand = second_hand("zipai", ZIPAI, {0: "a", 1: "b", 2: "c"}, revealing=(0, 1))
    assert hand.table.abandoned == (2,) and hand.table.game is None
    assert hand.table.seats[2].status is deal.Contribution.PENDING, "nothing stands in for it"


def test_a_seat_may_commit_to_nothing_and_is_named() -> None:
    played, hand = second_hand("zipai", ZIPAI, {0: "a", 1: "", 2: "c"}, None)
    assert hand.table.phase is tables.Phase.PLAYING
    assert hand.table.seats[1].entry == "n" and hand.table.no_entropy == (1,)
    matchplay.play_hand(hand, random.Random(5))
    matchplay.close_and_end(played.match, hand)
    report = verify_match(
        played.match.match_id, played.match.records, played.exported(), matchplay.PUBLIC_KEY
    )
    assert report.hands[1].entropy == ("seat 1 added no entropy",)
    assert report.hands[1].every_seat_entropy and not report.incomplete


def test_an_older_match_whose_hand_went_ahead_without_a_seat_verifies_as_no_fair_deal() -> None:
    """A record made before issue 35: hand 2's commit window closed on seat 2 (RevealWithheld,
    a start cause with ``reveals_closed``) and the hand was dealt on the others' entropy.
    It still parses and verifies, but verify names the seat and no longer calls it fair."""
    played = matchplay.play_match("zipai", ZIPAI, 3, seed=4, hands=2, stop_after=1)
    mid = played.match.match_id
    recorder = matchplay.MatchRecorder(mid)
    recorder.append(match.create(rules_for("zipai"), mid, 3, 2, 0, secret="ab" * 32))
    first = list(played.hands.values())[0]
    recorder.append(match.end_hand(recorder.state, first.table, first.head))
    hand = matchplay.HandRecorder("old-secret", game_id=match.hand_id(mid, 2))
    for cause, facts in match.next_hand(recorder.state, first.table, hand.secret):
        hand.append(facts, cause)
    recorder.append(match.open_hand(recorder.state))
    for seat in (0, 1):
        commitment = deal.contribution_commitment(f"old{seat}")
        hand.append(tables.commit(hand.table, seat, commitment), tables.cause("commit", seat))
    closed = {**tables.cause("start"), "reveals_closed": True}
    hand.append(tables.start_withheld(hand.table), closed)
    for seat in (0, 1):
        hand.append(tables.reveal(hand.table, seat, f"old{seat}"), tables.cause("reveal", seat))
    hand.append(tables.start(hand.table), tables.cause("start"))
    matchplay.play_hand(hand, random.Random(7))
    matchplay.close_and_end(recorder, hand)
    hands = {**played.exported(), hand.game_id: list(hand.records)}
    report = verify_match(mid, recorder.records, hands, matchplay.PUBLIC_KEY)
    old = report.hands[1]
    assert not old.every_seat_entropy
    assert old.entropy == (
        "seat 2's entropy did not go in (withheld: a record made before issue 35)",
    )
    assert old.deal_words.startswith("NOT a fair deal: seat 2's entropy did not go in")
    assert report.hands[0].every_seat_entropy
    from clients.python.audit_verify import match_line  # what `verify --match` prints

    line = match_line(report)
    assert "hand 2 NOT a fair deal: seat 2's entropy did not go in" in line, line
    assert "every hand dealt from every seat's entropy" not in line


@pytest.mark.parametrize("through", [(), (0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2)])
def test_an_operator_censoring_a_later_hands_reveals_gets_one_deal_or_none(
    through: tuple[int, ...],
) -> None:
    """Given every seat committed to hand 2, when an operator delivers only the reveals of
    ``through``, then the hand is dealt from every seat's reveal (only when all got
    through) or it is void: no subset of reveals deals."""
    _, hand = second_hand("huaniao", HUANIAO, {0: "a", 1: "b", 2: "c"}, revealing=through)
    if through == (0, 1, 2):
        _, fair = second_hand("huaniao", HUANIAO, {0: "a", 1: "b", 2: "c"}, None)
        assert hand.table.game == fair.table.game, "the one deal"
    else:
        assert hand.table.game is None
        assert hand.table.abandoned == tuple(s for s in range(3) if s not in through)


def test_reveals_wait_for_every_commitment_and_a_commitment_stands() -> None:
    played = matchplay.play_match("zipai", ZIPAI, 3, seed=8, hands=2)
    second = list(played.hands.values())[1]
    table = None
    for r in second.records[:4]:  # created and seated
        table = tables.evolve(table, tables.decode_event("zipai", r.fact))
    assert table is not None and table.awaited_commitments == (0, 1, 2)
    table = tables.evolve(table, tables.commit(table, 0, deal.contribution_commitment("a"))[0])
    with pytest.raises(RuleViolation) as e:
        tables.reveal(table, 0, "a")
    assert e.value.reason == "REVEAL_TOO_EARLY"
    with pytest.raises(RuleViolation) as e:
        tables.commit(table, 0, deal.contribution_commitment("other"))
    assert e.value.reason == "ALREADY_COMMITTED"
    assert tables.commit(table, 0, deal.contribution_commitment("a")) == []
    with pytest.raises(RuleViolation) as e:
        tables.start(table)
    assert e.value.reason == "COMMITMENTS_PENDING"


# --- the arbiter is bounded ------------------------------------------------------------------


def disputed_case(h: Harness) -> int:
    """Seat 0 or 2 (in turn: a redealt report fails, two per seat) reports seat 1 for
    something nobody can check; the other confirms, seat 1 rejects: disputed."""
    by = 2 if len(h.table.justice.cases) % 2 else 0
    h.act(
        J.Report(by, 1, J.ViolationKind.OTHER, (h.version,), J.Penalty(J.PenaltyKind.WARNING), "")
    )
    case = h.version
    h.act(J.CastVote(2 - by, case, True))
    h.act(J.CastVote(1, case, False))
    return case


def every_seat_agrees(h: Harness, draw: bool = True) -> list[Any]:
    """重新洗牌发牌 on the open case: every seat agrees (the arbiter cannot order it)."""
    case = h.table.justice.open_case
    assert case is not None
    facts: list[Any] = []
    for seat in range(h.table.seat_count):
        facts = h.act(J.AgreeRedeal(seat, case.id), draw=draw)
    return facts[1:]  # the redeal itself (after the last agreement)


def harness(max_redeals: int) -> Harness:
    h = Harness.open(HUANIAO, 3, J.Enforcement.REJECT, arbitrated=True, max_redeals=max_redeals)
    return h


@pytest.mark.parametrize("cap", [1, 2])
def test_every_seat_together_gets_at_most_the_tables_redeals(cap: int) -> None:
    h = harness(cap)
    for n in range(1, cap + 1):
        disputed_case(h)
        facts = every_seat_agrees(h)
        assert [type(f).__name__ for f in facts] == ["CaseClosed", "RedealOpened"]
        assert h.table.justice.redeals == n and h.table.redeals_requested_by == ("seats",) * n
    disputed_case(h)
    version = h.version
    with pytest.raises(RuleViolation) as e:
        h.act(J.AgreeRedeal(0, h.table.justice.cases[-1].id))
    assert e.value.reason == "REDEAL_LIMIT" and h.version == version, "nothing appended"
    assert str(cap) in e.value.message


def test_the_default_cap_is_one_redeal_per_match() -> None:
    (created,) = tables.create(rules_for("huaniao"), HUANIAO, 3, "a", "s")
    assert created.max_redeals == tables.DEFAULT_MAX_REDEALS == 1
    with pytest.raises(MalformedCommand):
        tables.create(rules_for("huaniao"), HUANIAO, 3, "a", "s", max_redeals=4)


def redealt_deck(fresh: dict[int, str]) -> tuple[int, ...]:
    """The deck of the first redeal when the seats reveal ``fresh`` (all else the same)."""
    h = harness(1)
    disputed_case(h)
    every_seat_agrees(h, draw=False)
    (redealt, *_) = h.draw_redeal(fresh)
    assert isinstance(redealt, J.GameRedealt)
    return redealt.deck


def test_a_redeal_is_a_function_of_the_seats_fresh_reveals() -> None:
    """Neither the arbiter nor the server picks among deals: with the redeal's secret fixed
    (committed in RedealOpened before any seat's fresh entropy), one seat's fresh
    contribution alone changes the deck, and the deck is the docs' derivation over the
    redeal's secret and the fresh entries."""
    base = redealt_deck({0: "x", 1: "y", 2: "z"})
    assert base == redealt_deck({0: "x", 1: "y", 2: "z"}), "not reproducible"
    assert base != redealt_deck({0: "x", 1: "y", 2: "z2"}), "seat 2's fresh entropy did nothing"
    h = harness(1)
    disputed_case(h)
    (_, opened) = every_seat_agrees(h, draw=False)
    assert opened.commitment == deal.commitment(opened.secret)
    entries = ["r" + hashlib.sha256(f"tabletop-reveal|{v}".encode()).hexdigest() for v in "xyz"]
    (redealt, *_) = h.draw_redeal({0: "x", 1: "y", 2: "z"})
    key = hashlib.sha256("|".join(["tabletop-deal", opened.secret, *entries]).encode()).digest()
    cards = sorted(redealt.deck)
    assert list(redealt.deck) == docs_shuffle(cards, hashlib.sha256(key + b"deck-1").digest())


def test_a_redeal_pauses_the_game_until_drawn_and_its_secret_is_revealed_at_the_end() -> None:
    h = harness(1)
    disputed_case(h)
    every_seat_agrees(h, draw=False)
    assert h.table.paused and tables.to_act(h.table) == () and h.table.awaited_commitments
    with pytest.raises(RuleViolation) as e:
        h.act(
            J.Report(
                1, 0, J.ViolationKind.OTHER, (h.version,), J.Penalty(J.PenaltyKind.WARNING), ""
            )
        )
    assert e.value.reason == "REDEAL_DRAWING"
    opened = h.fact(h.version)
    assert tables.redact("huaniao", opened, ARBITER).secret == ""
    h.draw_redeal({0: "x", 1: "y", 2: "z"})
    assert h.table.redraw is None and not h.table.paused
    ended = dataclasses.replace(
        h.table, justice=dataclasses.replace(h.table.justice, forfeited=(1,))
    )
    facts = tables.with_reveal(ended, [])
    assert [type(f).__name__ for f in facts] == ["ShuffleRevealed", "RedealSecretsRevealed"]
    assert facts[1].secrets == (opened.secret,)


def test_a_redeal_that_a_seat_never_commits_to_voids_the_game() -> None:
    """Given a redeal being drawn, when seat 1 never commits (or its calls are lost), then
    after the abandonment limit the game ends void: no deal without seat 1's entropy."""
    h = harness(1)
    disputed_case(h)
    every_seat_agrees(h, draw=False)
    (abandoned, *revealed) = h.draw_redeal({0: "x", 2: "z"})
    assert abandoned == tables.DealAbandoned((1,), 1)
    assert [type(f).__name__ for f in revealed] == ["ShuffleRevealed", "RedealSecretsRevealed"]
    assert h.table.phase is tables.Phase.FINISHED and h.table.outcome.reason == "VOID"


# --- the docs' test vectors ------------------------------------------------------------------


def draw_vectors() -> dict[str, Any]:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- draw-test-vectors -->\n```json\n(.*?)\n```", doc, re.S)
    assert found, "docs/api.md lost its draw test vectors"
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def test_the_docs_vectors_of_a_later_hand_and_a_redeal() -> None:
    v = draw_vectors()
    hand, redeal = v["later_hand"], v["redeal"]
    c = deal.contribution_commitment
    assert deal.commitment(hand["secret"], hand["salt"]) == hand["commitment"]
    entries = [
        deal.entry(c("alpha"), "alpha"),
        deal.entry(c("beta"), "beta"),
        deal.entry("", None, True),
    ]
    assert entries == hand["entries"]
    key = deal.table_key(hand["secret"], entries)
    assert key.hex() == hand["table_key"]
    assert list(deal.deck_for_round(key, range(10), 0)) == hand["deck_round_0_of_cards_0_to_9"]
    assert deal.seed_for_round(key, 0) == hand["seed_round_0"]
    assert deal.commitment(redeal["secret"]) == redeal["commitment"]
    fresh = [deal.entry(c("gamma"), "gamma"), deal.entry(c("delta"), None, True), "n"]
    assert fresh == redeal["entries"]
    redeal_key = deal.table_key(redeal["secret"], fresh)
    assert redeal_key.hex() == redeal["redeal_key"]
    n = redeal["round"]
    assert (
        list(deal.deck_for_round(redeal_key, range(10), n))
        == redeal["deck_round_1_of_cards_0_to_9"]
    )
    assert deal.seed_for_round(redeal_key, n) == redeal["seed_round_1"]
    # the table's own redeal derives from exactly this key
    from domain.table.state import Entropy, Redraw

    inputs = (
        Entropy(c("gamma"), "gamma", awaited=False),
        Entropy(c("delta"), "", True, False),
        Entropy(awaited=False),
    )
    assert Redraw(n, "arbiter", redeal["secret"], redeal["commitment"], inputs).key == redeal_key
