"""The games this server hosts. Adding a game is one line in ``_builtin`` (plus its package
and proto messages)."""

from __future__ import annotations

from domain.engine import GameRules, MalformedCommand

_GAMES: dict[str, GameRules] = {}
_LOADED = False


def _builtin() -> list[GameRules]:
    from domain.huaniao import RULES as HUANIAO
    from domain.zipai import RULES as ZIPAI

    return [HUANIAO, ZIPAI]


def games() -> dict[str, GameRules]:
    global _LOADED
    if not _LOADED:
        for rules in _builtin():
            _GAMES.setdefault(rules.name, rules)
        _LOADED = True
    return _GAMES


def register(rules: GameRules) -> None:
    """Add a game at run time (tests use this for a tiny fake game)."""
    _GAMES[rules.name] = rules


def rules_for(kind: str) -> GameRules:
    if kind in _GAMES:
        return _GAMES[kind]
    try:
        return games()[kind]
    except KeyError:
        raise MalformedCommand("kind", f"unknown game kind {kind!r}") from None
