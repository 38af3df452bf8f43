"""Audit over the API: export, verify, and tampered copies that must fail."""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import pytest

from clients.python.audit import export_lines, verify_lines
from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient, reveal_and_start
from domain import table as tables
from domain.registry import rules_for
from domain.table import deal
from domain.table import records as rec
from domain.verify import AuditFailure
from tests.api.helpers import huaniao_options, seated_game


@pytest.fixture(scope="module")
def finished(server) -> tuple[str, list[str]]:  # type: ignore[no-untyped-def]
    with TableClient(server.target) as client:
        created = client.create_game(huaniao_options("BASIC"), 4)
        seats = [client.join(created.game_id, s, f"p{s}", contribution=f"c{s}") for s in range(4)]
        reveal_and_start(seats)
        play_to_end([RandomBot(s, i) for i, s in enumerate(seats)])
        lines = list(export_lines(client.as_viewer(created.game_id).history()))
    return created.game_id, lines


def test_a_real_history_verifies(finished: tuple[str, list[str]]) -> None:
    _, lines = finished
    report = verify_lines(lines)
    assert report.kind == "huaniao" and report.events == len(lines)
    assert report.moves_redecided > 5 and report.winners


def test_the_deck_is_recomputable_from_the_revealed_inputs(finished: tuple[str, list[str]]) -> None:
    _, lines = finished
    rows = [json.loads(line) for line in lines]
    created = rows[0]["fact"]["data"]
    assert created["deal_source"] == "SHUFFLED"

    def of(kind: str) -> list[dict[str, Any]]:
        return [r["fact"]["data"] for r in rows if r["fact"]["type"] == kind]

    def sha(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()

    commitments = [s["commitment"] for s in of("SeatTaken")]
    assert commitments == [sha(f"tabletop-contribution|c{s}") for s in range(4)]
    reveals = {r["seat"]: r["contribution"] for r in of("ContributionRevealed")}
    assert reveals == {s: f"c{s}" for s in range(4)}, "every seat revealed before the deal"
    (revealed,) = of("ShuffleRevealed")
    secret, salt = revealed["secret"], revealed["salt"]
    assert sha(f"tabletop-commit|{secret}|{salt}|") == created["commitment"]
    entries = ["r" + sha(f"tabletop-reveal|{reveals[s]}") for s in range(4)]
    key = hashlib.sha256("|".join(["tabletop-deal", secret, *entries]).encode()).digest()
    (started,) = of("GameStarted")
    options = tables.decode_event("huaniao", rows[0]["fact"]).options
    mode_deck = rules_for("huaniao").new_deck(options)
    assert tuple(started["deck"]) == deal.deck_for_round(key, mode_deck, 0)
    assert started["seed"] == deal.seed_for_round(key, 0)


def test_any_single_altered_byte_fails(finished: tuple[str, list[str]]) -> None:
    _, lines = finished
    text = "\n".join(lines)
    rng = random.Random(7)
    positions = rng.sample(range(len(text)), 300)
    for pos in positions:
        replacement = rng.choice([c for c in '0123456789abcdef{}[]":, x' if c != text[pos]])
        tampered = text[:pos] + replacement + text[pos + 1 :]
        with pytest.raises(AuditFailure):
            verify_lines(tampered.split("\n"))


def test_a_dropped_event_fails(finished: tuple[str, list[str]]) -> None:
    _, lines = finished
    for i in (1, len(lines) // 2, len(lines) - 2):
        with pytest.raises(AuditFailure):
            verify_lines(lines[:i] + lines[i + 1 :])


def test_two_swapped_events_fail(finished: tuple[str, list[str]]) -> None:
    _, lines = finished
    i = len(lines) // 2
    swapped = lines[:i] + [lines[i + 1], lines[i]] + lines[i + 2 :]
    with pytest.raises(AuditFailure):
        verify_lines(swapped)
    # even with their versions swapped back into order the chain breaks
    a, b = json.loads(lines[i]), json.loads(lines[i + 1])
    a["version"], b["version"] = b["version"], a["version"]
    renumbered = lines[:i] + [rec.canonical(b), rec.canonical(a)] + lines[i + 2 :]
    with pytest.raises(AuditFailure):
        verify_lines(renumbered)


def test_a_forged_reveal_fails(finished: tuple[str, list[str]]) -> None:
    _, lines = finished
    records = [json.loads(line) for line in lines]
    forged_secret = "f" * 64
    for r in records:
        if r["fact"]["type"] == "ShuffleRevealed":
            r["fact"]["data"]["secret"] = forged_secret
    with pytest.raises(AuditFailure, match="secret"):
        verify_lines([rec.canonical(r) for r in records])
    # a forger who also rewrites the creation and recomputes every hash is caught by the
    # commitment published before the game
    records[0]["fact"]["data"]["secret"] = forged_secret
    key, prev = rec.chain_key(forged_secret), ""
    for r in records:
        r["hash"] = rec.chain_hash(key, prev, r["version"], r["fact"], r["cause"])
        prev = r["hash"]
    with pytest.raises(AuditFailure, match="commitment"):
        verify_lines([rec.canonical(r) for r in records])


def test_a_forged_move_with_a_recomputed_chain_fails(finished: tuple[str, list[str]]) -> None:
    """An insider with the secret rewrites a card and recomputes every hash: the engine's
    re-decision of the moves still catches it."""
    _, lines = finished
    records = [json.loads(line) for line in lines]
    secret = records[0]["fact"]["data"]["secret"]
    started = next(r for r in records if r["fact"]["type"] == "GameStarted")
    deck = started["fact"]["data"]["deck"]
    deck[0], deck[-1] = deck[-1], deck[0]
    key, prev = rec.chain_key(secret), ""
    for r in records:
        r["hash"] = rec.chain_hash(key, prev, r["version"], r["fact"], r["cause"])
        prev = r["hash"]
    with pytest.raises(AuditFailure, match="differ|refuses"):
        verify_lines([rec.canonical(r) for r in records])


def test_a_running_game_exports_redacted_and_does_not_verify(client: TableClient) -> None:
    game_id, seats, _ = seated_game(client, seed=3)
    lines = list(export_lines(seats[1].history()))
    assert all("redacted" in json.loads(line) for line in lines)
    with pytest.raises(AuditFailure):
        verify_lines(lines)
