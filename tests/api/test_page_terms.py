"""The referee page's term table (server/wire/page/terms.py): every enum value of the API has
its Chinese name, and every rewrite of the server's event lines compiles and leaves no English
move word in the lines it rewrites."""

from __future__ import annotations

import re

from server.wire.page.terms import LINE_RULES, enum_names, terms

ENGLISH_VERBS = re.compile(r"\b(ate|ponged|konged|discarded|flipped|drew|laid|won|claims|took)\b")


def test_every_enum_value_has_its_chinese_name() -> None:
    table = terms()["enums"]
    missing = [v for v in enum_names() if v not in table and not v.endswith("_UNSPECIFIED")]
    assert not missing
    for value, (zh, en) in table.items():
        assert re.search(r"[\u4e00-\u9fff]", zh), f"{value}: {zh}"
        assert en and "_" not in en, value


def test_the_line_rewrites_say_it_in_the_games_words() -> None:
    lines = {
        "seat 0 ate 八 with 九十": "0家 吃 八 (九十)",
        "seat 1 ate 七 with 二十, 比 六七八": "1家 吃 七 (二十)，比 六七八",
        "seat 1 ponged 五": "1家 碰 五",
        "seat 2 konged (招) 一 and must discard": "2家 招 一，须打一张",
        "seat 2 discarded 伍": "2家 打 伍",
        "nobody took 四": "无人要 四",
        "荒庄: the stock ran out": "荒庄: 底牌摸完，无人胡",
        "seat 0 won (胡) on 伍, FAN_PAI: 六六六 伍伍; 42 胡, 1 fan, scores [20, -10, -10]": (
            "0家 胡 伍 ⟨WIN_KIND_FAN_PAI⟩: 六六六 伍伍; 42 胡, 1 番, 得分 20, -10, -10"
        ),
        "claim prompt for 1, 2": "吃碰招胡: 待 ⟨SEATS:1, 2⟩ 应答",
    }
    for line, want in lines.items():
        for rule, repl in LINE_RULES:
            if re.search(rule, line):
                got = re.sub(rule, repl, line, count=1)
                break
        else:
            got = line
        assert got == want
        assert not ENGLISH_VERBS.search(got)
    assert all(
        to.count("$") == repl.count("\\")
        for (_, repl), (_, to) in zip(LINE_RULES, terms()["lines"], strict=True)
    )
