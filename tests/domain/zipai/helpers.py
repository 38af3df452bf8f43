"""Builders for zipai given/when/then tests: cards by name, prepared deals, mid-hand tables."""

from __future__ import annotations

import dataclasses
from typing import Any

from domain.zipai import RULES, Options
from domain.zipai import rules as R
from domain.zipai.cards import BIG_NAMES, SMALL_NAMES, kind_of
from domain.zipai.commands import Discard
from domain.zipai.melds import GroupKind, Meld, MeldKind, classify
from domain.zipai.state import Phase, SeatState, State

NAME_TO_KIND = {n: i for i, n in enumerate(SMALL_NAMES)} | {
    n: 10 + i for i, n in enumerate(BIG_NAMES)
}


def kinds(text: str) -> list[int]:
    """'三四五 叁' -> kinds (spaces ignored)."""
    return [NAME_TO_KIND[ch] for ch in text if not ch.isspace()]


class Ids:
    """Hands out distinct card ids by face, so a test can name cards by 一…拾."""

    def __init__(self) -> None:
        self.used: set[int] = set()

    def take(self, text: str) -> tuple[int, ...]:
        out = []
        for k in kinds(text):
            free = [i for i in range(k * 4, k * 4 + 4) if i not in self.used]
            assert free, f"no fifth card of kind {k}"
            self.used.add(free[0])
            out.append(free[0])
        return tuple(out)

    def rest(self) -> tuple[int, ...]:
        return tuple(i for i in range(80) if i not in self.used)


def ids_of(state: State, seat: int, text: str) -> tuple[int, ...]:
    """The ids of the named cards in ``seat``'s hand (distinct, lowest first)."""
    hand = list(state.seats[seat].hand)
    out = []
    for k in kinds(text):
        pick = next(i for i in hand if kind_of(i) == k)
        hand.remove(pick)
        out.append(pick)
    return tuple(out)


def prepared_deck(
    hands: dict[int, str], stock: str = "", *, seat_count: int = 3, dealer: int = 0
) -> tuple[int, ...]:
    """A deck dealing exactly these 20-card hands, then ``stock`` on top of the stock.

    Seats not given get cards from what is left (after the stock prefix is reserved).
    """
    ids = Ids()
    out = R.sitting_out(seat_count, dealer)
    order = [
        (dealer + i) % seat_count for i in range(seat_count) if (dealer + i) % seat_count != out
    ]
    given = {s: ids.take(t) for s, t in hands.items()}
    for s, cs in given.items():
        assert len(cs) == 20, f"seat {s} needs 20 cards, got {len(cs)}"
    top = ids.take(stock)
    rest = list(ids.rest())
    deck: list[int] = []
    for s in order:
        if s in given:
            deck.extend(given[s])
        else:
            deck.extend(rest[:20])
            rest = rest[20:]
    return tuple(deck) + top + tuple(rest)


def dealt(
    hands: dict[int, str],
    stock: str = "",
    *,
    seat_count: int = 3,
    options: Options | None = None,
) -> tuple[State, list[Any]]:
    """Deal a prepared deck; return the state after the deal and the deal's facts."""
    opts = options or Options()
    deck = prepared_deck(hands, stock, seat_count=seat_count, dealer=opts.dealer)
    state = RULES.initial_state(opts, seat_count, deck, 7)
    events = RULES.deal(state)
    return fold(state, events), events


def fold(state: State, events: list[Any]) -> State:
    for e in events:
        state = RULES.evolve(state, e)
    return state


def play(state: State, command: Any) -> tuple[State, list[Any]]:
    events = RULES.decide(state, command)
    return fold(state, events), events


def table(
    hands: dict[int, str],
    stock: str = "",
    *,
    seat_count: int = 3,
    dealer: int = 0,
    turn: int = 0,
    options: Options | None = None,
    melds: dict[int, list[tuple[MeldKind, str]]] | None = None,
    bao: tuple[int, ...] = (),
    full_stock: bool = True,
    pad: bool = True,
    **seat_fields: dict[int, Any],
) -> State:
    """A hand in play: ``turn`` must discard; hands and stock top as named.

    The unnamed cards fill the rest of the stock (unless ``full_stock`` is False, when the
    stock is exactly ``stock``), so all 80 cards are accounted for.
    ``seat_fields`` sets SeatState fields per seat, e.g. ``guo_zhang={1: (2,)}``.
    With ``pad`` each named hand gets 0-胡 black 列 on the table (``FILLER``) so that it makes
    the 7 列 of a win (胡牌时必须是7列, zp:60) -- a test names only the cards it is about.
    """
    opts = dataclasses.replace(options or Options(), dealer=dealer)
    ids = Ids()
    seats = []
    out = R.sitting_out(seat_count, dealer)
    hand_ids = {s: ids.take(t) for s, t in hands.items()}
    meld_objs: dict[int, list[Meld]] = {}
    for s, ms in (melds or {}).items():
        meld_objs[s] = []
        for kind, text in ms:
            cs = ids.take(text)
            gk = GroupKind.FOUR if len(cs) == 4 else classify(cs)
            assert gk is not None
            meld_objs[s].append(Meld(kind, gk, cs))
    top = ids.take(stock)
    if pad:
        for s, cs in hand_ids.items():
            meld_objs.setdefault(s, []).extend(_filler(ids, cs, meld_objs.get(s, [])))
    for s in range(seat_count):
        extra = {k: v[s] for k, v in seat_fields.items() if s in v}
        seats.append(
            SeatState(
                seat=s,
                active=s != out,
                hand=tuple(sorted(hand_ids.get(s, ()))),
                melds=tuple(meld_objs.get(s, ())),
                bao=s in bao,
                **extra,
            )
        )
    return State(
        options=opts,
        seat_count=seat_count,
        seed=7,
        deck=tuple(range(80)),
        stock=top + ids.rest() if full_stock else top,
        dealer=dealer,
        seats=tuple(seats),
        phase=Phase.DISCARD,
        turn=turn,
        bao_round=2,
        dealer_card=0,
    )


# 0-胡 列 to fill a test hand up to 7 列: black ones first (no change to 红/黑 fan), then any
# run not from 一/壹 and any 大大小/小小大
_BLACK = (
    *("叁肆伍", "肆伍陆", "捌捌八", "玖玖九", "叁叁三", "肆肆四", "伍伍五", "陆陆六"),
    *("三四五", "四五六", "八八捌", "九九玖", "三三叁", "四四肆", "五五伍", "六六陆"),
)
_ANY = (
    *(SMALL_NAMES[r : r + 3] for r in range(1, 8)),
    *(BIG_NAMES[r : r + 3] for r in range(1, 8)),
    *(BIG_NAMES[r] * 2 + SMALL_NAMES[r] for r in range(10)),
    *(SMALL_NAMES[r] * 2 + BIG_NAMES[r] for r in range(10)),
)
FILLER = (*_BLACK, *_ANY)


def _filler(ids: Ids, hand: tuple[int, ...], melds: list[Meld]) -> list[Meld]:
    """The 列 that make ``hand`` (waiting for one card, or complete) 7 列 with its melds,
    without giving the seat four of a face (归) or taking a card a test named."""
    n = len(hand) + (1 if len(hand) % 3 == 1 else 0)  # a waiting 3k+1 hand wins with one more
    units = n // 3 + (1 if n % 3 == 2 else 0)
    need = 7 - units - len(melds)
    counts = [0] * 20
    for c in (*hand, *(c for m in melds for c in m.cards)):
        counts[kind_of(c)] += 1
    out: list[Meld] = []
    for text in FILLER * 3:
        if len(out) >= need:
            break
        faces = kinds(text)
        free = {k: [i for i in range(k * 4, k * 4 + 4) if i not in ids.used] for k in faces}
        if any(counts[k] + faces.count(k) > 3 or len(free[k]) < faces.count(k) for k in faces):
            continue
        cs = ids.take(text)
        for k in faces:
            counts[k] += 1
        gk = classify(cs)
        assert gk is not None
        out.append(Meld(MeldKind.CHI, gk, cs))
    assert len(out) >= need, f"no filler for {hand}"
    return out


def discard(state: State, seat: int, name: str) -> tuple[State, list[Any]]:
    (cid,) = ids_of(state, seat, name)
    return play(state, Discard(seat, cid))


def types_of(events: list[Any]) -> list[str]:
    return [type(e).__name__ for e in events]


def first(events: list[Any], cls: type) -> Any:
    return next(e for e in events if isinstance(e, cls))
