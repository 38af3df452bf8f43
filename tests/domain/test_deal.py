"""The published deal derivation (domain/table/deal.py) against the test vectors in
docs/api.md, "Audit" (clients/node/test/deal.test.js checks the Node version against the
same block), and the properties the vectors cannot show."""

from __future__ import annotations

import collections
import json
import re
from pathlib import Path
from typing import Any

import pytest

from domain.table import deal

API_DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def vectors() -> dict[str, Any]:
    text = API_DOC.read_text(encoding="utf-8")
    found = re.search(r"<!-- deal-test-vectors -->\n```json\n(.*?)\n```", text, re.S)
    assert found, "docs/api.md lost its deal test vectors"
    data: dict[str, Any] = json.loads(found.group(1))
    return data


V = vectors()
KEY = bytes.fromhex(V["table_key"])


def test_the_commitments() -> None:
    assert deal.commitment(V["secret"], V["salt"]) == V["commitment"]
    deck = tuple(V["prepared_deck"])
    assert deal.commitment(V["secret"], V["salt"], deck) == V["commitment_with_prepared_deck"]
    assert deal.secret_from_seed(V["seed"]) == V["secret_from_seed"]
    for contribution, committed in V["contributions"].items():
        assert deal.contribution_commitment(contribution) == committed


def test_the_entries_and_the_table_key() -> None:
    alpha, beta = V["contributions"]["alpha"], V["contributions"]["beta"]
    entries = [
        deal.entry(alpha, "alpha"),
        deal.entry(beta, None, withheld=True),
        deal.entry("", None),
    ]
    assert entries == V["entries"]
    assert deal.table_key(V["secret"], entries).hex() == V["table_key"]


def test_the_stream_and_rejection_sampling() -> None:
    stream = deal.stream(KEY)
    assert bytes(next(stream) for _ in range(40)).hex() == V["stream_first_40_bytes"]
    source = deal.stream(deal.subkey(KEY, "vector-rejection"))
    draws = [deal.uniform(source, 2**31 + 1) for _ in range(8)]
    assert draws == V["uniform_2147483649_under_subkey_vector-rejection"]


def test_the_decks_seeds_and_reshuffle() -> None:
    assert list(deal.deck_for_round(KEY, range(108), 0)) == V["deck_round_0_of_cards_0_to_107"]
    assert list(deal.deck_for_round(KEY, range(10), 1)) == V["deck_round_1_of_cards_0_to_9"]
    assert deal.seed_for_round(KEY, 0) == V["seed_round_0"]
    assert deal.seed_for_round(KEY, 1) == V["seed_round_1"]
    r = V["reshuffle_unseen"]
    got = deal.reshuffle_unseen(KEY, r["cards"], r["label"])
    assert list(got) == r["result"]


def test_the_input_order_of_the_cards_does_not_matter() -> None:
    assert deal.shuffle((5, 1, 3, 2), KEY) == deal.shuffle((1, 2, 3, 5), KEY)
    assert sorted(deal.shuffle(range(108), KEY)) == list(range(108))


def test_every_round_and_label_has_its_own_stream() -> None:
    decks = {deal.deck_for_round(KEY, range(108), r) for r in range(5)}
    assert len(decks) == 5
    a = deal.reshuffle_unseen(KEY, range(50), "revoke-3")
    b = deal.reshuffle_unseen(KEY, range(50), "revoke-4")
    assert a != b


@pytest.mark.parametrize("n", [3, 7, 108])
def test_uniform_is_uniform(n: int) -> None:
    """Chi-square over 30,000 draws against the 99.9% quantile. The key is fixed, so the
    test is deterministic."""
    source = deal.stream(b"uniformity")
    draws = 30_000
    counts = collections.Counter(deal.uniform(source, n) for _ in range(draws))
    expected = draws / n
    chi2 = sum((counts[i] - expected) ** 2 / expected for i in range(n))
    bound = {3: 13.8, 7: 22.5, 108: 156.0}[n]  # chi-square 0.999 quantiles, n-1 d.o.f.
    assert set(counts) <= set(range(n))
    assert chi2 < bound, (n, chi2)


def test_every_position_is_reachable_by_the_shuffle() -> None:
    """Fisher–Yates over 4 cards: all 24 orders appear over many keys, about evenly."""
    orders = collections.Counter(
        deal.shuffle(range(4), deal.subkey(b"orders", str(i))) for i in range(4_800)
    )
    assert len(orders) == 24
    assert min(orders.values()) > 120 and max(orders.values()) < 280
