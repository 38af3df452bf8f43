"""Table options: the mode (三、版本) and the optional rules (二（二）3. 其他规则).

Which rule may be chosen in which mode (seed part 2, 三、版本):

=========  ==========  ===========  ===============  ==============  =========================
mode       cards       特殊牌组      动态手牌上限       四季更替          optional rules
=========  ==========  ===========  ===============  ==============  =========================
SIMPLE     鸟+数量      no           no               no              白昼 always on
BASIC      all         no           no               no              白昼 always on
REGULAR    all         yes          yes              no              白昼, 静夜 may be chosen
FULL       all         yes          yes              yes             静夜 may be chosen; 白昼 forbidden
PRO        all         yes          yes              yes             FULL + at least one of 连奏,
                                                                     双飞燕, 阳春白雪, 曲高和寡,
                                                                     繁花似锦 (静夜 also allowed)
=========  ==========  ===========  ===============  ==============  =========================

白昼 has three parts (part 1 line 171-183): rule 1 only in SIMPLE, rule 2 only in SIMPLE and
BASIC, rule 3 wherever 白昼 is on.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from domain.engine import InvalidOptions


class Mode(enum.Enum):
    """The five versions of the game, from easy to hard (三、版本（由易到难）)."""

    SIMPLE = 1  # 简易模式
    BASIC = 2  # 基本模式
    REGULAR = 3  # 常规模式
    FULL = 4  # 完全模式
    PRO = 5  # 专业模式


class Combo(enum.Enum):
    """The special combinations (特殊牌组), played as 舞."""

    TIANSHANG_TIANXIA = 1  # 天上天下: 十+百+千+万
    HUA_NIAO_FENG_YUE = 2  # 花鸟风月: any 2 different function cards
    QUE_WU_MAN_SHAN = 3  # 雀舞满山: 6 or more bird/flower cards
    LIANG_FENG_YOU_XING = 4  # 凉风有幸: 风+月+two identical number cards
    FENG_HUA_XUE_YUE = 5  # 风花雪月: any four function cards (四季更替 only)
    WAN_ZI_QIAN_HONG = 6  # 万紫千红: 万+万+千+千 (四季更替 only)


COMBO_NAME: dict[Combo, str] = {
    Combo.TIANSHANG_TIANXIA: "天上天下",
    Combo.HUA_NIAO_FENG_YUE: "花鸟风月",
    Combo.QUE_WU_MAN_SHAN: "雀舞满山",
    Combo.LIANG_FENG_YOU_XING: "凉风有幸",
    Combo.FENG_HUA_XUE_YUE: "风花雪月",
    Combo.WAN_ZI_QIAN_HONG: "万紫千红",
}

SEASON_COMBOS = (Combo.FENG_HUA_XUE_YUE, Combo.WAN_ZI_QIAN_HONG)


@dataclass(frozen=True)
class Options:
    """How a table plays. ``check_options`` fills the ``None`` fields from the mode.

    ``daylight`` (白昼) is ``None`` for "the mode's default": on in SIMPLE/BASIC (where it is
    mandatory), off elsewhere. The other optional rules default to off.
    """

    mode: Mode = Mode.BASIC
    daylight: bool | None = None  # 白昼
    silent_night: tuple[Combo, ...] = ()  # 静夜: up to three banned special combos
    continuo: bool = False  # 连奏
    twin_swallows: bool = False  # 双飞燕
    spring_snow: bool = False  # 阳春白雪
    lofty_tune: bool = False  # 曲高和寡
    blossoms: bool = False  # 繁花似锦


PRO_RULES = ("continuo", "twin_swallows", "spring_snow", "lofty_tune", "blossoms")
RULE_NAME = {
    "daylight": "白昼",
    "silent_night": "静夜",
    "continuo": "连奏",
    "twin_swallows": "双飞燕",
    "spring_snow": "阳春白雪",
    "lofty_tune": "曲高和寡",
    "blossoms": "繁花似锦",
}


def check_options(options: Options | None) -> Options:
    """Validate options against the mode table above; return them with defaults filled."""
    if options is None:
        options = Options()
    if not isinstance(options, Options):
        raise InvalidOptions("options", f"expected huaniao Options, got {type(options).__name__}")
    mode = options.mode
    if not isinstance(mode, Mode):
        raise InvalidOptions("mode", "unknown mode")

    daylight = options.daylight
    if mode in (Mode.SIMPLE, Mode.BASIC):
        if daylight is False:
            raise InvalidOptions(
                "daylight", "白昼规则在简易和基本模式必定启用 (cannot be turned off)"
            )
        daylight = True
    elif mode == Mode.REGULAR:
        daylight = bool(daylight)
    else:
        if daylight:
            raise InvalidOptions("daylight", "完全/专业模式禁止启用白昼规则")
        daylight = False

    bans = options.silent_night
    if bans:
        if mode in (Mode.SIMPLE, Mode.BASIC):
            raise InvalidOptions(
                "silent_night", "静夜 is available from 常规模式 up (no special combos)"
            )
        if len(bans) > 3:
            raise InvalidOptions("silent_night", "静夜: at most three special combos may be banned")
        if len(set(bans)) != len(bans):
            raise InvalidOptions("silent_night", "静夜: a combo is listed twice")
        for combo in bans:
            if not isinstance(combo, Combo):
                raise InvalidOptions("silent_night", "unknown combo")
            if combo in SEASON_COMBOS and mode == Mode.REGULAR:
                raise InvalidOptions(
                    "silent_night",
                    f"{COMBO_NAME[combo]} does not exist without 四季更替 (完全模式 and up)",
                )
        bans = tuple(sorted(bans, key=lambda c: c.value))

    chosen = [name for name in PRO_RULES if getattr(options, name)]
    if mode != Mode.PRO and chosen:
        raise InvalidOptions(
            chosen[0], f"{RULE_NAME[chosen[0]]} may only be chosen in 专业模式 (PRO)"
        )
    if mode == Mode.PRO and not chosen:
        raise InvalidOptions(
            "mode",
            "专业模式 adds at least one rule besides 白昼 and 静夜: "
            "连奏, 双飞燕, 阳春白雪, 曲高和寡 or 繁花似锦",
        )
    return replace(options, daylight=daylight, silent_night=bans)


# --- what a (checked) set of options means -------------------------------------------------


def has_function_cards(o: Options) -> bool:
    return o.mode != Mode.SIMPLE


def has_combos(o: Options) -> bool:
    return o.mode in (Mode.REGULAR, Mode.FULL, Mode.PRO)


def has_hand_limit(o: Options) -> bool:
    return o.mode in (Mode.REGULAR, Mode.FULL, Mode.PRO)


def has_seasons(o: Options) -> bool:
    return o.mode in (Mode.FULL, Mode.PRO)


def daylight_rule1(o: Options) -> bool:
    """白昼规则1 (功能牌全部视为鸟牌): SIMPLE only -- where there are no function cards."""
    return bool(o.daylight) and o.mode == Mode.SIMPLE


def daylight_rule2(o: Options) -> bool:
    """白昼规则2 (取消吟诵的限制): SIMPLE and BASIC only."""
    return bool(o.daylight) and o.mode in (Mode.SIMPLE, Mode.BASIC)


def daylight_rule3(o: Options) -> bool:
    """白昼规则3 (all seats 栖 in a row -> the last one restarts with a bird)."""
    return bool(o.daylight)


def available_combos(o: Options) -> tuple[Combo, ...]:
    """Combos legal at this table: by mode, minus the ones 静夜 bans."""
    if not has_combos(o):
        return ()
    combos = [c for c in Combo if has_seasons(o) or c not in SEASON_COMBOS]
    return tuple(c for c in combos if c not in o.silent_night)
