"""The games this server hosts. Adding a game is one line here (plus its package and protos)."""

from __future__ import annotations

from domain.engine import GameRules, MalformedCommand


def _games() -> dict[str, GameRules]:
    from domain.huaniao import RULES as HUANIAO
    from domain.zipai import RULES as ZIPAI

    return {rules.name: rules for rules in (HUANIAO, ZIPAI)}


_GAMES: dict[str, GameRules] | None = None


def games() -> dict[str, GameRules]:
    global _GAMES
    if _GAMES is None:
        _GAMES = _games()
    return _GAMES


def register(rules: GameRules) -> None:
    """Add a game at run time (tests use this for a tiny fake game)."""
    games()[rules.name] = rules


def rules_for(kind: str) -> GameRules:
    try:
        return games()[kind]
    except KeyError:
        raise MalformedCommand("kind", f"unknown game kind {kind!r}") from None
