"""The 80 cards of 川南字牌: 一…十 (small) and 壹…拾 (big), four of each.

A card has a fixed identity ``id`` in 0..79 so that it can be followed through a hand
(and hidden: an id is as revealing as a face). Its *kind* is the face, 0..19:
small ranks 1..10 are kinds 0..9, big ranks 1..10 are kinds 10..19. ``id = kind * 4 + copy``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

CARD_COUNT = 80
KIND_COUNT = 20
COPIES = 4
RED_RANKS = (2, 7, 10)

SMALL_NAMES = ("一", "二", "三", "四", "五", "六", "七", "八", "九", "十")
BIG_NAMES = ("壹", "贰", "叁", "肆", "伍", "陆", "柒", "捌", "玖", "拾")


@dataclass(frozen=True)
class Card:
    """One physical card: its identity and its face (rank 1..10, big = 大写)."""

    id: int  # 0..79, stable identity
    rank: int  # 1..10
    big: bool  # True for 壹…拾 (大写), False for 一…十 (小写)


def kind_of(card_id: int) -> int:
    """The face (0..19) of a card id."""
    return card_id // COPIES


def rank_of_kind(kind: int) -> int:
    return kind % 10 + 1


def big_of_kind(kind: int) -> bool:
    return kind >= 10


def kind_of_face(rank: int, big: bool) -> int:
    return (10 if big else 0) + rank - 1


@cache
def card(card_id: int) -> Card:
    """The :class:`Card` with this id."""
    k = kind_of(card_id)
    return Card(card_id, rank_of_kind(k), big_of_kind(k))


def cards(card_ids: tuple[int, ...] | list[int]) -> tuple[Card, ...]:
    """The cards with these ids. The same ids give the very same tuple (a bounded cache):
    a hand or meld that did not change, or that several views show, is then one object,
    which the server renders once (server/wire/protoconv.py keeps renderings by identity)."""
    return _cards(card_ids if type(card_ids) is tuple else tuple(card_ids))


@lru_cache(maxsize=2048)
def _cards(card_ids: tuple[int, ...]) -> tuple[Card, ...]:
    return tuple(card(i) for i in card_ids)


def is_red_kind(kind: int) -> bool:
    """二七十 and 贰柒拾 are red; every other card is black."""
    return rank_of_kind(kind) in RED_RANKS


def is_red(card_id: int) -> bool:
    return is_red_kind(kind_of(card_id))


def kind_name(kind: int) -> str:
    return (BIG_NAMES if big_of_kind(kind) else SMALL_NAMES)[kind % 10]


def name(card_id: int) -> str:
    """The face of a card: 一 … 十 or 壹 … 拾."""
    return kind_name(kind_of(card_id))


def card_name(c: Card) -> str:
    return (BIG_NAMES if c.big else SMALL_NAMES)[c.rank - 1]


def ids_of_kind(kind: int) -> tuple[int, ...]:
    return tuple(range(kind * COPIES, kind * COPIES + COPIES))


def full_deck() -> tuple[int, ...]:
    """All 80 card ids, unshuffled."""
    return tuple(range(CARD_COUNT))


def kind_counts(card_ids: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    """How many cards of each of the 20 kinds."""
    counts = [0] * KIND_COUNT
    for i in card_ids:
        counts[i // COPIES] += 1
    return tuple(counts)
