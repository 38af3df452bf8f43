'use strict';
// 花鸟风月's state folded from a verified record's facts, and what one viewer may see of it:
// domain/huaniao/rules.py `evolve` (its fold only, with the derived parts a view shows:
// seasons, bans, the enforced hand limit, whom the game waits for) and
// domain/huaniao/views.py `view`. lib/viewrender.js renders a GameView from it, byte for
// byte as the server's server/wire/render.py `view_proto`.
//
// The state is a plain object of the domain's own fields (domain/huaniao/state.py
// HuaniaoState), enums by their member names and cards by id, as the record stores a game
// state (a MoveRetracted's `restored`). Nothing here decides a rule: the record's facts are
// the server's signed decisions (the game's chances, `chance` and `rng_counter`, are kept
// as the record has them and never drawn from).

// --- cards (domain/huaniao/cards.py) ---------------------------------------------------------

const LAYOUT = [['BIRD', 54], ['TEN', 9], ['HUNDRED', 9], ['THOUSAND', 9], ['TEN_THOUSAND', 9], ['FLOWER', 6], ['WIND', 6], ['MOON', 6]];
const KIND_OF = LAYOUT.flatMap(([kind, n]) => Array(n).fill(kind));
const INDEX_OF = LAYOUT.flatMap(([, n], i) => Array(n).fill(i));
const [I_BIRD, , , , , I_FLOWER, I_WIND, I_MOON] = [0, 1, 2, 3, 4, 5, 6, 7];
const card = (id) => ({ id, kind: KIND_OF[id] });
const cards = (ids) => ids.map(card);

// --- options (domain/huaniao/options.py) -------------------------------------------------------

const COMBO_ORDER = ['TIANSHANG_TIANXIA', 'HUA_NIAO_FENG_YUE', 'QUE_WU_MAN_SHAN', 'LIANG_FENG_YOU_XING', 'FENG_HUA_XUE_YUE', 'WAN_ZI_QIAN_HONG'];
const OPTION_DEFAULTS = {
  mode: 'BASIC', daylight: null, silent_night: [], continuo: false, twin_swallows: false, spring_snow: false,
  lofty_tune: false, blossoms: false, hand_limit_always: false, simple_without_function_cards: false,
  showdown_tied_only: false, spring_snow_once_after: false, cool_breeze_all_four: false, leader_tie: 'LOWEST_SEAT',
  verse: 'REQUIRED',
};

function options(data) {
  const out = { ...OPTION_DEFAULTS };
  for (const [k, v] of Object.entries(data || {})) if (v !== undefined) out[k] = v;
  return out;
}

/** check_options on options a table was created with: 白昼 by the mode, 静夜 in combo order. */
function checkOptions(data) {
  const o = options(data);
  let daylight;
  if (o.mode === 'SIMPLE' || o.mode === 'BASIC') daylight = true;
  else if (o.mode === 'REGULAR') daylight = Boolean(o.daylight);
  else daylight = false;
  const bans = [...o.silent_night].sort((a, b) => COMBO_ORDER.indexOf(a) - COMBO_ORDER.indexOf(b));
  return { ...o, daylight, silent_night: bans };
}

const hasHandLimit = (o) => ['REGULAR', 'FULL', 'PRO'].includes(o.mode);
const hasSeasons = (o) => o.mode === 'FULL' || o.mode === 'PRO';
const daylightRule2 = (o) => Boolean(o.daylight) && (o.mode === 'SIMPLE' || o.mode === 'BASIC');
const BASE_LIMIT = 8;

// --- state -----------------------------------------------------------------------------------

const STATE_DEFAULTS = {
  played: [], discarded: [], phase: 'DEALING', turn: 0, leader: 0, need: 'OPENING', reference: 0, last_play: null,
  verse_due: true, consecutive_perches: 0, extra_actions: 0, turns_taken: [], turn_in_round: 0, round: 1, season: null,
  seat_seasons: [], season_change_by: null, hand_limit: null, dance_ban_at: [], cool_ban_at: [], wu_ban_at: [],
  open_hand_until: [], pending_discards: [], guess_target: null, guesses: [], guessed_at_one: [], pool: [], showdown: [],
  showdown_round: 0, winners: [], scores: [], end_reason: '', recitals: [], discard_windows: [],
};
const SEAT_SEASONS = { override: null, override_until: -1, extra: null, extra_until: -1, extra_with: null };

/** A stored game state (a MoveRetracted's `restored`) with its defaults filled in. */
function fromStored(d) {
  return {
    ...STATE_DEFAULTS,
    ...d,
    options: options(d.options),
    seat_seasons: (d.seat_seasons || []).map((s) => ({ ...SEAT_SEASONS, ...s })),
    last_play: d.last_play ? { combo: null, ...d.last_play } : null,
  };
}

/** rules.py initial_state (the game's chance seed is not a view's: left out). */
function initialState(opts, seatCount, deck, seed) {
  const o = checkOptions(opts);
  const n = seatCount;
  const fill = (v) => Array(n).fill(v);
  return {
    ...STATE_DEFAULTS,
    options: o,
    seat_count: n,
    seed,
    chance: null,
    rng_counter: 0,
    deck: [...deck],
    hands: fill({ cards: [] }),
    turns_taken: fill(0),
    seat_seasons: fill(SEAT_SEASONS),
    season: hasSeasons(o) ? 'SPRING' : null,
    hand_limit: hasHandLimit(o) ? BASE_LIMIT : null,
    dance_ban_at: fill(-1),
    cool_ban_at: fill(-1),
    wu_ban_at: fill(-1),
    open_hand_until: fill(-1),
    guessed_at_one: fill(false),
    verse_due: o.verse === 'REQUIRED',
    discard_windows: fill(0),
  };
}

const sortNum = (xs) => [...xs].sort((a, b) => a - b);
const without = (xs, ids) => {
  const gone = new Set(ids);
  return xs.filter((c) => !gone.has(c));
};
const put = (t, i, v) => t.map((x, j) => (j === i ? v : x));
const ids = (cs) => cs.map((c) => c.id);

function setHand(hands, seat, cs) {
  return put(hands, seat, { cards: sortNum(cs) });
}

function handsChanged(s, hands, changes) {
  let guessed = s.guessed_at_one;
  if (guessed.includes(true)) guessed = guessed.map((g, i) => g && hands[i].cards.length === 1);
  const pending = 'pending_discards' in changes ? changes.pending_discards : s.pending_discards;
  if (pending.length) {
    const clamped = pending.filter((p) => hands[p.seat].cards.length)
      .map((p) => ({ seat: p.seat, count: Math.min(p.count, hands[p.seat].cards.length) }));
    const same = clamped.length === pending.length && clamped.every((p, i) => p.seat === pending[i].seat && p.count === pending[i].count);
    if (!same) changes.pending_discards = clamped;
  }
  changes.hands = hands;
  changes.guessed_at_one = guessed;
  return changes;
}

function endAction(s, seat, changes) {
  const extra = 'extra_actions' in changes ? changes.extra_actions : s.extra_actions;
  if (extra > 0) {
    changes.extra_actions = extra - 1;
    if (extra > 1) return changes;
  }
  const n = s.seat_count;
  const turnInRound = s.turn_in_round + 1;
  const closer = hasSeasons(s.options) && turnInRound >= n ? seat : s.season_change_by;
  changes.turns_taken = put(s.turns_taken, seat, s.turns_taken[seat] + 1);
  changes.turn_in_round = turnInRound;
  changes.turn = (seat + 1) % n;
  changes.season_change_by = closer;
  return changes;
}

function nextNeed(s, kind) {
  const o = s.options;
  if (o.continuo) return 'SONG';
  if (kind === 'OPENING' || daylightRule2(o)) return 'ANY';
  return kind === 'YIN' ? 'SONG' : 'YIN';
}

function seasonsOf(s, seat) {
  if (s.season === null) return [];
  const ss = s.seat_seasons[seat];
  const override = ss.override !== null && s.round <= ss.override_until ? ss.override : null;
  if (ss.extra !== null && s.round === ss.extra_until) {
    const base = override || ss.extra_with || s.season;
    return ss.extra !== base ? [base, ss.extra] : [base];
  }
  return [override || s.season];
}

const declaredSeason = (s, seat) => seasonsOf(s, seat)[0] || null;

function applyPlayed(s, e) {
  const seat = e.seat;
  const played = ids(e.cards);
  const hands = setHand(s.hands, seat, without(s.hands[seat].cards, played));
  const combo = given(e.combo) ? e.combo : null;
  const changes = handsChanged(s, hands, {
    played: [...s.played, ...played],
    last_play: { seat, cards: played, kind: e.kind, count: e.count, combo },
    consecutive_perches: 0,
  });
  if (e.kind !== 'WU') {
    changes.reference = e.count;
    changes.need = nextNeed(s, e.kind);
    if (e.kind === 'OPENING') changes.verse_due = false;
    return endAction(s, seat, changes);
  }
  if (combo === 'TIANSHANG_TIANXIA' && given(e.announce)) {
    changes.reference = e.announce;
  } else if (combo === 'LIANG_FENG_YOU_XING') {
    const next = (seat + 1) % s.seat_count;
    changes.cool_ban_at = put(s.cool_ban_at, next, s.turns_taken[next]);
  } else if (combo === 'FENG_HUA_XUE_YUE' && given(e.chosen_season)) {
    changes.seat_seasons = put(s.seat_seasons, seat, { ...s.seat_seasons[seat], override: e.chosen_season, override_until: s.round + 2 });
  } else if (combo === 'WAN_ZI_QIAN_HONG' && given(e.chosen_season)) {
    changes.seat_seasons = put(s.seat_seasons, seat, {
      ...s.seat_seasons[seat], extra: e.chosen_season, extra_until: s.round + 1, extra_with: declaredSeason(s, seat),
    });
  }
  if (combo === null && s.options.blossoms && played.some((i) => INDEX_OF[i] === I_FLOWER)) {
    changes.extra_actions = seasonsOf(s, seat).includes('SPRING') ? 3 : 2;
    return changes;
  }
  if (combo === 'TIANSHANG_TIANXIA') changes.dance_ban_at = put(s.dance_ban_at, seat, s.turns_taken[seat] + 1);
  return endAction(s, seat, changes);
}

function applyShowdown(s, e) {
  const previous = s.showdown.flatMap((h) => ids(h.cards));
  let discarded = [...s.discarded, ...previous];
  let played = s.played;
  let pool = s.pool;
  let lastPlay = s.last_play;
  if (e.refilled) {
    pool = sortNum([...pool, ...discarded, ...played]);
    discarded = [];
    played = [];
    lastPlay = null;
  }
  const dealt = e.hands.flatMap((h) => ids(h.cards));
  return {
    pool: without(pool, dealt), discarded, played, showdown: e.hands, showdown_round: e.round, last_play: lastPlay,
    rng_counter: s.rng_counter + 1,
  };
}

const given = (v) => v !== null && v !== undefined;
const totalTurns = (s) => s.turns_taken.reduce((a, b) => a + b, 0);

const APPLY = {
  Played: applyPlayed,
  Perched: (s, e) => endAction(s, e.seat, { consecutive_perches: s.consecutive_perches + 1 }),
  Drew(s, e) {
    const got = ids(e.cards);
    return handsChanged(s, setHand(s.hands, e.seat, [...s.hands[e.seat].cards, ...got]), { deck: s.deck.slice(got.length) });
  },
  DiscardRequired(s, e) {
    const owed = (s.pending_discards.find((p) => p.seat === e.seat) || { count: 0 }).count;
    const others = s.pending_discards.filter((p) => p.seat !== e.seat);
    const windows = s.discard_windows.length ? s.discard_windows : Array(s.seat_count).fill(0);
    return { pending_discards: [...others, { seat: e.seat, count: owed + e.count }], discard_windows: put(windows, e.seat, owed + e.count) };
  },
  Discarded(s, e) {
    const gone = ids(e.cards);
    const hands = setHand(s.hands, e.seat, without(s.hands[e.seat].cards, gone));
    return handsChanged(s, hands, { discarded: [...s.discarded, ...gone], pending_discards: s.pending_discards.filter((p) => p.seat !== e.seat) });
  },
  Dealt(s, e) {
    const got = ids(e.cards);
    return handsChanged(s, setHand(s.hands, e.seat, got), { deck: s.deck.slice(got.length) });
  },
  LeaderChosen(s, e) {
    return { phase: 'PLAYING', turn: e.seat, leader: e.seat, need: 'OPENING', rng_counter: s.rng_counter + ((e.tied || []).length ? 1 : 0) };
  },
  HandLimitChanged: (s, e) => ({ hand_limit: e.limit }),
  CardsExchanged: (s, e) => exchanged(s, e.transfers),
  CardTaken: (s, e) => exchanged(s, [e.transfer]),
  PlayRestarted: (s, e) => ({ turn: e.seat, leader: e.seat, need: 'OPENING', reference: 0, consecutive_perches: 0, extra_actions: 0, turn_in_round: 0 }),
  GuessingOpened: (s, e) => ({ guess_target: e.seat, guesses: [], guessed_at_one: put(s.guessed_at_one, e.seat, true) }),
  GuessMade: (s, e) => ({ guesses: [...s.guesses, { seat: e.seat, card_class: e.passed ? null : e.card_class }] }),
  GuessesRevealed: () => ({ guess_target: null, guesses: [] }),
  SeasonChanged: (s, e) => ({ season: e.season, round: e.round, turn_in_round: 0, season_change_by: null }),
  SongEnded: () => ({}),
  HandsRecovered(s) {
    const pool = sortNum(s.hands.flatMap((h) => h.cards));
    return handsChanged(s, Array(s.seat_count).fill({ cards: [] }), { pool });
  },
  ShowdownDealt: applyShowdown,
  GameEnded: (s, e) => ({ winners: e.winners, scores: e.scores, end_reason: e.reason, phase: 'ENDED' }),
  PenaltyDiscarded(s, e) {
    const gone = ids(e.cards);
    if (e.from_table) return { played: without(s.played, gone), discarded: [...s.discarded, ...gone] };
    const hands = setHand(s.hands, e.seat, without(s.hands[e.seat].cards, gone));
    return handsChanged(s, hands, { discarded: [...s.discarded, ...gone] });
  },
  DanceBanned(s, e) {
    const bans = s.wu_ban_at.length ? s.wu_ban_at : Array(s.seat_count).fill(-1);
    return { wu_ban_at: put(bans, e.seat, e.turn) };
  },
  HandOpened(s, e) {
    const until = s.open_hand_until.length ? s.open_hand_until : Array(s.seat_count).fill(-1);
    return { open_hand_until: put(until, e.seat, totalTurns(s) + e.turns) };
  },
  AttemptPlayed(s, e) {
    const gone = ids(e.cards);
    const hands = setHand(s.hands, e.seat, without(s.hands[e.seat].cards, gone));
    return endAction(s, e.seat, handsChanged(s, hands, { played: [...s.played, ...gone], consecutive_perches: 0 }));
  },
  ExtraActionsDeclined: (s, e) => endAction(s, e.seat, { extra_actions: 0 }),
  Recited: (s, e) => ({ recitals: [...s.recitals, { seat: e.seat, verse: e.verse }] }),
  GuessingCancelled: (s, e) => ({ guess_target: null, guesses: [], guessed_at_one: put(s.guessed_at_one, e.seat, false) }),
};

function exchanged(s, transfers) {
  let hands = s.hands;
  for (const t of transfers) hands = setHand(hands, t.from_seat, without(hands[t.from_seat].cards, [t.card.id]));
  for (const t of transfers) hands = setHand(hands, t.to_seat, [...hands[t.to_seat].cards, t.card.id]);
  return handsChanged(s, hands, { rng_counter: s.rng_counter + 1 });
}

/** rules.py `evolve`: a fact's changes, then the phase that follows from them. */
function evolve(s, type, e) {
  const f = APPLY[type];
  if (!f) throw new Error(`not a 花鸟风月 fact: ${type}`);
  const changes = f(s, e);
  const get = (k) => (k in changes ? changes[k] : s[k]);
  let phase = get('phase');
  if (phase !== 'DEALING') {
    if (get('end_reason')) phase = 'ENDED';
    else if (get('pending_discards').length) phase = 'DISCARDING';
    else if (get('guess_target') !== null) phase = 'GUESSING';
    else if (get('season_change_by') !== null) phase = 'CHANGING_SEASON';
    else phase = 'PLAYING';
  }
  return { ...s, ...changes, phase };
}

/** rules.py `to_act`. */
function toAct(s) {
  if (s.phase === 'PLAYING') return [s.turn];
  if (s.phase === 'DISCARDING') return s.pending_discards.map((p) => p.seat);
  if (s.phase === 'GUESSING') {
    const done = new Set(s.guesses.map((g) => g.seat));
    return [...Array(s.seat_count).keys()].filter((seat) => seat !== s.guess_target && !done.has(seat));
  }
  if (s.phase === 'CHANGING_SEASON' && s.season_change_by !== null) return [s.season_change_by];
  return [];
}

/** HuaniaoRules.outcome. */
function outcome(s) {
  return s.end_reason ? { winners: s.winners, scores: s.scores, reason: s.end_reason } : null;
}

/** HuaniaoRules.with_deck: an upheld appeal's state with its unseen deck reshuffled. */
const withDeck = (s, deck) => ({ ...s, deck: [...deck] });

// --- view (domain/huaniao/views.py) -------------------------------------------------------------

function enforcedLimit(s) {
  const limit = s.hand_limit;
  if (limit === null || (limit >= BASE_LIMIT && !s.options.hand_limit_always)) return null;
  return limit;
}

const danceBanned = (s, seat) => {
  const turn = s.turns_taken[seat];
  return s.dance_ban_at[seat] === turn || (s.wu_ban_at.length > 0 && s.wu_ban_at[seat] === turn);
};
const handOpen = (s, seat) => s.open_hand_until.length > 0 && totalTurns(s) < s.open_hand_until[seat];

function seatView(s, seat, mine) {
  const owed = s.pending_discards.find((p) => p.seat === seat);
  const guess = s.guesses.find((g) => g.seat === seat);
  const shown = handOpen(s, seat);
  const h = s.hands[seat];
  return {
    seat,
    hand_count: h.cards.length,
    cards: shown || mine ? cards(h.cards) : [],
    turns_taken: s.turns_taken[seat],
    seasons: seasonsOf(s, seat),
    dance_banned: danceBanned(s, seat),
    cool_banned: s.cool_ban_at[seat] === s.turns_taken[seat],
    owes_discard: owed ? owed.count : 0,
    has_guessed: Boolean(guess),
    guess: mine && guess ? guess.card_class : null,
    open_hand: shown,
  };
}

/** views.py `view`: what `viewer` ({role, seat}) may see of the game. */
function view(s, asked) {
  const viewer = s.phase === 'ENDED' ? { role: 'arbiter', seat: null } : asked;
  const arbiter = viewer.role === 'arbiter';
  const me = viewer.role === 'seat' ? viewer.seat : null;
  const lp = s.last_play;
  return {
    viewer_seat: me,
    options: s.options,
    seat_count: s.seat_count,
    phase: s.phase,
    to_act: toAct(s),
    turn: s.turn,
    leader: s.leader,
    need: s.need,
    reference: s.reference,
    last_play: lp ? { seat: lp.seat, cards: cards(lp.cards), kind: lp.kind, count: lp.count, combo: lp.combo } : null,
    verse_due: s.verse_due,
    deck_size: s.deck.length,
    deck: arbiter ? cards(s.deck) : [],
    played: cards(s.played),
    discarded: cards(s.discarded),
    hand_limit: s.hand_limit,
    season: s.season,
    round: s.round,
    turn_in_round: s.turn_in_round,
    consecutive_perches: s.consecutive_perches,
    extra_actions: s.extra_actions,
    seats: s.hands.map((_, seat) => seatView(s, seat, arbiter || seat === me)),
    guess_target: s.guess_target,
    pool_count: s.pool.length,
    showdown: arbiter ? s.showdown : s.showdown.map((h) => ({ ...h, cards: [] })),
    winners: s.winners,
    scores: s.scores,
    end_reason: s.end_reason,
    hand_limit_enforced: enforcedLimit(s) !== null,
  };
}

/** MatchRules.first_hand: 花鸟风月 deals every hand with the table's options. */
const firstHand = (o) => o;

module.exports = { evolve, initialState, fromStored, firstHand, checkOptions, toAct, outcome, view, withDeck, INDEX_OF, I_BIRD, I_WIND, I_MOON };
