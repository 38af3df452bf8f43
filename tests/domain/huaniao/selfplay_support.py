"""Shared pieces for 花鸟风月 self-play tests: invariants and a 'timid' policy.

The timid policy is the generic random self-play with the legal list narrowed to the plays
with the fewest cards; it makes long games that reach deck exhaustion, 白昼 restarts and the
大对决, which uniformly random play (dumping many cards at once) rarely reaches.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.huaniao import RULES, Play
from domain.huaniao.rules import enforced_limit
from domain.huaniao.state import HuaniaoState
from domain.huaniao.terms import Phase


class CheckedRules:
    """RULES, checking between commands what only holds once a command's facts are all in:
    outside discard windows no hand exceeds the hand limit while it is enforced. With ``timid``, ``legal_commands``
    keeps only the plays with the fewest cards."""

    def __init__(self, timid: bool = False) -> None:
        self._rules = RULES
        self._timid = timid

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rules, name)

    def decide(self, state: HuaniaoState, command: Any) -> list[Any]:
        limit = enforced_limit(state)
        if state.phase == Phase.PLAYING and limit is not None:
            over = [len(h.cards) for h in state.hands if len(h.cards) > limit]
            assert not over, f"seed={state.seed}: hands {over} over the limit {limit}"
        return self._rules.decide(state, command)

    def legal_commands(self, state: Any, seat: int) -> list[Any]:
        commands = self._rules.legal_commands(state, seat)
        if not self._timid:
            return commands
        plays = [c for c in commands if isinstance(c, Play)]
        if not plays:
            return commands
        fewest = min(len(p.cards) for p in plays)
        return [p for p in plays if len(p.cards) == fewest]


CHECKED = CheckedRules()
TIMID = CheckedRules(timid=True)


def invariants(seed: int, deck: tuple[int, ...]) -> Callable[[Any, Any], None]:
    """Checks after every event: cards conserved, discards owed never exceed the hand, the
    hand limit stays in 4..12, and phase/to_act/outcome agree."""
    full = sorted(deck)

    def check(s: HuaniaoState, event: Any) -> None:
        where = f"seed={seed} after {type(event).__name__}"
        zones = list(s.deck) + list(s.played) + list(s.discarded) + list(s.pool)
        for h in s.hands:
            zones.extend(h.cards)
        for sh in s.showdown:
            zones.extend(c.id for c in sh.cards)
        assert sorted(zones) == full, f"{where}: cards not conserved"
        for p in s.pending_discards:
            assert 0 < p.count <= len(s.hands[p.seat].cards), f"{where}: discard {p}"
        if s.phase == Phase.PLAYING:
            assert RULES.to_act(s) == (s.turn,), where
        if s.hand_limit is not None:
            assert 4 <= s.hand_limit <= 12, where
        if s.phase == Phase.ENDED:
            assert RULES.outcome(s) is not None, where
            assert len(s.scores) == s.seat_count and s.winners, where
        else:
            assert RULES.outcome(s) is None, where

    return check
