"""列 (groups) and the melds laid on the table.

A 列 is three cards that belong together (seed, 游戏术语解释 (4)):

* ``RUN``           three consecutive ranks of one size (小 四五六, 大 肆伍陆);
* ``ER_QI_SHI``     二七十 or 贰柒拾 (one size);
* ``DA_DA_XIAO``    two big and one small of one rank (大大小, e.g. 叁叁三);
* ``XIAO_XIAO_DA``  two small and one big of one rank (小小大, e.g. 三三叁);
* ``TRIPLE``        three alike (a 坎 from the deal, or a 碰);
* ``FOUR``          four alike (拢 or 招), a 列 of four cards.

A ``PAIR`` (一将牌) is not a 列; it only appears in a winning hand's grouping.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import cache

from domain.zipai.cards import KIND_COUNT, Card, kind_of


class GroupKind(enum.Enum):
    """The shape of a group of cards."""

    RUN = 1  # three consecutive ranks of one size
    ER_QI_SHI = 2  # 二七十 or 贰柒拾
    DA_DA_XIAO = 3  # 大大小: two big and one small of one rank
    XIAO_XIAO_DA = 4  # 小小大: two small and one big of one rank
    TRIPLE = 5  # three alike (坎 or 碰)
    FOUR = 6  # four alike (拢 or 招)
    PAIR = 7  # 一将牌: two alike (only in a winning hand)


class MeldKind(enum.Enum):
    """How a 列 came to lie on the table."""

    CHI = 1  # 吃: a shown card with two hand cards
    BI = 2  # 比牌: a 列 of hand cards laid beside a 吃 to clear copies of the eaten card
    PENG = 3  # 碰: a shown card with a pair from the hand
    ZHAO = 4  # 招: a shown card with a 坎 from the hand, all face up
    LONG = 5  # 拢: four alike from the hand (or a 坎 and one's own flip), one face up


@dataclass(frozen=True)
class Meld:
    """A 列 on the table (state form: card ids)."""

    kind: MeldKind
    group: GroupKind
    cards: tuple[int, ...]  # every card of the 列, the taken card included
    taken: int | None = None  # the shown card claimed into it, if any
    from_seat: int | None = None  # who showed the taken card


@dataclass(frozen=True)
class Group:
    """A group of concrete cards (in events and views)."""

    kind: GroupKind
    cards: tuple[Card, ...]


def _build_groups() -> tuple[tuple[tuple[int, ...], GroupKind], ...]:
    """Every 3-card 列 as a sorted tuple of kinds."""
    out: list[tuple[tuple[int, ...], GroupKind]] = []
    for base in (0, 10):
        for r in range(8):
            out.append(((base + r, base + r + 1, base + r + 2), GroupKind.RUN))
        out.append(((base + 1, base + 6, base + 9), GroupKind.ER_QI_SHI))
    for r in range(10):
        out.append(((r, r + 10, r + 10), GroupKind.DA_DA_XIAO))
        out.append(((r, r, r + 10), GroupKind.XIAO_XIAO_DA))
    for k in range(KIND_COUNT):
        out.append(((k, k, k), GroupKind.TRIPLE))
    return tuple(out)


ALL_GROUPS = _build_groups()
_BY_KINDS = {kinds: gk for kinds, gk in ALL_GROUPS}


def classify_kinds(kinds: tuple[int, ...] | list[int]) -> GroupKind | None:
    """The 列 kind formed by three card kinds, or None."""
    return _BY_KINDS.get(tuple(sorted(kinds)))


def classify(card_ids: tuple[int, ...] | list[int]) -> GroupKind | None:
    """The 列 kind formed by three card ids, or None."""
    if len(card_ids) != 3:
        return None
    return classify_kinds([kind_of(i) for i in card_ids])


@cache
def groups_containing(kind: int) -> tuple[tuple[tuple[int, ...], GroupKind], ...]:
    """Every 3-card 列 (as sorted kinds) that contains ``kind``."""
    return tuple((ks, gk) for ks, gk in ALL_GROUPS if kind in ks)


def is_mixed_size(gk: GroupKind) -> bool:
    """大大小 / 小小大: the 吃 shapes that need no 比牌."""
    return gk in _MIXED_SIZES


# (bound once: reading members through their Enum class is slow on Python 3.11, P4)
_MIXED_SIZES = (GroupKind.DA_DA_XIAO, GroupKind.XIAO_XIAO_DA)
