"""Every test the rules tables cite exists.

docs/rules/huaniao.md and docs/rules/zipai.md say, clause by clause, which tests check a
reading (`test_part1_53_*`, `test_a_second_misplay_*`). A citation that matches no test is
a clause nobody checks, so each cited name -- a ``*`` stands for any ending -- must match a
test function defined somewhere under tests/.
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES_DOCS = ("docs/rules/huaniao.md", "docs/rules/zipai.md")
# a test name, a `*` standing for any ending; `test_x.py` is a module, not a test
CITED = re.compile(r"\b(test_[A-Za-z0-9_*]+)(?![A-Za-z0-9_*]|\.py)")
DEFINED = re.compile(r"^\s*(?:async\s+)?def\s+(test_\w+)", re.MULTILINE)


def cited_tests(text: str) -> set[str]:
    """The test names (patterns) a rules document cites."""
    return set(CITED.findall(text))


def defined_tests() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "tests").rglob("*.py"):
        names |= set(DEFINED.findall(path.read_text(encoding="utf-8")))
    return names


def test_the_citation_pattern_reads_names_and_skips_modules() -> None:
    text = "core `test_part1_5_*`, `test_a[LOW]`; server `test_claim_windows.py`, test_b_c"
    assert cited_tests(text) == {"test_part1_5_*", "test_a", "test_b_c"}


@pytest.mark.parametrize("doc", RULES_DOCS)
def test_every_test_a_rules_table_cites_exists(doc: str) -> None:
    cited = cited_tests((ROOT / doc).read_text(encoding="utf-8"))
    assert cited, f"{doc} cites no test"
    defined = defined_tests()
    missing = sorted(c for c in cited if not fnmatch.filter(defined, c))
    assert not missing, f"{doc} cites tests that do not exist: {missing}"
