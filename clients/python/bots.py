"""Heuristic policies that play to win from a seat's own view only.

A policy is a pure function ``choose(view, moves, rng) -> index``: ``view`` is the
``GameView`` the API gives the seat (its own hand, the other seats' counts, the public
table), ``moves`` is the seat's ``LegalMovesResponse.moves``. Nothing else reaches it,
so a bot can never play on a card it may not see (tests/api/test_bots.py checks this).

* 花鸟风月 (huaniao): the lowest hand wins (part 2, 五（二）: 率先打完手牌的人胜利; at the end
  of the deck 剩余牌面分值小者胜利, 功能牌 5 … 鸟 0). The bot sheds the most points it can,
  goes out whenever it can, aims 月 (draw) at the seat nearest to going out and 风 (discard)
  at the seat furthest from it, and guesses 曲高和寡 by the cards it has not seen.
* 川南字牌 (zipai): 胡 at once, 拢/招 always, 爆 when offered; 吃/碰 only when the 列 it makes
  improves the hand; discards the card that leaves the most 列 and half-列, preferring
  cards the next seat cannot eat (kinds it discarded itself) or that are dead (all copies
  seen).

``steady_choice`` (``--bot steady``, the bots of `tabletop play` and `make demo`) is the
heuristic for a person to play against: it still goes out whenever it can, but a 花鸟风月 play
that does not go out takes at most one card more than the smallest play it is offered, so
it never dumps most of its hand in one 诵 (the rules allow it: p1:65 出牌数多于上家数 sets
no upper bound), which ends games before a person has had a few turns
(docs/rules/huaniao.md, "Short games"). The benchmarks keep the heuristic.

``random_choice`` is the old uniform random policy (``--bot random``), table moves included.

Cases (``honest_vote``): the heuristic and steady bots vote on an open case as an honest
player would. A report of a rule violation was accepted only because the engine re-decided the
accused's move and found exactly that violation (docs/api.md, "What can be reported"), so the
record shows it: they confirm it (the accused bot too). A report of 其他违规 or 出牌超时 is what
the engine cannot check: they reject it. An appeal against a penalty the engine checked is
rejected; one against an unchecked penalty is granted. So a case at a bots' table closes on
their votes in seconds instead of lapsing at the case limit.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from functools import lru_cache

from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.zipai.v1 import zipai_pb2

Policy = Callable[[pb.GameView, Sequence[pb.Move], random.Random], int | None]


def random_choice(view: pb.GameView, moves: Sequence[pb.Move], rng: random.Random) -> int:
    return rng.randrange(len(moves))


def heuristic_choice(view: pb.GameView, moves: Sequence[pb.Move], rng: random.Random) -> int | None:
    """The heuristic of the view's game; when only table moves are offered, the honest vote
    on the open case, or None: it never retracts, reports or appeals (those are for people)."""
    game = view.WhichOneof("game")
    game_moves = [i for i, m in enumerate(moves) if m.WhichOneof("game") == game]
    if not game_moves:
        return honest_vote(view, moves)
    inner = [moves[i] for i in game_moves]
    choose = {"huaniao": huaniao_choice, "zipai": zipai_choice}.get(game or "")
    pick = choose(view, inner, rng) if choose else rng.randrange(len(inner))
    return game_moves[pick]


def steady_choice(view: pb.GameView, moves: Sequence[pb.Move], rng: random.Random) -> int | None:
    """The heuristic, but a 花鸟风月 play that does not go out sheds at most one card more
    than the smallest play offered (川南字牌: the heuristic itself)."""
    game = view.WhichOneof("game")
    game_moves = [i for i, m in enumerate(moves) if m.WhichOneof("game") == game]
    if game != "huaniao" or not game_moves:
        return heuristic_choice(view, moves, rng)
    inner = [moves[i] for i in game_moves]
    g = view.huaniao
    hand = {c.id: c.kind for c in g.seats[g.viewer_seat].cards}
    counts = {s.seat: s.hand_count for s in g.seats}
    sizes = [len(m.huaniao.play.cards) for m in inner if m.huaniao.WhichOneof("kind") == "play"]
    most = min(sizes, default=0) + STEADY_EXTRA_CARDS
    scores = []
    for m in inner:
        value = _huaniao_value(m.huaniao, hand, counts, g.viewer_seat, g)
        shed = len(m.huaniao.play.cards)
        if m.huaniao.WhichOneof("kind") == "play" and most < shed < len(hand):
            value -= 10_000  # a big play that does not go out: only when nothing else is
        scores.append(value)
    return game_moves[_best(scores, rng)]


# What the engine cannot check (domain/table/justice/facts.py UNCHECKED_KINDS): 其他违规, and
# 出牌超时 at a table without a clock. Every other reportable kind was re-decided by the engine.
UNCHECKED_VIOLATIONS = (pb.VIOLATION_KIND_OTHER, pb.VIOLATION_KIND_TIMEOUT)


def honest_vote(view: pb.GameView, moves: Sequence[pb.Move]) -> int | None:
    """The index of the vote an honest player casts on the open case among ``moves``, or
    None when they hold no vote on it: confirm a report whose violation the engine checked,
    reject one it cannot check (其他违规, 出牌超时); grant an appeal against an unchecked
    penalty, reject one against a checked penalty."""
    votes = {
        m.table.cast_vote.uphold: i
        for i, m in enumerate(moves)
        if m.WhichOneof("game") == "table" and m.table.WhichOneof("kind") == "cast_vote"
    }
    if not votes:
        return None
    case_id = moves[next(iter(votes.values()))].table.cast_vote.case_id
    cases = {c.id: c for c in view.cases}
    case = cases.get(case_id)
    if case is None:
        return None  # the view does not show the case: vote nothing rather than guess
    if case.is_appeal:
        appealed = cases.get(case.evidence[0]) if case.evidence else None
        violation = appealed.violation if appealed is not None else case.violation
        uphold = violation in UNCHECKED_VIOLATIONS
    else:
        uphold = case.violation not in UNCHECKED_VIOLATIONS
    return votes.get(uphold)


STEADY_EXTRA_CARDS = 1  # cards beyond the smallest play a steady bot may shed in one play

POLICIES: dict[str, Policy] = {
    "heuristic": heuristic_choice,
    "steady": steady_choice,
    "random": random_choice,
}


def _best(scores: Sequence[float], rng: random.Random) -> int:
    """The index of the best score; ties broken at random (so the bot is not predictable)."""
    top = max(scores)
    return rng.choice([i for i, s in enumerate(scores) if s == top])


# --- 花鸟风月 ---------------------------------------------------------------------------

# 五（二）牌类分值: 功能牌 5, 万 4, 千 3, 百 2, 十 1, 鸟 0 (by the proto's CardKind numbers).
HUANIAO_POINTS = {1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 5, 8: 5}
HUANIAO_CLASS = {1: 1, 2: 2, 3: 2, 4: 2, 5: 2, 6: 3, 7: 3, 8: 3}  # CardKind -> CardClass
HUANIAO_DECK = {1: 54, 2: 9, 3: 9, 4: 9, 5: 9, 6: 6, 7: 6, 8: 6}
WIND, MOON = 7, 8


def huaniao_choice(view: pb.GameView, moves: Sequence[pb.Move], rng: random.Random) -> int:
    g = view.huaniao
    me = g.viewer_seat
    hand = {c.id: c.kind for c in g.seats[me].cards}
    counts = {s.seat: s.hand_count for s in g.seats}
    scores = [_huaniao_value(m.huaniao, hand, counts, me, g) for m in moves]
    return _best(scores, rng)


def _huaniao_value(
    cmd: huaniao_pb2.Command,
    hand: dict[int, int],
    counts: dict[int, int],
    me: int,
    g: huaniao_pb2.View,
) -> float:
    kind = cmd.WhichOneof("kind")
    if kind == "play":
        play = cmd.play
        shed = [hand.get(c, 1) for c in play.cards]
        value = 3.0 * sum(HUANIAO_POINTS[k] for k in shed) + 2.0 * len(shed)
        if len(shed) == len(hand):
            value += 1000  # 率先打完手牌的人胜利
        if play.HasField("target"):
            others = {s: n for s, n in counts.items() if s != me}
            if any(hand.get(c) == MOON for c in play.cards):
                value += 1.0 if counts[play.target] == min(others.values()) else 0.0
            else:  # 风 makes its target discard: aim it where it helps least
                value += 1.0 if counts[play.target] == max(others.values()) else 0.0
        return value
    if kind == "discard":
        return 3.0 * sum(HUANIAO_POINTS[hand.get(c, 1)] for c in cmd.discard.cards)
    if kind == "guess":
        return _guess_odds(cmd.guess.card_class, hand, g)
    return 0.0  # 栖, 换季: the only move when offered


def _guess_odds(card_class: int, hand: dict[int, int], g: huaniao_pb2.View) -> float:
    """How many unseen cards are of this class (曲高和寡: a right guess makes the target draw)."""
    seen: list[int] = list(hand.values())
    seen += [c.kind for c in g.played] + [c.kind for c in g.discarded]
    unseen = dict(HUANIAO_DECK)
    for k in seen:
        unseen[k] = unseen.get(k, 0) - 1
    return float(sum(n for k, n in unseen.items() if HUANIAO_CLASS[k] == card_class))


# --- 川南字牌 ---------------------------------------------------------------------------

KINDS = 20  # 一…十 are kinds 0-9, 壹…拾 kinds 10-19


def zipai_kind(card: zipai_pb2.Card) -> int:
    return (10 if card.big else 0) + card.rank - 1


@lru_cache(maxsize=200_000)
def structure(counts: tuple[int, ...]) -> int:
    """How close a hand is to 胡: 3 per complete 列 (run, 二七十, 大大小/小小大, 坎), 1 per
    half-列 (a pair or two cards of a run), over the best grouping."""
    k = next((i for i, n in enumerate(counts) if n), None)
    if k is None:
        return 0
    c = list(counts)
    best = -1

    def take(kinds: tuple[int, ...], gain: int) -> None:
        nonlocal best
        for x in kinds:
            c[x] -= 1
        if all(n >= 0 for n in c):
            best = max(best, gain + structure(tuple(c)))
        for x in kinds:
            c[x] += 1

    rank, base = k % 10, k - k % 10
    other = k + 10 if k < 10 else k - 10
    take((k, k, k), 3)
    if rank <= 7:
        take((k, k + 1, k + 2), 3)
    if rank == 1:  # 二七十 of one size
        take((k, base + 6, base + 9), 3)
    take((k, k, other), 3)
    take((k, other, other), 3)
    take((k, k), 1)
    take((k, other), 1)
    if rank <= 8:
        take((k, k + 1), 1)
    if rank <= 7:
        take((k, k + 2), 1)
    if rank == 1:
        take((k, base + 6), 1)
        take((k, base + 9), 1)
    take((k,), 0)  # left single: a discard candidate
    return best


def _counts(kinds: Sequence[int]) -> list[int]:
    out = [0] * KINDS
    for k in kinds:
        out[k] += 1
    return out


def zipai_choice(view: pb.GameView, moves: Sequence[pb.Move], rng: random.Random) -> int:
    g = view.zipai
    me = g.viewer_seat
    hand = {c.id: zipai_kind(c) for c in g.seats[me].hand}
    counts = _counts(list(hand.values()))
    kinds = [m.zipai.WhichOneof("kind") for m in moves]
    for wanted in ("hu", "long", "zhao", "declare_bao"):
        if wanted in kinds:  # 胡 > 拢 > 招 (the seed's priority), and 爆 when offered
            return kinds.index(wanted)
    if all(k == "discard" for k in kinds):
        feed = _feed_risk(g, me)
        scores = [
            _after_discard(counts, hand[m.zipai.discard.card]) - feed[hand[m.zipai.discard.card]]
            for m in moves
        ]
        return _best(scores, rng)
    scores = [_claim_value(m.zipai, kind, counts, g) for m, kind in zip(moves, kinds, strict=True)]
    return _best(scores, rng)


def _after_discard(counts: list[int], kind: int) -> float:
    c = list(counts)
    c[kind] -= 1
    return float(structure(tuple(c)))


def _best_discard(counts: list[int]) -> float:
    return max((_after_discard(counts, k) for k in range(KINDS) if counts[k]), default=0.0)


def _claim_value(cmd: zipai_pb2.Command, kind: str, counts: list[int], g: zipai_pb2.View) -> float:
    """吃/碰 against passing: the 列 it lays down plus the best hand left after the discard
    that follows, against the hand as it stands."""
    if kind in ("pass_claim", "decline_bao"):
        return float(structure(tuple(counts)))
    shown = zipai_kind(g.shown) if g.HasField("shown") else None
    c = list(counts)
    if kind == "chi":
        used = list(cmd.chi.cards) + [x for b in cmd.chi.bi for x in b.cards]
        hand = {x.id: zipai_kind(x) for x in g.seats[g.viewer_seat].hand}
        for x in used:
            c[hand[x]] -= 1
        laid = 1 + len(cmd.chi.bi)
    elif kind == "peng" and shown is not None:
        c[shown] -= 2
        laid = 1
    else:
        return float(structure(tuple(counts)))
    return 3.0 * laid + _best_discard(c) + 0.5  # a laid 列 is safe: prefer it on a tie


def _feed_risk(g: zipai_pb2.View, me: int) -> list[float]:
    """A small penalty per kind for discarding what the next seat might eat or pong."""
    seats = [s for s in g.seats if s.active]
    order = [s.seat for s in seats]
    nxt = order[(order.index(me) + 1) % len(order)] if me in order else me
    played_by_next = set(next((s.played for s in seats if s.seat == nxt), ()))
    seen = [0] * KINDS
    for s in g.seats:
        for card in list(s.discards) + [x for m in s.melds for x in m.cards]:
            seen[zipai_kind(card)] += 1
    for card in g.seats[me].hand:
        seen[zipai_kind(card)] += 1
    risk = [0.0] * KINDS
    for k in range(KINDS):
        if k in played_by_next or seen[k] >= 4:
            continue  # the next seat may never eat a kind it discarded; a dead kind is safe
        risk[k] = 0.4 + 0.1 * (4 - seen[k])
    return risk
