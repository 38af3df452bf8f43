"""The referee's page in the game's words: one term table the page embeds (``data["terms"]``).

Every enum value of the API gets its Chinese name (the 花鸟风月 names come from the domain's own
tables, domain/huaniao/terms.py and options.py; 川南字牌's from zipai.proto's comments and the
terminal's vocabulary, clients/python/vocab.py), every field the page labels gets one, and the
server's event lines (GameEvent.text, which mix English verbs into 川南字牌's lines) get a list
of rewrites into the same words. The English stays in each label's tooltip.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from google.protobuf.descriptor import EnumDescriptor, FileDescriptor

from domain.huaniao.cards import CLASS_NAME
from domain.huaniao.options import COMBO_NAME
from domain.huaniao.terms import (
    CAUSE_NAME,
    NEED_NAME,
    PATTERN_NAME,
    PLAY_KIND_NAME,
    SEASON_NAME,
    VERSE_NAME,
)
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2
from tabletop.zipai.v1 import zipai_pb2

# 花鸟风月's enums by the domain's names (their proto value names are PREFIX_MEMBER).
_DOMAIN: dict[str, dict[Any, str]] = {
    "SEASON_": SEASON_NAME,
    "PLAY_KIND_": PLAY_KIND_NAME,
    "NEED_": NEED_NAME,
    "CAUSE_": CAUSE_NAME,
    "VERSE_": VERSE_NAME,
    "SHOWDOWN_PATTERN_": PATTERN_NAME,
    "COMBO_": COMBO_NAME,
    "CARD_CLASS_": CLASS_NAME,
}

# Every other enum value a page may show (tests/api/test_page_terms.py: none is missing).
ENUM_ZH = {
    # tabletop.v1
    "DEAL_SOURCE_SHUFFLED": "洗牌",
    "DEAL_SOURCE_PREPARED_SEED": "指定种子",
    "DEAL_SOURCE_PREPARED_DECK": "指定牌序",
    "CONTRIBUTION_STATUS_NONE": "无",
    "CONTRIBUTION_STATUS_PENDING": "待揭示",
    "CONTRIBUTION_STATUS_REVEALED": "已揭示",
    "CONTRIBUTION_STATUS_WITHHELD": "未揭示",
    "CONTRIBUTION_STATUS_AWAITED": "待提交",
    "HAND_ADVANCE_AUTO": "自动开局",
    "HAND_ADVANCE_READY": "准备后开局",
    "ENFORCEMENT_REJECT": "拒绝违规",
    "ENFORCEMENT_REFEREE": "裁判裁定",
    "ENFORCEMENT_PLAYERS": "玩家投票",
    "VIOLATION_KIND_TIMEOUT": "超时",
    "VIOLATION_KIND_WRONG_DECLARATION": "错误宣告",
    "VIOLATION_KIND_ILLEGAL_COMBO": "违规组合",
    "VIOLATION_KIND_SEASON_RULE": "违反季节规则",
    "VIOLATION_KIND_DISCARD_ORDER": "弃牌顺序",
    "VIOLATION_KIND_OTHER": "其他违规",
    "VIOLATION_KIND_REPEATED_MISPLAY": "多次误操作",
    "PENALTY_KIND_WARNING": "警告",
    "PENALTY_KIND_DRAW": "罚摸",
    "PENALTY_KIND_DISCARD_AND_DRAW": "罚弃再摸",
    "PENALTY_KIND_NO_WU_NEXT_TURN": "下回合不可舞",
    "PENALTY_KIND_FORCED_DISCARD": "罚弃",
    "PENALTY_KIND_OPEN_HAND": "公开手牌",
    "PENALTY_KIND_FORFEIT": "判负",
    "CASE_STATUS_OPEN": "审理中",
    "CASE_STATUS_UPHELD": "成立",
    "CASE_STATUS_REJECTED": "不成立",
    "CASE_STATUS_DEADLOCKED": "僵持",
    "CASE_STATUS_UNRESOLVED": "未决",
    "GAME_PHASE_WAITING": "等待入座",
    "GAME_PHASE_PLAYING": "对局中",
    "GAME_PHASE_FINISHED": "已终局",
    "ROLE_SEAT": "座位",
    "ROLE_SPECTATOR": "观众",
    "ROLE_ARBITER": "裁判",
    # 花鸟风月 (the rest)
    "CARD_KIND_BIRD": "鸟",
    "CARD_KIND_TEN": "十",
    "CARD_KIND_HUNDRED": "百",
    "CARD_KIND_THOUSAND": "千",
    "CARD_KIND_TEN_THOUSAND": "万",
    "CARD_KIND_FLOWER": "花",
    "CARD_KIND_WIND": "风",
    "CARD_KIND_MOON": "月",
    "MODE_SIMPLE": "简易",
    "MODE_BASIC": "基本",
    "MODE_REGULAR": "常规",
    "MODE_FULL": "完整",
    "MODE_PRO": "专业",
    "PHASE_DEALING": "发牌",
    "PHASE_PLAYING": "出牌",
    "PHASE_DISCARDING": "弃牌",
    "PHASE_GUESSING": "猜牌",
    "PHASE_CHANGING_SEASON": "换季",
    "PHASE_ENDED": "终局",
    "VERSE_RULE_REQUIRED": "须念",
    "VERSE_RULE_OPTIONAL": "可念",
    "VERSE_RULE_OFF": "不念",
    "LEADER_TIE_LOWEST_SEAT": "座次小者先",
    "LEADER_TIE_RANDOM": "随机",
    # 川南字牌
    "VARIANT_LUZHOU": "泸州",
    "VARIANT_HEJIANG": "合江",
    "DEALER_RULE_WINNER": "胡者坐庄",
    "DEALER_RULE_ROTATE": "轮庄",
    "SCORING_PROFILE_NONE": "不计分",
    "SCORING_PROFILE_LUZHOU": "泸州计分",
    "GROUP_KIND_RUN": "顺子",
    "GROUP_KIND_ER_QI_SHI": "二七十",
    "GROUP_KIND_DA_DA_XIAO": "大大小",
    "GROUP_KIND_XIAO_XIAO_DA": "小小大",
    "GROUP_KIND_TRIPLE": "三张",
    "GROUP_KIND_FOUR": "四张",
    "GROUP_KIND_PAIR": "将",
    "MELD_KIND_CHI": "吃",
    "MELD_KIND_BI": "比",
    "MELD_KIND_PENG": "碰",
    "MELD_KIND_ZHAO": "招",
    "MELD_KIND_LONG": "拢",
    "DRAW_REASON_REPLACEMENT": "补张",
    "DRAW_REASON_DEALER_21ST": "庄家第21张",
    "PROMPT_KIND_CLAIM": "吃碰招胡",
    "PROMPT_KIND_BAO": "爆",
    "PROMPT_KIND_HU_OR_PASS": "胡或过",
    "PROMPT_KIND_HU_OR_LONG": "胡或拢",
    "PROMPT_KIND_DISCARD": "打",
    "CLAIM_KIND_HU": "胡",
    "CLAIM_KIND_LONG": "拢",
    "CLAIM_KIND_ZHAO": "招",
    "CLAIM_KIND_PENG": "碰",
    "CLAIM_KIND_CHI": "吃",
    "CLAIM_KIND_PASS": "过",
    "WIN_KIND_ZI_MO": "自摸",
    "WIN_KIND_DIAN_PAO": "点炮",
    "WIN_KIND_FAN_PAI": "翻牌胡",
    "PHASE_OPENING": "起手",
    "PHASE_PROMPT_HU": "起手胡",
    "PHASE_BAO": "报爆",
    "PHASE_DISCARD": "打牌",
    "PHASE_SHOWN": "亮牌",
    "PHASE_CLAIM": "吃碰招胡",
    "PHASE_FLIP": "翻牌",
    "PHASE_OVER": "终局",
    "FIRST_DEALER_FIRST_SEAT_TAKEN": "先入座者坐庄",
    "FIRST_DEALER_SEAT": "指定庄家",
}
# A 三张 melded by 碰 (or held: 坎) and a 四张 by 招 or 拢 read by the meld's own word.

# The fields the page labels, as [Chinese, English].
FIELD_ZH = {
    # the table
    "phase": "阶段",
    "role": "视角",
    "to_act": "待行动",
    "winners": "胜者",
    "winner": "胜者",
    "scores": "得分",
    "reason": "结局",
    "paused": "暂停",
    "recorded_at": "时间",
    "seat_count": "人数",
    "seats": "座位",
    "seat": "座位",
    # 花鸟风月
    "hand": "手牌",
    "hand_count": "手牌数",
    "cards": "牌",
    "last_play": "上一手",
    "need": "须",
    "reference": "参照数",
    "leader": "先手",
    "deck": "牌堆",
    "deck_size": "牌堆张数",
    "season": "季节",
    "seasons": "四季",
    "round": "回合",
    "turn_in_round": "本回合第几手",
    "turns_taken": "已出手数",
    "kind": "类",
    "count": "张数",
    "discarded": "已弃",
    "owes_discard": "须弃",
    "hand_limit": "手牌上限",
    "consecutive_perches": "连续栖",
    "dance_banned": "不可舞",
    "cool_banned": "凉风禁",
    "open_hand": "公开手牌",
    "guess": "猜",
    "guess_target": "被猜者",
    "has_guessed": "已猜",
    "lofty_tune": "曲高和寡",
    "showdown": "大对决",
    "pattern": "牌型",
    "score": "分值",
    "total": "合计",
    "verse_due": "待念",
    "verse": "诗句",
    "combo": "组合",
    "extra_actions": "额外出手",
    "blossoms": "繁花似锦",
    "spring_snow": "阳春白雪",
    "twin_swallows": "双飞燕",
    "continuo": "连奏",
    "daylight": "白昼",
    "silent_night": "静夜",
    "pool_count": "牌池张数",
    "hands": "手牌",
    "results": "结果",
    "end_reason": "结局",
    "lower_score_wins": "分低者胜",
    "hand_limit_enforced": "手牌上限生效",
    # 川南字牌
    "hand_size": "手牌数",
    "melds": "列",
    "group": "牌型",
    "taken": "所取",
    "from_seat": "来自",
    "discards": "打出",
    "played": "打过",
    "guo_zhang": "过张",
    "guo_hu_fan": "过胡番",
    "bao": "爆",
    "active": "在局",
    "dealer": "庄家",
    "prompt": "询问",
    "turn": "轮到",
    "shown": "亮牌",
    "shown_by": "亮牌者",
    "shown_flipped": "翻出",
    "stock_size": "底牌张数",
    "stock": "底牌",
    "awaiting": "等待",
    "my_claim": "我的应答",
    "win_kind": "胡法",
    "huang_zhuang": "荒庄",
    "hidden_size": "暗牌",
    "bi": "比",
    # the justice side
    "cases": "案件",
    "penalties": "处罚",
    "misplays_used": "误操作次数",
    "violations": "违规",
    "redeals": "重新发牌",
    "max_redeals": "重新发牌上限",
    "redeals_requested_by": "要求重发者",
    "redeal_commitment": "重发承诺",
    "enforcement": "执法",
    "turn_time_limit_ms": "每手时限(毫秒)",
    "case_time_limit_ms": "案件时限(毫秒)",
    "case_deadline": "案件截止",
    "reports_left": "余举报",
    "case_id": "案号",
    "accused": "被诉",
    "by": "提出者",
    "status": "状态",
    "violation": "违规",
    "penalty": "处罚",
    "evidence": "证据",
    "note": "说明",
    "is_appeal": "申诉",
    "appealable": "可申诉",
    "upheld_by": "赞成",
    "rejected_by": "反对",
    "recused": "回避",
    "deadline": "截止",
    "revoked": "撤销",
    "lapsed": "失效",
    "redeal_agreed": "同意重发",
    "ruling": "裁定",
    "ruled_by": "裁定者",
}
FIELD_EN = {
    "hand_size": "hand size",
    "melds": "melds (列)",
    "played": "kinds discarded",
    "guo_zhang": "passed-up kinds (过张)",
    "discards": "discards",
    "last_play": "last play",
}

# The server's event lines, rewritten into the game's words (the original line is the log
# entry's tooltip). Applied in order, the first match wins; then "seat N" anywhere is "N家"
# and a ⟨ENUM_VALUE⟩ the rewrite marked is that value's term, ⟨SEATS:1, 2⟩ "1家、2家".
_CARDS = "[一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾]"
LINE_RULES: list[tuple[str, str]] = [
    (r"^seat (\d+) ate (\S+) with (\S+), 比 (.*)$", r"\1家 吃 \2 (\3)，比 \4"),
    (r"^seat (\d+) ate (\S+) with (\S+)$", r"\1家 吃 \2 (\3)"),
    (r"^seat (\d+) ponged (.+)$", r"\1家 碰 \2"),
    (r"^seat (\d+) konged \(招\) (\S+) and must discard$", r"\1家 招 \2，须打一张"),
    (r"^seat (\d+) konged \(招\) (\S+)$", r"\1家 招 \2"),
    (
        r"^seat (\d+) laid down 拢 of (\S+) with its own flip and must discard$",
        r"\1家 拢 \2 (自翻)，须打一张",
    ),
    (r"^seat (\d+) laid down 拢 of (\S+) with its own flip$", r"\1家 拢 \2 (自翻)"),
    (r"^seat (\d+) laid down 拢 of (\S+) and must discard$", r"\1家 拢 \2，须打一张"),
    (r"^seat (\d+) laid down 拢 of (\S+)$", r"\1家 拢 \2"),
    (r"^seat (\d+) drew a card \(the dealer's 21st card\)$", r"\1家 摸 一张 (庄家第21张)"),
    (r"^seat (\d+) drew (\S+) \(the dealer's 21st card\)$", r"\1家 摸 \2 (庄家第21张)"),
    (r"^seat (\d+) drew a card \(补张\)$", r"\1家 补张 一张"),
    (r"^seat (\d+) drew (\S+) \(补张\)$", r"\1家 补张 \2"),
    (r"^seat (\d+) declared 爆$", r"\1家 爆"),
    (r"^seat (\d+) declined 爆$", r"\1家 不爆"),
    (r"^seat (\d+) discarded (.+)$", r"\1家 打 \2"),
    (r"^seat (\d+) flipped (\S+) \((\d+) left\)$", r"\1家 翻 \2 (底牌余 \3 张)"),
    (r"^seat (\d+) answered$", r"\1家 已应答"),
    (r"^seat (\d+) claims 吃 with (\S+), 比 (.*)$", r"\1家 要吃 (\2)，比 \3"),
    (r"^seat (\d+) claims 吃 with (\S+)$", r"\1家 要吃 (\2)"),
    (r"^seat (\d+) claims (\S+) \(过张\)$", r"\1家 要\2 (过张)"),
    (r"^seat (\d+) claims (\S+)$", r"\1家 要\2"),
    (r"^nobody took (\S+)$", r"无人要 \1"),
    (
        r"^seat (\d+) won \(胡\) on (\S+), (\w+): (.*); (-?\d+) 胡, (-?\d+) fan, scores \[(.*)\]$",
        r"\1家 胡 \2 ⟨WIN_KIND_\3⟩: \4; \5 胡, \6 番, 得分 \7",
    ),
    (
        r"^seat (\d+) won \(胡\), (\w+): (.*); (-?\d+) 胡, (-?\d+) fan, scores \[(.*)\]$",
        r"\1家 胡 ⟨WIN_KIND_\2⟩: \3; \4 胡, \5 番, 得分 \6",
    ),
    (r"^荒庄: the stock ran out$", "荒庄: 底牌摸完，无人胡"),
    (r"^claim prompt for no seat$", "吃碰招胡: 待应答"),
    (r"^claim prompt for (.+)$", r"吃碰招胡: 待 ⟨SEATS:\1⟩ 应答"),
    (r"^bao prompt for (.+)$", r"爆: 待 ⟨SEATS:\1⟩ 回答"),
    (r"^hu or pass prompt for (.+)$", r"胡或过: 待 ⟨SEATS:\1⟩"),
    (r"^hu or long prompt for (.+)$", r"胡或拢: 待 ⟨SEATS:\1⟩"),
    (r"^discard prompt for (.+)$", r"打牌: 待 ⟨SEATS:\1⟩"),
    (
        r"^hand started: seat (\d+) deals, (\d+) cards in the stock; seat (\d+) sits out$",
        r"开局: \1家 坐庄，底牌 \2 张；\3家 本局不打",
    ),
    (r"^hand started: seat (\d+) deals, (\d+) cards in the stock$", r"开局: \1家 坐庄，底牌 \2 张"),
    (r"^seat (\d+) was dealt (\d+) cards$", r"\1家 发牌 \2 张"),
    (r"^seat (\d+) was dealt (.+)$", r"\1家 发牌 \2"),
    # the table, both games
    (r"^table opened: (\w+), (\d+) seats.*$", r"开桌: \2 人"),
    (
        r"^seat (\d+) taken by (.*?), committed to a contribution$",
        r"\1家 入座: \2，已提交随机数承诺",
    ),
    (r"^seat (\d+) taken by (.*?)( \(.*)?$", r"\1家 入座: \2"),
    (
        r"^seat (\d+) did not commit or reveal its contribution in time: .*$",
        r"\1家 未按时提交或揭示随机数：以其承诺 (或无) 代之",
    ),
    (
        r"^重新洗牌发牌 (\d+) asked for by the arbiter: drawn through a fresh commit–reveal"
        r" \(commitment (\S+)\)$",
        r"重新洗牌发牌 第 \1 次，裁判请求：重新提交并揭示随机数 (承诺 \2)",
    ),
    (
        r"^重新洗牌发牌 (\d+) asked for by every seat: drawn through a fresh commit–reveal"
        r" \(commitment (\S+)\)$",
        r"重新洗牌发牌 第 \1 次，全体请求：重新提交并揭示随机数 (承诺 \2)",
    ),
    (
        r"^seat (\d+) reports seat (\d+): (\w+) \((\d+) event\(s\) as evidence\); game paused$",
        r"\1家 举报 \2家: ⟨VIOLATION_KIND_\3⟩ (证据 \4 版)，对局暂停",
    ),
    (r"^case (\S+) ran out of time \(never voted: the arbiter\)$", r"案 \1 超时 (裁判未裁定)"),
    (r"^seat (\d+) 违规出牌 (.*) \[\w+\], 待举报$", r"\1家 违规出牌 \2，待举报"),
    (r"^seat (\d+) revealed its contribution$", r"\1家 揭示随机数"),
    (r"^seat (\d+) committed to nothing$", r"\1家 不提交随机数"),
    (r"^seat (\d+) committed to a contribution$", r"\1家 提交随机数承诺"),
    (r"^game started: cards dealt \(deck hidden\)$", "开局发牌 (牌序保密)"),
    (r"^game started: cards dealt$", "开局发牌"),
    (r"^shuffle secret revealed: (\w+)$", r"公布洗牌密钥: \1"),
    (r"^redeal secrets revealed: (.*)$", r"公布重发密钥: \1"),
    (
        r"^seat (\d+) 误操作「(.*)」: retracted versions (\d+)-(\d+)$",
        r"\1家 误操作「\2」: 撤回第 \3–\4 版",
    ),
    (r"^seat (\d+) appeals the penalty of case (\S+): (.*)$", r"\1家 申诉 案 \2 的处罚: \3"),
    (r"^seat (\d+) votes to uphold case (\S+)$", r"\1家 投票 案 \2 成立"),
    (r"^seat (\d+) votes to reject case (\S+)$", r"\1家 投票 案 \2 不成立"),
    (r"^the arbiter upholds case (\S+)$", r"裁判裁定 案 \1 成立"),
    (r"^the arbiter rejects case (\S+)$", r"裁判裁定 案 \1 不成立"),
    (r"^case (\S+) closed: (\w+)$", r"案 \1 结案: ⟨CASE_STATUS_\2⟩"),
    (r"^penalty on seat (\d+): (\w+)( \d+)?$", r"处罚 \1家: ⟨PENALTY_KIND_\2⟩\3"),
    (r"^the penalty of case (\S+) on seat (\d+) is revoked$", r"撤销 案 \1 对 \2家 的处罚"),
    (r"^重新洗牌发牌: a new deal \(round (\d+)\)$", r"重新洗牌发牌 (第 \1 次)"),
    (r"^seat (\d+) timed out \((\d+) ms\)$", r"\1家 超时 (\2 毫秒)"),
    (r"^seat (\d+) agrees to 重新洗牌发牌 on case (\S+)$", r"\1家 同意 案 \2 重新洗牌发牌"),
    (r"^case (\S+) ran out of time \(never voted: (.*)\)$", r"案 \1 超时 (未投票: ⟨SEATS:\2⟩)"),
    (r"^seat (\d+): (\w+) refereed \((.*)\)$", r"\1家: ⟨VIOLATION_KIND_\2⟩ 裁定 (\3)"),
    (r"^终局 (\w+): 胜者 (.*)$", r"终局 ⟨REASON_\1⟩: 胜者 \2"),
]

# How a game ended (Outcome.reason), as clients/python/vocab.py REASONS says it.
REASON_ZH = {
    "EMPTIED_HAND": ["率先打完手牌", "went out first"],
    "LOWEST_SCORE": ["分值小者胜利", "lowest hand score"],
    "TIE_BREAK": ["功能牌者→数量牌者", "tie: more function cards, then number cards"],
    "SHOWDOWN": ["花鸟风月大对决", "showdown"],
    "HU": ["胡", "win"],
    "HUANG_ZHUANG": ["荒庄", "stock exhausted, no winner"],
    "VOID": ["作废", "void: no deal, a seat's entropy never came"],
}

# Words the page itself writes, in one place: [Chinese, English].
UI_ZH = {
    "seat": ["家", "seat"],
    "to act": ["待行动", "to act"],
    "winner": ["胜", "winner"],
    "free": ["空位", "free seat"],
    "hidden": ["暗", "face down"],
    "table": ["桌面", "the table"],
    "justice": ["仲裁", "justice"],
    "events": ["记录", "events"],
    "viewer": ["视角", "viewer"],
    "version": ["版本", "version"],
    "of": ["共", "of"],
    "yes": ["是", "yes"],
    "no": ["否", "no"],
    "none": ["无", "none"],
    "seen as": ["视角", "seen as"],
    "paused": ["暂停：案件审理中", "paused: a case is open"],
    "not started": ["尚未开局", "the game has not started"],
    "no version": ["尚无记录", "no version to show yet"],
    "verify": ["验证", "verify"],
    "deal": ["发牌", "deal"],
    "prepared": ["指定牌序", "prepared"],
    "shuffled": ["洗牌", "shuffled"],
    "unknown": ["此视角不可知", "not known to this viewer"],
    "verified": ["已验证", "verified"],
    "failed": ["验证失败", "failed"],
    "not yet": ["尚未验证", "not yet"],
    "live": ["直播中", "live"],
    "game over": ["终局", "game over"],
    "report": ["报告", "report"],
    # what a passing verify checked (clients/python/replay_html.py CHECKS)
    "check chain": ["哈希链", "chain"],
    "check commitment": ["洗牌承诺", "commitment"],
    "check seals (server key)": ["服务器签名", "seals (server key)"],
    "check deck": ["牌序", "deck"],
    "check moves re-decided": ["逐手重算", "moves re-decided"],
    "check outcome": ["结果", "outcome"],
    "on offer": ["亮牌", "the card on offer"],
    "last play": ["上一手", "last play"],
    "hu points": ["胡", "hu points"],
    "fan": ["番", "fan"],
    "win hand": ["胡牌", "the winning hand"],
    "hu": ["胡", "won (hu)"],
    # the controls
    "first version": ["第一版 (Home)", "first version (Home)"],
    "previous version": ["上一版 (←)", "previous version (←)"],
    "next version": ["下一版 (→)", "next version (→)"],
    "latest version": ["最新版 (End)", "latest version (End)"],
    "version of": ["版本 {v} / {n}", "version {v} of {n}"],
    "game huaniao": ["花鸟风月", "Huaniao Fengyue (花鸟风月)"],
    "game zipai": ["川南字牌", "Chuannan Zipai (川南字牌)"],
    "game ": ["对局", "game"],
    "arbiter view": ["裁判 (全部可见)", "arbiter (sees everything)"],
    "spectator": ["观众", "spectator"],
    "live suffix": [" (直播)", " (live)"],
    "the end": ["终局", "the end"],
    "reconnecting": ["重新连接…", "reconnecting…"],
    "finished verify": ["已终局 — 用 {cmd} 验证", "finished — verify with {cmd}"],
    # the centre
    "flipped": ["翻", "flipped from the stock"],
    "discarded": ["打", "discarded"],
    "awaiting": ["待", "awaiting"],
    # the 花鸟风月 win
    "settlement": ["结算", "settlement"],
    "seat col": ["座位", "seat"],
    "cards left": ["余牌", "cards left"],
    "points": ["分值", "points"],
    "went out": ["出完", "went out"],
    "showdown score": ["对决分", "showdown score"],
    "lower wins": [
        "分值小者为佳：手中余牌的分值，出完者为 0。",
        "Lower points are better: the points of the cards left in hand, 0 for a seat that went out.",
    ],
    # the justice side
    "case no": ["案 {id}", "case {id}"],
    "the arbiter": ["裁判", "the arbiter"],
    "case report": ["举报", "report"],
    "appeal": ["申诉", "appeal"],
    "report line": ["{by} 举报 {accused}：{violation}", "{by} reports {accused}: {violation}"],
    "appeal line": ["{by} 申诉 案 {case} 的处罚", "{by} appeals the penalty of case {case}"],
    "version no": ["第 {v} 版", "version {v}"],
    "n cards": ["{n} 张", "{n} cards"],
    "penalty on": ["{seat} 受罚：{penalty}", "penalty on {seat}: {penalty}"],
    # the referee's workflow (the page's help): "head|rest"
    "help": ["帮助 · 裁判的四步", "help · the referee's four steps"],
    "help find": [
        "找到有争议的一手|：在右侧「记录」里点那一版，或点时间轴上的标记（仲裁为紫色，终局为绿色）。",
        "Find the disputed move|: click its version in the events on the right, or a marker"
        " on the timeline (justice in purple, the end in green).",
    ],
    "help step": [
        "逐版查看|：← → 一版一版地走，Home 到第一版，End 到最新一版；这一版改动的牌和行以黄色标出。",
        "Step through it|: ← → one version at a time, Home to the first, End to the latest;"
        " what changed is marked in yellow.",
    ],
    "help viewers": [
        "看每个视角|：在「视角」里选裁判、某一家或观众，看当时每人眼中的牌桌；"
        "链接 #v=版本&viewer=座位号 直接打开那一版、那一家（如 #v=12&viewer=2）。",
        "See each viewer's view|: pick the arbiter, a seat or the spectator under “viewer” to"
        " see the table as each saw it; a link #v=VERSION&viewer=SEAT opens that version as"
        " that seat (e.g. #v=12&viewer=2).",
    ],
    "help case": [
        "读案件|：「仲裁」栏里每个举报和申诉一张卡：谁举报谁、违规、证据（点版本号跳到那一版）、"
        "投票、裁定和处罚。",
        "Read the case|: under “justice” each report and appeal has a card: who reported whom,"
        " the violation, the evidence (click a version to go there), the votes, the ruling and"
        " the penalty.",
    ],
}


@cache
def terms() -> dict[str, Any]:
    """The table the page embeds: enums, fields, line rewrites, reasons, its own words."""
    english = enum_names()
    enums: dict[str, list[str]] = {}
    for value in english:
        zh = ENUM_ZH.get(value)
        if zh is None:
            zh = _from_domain(value)
        if zh is not None:
            enums[value] = [zh, english[value]]
    fields = {k: [v, FIELD_EN.get(k, k.replace("_", " "))] for k, v in FIELD_ZH.items()}
    for rule, _ in LINE_RULES:
        re.compile(rule)
    for reason, words in REASON_ZH.items():
        enums["REASON_" + reason] = words
    return {
        "enums": enums,
        "fields": fields,
        "lines": [[rule, repl.replace("\\", "$")] for rule, repl in LINE_RULES],
        "reasons": REASON_ZH,
        "ui": UI_ZH,
    }


def _from_domain(value: str) -> str | None:
    for prefix, names in _DOMAIN.items():
        if value.startswith(prefix):
            member = value.removeprefix(prefix)
            for key, zh in names.items():
                if getattr(key, "name", None) == member:
                    return zh
    return None


@cache
def enum_names() -> dict[str, str]:
    """Every enum value of the API by its proto name, as a short readable name
    (PLAY_KIND_SONG -> "song"), so the page can show any game's enums."""
    names: dict[str, str] = {}
    for module in (tabletop_pb2, huaniao_pb2, zipai_pb2):
        for enum in enums_of(module.DESCRIPTOR):
            prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", enum.name).upper() + "_"
            for value in enum.values:
                short = value.name.removeprefix(prefix).lower().replace("_", " ")
                names.setdefault(value.name, short)
    return names


def enums_of(file: FileDescriptor) -> list[EnumDescriptor]:
    found = list(file.enum_types_by_name.values())
    stack = list(file.message_types_by_name.values())
    while stack:
        message = stack.pop()
        found += message.enum_types
        stack += message.nested_types
    return found
