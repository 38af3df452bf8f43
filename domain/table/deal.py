"""The deal: the shuffle commitment, the seats' entropy and the deck derivation.

Published algorithms (docs/api.md, "Audit"):

* The server draws a 256-bit ``secret`` per table and publishes ``commitment(secret,
  prepared_deck)`` in GameCreated, before any seat joins.
* Each seat may add a ``contribution`` when it joins (SeatTaken, public).
* ``shuffle_seed(secret, contributions)`` seeds Python's Mersenne Twister, whose
  ``shuffle`` (Fisher-Yates) orders the mode's deck. Neither the server (committed before
  the contributions) nor any seat (blind to the secret) can choose the deal.
"""

from __future__ import annotations

import hashlib
import random


def commitment(secret: str, prepared_deck: tuple[int, ...] = ()) -> str:
    body = f"tabletop-commit|{secret}|{','.join(map(str, prepared_deck))}"
    return hashlib.sha256(body.encode()).hexdigest()


def shuffle_seed(secret: str, contributions: tuple[str, ...]) -> int:
    body = "tabletop-shuffle|" + "|".join((secret, *contributions))
    return int(hashlib.sha256(body.encode()).hexdigest()[:16], 16)


def secret_from_seed(seed: int) -> str:
    """A reproducible secret for tables created with an explicit seed (tests, replays)."""
    return hashlib.sha256(f"tabletop-seed|{seed}".encode()).hexdigest()


def shuffle(deck: tuple[int, ...], seed: int) -> tuple[int, ...]:
    """The published shuffle: Python's Mersenne Twister seeded with ``seed``, Fisher-Yates."""
    cards = list(deck)
    random.Random(seed).shuffle(cards)
    return tuple(cards)


def redeal_seed(secret: str, contributions: tuple[str, ...], round_: int) -> int:
    """The seed of the ``round_``-th 重新洗牌发牌 at the same table."""
    return shuffle_seed(secret, (*contributions, f"redeal-{round_}"))


def reshuffle_unseen(
    cards: tuple[int, ...], secret: str, contributions: tuple[str, ...], label: str
) -> tuple[int, ...]:
    """Cards going back to the unseen part of the deck (an upheld appeal), in a new order
    derived from the committed randomness and ``label`` (unique per use at a table): replay
    and verify reproduce it, and nobody could know it before the secret is revealed."""
    return shuffle(cards, shuffle_seed(secret, (*contributions, label)))
