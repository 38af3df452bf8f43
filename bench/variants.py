"""The game variants the engine benchmark (P4) plays: every 花鸟风月 mode, a 专业 table with
all its optional rules, and 川南字牌 with 2, 3 and 4 players."""

from __future__ import annotations

from typing import Any

from domain.engine import GameRules
from domain.huaniao import RULES as HUANIAO
from domain.huaniao.options import Mode
from domain.huaniao.options import Options as HuaniaoOptions
from domain.zipai import RULES as ZIPAI
from domain.zipai.options import Options as ZipaiOptions


def engine_variants() -> list[tuple[GameRules, Any, int, str]]:
    out: list[tuple[GameRules, Any, int, str]] = []
    for mode in Mode:
        options = HuaniaoOptions(mode=mode, continuo=mode is Mode.PRO)
        label = mode.name + (" (连奏)" if mode is Mode.PRO else "")
        out.append((HUANIAO, HUANIAO.check_options(options), 4, label))
    pro_all = HuaniaoOptions(
        mode=Mode.PRO, twin_swallows=True, spring_snow=True, lofty_tune=True, blossoms=True
    )
    out.append((HUANIAO, HUANIAO.check_options(pro_all), 4, "PRO (four rules)"))
    for seats in (2, 3, 4):
        out.append((ZIPAI, ZIPAI.check_options(ZipaiOptions()), seats, f"{seats} players"))
    return out
