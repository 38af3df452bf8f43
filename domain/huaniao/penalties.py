"""花鸟风月's penalties: :class:`domain.justice.PenaltyRules` for the seed's chapter 四、违规与仲裁.

The table (domain/table/, its justice in domain/table/justice/) records reports, votes and appeals and says
which penalty applies; this module turns a penalty into the game's own facts, classifies a
refused command as one of the seed's violations, and says what becomes of a turn after a
timeout or a refereed attempt. The readings (docs/rules/huaniao.md, 四、违规与仲裁):

* 摸 N 张 (DRAW): from the deck, the seat's draws as usual; a short deck gives what is left
  (p1:89 当牌堆的数量不够摸牌时，停止摸牌). The seed's 「如果牌堆牌數不足則取手牌最多的玩家1張」
  belongs to the forced discard only.
* 弃掉违规牌组中的所有牌，并摸 N 张 (DISCARD_AND_DRAW): the penalty's cards are discarded
  face up wherever they are -- still in the hand (REFEREE: the attempt never left it) or on
  the table (PLAYERS: it was played); cards that are elsewhere are ignored -- then N drawn.
* 下回合不可进行“舞” (NO_WU_NEXT_TURN): the seat's next turn bans function cards and special
  combos, like 天上天下's ban; "next" is the turn after the current one when the seat is in
  the middle of its turn, else its coming turn.
* 强制按正确顺序弃 N 张 (FORCED_DISCARD): N cards in the order 鸟→数量→功能 (within a class,
  the lowest kind first), with no free first card. A hand of fewer than N cards is discarded
  whole and one card is drawn to 补足; with an empty deck one random card is taken from the
  seat holding the most cards (ties: the lowest seat). It does not settle a discard owed.
* 公开手牌1回合 (OPEN_HAND): the hand is open to every seat and spectator for the next N turns
  at the table (N = seats: one round); the cards it draws or passes meanwhile are shown.
* Any penalty that leaves the seat above the hand limit makes it discard down to the limit
  (先摸牌，后弃牌, clause 45) -- at once, or, when the seat has something else to do now (its
  turn, a guess, 换季), right after that action, as with the draw of a 栖.
* A penalty that changes the single card a 曲高和寡 guess is about cancels that guess.
"""

from __future__ import annotations

from typing import Any

from domain import violations as V
from domain.engine import RuleViolation
from domain.huaniao.cards import (
    CARDS,
    CLASS_OF_INDEX,
    I_BIRD,
    I_FLOWER,
    INDEX_OF,
    NUMBER_INDEXES,
    CardClass,
    cards_of,
    kind_counts,
)
from domain.huaniao.commands import ChangeSeason, Discard, EndTurn, PassGuess, Play
from domain.huaniao.events import (
    AttemptPlayed,
    CardTaken,
    DanceBanned,
    Discarded,
    DiscardRequired,
    Drew,
    GuessingCancelled,
    HandOpened,
    PenaltyDiscarded,
    Perched,
    PlayRestarted,
    Transfer,
)
from domain.huaniao.options import Combo, Options, daylight_rule1, daylight_rule3, has_seasons
from domain.huaniao.rules import (
    _Builder,
    _end_song,
    _open_discards,
    _settle,
    decide,
    enforced_limit,
    hand_open,
    seasons_of,
    to_act,
)
from domain.huaniao.state import HuaniaoState
from domain.huaniao.terms import Cause, Phase, Season

RULE = "违规与仲裁"

# --- which refusal is which of the seed's violations (四、1 违规行为分类与定义) -------------

# A Play refused for one of these reasons is 非法组合: the cards (as declared) are not a
# combination this table allows -- a combo outside the mode (风花雪月 without seasons), one
# 静夜 bans or a ban of 天上天下 / 凉风有幸 forbids, or a wrong unit/number structure.
ILLEGAL_COMBO_REASONS = frozenset(
    {
        "ILLEGAL_COMBO",
        "COMBO_BANNED",
        "ILLEGAL_COMBINATION",
        "NUMBER_CARDS_ALONE",
        "TOO_MANY_NUMBER_CARDS",
        "FLOWER_CARRIES_NUMBERS",
        "TWIN_SWALLOWS_NEEDS_TWO_BIRDS",
        "DANCE_BANNED",
        "BANNED_BY_LIANG_FENG_YOU_XING",
    }
)
# 错误宣告特效: a special combo or function card whose effect is declared wrongly (or not
# at all): a combo the cards do not form, an undeclared combo, a missing or impossible
# 天上天下 announcement, a missing or wrong 风/月/凉风有幸 target, no season chosen.
WRONG_DECLARATION_REASONS = frozenset(
    {
        "WRONG_DECLARATION",
        "COMBO_NOT_DECLARED",
        "ANNOUNCE_REQUIRED",
        "TARGET_REQUIRED",
        "TARGET_SELF",
        "TARGET_MUST_BE_NEXT",
        "CHOSEN_SEASON_REQUIRED",
    }
)
# 未宣告或遵守季节规则: no season declared, the wrong one, or (see violation_of) a play only a
# season the seat is not in allows.
SEASON_RULE_REASONS = frozenset({"SEASON_NOT_DECLARED", "WRONG_SEASON"})
# 弃牌违规: the order 鸟→数量→功能 broken, or the wrong number discarded (超限弃牌时未遵守规则).
DISCARD_REASONS = frozenset({"DISCARD_ORDER", "WRONG_DISCARD_COUNT"})
# 其他违规: the opening verse owed at a table where it is REQUIRED (a ritual: the seed's
# violation table has no penalty of its own for it, so it is handled as the enforcement mode
# handles its other violations).
OTHER_REASONS = frozenset({"VERSE_REQUIRED"})
# Everything else is refused in every enforcement mode: protocol problems (NOT_YOUR_TURN,
# CARD_NOT_HELD, GAME_OVER, NOT_DEALT, a malformed command) and ordinary refusals the seed's
# chapter does not list: the count (MUST_FOLLOW, MUST_RAISE, COUNT_TOO_LOW), the opening
# (OPENING_NEEDS_BIRD), NO_CARDS, and 栖 while a play is possible (MUST_PLAY).

SPRING_FLOWER_CAP = 3  # 春: a flower carries up to three number cards


def violation_of(
    s: HuaniaoState, command: Any, error: RuleViolation
) -> tuple[V.ViolationKind, tuple[int, ...]] | None:
    """Which of the seed's violations a refused command is, with the cards it involves."""
    reason = error.reason
    if not isinstance(command, Play | Discard) or not _held(s, command):
        return None
    cards = tuple(sorted(command.cards))
    if isinstance(command, Discard):
        if reason in DISCARD_REASONS:
            return V.ViolationKind.DISCARD_ORDER, cards
        return None
    if reason in SEASON_RULE_REASONS:
        return V.ViolationKind.SEASON_RULE, cards
    if reason == "TOO_MANY_NUMBER_CARDS" and _only_spring_allows(s, command):
        return V.ViolationKind.SEASON_RULE, cards
    if reason in ILLEGAL_COMBO_REASONS:
        return V.ViolationKind.ILLEGAL_COMBO, cards
    if reason in WRONG_DECLARATION_REASONS:
        return V.ViolationKind.WRONG_DECLARATION, cards
    if reason in OTHER_REASONS:
        return V.ViolationKind.OTHER, cards
    return None


def _held(s: HuaniaoState, command: Play | Discard) -> bool:
    cards = command.cards
    if not isinstance(cards, tuple | list) or not cards or len(set(cards)) != len(cards):
        return False
    seat = command.seat
    if not isinstance(seat, int) or not 0 <= seat < s.seat_count:
        return False
    return set(cards) <= set(s.hands[seat].cards)


def _only_spring_allows(s: HuaniaoState, command: Play) -> bool:
    """Flowers carrying three number cards: legal in 春 only (p1:145)."""
    if not has_seasons(s.options) or Season.SPRING in seasons_of(s, command.seat):
        return False
    vec = kind_counts(command.cards)
    numbers = sum(vec[i] for i in NUMBER_INDEXES)
    return bool(vec[I_FLOWER]) and numbers <= vec[I_BIRD] + SPRING_FLOWER_CAP * vec[I_FLOWER]


# --- penalties ---------------------------------------------------------------------------


def penalty_facts(s: HuaniaoState, seat: int, penalty: V.Penalty) -> list[Any]:
    """The facts executing ``penalty`` on ``seat`` (readings in the module docstring)."""
    kind = penalty.kind
    if kind not in SUPPORTED:
        raise RuleViolation(
            "PENALTY_NOT_SUPPORTED", RULE, f"花鸟风月 has no game facts for {kind.name}"
        )
    if s.phase in (Phase.DEALING, Phase.ENDED) or not 0 <= seat < s.seat_count:
        return []
    count = max(0, penalty.count)
    b = _Builder(s)
    if kind is V.PenaltyKind.DRAW:
        _penalty_draw(b, seat, count)
    elif kind is V.PenaltyKind.DISCARD_AND_DRAW:
        _discard_violating(b, seat, penalty.cards)
        _penalty_draw(b, seat, count)
    elif kind is V.PenaltyKind.NO_WU_NEXT_TURN:
        b.emit(DanceBanned(seat, s.turns_taken[seat] + (1 if _mid_turn(s, seat) else 0)))
    elif kind is V.PenaltyKind.FORCED_DISCARD:
        _forced_discard(b, seat, count)
    else:  # OPEN_HAND
        b.emit(HandOpened(seat, cards_of(s.hands[seat].cards), s.seat_count))
    _after_penalty(b, s, seat)
    return b.events


SUPPORTED = frozenset(
    {
        V.PenaltyKind.DRAW,
        V.PenaltyKind.DISCARD_AND_DRAW,
        V.PenaltyKind.NO_WU_NEXT_TURN,
        V.PenaltyKind.FORCED_DISCARD,
        V.PenaltyKind.OPEN_HAND,
    }
)


def _mid_turn(s: HuaniaoState, seat: int) -> bool:
    """``seat``'s turn has begun and is not over yet."""
    return s.turn == seat and (s.phase == Phase.PLAYING or s.extra_actions > 0)


def _penalty_draw(b: _Builder, seat: int, count: int) -> None:
    top = b.state.deck[:count]
    if top:
        b.emit(Drew(seat, cards_of(top), len(top), Cause.PENALTY, hand_open(b.state, seat)))


def _discard_violating(b: _Builder, seat: int, cards: tuple[int, ...]) -> None:
    s = b.state
    wanted = list(dict.fromkeys(c for c in cards if isinstance(c, int)))
    held = set(s.hands[seat].cards)
    on_table = set(s.played)
    in_hand = tuple(sorted(c for c in wanted if c in held))
    from_table = tuple(sorted(c for c in wanted if c in on_table and c not in held))
    if in_hand:
        b.emit(PenaltyDiscarded(seat, cards_of(in_hand), False))
    if from_table:
        b.emit(PenaltyDiscarded(seat, cards_of(from_table), True))


def in_discard_order(o: Options, hand: tuple[int, ...], count: int) -> tuple[int, ...]:
    """``count`` cards of ``hand`` in the order 鸟→数量→功能 (lowest kind first in a class;
    under 白昼规则1 花风月 are birds)."""
    birds = daylight_rule1(o)

    def key(c: int) -> tuple[int, int, int]:
        k = INDEX_OF[c]
        if birds and k >= I_FLOWER:
            return (CardClass.BIRD.value, 0, c)
        return (CLASS_OF_INDEX[k].value, k, c)

    return tuple(sorted(sorted(hand, key=key)[:count]))


def _forced_discard(b: _Builder, seat: int, count: int) -> None:
    if count <= 0:
        return
    s = b.state
    hand = s.hands[seat].cards
    if len(hand) >= count:
        b.emit(PenaltyDiscarded(seat, cards_of(in_discard_order(s.options, hand, count)), False))
        return
    # 若手牌的数量小于需要弃置的牌，则需要弃完自己所有手牌以后摸1张手牌补足，
    # 如果牌堆牌数不足则取手牌最多的玩家1张手牌
    if hand:
        b.emit(PenaltyDiscarded(seat, cards_of(hand), False))
    if b.state.deck:
        _penalty_draw(b, seat, 1)
        return
    s = b.state
    sizes = [len(h.cards) if i != seat else -1 for i, h in enumerate(s.hands)]
    giver = sizes.index(max(sizes))
    if sizes[giver] <= 0:
        return
    from_hand = s.hands[giver].cards
    card = from_hand[b.rng().randrange(len(from_hand))]
    shown = hand_open(s, giver) or hand_open(s, seat)
    b.emit(CardTaken(Transfer(giver, seat, CARDS[card], shown), Cause.PENALTY))


def _after_penalty(b: _Builder, before: HuaniaoState, seat: int) -> None:
    s = b.state
    target = s.guess_target
    if target is not None and s.hands[target].cards != before.hands[target].cards:
        b.emit(GuessingCancelled(target))
        s = b.state
    limit = enforced_limit(s)
    if limit is not None and s.phase != Phase.ENDED:
        size = len(s.hands[seat].cards)
        owed = next((p.count for p in s.pending_discards if p.seat == seat), 0)
        excess = size - limit - owed
        busy = seat in to_act(s) and s.phase != Phase.DISCARDING
        if excess > 0 and not busy:
            b.emit(DiscardRequired(seat, excess, (Cause.HAND_LIMIT,)))
    _settle(b)


# --- what becomes of a turn --------------------------------------------------------------


def timeout_facts(s: HuaniaoState, seat: int) -> list[Any]:
    """出牌超时, after its 摸1张: the server does what the seat was on the clock for.

    * its turn to play is taken as 栖, without 栖's own draw (the penalty's card is it); with
      the deck empty that 栖 ends the song (一曲终了), so a seat that never acts cannot stall
      the game;
    * a discard it owes is made for it in the order 鸟→数量→功能 (no free first card);
    * a 曲高和寡 guess is passed (guessing is optional);
    * 繁花似锦's extra actions left are declined (they are optional);
    * 换季 is declared for it.
    """
    if s.phase == Phase.DISCARDING:
        owed = next((p.count for p in s.pending_discards if p.seat == seat), 0)
        if owed:
            hand = s.hands[seat].cards
            return decide(s, Discard(seat, in_discard_order(s.options, hand, owed)))
        return []
    if s.phase == Phase.GUESSING and seat in to_act(s):
        return decide(s, PassGuess(seat))
    if s.phase == Phase.PLAYING and s.turn == seat and s.extra_actions > 0:
        return decide(s, EndTurn(seat))
    if s.phase == Phase.CHANGING_SEASON and s.season_change_by == seat:
        return decide(s, ChangeSeason(seat))
    if s.phase == Phase.PLAYING and s.turn == seat:
        return _perch_without_draw(s, seat)
    return []


def discard_owed(s: HuaniaoState, seat: int) -> int:
    """The size of ``seat``'s latest discard window: what it owes now, or owed at its last
    discard (弃牌违规's 上个回合违规时需要丢弃的牌的数量, p2:45, is read from it at a violation)."""
    return s.discard_windows[seat] if s.discard_windows else 0


def penalised_turn_facts(s: HuaniaoState, seat: int) -> list[Any]:
    """REFEREE: after a refereed attempt and its penalty.

    * A play attempt was the seat's action: the turn is taken as 栖 without 栖's draw (the
      penalty drew already), so each attempt moves the game on; with the deck empty that 栖
      ends the song, as any 栖 would.
    * A discard attempt leaves the discard owed: the seat must still make it, correctly (a
      warning the first time; each later attempt forces a discard, so the hand shrinks). A
      forced discard that took the whole hand settles it; a turn of its own still comes.
    """
    if any(p.seat == seat for p in s.pending_discards):
        return []
    if not s.hands[seat].cards and s.deck:
        # only a forced discard leaves an empty hand while the deck has cards (a play
        # attempt's penalty draws): the discard attempt's seat owes nothing more, and a
        # turn of its own that comes next is still to be played
        return []
    if s.phase in (Phase.PLAYING, Phase.GUESSING) and s.turn == seat:
        return _perch_without_draw(s, seat)
    return []


def _perch_without_draw(s: HuaniaoState, seat: int) -> list[Any]:
    """rules._decide_perch without the draw and without its MUST_PLAY check."""
    b = _Builder(s)
    b.emit(Perched(seat))
    if not s.deck:
        _end_song(b, "DECK_EXHAUSTED", None)
        return b.events
    if daylight_rule3(s.options) and b.state.consecutive_perches >= s.seat_count:
        b.emit(PlayRestarted(seat))
    _open_discards(b, {})
    _settle(b)
    return b.events


# --- PLAYERS: a forbidden command as played ------------------------------------------------


def play_as_attempt(s: HuaniaoState, command: Any) -> list[Any]:
    """PLAYERS: the facts of a forbidden command as played (the honour system).

    * A forbidden play (AttemptPlayed) puts its cards on the table and ends the seat's action,
      with no effect and no count: the next seat still answers the last legal 吟/诵, the
      opening verse stays owed, nothing is drawn, the hand limit does not move. It never
      wins: a hand emptied by it plays on (and 栖s). A report can then discard those cards
      from the table and make the seat draw.
    * A forbidden discard stands as made (Discarded): the cards go face up and the discard
      owed is settled.
    """
    try:
        return decide(s, command)  # not forbidden after all: the ordinary facts
    except RuleViolation as error:
        if violation_of(s, command, error) is None:
            raise
        b = _Builder(s)
        seat = command.seat
        ids = tuple(sorted(command.cards))
        if isinstance(command, Discard):
            b.emit(Discarded(seat, cards_of(ids)))
            _settle(b)
            return b.events
        b.emit(
            AttemptPlayed(
                seat,
                cards_of(ids),
                error.reason,
                command.combo if isinstance(command.combo, Combo) else None,
                _seat_or_none(s, command.target),
                command.announce if _small_int(command.announce) else None,
                command.season if isinstance(command.season, Season) else None,
                command.chosen_season if isinstance(command.chosen_season, Season) else None,
            )
        )
        _open_discards(b, {})
        _settle(b)
        return b.events


def _seat_or_none(s: HuaniaoState, value: Any) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value < s.seat_count
    return value if ok else None


def _small_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -1000 <= value <= 1000
