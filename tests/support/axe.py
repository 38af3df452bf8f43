"""axe-core, the accessibility checker, run inside a Selenium page.

``axe_violations(driver)`` injects tests/browser/node_modules/axe-core/axe.min.js (installed by
``python -m tests.support.browser``, which ``make browser`` runs, from the committed
tests/browser/package-lock.json) into the page the driver has open, runs ``axe.run`` on the
whole document with every rule axe has on by default (color-contrast included), and returns
the violations of the impacts asked for. It fails loudly when axe is missing, never skips::

    from tests.support.axe import axe_violations, format_violations

    found = axe_violations(browser)  # serious and critical, by default
    assert not found, format_violations(found)
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from tests.support.browser import ensure_axe

# The result, trimmed to what an assert message needs: each violation's rule, impact and help,
# and for each failing node its CSS target, its HTML and axe's summary of what to fix.
RUN = """
const done = arguments[arguments.length - 1];
const impacts = arguments[0];
axe.run(document, {resultTypes: ['violations']}).then((r) => done({ok: r.violations
  .filter((v) => impacts.includes(v.impact))
  .map((v) => ({id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
    nodes: v.nodes.map((n) => ({target: n.target, html: n.html.slice(0, 200),
      summary: n.failureSummary || ''}))}))}), (e) => done({error: String(e)}));
"""


@cache
def _source() -> str:
    return ensure_axe().read_text(encoding="utf-8")


def axe_violations(driver: Any, impacts: Iterable[str] = ("serious", "critical")) -> list[dict]:
    """The axe-core violations of ``impacts`` on the driver's page, each a dict with ``id``,
    ``impact``, ``help``, ``helpUrl`` and ``nodes`` (each ``target``, ``html``, ``summary``)."""
    if not driver.execute_script("return typeof window.axe === 'object'"):
        driver.execute_script(_source())
        assert driver.execute_script("return typeof window.axe === 'object'"), (
            "axe-core did not load into the page"
        )
    driver.set_script_timeout(60)
    result = driver.execute_async_script(RUN, list(impacts))
    if "error" in result:
        raise AssertionError(f"axe.run failed: {result['error']}")
    return list(result["ok"])


def format_violations(violations: list[dict], where: str = "") -> str:
    """The violations as lines for an assert message: rule, impact, help, then each node."""
    lines = [f"{len(violations)} axe violation(s){' on ' + where if where else ''}:"]
    for v in violations:
        lines.append(f"- {v['id']} ({v['impact']}): {v['help']}  {v.get('helpUrl', '')}")
        for node in v["nodes"]:
            target = " ".join(str(t) for t in node["target"])
            summary = " ".join(node.get("summary", "").split())
            lines.append(f"    {target}: {node.get('html', '')}  {summary[:300]}")
    return "\n".join(lines)
