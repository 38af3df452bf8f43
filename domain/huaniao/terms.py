"""Small enums of the game's vocabulary, shared by commands, events, state and views."""

from __future__ import annotations

import enum


class Season(enum.Enum):
    """四季 (part 1, 二（二）2. 四季更替模式): 春→夏→秋→冬→春…"""

    SPRING = 1  # 春: a flower may carry up to 3 number cards
    SUMMER = 2  # 夏: every bird card counts one more
    AUTUMN = 3  # 秋: 月 makes its target draw 2
    WINTER = 4  # 冬: 风 makes its target discard 2


SEASON_NAME = {Season.SPRING: "春", Season.SUMMER: "夏", Season.AUTUMN: "秋", Season.WINTER: "冬"}


def next_season(season: Season) -> Season:
    return Season(season.value % 4 + 1)


class PlayKind(enum.Enum):
    """What a play was (二（一）2. 出牌逻辑)."""

    OPENING = 1  # 起始: the single bird that opens (part 1 line 53; 白昼规则3 restarts)
    YIN = 2  # 吟: as many as the reference count (跟牌)
    SONG = 3  # 诵: more than the reference count (加牌)
    WU = 4  # 舞: a function card or a special combo


PLAY_KIND_NAME = {
    PlayKind.OPENING: "起",
    PlayKind.YIN: "吟",
    PlayKind.SONG: "诵",
    PlayKind.WU: "舞",
}


class Need(enum.Enum):
    """What the seat to move owes with a bird play (下家按照最后一个吟或者诵的上家进行对应操作)."""

    OPENING = 1  # must open with one bird
    ANY = 2  # 吟 or 诵: after an opening (the right to decide 吟诵), or always under 白昼规则2
    YIN = 3  # must 吟 (the last 吟/诵 was a 诵)
    SONG = 4  # must 诵 (the last 吟/诵 was a 吟; always under 连奏)


NEED_NAME = {Need.OPENING: "起始", Need.ANY: "吟或诵", Need.YIN: "吟", Need.SONG: "诵"}


class Phase(enum.Enum):
    """What the table is waiting for."""

    DEALING = 1  # before the deal
    PLAYING = 2  # the seat whose turn it is: Play or Perch
    DISCARDING = 3  # seats owing discards
    GUESSING = 4  # 曲高和寡: the other seats guess a one-card hand
    CHANGING_SEASON = 5  # the seat that closed the round declares 换季
    ENDED = 6


class Cause(enum.Enum):
    """Why a seat draws or must discard."""

    PERCH = 1  # 栖
    MOON = 2  # 月
    WIND = 3  # 风
    QUE_WU_MAN_SHAN = 4  # 雀舞满山 全员补3张
    SPRING_SNOW = 5  # 阳春白雪
    HAND_LIMIT = 6  # 手牌上限
    LOFTY_TUNE = 7  # 曲高和寡
    PENALTY = 8  # 罚: a penalty (四、违规与仲裁)


CAUSE_NAME = {
    Cause.PERCH: "栖",
    Cause.MOON: "月",
    Cause.WIND: "风",
    Cause.QUE_WU_MAN_SHAN: "雀舞满山",
    Cause.SPRING_SNOW: "阳春白雪",
    Cause.HAND_LIMIT: "手牌上限",
    Cause.LOFTY_TUNE: "曲高和寡",
    Cause.PENALTY: "罚",
}


class Verse(enum.Enum):
    """The verses a seat may recite once the song has ended (``Recite``)."""

    CLOSING = 1  # 一曲终了: 「春來花友常歡會…」 (p2:75)
    SHOWDOWN_CHANT = 2  # 大对决, first round: 「天上天下，花鳥風月之雀舞」 (p2:92)
    SHOWDOWN_CHANT_SHORT = 3  # 大对决, later rounds: 「雀舞」 (p2:93)


VERSE_NAME = {
    Verse.CLOSING: "一曲终了",
    Verse.SHOWDOWN_CHANT: "大对决开牌词",
    Verse.SHOWDOWN_CHANT_SHORT: "大对决开牌词(简)",
}


class ShowdownPattern(enum.Enum):
    """花鸟风月大对决 hand patterns; a lower priority wins (part 2 line 94-100)."""

    SI_SHI_GUI_FAN = 1  # 四时归返: four identical function cards, priority 0
    TIANSHANG_TIANXIA = 2  # 天上天下: 十+百+千+万, priority 1
    QIU_YUE_WU_BIAN = 3  # 秋月无边: four identical number cards, priority 2
    HUA_HAO_YUE_YUAN = 4  # 花好月圆: 花+鸟+风+月, priority 3
    BAI_NIAO_ZHENG_MING = 5  # 百鸟争鸣: 鸟+鸟+鸟+鸟, priority 4
    SAN_PAI = 6  # 散牌: none of the above, priority 5


PATTERN_PRIORITY = {p: p.value - 1 for p in ShowdownPattern}
PATTERN_NAME = {
    ShowdownPattern.SI_SHI_GUI_FAN: "四时归返",
    ShowdownPattern.TIANSHANG_TIANXIA: "天上天下",
    ShowdownPattern.QIU_YUE_WU_BIAN: "秋月无边",
    ShowdownPattern.HUA_HAO_YUE_YUAN: "花好月圆",
    ShowdownPattern.BAI_NIAO_ZHENG_MING: "百鸟争鸣",
    ShowdownPattern.SAN_PAI: "散牌",
}

OPENING_VERSE = "春来花友会，夏夜鸟啼时。风过秋思追，月寒冬雪依。"
OPENING_VERSE_TRADITIONAL = "春來花友會，夏夜鳥啼時。風過秋思追，月寒冬雪依。"
CLOSING_VERSE = "春來花友常歡會，夏夜鳥啼意痴。秋思風過歸夢裡，冬月寒雪影相依。"
SHOWDOWN_CHANT = "天上天下，花鳥風月之雀舞"  # 大对决 开牌 (p2:92)
SHOWDOWN_CHANT_SHORT = "雀舞"  # 第二輪以後，開牌詞簡化為“雀舞” (p2:93)
# The same texts in simplified characters (accepted as well).
CLOSING_VERSE_SIMPLIFIED = "春来花友常欢会，夏夜鸟啼意痴。秋思风过归梦里，冬月寒雪影相依。"
SHOWDOWN_CHANT_SIMPLIFIED = "天上天下，花鸟风月之雀舞"
