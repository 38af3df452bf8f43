"""Combination classification and counting, on kind vectors.

A set of cards is summarised by its *kind vector*: how many cards of each kind, in
:data:`~domain.huaniao.cards.KINDS` order (鸟 十 百 千 万 花 风 月). Everything here is a pure
function of kind vectors and a :class:`PlayRules` (what the table's mode, options, the seat's
seasons and bans allow), so results are cached: the same question is asked again and again by
``legal_commands`` and ``decide``.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from typing import Any

from domain.engine import MadeWhenRead, RuleViolation, instance
from domain.huaniao.cards import (
    FUNCTION_INDEXES,
    I_BIRD,
    I_FLOWER,
    I_HUNDRED,
    I_MOON,
    I_TEN,
    I_THOUSAND,
    I_WAN,
    I_WIND,
    NUMBER_INDEXES,
    NUMBER_VALUE,
)
from domain.huaniao.options import COMBO_NAME, Combo
from domain.huaniao.terms import Need, PlayKind

Vec = tuple[int, ...]
UNLIMITED = -1

# Enum members bound once for the functions that run on every move. Why: on Python 3.11
# reading a member through its Enum class goes through the metaclass's ``__getattr__`` hook
# (~0.1 µs, ten times a plain global), and a move read some thirty to fifty (P4).
_NEED_OPENING, _NEED_YIN, _NEED_ANY = Need.OPENING, Need.YIN, Need.ANY
_YIN, _SONG, _WU = PlayKind.YIN, PlayKind.SONG, PlayKind.WU
_STRICT_COMBOS = (Combo.TIANSHANG_TIANXIA, Combo.WAN_ZI_QIAN_HONG)  # under the strict 冷 ban

TIANSHANG_TIANXIA_VEC: Vec = (0, 1, 1, 1, 1, 0, 0, 0)
WAN_ZI_QIAN_HONG_VEC: Vec = (0, 0, 0, 2, 2, 0, 0, 0)


@dataclass(frozen=True)
class PlayRules:
    """Everything that decides what a set of cards means for one seat at one moment."""

    flowers_are_units: bool = True  # 花 substitutes for 鸟 (not under 繁花似锦)
    bird_cap: int = 1  # number cards a bird may carry (UNLIMITED under 连奏)
    flower_cap: int = 2  # ... a flower may carry (3 in 春)
    bird_bonus: int = 0  # 夏: every bird counts one more
    combos: tuple[Combo, ...] = ()  # special combos available (mode minus 静夜)
    banned: tuple[Combo, ...] = ()  # 静夜: combos banned at this table
    twin_swallows: bool = False  # 双飞燕: a single function card needs 2 birds with it
    flower_dance: bool = False  # 繁花似锦: a single flower is a 舞 giving extra actions
    continuo: bool = False  # 连奏: no 吟
    dance_banned: bool = False  # 天上天下's user on its next turn: no 舞
    cool_banned: bool = False  # 凉风有幸's target: nothing containing 花/鸟/风/月
    cool_all_four: bool = False  # ... read narrowly: nothing containing all four of them

    def __hash__(self) -> int:
        """The fields' hash, computed once per instance (why: ``legal_shapes`` is cached on
        the rules, and hashing twelve fields with their enum tuples on every look-up cost
        more than the look-up). Kept beside the fields, so equality and ``repr`` ignore it."""
        h: int | None = self.__dict__.get("_hash")
        if h is None:
            h = hash(tuple(getattr(self, f.name) for f in fields(self)))
            object.__setattr__(self, "_hash", h)
        return h


@dataclass(frozen=True)
class PlayShape:
    """A legal play, abstractly: its kind vector and what it is."""

    vec: Vec
    kind: PlayKind
    count: int
    combo: Combo | None = None
    single: int | None = None  # kind index of the single function card of a 舞 (风/月/花)


# --- counting ----------------------------------------------------------------------------


def unit_count(vec: Vec, rules: PlayRules) -> int:
    """一（一）: 鸟 counts 1, 十百千万 add 1-4; 花 substitutes for 鸟; 夏 adds 1 per bird."""
    units = vec[I_BIRD] + (vec[I_FLOWER] if rules.flowers_are_units else 0)
    return (
        units
        + rules.bird_bonus * vec[I_BIRD]
        + vec[I_TEN]
        + 2 * vec[I_HUNDRED]
        + 3 * vec[I_THOUSAND]
        + 4 * vec[I_WAN]
    )


def number_capacity(birds: int, flowers: int, rules: PlayRules) -> int:
    if rules.bird_cap == UNLIMITED:
        return 1 << 30
    return birds * rules.bird_cap + flowers * rules.flower_cap


def count_range(need: Need, reference: int, rules: PlayRules) -> tuple[int, int]:
    """Counts a bird play may have: 吟 = reference, 诵 > reference."""
    big = 1 << 30
    if need == _NEED_OPENING:
        return (1, big)
    if need == _NEED_YIN and not rules.continuo:
        return (reference, reference)
    if need == _NEED_ANY and not rules.continuo:
        return (reference, big)
    return (reference + 1, big)


# --- classification ---------------------------------------------------------------------


def combo_matches(combo: Combo, vec: Vec) -> bool:
    """Exact card patterns of 二（一）3 特殊牌组 and 二（二）2 (四季更替 combos)."""
    if combo == Combo.TIANSHANG_TIANXIA:
        return vec == TIANSHANG_TIANXIA_VEC
    if combo == Combo.WAN_ZI_QIAN_HONG:
        return vec == WAN_ZI_QIAN_HONG_VEC
    numbers = sum(vec[i] for i in NUMBER_INDEXES)
    functions = vec[I_FLOWER] + vec[I_WIND] + vec[I_MOON]
    if combo == Combo.HUA_NIAO_FENG_YUE:  # 任意2种不重复的功能牌
        return (
            vec[I_BIRD] == 0
            and numbers == 0
            and functions == 2
            and all(vec[i] <= 1 for i in FUNCTION_INDEXES)
        )
    if combo == Combo.QUE_WU_MAN_SHAN:  # 6张以上鸟或花牌
        return (
            numbers == 0
            and vec[I_WIND] == 0
            and vec[I_MOON] == 0
            and vec[I_BIRD] + vec[I_FLOWER] >= 6
        )
    if combo == Combo.LIANG_FENG_YOU_XING:  # 风+月+相同两张数量牌
        return (
            vec[I_BIRD] == 0
            and vec[I_FLOWER] == 0
            and vec[I_WIND] == 1
            and vec[I_MOON] == 1
            and numbers == 2
            and any(vec[i] == 2 for i in NUMBER_INDEXES)
        )
    if combo == Combo.FENG_HUA_XUE_YUE:  # 任意四张功能牌
        return vec[I_BIRD] == 0 and numbers == 0 and functions == 4
    raise AssertionError(combo)


def _single_index(vec: Vec, rules: PlayRules) -> int | None:
    """The kind index if ``vec`` is a single function 舞 (with 双飞燕's two birds)."""
    dancers = [I_WIND, I_MOON] + ([I_FLOWER] if rules.flower_dance else [])
    birds_needed = 2 if rules.twin_swallows else 0
    for i in dancers:
        if vec[i] == 1 and vec[I_BIRD] == birds_needed and sum(vec) == 1 + birds_needed:
            return i
    return None


def _touches_cool_ban(vec: Vec, all_four: bool) -> bool:
    """包含花鸟风月四张牌 (p1:105): any of the four kinds, or (narrow reading) all four."""
    kinds = (vec[I_BIRD], vec[I_FLOWER], vec[I_WIND], vec[I_MOON])
    return all(kinds) if all_four else any(kinds)


def _strict_cool_ban(rules: PlayRules) -> bool:
    """The broad 凉风有幸 ban is on: no 花, 鸟, 风 or 月 at all (only 天上天下/万紫千红 or 栖)."""
    return rules.cool_banned and not rules.cool_all_four


def _lone_flower(birds: int, flowers: int, rules: PlayRules) -> bool:
    """双飞燕 names 花 (出单张功能牌（花，风，月）时必须附带2张鸟牌, p1:201): a flower that is the
    only function card of a play needs two birds beside it."""
    return rules.twin_swallows and rules.flowers_are_units and flowers == 1 and birds < 2


def classify(
    vec: Vec, combo: Combo | None, rules: PlayRules, need: Need, reference: int
) -> PlayShape:
    """What the cards ``vec`` (declared as ``combo``) are, or the rule that forbids them."""
    if sum(vec) == 0:
        raise RuleViolation("NO_CARDS", "出牌逻辑", "a play needs at least one card")
    if rules.cool_banned and _touches_cool_ban(vec, rules.cool_all_four):
        which = "花, 鸟, 风 and 月 together" if rules.cool_all_four else "花, 鸟, 风 or 月"
        raise RuleViolation(
            "BANNED_BY_LIANG_FENG_YOU_XING",
            "凉风有幸",
            f"this turn you may not play any combination containing {which}",
        )
    if rules.dance_banned and (combo is not None or vec[I_FLOWER]):
        raise RuleViolation(
            "DANCE_BANNED",
            "天上天下",
            "after 天上天下 you may not play function cards (花, 风, 月) or special combos",
        )
    if need == Need.OPENING and combo is not None:
        raise RuleViolation("OPENING_NEEDS_BIRD", "起始", "the opening play is one bird card")
    if combo is not None:
        return _classify_combo(vec, combo, rules)

    single = _single_index(vec, rules)
    if single is not None:
        if need == Need.OPENING:
            raise RuleViolation("OPENING_NEEDS_BIRD", "起始", "the opening play is one bird card")
        if rules.dance_banned:
            raise RuleViolation(
                "DANCE_BANNED",
                "天上天下",
                "after 天上天下 you may not play a function card this turn",
            )
        return PlayShape(vec, PlayKind.WU, 0, None, single)

    # --- a bird play (吟 / 诵 / opening) ---
    flowers = vec[I_FLOWER]
    functions = vec[I_WIND] + vec[I_MOON] + (0 if rules.flowers_are_units else flowers)
    if functions:
        _undeclared_combo(vec, rules)
        if flowers and not rules.flowers_are_units and not (vec[I_WIND] or vec[I_MOON]):
            if any(vec[i] for i in NUMBER_INDEXES):
                raise RuleViolation(
                    "FLOWER_CARRIES_NUMBERS",
                    "繁花似锦",
                    "under 繁花似锦 a flower carries no number card",
                )
        if rules.twin_swallows and functions == 1:
            raise RuleViolation(
                "TWIN_SWALLOWS_NEEDS_TWO_BIRDS",
                "双飞燕",
                "a single function card is played with exactly 2 bird cards",
            )
        raise RuleViolation(
            "ILLEGAL_COMBINATION",
            "非法组合",
            "function cards are played alone or as a special combo",
        )
    birds = vec[I_BIRD]
    numbers = sum(vec[i] for i in NUMBER_INDEXES)
    if birds + flowers == 0:
        _undeclared_combo(vec, rules)
        raise RuleViolation(
            "NUMBER_CARDS_ALONE", "数量牌", "number cards cannot be played without a bird"
        )
    if _lone_flower(birds, flowers, rules):
        raise RuleViolation(
            "TWIN_SWALLOWS_NEEDS_TWO_BIRDS",
            "双飞燕",
            "a single 花 is played with two bird cards (此消耗不可用花牌替代)",
        )
    if numbers > number_capacity(birds, flowers, rules):
        raise RuleViolation(
            "TOO_MANY_NUMBER_CARDS",
            "牌型效果速查",
            f"a bird carries at most {rules.bird_cap} and a flower at most "
            f"{rules.flower_cap} number cards",
        )
    count = unit_count(vec, rules)
    if need == Need.OPENING:
        if birds + flowers != 1 or numbers:
            raise RuleViolation("OPENING_NEEDS_BIRD", "起始", "the opening play is one bird card")
        return PlayShape(vec, PlayKind.OPENING, count)
    lo, hi = count_range(need, reference, rules)
    if count < lo or count > hi:
        if need == Need.YIN and not rules.continuo:
            raise RuleViolation(
                "MUST_FOLLOW", "吟", f"after a 诵 you must 吟: play exactly {reference}"
            )
        if need == Need.SONG or rules.continuo:
            raise RuleViolation("MUST_RAISE", "诵", f"you must 诵: play more than {reference}")
        raise RuleViolation("COUNT_TOO_LOW", "吟诵", f"play at least {reference}")
    kind = PlayKind.YIN if count == reference else PlayKind.SONG
    return PlayShape(vec, kind, count)


def _undeclared_combo(vec: Vec, rules: PlayRules) -> None:
    for combo in Combo:
        if combo_matches(combo, vec):
            if combo in rules.combos:
                raise RuleViolation(
                    "COMBO_NOT_DECLARED",
                    "特殊牌组",
                    f"these cards form {COMBO_NAME[combo]}: declare it to play it",
                )
            return


def _classify_combo(vec: Vec, combo: Combo, rules: PlayRules) -> PlayShape:
    if not combo_matches(combo, vec):
        raise RuleViolation(
            "WRONG_DECLARATION",
            "错误宣告特效",
            f"these cards are not {COMBO_NAME[combo]}",
        )
    if combo in rules.banned:
        raise RuleViolation(
            "COMBO_BANNED", "静夜", f"{COMBO_NAME[combo]} is banned at this table (禁手)"
        )
    if combo not in rules.combos:
        raise RuleViolation(
            "ILLEGAL_COMBO", "非法组合", f"{COMBO_NAME[combo]} does not exist in this mode"
        )
    if rules.dance_banned:
        raise RuleViolation(
            "DANCE_BANNED", "天上天下", "after 天上天下 you may not play a special combo this turn"
        )
    return PlayShape(vec, PlayKind.WU, 0, combo)


# --- enumeration (legal_commands) --------------------------------------------------------


@lru_cache(maxsize=1 << 14)
def _multisets(caps: tuple[int, ...], size: int) -> tuple[tuple[int, ...], ...]:
    """All ways to take ``size`` items from bins holding ``caps``, the first bin's largest
    take first. Memoized (why: a recursive generator here was a fifth of the engine's
    profile of 专业 with its four rules, whose large hands owe large discards)."""
    if not caps:
        return ((),) if size == 0 else ()
    head, rest = caps[0], caps[1:]
    left = sum(rest)
    out: list[tuple[int, ...]] = []
    for take in range(min(head, size), -1, -1):
        if left < size - take:
            break
        for tail in _multisets(rest, size - take):
            out.append((take, *tail))
    return tuple(out)


def _shape(vec: Vec, kind: PlayKind, count: int) -> PlayShape:
    """``PlayShape(vec, kind, count)`` without the frozen dataclass's ``__init__``: bird plays
    are built by the thousand (``domain.engine.instance``)."""
    return instance(
        PlayShape, {"vec": vec, "kind": kind, "count": count, "combo": None, "single": None}
    )


def _unit_plays(
    hand: Vec, rules: PlayRules, lo: int, hi: int, reference: int
) -> Sequence[PlayShape]:
    """Every bird play counting ``lo``..``hi``: a 吟 when it counts ``reference``, else 诵.

    The birds and flowers taken are counted here, the number cards they carry by
    ``_number_takes``; the rules' fields are read once (why: this is the one part of
    ``legal_shapes`` that runs for every hand). The plays are listed by blocks of one
    (birds, flowers) pair each and made when read (``MadeWhenRead``): a hand of many number
    cards has dozens of them, and building each was most of the engine's profile of 专业
    with its four rules, while a seat plays one."""
    blocks: list[tuple[int, int, int, tuple[tuple[int, int, int, int, int], ...]]] = []
    ends: list[int] = []  # ends[k]: the plays of blocks 0..k
    total = 0
    max_flowers = hand[I_FLOWER] if rules.flowers_are_units and not rules.dance_banned else 0
    n1, n2, n3, n4 = hand[I_TEN], hand[I_HUNDRED], hand[I_THOUSAND], hand[I_WAN]
    numbers = n1 + n2 + n3 + n4
    most = n1 + 2 * n2 + 3 * n3 + 4 * n4
    bonus = rules.bird_bonus
    unlimited = rules.bird_cap == UNLIMITED
    bird_cap, flower_cap = rules.bird_cap, rules.flower_cap
    for b in range(hand[I_BIRD] + 1):
        for f in range(max_flowers + 1):
            if b + f == 0 or (f == 1 and b < 2 and _lone_flower(b, f, rules)):
                continue
            base = b + f + bonus * b
            if base > hi:
                break
            cap = numbers if unlimited else min(b * bird_cap + f * flower_cap, numbers)
            takes = _number_takes(n1, n2, n3, n4, cap, max(0, lo - base), min(hi - base, most))
            if takes:
                blocks.append((b, f, base, takes))
                total += len(takes)
                ends.append(total)
    if not total:
        return ()
    yin, song = _YIN, _SONG

    def make(i: int) -> PlayShape:
        k = bisect_right(ends, i)
        b, f, base, takes = blocks[k]
        t1, t2, t3, t4, extra = takes[i - ends[k - 1] if k else i]
        c = base + extra
        return _shape((b, t1, t2, t3, t4, f, 0, 0), yin if c == reference else song, c)

    return MadeWhenRead(total, make)


@lru_cache(maxsize=1 << 14)
def _number_takes(
    n1: int, n2: int, n3: int, n4: int, cap: int, lo: int, hi: int
) -> tuple[tuple[int, int, int, int, int], ...]:
    """The number cards a bird play may carry: every (十, 百, 千, 万 taken, units they add)
    from ``n1``..``n4`` held, at most ``cap`` cards, adding ``lo``..``hi`` units; 万 first,
    then 千, 百 and 十, each counting up.

    Why memoized apart: the hands of a game differ, but their number cards and the birds'
    room for them repeat, and these loops were most of the cost of ``legal_shapes``."""
    out = []
    for t4 in range(min(n4, cap) + 1):
        c4 = 4 * t4
        if c4 > hi:
            break
        for t3 in range(min(n3, cap - t4) + 1):
            c3 = c4 + 3 * t3
            if c3 > hi:
                break
            for t2 in range(min(n2, cap - t4 - t3) + 1):
                c2 = c3 + 2 * t2
                if c2 > hi:
                    break
                last = min(n1, cap - t4 - t3 - t2, hi - c2)
                for t1 in range(max(0, lo - c2), last + 1):
                    out.append((t1, t2, t3, t4, c2 + t1))
    return tuple(out)


class LegalShapes(Sequence[PlayShape]):
    """Every legal play of a hand, in order: the bird plays (吟/诵, ``_unit_plays``, made
    when read), then the others (the opening, 舞 and special combos). The bird plays are
    kept apart because each makes one Play, so a seat's legal Plays can be counted and
    listed without making them (``rules._legal_plays``)."""

    __slots__ = ("birds", "others")

    def __init__(self, birds: Sequence[PlayShape], others: tuple[PlayShape, ...]) -> None:
        self.birds = birds
        self.others = others

    def __len__(self) -> int:
        return len(self.birds) + len(self.others)

    def __getitem__(self, index: Any) -> Any:
        return [*self.birds, *self.others][index]  # (not on the hot path: see _legal_plays)

    def __iter__(self) -> Iterator[PlayShape]:
        yield from self.birds
        yield from self.others

    def __repr__(self) -> str:
        return f"LegalShapes({list(self)!r})"


def legal_shapes(
    hand: Vec, rules: PlayRules, need: Need, reference: int
) -> LegalShapes | tuple[()]:
    """Every legal play from ``hand``, one per kind vector (and per combo reading); ``()``
    when there is none."""
    shapes = _legal_shapes(hand, rules, need, reference)
    return shapes if shapes.birds or shapes.others else ()


# Why 1,024: the hits come from one move asking again for the same hand (legal commands, then
# the decision); a larger memo hit no more often in self-play of every mode, and its entries
# (a dozen objects each) lengthened the server's full garbage collections.
@lru_cache(maxsize=1024)
def _legal_shapes(hand: Vec, rules: PlayRules, need: Need, reference: int) -> LegalShapes:
    shapes: list[PlayShape] = []
    strict = _strict_cool_ban(rules)
    if need == _NEED_OPENING:
        if strict:
            return LegalShapes((), ())
        if hand[I_BIRD]:
            shapes.append(
                PlayShape((1, 0, 0, 0, 0, 0, 0, 0), PlayKind.OPENING, 1 + rules.bird_bonus)
            )
        elif (
            hand[I_FLOWER]
            and rules.flowers_are_units
            and not rules.dance_banned
            and not _lone_flower(0, 1, rules)
        ):
            # a flower only stands in for the opening bird when there is no bird
            shapes.append(PlayShape((0, 0, 0, 0, 0, 1, 0, 0), PlayKind.OPENING, 1))
        return LegalShapes((), tuple(shapes))
    if rules.cool_banned and rules.cool_all_four:
        # the narrow reading bans only sets holding all four kinds (no legal play does)
        wider = _legal_shapes(hand, replace(rules, cool_banned=False), need, reference)
        return LegalShapes(
            tuple(x for x in wider.birds if not _touches_cool_ban(x.vec, True)),
            tuple(x for x in wider.others if not _touches_cool_ban(x.vec, True)),
        )

    birds: Sequence[PlayShape] = ()
    if not strict:
        lo, hi = count_range(need, reference, rules)
        birds = _unit_plays(hand, rules, lo, hi, reference)

    if rules.dance_banned:
        return LegalShapes(birds, ())

    if not strict:
        birds_needed = 2 if rules.twin_swallows else 0
        if hand[I_BIRD] >= birds_needed:
            dancers = [I_WIND, I_MOON] + ([I_FLOWER] if rules.flower_dance else [])
            for i in dancers:
                if hand[i]:
                    single = [0] * 8
                    single[i] = 1
                    single[I_BIRD] = birds_needed
                    shapes.append(PlayShape(tuple(single), PlayKind.WU, 0, None, i))

    for combo in rules.combos:
        if strict and combo not in _STRICT_COMBOS:
            continue
        for combo_vec in _combo_vecs(combo, hand):
            shapes.append(PlayShape(combo_vec, _WU, 0, combo))
    return LegalShapes(birds, tuple(shapes))


def _combo_vecs(combo: Combo, hand: Vec) -> list[Vec]:
    """The kind vectors of ``combo`` that ``hand`` holds. Each combo first checks the counts
    it cannot do without (why: asked for every combo on every turn, nearly always in vain),
    and is found by one look-up (a chain of comparisons with ``Combo`` members cost more
    than most of these checks)."""
    return _COMBO_VECS[combo](hand)


def _tianshang_tianxia(hand: Vec) -> list[Vec]:
    ok = hand[I_TEN] and hand[I_HUNDRED] and hand[I_THOUSAND] and hand[I_WAN]
    return [TIANSHANG_TIANXIA_VEC] if ok else []


def _wan_zi_qian_hong(hand: Vec) -> list[Vec]:
    ok = hand[I_THOUSAND] >= 2 and hand[I_WAN] >= 2
    return [WAN_ZI_QIAN_HONG_VEC] if ok else []


def _hua_niao_feng_yue(hand: Vec) -> list[Vec]:
    out: list[Vec] = []
    for a, b in ((I_FLOWER, I_WIND), (I_FLOWER, I_MOON), (I_WIND, I_MOON)):
        if hand[a] and hand[b]:
            vec = [0] * 8
            vec[a] = vec[b] = 1
            out.append(tuple(vec))
    return out


def _que_wu_man_shan(hand: Vec) -> list[Vec]:
    out: list[Vec] = []
    if hand[I_BIRD] + hand[I_FLOWER] >= 6:
        for b in range(hand[I_BIRD] + 1):
            for f in range(hand[I_FLOWER] + 1):
                if b + f >= 6:
                    out.append((b, 0, 0, 0, 0, f, 0, 0))
    return out


def _liang_feng_you_xing(hand: Vec) -> list[Vec]:
    out: list[Vec] = []
    if hand[I_WIND] and hand[I_MOON]:
        for i in NUMBER_INDEXES:
            if hand[i] >= 2:
                vec = [0] * 8
                vec[I_WIND] = vec[I_MOON] = 1
                vec[i] = 2
                out.append(tuple(vec))
    return out


def _feng_hua_xue_yue(hand: Vec) -> list[Vec]:
    caps = (hand[I_FLOWER], hand[I_WIND], hand[I_MOON])
    if sum(caps) < 4:
        return []
    return [(0, 0, 0, 0, 0, fl, wi, mo) for fl, wi, mo in _multisets(caps, 4)]


_COMBO_VECS: dict[Combo, Callable[[Vec], list[Vec]]] = {
    Combo.TIANSHANG_TIANXIA: _tianshang_tianxia,
    Combo.WAN_ZI_QIAN_HONG: _wan_zi_qian_hong,
    Combo.HUA_NIAO_FENG_YUE: _hua_niao_feng_yue,
    Combo.QUE_WU_MAN_SHAN: _que_wu_man_shan,
    Combo.LIANG_FENG_YOU_XING: _liang_feng_you_xing,
    Combo.FENG_HUA_XUE_YUE: _feng_hua_xue_yue,
}


@lru_cache(maxsize=50_000)
def discard_choices(hand: Vec, count: int) -> frozenset[Vec]:
    """弃牌保护: legal discards of ``count`` cards from ``hand``, as kind vectors.

    The first card of a discard of two or more is free; every further card (and the only card
    of a single-card discard: 当丢弃手牌=1时，视作否的情况) follows 鸟→数量→功能.
    """
    count = min(count, sum(hand))
    if count <= 0:
        return frozenset({(0,) * 8})
    if count == 1:
        return frozenset(_forced(hand, 1))
    # The free first card of each class, then the others forced: the discards are every
    # vector whose class totals (birds, numbers, functions) are those of one such split,
    # any cards within a class (why not card by card: trying each free card in turn and
    # merging the overlapping results was a sixth of 专业 with its four rules, whose large
    # hands owe large discards).
    number_caps = tuple(hand[i] for i in NUMBER_INDEXES)
    function_caps = tuple(hand[i] for i in FUNCTION_INDEXES)
    birds, numbers, functions = hand[I_BIRD], sum(number_caps), sum(function_caps)
    totals: set[tuple[int, int, int]] = set()
    if birds:
        b, n, f = _forced_totals(count - 1, birds - 1, numbers)
        totals.add((b + 1, n, f))
    if numbers:
        b, n, f = _forced_totals(count - 1, birds, numbers - 1)
        totals.add((b, n + 1, f))
    if functions:
        b, n, f = _forced_totals(count - 1, birds, numbers)
        totals.add((b, n, f + 1))
    return frozenset(
        (b, *nums, *funcs)
        for b, n, f in totals
        for nums in _multisets(number_caps, n)
        for funcs in _multisets(function_caps, f)
    )


def _forced_totals(m: int, birds: int, numbers: int) -> tuple[int, int, int]:
    """How many birds, numbers and functions a forced discard of ``m`` cards takes from a
    hand of ``birds`` birds and ``numbers`` number cards (鸟 → 数量 → 功能)."""
    b = min(m, birds)
    n = min(m - b, numbers)
    return b, n, m - b - n


def _forced(hand: Vec, m: int) -> list[Vec]:
    """Discards of ``m`` cards in the order 鸟 → 数量 → 功能 (any card within a class)."""
    birds = min(m, hand[I_BIRD])
    m -= birds
    number_caps = tuple(hand[i] for i in NUMBER_INDEXES)
    numbers = min(m, sum(number_caps))
    m -= numbers
    function_caps = tuple(hand[i] for i in FUNCTION_INDEXES)
    out: list[Vec] = []
    for nums in _multisets(number_caps, numbers):
        for funcs in _multisets(function_caps, m):
            out.append((birds, *nums, *funcs))
    return out


def number_value(vec: Vec) -> int:
    return sum(NUMBER_VALUE[i] * vec[i] for i in range(8))
