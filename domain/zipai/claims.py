"""Claim windows: what a seat may claim on a shown card, and who gets it.

Resolution takes two separate steps (FACTS.md: a published engine's P0 bug came from
merging them):

1. choose the *seat*: the best claim kind by priority 胡 > 拢 > 招 > 碰 > 吃, and among seats
   with that kind the first in precedence order — the seat that flipped the card (自摸 /
   "上家翻的…上家优先"), then seats in turn order from the one who showed it (上家 first);
2. carry out *that seat's* full claim, exactly as it sent it.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from domain.engine import MalformedCommand, RuleViolation
from domain.zipai.cards import COPIES, kind_of
from domain.zipai.events import ClaimKind
from domain.zipai.hu import counts_of
from domain.zipai.melds import GroupKind, classify, groups_containing, is_mixed_size
from domain.zipai.state import PendingClaim

PRIORITY: dict[ClaimKind, int] = {
    ClaimKind.HU: 0,
    ClaimKind.LONG: 1,
    ClaimKind.ZHAO: 2,
    ClaimKind.PENG: 3,
    ClaimKind.CHI: 4,
}


def choose_seat(claims: Sequence[PendingClaim], precedence: Sequence[int]) -> int | None:
    """Step 1: the seat whose claim wins (None when everyone passed)."""
    live = [c for c in claims if c.kind in PRIORITY]
    if not live:
        return None
    best = min(PRIORITY[c.kind] for c in live)
    contenders = {c.seat for c in live if PRIORITY[c.kind] == best}
    for seat in precedence:
        if seat in contenders:
            return seat
    raise AssertionError("a claimant is missing from the precedence order")


def claim_of(claims: Sequence[PendingClaim], seat: int) -> PendingClaim:
    """Step 2: that seat's full claim."""
    (claim,) = [c for c in claims if c.seat == seat]
    return claim


@dataclass(frozen=True)
class ChiChoice:
    """One way to eat a card: the two hand cards, the 列 shape and the 比牌 列 (card ids)."""

    cards: tuple[int, int]
    group: GroupKind
    bi: tuple[tuple[int, ...], ...]


@lru_cache(maxsize=1 << 14)
def _bi_options(free: tuple[int, ...], k: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Every multiset of 列 (as sorted kinds) drawn from ``free`` that clears all copies of k.

    Memoized (a pure function of counts): a seat meets the same card with the same hand in
    several windows."""
    if free[k] == 0:
        return ((),)
    found: set[tuple[tuple[int, ...], ...]] = set()
    for kinds in _bi_groups(k):
        rest = list(free)
        for x in kinds:
            rest[x] -= 1
        if min(rest[x] for x in kinds) < 0:
            continue  # ``free`` lacks a card of the 列
        for tail in _bi_options(tuple(rest), k):
            found.add(tuple(sorted((kinds, *tail))))
    return tuple(sorted(found))


@cache
def _bi_groups(k: int) -> tuple[tuple[int, ...], ...]:
    """The 列 (sorted kinds) that may serve as 比牌 for a card of kind ``k``: every 列 holding
    it except three alike, which would have been a 坎 (no 吃 at all). Fixed per kind."""
    return tuple(kinds for kinds, gk in groups_containing(k) if gk is not GroupKind.TRIPLE)


@cache
def _chi_shapes(k: int) -> tuple[tuple[tuple[int, int], GroupKind, bool], ...]:
    """The 列 that eat a card of kind ``k``: the two other kinds, the shape, and whether it
    is 大大小 / 小小大 (no 比牌). Fixed per kind, so built once."""
    out = []
    for kinds, gk in groups_containing(k):
        if gk is GroupKind.TRIPLE:
            continue  # that is 碰
        others = list(kinds)
        others.remove(k)
        out.append(((others[0], others[1]), gk, is_mixed_size(gk)))
    return tuple(out)


def chi_choices(hand: tuple[int, ...], shown: int) -> list[ChiChoice]:
    """Every way (up to identical faces) to eat ``shown`` with this hand, 比牌 included.

    A 坎 is never broken (its cards are neither used nor counted as free); a hand holding a 坎
    of the shown kind cannot eat it (比牌 would have to break the 坎). The hand must keep a
    card to discard afterwards.
    """
    return list(_chi_choices(hand, kind_of(shown)))


@lru_cache(maxsize=1 << 14)
def _chi_choices(hand: tuple[int, ...], k: int) -> tuple[ChiChoice, ...]:
    """``chi_choices`` of a card of kind ``k``, memoized (why: a seat meets the same face
    again with the same hand in two of five claim windows of a random game)."""
    counts = counts_of(hand)
    if counts[k] >= 3:
        return ()
    free: list[int] | None = None  # the counts without the 坎, made once a 列 fits
    shapes = []
    for others, gk, mixed in _chi_shapes(k):
        a, b = others
        na, nb = counts[a], counts[b]
        if na >= 3 or nb >= 3 or na < 1 + (a == b) or nb < 1:
            continue  # the hand lacks the two free cards (a pair of them when a == b)
        if mixed:
            bi_sets: tuple[tuple[tuple[int, ...], ...], ...] = ((),)
        else:
            if free is None:
                free = [0 if n >= 3 else n for n in counts]
            rest = list(free)
            rest[a] -= 1
            rest[b] -= 1
            bi_sets = _bi_options(tuple(rest), k)
        shapes.append((others, gk, bi_sets))
    if not shapes:
        return ()
    # each 列 takes the lowest hand ids of its kinds not yet used, so the picks of one kind
    # are a prefix of that kind's ids, found by bisecting the sorted hand (why: scanning the
    # hand for every card was a tenth of the engine's profile)
    out: list[ChiChoice] = []
    for others, gk, bi_sets in shapes:
        for bi in bi_sets:
            left = len(hand) - 2 - 3 * len(bi)
            if left < 1:
                continue
            picked = _pick_lowest(hand, (others, *bi))
            if picked is not None:
                pair, *bi_ids = picked
                out.append(ChiChoice((pair[0], pair[1]), gk, tuple(bi_ids)))
    return tuple(out)


# ``chi_choices`` of any card of kind ``k``, as a tuple (they differ only by the card's id,
# which no choice names): the memoized function itself, without a wrapper's call (it is
# asked for every seat that may eat a shown card)
chi_choices_of_kind = _chi_choices


def _pick_lowest(
    hand: tuple[int, ...], groups: tuple[tuple[int, ...], ...]
) -> list[tuple[int, ...]] | None:
    """For each group of kinds, the lowest ids of the sorted ``hand`` of those kinds not used
    by an earlier pick (None if the hand runs out of a kind). Card ids run kind by kind
    (``id = kind * COPIES + copy``), so a kind's cards are one run of the hand."""
    taken: dict[int, int] = {}
    picked: list[tuple[int, ...]] = []
    for group in groups:
        ids: list[int] = []
        for x in group:
            j = taken.get(x, 0)
            at = bisect_left(hand, x * COPIES) + j
            if at >= len(hand) or hand[at] // COPIES != x:
                return None
            ids.append(hand[at])
            taken[x] = j + 1
        picked.append(tuple(ids))
    return picked


def check_chi(
    hand: tuple[int, ...], shown: int, cards: tuple[int, ...], bi: tuple[tuple[int, ...], ...]
) -> GroupKind:
    """Validate a 吃 with its 比牌; return the shape of the eaten 列 or raise."""
    if len(cards) != 2:
        raise MalformedCommand("cards", "吃 takes exactly two hand cards")
    for g in bi:
        if len(g) != 3:
            raise MalformedCommand("bi", "each 比牌 列 is exactly three hand cards")
    every = list(cards) + [i for g in bi for i in g]
    for i in every:
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < 80:
            raise MalformedCommand("cards", f"{i!r} is not a card id")
    if len(set(every)) != len(every):
        raise MalformedCommand("cards", "a card is named twice")
    missing = [i for i in every if i not in hand]
    if missing:
        raise RuleViolation("NOT_IN_HAND", "吃牌", f"cards {missing} are not in the hand")
    counts = counts_of(hand)
    if any(counts[kind_of(i)] >= 3 for i in every):
        raise RuleViolation("KAN_UNBREAKABLE", "一坎牌", "a 坎 cannot be split to form a 列")
    k = kind_of(shown)
    if counts[k] >= 3:
        raise RuleViolation("KAN_UNBREAKABLE", "一坎牌", "the hand holds a 坎 of this card")
    gk = classify((*cards, shown))
    if gk is None or gk is GroupKind.TRIPLE:
        raise RuleViolation("NOT_A_GROUP", "一列牌", "the two cards do not form a 列 with it")
    if len(hand) - len(every) < 1:
        raise RuleViolation("NOTHING_TO_DISCARD", "进牌", "a card must be left to discard")
    if is_mixed_size(gk):
        if bi:
            raise RuleViolation("BI_NOT_NEEDED", "比牌", "大大小 / 小小大 eat without 比牌")
        return gk
    for g in bi:
        bgk = classify(g)
        if bgk is None or bgk is GroupKind.TRIPLE:
            raise RuleViolation("BI_NOT_A_GROUP", "比牌", "a 比牌 group is not a 列")
        if not any(kind_of(i) == k for i in g):
            raise RuleViolation("BI_WITHOUT_CARD", "比牌", "each 比牌 列 must hold the eaten card")
    left = [i for i in hand if i not in set(every)]
    if any(kind_of(i) == k for i in left):
        raise RuleViolation(
            "BI_REQUIRED",
            "比牌",
            "a copy of the eaten card is left in the hand: 比牌 is compulsory",
        )
    return gk
