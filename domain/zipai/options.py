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
    """Who deals a table's first hand (游戏流程 1, zp:9)."""

    FIRST_SEATED = 1  # 首进入房间的玩家坐庄: the first seat taken deals
    GIVEN = 2  # the table says otherwise: the ``dealer`` option deals


class ScoringProfile(enum.Enum):
    """How a finished hand is scored (the seed defines no scoring)."""

    NONE = 1  # win / loss / 荒庄 only, every score 0
    LUZHOU = 2  # the published 泸州 胡-per-group table with fan bonuses (docs/rules/zipai.md)


@dataclass(frozen=True)
class Options:
    """Options of one hand. The number of players is the table's seat count (2, 3 or 4)."""

    variant: Variant = Variant.LUZHOU  # 泸州 or 合江 reading of the dealer's 21st card
    dealer_rule: DealerRule = DealerRule.WINNER  # who deals the next hand of a match
    guo_hu: bool = False  # 过胡: a seat may pass up a 胡 (unchecked: 胡 is compulsory)
    guo_zhang_sheng_fan: bool = False  # 过张升番胡: after passing a 胡, only a higher-fan 胡
    scoring: ScoringProfile = ScoringProfile.NONE  # how a finished hand is scored
    dealer: int = 0  # the dealer (庄家) seat of this hand, when first_dealer is GIVEN
    first_dealer: FirstDealer = FirstDealer.FIRST_SEATED  # who deals the first hand


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
        ("first_dealer", FirstDealer),
        ("scoring", ScoringProfile),
    ):
        if not isinstance(getattr(options, fname), tp):
            raise InvalidOptions(fname, f"must be one of {[m.name for m in tp]}")
    for fname in ("guo_hu", "guo_zhang_sheng_fan"):
        if not isinstance(getattr(options, fname), bool):
            raise InvalidOptions(fname, "must be a bool")
    if not isinstance(options.dealer, int) or isinstance(options.dealer, bool):
        raise InvalidOptions("dealer", "must be a seat number")
    if not 0 <= options.dealer < max(SEAT_COUNTS):
        raise InvalidOptions("dealer", "must be a seat number 0..3")
    if options.guo_zhang_sheng_fan and not options.guo_hu:
        raise InvalidOptions(
            "guo_zhang_sheng_fan", "过张升番胡 only applies when 过胡 (guo_hu) is allowed"
        )
    return options
