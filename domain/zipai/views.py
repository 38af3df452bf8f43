"""What each viewer may see: views of the state, redacted facts, readable lines.

A seat sees its own hand (and its own 过张 memory and pending claim), every seat's hand count,
every meld (a 拢 shows one card face up; its three face-down cards only to its owner) and the
discards. A spectator sees the public part only. An arbiter sees everything, including the
stock order (never the seed). Once the hand is over the server shows everyone the arbiter view
(``domain.engine.effective_viewer``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.engine import RememberedPerState, Role, Viewer, replaced
from domain.zipai import commands, events
from domain.zipai.cards import Card, card, card_name, cards
from domain.zipai.events import Claim, ClaimKind, DrawReason, PromptKind, WinKind
from domain.zipai.melds import Group, GroupKind, Meld, MeldKind, classify
from domain.zipai.options import Options
from domain.zipai.state import Phase, State


@dataclass(frozen=True)
class MeldView:
    """A 列 on the table as the viewer sees it."""

    kind: MeldKind
    group: GroupKind
    cards: tuple[Card, ...]  # the cards this viewer may see
    hidden_size: int  # face-down cards this viewer may not see (3 for another seat's 拢)
    taken: Card | None  # the claimed card, if any
    from_seat: int | None


@dataclass(frozen=True)
class SeatView:
    """One seat as the viewer sees it."""

    seat: int
    active: bool  # False for the seat sitting the hand out
    hand: tuple[Card, ...]  # only for the seat itself (and arbiters)
    hand_size: int  # cards in the hand (public)
    melds: tuple[MeldView, ...]  # the seat's 列 on the table
    discards: tuple[Card, ...]  # cards left in front of the seat (played, or flipped and not taken)
    bao: bool  # the seat declared 爆
    guo_zhang: tuple[int, ...]  # kinds (0..19) passed up; only for the seat itself
    played: tuple[int, ...]  # kinds this seat discarded (it may never eat them)
    guo_hu_fan: int | None  # 过张升番胡 memory; only for the seat itself


@dataclass(frozen=True)
class View:
    """What one viewer may see of a hand."""

    viewer_seat: int | None  # the viewer's seat (unset for spectators and arbiters)
    options: Options  # the table options of this hand
    seat_count: int  # seats at the table
    dealer: int  # the dealer (庄家)
    phase: Phase  # where the hand stands
    prompt: PromptKind | None  # what the awaited seats are asked (if the viewer may know)
    turn: int  # the seat to discard or flip next
    shown: Card | None  # the card face up awaiting claims
    shown_by: int | None  # who played or flipped the shown card
    shown_flipped: bool  # the shown card was flipped from the stock (not discarded)
    stock_size: int
    seats: tuple[SeatView, ...]
    awaiting: tuple[int, ...]  # seats the hand waits for (a seat sees only itself in claims)
    my_claim: Claim | None  # the viewer's own claim in the open window
    winner: int | None  # the seat that won (unset while playing and after 荒庄)
    win_kind: WinKind | None  # how the winner won
    scores: tuple[int, ...]  # final score per seat (empty while playing)
    huang_zhuang: bool  # the hand ended in 荒庄
    stock: tuple[Card, ...]  # arbiter only: the stock in order


def _sees_seat(viewer: Viewer, seat: int) -> bool:
    return viewer.role is Role.ARBITER or (viewer.role is Role.SEAT and viewer.seat == seat)


def _meld_view(m: Meld, visible: bool) -> MeldView:
    if m.kind is MeldKind.LONG and not visible:
        return MeldView(
            m.kind, m.group, (card(m.cards[-1]),), len(m.cards) - 1, _opt(m.taken), m.from_seat
        )
    return MeldView(m.kind, m.group, cards(m.cards), 0, _opt(m.taken), m.from_seat)


def _opt(cid: int | None) -> Card | None:
    return None if cid is None else card(cid)


def _make_seat_views(state: State) -> tuple[tuple[SeatView, SeatView], ...]:
    """Each seat as others see it and as it (or the arbiter) sees itself.

    Why once per state (``_seat_views``): the server renders every viewer's view after each
    move, and a seat looks the same to every viewer but itself and the arbiter; shared
    objects let the renderer reuse a seat's rendering by identity (server/wire/protoconv.py)."""
    out = []
    for s in state.seats:
        public, own = (
            SeatView(
                seat=s.seat,
                active=s.active,
                hand=cards(s.hand) if mine else (),
                hand_size=len(s.hand),
                melds=tuple(_meld_view(m, mine) for m in s.melds),
                discards=cards(s.discards),
                bao=s.bao,
                guo_zhang=s.guo_zhang if mine else (),
                played=s.played,
                guo_hu_fan=s.guo_hu_fan if mine else None,
            )
            for mine in (False, True)
        )
        out.append((public, own))
    return tuple(out)


_seat_views = RememberedPerState(_make_seat_views)


def view(state: State, viewer: Viewer) -> View:
    arbiter = viewer.role is Role.ARBITER
    both = _seat_views(state)
    seats = [both[i][_sees_seat(viewer, s.seat)] for i, s in enumerate(state.seats)]
    if state.phase is Phase.DISCARD:
        awaiting: tuple[int, ...] = (state.turn,)
    elif arbiter:
        awaiting = state.pending
    elif viewer.role is Role.SEAT and viewer.seat in state.pending:
        awaiting = (viewer.seat,)
    else:
        awaiting = ()
    my_claim = None
    if viewer.role is Role.SEAT or arbiter:
        for pc in state.claims:
            if pc.seat == viewer.seat:
                my_claim = Claim(
                    pc.kind,
                    cards(pc.cards),
                    tuple(Group(classify(g.cards) or GroupKind.RUN, cards(g.cards)) for g in pc.bi),
                )
    return View(
        viewer_seat=viewer.seat if viewer.role is Role.SEAT else None,
        options=state.options,
        seat_count=state.seat_count,
        dealer=state.dealer,
        phase=state.phase,
        prompt=state.prompt if (state.phase is Phase.DISCARD or awaiting) else None,
        turn=state.turn,
        shown=_opt(state.shown),
        shown_by=state.shown_by if state.shown is not None else None,
        shown_flipped=state.shown_flipped if state.shown is not None else False,
        stock_size=len(state.stock),
        seats=tuple(seats),
        awaiting=awaiting,
        my_claim=my_claim,
        winner=state.winner,
        win_kind=state.win_kind,
        scores=state.scores,
        huang_zhuang=state.huang_zhuang,
        stock=cards(state.stock) if arbiter else (),
    )


def redact(event: Any, viewer: Viewer) -> Any:
    """The fact as ``viewer`` may see it (hidden cards removed or None)."""
    if viewer.role is Role.ARBITER:
        return event
    if isinstance(event, events.Dealt):
        return event if _sees_seat(viewer, event.seat) else replaced(event, cards=())
    if isinstance(event, events.LongLaidDown):
        return event if _sees_seat(viewer, event.seat) else replaced(event, hidden=())
    if isinstance(event, events.CardDrawn):
        return event if _sees_seat(viewer, event.seat) else replaced(event, card=None)
    if isinstance(event, events.ClaimMade):
        if _sees_seat(viewer, event.seat):
            return event
        return replaced(event, claim=None, guo_zhang=False, guo_hu_fan=None)
    if isinstance(event, events.Prompted) and event.prompt is not PromptKind.DISCARD:
        seats = tuple(s for s in event.seats if viewer.role is Role.SEAT and s == viewer.seat)
        return replaced(event, seats=seats)
    return event


# ---------------------------------------------------------------------------- describe


def _names(cs: tuple[Card, ...]) -> str:
    return "".join(card_name(c) for c in cs)


def _group(g: Group) -> str:
    return _names(g.cards)


_CLAIM_WORDS = {
    ClaimKind.HU: "胡",
    ClaimKind.LONG: "拢",
    ClaimKind.ZHAO: "招",
    ClaimKind.PENG: "碰",
    ClaimKind.CHI: "吃",
    ClaimKind.PASS: "过",
}


def describe(event: Any) -> str:
    """One readable line, cards by name (一…十 small, 壹…拾 big)."""
    e = event
    if isinstance(e, events.HandStarted):
        out = f"; seat {e.sitting_out} sits out" if e.sitting_out is not None else ""
        return f"hand started: seat {e.dealer} deals, {e.stock_size} cards in the stock{out}"
    if isinstance(e, events.Dealt):
        shown = _names(e.cards) if e.cards else f"{e.count} cards"
        return f"seat {e.seat} was dealt {shown}"
    if isinstance(e, events.LongLaidDown):
        how = " with its own flip" if e.taken else ""
        then = " and must discard" if e.discard_required else ""
        return f"seat {e.seat} laid down 拢 of {card_name(e.face_up)}{how}{then}"
    if isinstance(e, events.CardDrawn):
        what = card_name(e.card) if e.card is not None else "a card"
        why = "补张" if e.reason is DrawReason.REPLACEMENT else "the dealer's 21st card"
        return f"seat {e.seat} drew {what} ({why})"
    if isinstance(e, events.Prompted):
        who = ", ".join(str(s) for s in e.seats) or "no seat"
        return f"{e.prompt.name.lower().replace('_', ' ')} prompt for {who}"
    if isinstance(e, events.BaoDeclared):
        return f"seat {e.seat} declared 爆"
    if isinstance(e, events.BaoDeclined):
        return f"seat {e.seat} declined 爆"
    if isinstance(e, events.CardDiscarded):
        return f"seat {e.seat} discarded {card_name(e.card)}"
    if isinstance(e, events.CardFlipped):
        return f"seat {e.seat} flipped {card_name(e.card)} ({e.stock_left} left)"
    if isinstance(e, events.ClaimMade):
        if e.claim is None:
            return f"seat {e.seat} answered"
        detail = ""
        if e.claim.kind is ClaimKind.CHI:
            detail = " with " + _names(e.claim.cards)
            if e.claim.bi:
                detail += ", 比 " + " ".join(_group(g) for g in e.claim.bi)
        extra = " (过张)" if e.guo_zhang else ""
        return f"seat {e.seat} claims {_CLAIM_WORDS[e.claim.kind]}{detail}{extra}"
    if isinstance(e, events.Chied):
        bi = (", 比 " + " ".join(_group(g) for g in e.bi)) if e.bi else ""
        return f"seat {e.seat} ate {card_name(e.card)} with {_names(e.cards)}{bi}"
    if isinstance(e, events.Penged):
        return f"seat {e.seat} ponged {card_name(e.card)}"
    if isinstance(e, events.Zhaoed):
        then = " and must discard" if e.discard_required else ""
        return f"seat {e.seat} konged (招) {card_name(e.card)}{then}"
    if isinstance(e, events.NobodyClaimed):
        return f"nobody took {card_name(e.card)}"
    if isinstance(e, events.Hued):
        on = f" on {card_name(e.card)}" if e.card is not None else ""
        groups = " ".join(_group(g) for g in e.groups)
        return (
            f"seat {e.seat} won (胡){on}, {e.win_kind.name}: {groups}; "
            f"{e.hu_points} 胡, {e.fan} fan, scores {list(e.scores)}"
        )
    if isinstance(e, events.HuangZhuang):
        return "荒庄: the stock ran out"
    return repr(e)


# ---------------------------------------------------------------------------- labels

_COMMAND_WORDS = {
    commands.Discard: "打",
    commands.Chi: "吃",
    commands.Peng: "碰",
    commands.Zhao: "招",
    commands.Long: "拢",
    commands.Hu: "胡",
    commands.PassClaim: "过",
    commands.DeclareBao: "爆",
    commands.DeclineBao: "不爆",
}


def label(state: State, command: Any) -> str:
    """What a legal command is, in the seed's words: "打 五", "吃 五 with 四六, 比 …",
    "碰 五", "招 五", "拢", "胡", "过", "爆", "不爆"."""
    word = _COMMAND_WORDS.get(type(command), type(command).__name__)
    if isinstance(command, commands.Discard):
        return f"{word} {card_name(card(command.card))}"
    shown = card_name(card(state.shown)) if state.shown is not None else ""
    if isinstance(command, commands.Chi):
        bi = " ".join(_names(cards(g.cards)) for g in command.bi)
        return f"{word} {shown} with {_names(cards(command.cards))}" + (f", 比 {bi}" if bi else "")
    if isinstance(command, commands.Peng | commands.Zhao) or (
        isinstance(command, commands.Hu | commands.PassClaim) and shown
    ):
        return f"{word} {shown}".rstrip()
    return word
