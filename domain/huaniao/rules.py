"""decide / evolve / legal_commands for 花鸟风月.

``decide`` never touches the state it is given: it folds every fact it emits into a scratch
copy (with ``evolve``) so that later facts of the same command see earlier ones, and returns
the facts. ``evolve`` applies one fact and never fails or decides; facts that came from
chance (the 花鸟风月 exchange, 曲高和寡 taking, the 大对决 deal) name their outcome.
"""

from __future__ import annotations

import hashlib
import random
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import fields, replace
from functools import lru_cache
from typing import Any

from domain.engine import (
    InvalidOptions,
    MadeWhenRead,
    MalformedCommand,
    NotYourTurn,
    RuleViolation,
    remembers_folds,
    replaced,
)
from domain.huaniao.cards import (
    CARDS,
    I_BIRD,
    I_FLOWER,
    I_MOON,
    I_WIND,
    INDEX_OF,
    NUMBER_INDEXES,
    SCORE,
    CardClass,
    card_class,
    cards_of,
    kind_counts,
)
from domain.huaniao.commands import (
    ChangeSeason,
    Discard,
    EndTurn,
    Guess,
    PassGuess,
    Perch,
    Play,
    Recite,
)
from domain.huaniao.events import (
    AttemptPlayed,
    CardsExchanged,
    CardTaken,
    DanceBanned,
    Dealt,
    Discarded,
    DiscardRequired,
    Drew,
    ExtraActionsDeclined,
    GameEnded,
    GuessesRevealed,
    GuessingCancelled,
    GuessingOpened,
    GuessMade,
    HandLimitChanged,
    HandOpened,
    HandsRecovered,
    LeaderChosen,
    PenaltyDiscarded,
    Perched,
    Played,
    PlayRestarted,
    Recited,
    SeasonChanged,
    SeatGuess,
    ShowdownDealt,
    ShowdownHand,
    SongEnded,
    Transfer,
)
from domain.huaniao.options import (
    Combo,
    LeaderTie,
    Options,
    VerseRule,
    available_combos,
    check_options,
    daylight_rule1,
    daylight_rule2,
    daylight_rule3,
    deck_size,
    has_hand_limit,
    has_seasons,
)
from domain.huaniao.plays import (
    UNLIMITED,
    LegalShapes,
    PlayRules,
    PlayShape,
    Vec,
    classify,
    discard_choices,
    legal_shapes,
)
from domain.huaniao.state import (
    Hand,
    HuaniaoState,
    LastPlay,
    PendingDiscard,
    PendingGuess,
    Recital,
    SeatSeasons,
)
from domain.huaniao.terms import (
    CLOSING_VERSE,
    CLOSING_VERSE_SIMPLIFIED,
    OPENING_VERSE,
    OPENING_VERSE_TRADITIONAL,
    PATTERN_PRIORITY,
    SHOWDOWN_CHANT,
    SHOWDOWN_CHANT_SHORT,
    SHOWDOWN_CHANT_SIMPLIFIED,
    Cause,
    Need,
    Phase,
    PlayKind,
    Season,
    ShowdownPattern,
    Verse,
    next_season,
)

HAND_SIZE = 8  # 每人发8张牌
BASE_LIMIT, MIN_LIMIT, MAX_LIMIT = 8, 4, 12  # 基础上限8张（最高12张，最低4张）
LIMIT_DELTA = {
    Combo.TIANSHANG_TIANXIA: -2,
    Combo.QUE_WU_MAN_SHAN: -1,
    Combo.HUA_NIAO_FENG_YUE: +1,
    Combo.LIANG_FENG_YOU_XING: +2,
}

# Enum members bound once for the functions that run on every move. Why: on Python 3.11
# reading a member through its Enum class goes through the metaclass's ``__getattr__`` hook
# (~0.1 µs, ten times a plain global), and a move read some thirty to fifty (P4).
_DEALING, _PLAYING, _DISCARDING = Phase.DEALING, Phase.PLAYING, Phase.DISCARDING
_GUESSING, _CHANGING_SEASON, _ENDED = Phase.GUESSING, Phase.CHANGING_SEASON, Phase.ENDED
_OPENING_PLAY, _WU = PlayKind.OPENING, PlayKind.WU
_SEASON_COMBOS = (Combo.FENG_HUA_XUE_YUE, Combo.WAN_ZI_QIAN_HONG)  # a season is chosen
_TIANSHANG_TIANXIA = Combo.TIANSHANG_TIANXIA
_WARM_SEASONS = (Season.SPRING, Season.SUMMER)

SHOWDOWN_HAND = 4
MAX_SHOWDOWN_ROUNDS = 1000


# ==========================================================================================
# setup


def seat_counts(options: Options) -> tuple[int, ...]:
    """建议游戏人数：4人 -- four is suggested; two and three seats play the same rules."""
    return (2, 3, 4)


def new_deck(options: Options) -> tuple[int, ...]:
    """All 108 cards; 简易 keeps 花风月 as birds (白昼规则1), or drops them (ids 0-89) with
    ``simple_without_function_cards``."""
    return tuple(range(deck_size(check_options(options))))


def initial_state(
    options: Options, seat_count: int, deal: tuple[int, ...], seed: int
) -> HuaniaoState:
    options = check_options(options)
    if seat_count not in seat_counts(options):
        raise InvalidOptions("seat_count", f"花鸟风月 is played by 2 to 4 seats, not {seat_count}")
    deal = tuple(deal)
    if sorted(deal) != list(range(deck_size(options))):  # new_deck, options checked above
        raise MalformedCommand("deal", "the deal must be a permutation of new_deck(options)")
    n = seat_count
    return HuaniaoState(
        options=options,
        seat_count=n,
        seed=int(seed),
        chance=chance_seed(deal),
        rng_counter=0,
        deck=deal,
        hands=(Hand(()),) * n,
        turns_taken=(0,) * n,
        seat_seasons=(SeatSeasons(),) * n,
        season=Season.SPRING if has_seasons(options) else None,
        hand_limit=BASE_LIMIT if has_hand_limit(options) else None,
        dance_ban_at=(-1,) * n,
        cool_ban_at=(-1,) * n,
        wu_ban_at=(-1,) * n,
        open_hand_until=(-1,) * n,
        guessed_at_one=(False,) * n,
        verse_due=options.verse is VerseRule.REQUIRED,
        discard_windows=(0,) * n,
    )


def chance_seed(deal: tuple[int, ...]) -> int:
    """The seed of the game's generator (the 花鸟风月 exchange, 曲高和寡, the 大对决, ...).

    It is derived from the committed deal rather than from the table's seed: a shuffled deal is
    itself a function of the unchoosable shuffle seed, so nobody can choose it any more than the
    deal; and a prepared deal fixes every later chance as well, so a prepared game -- its
    大对决 included -- replays the same for a test or a dispute."""
    body = "huaniao-chance|" + ",".join(map(_ID_TEXT.__getitem__, deal))
    return int(hashlib.sha256(body.encode()).hexdigest()[:16], 16)


_ID_TEXT = tuple(str(i) for i in range(108))  # str(id) of every card (chance_seed, per game)


def deal(state: HuaniaoState) -> list[Any]:
    """每人发8张牌，鸟牌最多者先手 (a tie: ``Options.leader_tie``)."""
    if state.phase != Phase.DEALING:
        raise RuleViolation("ALREADY_DEALT", "起始", "the cards have been dealt")
    b = _Builder(state)
    for seat in range(state.seat_count):
        top = b.state.deck[:HAND_SIZE]
        b.emit(Dealt(seat, cards_of(top), len(top)))
    birds = [kinds(state.options, h.cards)[I_BIRD] for h in b.state.hands]
    tied = tuple(seat for seat, n in enumerate(birds) if n == max(birds))
    if len(tied) > 1 and state.options.leader_tie is LeaderTie.RANDOM:
        b.emit(LeaderChosen(tied[b.rng().randrange(len(tied))], tied))
    else:
        b.emit(LeaderChosen(tied[0]))
    return b.events


# ==========================================================================================
# derived facts about a state


def kinds(o: Options, ids: Any) -> Vec:
    """The kind vector of ``ids`` as this table counts them: under 白昼规则1 (简易) 花风月 are
    birds in every respect (plays, discards, scores, the 大对决)."""
    v = kind_counts(ids)
    if (v[I_FLOWER] or v[I_WIND] or v[I_MOON]) and daylight_rule1(o):
        return (v[I_BIRD] + v[I_FLOWER] + v[I_WIND] + v[I_MOON], *v[1:5], 0, 0, 0)
    return v


def score_of(o: Options, ids: Any) -> int:
    """牌类分值 (p2:79-85) of ``ids`` as this table counts them."""
    v = kinds(o, ids)
    return sum(SCORE[k] * v[k] for k in range(8))


def enforced_limit(s: HuaniaoState) -> int | None:
    """The hand limit a seat must discard down to, if any: 如果在削减手牌上限期间，超出了手牌持有
    上限，需要…弃牌 (p1:119) -- only while the limit is below its base of 8, unless the table
    holds it at all times (``hand_limit_always``)."""
    limit = s.hand_limit
    if limit is None or (limit >= BASE_LIMIT and not s.options.hand_limit_always):
        return None
    return limit


def seasons_of(s: HuaniaoState, seat: int) -> tuple[Season, ...]:
    """The seasons whose rules ``seat`` follows now: the table's (or 风花雪月's) + 万紫千红's."""
    if s.season is None:
        return ()
    ss = s.seat_seasons[seat]
    override = ss.override if ss.override is not None and s.round <= ss.override_until else None
    if ss.extra is not None and s.round == ss.extra_until:
        # 万紫千红's example (p1:163): played in 春 choosing 秋, next round 春+秋 -- the season
        # the seat played it in stays, beside the one it chose
        base = override or ss.extra_with or s.season
        return (base, ss.extra) if ss.extra != base else (base,)
    return (override or s.season,)


def declared_season(s: HuaniaoState, seat: int) -> Season | None:
    seasons = seasons_of(s, seat)
    return seasons[0] if seasons else None


_PLAY_RULES: dict[tuple[Any, ...], tuple[Options, PlayRules]] = {}


def _play_rules(
    options: Options, seasons: tuple[Season, ...], dance_banned: bool, cool_banned: bool
) -> PlayRules:
    """``_make_play_rules``, remembered per options object (why: asked for every legal
    command and every play, and a look-up keyed on the options' value hashed their twenty
    fields each time; ``check_options`` answers one object per table's options). Entries
    keep their options alive and are checked by identity, so a reused ``id`` never answers
    for another object."""
    key = (id(options), seasons, dance_banned, cool_banned)
    hit = _PLAY_RULES.get(key)
    if hit is not None and hit[0] is options:
        return hit[1]
    made = _make_play_rules(options, seasons, dance_banned, cool_banned)
    if len(_PLAY_RULES) >= 4096:
        _PLAY_RULES.clear()
    _PLAY_RULES[key] = (options, made)
    return made


def _make_play_rules(
    options: Options, seasons: tuple[Season, ...], dance_banned: bool, cool_banned: bool
) -> PlayRules:
    spring = Season.SPRING in seasons
    summer = Season.SUMMER in seasons
    return PlayRules(
        flowers_are_units=not options.blossoms,
        bird_cap=UNLIMITED if options.continuo else 1,
        flower_cap=UNLIMITED if options.continuo else (3 if spring else 2),
        bird_bonus=1 if summer else 0,
        combos=available_combos(options),
        banned=options.silent_night,
        twin_swallows=options.twin_swallows,
        flower_dance=options.blossoms,
        continuo=options.continuo,
        dance_banned=dance_banned,
        cool_banned=cool_banned,
        cool_all_four=options.cool_breeze_all_four,
    )


def dance_banned(s: HuaniaoState, seat: int) -> bool:
    """No 舞 now: 天上天下's user on its next turn, or a seat penalised for the season rule
    (下回合不可进行“舞”). Both bans forbid the same plays (function cards, special combos)."""
    turn = s.turns_taken[seat]
    return s.dance_ban_at[seat] == turn or bool(s.wu_ban_at) and s.wu_ban_at[seat] == turn


def total_turns(s: HuaniaoState) -> int:
    """Turns completed at the table so far (the clock of 公开手牌1回合)."""
    return sum(s.turns_taken)


def hand_open(s: HuaniaoState, seat: int) -> bool:
    """公开手牌: ``seat``'s hand is open to everyone (a penalty, for one round)."""
    return bool(s.open_hand_until) and total_turns(s) < s.open_hand_until[seat]


def play_rules(s: HuaniaoState, seat: int) -> PlayRules:
    return _play_rules(
        s.options,
        seasons_of(s, seat),
        dance_banned(s, seat),
        s.cool_ban_at[seat] == s.turns_taken[seat],
    )


def hand_vec(s: HuaniaoState, seat: int) -> Vec:
    return kinds(s.options, s.hands[seat].cards)


def shapes_for(s: HuaniaoState, seat: int) -> LegalShapes | tuple[()]:
    return legal_shapes(hand_vec(s, seat), play_rules(s, seat), s.need, s.reference)


def to_act(s: HuaniaoState) -> tuple[int, ...]:
    if s.phase == _PLAYING:
        return (s.turn,)
    if s.phase == _DISCARDING:
        return tuple(p.seat for p in s.pending_discards)
    if s.phase == Phase.GUESSING:
        done = {g.seat for g in s.guesses}
        return tuple(
            seat for seat in range(s.seat_count) if seat != s.guess_target and seat not in done
        )
    if s.phase == Phase.CHANGING_SEASON and s.season_change_by is not None:
        return (s.season_change_by,)
    return ()


# ==========================================================================================
# evolve


def _set_hand(hands: tuple[Hand, ...], seat: int, cards: tuple[int, ...]) -> tuple[Hand, ...]:
    return hands[:seat] + (Hand(tuple(sorted(cards))),) + hands[seat + 1 :]


def _without(cards: tuple[int, ...], remove: tuple[int, ...]) -> tuple[int, ...]:
    gone = set(remove)
    return tuple(c for c in cards if c not in gone)


def _put(t: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return t[:i] + (value,) + t[i + 1 :]


Changes = dict[str, Any]  # the fields one fact changes, made in one copy of the state


def _hands_changed(s: HuaniaoState, hands: tuple[Hand, ...], changes: Changes) -> Changes:
    """Replace the hands; a seat no longer at one card may be guessed again (曲高和寡). An
    owed discard never exceeds the hand (a penalty may take cards from a seat that owes)."""
    guessed = s.guessed_at_one
    if True in guessed:
        guessed = tuple(g and len(h.cards) == 1 for g, h in zip(guessed, hands, strict=True))
    pending = changes.get("pending_discards", s.pending_discards)
    if pending:
        clamped = tuple(
            PendingDiscard(p.seat, min(p.count, len(hands[p.seat].cards)))
            for p in pending
            if hands[p.seat].cards
        )
        if clamped != pending:
            changes["pending_discards"] = clamped
    changes["hands"] = hands
    changes["guessed_at_one"] = guessed
    return changes


def _end_action(s: HuaniaoState, seat: int, changes: Changes) -> Changes:
    """One action done: the turn passes on unless 繁花似锦 actions remain. ``changes`` are the
    fact's other changes (none of the fields read here but ``extra_actions``)."""
    extra = changes.get("extra_actions", s.extra_actions)
    if extra > 0:
        changes["extra_actions"] = extra - 1
        if extra > 1:
            return changes
    n = s.seat_count
    turn_in_round = s.turn_in_round + 1
    closer = seat if has_seasons(s.options) and turn_in_round >= n else s.season_change_by
    changes["turns_taken"] = _put(s.turns_taken, seat, s.turns_taken[seat] + 1)
    changes["turn_in_round"] = turn_in_round
    changes["turn"] = (seat + 1) % n
    changes["season_change_by"] = closer
    return changes


def _next_need(s: HuaniaoState, kind: PlayKind) -> Need:
    o = s.options
    if o.continuo:
        return Need.SONG  # 连奏: 不能吟，只许诵和舞
    if kind == _OPENING_PLAY or daylight_rule2(o):
        return Need.ANY  # the right to decide 吟诵 / 白昼规则2 取消吟诵的限制
    return Need.SONG if kind == PlayKind.YIN else Need.YIN


@remembers_folds
def evolve(s: HuaniaoState, e: Any) -> HuaniaoState:
    """One copy of the state per fact (why: a copy of this 40-field state was the largest
    part of ``evolve`` in the engine's profile, made two to four times per fact): the fact's
    changes are collected first, then the phase that follows from them."""
    changes = _apply(s, e)
    get = changes.get
    phase = get("phase", s.phase)
    if phase != _DEALING:
        if get("end_reason", s.end_reason):
            phase = _ENDED
        elif get("pending_discards", s.pending_discards):
            phase = _DISCARDING
        elif get("guess_target", s.guess_target) is not None:
            phase = _GUESSING
        elif get("season_change_by", s.season_change_by) is not None:
            phase = _CHANGING_SEASON
        else:
            phase = _PLAYING
    if phase != s.phase or "phase" in changes:
        changes["phase"] = phase
    return replaced(s, **changes) if changes else s


def _apply(s: HuaniaoState, e: Any) -> Changes:  # noqa: C901 - one branch per fact
    t = type(e)
    if t is Played:
        return _apply_played(s, e)
    if t is Perched:
        return _end_action(s, e.seat, {"consecutive_perches": s.consecutive_perches + 1})
    if t is Drew:
        ids = tuple(c.id for c in e.cards)
        hands = _set_hand(s.hands, e.seat, s.hands[e.seat].cards + ids)
        return _hands_changed(s, hands, {"deck": s.deck[len(ids) :]})
    if t is DiscardRequired:
        # one window per seat: a penalty's excess over the hand limit adds to a discard owed
        owed = next((p.count for p in s.pending_discards if p.seat == e.seat), 0)
        others = tuple(p for p in s.pending_discards if p.seat != e.seat)
        windows = s.discard_windows or (0,) * s.seat_count
        return {
            "pending_discards": others + (PendingDiscard(e.seat, owed + e.count),),
            "discard_windows": _put(windows, e.seat, owed + e.count),
        }
    if t is Discarded:
        ids = tuple(c.id for c in e.cards)
        hands = _set_hand(s.hands, e.seat, _without(s.hands[e.seat].cards, ids))
        pending = tuple(p for p in s.pending_discards if p.seat != e.seat)
        return _hands_changed(
            s, hands, {"discarded": s.discarded + ids, "pending_discards": pending}
        )
    if t is Dealt:
        ids = tuple(c.id for c in e.cards)
        hands = _set_hand(s.hands, e.seat, ids)
        return _hands_changed(s, hands, {"deck": s.deck[len(ids) :]})
    if t is LeaderChosen:
        return {
            "phase": Phase.PLAYING,
            "turn": e.seat,
            "leader": e.seat,
            "need": Need.OPENING,
            "rng_counter": s.rng_counter + (1 if e.tied else 0),
        }
    if t is HandLimitChanged:
        return {"hand_limit": e.limit}
    if t is CardsExchanged or t is CardTaken:
        transfers = e.transfers if t is CardsExchanged else (e.transfer,)
        hands = s.hands
        for tr in transfers:
            cid = tr.card.id
            hands = _set_hand(hands, tr.from_seat, _without(hands[tr.from_seat].cards, (cid,)))
        for tr in transfers:
            hands = _set_hand(hands, tr.to_seat, hands[tr.to_seat].cards + (tr.card.id,))
        return _hands_changed(s, hands, {"rng_counter": s.rng_counter + 1})
    if t is PlayRestarted:
        return {
            "turn": e.seat,
            "leader": e.seat,
            "need": Need.OPENING,
            "reference": 0,
            "consecutive_perches": 0,
            "extra_actions": 0,
            "turn_in_round": 0,
        }
    if t is GuessingOpened:
        return {
            "guess_target": e.seat,
            "guesses": (),
            "guessed_at_one": _put(s.guessed_at_one, e.seat, True),
        }
    if t is GuessMade:
        guess = None if e.passed else e.card_class
        return {"guesses": s.guesses + (PendingGuess(e.seat, guess),)}
    if t is GuessesRevealed:
        return {"guess_target": None, "guesses": ()}
    if t is SeasonChanged:
        return {
            "season": e.season,
            "round": e.round,
            "turn_in_round": 0,
            "season_change_by": None,
        }
    if t is SongEnded:
        return {}
    if t is HandsRecovered:
        pool = tuple(sorted(c for h in s.hands for c in h.cards))
        return _hands_changed(s, (Hand(()),) * s.seat_count, {"pool": pool})
    if t is ShowdownDealt:
        return _apply_showdown(s, e)
    if t is GameEnded:
        return {
            "winners": e.winners,
            "scores": e.scores,
            "end_reason": e.reason,
            "phase": Phase.ENDED,
        }
    if t is PenaltyDiscarded:
        ids = tuple(c.id for c in e.cards)
        if e.from_table:
            return {"played": _without(s.played, ids), "discarded": s.discarded + ids}
        hands = _set_hand(s.hands, e.seat, _without(s.hands[e.seat].cards, ids))
        return _hands_changed(s, hands, {"discarded": s.discarded + ids})
    if t is DanceBanned:
        bans = s.wu_ban_at or (-1,) * s.seat_count
        return {"wu_ban_at": _put(bans, e.seat, e.turn)}
    if t is HandOpened:
        until = s.open_hand_until or (-1,) * s.seat_count
        return {"open_hand_until": _put(until, e.seat, total_turns(s) + e.turns)}
    if t is AttemptPlayed:
        ids = tuple(c.id for c in e.cards)
        hands = _set_hand(s.hands, e.seat, _without(s.hands[e.seat].cards, ids))
        changes = {"played": s.played + ids, "consecutive_perches": 0}
        return _end_action(s, e.seat, _hands_changed(s, hands, changes))
    if t is ExtraActionsDeclined:
        return _end_action(s, e.seat, {"extra_actions": 0})
    if t is Recited:
        return {"recitals": s.recitals + (Recital(e.seat, e.verse),)}
    if t is GuessingCancelled:
        return {
            "guess_target": None,
            "guesses": (),
            "guessed_at_one": _put(s.guessed_at_one, e.seat, False),
        }
    raise TypeError(f"not a huaniao event: {e!r}")


def _apply_played(s: HuaniaoState, e: Played) -> Changes:
    """The fields read from ``s`` are never among those changed before they are read (the
    hands, the table, the references; the turn only at the end), so all read ``s``."""
    seat = e.seat
    ids = tuple(c.id for c in e.cards)
    hands = _set_hand(s.hands, seat, _without(s.hands[seat].cards, ids))
    changes = _hands_changed(
        s,
        hands,
        {
            "played": s.played + ids,
            "last_play": LastPlay(seat, ids, e.kind, e.count, e.combo),
            "consecutive_perches": 0,
        },
    )
    if e.kind != _WU:
        changes["reference"] = e.count
        changes["need"] = _next_need(s, e.kind)
        if e.kind == PlayKind.OPENING:
            changes["verse_due"] = False
        return _end_action(s, seat, changes)
    combo = e.combo
    if combo == Combo.TIANSHANG_TIANXIA and e.announce is not None:
        changes["reference"] = e.announce
    elif combo == Combo.LIANG_FENG_YOU_XING:
        nxt = (seat + 1) % s.seat_count
        changes["cool_ban_at"] = _put(s.cool_ban_at, nxt, s.turns_taken[nxt])
    elif combo == Combo.FENG_HUA_XUE_YUE and e.chosen_season is not None:
        ss = replace(s.seat_seasons[seat], override=e.chosen_season, override_until=s.round + 2)
        changes["seat_seasons"] = _put(s.seat_seasons, seat, ss)
    elif combo == Combo.WAN_ZI_QIAN_HONG and e.chosen_season is not None:
        ss = replace(
            s.seat_seasons[seat],
            extra=e.chosen_season,
            extra_until=s.round + 1,
            extra_with=declared_season(s, seat),
        )
        changes["seat_seasons"] = _put(s.seat_seasons, seat, ss)
    if combo is None and s.options.blossoms and any(INDEX_OF[i] == I_FLOWER for i in ids):
        # 繁花似锦: a single flower gives 2 more actions this turn (3 in 春)
        changes["extra_actions"] = 3 if Season.SPRING in seasons_of(s, seat) else 2
        return changes
    if combo == Combo.TIANSHANG_TIANXIA:
        # 使用者下回合不可出功能牌和特殊牌组: banned while turns_taken equals its next turn's number
        changes["dance_ban_at"] = _put(s.dance_ban_at, seat, s.turns_taken[seat] + 1)
    return _end_action(s, seat, changes)


def _apply_showdown(s: HuaniaoState, e: ShowdownDealt) -> Changes:
    previous = tuple(c.id for h in s.showdown for c in h.cards)
    discarded = s.discarded + previous
    played = s.played
    pool = s.pool
    last_play = s.last_play
    if e.refilled:  # the table's cards went back into the pool, the last play's with them
        pool = tuple(sorted(pool + discarded + played))
        discarded, played, last_play = (), (), None
    dealt = tuple(c.id for h in e.hands for c in h.cards)
    return {
        "pool": _without(pool, dealt),
        "discarded": discarded,
        "played": played,
        "showdown": e.hands,
        "showdown_round": e.round,
        "last_play": last_play,
        "rng_counter": s.rng_counter + 1,
    }


# ==========================================================================================
# decide


class _Builder:
    """Collects facts and keeps a scratch state folded over them."""

    def __init__(self, state: HuaniaoState) -> None:
        self.state = state
        self.events: list[Any] = []

    def emit(self, event: Any) -> None:
        self.events.append(event)
        self.state = evolve(self.state, event)

    def rng(self) -> random.Random:
        s = self.state
        return random.Random(f"huaniao:{s.chance}:{s.rng_counter}")


def decide(s: HuaniaoState, command: Any) -> list[Any]:
    if s.phase == _DEALING:
        raise RuleViolation("NOT_DEALT", "起始", "the cards have not been dealt yet")
    seat = getattr(command, "seat", None)
    if s.phase == _ENDED and type(command) is not Recite:
        raise RuleViolation("GAME_OVER", "一曲终了", "the game is over")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < s.seat_count:
        raise MalformedCommand("seat", f"no seat {seat!r} at this table")
    decider = _DECIDERS.get(type(command))
    if decider is None:
        raise MalformedCommand("command", f"not a huaniao command: {type(command).__name__}")
    return decider(s, command)


def _check_turn(s: HuaniaoState, seat: int) -> None:
    if s.phase != _PLAYING or seat != s.turn:
        waiting = ", ".join(str(x) for x in to_act(s))
        raise NotYourTurn(seat, f"seat {seat} may not play now; waiting for seat(s) {waiting}")


def _card_ids(s: HuaniaoState, seat: int, cards: Any) -> tuple[int, ...]:
    if not isinstance(cards, tuple | list):
        raise MalformedCommand("cards", "a list of card ids")
    limit = deck_size(s.options)
    for c in cards:
        if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < limit:
            raise MalformedCommand("cards", f"{c!r} is not a card id of this deck (0..{limit - 1})")
    if len(set(cards)) != len(cards):
        raise MalformedCommand("cards", "a card id is repeated")
    held = set(s.hands[seat].cards)
    for c in cards:
        if c not in held:
            raise RuleViolation("CARD_NOT_HELD", "手牌", f"seat {seat} does not hold card {c}")
    return tuple(sorted(cards))


def verse_ok(text: str | None) -> bool:
    """The opening verse, simplified or traditional; spaces and punctuation are ignored."""
    if not isinstance(text, str) or not text:
        return False
    return text in _OPENING_VERSES or _norm(text) in _OPENING_VERSES


# the opening verse's two spellings as sent and as normalised, once (why: every game's
# opening play checks it, and normalising the two texts each time was a hundredth of 简易)
_OPENING_VERSES = frozenset(
    (
        OPENING_VERSE,
        OPENING_VERSE_TRADITIONAL,
        "".join(ch for ch in OPENING_VERSE if ch.isalnum()),
        "".join(ch for ch in OPENING_VERSE_TRADITIONAL if ch.isalnum()),
    )
)


def _decide_play(s: HuaniaoState, cmd: Play) -> list[Any]:
    seat = cmd.seat
    _check_turn(s, seat)
    made = _MADE_PLAYS.get(id(cmd))
    if made is not None and made[0] is cmd and made[1] is s:
        ids, shape = cmd.cards, made[2]  # made by ``_legal_plays`` for this very state
    else:
        ids = _card_ids(s, seat, cmd.cards)
        if cmd.combo is not None and not isinstance(cmd.combo, Combo):
            raise MalformedCommand("combo", "unknown combo")
        rules = play_rules(s, seat)
        shape = classify(kinds(s.options, ids), cmd.combo, rules, s.need, s.reference)
    n = s.seat_count

    if shape.kind == PlayKind.OPENING and shape.vec[I_BIRD] == 0 and hand_vec(s, seat)[I_BIRD]:
        raise RuleViolation(
            "OPENING_NEEDS_BIRD", "起始", "出1张鸟牌: a flower only opens for a seat without birds"
        )
    verse = _opening_verse(s, shape, cmd.verse)

    season = None
    if has_seasons(s.options):
        season = declared_season(s, seat)
        if cmd.season is None:
            raise RuleViolation(
                "SEASON_NOT_DECLARED", "四季更替", "出牌前声明自己经历的季节: declare your season"
            )
        if cmd.season != season:
            raise RuleViolation(
                "WRONG_SEASON", "四季更替", f"you are playing in {season.name if season else '-'}"
            )

    target = None
    if shape.single in (I_WIND, I_MOON):
        if cmd.target is None:
            raise RuleViolation(
                "TARGET_REQUIRED",
                "风" if shape.single == I_WIND else "月",
                "name the seat the card is aimed at",
            )
        if not isinstance(cmd.target, int) or not 0 <= cmd.target < n:
            raise MalformedCommand("target", f"no seat {cmd.target!r} at this table")
        if cmd.target == seat:
            raise RuleViolation(
                "TARGET_SELF",
                "风" if shape.single == I_WIND else "月",
                "指定对象不可以是自己: the target cannot be yourself",
            )
        target = cmd.target
    elif shape.combo == Combo.LIANG_FENG_YOU_XING:
        nxt = (seat + 1) % n
        if cmd.target is not None and cmd.target != nxt:
            raise RuleViolation(
                "TARGET_MUST_BE_NEXT", "凉风有幸", f"凉风有幸 names the 下家 (seat {nxt})"
            )
        target = nxt

    announce = None
    if shape.combo == Combo.TIANSHANG_TIANXIA:
        if cmd.announce not in (1, 2, 3):
            raise RuleViolation("ANNOUNCE_REQUIRED", "天上天下", "宣言1-3张: announce 1, 2 or 3")
        announce = cmd.announce

    chosen = None
    if shape.combo in _SEASON_COMBOS:
        if not isinstance(cmd.chosen_season, Season):
            raise RuleViolation(
                "CHOSEN_SEASON_REQUIRED",
                "风花雪月" if shape.combo == Combo.FENG_HUA_XUE_YUE else "万紫千红",
                "choose the season",
            )
        chosen = cmd.chosen_season

    b = _Builder(s)
    snow = _spring_snow(s)
    if snow is not None and not s.options.spring_snow_once_after:
        _spring_snow_before(b, seat, ids, snow)
    b.emit(
        Played(
            seat,
            cards_of(ids),
            shape.kind,
            shape.count,
            shape.combo,
            target,
            announce,
            verse,
            season,
            chosen,
        )
    )
    if not b.state.hands[seat].cards:
        _end_song(b, "HAND_EMPTIED", seat)
        return b.events

    seasons = seasons_of(s, seat)
    draws: list[tuple[int, int, Cause]] = []
    discards: dict[int, tuple[int, list[Cause]]] = {}
    if shape.single == I_WIND and target is not None:
        discards[target] = (2 if Season.WINTER in seasons else 1, [Cause.WIND])
    elif shape.single == I_MOON and target is not None:
        draws.append((target, 2 if Season.AUTUMN in seasons else 1, Cause.MOON))
    combo = shape.combo
    if combo is not None and combo in LIMIT_DELTA and b.state.hand_limit is not None:
        old = b.state.hand_limit
        new = max(MIN_LIMIT, min(MAX_LIMIT, old + LIMIT_DELTA[combo]))
        if new != old:
            b.emit(HandLimitChanged(new, new - old, combo))
    if combo == Combo.HUA_NIAO_FENG_YUE:
        _exchange(b)
    elif combo == Combo.QUE_WU_MAN_SHAN:
        for i in range(n):
            draws.append(((seat + i) % n, 3, Cause.QUE_WU_MAN_SHAN))
    if snow is not None:
        # 阳春白雪's discards (秋/冬) are owed with the play's own: one per card played (before
        # the play: a seat holding no more than that beside its play discarded it all at once)
        # -- or, with ``spring_snow_once_after``, one draw or discard per play, after it
        once = s.options.spring_snow_once_after
        for i in range(1, n + 1):
            other = (seat + i) % n
            if once and snow == "draw":
                draws.append((other, 1, Cause.SPRING_SNOW))
            elif snow == "discard":
                k, causes = discards.get(other, (0, []))
                discards[other] = (k + (1 if once else len(ids)), causes + [Cause.SPRING_SNOW])
    for who, count, cause in draws:
        _draw(b, who, count, cause)
    _open_discards(b, discards)
    _settle(b)
    return b.events


def _opening_verse(s: HuaniaoState, shape: PlayShape, text: str | None) -> str | None:
    """出牌前需吟诵 (p1:55-59, 简化流程: the game's first play): the verse ``Play`` records.

    REQUIRED: the opening owes it (a missing one is ``VERSE_REQUIRED``, which the enforcement
    mode handles as it handles other violations); OPTIONAL: recorded when sent on the game's
    opening play; OFF: never recorded."""
    rule = s.options.verse
    if shape.kind != _OPENING_PLAY or rule is VerseRule.OFF:
        return None
    if rule is VerseRule.REQUIRED and s.verse_due:
        if not verse_ok(text):
            raise RuleViolation(
                "VERSE_REQUIRED",
                "起始",
                f"出牌前需吟诵: the first play recites 「{OPENING_VERSE}」",
            )
        return text
    if rule is VerseRule.OPTIONAL and s.last_play is None and verse_ok(text):
        return text
    return None


def _spring_snow(s: HuaniaoState) -> str | None:
    """阳春白雪 (p1:205-211) at this table now, by the table's season: "draw" in 春/夏,
    "discard" in 秋/冬, None when the rule is off."""
    if not s.options.spring_snow or s.season is None:
        return None
    return "draw" if s.season in _WARM_SEASONS else "discard"


def _spring_snow_before(b: _Builder, seat: int, ids: tuple[int, ...], snow: str) -> None:
    """每打出一张卡，全体玩家在出牌前…摸牌和弃牌 (p1:207): one card per card played, before the play.

    春/夏: every seat draws now (下家 first, the player last); the play was chosen from the hand
    before, so the drawn cards are not part of it. 秋/冬: the discards are owed with the play's
    own effects (先摸牌，后弃牌), except that a player holding no more cards beside its play than
    it owes discards them all first -- the only choice it has -- so the play then empties its
    hand and wins, as the play would after a discard made before it."""
    s = b.state
    n = s.seat_count
    if snow == "draw":
        for i in range(1, n + 1):
            _draw(b, (seat + i) % n, len(ids), Cause.SPRING_SNOW)
        return
    rest = _without(s.hands[seat].cards, ids)
    if rest and len(rest) <= len(ids):
        b.emit(DiscardRequired(seat, len(rest), (Cause.SPRING_SNOW,)))
        b.emit(Discarded(seat, cards_of(rest)))


def _draw(b: _Builder, seat: int, count: int, cause: Cause) -> None:
    """当牌堆的数量不够摸牌时，停止摸牌并继续进行对局."""
    top = b.state.deck[:count]
    if top:
        b.emit(Drew(seat, cards_of(top), len(top), cause, hand_open(b.state, seat)))


def _exchange(b: _Builder) -> None:
    """花鸟风月: 全员按照逆时针交换1张随机手牌 -- each seat gives a random card to its 下家."""
    s = b.state
    rng = b.rng()
    transfers = []
    for seat in range(s.seat_count):
        hand = s.hands[seat].cards
        if hand:
            to = (seat + 1) % s.seat_count
            shown = hand_open(s, seat) or hand_open(s, to)
            transfers.append(Transfer(seat, to, CARDS[hand[rng.randrange(len(hand))]], shown))
    b.emit(CardsExchanged(tuple(transfers)))


def _open_discards(b: _Builder, owed: dict[int, tuple[int, list[Cause]]]) -> None:
    """Effect discards plus whatever exceeds the hand limit, one window per seat."""
    s = b.state
    limit = enforced_limit(s)
    if limit is None and not owed:
        return  # nothing owed and no limit (most plays): no seat discards
    for seat in range(s.seat_count):
        size = len(s.hands[seat].cards)
        k, causes = owed.get(seat, (0, []))
        k = min(k, size)
        causes = list(causes) if k else []
        if limit is not None and size - k > limit:
            k = size - limit
            causes.append(Cause.HAND_LIMIT)
        if k > 0:
            b.emit(DiscardRequired(seat, k, tuple(causes)))


def _settle(b: _Builder) -> None:
    """After the discards: open a 曲高和寡 guess if a hand is down to one card."""
    s = b.state
    if s.end_reason or s.pending_discards or s.guess_target is not None:
        return
    if s.options.lofty_tune:
        for i in range(s.seat_count):
            seat = (s.turn + i) % s.seat_count
            if len(s.hands[seat].cards) == 1 and not s.guessed_at_one[seat]:
                b.emit(GuessingOpened(seat))
                return


def has_legal_play(s: HuaniaoState, seat: int) -> bool:
    return bool(shapes_for(s, seat))


def _decide_perch(s: HuaniaoState, cmd: Perch) -> list[Any]:
    seat = cmd.seat
    _check_turn(s, seat)
    if s.extra_actions == 0 and has_legal_play(s, seat):
        # 繁花似锦's extra actions may be a 栖 whatever is playable (吟/诵/舞/栖, p2:5)
        raise RuleViolation("MUST_PLAY", "栖", "栖 is only for a seat that cannot 吟, 诵 or 舞")
    b = _Builder(s)
    b.emit(Perched(seat))
    if not s.deck:
        # 待有新的玩家需要栖时，进入一曲终了阶段
        _end_song(b, "DECK_EXHAUSTED", None)
        return b.events
    _draw(b, seat, 2 if s.options.continuo else 1, Cause.PERCH)
    if daylight_rule3(s.options) and b.state.consecutive_perches >= s.seat_count:
        b.emit(PlayRestarted(seat))
    _open_discards(b, {})
    _settle(b)
    return b.events


def _decide_discard(s: HuaniaoState, cmd: Discard) -> list[Any]:
    seat = cmd.seat
    owed = next((p.count for p in s.pending_discards if p.seat == seat), None)
    if s.phase != Phase.DISCARDING or owed is None:
        raise NotYourTurn(seat, f"seat {seat} owes no discard")
    ids = _card_ids(s, seat, cmd.cards)
    if len(ids) != owed:
        raise RuleViolation("WRONG_DISCARD_COUNT", "弃牌", f"discard exactly {owed} card(s)")
    if kinds(s.options, ids) not in discard_choices(hand_vec(s, seat), owed):
        raise RuleViolation(
            "DISCARD_ORDER",
            "弃牌保护",
            "after the first card, discards go 鸟→数量→功能 (a single discard too)",
        )
    b = _Builder(s)
    b.emit(Discarded(seat, cards_of(ids)))
    _settle(b)
    return b.events


def _decide_guess(s: HuaniaoState, cmd: Guess | PassGuess) -> list[Any]:
    """曲高和寡 (p2:1): 剩余玩家可以猜 -- each other seat guesses a class or passes."""
    seat = cmd.seat
    if s.phase != Phase.GUESSING or seat not in to_act(s) or s.guess_target is None:
        raise NotYourTurn(seat, f"seat {seat} has no guess to make")
    b = _Builder(s)
    if isinstance(cmd, PassGuess):
        b.emit(GuessMade(seat, None, True))
    else:
        if not isinstance(cmd.card_class, CardClass):
            raise MalformedCommand("card_class", "guess 鸟牌, 数量牌 or 功能牌")
        b.emit(GuessMade(seat, cmd.card_class))
    if to_act(b.state):
        return b.events
    target = s.guess_target
    (only,) = s.hands[target].cards
    cls = card_class(only)
    made = b.state.guesses
    guesses = tuple(SeatGuess(g.seat, g.card_class) for g in made if g.card_class is not None)
    passed = tuple(g.seat for g in made if g.card_class is None)
    correct = sum(1 for g in guesses if g.card_class == cls)
    b.emit(GuessesRevealed(target, cls, guesses, correct, passed))
    _draw(b, target, correct, Cause.LOFTY_TUNE)
    short = correct - min(correct, len(s.deck))
    for _ in range(short):  # 若不够就从BCD手中随机取
        st = b.state
        others = [(o, c) for o in range(st.seat_count) if o != target for c in st.hands[o].cards]
        if not others:
            break
        giver, cid = others[b.rng().randrange(len(others))]
        shown = hand_open(st, giver) or hand_open(st, target)
        b.emit(CardTaken(Transfer(giver, target, CARDS[cid], shown)))
    _open_discards(b, {})
    _settle(b)
    return b.events


def _decide_end_turn(s: HuaniaoState, cmd: EndTurn) -> list[Any]:
    """繁花似锦 (p2:5): 可以…进行2次 -- the extra actions are a may; the seat may stop."""
    seat = cmd.seat
    _check_turn(s, seat)
    if s.extra_actions <= 0:
        raise RuleViolation(
            "NO_EXTRA_ACTIONS", "繁花似锦", "only a seat with 繁花似锦 actions left ends its turn"
        )
    b = _Builder(s)
    b.emit(ExtraActionsDeclined(seat, s.extra_actions))
    _settle(b)
    return b.events


VERSES: dict[str, Verse] = {}  # filled below: normalised text -> the verse it is


def _norm(text: str) -> str:
    return "".join(ch for ch in text if ch.isalnum())


def _decide_recite(s: HuaniaoState, cmd: Recite) -> list[Any]:
    """After 一曲终了 a seat may record the closing verse (所有玩家需要诵, p2:75) and, after a
    大对决, its chants (p2:92-93): ritual facts, optional, once per seat and verse."""
    seat = cmd.seat
    if not isinstance(cmd.verse, str) or len(cmd.verse) > 200:
        raise MalformedCommand("verse", "the verse as text (at most 200 characters)")
    if s.options.verse is VerseRule.OFF:
        raise RuleViolation("VERSES_OFF", "念诵", "this table plays without the verses")
    if s.phase != Phase.ENDED:
        raise RuleViolation("NOT_NOW", "念诵", "the verses are recited once the song has ended")
    verse = VERSES.get(_norm(cmd.verse))
    if verse is None:
        raise RuleViolation("NOT_A_VERSE", "念诵", f"not a verse of the end: 「{CLOSING_VERSE}」")
    if verse is Verse.SHOWDOWN_CHANT and s.showdown_round < 1:
        raise RuleViolation("NO_SHOWDOWN", "花鸟风月大对决", "no 大对决 was played")
    if verse is Verse.SHOWDOWN_CHANT_SHORT and s.showdown_round < 2:
        raise RuleViolation(
            "NO_SECOND_ROUND", "花鸟风月大对决", "「雀舞」 is the later rounds' call"
        )
    if Recital(seat, verse) in s.recitals:
        raise RuleViolation("ALREADY_RECITED", "念诵", "each seat records each verse once")
    return [Recited(seat, verse, cmd.verse)]


for _text, _verse in (
    (CLOSING_VERSE, Verse.CLOSING),
    (CLOSING_VERSE_SIMPLIFIED, Verse.CLOSING),
    (SHOWDOWN_CHANT, Verse.SHOWDOWN_CHANT),
    (SHOWDOWN_CHANT_SIMPLIFIED, Verse.SHOWDOWN_CHANT),
    (SHOWDOWN_CHANT_SHORT, Verse.SHOWDOWN_CHANT_SHORT),
):
    VERSES[_norm(_text)] = _verse


def _decide_change_season(s: HuaniaoState, cmd: ChangeSeason) -> list[Any]:
    seat = cmd.seat
    if s.phase != Phase.CHANGING_SEASON or s.season_change_by != seat or s.season is None:
        raise NotYourTurn(seat, f"seat {seat} does not close the round")
    b = _Builder(s)
    b.emit(SeasonChanged(seat, next_season(s.season), s.round + 1))
    _open_discards(b, {})  # a penalty drawn while the round was closing (penalties.py)
    _settle(b)
    return b.events


# ==========================================================================================
# 一曲终了 and settlement


def _end_song(b: _Builder, reason: str, emptied: int | None) -> None:
    b.emit(SongEnded(reason, CLOSING_VERSE))
    s = b.state
    scores = tuple(score_of(s.options, h.cards) for h in s.hands)
    if emptied is not None:
        b.emit(GameEnded((emptied,), scores, "EMPTIED_HAND"))  # 率先打完手牌的人胜利
        return
    best = min(scores)
    tied = [seat for seat in range(s.seat_count) if scores[seat] == best]
    if len(tied) == 1:
        b.emit(GameEnded((tied[0],), scores, "LOWEST_SCORE"))  # 剩余牌面分值小者胜利
        return
    # （三）其余情况判定胜利：功能牌者→数量牌者 -- more function cards, then more number cards
    keys = {seat: _tie_key(kinds(s.options, s.hands[seat].cards)) for seat in tied}
    top = max(keys.values())
    tied = [seat for seat in tied if keys[seat] == top]
    if len(tied) == 1:
        b.emit(GameEnded((tied[0],), scores, "TIE_BREAK"))
        return
    # 回收所有玩家的手牌，给每人发4张牌 (p2:91): every seat, unless the table reads it as the tied
    _showdown(b, tied if s.options.showdown_tied_only else list(range(s.seat_count)), scores)


def _tie_key(v: Vec) -> tuple[int, int]:
    return (v[5] + v[6] + v[7], sum(v[i] for i in NUMBER_INDEXES))


def showdown_pattern(vec: Vec) -> ShowdownPattern:
    """花鸟风月大对决 patterns (part 2 line 95-100)."""
    if vec[5] == 4 or vec[6] == 4 or vec[7] == 4:
        return ShowdownPattern.SI_SHI_GUI_FAN
    if vec == (0, 1, 1, 1, 1, 0, 0, 0):
        return ShowdownPattern.TIANSHANG_TIANXIA
    if any(vec[i] == 4 for i in NUMBER_INDEXES):
        return ShowdownPattern.QIU_YUE_WU_BIAN
    if vec == (1, 0, 0, 0, 0, 1, 1, 1):
        return ShowdownPattern.HUA_HAO_YUE_YUAN
    if vec[I_BIRD] == 4:
        return ShowdownPattern.BAI_NIAO_ZHENG_MING
    return ShowdownPattern.SAN_PAI


def _showdown(b: _Builder, contenders: list[int], scores: tuple[int, ...]) -> None:
    """花鸟风月大对决 (p2:88-106) among ``contenders``: every seat (所有人棄置上一手牌重新取4張,
    p2:103), or with ``showdown_tied_only`` the seats still tied, narrowing each round."""
    o = b.state.options
    b.emit(HandsRecovered(cards_of(sorted(c for h in b.state.hands for c in h.cards))))
    totals = dict.fromkeys(contenders, 0)
    rnd = 1
    while True:
        s = b.state
        needed = SHOWDOWN_HAND * len(contenders)
        pool = s.pool
        refilled = len(pool) < needed
        if refilled:
            previous = tuple(c.id for h in s.showdown for c in h.cards)
            pool = tuple(sorted(pool + s.discarded + previous + s.played))
        order = list(pool)
        b.rng().shuffle(order)
        hands = []
        for i, seat in enumerate(contenders):
            ids = tuple(sorted(order[i * SHOWDOWN_HAND : (i + 1) * SHOWDOWN_HAND]))
            score = score_of(o, ids)
            totals[seat] += score
            pattern = showdown_pattern(kinds(o, ids))
            hands.append(ShowdownHand(seat, cards_of(ids), pattern, score, totals[seat]))
        chant = SHOWDOWN_CHANT if rnd == 1 else SHOWDOWN_CHANT_SHORT  # 第二轮以后简化为“雀舞”
        b.emit(ShowdownDealt(rnd, tuple(hands), refilled, chant))
        best = min(PATTERN_PRIORITY[h.pattern] for h in hands)
        leaders = [h for h in hands if PATTERN_PRIORITY[h.pattern] == best]
        if len(leaders) > 1 and (rnd > 1 or best == PATTERN_PRIORITY[ShowdownPattern.SAN_PAI]):
            # 全是散牌: 分数高者胜; 第二轮起仍然相同: 累加之前所有到手牌的分数, 高者胜
            key = (lambda h: h.total) if rnd > 1 else (lambda h: h.score)
            high = max(key(h) for h in leaders)
            leaders = [h for h in leaders if key(h) == high]
        if len(leaders) == 1 or rnd >= MAX_SHOWDOWN_ROUNDS:
            b.emit(GameEnded(tuple(h.seat for h in leaders), scores, "SHOWDOWN"))
            return
        if o.showdown_tied_only:
            contenders = [h.seat for h in leaders]
        rnd += 1


# ==========================================================================================
# legal commands


def legal_commands(s: HuaniaoState, seat: int) -> Sequence[Any]:
    """What ``seat`` may do now. The plays and the discards, often dozens, are each made when
    read (``MadeWhenRead``): a caller choosing one builds one."""
    if s.phase == _PLAYING:
        if seat != s.turn:
            return []
        plays = _legal_plays(s, seat)
        if s.extra_actions > 0:  # 繁花似锦: 吟/诵/舞/栖, or stop
            return [*plays, Perch(seat), EndTurn(seat)]
        return plays if plays else [Perch(seat)]
    if s.phase == _DISCARDING:
        owed = next((p.count for p in s.pending_discards if p.seat == seat), None)
        if owed is None:
            return []
        vecs = _sorted_discards(hand_vec(s, seat), owed)
        pick = _picker(s.options, s.hands[seat].cards)
        return MadeWhenRead(len(vecs), lambda i: Discard(seat, pick(vecs[i])))
    if s.phase == Phase.GUESSING:
        if seat in to_act(s):
            return [*(Guess(seat, c) for c in CardClass), PassGuess(seat)]
        return []
    if s.phase == Phase.CHANGING_SEASON and seat == s.season_change_by:
        return [ChangeSeason(seat)]
    return []


KIND_STARTS = tuple(INDEX_OF.index(k) for k in range(8)) + (len(INDEX_OF),)  # ids by kind


def _picker(o: Options, hand: tuple[int, ...]) -> Callable[[Vec], tuple[int, ...]]:
    """``pick(vec)``: the lowest ids of ``hand`` of each kind ``vec`` asks for, sorted.

    The hand is sorted and card ids run kind by kind (``KIND_STARTS``), so each kind's cards
    are one slice of the hand, found by bisection, and the kinds' prefixes joined in kind
    order are sorted already -- except under 白昼规则1, where 花风月 count as birds. Only the
    kinds a play holds are looked up (why: the legal commands are made when read, and a
    caller picking one move reads one, so slicing every kind in advance was wasted), each
    once per hand (a caller reading them all, a bot or the justice harness, asked again for
    every play: issue 40)."""
    if daylight_rule1(o):  # 花风月 sit with the birds
        cut = [bisect_left(hand, start) for start in KIND_STARTS]
        b0, b1, b2, b3, b4 = (hand[cut[k] : cut[k + 1]] for k in range(5))
        b0 = b0 + hand[cut[I_FLOWER] :]

        def pick_sorted(vec: Vec) -> tuple[int, ...]:
            v0, v1, v2, v3, v4, _v5, _v6, _v7 = vec
            return tuple(sorted(b0[:v0] + b1[:v1] + b2[:v2] + b3[:v3] + b4[:v4]))

        return pick_sorted

    cuts: list[tuple[int, int] | None] = [None] * 8  # each kind's slice, found once

    def pick(vec: Vec) -> tuple[int, ...]:
        ids: tuple[int, ...] = ()
        for k, v in enumerate(vec):
            if v:
                cut = cuts[k]
                if cut is None:
                    start = bisect_left(hand, KIND_STARTS[k])
                    cut = cuts[k] = (start, bisect_left(hand, KIND_STARTS[k + 1], start))
                start, end = cut
                ids += hand[start : min(start + v, end)]
        return ids

    return pick


_PLAY_DEFAULTS = {f.name: f.default for f in fields(Play)}


def _play(base: dict[str, Any], cards: tuple[int, ...], **given: Any) -> Play:
    """``Play(**base, cards=cards, **given)`` without the frozen dataclass's ``__init__``,
    which sets each of its eight fields through ``object.__setattr__``: building every legal
    Play was the largest single cost of ``legal_commands`` in the engine's profile. ``base``
    holds every field (``_PLAY_DEFAULTS`` with the seat's own), so the instance dictionary
    is in field order. The result is an ordinary, equal-comparable ``Play`` (it has no
    ``__post_init__``)."""
    new = object.__new__(Play)
    d = base.copy()
    d["cards"] = cards
    if given:
        d.update(given)
    object.__setattr__(new, "__dict__", d)
    return new


@lru_cache(maxsize=1024)
def _sorted_discards(hand: Vec, owed: int) -> tuple[Vec, ...]:
    """``discard_choices`` in the order they are offered (sorted once per hand and count)."""
    return tuple(sorted(discard_choices(hand, owed)))


SEASONS = tuple(Season)  # the seasons a 风花雪月 / 万紫千红 may choose, in offer order


def _play_count(shape: PlayShape, n: int) -> int:
    """How many legal Plays ``shape`` makes at a table of ``n``: one per target seat of a 风
    or 月, per announce of 天上天下, per season chosen with 风花雪月 / 万紫千红; else one."""
    combo = shape.combo
    if combo is None:
        if shape.kind != _OPENING_PLAY and shape.single in (I_WIND, I_MOON):
            return n - 1
        return 1
    if combo == _TIANSHANG_TIANXIA:
        return 3
    if combo in _SEASON_COMBOS:
        return len(SEASONS)
    return 1


def _legal_plays(s: HuaniaoState, seat: int) -> Sequence[Play]:
    """Every legal Play of ``seat``, in shape order (then target, announce or season), each
    made when read: one per bird play, then ``ends[k]`` counts the Plays up to the ``k``-th
    other shape."""
    shapes = shapes_for(s, seat)
    if not shapes:
        return []
    birds, others = shapes.birds, shapes.others
    n = s.seat_count
    first = total = len(birds)
    ends: list[int] = []
    for shape in others:
        total += _play_count(shape, n)
        ends.append(total)
    pick = _picker(s.options, s.hands[seat].cards)
    base = dict(_PLAY_DEFAULTS, seat=seat, season=declared_season(s, seat))
    verse = OPENING_VERSE if s.verse_due else None

    def make(i: int) -> Play:
        if i < first:  # a 吟 or 诵: one Play
            shape = birds[i]
            play = _play(base, pick(shape.vec))
        else:
            k = bisect_right(ends, i)
            shape = others[k]
            play = _nth_play(shape, i - (ends[k - 1] if k else first), base, pick, seat, n, verse)
        _remember_made(play, s, shape)
        return play

    return MadeWhenRead(total, make)


# The legal Plays made lately, by id: the Play, the state it was made for and its shape.
_MADE_PLAYS: dict[int, tuple[Play, HuaniaoState, PlayShape]] = {}


def _remember_made(play: Play, s: HuaniaoState, shape: PlayShape) -> None:
    """Remember that ``play`` is legal in ``s`` with ``shape``, so that deciding that very
    Play in that very state skips checking its cards and classifying them again (why: a
    caller picks one of the legal commands it was offered and sends it back; the second
    check was a twentieth of 花鸟风月's engine time, P4). Entries keep the Play and the state
    alive and are checked by identity, so a reused ``id`` never answers for another Play;
    only the two objects the memo made can hit, and a Play sent by a client never does."""
    if len(_MADE_PLAYS) >= 256:
        _MADE_PLAYS.clear()
    _MADE_PLAYS[id(play)] = (play, s, shape)


def _nth_play(
    shape: PlayShape,
    j: int,
    base: dict[str, Any],
    pick: Callable[[Vec], tuple[int, ...]],
    seat: int,
    n: int,
    verse: str | None,
) -> Play:
    """The ``j``-th Play ``shape`` makes (``_play_count``)."""
    ids = pick(shape.vec)
    combo = shape.combo
    if combo is None:
        if shape.kind == PlayKind.OPENING:
            return _play(base, ids, verse=verse)
        if shape.single in (I_WIND, I_MOON):
            return _play(base, ids, target=j if j < seat else j + 1)  # every seat but its own
        return _play(base, ids)
    if combo == Combo.TIANSHANG_TIANXIA:
        return _play(base, ids, combo=combo, announce=j + 1)
    if combo == Combo.LIANG_FENG_YOU_XING:
        return _play(base, ids, combo=combo, target=(seat + 1) % n)
    if combo in (Combo.FENG_HUA_XUE_YUE, Combo.WAN_ZI_QIAN_HONG):
        return _play(base, ids, combo=combo, chosen_season=SEASONS[j])
    return _play(base, ids, combo=combo)


# decide's dispatch, once every _decide_* is defined
_DECIDERS: dict[type, Any] = {
    Play: _decide_play,
    Perch: _decide_perch,
    Discard: _decide_discard,
    Guess: _decide_guess,
    PassGuess: _decide_guess,
    ChangeSeason: _decide_change_season,
    EndTurn: _decide_end_turn,
    Recite: _decide_recite,
}
