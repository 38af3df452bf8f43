"""A fingerprint of what the engines do, to prove that a change made to make them cheaper
changes nothing anyone can observe (issue 40).

For seeded random games of every 花鸟风月 mode and optional rule and of 川南字牌 at 2, 3 and 4
seats over its options (uniform and timid play), and for 花鸟风月 tables with justice
(tests/domain/huaniao/justice_support.py), it hashes with sha256: every legal command of every
seat in order, with its label; every event in its stored form, and as each viewer may see it,
with its description; every viewer's view and the state's stored form after every command;
``to_act`` and the outcome; and the refusals (type, reason, rule, field, message) of commands
that break a rule. Run it before and after a change and compare the lines it prints:

    .venv/bin/python -m bench.engine_fingerprint            # 300 games of each kind
    .venv/bin/python -m bench.engine_fingerprint --games 40 # a quicker look
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import itertools
import random
import time
from collections.abc import Callable
from typing import Any

from domain.codec import canonical, encode_tagged, to_data
from domain.engine import ARBITER, SPECTATOR, DomainError, GameRules, Viewer
from domain.huaniao import RULES as HUANIAO
from domain.huaniao import Combo, Mode, Play
from domain.huaniao import Options as HuaniaoOptions
from domain.huaniao.options import LeaderTie, VerseRule
from domain.table.justice import facts as J
from domain.zipai import RULES as ZIPAI
from domain.zipai import Options as ZipaiOptions
from domain.zipai.options import DealerRule, ScoringProfile, Variant

HUANIAO_OPTIONS = [
    HuaniaoOptions(mode=Mode.SIMPLE),
    HuaniaoOptions(mode=Mode.BASIC),
    HuaniaoOptions(mode=Mode.REGULAR),
    HuaniaoOptions(mode=Mode.REGULAR, daylight=True),
    HuaniaoOptions(
        mode=Mode.REGULAR, silent_night=(Combo.TIANSHANG_TIANXIA, Combo.QUE_WU_MAN_SHAN)
    ),
    HuaniaoOptions(mode=Mode.FULL),
    HuaniaoOptions(mode=Mode.PRO, continuo=True),
    HuaniaoOptions(mode=Mode.PRO, twin_swallows=True),
    HuaniaoOptions(mode=Mode.PRO, spring_snow=True),
    HuaniaoOptions(mode=Mode.PRO, lofty_tune=True),
    HuaniaoOptions(mode=Mode.PRO, blossoms=True),
    HuaniaoOptions(
        mode=Mode.PRO,
        silent_night=(Combo.FENG_HUA_XUE_YUE,),
        continuo=True,
        twin_swallows=True,
        spring_snow=True,
        lofty_tune=True,
        blossoms=True,
    ),
    HuaniaoOptions(mode=Mode.REGULAR, hand_limit_always=True),
    HuaniaoOptions(mode=Mode.SIMPLE, simple_without_function_cards=True),
    HuaniaoOptions(mode=Mode.BASIC, showdown_tied_only=True, leader_tie=LeaderTie.RANDOM),
    HuaniaoOptions(mode=Mode.PRO, spring_snow=True, spring_snow_once_after=True),
    HuaniaoOptions(mode=Mode.REGULAR, cool_breeze_all_four=True),
    HuaniaoOptions(mode=Mode.BASIC, verse=VerseRule.OPTIONAL),
    HuaniaoOptions(mode=Mode.FULL, verse=VerseRule.OFF),
]

ZIPAI_OPTIONS = [
    ZipaiOptions(
        variant=v,
        dealer_rule=d,
        guo_hu=g,
        scoring=sc,
        dealer=dl,
        own_flip_is_played=own,
        optional_peng_long=claimed,
    )
    for v, d, g, sc, dl, own, claimed in itertools.product(
        Variant, DealerRule, (False, True), ScoringProfile, (0, 1), (False, True), (False, True)
    )
]


class Digest:
    """One sha256 per part, fed with text lines."""

    def __init__(self) -> None:
        self.parts: dict[str, Any] = {}

    def add(self, part: str, text: str) -> None:
        h = self.parts.get(part)
        if h is None:
            h = self.parts[part] = hashlib.sha256()
        h.update(text.encode())
        h.update(b"\n")

    def lines(self) -> list[str]:
        return [f"{part:<22} {h.hexdigest()}" for part, h in sorted(self.parts.items())]


def refusal(error: DomainError) -> str:
    return repr(
        (
            type(error).__name__,
            str(error),
            getattr(error, "reason", None),
            getattr(error, "rule", None),
            getattr(error, "field", None),
        )
    )


def viewers(seat_count: int) -> list[Viewer]:
    return [*(Viewer.of_seat(s) for s in range(seat_count)), SPECTATOR, ARBITER]


def spoilt_commands(rules: GameRules, state: Any, legal: list[Any], rng: random.Random) -> list[Any]:
    """A few commands likely to be refused: a legal command with a field changed at random,
    another seat's command, and (花鸟风月) the justice harness's forbidden plays."""
    out: list[Any] = []
    for command in rng.sample(legal, min(2, len(legal))):
        fields = [f.name for f in dataclasses.fields(command)]
        name = rng.choice(fields)
        value = getattr(command, name)
        if isinstance(value, tuple):
            new: Any = value[:-1] if value and rng.random() < 0.5 else (*value, rng.randrange(110))
        elif isinstance(value, bool):
            new = not value
        elif isinstance(value, int):
            new = value + rng.choice((-1, 1, 7))
        else:
            new = None
        try:
            out.append(dataclasses.replace(command, **{name: new}))
        except (TypeError, ValueError):
            pass
    if rules is HUANIAO:
        from tests.domain.huaniao.justice_support import illegal_candidates

        seat = legal[0].seat if legal else 0
        out += illegal_candidates(state, seat, rng)[:4]
    return out


def play_game(
    digest: Digest,
    rules: GameRules,
    options: Any,
    seats: int,
    seed: int,
    timid: bool,
) -> int:
    """One seeded game, every observable recorded; returns the number of commands."""
    options = rules.check_options(options)
    rng = random.Random(seed)
    probe = random.Random(seed ^ 0x5EED)  # the spoilt commands' own generator
    deck = list(rules.new_deck(options))
    rng.shuffle(deck)
    state = rules.initial_state(options, seats, tuple(deck), rng.getrandbits(63))
    watchers = viewers(seats)
    add = digest.add
    kind = rules.name

    def fold(events: list[Any]) -> None:
        nonlocal state
        for event in events:
            add(f"{kind} events", canonical(encode_tagged(event)))
            for v in watchers:
                red = rules.redact(event, v)
                add(f"{kind} redacted", repr(red))
                add(f"{kind} described", rules.describe(red))
            state = rules.evolve(state, event)
        for v in watchers:
            add(f"{kind} views", repr(rules.view(state, v)))
        add(f"{kind} states", canonical(to_data(state)))
        add(f"{kind} to_act", repr((rules.to_act(state), rules.outcome(state))))

    fold(rules.deal(state))
    commands = 0
    while rules.outcome(state) is None:
        assert commands < 5000, f"{kind} seed={seed}: no end"
        acting = rules.to_act(state)
        for s in range(seats):
            legal = list(rules.legal_commands(state, s))
            add(f"{kind} legal", repr(legal))
            add(f"{kind} labels", repr([rules.label(state, c) for c in legal]))
        seat = rng.choice(acting)
        legal = list(rules.legal_commands(state, seat))
        if timid:
            plays = [c for c in legal if isinstance(c, Play)]
            fewest = min((len(p.cards) for p in plays), default=0)
            legal = [p for p in plays if len(p.cards) == fewest] or legal
        for s in range(seats):  # another seat's command, sent out of turn
            if s not in acting and probe.random() < 0.2:
                mine = list(rules.legal_commands(state, s)) or legal
                cmd = dataclasses.replace(probe.choice(mine), seat=s)
                try:
                    add(f"{kind} refused", repr(rules.decide(state, cmd)))
                except DomainError as error:
                    add(f"{kind} refused", refusal(error))
        if probe.random() < 0.3:
            for cmd in spoilt_commands(rules, state, legal, probe):
                try:
                    add(f"{kind} refused", repr(rules.decide(state, cmd)))
                except DomainError as error:
                    add(f"{kind} refused", refusal(error))
        command = rng.choice(legal)
        commands += 1
        fold(rules.decide(state, command))
    return commands


def huaniao_games(digest: Digest, games: int) -> int:
    moves = 0
    for i in range(games):
        options = HUANIAO_OPTIONS[i % len(HUANIAO_OPTIONS)]
        moves += play_game(digest, HUANIAO, options, (4, 4, 4, 3, 2)[i % 5], 1000 + i, i % 4 == 3)
    return moves


def zipai_games(digest: Digest, games: int) -> int:
    moves = 0
    for i in range(games):
        seats = (2, 3, 4)[i % 3]
        opts = ZIPAI_OPTIONS[i % len(ZIPAI_OPTIONS)]
        opts = dataclasses.replace(opts, dealer=opts.dealer % seats)
        moves += play_game(digest, ZIPAI, opts, seats, 2000 + i, False)
    return moves


def justice_games(digest: Digest, games: int) -> int:
    """花鸟风月 tables with justice: the stored facts, every fact's redactions and the views."""
    from domain import table as tables
    from tests.domain.huaniao.justice_support import play_justice_game

    options = [o for o in HUANIAO_OPTIONS[:12]]
    moves = 0

    def check(table: Any, fact: Any) -> None:
        for v in viewers(table.seat_count):
            red = tables.redact("huaniao", fact, v)
            digest.add("table redacted", repr(red))
            digest.add("table described", tables.describe("huaniao", red))
        if table.game is not None:
            for v in viewers(table.seat_count):
                digest.add("table views", repr(HUANIAO.view(table.game, v)))

    for i in range(games):
        enforcement = list(J.Enforcement)[i % len(J.Enforcement)]
        h = play_justice_game(
            options[i % len(options)],
            (4, 4, 3, 2)[i % 4],
            3000 + i,
            enforcement,
            roundtrip=i % 5 == 0,
            timid=i % 3 == 0,
            check=check,
        )
        for data in h.stored:
            digest.add("table facts", canonical(data))
        digest.add("table state", canonical(tables.encode_table(h.table)))
        moves += len(h.batches)
    return moves


PARTS: dict[str, Callable[[Digest, int], int]] = {
    "huaniao": huaniao_games,
    "zipai": zipai_games,
    "justice": justice_games,
}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--games", type=int, default=300, help="games of each kind (300)")
    p.add_argument("--only", default="", help=f"comma-separated: {','.join(PARTS)}")
    args = p.parse_args(argv)
    only = set(filter(None, args.only.split(","))) or set(PARTS)
    digest = Digest()
    for name, run in PARTS.items():
        if name in only:
            start = time.process_time()
            moves = run(digest, args.games if name != "justice" else max(1, args.games // 3))
            took = time.process_time() - start
            print(f"# {name}: {moves} commands in {took:.1f} s CPU", flush=True)
    for line in digest.lines():
        print(line)


if __name__ == "__main__":
    main()
