"""One vocabulary for the terminal: the seed's term with a short English gloss.

Every place a person reads a move -- the log, the panel, the menu, `help` -- writes it as
``term(word)``: ``诵 (raise)``, ``碰 (pong)``. The server's lines (GameEvent.text) and labels
(LegalMovesResponse.labels) put the seed's word first; ``gloss_line`` adds the English.
"""

from __future__ import annotations

import re

from server.wire.page.terms import ENUM_ZH

# 花鸟风月 (p1 二（一）2 出牌逻辑; p2 五 胜利结算)
HUANIAO = {
    "起": "open",
    "吟": "follow",
    "诵": "raise",
    "舞": "function play",
    "栖": "pass and draw",
    "摸": "draw",
    "弃": "discard",
    "须弃": "must discard",
    "猜": "guess",
    "换季": "change season",
    "发牌": "dealt",
    "吟或诵": "follow or raise",
    "起始": "open",
    "一曲终了": "the song ends",
    "终局": "game over",
    "大对决": "showdown",
}
# 川南字牌 (zp 【游戏流程】, 3 游戏术语解释, 4-12)
ZIPAI = {
    "打": "discard",
    "翻": "flip",
    "吃": "chow",
    "碰": "pong",
    "招": "kong",
    "拢": "four alike",
    "胡": "win",
    "过": "pass",
    "爆": "ready hand",
    "不爆": "no ready hand",
    "比": "match",
    "过张": "passed-up card",
    "荒庄": "stock exhausted, no winner",
    "坎": "three alike",
    "列": "set",
}
TABLE = {
    "误操作": "retract a misplay",
    "申诉": "appeal",
    "投票": "vote",
    "成立": "uphold",
    "不成立": "reject",
}
GLOSSES = {**HUANIAO, **ZIPAI, **TABLE}


def term(word: str) -> str:
    """``诵`` -> ``诵 (raise)``; a word without a gloss stays as it is."""
    gloss = GLOSSES.get(word)
    return f"{word} ({gloss})" if gloss else word


def label_line(label: str) -> str:
    """A LegalMovesResponse label with its kind glossed: "诵 5" -> "诵 (raise) 5"."""
    word, _, rest = label.partition(" ")
    if word == "投票" and rest in TABLE:
        return f"{term(word)} {term(rest)}"
    return f"{term(word)} {rest}".rstrip()


def move_kind(label: str) -> str:
    """The kind word of a label ("诵 5" -> "诵")."""
    return label.partition(" ")[0]


# The server's event lines: 花鸟风月 writes the seed's words ("seat 0 诵 鸟+万 (5)"); 川南字牌
# writes English verbs beside them ("seat 1 ponged 五"). Both become "seat N <term> ...".
_HUANIAO_LINE = re.compile(r"^(seat \d+ )(起|吟|诵|舞|栖|摸|弃|须弃|猜|换季|发牌)(?=\s|$)")
_HUANIAO_END = re.compile(r"^终局 ([A-Z_]+)(?=:)")
_ZIPAI_VERBS = [
    (re.compile(r"^(seat \d+ )discarded "), "打"),
    (re.compile(r"^(seat \d+ )flipped "), "翻"),
    (re.compile(r"^(seat \d+ )ate "), "吃"),
    (re.compile(r"^(seat \d+ )ponged "), "碰"),
    (re.compile(r"^(seat \d+ )konged \(招\) "), "招"),
    (re.compile(r"^(seat \d+ )laid down 拢 of "), "拢"),
    (re.compile(r"^(seat \d+ )won \(胡\)"), "胡"),
    (re.compile(r"^(seat \d+ )declared 爆"), "爆"),
    (re.compile(r"^(seat \d+ )declined 爆"), "不爆"),
]
_ZIPAI_PROMPT = re.compile(r"^(claim|bao|hu or pass|hu or long|discard) prompt for (.+)$")
_PROMPT_WORDS = {
    "claim": "claim window (胡 > 拢 > 招 > 碰 > 吃)",
    "bao": "爆 (ready hand) offered",
    "hu or pass": "胡 (win) offered",
    "hu or long": "胡 (win) or 拢 (four alike) offered",
    "discard": "打 (discard)",
}
_ZIPAI_CLAIM = re.compile(r"^(seat \d+ claims )(胡|拢|招|碰|吃|过)")
# How a 胡 came: the record's line names it by the event's enum (frozen in signed records),
# which a person reads in the game's words.
_WIN_KIND = re.compile(r", (ZI_MO|DIAN_PAO|FAN_PAI): ")
_WIN_WORDS = {
    "ZI_MO": "自摸 (own flip)",
    "DIAN_PAO": "点炮 (on a discard)",
    "FAN_PAI": "翻牌胡 (on another's flip)",
}


def gloss_line(text: str, kind: str | None) -> str:
    """A server event line in the one vocabulary."""
    if kind == "huaniao":
        end = _HUANIAO_END.match(text)
        if end:  # the record's line names the reason by its code (EMPTIED_HAND …)
            return f"{term('终局')} {reason_words(end.group(1))}{text[end.end() :]}"
        return _HUANIAO_LINE.sub(lambda m: m.group(1) + term(m.group(2)), text, count=1)
    if kind == "zipai":
        for pattern, word in _ZIPAI_VERBS:
            match = pattern.match(text)
            if match:
                rest = _WIN_KIND.sub(lambda m: f", {_WIN_WORDS[m.group(1)]}: ", text[match.end() :])
                return f"{match.group(1)}{term(word)} {rest.lstrip()}".rstrip()
        claim = _ZIPAI_CLAIM.match(text)
        if claim:
            return claim.group(1) + term(claim.group(2)) + text[claim.end() :]
        if re.fullmatch(r"seat \d+ answered", text):
            return text + " (what it claimed shows when the window closes)"
        prompt = _ZIPAI_PROMPT.match(text)
        if prompt:
            what, who = prompt.groups()
            if who == "no seat":
                return f"{_PROMPT_WORDS.get(what, what)}: no seat you may know is asked"
            return f"{_PROMPT_WORDS.get(what, what)}: seat {who} to answer"
        if text.startswith("荒庄"):
            return term("荒庄") + text[2:]
    return text


# --- the enums of the views, in the same words (`tabletop view`, the play panel) -----------

ENUM_WORDS = {
    # the claims and melds in the referee page's own words (one table for both)
    **{n: w for n, w in ENUM_ZH.items() if n.startswith(("CLAIM_KIND_", "MELD_KIND_"))},
    "NEED_OPENING": "起",
    "NEED_ANY": "吟或诵",
    "NEED_YIN": "吟",
    "NEED_SONG": "诵",
    "PLAY_KIND_OPENING": "起",
    "PLAY_KIND_YIN": "吟",
    "PLAY_KIND_SONG": "诵",
    "PLAY_KIND_WU": "舞",
    "PROMPT_KIND_CLAIM": "吃碰招胡",
    "PROMPT_KIND_BAO": "爆",
    "PROMPT_KIND_HU_OR_PASS": "胡",
    "PROMPT_KIND_HU_OR_LONG": "胡",
    "PROMPT_KIND_DISCARD": "打",
}


def enum_term(value_name: str) -> str | None:
    """A proto enum value in the vocabulary ("NEED_SONG" -> "诵 (raise)"), if it has a word."""
    word = ENUM_WORDS.get(value_name)
    return term(word) if word else None


# --- what `help` says -----------------------------------------------------------------------

HUANIAO_SCORING = (
    "How it is won (p2 五 胜利结算): the first seat to empty its hand wins. When the deck "
    "runs out and nobody has, the LOWEST hand score wins: 花/风/月 5, 万 4, 千 3, 百 2, 十 1, "
    "鸟 0 (ties: more function cards, then more number cards, then the 花鸟风月大对决 showdown). "
    "So shed high cards and go out early."
)
HUANIAO_PLAYS = (
    "起 (open): one 鸟 starts. 吟 (follow): play exactly the reference count. 诵 (raise): play "
    "more than it. The next seat answers the last 吟 or 诵: after a 诵 it must 吟, after a 吟 "
    "it must 诵 (基本/简易 mode: 吟 or 诵, any count at least the reference). A 鸟 counts 1 and "
    "may carry one number card (十 +1, 百 +2, 千 +3, 万 +4); 花 stands in for a 鸟 and carries "
    "two. 舞 (function play): 风 makes a seat discard 1, 月 makes a seat draw 1; no count "
    "limit. 栖 (pass and draw): only when you cannot 吟, 诵 or 舞; you draw 1."
)
ZIPAI_SCORING = (
    "How it is won (zp 游戏流程 6, 11): 胡 (win) with 7 列 (sets) of 21 cards, melds on the "
    "table included. A 列 is a run of one size (四五六), 二七十, 大大小/小小大 of one number, or "
    "three alike. The first to 胡 wins the hand. The seed sets no points; with the 泸州 "
    "scoring profile (docs/rules/zipai.md) the hand scores its 胡 points (碰/坎/招/拢, 一二三 "
    "and 二七十 count; red cards and 自摸 raise it) and the others pay. If the stock runs out "
    "first it is 荒庄 (stock exhausted): nobody wins."
)
ZIPAI_PLAYS = (
    "打 (discard) a card after you take one; the other seats may then claim it: 胡 (win) > "
    "拢 (four alike) > 招 (kong onto your 坎) > 碰 (pong, a pair in hand) > 吃 (chow, a 列 "
    "with two hand cards; only the next seat, or on your own flip). 过 (pass) lets it go; a "
    "card you could eat and passed is 过张 and never eaten later. A 坎 (three alike from the "
    "deal) cannot be broken. 爆 (ready hand) at the deal: no more 吃/碰, and 招 needs no discard."
)


def rules_help(kind: str) -> str:
    if kind == "huaniao":
        return HUANIAO_PLAYS + "\n\n" + HUANIAO_SCORING
    return ZIPAI_PLAYS + "\n\n" + ZIPAI_SCORING


# --- how a game ended (Outcome.reason), in the same words -------------------------------------

REASONS = {
    "EMPTIED_HAND": ("率先打完手牌", "went out first"),  # p2 五（二）
    "LOWEST_SCORE": ("分值小者胜利", "lowest hand score"),
    "TIE_BREAK": ("功能牌者→数量牌者", "tie: more function cards, then number cards"),
    "SHOWDOWN": ("花鸟风月大对决", "showdown"),
    "HU": ("胡", "win"),
    "HUANG_ZHUANG": ("荒庄", "stock exhausted, no winner"),
    "VOID": ("作废", "void: no deal, a seat's entropy never came"),
}


def reason_words(reason: str) -> str:
    """``EMPTIED_HAND`` -> ``率先打完手牌 (went out first)``; an unknown reason in plain words."""
    known = REASONS.get(reason)
    if known:
        return f"{known[0]} ({known[1]})"
    return reason.lower().replace("_", " ")


# --- cards typed at the prompt: the seed's name, its pinyin or its English -------------------

HUANIAO_CARD_WORDS = {
    "鸟": ("niao", "bird"),
    "十": ("shi", "ten", "10"),
    "百": ("bai", "hundred", "100"),
    "千": ("qian", "thousand", "1000"),
    "万": ("wan", "tenthousand", "10000"),
    "花": ("hua", "flower"),
    "风": ("feng", "wind"),
    "月": ("yue", "moon"),
}
ZIPAI_SMALL_NAMES = "一二三四五六七八九十"
ZIPAI_BIG_NAMES = "壹贰叁肆伍陆柒捌玖拾"
ZIPAI_PINYIN = ("yi", "er", "san", "si", "wu", "liu", "qi", "ba", "jiu", "shi")
ZIPAI_ENGLISH = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
BIG_PREFIXES = ("big", "da", "大")  # 大字 (big) cards: 壹…拾; plain names are the 小字 一…十


def _zipai_rank(word: str) -> int | None:
    """1..10 for a small card's name, pinyin, English or digits."""
    for names in (tuple(ZIPAI_SMALL_NAMES), ZIPAI_PINYIN, ZIPAI_ENGLISH):
        if word in names:
            return names.index(word) + 1
    return int(word) if word.isdigit() and 1 <= int(word) <= 10 else None


def card_from_word(word: str, kind: str | None) -> str | None:
    """The card a person typed, by its seed name: ``niao``/``bird`` -> 鸟; in 川南字牌 ``wu``,
    ``five`` or ``5`` -> 五 and ``big5``, ``da-wu`` or ``大五`` -> 伍. None if it names none."""
    w = word.strip().lower().replace("-", "").replace("_", "")
    if kind == "huaniao":
        return next((n for n, words in HUANIAO_CARD_WORDS.items() if w == n or w in words), None)
    if len(w) == 1 and w in ZIPAI_BIG_NAMES:
        return w
    rank = _zipai_rank(w)
    if rank is not None:
        return ZIPAI_SMALL_NAMES[rank - 1]
    for prefix in BIG_PREFIXES:
        big = _zipai_rank(w.removeprefix(prefix)) if w.startswith(prefix) else None
        if big is not None:
            return ZIPAI_BIG_NAMES[big - 1]
    return None


def card_words_help(kind: str) -> str:
    """How cards may be typed, for `help`."""
    if kind == "huaniao":
        return "Cards by name, pinyin or English: " + ", ".join(
            f"{n} {words[0]}/{words[1]}" for n, words in HUANIAO_CARD_WORDS.items()
        )
    return (
        "Cards by name, pinyin, English or number: 五 = wu = five = 5; the 大字 (big) cards "
        "with big or da before it: 伍 = big5 = da-wu = 大五"
    )
