"""What a viewer may see (view, redact) and how facts read (describe).

A seat sees its own hand, the other seats' hand counts and the public table; a spectator the
public table; an arbiter everything (and everyone, once the game is over). Hidden cards are
dropped whole -- never a Card with its id -- so no stable identity leaks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.engine import (
    RememberedPerState,
    Role,
    RuleViolation,
    Viewer,
    effective_viewer,
    replaced,
)
from domain.huaniao import commands, events
from domain.huaniao.cards import CLASS_NAME, NAME, Card, CardClass, cards_of
from domain.huaniao.events import ShowdownHand, Transfer
from domain.huaniao.options import COMBO_NAME, Combo, Options
from domain.huaniao.plays import classify
from domain.huaniao.rules import (
    dance_banned,
    enforced_limit,
    hand_open,
    kinds,
    play_rules,
    seasons_of,
    to_act,
)
from domain.huaniao.state import HuaniaoState
from domain.huaniao.terms import (
    CAUSE_NAME,
    PATTERN_NAME,
    PLAY_KIND_NAME,
    SEASON_NAME,
    VERSE_NAME,
    Need,
    Phase,
    PlayKind,
    Season,
)


@dataclass(frozen=True)
class SeatView:
    """One seat as the viewer sees it."""

    seat: int
    hand_count: int
    cards: tuple[Card, ...]  # empty unless the viewer may see this hand
    turns_taken: int
    seasons: tuple[Season, ...]  # seasons this seat follows now (四季更替 modes)
    dance_banned: bool  # 天上天下 or a 季节规则 penalty: no 舞 on this seat's current/next turn
    cool_banned: bool  # 凉风有幸: nothing with 花/鸟/风/月 on its current/next turn
    owes_discard: int  # cards it must discard now
    has_guessed: bool  # 曲高和寡: guessed in the open guess
    guess: CardClass | None  # its own guess (only to itself / the arbiter)
    open_hand: bool = False  # 公开手牌 (a penalty): its hand is open to everyone this round


@dataclass(frozen=True)
class TablePlay:
    """The last play on the table."""

    seat: int
    cards: tuple[Card, ...]
    kind: PlayKind
    count: int
    combo: Combo | None


@dataclass(frozen=True)
class View:
    """What one viewer may see of a game."""

    viewer_seat: int | None
    options: Options
    seat_count: int
    phase: Phase
    to_act: tuple[int, ...]
    turn: int
    leader: int
    need: Need
    reference: int
    last_play: TablePlay | None
    verse_due: bool
    deck_size: int
    deck: tuple[Card, ...]  # arbiter only, top first
    played: tuple[Card, ...]
    discarded: tuple[Card, ...]
    hand_limit: int | None
    season: Season | None
    round: int
    turn_in_round: int
    consecutive_perches: int
    extra_actions: int
    seats: tuple[SeatView, ...]
    guess_target: int | None
    pool_count: int
    showdown: tuple[ShowdownHand, ...]
    winners: tuple[int, ...]
    scores: tuple[int, ...]
    end_reason: str
    hand_limit_enforced: bool = False  # seats above hand_limit must discard down to it now


def view(s: HuaniaoState, viewer: Viewer) -> View:
    viewer = effective_viewer(viewer, s.phase == Phase.ENDED)
    arbiter = viewer.role == Role.ARBITER
    me = viewer.seat if viewer.role == Role.SEAT else None
    both = _seat_views(s)
    seats = tuple(both[seat][arbiter or seat == me] for seat in range(len(s.hands)))
    lp = s.last_play
    return View(
        viewer_seat=me,
        options=s.options,
        seat_count=s.seat_count,
        phase=s.phase,
        to_act=to_act(s),
        turn=s.turn,
        leader=s.leader,
        need=s.need,
        reference=s.reference,
        last_play=TablePlay(lp.seat, cards_of(lp.cards), lp.kind, lp.count, lp.combo)
        if lp
        else None,
        verse_due=s.verse_due,
        deck_size=len(s.deck),
        deck=cards_of(s.deck) if arbiter else (),
        played=cards_of(s.played),
        discarded=cards_of(s.discarded),
        hand_limit=s.hand_limit,
        season=s.season,
        round=s.round,
        turn_in_round=s.turn_in_round,
        consecutive_perches=s.consecutive_perches,
        extra_actions=s.extra_actions,
        seats=seats,
        guess_target=s.guess_target,
        pool_count=len(s.pool),
        # the 大对决 runs inside the game's last batch; its hands are open once the game is over
        showdown=s.showdown if arbiter else tuple(replaced(h, cards=()) for h in s.showdown),
        winners=s.winners,
        scores=s.scores,
        end_reason=s.end_reason,
        hand_limit_enforced=enforced_limit(s) is not None,
    )


def _make_seat_views(s: HuaniaoState) -> tuple[tuple[SeatView, SeatView], ...]:
    """Each seat as others see it and as it (or the arbiter) sees itself.

    Why once per state (``_seat_views``): the server renders every viewer's view after each
    move (a 4-seat table has six viewers), and a seat looks the same to every viewer but
    itself and the arbiter. Sharing the objects lets the renderer reuse a seat's rendering
    by identity (server/wire/protoconv.py) instead of walking 24 seat views a move."""
    owed = {p.seat: p.count for p in s.pending_discards}
    guesses = {g.seat: g.card_class for g in s.guesses}
    out = []
    for seat, h in enumerate(s.hands):
        shown = hand_open(s, seat)
        public = SeatView(
            seat=seat,
            hand_count=len(h.cards),
            cards=cards_of(h.cards) if shown else (),
            turns_taken=s.turns_taken[seat],
            seasons=seasons_of(s, seat),
            dance_banned=dance_banned(s, seat),
            cool_banned=s.cool_ban_at[seat] == s.turns_taken[seat],
            owes_discard=owed.get(seat, 0),
            has_guessed=seat in guesses,
            guess=None,
            open_hand=shown,
        )
        own = replaced(public, cards=cards_of(h.cards), guess=guesses.get(seat))
        out.append((public, own))
    return tuple(out)


_seat_views = RememberedPerState(_make_seat_views)


def _sees(viewer: Viewer, *seats: int) -> bool:
    return viewer.role == Role.ARBITER or (viewer.role == Role.SEAT and viewer.seat in seats)


def _transfer(t: Transfer, viewer: Viewer) -> Transfer:
    return t if t.shown or _sees(viewer, t.from_seat, t.to_seat) else replaced(t, card=None)


def redact(event: Any, viewer: Viewer) -> Any:
    t = type(event)
    if t is events.Dealt:
        return event if _sees(viewer, event.seat) else replaced(event, cards=())
    if t is events.Drew:  # a draw into an open hand (公开手牌) is shown to everyone
        return event if event.shown or _sees(viewer, event.seat) else replaced(event, cards=())
    if t is events.CardsExchanged:
        return replaced(event, transfers=tuple(_transfer(x, viewer) for x in event.transfers))
    if t is events.CardTaken:
        return replaced(event, transfer=_transfer(event.transfer, viewer))
    if t is events.GuessMade:
        hidden = replaced(event, card_class=None, passed=False)
        return event if _sees(viewer, event.seat) else hidden
    if viewer.role != Role.ARBITER:
        # The 大对决 facts come in the game's last batch, just before GameEnded; once the game is
        # over the server renders them for everyone as for the arbiter (effective_viewer).
        if t is events.HandsRecovered:
            return replaced(event, cards=())
        if t is events.ShowdownDealt:
            return replaced(event, hands=tuple(replaced(h, cards=()) for h in event.hands))
    return event  # everything else is public (discards are face up)


# --- describe -------------------------------------------------------------------------------


def _cards(cards: tuple[Card, ...]) -> str:
    return "+".join(NAME[c.kind] for c in cards)


def _hidden(cards: tuple[Card, ...], count: int) -> str:
    return _cards(cards) if cards else f"{count} 张"


def describe(event: Any) -> str:  # noqa: C901 - one line per fact
    t = type(event)
    if t is events.Dealt:
        return f"seat {event.seat} 发牌 {_hidden(event.cards, event.count)}"
    if t is events.LeaderChosen:
        drawn = f" (抽自 {','.join(map(str, event.tied))})" if event.tied else ""
        return f"seat {event.seat} 鸟牌最多，先手{drawn}"
    if t is events.Played:
        return _describe_play(event)
    if t is events.Perched:
        return f"seat {event.seat} 栖"
    if t is events.Drew:
        return (
            f"seat {event.seat} 摸 {_hidden(event.cards, event.count)} ({CAUSE_NAME[event.cause]})"
        )
    if t is events.DiscardRequired:
        why = "+".join(CAUSE_NAME[c] for c in event.causes)
        return f"seat {event.seat} 须弃 {event.count} 张 ({why})"
    if t is events.Discarded:
        return f"seat {event.seat} 弃 {_cards(event.cards)}"
    if t is events.HandLimitChanged:
        return f"手牌上限 {event.limit} ({event.delta:+d}, {COMBO_NAME[event.combo]})"
    if t is events.CardsExchanged:
        parts = [
            f"{x.from_seat}→{x.to_seat} {NAME[x.card.kind] if x.card else '?'}"
            for x in event.transfers
        ]
        return "花鸟风月 交换: " + ", ".join(parts)
    if t is events.CardTaken:
        x = event.transfer
        card = NAME[x.card.kind] if x.card else "?"
        return f"seat {x.to_seat} 从 seat {x.from_seat} 取 {card} ({CAUSE_NAME[event.cause]})"
    if t is events.PlayRestarted:
        return f"白昼: 全员栖, seat {event.seat} 以鸟牌重新开始"
    if t is events.GuessingOpened:
        return f"曲高和寡: seat {event.seat} 只剩1张"
    if t is events.GuessMade:
        if event.passed:
            return f"seat {event.seat} 不猜"
        guess = CLASS_NAME[event.card_class] if event.card_class else "?"
        return f"seat {event.seat} 猜 {guess}"
    if t is events.GuessesRevealed:
        line = f"seat {event.seat} 的牌是{CLASS_NAME[event.card_class]}, 猜对 {event.correct} 人"
        return line + (f", 不猜 {','.join(map(str, event.passed))}" if event.passed else "")
    if t is events.SeasonChanged:
        return f"seat {event.seat} 换季 → {SEASON_NAME[event.season]} (第 {event.round} 回合)"
    if t is events.SongEnded:
        why = "手牌打完" if event.reason == "HAND_EMPTIED" else "牌堆打完"
        return f"一曲终了 ({why}) 「{event.verse}」"
    if t is events.HandsRecovered:
        return "大对决: 回收手牌" + (f" {len(event.cards)} 张" if event.cards else "")
    if t is events.ShowdownDealt:
        hands = "; ".join(
            f"seat {h.seat} {_cards(h.cards) or '?'} {PATTERN_NAME[h.pattern]} {h.score}/{h.total}"
            for h in event.hands
        )
        refill = " (重洗)" if event.refilled else ""
        chant = f" 「{event.chant}」" if event.chant else ""
        return f"大对决 第{event.round}轮{refill}{chant}: {hands}"
    if t is events.GameEnded:
        winners = ",".join(str(w) for w in event.winners)
        scores = " ".join(str(x) for x in event.scores)
        return f"终局 {event.reason}: 胜者 seat {winners}; 分值 {scores}"
    return _describe_penalty(event)


def _describe_penalty(event: Any) -> str:
    t = type(event)
    if t is events.PenaltyDiscarded:
        where = "桌上违规牌" if event.from_table else "手牌"
        return f"seat {event.seat} 罚弃{where} {_cards(event.cards)}"
    if t is events.DanceBanned:
        return f"seat {event.seat} 下回合不可舞 (第 {event.turn + 1} 回合)"
    if t is events.HandOpened:
        return f"seat {event.seat} 公开手牌 {_cards(event.cards) or '0 张'} ({event.turns} 手)"
    if t is events.AttemptPlayed:
        body = _cards(event.cards)
        if event.combo is not None:
            body = f"{COMBO_NAME[event.combo]} {body}"
        return f"seat {event.seat} 违规出牌 {body} [{event.reason}], 待举报"
    if t is events.GuessingCancelled:
        return f"曲高和寡取消: seat {event.seat} 的手牌因处罚而变"
    if t is events.ExtraActionsDeclined:
        return f"seat {event.seat} 繁花似锦: 余 {event.unused} 次不用, 结束回合"
    if t is events.Recited:
        return f"seat {event.seat} 诵{VERSE_NAME[event.verse]}「{event.text}」"
    return repr(event)


def _describe_play(e: events.Played) -> str:
    head = f"seat {e.seat} {PLAY_KIND_NAME[e.kind]}"
    if e.season is not None:
        head += f" [{SEASON_NAME[e.season]}]"
    body = _cards(e.cards)
    if e.combo is not None:
        body = f"{COMBO_NAME[e.combo]} {body}"
    if e.kind != PlayKind.WU:
        body += f" ({e.count})"
    if e.target is not None:
        body += f" → seat {e.target}"
    if e.announce is not None:
        body += f" 宣言 {e.announce}"
    if e.chosen_season is not None:
        body += f" 选{SEASON_NAME[e.chosen_season]}"
    if e.verse:
        body += f" 「{e.verse}」"
    return f"{head} {body}"


# --- legal commands, labelled -------------------------------------------------------------


def label(s: HuaniaoState, command: Any) -> str:
    """What a legal command is, in the seed's words: its kind first, then what it makes
    ("诵 5", "吟 3", "起 1", "舞 风 → seat 2", "舞 天上天下 宣言 2", "栖", "弃 鸟", "猜 鸟牌")."""
    t = type(command)
    if t is commands.Play:
        return _label_play(s, command)
    if t is commands.Perch:
        return "栖"
    if t is commands.Discard:
        return f"弃 {_cards(cards_of(command.cards))}"
    if t is commands.Guess:
        return f"猜 {CLASS_NAME[command.card_class]}"
    if t is commands.ChangeSeason:
        return "换季"
    if t is commands.EndTurn:
        return "结束回合"
    if t is commands.PassGuess:
        return "不猜"
    return type(command).__name__


def _label_play(s: HuaniaoState, cmd: commands.Play) -> str:
    try:
        shape = classify(
            kinds(s.options, cmd.cards), cmd.combo, play_rules(s, cmd.seat), s.need, s.reference
        )
    except RuleViolation:
        return f"? {_cards(cards_of(cmd.cards))}"
    if shape.kind != PlayKind.WU:
        return f"{PLAY_KIND_NAME[shape.kind]} {shape.count}"
    head = (
        f"舞 {COMBO_NAME[cmd.combo]}"
        if cmd.combo is not None
        else f"舞 {_cards(cards_of(cmd.cards))}"
    )
    if cmd.target is not None:
        head += f" → seat {cmd.target}"
    if cmd.announce is not None:
        head += f" 宣言 {cmd.announce}"
    if cmd.chosen_season is not None:
        head += f" 选{SEASON_NAME[cmd.chosen_season]}"
    return head
