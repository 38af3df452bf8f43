"""The 108 cards of 花鸟风月 (seed part 1, 一（一）牌组构成).

Card ids are fixed identities: the same id is always the same physical card, so a client that
knows an id knows its kind (and :class:`Card` carries the kind anyway).

==========  ======  =====================
ids         count   kind
==========  ======  =====================
0 – 53      54      鸟 BIRD
54 – 62     9       十 TEN          (+1)
63 – 71     9       百 HUNDRED      (+2)
72 – 80     9       千 THOUSAND     (+3)
81 – 89     9       万 TEN_THOUSAND (+4)
90 – 95     6       花 FLOWER
96 – 101    6       风 WIND
102 – 107   6       月 MOON
==========  ======  =====================
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache


class CardKind(enum.Enum):
    """The eight kinds of card."""

    BIRD = 1  # 鸟
    TEN = 2  # 十
    HUNDRED = 3  # 百
    THOUSAND = 4  # 千
    TEN_THOUSAND = 5  # 万
    FLOWER = 6  # 花
    WIND = 7  # 风
    MOON = 8  # 月


class CardClass(enum.Enum):
    """The three classes of card (鸟牌 / 数量牌 / 功能牌): discard order and 曲高和寡 guesses."""

    BIRD = 1
    NUMBER = 2
    FUNCTION = 3


@dataclass(frozen=True)
class Card:
    """One physical card: its stable id and its kind."""

    id: int
    kind: CardKind


# Kind indexes used by the fast counting code: a hand is summarised as an 8-tuple of counts.
KINDS: tuple[CardKind, ...] = tuple(CardKind)
I_BIRD, I_TEN, I_HUNDRED, I_THOUSAND, I_WAN, I_FLOWER, I_WIND, I_MOON = range(8)
NUMBER_INDEXES = (I_TEN, I_HUNDRED, I_THOUSAND, I_WAN)
FUNCTION_INDEXES = (I_FLOWER, I_WIND, I_MOON)

_LAYOUT: tuple[tuple[CardKind, int], ...] = (
    (CardKind.BIRD, 54),
    (CardKind.TEN, 9),
    (CardKind.HUNDRED, 9),
    (CardKind.THOUSAND, 9),
    (CardKind.TEN_THOUSAND, 9),
    (CardKind.FLOWER, 6),
    (CardKind.WIND, 6),
    (CardKind.MOON, 6),
)

KIND_OF: tuple[CardKind, ...] = tuple(k for k, n in _LAYOUT for _ in range(n))
INDEX_OF: tuple[int, ...] = tuple(k.value - 1 for k in KIND_OF)
CARDS: tuple[Card, ...] = tuple(Card(i, k) for i, k in enumerate(KIND_OF))
DECK_SIZE = len(CARDS)  # 108
FIRST_FUNCTION_ID = 90  # ids below are birds and number cards (the 简易 deck)

NAME: dict[CardKind, str] = {
    CardKind.BIRD: "鸟",
    CardKind.TEN: "十",
    CardKind.HUNDRED: "百",
    CardKind.THOUSAND: "千",
    CardKind.TEN_THOUSAND: "万",
    CardKind.FLOWER: "花",
    CardKind.WIND: "风",
    CardKind.MOON: "月",
}

# 十、百、千、万 分别代表额外附加1、2、3、4张鸟牌 (part 1 line 19-21)
NUMBER_VALUE: tuple[int, ...] = (0, 1, 2, 3, 4, 0, 0, 0)

# 牌类分值 (part 2 line 79-85): 功能牌5 万4 千3 百2 十1 鸟0
SCORE: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 5, 5)

CLASS_OF_INDEX: tuple[CardClass, ...] = (
    CardClass.BIRD,
    CardClass.NUMBER,
    CardClass.NUMBER,
    CardClass.NUMBER,
    CardClass.NUMBER,
    CardClass.FUNCTION,
    CardClass.FUNCTION,
    CardClass.FUNCTION,
)

CLASS_NAME: dict[CardClass, str] = {
    CardClass.BIRD: "鸟牌",
    CardClass.NUMBER: "数量牌",
    CardClass.FUNCTION: "功能牌",
}


def card(card_id: int) -> Card:
    return CARDS[card_id]


def cards_of(ids: Iterable[int]) -> tuple[Card, ...]:
    """The cards with these ids. The same ids give the very same tuple (a bounded cache):
    a pile or hand that did not change, or that several views show, is then one object,
    which the server renders once (server/wire/protoconv.py keeps renderings by identity)."""
    return _cards_of(ids if type(ids) is tuple else tuple(ids))


@lru_cache(maxsize=2048)
def _cards_of(ids: tuple[int, ...]) -> tuple[Card, ...]:
    return tuple(CARDS[i] for i in ids)


def kind_counts(ids: Iterable[int]) -> tuple[int, ...]:
    """How many cards of each kind (in :data:`KINDS` order)."""
    counts = [0] * 8
    for i in ids:
        counts[INDEX_OF[i]] += 1
    return tuple(counts)


def hand_score(ids: Iterable[int]) -> int:
    return sum(SCORE[INDEX_OF[i]] for i in ids)


def card_class(card_id: int) -> CardClass:
    return CLASS_OF_INDEX[INDEX_OF[card_id]]


def names(ids: Iterable[int]) -> str:
    """Cards by Chinese name joined with '+', e.g. ``鸟+万``."""
    return "+".join(NAME[KIND_OF[i]] for i in ids)


def kind_vector_names(vec: tuple[int, ...]) -> str:
    return "+".join(NAME[KINDS[k]] for k in range(8) for _ in range(vec[k]))
