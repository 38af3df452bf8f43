"""decide / evolve / legal commands of 川南字牌 (one hand).

The hand runs as a small state machine (``state.Phase``). ``decide`` validates a command,
returns its facts, then keeps adding the facts that follow automatically (拢 at the deal, 补张,
flips, claim windows opening and resolving, 荒庄) until some seat must act or the hand is over.
Every automatic step is a pure function of the state, so replaying the facts rebuilds it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from domain.engine import (
    MadeWhenRead,
    MalformedCommand,
    NotYourTurn,
    RuleViolation,
    instance,
    remembers_folds,
    replaced,
)
from domain.zipai.cards import CARD_COUNT, COPIES, card, cards, kind_of
from domain.zipai.claims import (
    check_chi,
    chi_choices,
    chi_choices_of_kind,
    choose_seat,
    claim_of,
)
from domain.zipai.commands import (
    BiGroup,
    Chi,
    DeclareBao,
    DeclineBao,
    Discard,
    Hu,
    Long,
    PassClaim,
    Peng,
    Zhao,
)
from domain.zipai.events import (
    BaoDeclared,
    BaoDeclined,
    CardDiscarded,
    CardDrawn,
    CardFlipped,
    Chied,
    Claim,
    ClaimKind,
    ClaimMade,
    Dealt,
    DrawReason,
    HandStarted,
    HuangZhuang,
    Hued,
    LongLaidDown,
    NobodyClaimed,
    Penged,
    Prompted,
    PromptKind,
    WinKind,
    Zhaoed,
)
from domain.zipai.hu import (
    SAN_LONG_UNITS,
    WIN_UNITS,
    best_grouping,
    counts_of,
    is_ready,
    is_winning,
    may_complete,
)
from domain.zipai.melds import Group, GroupKind, Meld, MeldKind, classify
from domain.zipai.options import DealerRule, Options, Variant
from domain.zipai.scoring import MIN_HU, enough_hu, fan_of, hand_points, meld_points, settle
from domain.zipai.state import PendingClaim, Phase, SeatState, State

HAND_SIZE = 20

# The phases, bound once for the functions that run on every step (next_auto, to_act,
# legal_commands, decide and the commonest folds). Why: on Python 3.11 reading a member
# through its Enum class goes through the metaclass's ``__getattr__`` hook (~0.1 µs, ten
# times a plain global), and a move read some fifty: 4.5% of 川南字牌's instructions (P4).
_OPENING, _PROMPT_HU, _BAO, _DISCARD = Phase.OPENING, Phase.PROMPT_HU, Phase.BAO, Phase.DISCARD
_SHOWN, _CLAIM, _FLIP, _OVER = Phase.SHOWN, Phase.CLAIM, Phase.FLIP, Phase.OVER
_ASKING = (_CLAIM, _BAO, _PROMPT_HU)  # the phases where ``pending`` seats must answer
_PASS, _CLAIM_PROMPT = ClaimKind.PASS, PromptKind.CLAIM


# ---------------------------------------------------------------------------- seats


def active_seats(state: State) -> tuple[int, ...]:
    return tuple(s.seat for s in state.seats if s.active)


def next_active(state: State, seat: int) -> int:
    """The 下家 of ``seat`` among the seats dealt in."""
    return _layout(state)[1][seat]


def order_from(state: State, seat: int) -> tuple[int, ...]:
    """Active seats in turn order starting at ``seat``."""
    return _layout(state)[0][seat]


_Layout = tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]
_LAST_LAYOUT: tuple[tuple[SeatState, ...], _Layout] | None = None


def _layout(state: State) -> _Layout:
    """``_turn_tables`` of the state's seats, remembered for the last seats tuple asked
    about (why: a claim window asks a dozen times about one state's seats, and reading
    every seat's ``active`` for each was a twentieth of the engine's profile). Checked by
    identity, and the entry keeps that tuple alive, so its ``id`` is never reused."""
    global _LAST_LAYOUT
    seats = state.seats
    last = _LAST_LAYOUT
    if last is not None and last[0] is seats:
        return last[1]
    layout = _turn_tables(state.seat_count, tuple([s.active for s in seats]))
    _LAST_LAYOUT = (seats, layout)
    return layout


@lru_cache(maxsize=64)
def _turn_tables(
    n: int, active: tuple[bool, ...]
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """Per seat: the active seats in turn order from it, and its 下家 (itself if alone).

    Built once per table layout (why: turn order is asked about a dozen times a move, and
    walking the seats each time was a tenth of the engine's profile)."""
    orders = tuple(
        tuple((seat + i) % n for i in range(n) if active[(seat + i) % n]) for seat in range(n)
    )
    nexts = tuple(
        next(((seat + step) % n for step in range(1, n + 1) if active[(seat + step) % n]), seat)
        for seat in range(n)
    )
    return orders, nexts


def precedence(state: State) -> tuple[int, ...]:
    """Claim precedence on the shown card: its flipper first (自摸), then 上家 onwards."""
    order = order_from(state, state.shown_by)
    return order if state.shown_flipped else order[1:]


def sitting_out(seat_count: int, dealer: int) -> int | None:
    """With four players the dealer's opposite seat sits the hand out (80 = 4 × 20)."""
    return (dealer + 2) % 4 if seat_count == 4 else None


# ---------------------------------------------------------------------------- helpers


def _replace_seat(state: State, seat: SeatState, **changes: Any) -> State:
    """``state`` with ``seat``'s record replaced and ``changes`` made, in one copy (each copy
    of the state is a dictionary of 24 fields: one per fact, not one per field touched)."""
    seats = list(state.seats)
    seats[seat.seat] = seat
    return replaced(state, seats=tuple(seats), **changes)


def _without(hand: tuple[int, ...], ids: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    gone = set(ids)
    return tuple(i for i in hand if i not in gone)


def _add_kind(kinds: tuple[int, ...], k: int) -> tuple[int, ...]:
    return kinds if k in kinds else tuple(sorted((*kinds, k)))


def _ids_of_kind(hand: tuple[int, ...], k: int) -> tuple[int, ...]:
    return tuple(i for i in hand if kind_of(i) == k)


def _kan_kinds(hand: tuple[int, ...]) -> set[int]:
    c = counts_of(hand)
    return {k for k, n in enumerate(c) if n >= 3}


def _win_kind(state: State, seat: int) -> WinKind:
    if state.shown_flipped:
        return WinKind.ZI_MO if seat == state.shown_by else WinKind.FAN_PAI
    return WinKind.DIAN_PAO


def _all_cards(seat: SeatState, extra: int | None) -> list[int]:
    out = list(seat.hand)
    for m in seat.melds:
        out.extend(m.cards)
    if extra is not None:
        out.append(extra)
    return out


def win_fan(
    state: State,
    seat: int,
    extra: int | None,
    win_kind: WinKind,
    hand: tuple[int, ...] | None = None,
) -> int:
    """Fan of ``seat`` winning with ``hand`` (default: its hand) plus the card ``extra``."""
    s = state.seats[seat]
    if hand is not None:
        s = replaced(s, hand=hand)
    return fan_of(_all_cards(s, extra), win_kind, s.bao)


def win_points(
    state: State, seat: int, hand: tuple[int, ...], extra: int | None, wk: WinKind
) -> int:
    """胡 (泸州 table) of ``seat`` winning with ``hand`` plus ``extra``: its melds and the
    hand's best grouping."""
    s = state.seats[seat]
    grouping = best_grouping(hand, extra)
    assert grouping is not None, "胡 on an incomplete hand"
    ek = None if extra is None else kind_of(extra)
    count = 0 if ek is None else counts_of(hand)[ek]
    return sum(meld_points(m) for m in s.melds) + hand_points(
        grouping, ek, count, wk is WinKind.ZI_MO
    )


def _hu_allowed(
    state: State,
    seat: int,
    hand: tuple[int, ...],
    extra: int | None,
    wk: WinKind,
    units: int = WIN_UNITS,
) -> bool:
    """May the seat 胡 with ``hand`` + ``extra``: a complete hand of 7 列 with its melds, the
    scoring profile's 胡息 minimum met, and (过胡) more fan than a 胡 it passed up."""
    s = state.seats[seat]
    if not is_winning(hand, extra, len(s.melds), units):
        return False
    o = state.options
    if not enough_hu(o.scoring, win_points(state, seat, hand, extra, wk)):
        return False
    if o.guo_hu and s.guo_hu_fan is not None:
        return win_fan(state, seat, extra, wk, hand) > s.guo_hu_fan
    return True


# ---------------------------------------------------------------------------- claim options


_Answer = tuple[tuple[Any, ...], ClaimKind | None, tuple[Any, ...]]  # options, auto, offered
_ANSWERS: dict[tuple[Any, ...], tuple[SeatState, Options, _Answer]] = {}


def _answer(state: State, seat: int) -> _Answer:
    """``seat``'s claim options on the shown card, its automatic claim and what it is offered.

    Why a memo: one claim window asks for these a dozen times (who is asked, the seat's legal
    commands, its claim, the resolution, each on a new state object). The key is everything
    ``_claim_options`` and ``_auto_claim`` read: the seat's own (immutable) record, the
    options object, the shown card's kind (every answer depends on the card only through its
    face), whether it was flipped, and who showed it (the one layout fact read, whether the
    seat is the shower's 下家, is fixed for the hand a seat record belongs to). Entries keep
    the seat record and the options alive and are checked by identity, so a reused ``id``
    never answers for another seat.
    """
    s = state.seats[seat]
    o = state.options
    shown = state.shown
    by = state.shown_by
    key = (
        id(s),
        id(o),
        seat,
        None if shown is None else kind_of(shown),
        state.shown_flipped,
        by,
    )
    hit = _ANSWERS.get(key)
    if hit is not None and hit[0] is s and hit[1] is o:
        return hit[2]
    opts = tuple(_claim_options(state, seat))
    auto = _auto_claim(state, seat, opts)
    answer = (opts, auto, opts if auto is None else tuple(x for x in opts if isinstance(x, Hu)))
    if len(_ANSWERS) >= 1024:
        _ANSWERS.clear()
    _ANSWERS[key] = (s, o, answer)
    return answer


def claim_options(state: State, seat: int) -> list[Any]:
    """What ``seat`` may claim on the shown card (PassClaim not included)."""
    return list(_answer(state, seat)[0])


def _claim_options(state: State, seat: int) -> list[Any]:
    if state.shown is None or not state.seats[seat].active:
        return []
    c = state.shown
    by = state.shown_by
    own = seat == by
    if own and not state.shown_flipped:
        return []  # nobody claims their own discard
    s = state.seats[seat]
    k = kind_of(c)
    counts = counts_of(s.hand)
    opts: list[Any] = []
    if k in may_complete(counts) and _hu_allowed(state, seat, s.hand, c, _win_kind(state, seat)):
        opts.append(Hu(seat))  # a 胡 may always be passed (zp:54: 不勾选则没有过胡限制)
    n = counts[k]
    if n == 3:
        rest = _without(s.hand, _ids_of_kind(s.hand, k))
        if s.bao:
            if is_ready(rest, len(s.melds) + 1):  # 爆: 招 freely while the hand stays ready
                opts.append(Zhao(seat))
        elif own:
            opts.append(Long(seat))  # one's own flip onto a 坎 before 爆 is a 拢
        else:
            opts.append(Zhao(seat))
    if not s.bao:
        if n == 2 and len(s.hand) >= 3:
            opts.append(Peng(seat))
        if (own or seat == next_active(state, by)) and k not in s.guo_zhang and k not in s.played:
            for ch in chi_choices(s.hand, c):
                opts.append(Chi(seat, ch.cards, tuple(BiGroup(g) for g in ch.bi)))
    return opts


def auto_claim(state: State, seat: int) -> ClaimKind | None:
    """The claim ``seat`` makes on the shown card without being asked: 碰牌自动碰下去 (zp:39)
    and, on its own flip onto a 坎, 当做拢处理 / 当做招处理 (zp:15). None with the table option
    ``optional_peng_long`` (they are then ordinary claims)."""
    return _answer(state, seat)[1]


def _auto_claim(state: State, seat: int, opts: tuple[Any, ...]) -> ClaimKind | None:
    if state.options.optional_peng_long:
        return None
    own_flip = state.shown_flipped and seat == state.shown_by
    for o in opts:
        if isinstance(o, Long) or (isinstance(o, Zhao) and own_flip):
            return ClaimKind.LONG if isinstance(o, Long) else ClaimKind.ZHAO
        if isinstance(o, Peng):
            return ClaimKind.PENG
    return None


def offered(state: State, seat: int) -> list[Any]:
    """The claims ``seat`` is asked to choose from: with an automatic claim only a 胡 (which
    outranks it; passing leaves the automatic claim standing), else everything it may claim.
    Each depends on the seat's own cards only, so being asked reveals nothing of others."""
    return list(_answer(state, seat)[2])


_Window = list[tuple[int, _Answer]]


_NOTHING: _Answer = ((), None, ())  # no claim: nothing to offer, nothing automatic


def _window(state: State) -> _Window:
    """Every seat's answer on the shown card, in precedence order.

    A seat that cannot claim the card (most seats on most cards) answers ``_NOTHING`` after
    a few look-ups, without the memo of ``_answer`` (why: every shown card asks every seat,
    a seat's record changes with nearly every card, so nearly every question missed the
    memo and went through all of ``_claim_options`` to find nothing)."""
    assert state.shown is not None
    k = state.shown // COPIES  # kind_of, inline: once per seat per shown card
    return [
        (seat, _answer(state, seat) if _may_claim(state, seat, k) else _NOTHING)
        for seat in precedence(state)
    ]


def _may_claim(state: State, seat: int, k: int) -> bool:
    """False only when ``_claim_options`` finds nothing for ``seat`` on a card of kind ``k``
    (a seat of the window: not the one who discarded it): no pair or 坎 of it, no 胡 it
    might complete, and no 吃."""
    s = state.seats[seat]
    if not s.active:
        return False
    counts = counts_of(s.hand)
    if counts[k] >= 2 or k in may_complete(counts):
        return True  # 碰, 招, 拢 or 胡 may be open: ask ``_claim_options``
    by = state.shown_by
    return (
        not s.bao
        and (seat == by or seat == next_active(state, by))
        and k not in s.guo_zhang
        and k not in s.played
        and bool(chi_choices_of_kind(s.hand, k))
    )


def claim_seats(state: State, window: _Window | None = None) -> tuple[int, ...]:
    """Seats asked to answer the shown card, in precedence order."""
    return tuple([seat for seat, answer in window or _window(state) if answer[2]])


# ---------------------------------------------------------------------------- queries


def to_act(state: State) -> tuple[int, ...]:
    if state.phase is _DISCARD:
        return (state.turn,)
    if state.phase in _ASKING:
        return state.pending
    return ()


def discardable(seat: SeatState) -> tuple[int, ...]:
    """Hand cards the seat may play: a 坎 is greyed out unless nothing else is left."""
    return _discardable(seat.hand)


@lru_cache(maxsize=1 << 12)
def _discardable(hand: tuple[int, ...]) -> tuple[int, ...]:
    """``discardable`` of a hand, memoized: asked for the seat's legal commands, then again
    when it discards."""
    kans = _kan_kinds(hand)
    free = tuple(i for i in hand if kind_of(i) not in kans)
    return free or hand


def _discards(seat: int, hand: tuple[int, ...]) -> Sequence[Discard]:
    """``[Discard(seat, i) for i in _discardable(hand)]``, each made when read
    (``domain.engine.MadeWhenRead``: a seat is offered every card of its hand and plays
    one) and without the frozen dataclass's ``__init__`` (``domain.engine.instance``)."""
    ids = _discardable(hand)
    return MadeWhenRead(len(ids), lambda i: instance(Discard, {"seat": seat, "card": ids[i]}))


def legal_commands(state: State, seat: int) -> Sequence[Any]:
    if seat not in to_act(state):
        return []
    if state.phase is _DISCARD:
        return _discards(seat, state.seats[seat].hand)
    if state.phase is _BAO:
        return [DeclareBao(seat), DeclineBao(seat)]
    if state.phase is _PROMPT_HU:
        second: Any = Long(seat) if state.prompt is PromptKind.HU_OR_LONG else PassClaim(seat)
        return [Hu(seat), second]
    if state.phase is _CLAIM:
        return [*_answer(state, seat)[2], PassClaim(seat)]
    return []


# ---------------------------------------------------------------------------- evolve


@remembers_folds
def evolve(state: State, event: Any) -> State:
    handler = _EVOLVERS.get(type(event))
    if handler is None:
        raise TypeError(f"not a zipai event: {event!r}")
    return handler(state, event)


def _ev_hand_started(state: State, e: HandStarted) -> State:
    seats = tuple(SeatState(seat=i, active=i in e.seats) for i in range(e.seat_count))
    return replaced(state, dealer=e.dealer, seats=seats, phase=Phase.OPENING)


def _ev_dealt(state: State, e: Dealt) -> State:
    ids = tuple(c.id for c in e.cards)
    s = state.seats[e.seat]
    gone = set(ids)
    stock = tuple(i for i in state.stock if i not in gone)
    return _replace_seat(state, replaced(s, hand=tuple(sorted(s.hand + ids))), stock=stock)


def _ev_long(state: State, e: LongLaidDown) -> State:
    s = state.seats[e.seat]
    hidden = tuple(c.id for c in e.hidden)
    if e.taken:
        hand = _without(s.hand, hidden)
        meld = Meld(MeldKind.LONG, GroupKind.FOUR, (*hidden, e.face_up.id), e.face_up.id, e.seat)
    else:
        hand = _without(s.hand, (*hidden, e.face_up.id))
        meld = Meld(MeldKind.LONG, GroupKind.FOUR, (*hidden, e.face_up.id))
    s = replaced(s, hand=hand, melds=(*s.melds, meld))
    if not e.taken:
        return _replace_seat(state, s, phase=Phase.OPENING, prompt=None, pending=())
    return _after_take(state, s, e.discard_required)


def _after_take(state: State, s: SeatState, discard: bool) -> State:
    """The shown card went into the 列 of seat ``s`` (its new record): it discards, or its 下家
    flips (八块 / 爆)."""
    turn = s.seat if discard else next_active(state, s.seat)
    return _window_closed(state, s, _DISCARD if discard else _FLIP, turn)


def _window_closed(state: State, s: SeatState, phase: Phase, turn: int) -> State:
    """The shown card's claim window is over: seat ``s`` (its new record) and who acts next."""
    return _replace_seat(
        state,
        s,
        shown=None,
        claims=(),
        pending=(),
        prompt=None,
        bao_round=_BAO_DONE,
        phase=phase,
        turn=turn,
    )


def _ev_drawn(state: State, e: CardDrawn) -> State:
    cid = e.card.id if e.card is not None else state.stock[0]
    s = state.seats[e.seat]
    hand = tuple(sorted((*s.hand, cid)))
    if e.reason is DrawReason.REPLACEMENT:
        s = replaced(s, hand=hand, replacements=s.replacements + 1)
    else:
        s = replaced(s, hand=hand)
    stock = tuple(i for i in state.stock if i != cid)
    if e.reason is DrawReason.DEALER_21ST:  # the non-dealers' 爆 offers are over
        return _replace_seat(
            state, s, stock=stock, dealer_card=cid, bao_round=max(state.bao_round, 1)
        )
    return _replace_seat(state, s, stock=stock)


def _resume_phase(state: State) -> Phase:
    return Phase.OPENING if state.shown is None else Phase.SHOWN


def _ev_prompted(state: State, e: Prompted) -> State:
    p = e.prompt
    if p is PromptKind.CLAIM:
        return replaced(
            state, phase=_CLAIM, prompt=p, pending=e.seats, claims=(), bao_round=_BAO_DONE
        )
    if p is PromptKind.BAO:
        state = replaced(state, bao_round=state.bao_round + 1)
        if not e.seats:  # (histories recorded before empty prompts were dropped)
            return replaced(state, phase=_resume_phase(state), prompt=None, pending=())
        return replaced(state, phase=Phase.BAO, prompt=p, pending=e.seats)
    if p is PromptKind.DISCARD:
        return replaced(state, phase=Phase.DISCARD, prompt=None, turn=e.seats[0])
    if p is PromptKind.HU_OR_PASS:
        s = state.seats[e.seats[0]]
        state = _replace_seat(state, replaced(s, san_long_offered=True))
    else:
        state = replaced(state, hu_or_long_offered=True)
    return replaced(state, phase=Phase.PROMPT_HU, prompt=p, pending=e.seats)


def _answer_bao(state: State, seat: int, declared: bool) -> State:
    s = state.seats[seat]
    if declared:
        state = _replace_seat(state, replaced(s, bao=True))
    pending = tuple(x for x in state.pending if x != seat)
    state = replaced(state, pending=pending)
    if not pending:
        state = replaced(state, phase=_resume_phase(state), prompt=None)
    return state


def _ev_bao_declared(state: State, e: BaoDeclared) -> State:
    return _answer_bao(state, e.seat, True)


def _ev_bao_declined(state: State, e: BaoDeclined) -> State:
    return _answer_bao(state, e.seat, False)


def _ev_discarded(state: State, e: CardDiscarded) -> State:
    s = state.seats[e.seat]
    s = replaced(
        s, hand=_without(s.hand, (e.card.id,)), played=_add_kind(s.played, kind_of(e.card.id))
    )
    return _replace_seat(
        state, s, phase=_SHOWN, shown=e.card.id, shown_by=e.seat, shown_flipped=False
    )


def _ev_flipped(state: State, e: CardFlipped) -> State:
    cid = e.card.id
    stock = state.stock
    # the flip is the stock's first card (next_auto); slicing is the same as filtering then
    stock = stock[1:] if stock and stock[0] == cid else tuple(i for i in stock if i != cid)
    return replaced(
        state,
        stock=stock,
        phase=_SHOWN,
        shown=e.card.id,
        shown_by=e.seat,
        shown_flipped=True,
    )


def _ev_claim_made(state: State, e: ClaimMade) -> State:
    s = state.seats[e.seat]
    remembered: dict[str, Any] = {}  # what the seat's record keeps of its answer
    if e.guo_zhang and state.shown is not None:
        remembered["guo_zhang"] = _add_kind(s.guo_zhang, kind_of(state.shown))
    if e.guo_hu_fan is not None:
        prev = s.guo_hu_fan
        remembered["guo_hu_fan"] = e.guo_hu_fan if prev is None else max(prev, e.guo_hu_fan)
    if state.phase is _PROMPT_HU:  # an offered 胡 at the deal was declined
        changes: dict[str, Any] = {"phase": Phase.OPENING, "prompt": None, "pending": ()}
    else:
        claim = e.claim
        assert claim is not None, "ClaimMade must be evolved unredacted"
        pc = PendingClaim(
            e.seat,
            claim.kind,
            tuple(c.id for c in claim.cards),
            tuple(BiGroup(tuple(c.id for c in g.cards)) for g in claim.bi),
        )
        pending = tuple(x for x in state.pending if x != e.seat)
        changes = {"pending": pending, "claims": (*state.claims, pc)}
    if remembered:
        return _replace_seat(state, replaced(s, **remembered), **changes)
    return replaced(state, **changes)


def _ev_chied(state: State, e: Chied) -> State:
    s = state.seats[e.seat]
    used = [c.id for c in e.cards] + [c.id for g in e.bi for c in g.cards]
    melds = [
        Meld(MeldKind.CHI, e.group, (*(c.id for c in e.cards), e.card.id), e.card.id, e.from_seat)
    ]
    for g in e.bi:
        melds.append(Meld(MeldKind.BI, g.kind, tuple(c.id for c in g.cards)))
    s = replaced(s, hand=_without(s.hand, used), melds=(*s.melds, *melds))
    return _after_take(state, s, True)


def _ev_penged(state: State, e: Penged) -> State:
    s = state.seats[e.seat]
    ids = tuple(c.id for c in e.cards)
    meld = Meld(MeldKind.PENG, GroupKind.TRIPLE, (*ids, e.card.id), e.card.id, e.from_seat)
    s = replaced(s, hand=_without(s.hand, ids), melds=(*s.melds, meld))
    return _after_take(state, s, True)


def _ev_zhaoed(state: State, e: Zhaoed) -> State:
    s = state.seats[e.seat]
    ids = tuple(c.id for c in e.cards)
    meld = Meld(MeldKind.ZHAO, GroupKind.FOUR, (*ids, e.card.id), e.card.id, e.from_seat)
    s = replaced(s, hand=_without(s.hand, ids), melds=(*s.melds, meld))
    return _after_take(state, s, e.discard_required)


def _ev_nobody(state: State, e: NobodyClaimed) -> State:
    s = state.seats[e.seat]
    # an own flip nobody took is no 自己打过的牌 (zp:47) unless the table reads zp:19 so
    counted = e.flipped and state.options.own_flip_is_played
    played = _add_kind(s.played, kind_of(e.card.id)) if counted else s.played
    s = replaced(s, discards=(*s.discards, e.card.id), played=played)
    return _window_closed(state, s, _FLIP, next_active(state, e.seat))


def _ev_hued(state: State, e: Hued) -> State:
    return replaced(
        state,
        phase=Phase.OVER,
        prompt=None,
        pending=(),
        winner=e.seat,
        win_kind=e.win_kind,
        scores=e.scores,
    )


def _ev_huang(state: State, e: HuangZhuang) -> State:
    return replaced(
        state, phase=Phase.OVER, prompt=None, pending=(), huang_zhuang=True, scores=e.scores
    )


_EVOLVERS: dict[type, Any] = {
    HandStarted: _ev_hand_started,
    Dealt: _ev_dealt,
    LongLaidDown: _ev_long,
    CardDrawn: _ev_drawn,
    Prompted: _ev_prompted,
    BaoDeclared: _ev_bao_declared,
    BaoDeclined: _ev_bao_declined,
    CardDiscarded: _ev_discarded,
    CardFlipped: _ev_flipped,
    ClaimMade: _ev_claim_made,
    Chied: _ev_chied,
    Penged: _ev_penged,
    Zhaoed: _ev_zhaoed,
    NobodyClaimed: _ev_nobody,
    Hued: _ev_hued,
    HuangZhuang: _ev_huang,
}


# ---------------------------------------------------------------------------- automatic facts

_BAO_DONE = 2  # bao_round once the dealer's 爆 offer (after its first discard) is behind


def _opening_step(state: State) -> Any:
    """The next automatic fact of the deal (拢, 补张, offers, the dealer's 21st card)."""
    order = order_from(state, state.dealer)
    # 若有拢牌先拢牌，庄家和闲家的都需要先拢
    for seat in order:
        s = state.seats[seat]
        counts = counts_of(s.hand)
        fours = [k for k, n in enumerate(counts) if n == 4]
        if not fours:
            continue
        k = fours[0]
        dc = state.dealer_card
        if (
            seat == state.dealer
            and dc is not None
            and kind_of(dc) == k
            and dc in s.hand
            and state.options.variant is Variant.LUZHOU
            and not state.hu_or_long_offered
            and _hu_allowed(state, seat, _without(s.hand, (dc,)), dc, WinKind.ZI_MO)
        ):
            return Prompted(PromptKind.HU_OR_LONG, (seat,))  # 泸州: 先提示胡
        ids = _ids_of_kind(s.hand, k)
        return LongLaidDown(seat, card(ids[-1]), cards(ids[:-1]), 3, False, False)
    for seat in order:
        s = state.seats[seat]
        if (
            s.long_count >= 3
            and len(s.hand) % 3 == 0
            and not s.san_long_offered
            and _hu_allowed(state, seat, s.hand, None, WinKind.ZI_MO, SAN_LONG_UNITS)
        ):
            return Prompted(PromptKind.HU_OR_PASS, (seat,))  # 三拢可提示胡
        if s.replacements < s.long_count - 1 and state.stock:
            return CardDrawn(seat, card(state.stock[0]), DrawReason.REPLACEMENT)
    if state.bao_round == 0:
        ready = tuple(s for s in order[1:] if _ready(state, s))
        if ready:
            return Prompted(PromptKind.BAO, ready)
    if state.dealer_card is None:
        return CardDrawn(state.dealer, card(state.stock[0]), DrawReason.DEALER_21ST)
    return Prompted(PromptKind.DISCARD, (state.dealer,))


def _ready(state: State, seat: int) -> bool:
    s = state.seats[seat]
    return not s.bao and is_ready(s.hand, len(s.melds))


def _shown_step(state: State) -> Any:
    """A shown card: the dealer's 爆 offer after its first discard, then the claim window --
    opened only for the seats asked (no prompt for nobody: the card resolves at once)."""
    if state.bao_round == 1 and not state.shown_flipped and state.shown_by == state.dealer:
        # 庄家…打一张出去检查是否可爆牌
        if _ready(state, state.dealer):
            return Prompted(PromptKind.BAO, (state.dealer,))
    window = _window(state)
    seats = claim_seats(state, window)
    return Prompted(_CLAIM_PROMPT, seats) if seats else _resolve(state, window)


def _hued(
    state: State,
    seat: int,
    extra: int | None,
    from_seat: int | None,
    wk: WinKind,
    hand: tuple[int, ...],
) -> Hued:
    s = state.seats[seat]
    grouping = best_grouping(hand, extra)
    assert grouping is not None, "胡 on an incomplete hand"
    pts = win_points(state, seat, hand, extra, wk)
    s_for_fan = replaced(s, hand=hand)
    fan = fan_of(_all_cards(s_for_fan, extra), wk, s.bao)
    scores = settle(
        state.options.scoring,
        state.seat_count,
        active_seats(state),
        seat,
        wk,
        from_seat,
        pts,
        fan,
    )
    groups = _concrete_groups(grouping, hand, extra)
    return Hued(
        seat,
        None if extra is None else card(extra),
        from_seat,
        wk,
        cards(hand),
        groups,
        pts,
        fan,
        scores,
    )


def _concrete_groups(
    grouping: tuple[tuple[tuple[int, ...], GroupKind], ...],
    hand: tuple[int, ...],
    extra: int | None,
) -> tuple[Group, ...]:
    """Give a kind grouping concrete cards (a 坎, listed first, keeps its own hand cards)."""
    pool = list(hand) + ([] if extra is None else [extra])
    out: list[Group] = []
    for kinds, gk in grouping:
        ids: list[int] = []
        for k in kinds:
            cands = [i for i in pool if kind_of(i) == k]
            pick = next((i for i in cands if i != extra), cands[0])
            pool.remove(pick)
            ids.append(pick)
        out.append(Group(gk, cards(tuple(ids))))
    return tuple(out)


def _with_auto_claims(state: State, window: _Window) -> tuple[PendingClaim, ...]:
    """The window's claims with the automatic ones (碰, one's own flip onto a 坎): a seat's
    automatic claim stands unless it claimed 胡."""
    claims = {c.seat: c for c in state.claims}
    for seat, answer in window:
        kind = answer[1]
        mine = claims.get(seat)
        if kind is not None and (mine is None or mine.kind is _PASS):
            claims[seat] = PendingClaim(seat, kind)
    return tuple(claims.values())


def _resolve(state: State, window: _Window | None = None) -> Any:
    """Close the claim window: first the seat by priority, then that seat's full claim.
    ``window``: the seats' answers (``_window``), when the caller has them."""
    assert state.shown is not None
    c = state.shown
    window = window or _window(state)
    if not state.claims and not [1 for _seat, answer in window if answer[1] is not None]:
        # nobody claimed it, and nothing is claimed for anybody (most cards)
        return NobodyClaimed(state.shown_by, card(c), state.shown_flipped)
    claims = _with_auto_claims(state, window)
    seat = choose_seat(claims, [seat for seat, _answer in window])
    if seat is None:
        return NobodyClaimed(state.shown_by, card(c), state.shown_flipped)
    claim = claim_of(claims, seat)
    s = state.seats[seat]
    k = kind_of(c)
    by = state.shown_by
    if claim.kind is ClaimKind.HU:
        return _hued(state, seat, c, by, _win_kind(state, seat), s.hand)
    if claim.kind is ClaimKind.LONG:
        ids = _ids_of_kind(s.hand, k)
        return LongLaidDown(seat, card(c), cards(ids), 3, True, _first_long_zhao(s))
    if claim.kind is ClaimKind.ZHAO:
        ids = _ids_of_kind(s.hand, k)
        return Zhaoed(seat, card(c), by, cards(ids), _first_long_zhao(s))
    if claim.kind is ClaimKind.PENG:
        ids = _ids_of_kind(s.hand, k)
        return Penged(seat, card(c), by, cards(ids))
    gk = classify((*claim.cards, c))
    assert gk is not None
    bi = tuple(Group(classify(g.cards) or GroupKind.RUN, cards(g.cards)) for g in claim.bi)
    return Chied(seat, card(c), by, gk, cards(claim.cards), bi)


def _first_long_zhao(s: SeatState) -> bool:
    """Discard after this 招/拢? Only the first one, and never after 爆 (八块 from the second)."""
    return not s.bao and s.long_zhao_count == 0


def next_auto(state: State) -> Any:
    """The fact that follows automatically from ``state``, or None if a seat must act."""
    ph = state.phase
    if ph is _OPENING:
        return _opening_step(state)
    if ph is _SHOWN:
        return _shown_step(state)
    if ph is _CLAIM and not state.pending:
        return _resolve(state)
    if ph is _FLIP:
        if not state.stock:
            return HuangZhuang(state.dealer, tuple(0 for _ in range(state.seat_count)))
        return CardFlipped(state.turn, card(state.stock[0]), len(state.stock) - 1)
    return None


def advance(state: State, events: list[Any]) -> list[Any]:
    """Append automatic facts to ``events`` (already applied to ``state``) until a seat acts."""
    while True:
        e = next_auto(state)
        if e is None:
            return events
        events.append(e)
        state = evolve(state, e)


# ---------------------------------------------------------------------------- setup


def initial_state(options: Options, seat_count: int, deal: tuple[int, ...], seed: int) -> State:
    if sorted(deal) != list(range(CARD_COUNT)):
        raise MalformedCommand("deal", "the deal must be the 80 card ids in some order")
    return State(
        options=options,
        seat_count=seat_count,
        seed=seed,
        deck=tuple(deal),
        stock=tuple(deal),
        dealer=options.dealer % seat_count,
    )


def deal(state: State) -> list[Any]:
    dealer = state.dealer
    out = sitting_out(state.seat_count, dealer)
    order = tuple(
        (dealer + i) % state.seat_count
        for i in range(state.seat_count)
        if (dealer + i) % state.seat_count != out
    )
    events: list[Any] = [
        HandStarted(dealer, state.seat_count, order, out, CARD_COUNT - HAND_SIZE * len(order))
    ]
    for j, seat in enumerate(order):
        events.append(
            Dealt(
                seat,
                cards(tuple(sorted(state.deck[j * HAND_SIZE : (j + 1) * HAND_SIZE]))),
                HAND_SIZE,
            )
        )
    s = state
    for e in events:
        s = evolve(s, e)
    return advance(s, events)


# ---------------------------------------------------------------------------- decide


def _check_seat(state: State, command: Any) -> int:
    seat = getattr(command, "seat", None)
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.seat_count:
        raise MalformedCommand("seat", f"no seat {seat!r} at this table")
    return seat


def decide(state: State, command: Any) -> list[Any]:
    if state.phase is _OVER:
        raise RuleViolation("HAND_OVER", "荒庄" if state.huang_zhuang else "胡", "the hand is over")
    if not isinstance(
        command, (Discard, Chi, Peng, Zhao, Long, Hu, PassClaim, DeclareBao, DeclineBao)
    ):
        raise MalformedCommand("command", f"not a zipai command: {type(command).__name__}")
    seat = _check_seat(state, command)
    if seat not in to_act(state):
        if state.phase is _CLAIM and isinstance(command, _CLAIM_TYPES):
            _not_asked(state, seat, command)  # the rule that keeps the seat out, if any
        raise NotYourTurn(seat)
    ph = state.phase
    if ph is _DISCARD:
        first = _decide_discard(state, seat, command)
    elif ph is _BAO:
        first = _decide_bao(seat, command)
    elif ph is _PROMPT_HU:
        first = _decide_opening_hu(state, seat, command)
    elif ph is _CLAIM:
        first = _decide_claim(state, seat, command)
    else:  # pragma: no cover - to_act is empty in the automatic phases
        raise NotYourTurn(seat)
    s = state
    for e in first:
        s = evolve(s, e)
    return advance(s, list(first))


_CLAIM_TYPES = (Chi, Peng, Zhao, Long, Hu, PassClaim)


def _not_asked(state: State, seat: int, command: Any) -> None:
    """A seat left out of the claim window hears why, from its own cards only (过张, 爆, its
    own discard, a 碰 made for it...): the claim's own checks, or NOTHING_TO_CLAIM."""
    if any(c.seat == seat for c in state.claims):
        raise RuleViolation("ALREADY_ANSWERED", "过", "this seat has answered for this card")
    if not state.seats[seat].active:
        raise NotYourTurn(seat, f"seat {seat} sits this hand out")
    if not isinstance(command, PassClaim):
        _decide_claim(state, seat, command)
    kind = auto_claim(state, seat)
    if kind is not None:
        raise _automatic(kind)
    raise RuleViolation("NOTHING_TO_CLAIM", "出牌", "this seat has no claim on the card")


def _automatic(kind: ClaimKind) -> RuleViolation:
    rule = {ClaimKind.PENG: "碰牌", ClaimKind.LONG: "拢牌", ClaimKind.ZHAO: "招牌"}[kind]
    return RuleViolation(
        "AUTOMATIC_CLAIM",
        rule,
        f"the {rule[0]} is made for this seat (碰牌自动碰下去 / 当做拢处理); only 胡 outranks it",
    )


def _wrong(command: Any, expected: str) -> RuleViolation:
    return RuleViolation(
        "NOT_NOW",
        "turn order",
        f"{type(command).__name__} is not possible now; expected {expected}",
    )


def _decide_discard(state: State, seat: int, command: Any) -> list[Any]:
    if not isinstance(command, Discard):
        raise _wrong(command, "Discard")
    cid = command.card
    if not isinstance(cid, int) or isinstance(cid, bool) or not 0 <= cid < CARD_COUNT:
        raise MalformedCommand("card", f"{cid!r} is not a card id")
    s = state.seats[seat]
    if cid not in s.hand:
        raise RuleViolation("NOT_IN_HAND", "出牌", f"card {cid} is not in the hand")
    if cid not in discardable(s):
        raise RuleViolation("KAN_UNBREAKABLE", "一坎牌", "a 坎 may not be broken up to discard")
    return [CardDiscarded(seat, card(cid))]


def _decide_bao(seat: int, command: Any) -> list[Any]:
    if isinstance(command, DeclareBao):
        return [BaoDeclared(seat)]
    if isinstance(command, DeclineBao):
        return [BaoDeclined(seat)]
    raise _wrong(command, "DeclareBao or DeclineBao")


def _decide_opening_hu(state: State, seat: int, command: Any) -> list[Any]:
    s = state.seats[seat]
    if state.prompt is PromptKind.HU_OR_LONG:
        dc = state.dealer_card
        assert dc is not None
        hand = _without(s.hand, (dc,))
        if isinstance(command, Hu):
            return [_hued(state, seat, dc, None, WinKind.ZI_MO, hand)]
        if isinstance(command, Long):
            ids = _ids_of_kind(s.hand, kind_of(dc))
            fan = _guo_hu_fan(state, seat, dc, WinKind.ZI_MO, hand)  # 拢 instead of 胡: a 过胡
            return [
                ClaimMade(seat, Claim(ClaimKind.LONG), False, fan),
                LongLaidDown(seat, card(ids[-1]), cards(ids[:-1]), 3, False, False),
            ]
        raise _wrong(command, "Hu or Long")
    if isinstance(command, Hu):
        return [_hued(state, seat, None, None, WinKind.ZI_MO, s.hand)]
    if isinstance(command, PassClaim):
        return [
            ClaimMade(
                seat, Claim(ClaimKind.PASS), False, _guo_hu_fan(state, seat, None, WinKind.ZI_MO)
            )
        ]
    raise _wrong(command, "Hu or PassClaim")


def _guo_hu_fan(
    state: State, seat: int, extra: int | None, wk: WinKind, hand: tuple[int, ...] | None = None
) -> int | None:
    """The fan of a 胡 passed up, remembered only under 过张升番胡."""
    o = state.options
    if o.guo_hu and o.guo_zhang_sheng_fan:
        return win_fan(state, seat, extra, wk, hand)
    return None


def _decide_claim(state: State, seat: int, command: Any) -> list[Any]:
    assert state.shown is not None
    c = state.shown
    k = kind_of(c)
    s = state.seats[seat]
    if not state.shown_flipped and seat == state.shown_by:
        raise RuleViolation("OWN_CARD", "出牌", "a seat does not claim the card it played")
    opts, auto, asked = _answer(state, seat)
    hu_open = bool(opts) and isinstance(opts[0], Hu)
    wk = _win_kind(state, seat)
    if auto is not None and not isinstance(command, Hu | PassClaim):
        raise _automatic(auto)
    forgone_hu = (
        _guo_hu_fan(state, seat, c, wk) if hu_open and not isinstance(command, Hu) else None
    )
    n = counts_of(s.hand)[k]
    own_flip = state.shown_flipped and seat == state.shown_by
    if isinstance(command, PassClaim):
        chi_open = any(isinstance(o, Chi) for o in asked)
        return [ClaimMade(seat, Claim(ClaimKind.PASS), chi_open, forgone_hu)]
    if isinstance(command, Hu):
        if not is_winning(s.hand, c, len(s.melds)):
            raise RuleViolation("NOT_A_WINNING_HAND", "胡", "the card does not complete the hand")
        if not enough_hu(state.options.scoring, win_points(state, seat, s.hand, c, wk)):
            raise RuleViolation(
                "TOO_FEW_HU", "胡息", f"this profile needs {MIN_HU} 胡 or none (乱) to 胡"
            )
        if not hu_open:
            raise RuleViolation(
                "GUO_HU", "过张升番胡", "after passing a 胡 only a higher-fan 胡 may be taken"
            )
        return [ClaimMade(seat, Claim(ClaimKind.HU), False, None)]
    if isinstance(command, Long):
        if not own_flip:
            raise RuleViolation("NOT_OWN_FLIP", "拢牌", "拢 takes one's own flipped card; use 招")
        if s.bao:
            raise RuleViolation("BAO_LONG_IS_ZHAO", "爆牌", "after 爆 the fourth card is a 招")
        if n != 3:
            raise RuleViolation("NO_KAN", "拢牌", "拢 needs a 坎 of this card in the hand")
        return [ClaimMade(seat, Claim(ClaimKind.LONG), False, forgone_hu)]
    if isinstance(command, Zhao):
        if any(m.kind is MeldKind.PENG and kind_of(m.cards[0]) == k for m in s.melds):
            raise RuleViolation("PENG_THEN_NO_ZHAO", "碰牌", "a ponged card cannot be konged")
        if n != 3:
            raise RuleViolation("NO_KAN", "招牌", "招 needs a 坎 of this card in the hand")
        if own_flip and not s.bao:
            raise RuleViolation("OWN_FLIP_IS_LONG", "拢牌", "one's own flip onto a 坎 is a 拢")
        if not any(isinstance(o, Zhao) for o in opts):
            raise RuleViolation(
                "BAO_MUST_STAY_READY", "爆牌", "after 爆 a 招 must keep the hand ready"
            )
        return [ClaimMade(seat, Claim(ClaimKind.ZHAO), False, forgone_hu)]
    if isinstance(command, Peng):
        if s.bao:
            raise RuleViolation("BAO_NO_PENG", "爆牌", "after 爆 a seat may not 碰")
        if n == 3:
            raise RuleViolation(
                "KAN_UNBREAKABLE", "一坎牌", "the hand holds a 坎 of this card: 招 it"
            )
        if n != 2:
            raise RuleViolation("NO_PAIR", "碰牌", "碰 needs a pair of this card in the hand")
        if len(s.hand) < 3:
            raise RuleViolation("NOTHING_TO_DISCARD", "进牌", "a card must be left to discard")
        return [ClaimMade(seat, Claim(ClaimKind.PENG), False, forgone_hu)]
    if isinstance(command, Chi):
        if s.bao:
            raise RuleViolation("BAO_NO_CHI", "爆牌", "after 爆 a seat may not 吃")
        if not (own_flip or seat == next_active(state, state.shown_by)):
            raise RuleViolation(
                "CHI_NOT_FROM_UPPER", "吃牌", "only one's own flip or 上家's card may be eaten"
            )
        if k in s.played:
            raise RuleViolation("OWN_DISCARD", "吃牌", "自己打过的牌不能再吃")
        if k in s.guo_zhang:
            raise RuleViolation("GUO_ZHANG", "过张", "a card passed up may never be eaten again")
        if not isinstance(command.cards, tuple) or not isinstance(command.bi, tuple):
            raise MalformedCommand("cards", "cards and bi must be lists")
        bi: list[tuple[int, ...]] = []
        for g in command.bi:
            if not isinstance(g, BiGroup) or not isinstance(g.cards, tuple):
                raise MalformedCommand("bi", "each 比牌 group is a BiGroup of card ids")
            bi.append(g.cards)
        if not [o for o in asked if o is command]:  # (a 吃 this window offered is legal)
            check_chi(s.hand, c, command.cards, tuple(bi))
        claim = Claim(
            ClaimKind.CHI,
            cards(command.cards),
            tuple(Group(classify(g) or GroupKind.RUN, cards(g)) for g in bi),
        )
        return [ClaimMade(seat, claim, False, forgone_hu)]
    raise _wrong(command, "a claim (Hu, Long, Zhao, Peng, Chi) or PassClaim")


# ---------------------------------------------------------------------------- outcome


def next_dealer(options: Options, state: State) -> int:
    """The dealer of the next hand of a match (游戏流程 1).

    WINNER: the winner deals; after 荒庄 the dealer keeps the deal.
    ROTATE: the dealer keeps the deal on winning; otherwise (another seat wins, or 荒庄) the
    dealer's 下家 deals.
    """
    n = state.seat_count
    if options.dealer_rule is DealerRule.WINNER:
        return state.winner if state.winner is not None else state.dealer
    if state.winner == state.dealer:
        return state.dealer
    return (state.dealer + 1) % n
