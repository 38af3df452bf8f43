"""The deal: commit–reveal entropy and the published, language-independent deck derivation.

Nobody chooses the deal (docs/api.md, "Audit", has the argument and the test vectors):

* CreateGame: the server draws a 256-bit ``secret`` and a ``salt`` and publishes
  ``commitment(secret, salt, prepared_deck)`` before any seat joins.
* JoinGame: each seat commits to its own random ``contribution`` with
  ``contribution_commitment(contribution)``.
* Once every seat has committed, each reveals its contribution; a reveal must match its
  commitment. The deal is made from every seat's entropy or not at all: nothing stands in
  for a seat that does not reveal (the draw waits, then is abandoned and the game is void).
  A seat may commit to nothing (entry ``n``). Records made before issue 35 may hold the old
  stand-in, a withheld seat's commitment (``"w" + commitment``): ``entry`` still computes
  it so those records recompute, and verify flags them.
* The deck is a Fisher–Yates shuffle fed by a counter-mode SHA-256 stream keyed by
  ``table_key(secret, entries)``: every input was fixed before anyone revealed.

A match's later hand and every 重新洗牌发牌 are drawn the same way, with a fresh secret:
its commitment is public first, then the seats (already seated) commit, then reveal (in
records made before issue 35, a seat that never committed in time was WITHHELD with the
entry ``n``). A redeal's deck comes
from ``table_key(the redeal's secret, the seats' fresh entries)``.

Everything here is plain SHA-256, integers and sorted card ids, so any language can
recompute it (clients/node/lib/deal.js does).
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Iterable, Iterator

MAX_CONTRIBUTION = 128  # characters of a seat's contribution
SEED_BYTES = 6  # a game seed is 48 bits: exact in every JSON parser (JavaScript included)


class DealSource(enum.Enum):
    """Where a table's deal comes from; anything but SHUFFLED is a prepared deal."""

    SHUFFLED = 1  # the server's committed secret and the seats' reveals
    PREPARED_SEED = 2  # a client-given seed: the creator chose the server's secret
    PREPARED_DECK = 3  # a client-given deck: the creator chose every hand


class Contribution(enum.Enum):
    """Where a seat's contribution stands."""

    NONE = 1  # the seat committed to nothing
    PENDING = 2  # committed, not yet revealed
    REVEALED = 3  # revealed; it matched its commitment
    WITHHELD = 4  # records made before issue 35 only: passed over by a window (``entry``)
    AWAITED = 5  # seated first (a match's later hand, a redeal): its commitment is to come


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def commitment(secret: str, salt: str = "", prepared_deck: tuple[int, ...] = ()) -> str:
    """The server's public commitment. The random salt keeps a seed-derived secret from
    being guessed back out of it."""
    return _sha256(f"tabletop-commit|{secret}|{salt}|{','.join(map(str, prepared_deck))}")


def secret_from_seed(seed: int) -> str:
    """The secret of a table created with a client-given seed (a prepared deal)."""
    return _sha256(f"tabletop-seed|{seed}")


def contribution_commitment(contribution: str) -> str:
    """What a seat sends at JoinGame: it binds the seat to the contribution it reveals later."""
    return _sha256(f"tabletop-contribution|{contribution}")


def is_commitment(text: str) -> bool:
    return len(text) == 64 and all(c in "0123456789abcdef" for c in text)


def entry(commitment_: str, revealed: str | None, withheld: bool = False) -> str:
    """A seat's input to the table key: its reveal, or ``n`` for a seat that committed to
    nothing (or, withheld in a record made before issue 35, its own commitment)."""
    if revealed:
        return "r" + _sha256(f"tabletop-reveal|{revealed}")
    if commitment_ and withheld:
        return "w" + commitment_
    return "n"


def table_key(secret: str, entries: Iterable[str]) -> bytes:
    """The key every shuffle of the table derives from: the secret and each seat's entry,
    in seat order."""
    return hashlib.sha256("|".join(("tabletop-deal", secret, *entries)).encode()).digest()


def subkey(key: bytes, label: str) -> bytes:
    return hashlib.sha256(key + label.encode()).digest()


def stream(key: bytes) -> Iterator[int]:
    """Counter-mode SHA-256: the bytes of SHA-256(key || uint64_be(j)) for j = 0, 1, ..."""
    counter = 0
    while True:
        yield from hashlib.sha256(key + counter.to_bytes(8, "big")).digest()
        counter += 1


def uniform(source: Iterator[int], n: int) -> int:
    """An integer in [0, n), uniform: 4 stream bytes big-endian, rejected above the largest
    multiple of n (so no value is more likely than another)."""
    limit = (1 << 32) - (1 << 32) % n
    while True:
        x = int.from_bytes(bytes(next(source) for _ in range(4)), "big")
        if x < limit:
            return x % n


def shuffle(cards: Iterable[int], key: bytes) -> tuple[int, ...]:
    """Fisher–Yates (Durstenfeld) over the cards sorted ascending, fed by ``stream(key)``:
    for i from the last index down to 1, swap a[i] with a[uniform(i + 1)]."""
    deck = sorted(cards)
    source = stream(key)
    for i in range(len(deck) - 1, 0, -1):
        j = uniform(source, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def deck_for_round(key: bytes, cards: Iterable[int], round_: int) -> tuple[int, ...]:
    """The deck of the first deal (round 0) or of the ``round_``-th 重新洗牌发牌."""
    return shuffle(cards, subkey(key, f"deck-{round_}"))


def seed_for_round(key: bytes, round_: int) -> int:
    """The game's own seed for its in-game chance in that round (48 bits)."""
    return int.from_bytes(subkey(key, f"seed-{round_}")[:SEED_BYTES], "big")


def reshuffle_unseen(key: bytes, cards: Iterable[int], label: str) -> tuple[int, ...]:
    """The unseen part of the deck (the stock) in a new order, once cards a seat saw have
    gone back into it (an upheld appeal, a retraction): ``cards`` is the whole unseen part,
    the returning cards included, shuffled under ``subkey(key, "reshuffle-" + label)``.
    ``label`` is unique per use at a table (e.g. ``revoke-<case id>``). Like every deal it
    follows from committed randomness, so replay and verify reproduce it, and nobody knows
    where a returned card lies."""
    return shuffle(cards, subkey(key, f"reshuffle-{label}"))
