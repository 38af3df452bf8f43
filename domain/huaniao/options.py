"""Table options: the mode (三、版本) and the optional rules (二（二）3. 其他规则).

Which rule may be chosen in which mode (seed part 2, 三、版本):

=========  ==========  ===========  ===============  ==============  =========================
mode       cards       特殊牌组      动态手牌上限       四季更替          optional rules
=========  ==========  ===========  ===============  ==============  =========================
SIMPLE     鸟+数量      no           no               no              白昼 always on
BASIC      all         no           no               no              白昼 always on
REGULAR    all         yes          yes              no              白昼, 静夜 may be chosen
FULL       all         yes          yes              yes             静夜 may be chosen; 白昼 forbidden
PRO        all         yes          yes              yes             FULL + at least one of 静夜,
                                                                     连奏, 双飞燕, 阳春白雪,
                                                                     曲高和寡, 繁花似锦
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


class VerseRule(enum.Enum):
    """念诵 (p1:55-59): the verse is ritual -- it changes no score and has no penalty of its own."""

    REQUIRED = 1  # 出牌前需吟诵: the game's opening play carries the verse (a violation if not)
    OPTIONAL = 2  # a seat may send the verse; it is recorded, never owed
    OFF = 3  # no verses: none is owed, none is recorded, Recite is refused


class LeaderTie(enum.Enum):
    """Who opens when several seats hold the most birds (p1:53 says nothing about ties)."""

    LOWEST_SEAT = 1  # the lowest seat number among them
    RANDOM = 2  # one of them, drawn by the game's generator (LeaderChosen names the tied seats)


@dataclass(frozen=True)
class Options:
    """How a table plays. ``check_options`` fills the ``None`` fields from the mode.

    ``daylight`` (白昼) is ``None`` for "the mode's default": on in SIMPLE/BASIC (where it is
    mandatory), off elsewhere. The other optional rules default to off.

    The fields after ``blossoms`` choose between readings of the seed where its text allows
    two (docs/rules/huaniao.md, "Readings offered as options"); each default is the seed's
    reading, and each ``False`` / first enum value is what a client that does not set the
    field gets.
    """

    mode: Mode = Mode.BASIC
    daylight: bool | None = None  # 白昼
    silent_night: tuple[Combo, ...] = ()  # 静夜: up to three banned special combos
    continuo: bool = False  # 连奏
    twin_swallows: bool = False  # 双飞燕
    spring_snow: bool = False  # 阳春白雪
    lofty_tune: bool = False  # 曲高和寡
    blossoms: bool = False  # 繁花似锦
    hand_limit_always: bool = False  # the hand limit holds at all times, not only while reduced
    simple_without_function_cards: bool = False  # 简易 removes 花风月 (90 cards; 白昼规则1 moot)
    showdown_tied_only: bool = False  # only the seats still tied take part in the 大对决
    spring_snow_once_after: bool = False  # 阳春白雪 once per play, after it (not per card, before)
    cool_breeze_all_four: bool = False  # 凉风有幸 bans only plays containing 花, 鸟, 风 and 月 all
    leader_tie: LeaderTie = LeaderTie.LOWEST_SEAT  # who opens on a tie for most birds
    verse: VerseRule = VerseRule.REQUIRED  # the opening verse: required, optional or off


PRO_RULES = ("continuo", "twin_swallows", "spring_snow", "lofty_tune", "blossoms")
READING_NAME = {
    "hand_limit_always": "动态手牌上限",
    "simple_without_function_cards": "简易模式",
    "showdown_tied_only": "花鸟风月大对决",
    "spring_snow_once_after": "阳春白雪",
    "cool_breeze_all_four": "凉风有幸",
}
RULE_NAME = {
    "daylight": "白昼",
    "silent_night": "静夜",
    "continuo": "连奏",
    "twin_swallows": "双飞燕",
    "spring_snow": "阳春白雪",
    "lofty_tune": "曲高和寡",
    "blossoms": "繁花似锦",
}


_CHECKED: dict[int, tuple[Options | None, Options]] = {}  # id(options) -> (options, checked)


def check_options(options: Options | None) -> Options:
    """Validate options against the mode table above; return them with defaults filled.

    The same options object is checked once (why: a game's set-up checks its options two or
    three times, each check copying them, a tenth of a short game's cost in the engine's
    profile; and answering with one object lets the memos keyed on the options find them by
    identity). Options are frozen, so the answer stays right; an entry keeps its options
    alive and is checked by identity, so a reused ``id`` never answers for another object.
    The checked options check to themselves."""
    hit = _CHECKED.get(id(options))
    if hit is not None and hit[0] is options:
        return hit[1]
    checked = _check_options(options)
    if len(_CHECKED) >= 256:
        _CHECKED.clear()
    _CHECKED[id(options)] = (options, checked)
    _CHECKED[id(checked)] = (checked, checked)
    return checked


def _check_options(options: Options | None) -> Options:
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
    # 在完全模式的基础上增加（除了白昼规则以外）一个及以上其他规则 (part 2 line 28): 静夜 is
    # one of the 其他规则 (part 1 line 185), so 专业 with 静夜 alone is 专业
    if mode == Mode.PRO and not chosen and not bans:
        raise InvalidOptions(
            "mode",
            "专业模式 adds at least one rule besides 白昼: "
            "静夜, 连奏, 双飞燕, 阳春白雪, 曲高和寡 or 繁花似锦",
        )
    _check_readings(options, mode)
    return replace(options, daylight=daylight, silent_night=bans)


def _check_readings(options: Options, mode: Mode) -> None:
    """A reading option only where the rule it reads exists at this table."""
    where = {
        "hand_limit_always": mode in (Mode.REGULAR, Mode.FULL, Mode.PRO),
        "simple_without_function_cards": mode == Mode.SIMPLE,
        "spring_snow_once_after": options.spring_snow,
        "cool_breeze_all_four": mode in (Mode.REGULAR, Mode.FULL, Mode.PRO),
        "showdown_tied_only": True,
    }
    for name, allowed in where.items():
        value = getattr(options, name)
        if not isinstance(value, bool):
            raise InvalidOptions(name, "must be a bool")
        if value and not allowed:
            raise InvalidOptions(name, f"{READING_NAME[name]} is not played at this table")
    if not isinstance(options.leader_tie, LeaderTie):
        raise InvalidOptions("leader_tie", "unknown leader tie rule")
    if not isinstance(options.verse, VerseRule):
        raise InvalidOptions("verse", "unknown verse rule")


# --- what a (checked) set of options means -------------------------------------------------


def has_function_cards(o: Options) -> bool:
    """Function cards with their effects (花 as a unit, 风, 月): every mode but 简易."""
    return o.mode != Mode.SIMPLE


# Enum members bound once for the functions that run on every move. Why: on Python 3.11
# reading a member through its Enum class goes through the metaclass's ``__getattr__`` hook
# (~0.1 µs, ten times a plain global), and a move read some thirty to fifty (P4).
_SIMPLE = Mode.SIMPLE
_SIMPLE_OR_BASIC = (Mode.SIMPLE, Mode.BASIC)
_REGULAR_UP = (Mode.REGULAR, Mode.FULL, Mode.PRO)  # combos and a hand limit
_FULL_OR_PRO = (Mode.FULL, Mode.PRO)  # seasons


def deck_size(o: Options) -> int:
    """108 cards; 90 (no 花风月) only in 简易 with ``simple_without_function_cards``."""
    return 90 if o.mode == _SIMPLE and o.simple_without_function_cards else 108


def has_combos(o: Options) -> bool:
    return o.mode in _REGULAR_UP


def has_hand_limit(o: Options) -> bool:
    return o.mode in _REGULAR_UP


def has_seasons(o: Options) -> bool:
    return o.mode in _FULL_OR_PRO


def daylight_rule1(o: Options) -> bool:
    """白昼规则1 (功能牌全部视为鸟牌, SIMPLE only): 简易 keeps 花风月 in the deck, with their
    functions off (停用所有功能牌, p2:10), and they count as birds in every respect."""
    return bool(o.daylight) and o.mode == _SIMPLE and not o.simple_without_function_cards


def daylight_rule2(o: Options) -> bool:
    """白昼规则2 (取消吟诵的限制): SIMPLE and BASIC only."""
    return bool(o.daylight) and o.mode in _SIMPLE_OR_BASIC


def daylight_rule3(o: Options) -> bool:
    """白昼规则3 (all seats 栖 in a row -> the last one restarts with a bird)."""
    return bool(o.daylight)


def available_combos(o: Options) -> tuple[Combo, ...]:
    """Combos legal at this table: by mode, minus the ones 静夜 bans."""
    if not has_combos(o):
        return ()
    combos = [c for c in Combo if has_seasons(o) or c not in SEASON_COMBOS]
    return tuple(c for c in combos if c not in o.silent_night)
