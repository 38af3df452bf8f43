"""胡 detection: can a hand be split completely into 列 (and at most one pair)?

The search is a DFS over count vectors (20 kinds): take the lowest kind still present; it
must belong to the pair or to one 3-card 列 containing it (run, 二七十, 大大小, 小小大, three
alike). Results are memoized on the count vector, so the thousands of checks a game needs
(every shown card, every seat) cost a dictionary look-up after warm-up.

Rules encoded here:

* a hand of ``n`` cards (the winning card included) wins with ``n % 3 == 0`` → only 列,
  ``n % 3 == 2`` → 列 and exactly one pair; ``n % 3 == 1`` never wins (wrong card count);
* a 坎 (three alike in the hand) may not be broken (seed, 术语 (2)): its three cards form one
  列 and only a fourth card of that kind (the winning card) may be used elsewhere;
* given the seat's melds, the 列 count too (胡牌时必须是7列, zp:60): the melds on the table and
  the hand's 列 -- the pair counting as one -- make 7 (``WIN_UNITS``); "7 groups, or 6 groups
  and a pair" (FACTS.md). Only the 三拢 offer at the deal wins with 6 (``SAN_LONG_UNITS``).
"""

from __future__ import annotations

from functools import lru_cache

from domain.zipai.cards import KIND_COUNT, kind_of, rank_of_kind
from domain.zipai.melds import GroupKind, groups_containing

WIN_UNITS = 7  # 胡牌时必须是7列21张 (zp:60): melds + the hand's 列 (a pair counts one)
SAN_LONG_UNITS = 6  # 三拢可提示胡 (zp:31): three 拢 and three 列, before the second 补张

Counts = tuple[int, ...]
KindGroup = tuple[tuple[int, ...], GroupKind]  # sorted kinds of a group and its shape


def concealed_points(kinds: tuple[int, ...], gk: GroupKind) -> int:
    """胡 of a group held in the hand at 胡 (泸州 table in FACTS.md; 0 for shapes it omits).

    Used to prefer, among several groupings, the one worth most.
    """
    k = kinds[0]
    big = k >= 10
    if gk is GroupKind.TRIPLE:  # 坎
        red = rank_of_kind(k) in (2, 7, 10)
        return (9 if red else 6) if not big else (12 if red else 9)
    if gk is GroupKind.RUN and rank_of_kind(k) == 1:  # 一二三 / 壹贰叁
        return 6 if big else 3
    if gk is GroupKind.ER_QI_SHI:
        return 9 if big else 6
    return 0


# Per kind ``i``: the 列 holding it whose other kinds are not below it, in the order of
# ``groups_containing``. The searches take the lowest kind left, so a 列 reaching below it
# can never be taken (why: trying them was half of the 胡 search, a twentieth of 川南字牌).
_GROUPS_FROM: tuple[tuple[KindGroup, ...], ...] = tuple(
    tuple((kinds, gk) for kinds, gk in groups_containing(i) if min(kinds) >= i)
    for i in range(KIND_COUNT)
)


@lru_cache(maxsize=1 << 18)
def _complete(counts: Counts, need_pair: bool) -> bool:
    i = 0
    while i < KIND_COUNT and counts[i] == 0:
        i += 1
    if i == KIND_COUNT:
        return not need_pair
    c = list(counts)
    if need_pair and c[i] >= 2:
        c[i] -= 2
        if _complete(tuple(c), False):
            return True
        c[i] += 2
    for kinds, _gk in _GROUPS_FROM[i]:
        ok = True
        for k in kinds:
            c[k] -= 1
            if c[k] < 0:
                ok = False
        if ok and _complete(tuple(c), need_pair):
            return True
        for k in kinds:
            c[k] += 1
    return False


@lru_cache(maxsize=1 << 16)
def _best(counts: Counts, need_pair: bool) -> tuple[int, tuple[KindGroup, ...]] | None:
    """The highest-scoring complete grouping of ``counts`` (ties: first found)."""
    i = 0
    while i < KIND_COUNT and counts[i] == 0:
        i += 1
    if i == KIND_COUNT:
        return None if need_pair else (0, ())
    best: tuple[int, tuple[KindGroup, ...]] | None = None
    c = list(counts)
    if need_pair and c[i] >= 2:
        c[i] -= 2
        sub = _best(tuple(c), False)
        if sub is not None:
            best = (sub[0], (((i, i), GroupKind.PAIR), *sub[1]))
        c[i] += 2
    for kinds, gk in _GROUPS_FROM[i]:
        ok = True
        for k in kinds:
            c[k] -= 1
            if c[k] < 0:
                ok = False
        if ok:
            sub = _best(tuple(c), need_pair)
            if sub is not None:
                score = sub[0] + concealed_points(kinds, gk)
                if best is None or score > best[0]:
                    best = (score, ((kinds, gk), *sub[1]))
        for k in kinds:
            c[k] += 1
    return best


def counts_of(hand: tuple[int, ...] | list[int]) -> Counts:
    """How many cards of each kind (memoized for hands given as tuples)."""
    if isinstance(hand, tuple):
        return _counts_cached(hand)
    return _counts(hand)


def _counts(hand: tuple[int, ...] | list[int]) -> Counts:
    c = [0] * KIND_COUNT
    for i in hand:
        c[i >> 2] += 1
    return tuple(c)


@lru_cache(maxsize=1 << 14)
def _counts_cached(hand: tuple[int, ...]) -> Counts:
    return _counts(hand)


def _split_locked(
    hand_counts: Counts | list[int], extra_kind: int | None
) -> tuple[Counts, list[int]]:
    """Set every 坎 (three alike in the hand) aside and add the extra card.

    Four alike in the hand (only the dealer's 21st card, offered 胡 before 拢) keep three as
    the 坎; the fourth is free like any other card.
    """
    c = list(hand_counts)
    locked = [k for k in range(KIND_COUNT) if c[k] >= 3]
    for k in locked:
        c[k] -= 3
    if extra_kind is not None:
        c[extra_kind] += 1
    return tuple(c), locked


def is_complete_counts(counts: Counts | list[int]) -> bool:
    """Can these cards (no 坎 constraint) be split into 列 plus the pair their count asks for?"""
    n = sum(counts)
    if n % 3 == 1:
        return False
    return _complete(tuple(counts), n % 3 == 2)


def hand_units(cards: int) -> int | None:
    """The 列 a complete hand of ``cards`` cards makes, its pair counting one (None: never)."""
    if cards % 3 == 1:
        return None
    return cards // 3 + (1 if cards % 3 == 2 else 0)


def units_ok(cards: int, melds: int | None, units: int = WIN_UNITS) -> bool:
    """The 列 count of a win: ``melds`` on the table plus the hand's (no check when None)."""
    if melds is None:
        return True
    n = hand_units(cards)
    return n is not None and melds + n == units


def is_winning(
    hand: tuple[int, ...] | list[int],
    extra: int | None = None,
    melds: int | None = None,
    units: int = WIN_UNITS,
) -> bool:
    """Is ``hand`` (plus the card ``extra``, if given) a complete hand, keeping 坎 whole? With
    ``melds`` (the seat's 列 on the table) the total must also be ``units`` 列."""
    if not units_ok(len(hand) + (extra is not None), melds, units):
        return False
    return is_winning_counts(counts_of(hand), None if extra is None else kind_of(extra))


def is_winning_counts(hand_counts: Counts | list[int], extra_kind: int | None) -> bool:
    hc = tuple(hand_counts)
    if extra_kind is not None and extra_kind not in may_complete(hc):
        return False
    return _is_winning_counts(hc, extra_kind)


@lru_cache(maxsize=1 << 14)
def may_complete(hand_counts: Counts) -> tuple[int, ...]:
    """The kinds whose card might complete ``hand_counts``, in kind order: every other kind
    surely does not.

    Why once per hand: every card shown asks each seat whether it wins with it, a seat meets
    a dozen cards with the same hand, and most cards leave a lone card behind. One pass over
    the hand's single cards (``_completing_candidates``) answers those questions; the search
    runs only for the kinds left.
    """
    if (sum(hand_counts) + 1) % 3 == 1:
        return ()
    rest, _locked = _split_locked(hand_counts, None)
    return tuple(_completing_candidates(rest))


def _completing_candidates(rest: Counts) -> list[int]:
    """The kinds ``k`` for which ``rest`` plus one card of ``k`` has no lone card
    (``_has_lone_card``), the necessary condition of a split, found without trying each k.

    A card added never leaves another card alone, so the lone cards after adding ``k`` are
    the lone cards of ``rest`` that ``k`` does not rescue (by pairing with it, or by being
    the card missing from one of their 列), and ``k`` itself when it is new and no 列 holds it.
    """
    candidates = set(range(KIND_COUNT))
    for x, n in enumerate(rest):
        if n != 1 or _held(x, rest):
            continue
        rescuers = {x}  # a second card of x makes a pair
        for a, b in _LONE_PARTNERS[x]:
            if a == b:
                if rest[a]:
                    rescuers.add(a)
            elif rest[b]:
                rescuers.add(a)
            elif rest[a]:
                rescuers.add(b)
        candidates &= rescuers
        if not candidates:
            return []
    return [k for k in sorted(candidates) if rest[k] or _held(k, rest)]


def _held(x: int, counts: Counts) -> bool:
    """Some 3-card 列 holds a single card of ``x`` with the other cards of ``counts``."""
    for a, b in _LONE_PARTNERS[x]:
        if counts[a] and counts[b] and (a != b or counts[a] >= 2):
            return True
    return False


@lru_cache(maxsize=1 << 16)
def _is_winning_counts(hand_counts: Counts, extra_kind: int | None) -> bool:
    n = sum(hand_counts) + (0 if extra_kind is None else 1)
    if n % 3 == 1:
        return False
    rest, _locked = _split_locked(hand_counts, extra_kind)
    if _has_lone_card(rest):
        return False
    return _complete(rest, n % 3 == 2)


def _lone_partners(kind: int) -> tuple[tuple[int, int], ...]:
    """The two other kinds of each 3-card 列 that can hold a single card of ``kind`` (not
    three alike, nor a 列 needing a second card of ``kind``)."""
    out = []
    for kinds, _gk in groups_containing(kind):
        others = list(kinds)
        others.remove(kind)
        if kind not in others:
            out.append((others[0], others[1]))
    return tuple(out)


_LONE_PARTNERS = tuple(_lone_partners(k) for k in range(KIND_COUNT))


def _has_lone_card(counts: Counts) -> bool:
    """A single card of some kind that no 列 can hold with the other cards: no split exists.

    Why: most hands asked "does this card win?" are far from complete, and the search only
    finds out after trying the splits of every kind below the lone card. This necessary
    condition (a single card is no pair, so it sits in a 3-card 列) answers most of them in
    one pass -- nine in ten of the searches in the engine's profile.
    """
    for x, n in enumerate(counts):
        if n == 1:
            for a, b in _LONE_PARTNERS[x]:
                if counts[a] and counts[b] and (a != b or counts[a] >= 2):
                    break
            else:
                return True
    return False


def best_grouping(
    hand: tuple[int, ...] | list[int], extra: int | None = None
) -> tuple[KindGroup, ...] | None:
    """The best complete grouping (坎 first, then the highest-scoring split), or None."""
    hc = counts_of(hand)
    extra_kind = None if extra is None else kind_of(extra)
    n = sum(hc) + (0 if extra is None else 1)
    if n % 3 == 1:
        return None
    rest, locked = _split_locked(hc, extra_kind)
    found = _best(rest, n % 3 == 2)
    if found is None:
        return None
    kans: tuple[KindGroup, ...] = tuple(((k, k, k), GroupKind.TRIPLE) for k in locked)
    return kans + found[1]


def waits(hand: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    """The kinds that would complete ``hand`` (its 听牌), ignoring which cards are left."""
    hc = counts_of(hand)
    return tuple(k for k in may_complete(hc) if hc[k] < 4 and _is_winning_counts(hc, k))


def is_ready(hand: tuple[int, ...] | list[int], melds: int | None = None) -> bool:
    """听牌: one more card of some kind completes the hand (the 爆 condition)."""
    if not units_ok(len(hand) + 1, melds):
        return False
    hc = counts_of(hand)
    return any(hc[k] < 4 and _is_winning_counts(hc, k) for k in may_complete(hc))
