"""Table options of 川南字牌 (one game = one hand; a match carries ``dealer`` forward)."""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Any

from domain.engine import InvalidOptions


class Variant(enum.Enum):
    """Regional rule for the dealer's 21st card that can both 胡 and 拢 (起手流程 (4))."""

    LUZHOU = 1  # 泸州大二: offer 胡 first
    HEJIANG = 2  # 合江大二: lay the 拢 down at once, no 胡 offered


class DealerRule(enum.Enum):
    """Who deals the next hand of a match (游戏流程 1)."""

    WINNER = 1  # 胡牌者当庄: the winner deals next
    ROTATE = 2  # 轮庄: the dealer keeps the deal on winning, else the dealer's 下家 deals


class FirstDealer(enum.Enum):
    """Who deals the first hand (游戏流程 1)."""

    FIRST_SEAT_TAKEN = 1  # 首进入房间的玩家坐庄 (zp:9): the first seat taken at the table
    SEAT = 2  # the seat in ``dealer`` (the table says otherwise; a match's later hands)


class ScoringProfile(enum.Enum):
    """How a finished hand is scored (the seed defines no scoring)."""

    NONE = 1  # win / loss / 荒庄 only, every score 0
    LUZHOU = 2  # the published 泸州 胡-per-group table with fan bonuses (docs/rules/zipai.md)


@dataclass(frozen=True)
class Options:
    """Options of one hand. The number of players is the table's seat count (2, 3 or 4).

    A 胡 may always be passed up; ``guo_hu`` and ``guo_zhang_sheng_fan`` name the one 过胡
    checkbox of the seed (zp:53-55) -- either turns it on, and then both read true.
    """

    variant: Variant = Variant.LUZHOU  # 泸州 or 合江 reading of the dealer's 21st card
    dealer_rule: DealerRule = DealerRule.WINNER  # who deals the next hand of a match
    guo_hu: bool = False  # 过胡 restriction: after passing a 胡, only a higher-fan 胡 (升番)
    guo_zhang_sheng_fan: bool = False  # 过张升番胡: the seed's name of the same checkbox
    scoring: ScoringProfile = ScoringProfile.NONE  # how a finished hand is scored
    dealer: int = 0  # the dealer (庄家) seat when first_dealer is SEAT (a non-zero one implies it)
    own_flip_is_played: bool = False  # an own flip nobody took may never be eaten (zp:19 reading)
    optional_peng_long: bool = False  # 碰 and in-play 拢/招 of one's flip are claims, not automatic
    first_dealer: FirstDealer = FirstDealer.FIRST_SEAT_TAKEN  # who deals the first hand


SEAT_COUNTS = (2, 3, 4)


def check_options(options: Any) -> Options:
    """Validate and fill defaults (None enum fields become the default)."""
    if options is None:
        return Options()
    if not isinstance(options, Options):
        raise InvalidOptions("options", f"expected zipai Options, got {type(options).__name__}")
    defaults = Options()
    fixed: dict[str, Any] = {}
    for f in dataclasses.fields(Options):
        if getattr(options, f.name) is None:
            fixed[f.name] = getattr(defaults, f.name)
    if fixed:
        options = dataclasses.replace(options, **fixed)
    for fname, tp in (
        ("variant", Variant),
        ("dealer_rule", DealerRule),
        ("scoring", ScoringProfile),
        ("first_dealer", FirstDealer),
    ):
        if not isinstance(getattr(options, fname), tp):
            raise InvalidOptions(fname, f"must be one of {[m.name for m in tp]}")
    for fname in ("guo_hu", "guo_zhang_sheng_fan", "own_flip_is_played", "optional_peng_long"):
        if not isinstance(getattr(options, fname), bool):
            raise InvalidOptions(fname, "must be a bool")
    if not isinstance(options.dealer, int) or isinstance(options.dealer, bool):
        raise InvalidOptions("dealer", "must be a seat number")
    if not 0 <= options.dealer < max(SEAT_COUNTS):
        raise InvalidOptions("dealer", "must be a seat number 0..3")
    guo_hu = options.guo_hu or options.guo_zhang_sheng_fan  # one checkbox (zp:53-54)
    first = FirstDealer.SEAT if options.dealer else options.first_dealer
    return dataclasses.replace(
        options, guo_hu=guo_hu, guo_zhang_sheng_fan=guo_hu, first_dealer=first
    )


def at_start(options: Options, first_seat: int) -> Options:
    """The options once the seats are taken: 首进入房间的玩家坐庄 (zp:9) fixes the dealer."""
    if options.first_dealer is FirstDealer.FIRST_SEAT_TAKEN:
        return dataclasses.replace(options, dealer=first_seat, first_dealer=FirstDealer.SEAT)
    return options
