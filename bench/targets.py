"""The issue's targets, checked against this run's figures (rendered at the top of the doc)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Check:
    figure: str
    target: str
    measured: str
    met: bool
    gap: str = ""


CHECKS: list[Check] = []


def at_least(figure: str, value: float, goal: float, unit: str = "x", fmt: str = ".2f") -> None:
    met = value >= goal
    gap = "" if met else f"{goal / value:.1f}x short" if value > 0 else "nothing measured"
    CHECKS.append(Check(figure, f">= {goal:{fmt}}{unit}", f"{value:{fmt}}{unit}", met, gap))


def at_most(figure: str, value: float, goal: float, unit: str = "x", fmt: str = ".2f") -> None:
    met = value <= goal
    gap = "" if met else f"{value / goal:.1f}x over"
    CHECKS.append(Check(figure, f"<= {goal:{fmt}}{unit}", f"{value:{fmt}}{unit}", met, gap))


def render() -> list[str]:
    if not CHECKS:
        return []
    lines = [
        "## Targets",
        "",
        "| figure | target | this run | met | gap |",
        "|---|---|---|---|---|",
    ]
    for c in CHECKS:
        lines.append(
            f"| {c.figure} | {c.target} | {c.measured} | {'yes' if c.met else '**no**'} | "
            f"{c.gap} |"
        )
    return lines
