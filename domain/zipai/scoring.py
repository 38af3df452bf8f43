"""Scoring profiles. The seed defines no scoring (FACTS.md: 川南字牌 outside references).

``NONE``   — the outcome names the winner (or 荒庄); every score is 0.
``LUZHOU`` — one published 泸州大贰 variant:

* 胡 per 列 (small black / small red / big black / big red):
  碰 1/6/3/9, 坎 6/9/9/12, 招 9/12/12/15, 拢 12/15/15/18; runs 0 except 一二三 3 and 壹贰叁 6;
  二七十 6 and 贰柒拾 9; 大大小 / 小小大 and the pair 0. A three-alike completed by the winning
  card from another seat counts as 碰, otherwise as 坎.
* fan: 1 each for 自摸, 爆 and ten or more red cards, 3 for all black (no red card), and 1
  per 归 (each kind of which the winner holds all four, melds included).
* a 胡 needs at least 10 胡, or none at all (乱) -- the engine's ``minHuPoints`` /
  ``allowZeroHu``.
* base by total 胡: 0 or 10–19 → 2, 20–29 → 3, 30–39 → 4, 40 or more → 5.
* a hand is worth ``base × (1 + fan)``. On 点炮 the discarder pays it all; otherwise (自摸, or
  another seat's flip) every other seat dealt in pays it.
"""

from __future__ import annotations

from domain.zipai.cards import KIND_COUNT, is_red_kind, kind_of
from domain.zipai.events import WinKind
from domain.zipai.hu import KindGroup, concealed_points
from domain.zipai.melds import GroupKind, Meld, MeldKind
from domain.zipai.options import ScoringProfile

_TABLE = {
    # (small black, small red, big black, big red)
    MeldKind.PENG: (1, 6, 3, 9),
    MeldKind.ZHAO: (9, 12, 12, 15),
    MeldKind.LONG: (12, 15, 15, 18),
}


def _pick(row: tuple[int, int, int, int], kind: int) -> int:
    return row[(2 if kind >= 10 else 0) + (1 if is_red_kind(kind) else 0)]


def meld_points(meld: Meld) -> int:
    """胡 of a 列 on the table."""
    kinds = tuple(sorted(kind_of(c) for c in meld.cards))
    if meld.kind in _TABLE:
        return _pick(_TABLE[meld.kind], kinds[0])
    return group_points(kinds, meld.group)


def group_points(kinds: tuple[int, ...], gk: GroupKind) -> int:
    """胡 of a 3-card 列 by shape (坎 value for three alike)."""
    return concealed_points(kinds, gk)


def hand_points(
    grouping: tuple[KindGroup, ...],
    win_kind_of_card: int | None,
    hand_count_of_win: int,
    self_drawn: bool,
) -> int:
    """胡 of the hand's grouping at 胡; a three-alike made by another seat's card is a 碰."""
    total = 0
    as_peng_left = win_kind_of_card is not None and hand_count_of_win == 2 and not self_drawn
    for kinds, gk in grouping:
        if as_peng_left and gk is GroupKind.TRIPLE and kinds[0] == win_kind_of_card:
            total += _pick(_TABLE[MeldKind.PENG], kinds[0])
            as_peng_left = False
        else:
            total += concealed_points(kinds, gk)
    return total


BLACK_FAN = 3  # 黑 (no red card): 3 fan in the published engine's 名堂 table


def fan_of(all_cards: list[int], win_kind: WinKind, bao: bool) -> int:
    """Fan of a win: 自摸, 爆, all black, ten red, and one per 归."""
    counts = [0] * KIND_COUNT
    for c in all_cards:
        counts[kind_of(c)] += 1
    red = sum(n for k, n in enumerate(counts) if is_red_kind(k))
    fan = 0
    if win_kind is WinKind.ZI_MO:
        fan += 1
    if bao:
        fan += 1
    if red == 0:
        fan += BLACK_FAN
    if red >= 10:
        fan += 1
    fan += sum(1 for n in counts if n >= 4)
    return fan


MIN_HU = 10  # 泸州: a 胡 needs at least 10 胡息, or none at all (乱)


def enough_hu(profile: ScoringProfile, hu_points: int) -> bool:
    """The profile's 胡息 minimum: LUZHOU wins with 0 or at least ``MIN_HU``; NONE has none."""
    if profile is ScoringProfile.LUZHOU:
        return hu_points == 0 or hu_points >= MIN_HU
    return True


def base_points(hu_points: int) -> int:
    if hu_points < 20:
        return 2
    if hu_points < 30:
        return 3
    if hu_points < 40:
        return 4
    return 5


def hand_value(hu_points: int, fan: int) -> int:
    return base_points(hu_points) * (1 + fan)


def settle(
    profile: ScoringProfile,
    seat_count: int,
    active: tuple[int, ...],
    winner: int,
    win_kind: WinKind,
    from_seat: int | None,
    hu_points: int,
    fan: int,
) -> tuple[int, ...]:
    """Scores per seat for a win (zero-sum)."""
    scores = [0] * seat_count
    if profile is ScoringProfile.NONE:
        return tuple(scores)
    value = hand_value(hu_points, fan)
    if win_kind is WinKind.DIAN_PAO and from_seat is not None:
        payers: tuple[int, ...] = (from_seat,)
    else:
        payers = tuple(s for s in active if s != winner)
    for p in payers:
        scores[p] -= value
        scores[winner] += value
    return tuple(scores)
