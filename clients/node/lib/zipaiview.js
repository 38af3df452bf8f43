'use strict';
// 川南字牌's state folded from a verified record's facts, and what one viewer may see of it:
// domain/zipai/rules.py `evolve` (its fold only: what every fact does to the hand; no rule is
// decided here, the record's facts are the server's signed decisions) and
// domain/zipai/views.py `view`. lib/viewrender.js renders a GameView from it, byte for byte
// as the server's server/wire/render.py `view_proto`.
//
// The state is a plain object of the domain's own fields (domain/zipai/state.py State,
// SeatState, PendingClaim, melds.py Meld), enums by their member names and cards by id, as
// the record stores a game state (a MoveRetracted's `restored`): the same shape either way.

const COPIES = 4;
const kindOf = (id) => Math.floor(id / COPIES);
/** domain/zipai/cards.py `card`: {id, rank, big}. */
const card = (id) => ({ id, rank: (kindOf(id) % 10) + 1, big: kindOf(id) >= 10 });
const cards = (ids) => ids.map(card);
const opt = (id) => (id === null || id === undefined ? null : card(id));

// --- 列 shapes (domain/zipai/melds.py ALL_GROUPS, classify) --------------------------------

const BY_KINDS = (() => {
  const out = new Map();
  const add = (kinds, kind) => out.set([...kinds].sort((a, b) => a - b).join(','), kind);
  for (const base of [0, 10]) {
    for (let r = 0; r < 8; r += 1) add([base + r, base + r + 1, base + r + 2], 'RUN');
    add([base + 1, base + 6, base + 9], 'ER_QI_SHI');
  }
  for (let r = 0; r < 10; r += 1) {
    add([r, r + 10, r + 10], 'DA_DA_XIAO');
    add([r, r, r + 10], 'XIAO_XIAO_DA');
  }
  for (let k = 0; k < 20; k += 1) add([k, k, k], 'TRIPLE');
  return out;
})();

function classify(ids) {
  if (ids.length !== 3) return null;
  return BY_KINDS.get(ids.map(kindOf).sort((a, b) => a - b).join(',')) || null;
}

// --- options (domain/zipai/options.py check_options, at_start) -----------------------------

const OPTION_DEFAULTS = {
  variant: 'LUZHOU',
  dealer_rule: 'WINNER',
  guo_hu: false,
  guo_zhang_sheng_fan: false,
  scoring: 'NONE',
  dealer: 0,
  own_flip_is_played: false,
  optional_peng_long: false,
  first_dealer: 'FIRST_SEAT_TAKEN',
};

/** Options with their defaults filled in, as the record's decoder gives them. */
function options(data) {
  const out = { ...OPTION_DEFAULTS };
  for (const [k, v] of Object.entries(data || {})) if (v !== null && v !== undefined) out[k] = v;
  return out;
}

/** check_options: one 过胡 checkbox under two names; a non-zero dealer is the SEAT rule. */
function checkOptions(data) {
  const o = options(data);
  const guoHu = Boolean(o.guo_hu || o.guo_zhang_sheng_fan);
  return { ...o, guo_hu: guoHu, guo_zhang_sheng_fan: guoHu, first_dealer: o.dealer ? 'SEAT' : o.first_dealer };
}

/** ZipaiRules.first_hand: 首进入房间的玩家坐庄 (zp:9) fixes the dealer at the deal. */
function firstHand(data, firstSeat) {
  const o = checkOptions(data);
  return o.first_dealer === 'FIRST_SEAT_TAKEN' ? { ...o, dealer: firstSeat, first_dealer: 'SEAT' } : o;
}

// --- state ---------------------------------------------------------------------------------

const SEAT_DEFAULTS = {
  active: true, hand: [], melds: [], discards: [], bao: false, replacements: 0, san_long_offered: false,
  guo_zhang: [], played: [], guo_hu_fan: null,
};

const STATE_DEFAULTS = {
  stock: [], dealer: 0, seats: [], phase: 'DEALING', prompt: null, turn: 0, shown: null, shown_by: 0,
  shown_flipped: false, pending: [], claims: [], bao_round: 0, dealer_card: null, hu_or_long_offered: false,
  winner: null, win_kind: null, scores: [], huang_zhuang: false,
};

/** A stored game state (a MoveRetracted's `restored`) with its defaults filled in. */
function fromStored(d) {
  const meld = (m) => ({ taken: null, from_seat: null, ...m });
  return {
    ...STATE_DEFAULTS,
    ...d,
    options: options(d.options),
    seats: (d.seats || []).map((s) => ({ ...SEAT_DEFAULTS, ...s, melds: (s.melds || []).map(meld) })),
    claims: (d.claims || []).map((c) => ({ cards: [], bi: [], ...c })),
  };
}

/** rules.py initial_state (the options checked, the dealer among the seats). */
function initialState(opts, seatCount, deck, seed) {
  const o = checkOptions(opts);
  return { ...STATE_DEFAULTS, options: o, seat_count: seatCount, seed, deck: [...deck], stock: [...deck], dealer: o.dealer % seatCount };
}

const sortNum = (xs) => [...xs].sort((a, b) => a - b);
const without = (hand, ids) => {
  const gone = new Set(ids);
  return hand.filter((i) => !gone.has(i));
};
const addKind = (kinds, k) => (kinds.includes(k) ? kinds : sortNum([...kinds, k]));
const BAO_DONE = 2;
const ids = (cs) => cs.map((c) => c.id);

function withSeat(state, seat, changes = {}) {
  const seats = [...state.seats];
  seats[seat.seat] = seat;
  return { ...state, seats, ...changes };
}

/** rules.py next_active: the 下家 of `seat` among the seats dealt in (itself if alone). */
function nextActive(state, seat) {
  const n = state.seat_count;
  for (let step = 1; step <= n; step += 1) {
    const s = (seat + step) % n;
    if (state.seats[s].active) return s;
  }
  return seat;
}

function windowClosed(state, s, phase, turn) {
  return withSeat(state, s, { shown: null, claims: [], pending: [], prompt: null, bao_round: BAO_DONE, phase, turn });
}

/** A 碰 or 招: the seat's own cards and the card it took make one meld of `kind`. */
function tookToMeld(state, e, kind, group, discards) {
  const got = ids(e.cards);
  const meld = { kind, group, cards: [...got, e.card.id], taken: e.card.id, from_seat: e.from_seat };
  const s = state.seats[e.seat];
  return afterTake(state, { ...s, hand: without(s.hand, got), melds: [...s.melds, meld] }, discards);
}

function afterTake(state, s, discard) {
  const turn = discard ? s.seat : nextActive(state, s.seat);
  return windowClosed(state, s, discard ? 'DISCARD' : 'FLIP', turn);
}

const resumePhase = (state) => (state.shown === null ? 'OPENING' : 'SHOWN');

function answerBao(state, seat, declared) {
  if (declared) state = withSeat(state, { ...state.seats[seat], bao: true });
  const pending = state.pending.filter((x) => x !== seat);
  state = { ...state, pending };
  if (!pending.length) state = { ...state, phase: resumePhase(state), prompt: null };
  return state;
}

const EVOLVE = {
  HandStarted(state, e) {
    const seats = [];
    for (let i = 0; i < e.seat_count; i += 1) seats.push({ ...SEAT_DEFAULTS, seat: i, active: e.seats.includes(i) });
    return { ...state, dealer: e.dealer, seats, phase: 'OPENING' };
  },
  Dealt(state, e) {
    const got = ids(e.cards);
    const s = state.seats[e.seat];
    return withSeat(state, { ...s, hand: sortNum([...s.hand, ...got]) }, { stock: without(state.stock, got) });
  },
  LongLaidDown(state, e) {
    let s = state.seats[e.seat];
    const hidden = ids(e.hidden);
    let hand;
    let meld;
    if (e.taken) {
      hand = without(s.hand, hidden);
      meld = { kind: 'LONG', group: 'FOUR', cards: [...hidden, e.face_up.id], taken: e.face_up.id, from_seat: e.seat };
    } else {
      hand = without(s.hand, [...hidden, e.face_up.id]);
      meld = { kind: 'LONG', group: 'FOUR', cards: [...hidden, e.face_up.id], taken: null, from_seat: null };
    }
    s = { ...s, hand, melds: [...s.melds, meld] };
    if (!e.taken) return withSeat(state, s, { phase: 'OPENING', prompt: null, pending: [] });
    return afterTake(state, s, e.discard_required);
  },
  CardDrawn(state, e) {
    const cid = e.card !== null && e.card !== undefined ? e.card.id : state.stock[0];
    let s = state.seats[e.seat];
    const hand = sortNum([...s.hand, cid]);
    s = e.reason === 'REPLACEMENT' ? { ...s, hand, replacements: s.replacements + 1 } : { ...s, hand };
    const stock = state.stock.filter((i) => i !== cid);
    if (e.reason === 'DEALER_21ST') {
      return withSeat(state, s, { stock, dealer_card: cid, bao_round: Math.max(state.bao_round, 1) });
    }
    return withSeat(state, s, { stock });
  },
  Prompted(state, e) {
    const p = e.prompt;
    if (p === 'CLAIM') return { ...state, phase: 'CLAIM', prompt: p, pending: [...e.seats], claims: [], bao_round: BAO_DONE };
    if (p === 'BAO') {
      state = { ...state, bao_round: state.bao_round + 1 };
      if (!e.seats.length) return { ...state, phase: resumePhase(state), prompt: null, pending: [] };
      return { ...state, phase: 'BAO', prompt: p, pending: [...e.seats] };
    }
    if (p === 'DISCARD') return { ...state, phase: 'DISCARD', prompt: null, turn: e.seats[0] };
    if (p === 'HU_OR_PASS') state = withSeat(state, { ...state.seats[e.seats[0]], san_long_offered: true });
    else state = { ...state, hu_or_long_offered: true };
    return { ...state, phase: 'PROMPT_HU', prompt: p, pending: [...e.seats] };
  },
  BaoDeclared: (state, e) => answerBao(state, e.seat, true),
  BaoDeclined: (state, e) => answerBao(state, e.seat, false),
  CardDiscarded(state, e) {
    const s = state.seats[e.seat];
    const after = { ...s, hand: without(s.hand, [e.card.id]), played: addKind(s.played, kindOf(e.card.id)) };
    return withSeat(state, after, { phase: 'SHOWN', shown: e.card.id, shown_by: e.seat, shown_flipped: false });
  },
  CardFlipped(state, e) {
    const cid = e.card.id;
    const stock = state.stock.length && state.stock[0] === cid ? state.stock.slice(1) : state.stock.filter((i) => i !== cid);
    return { ...state, stock, phase: 'SHOWN', shown: cid, shown_by: e.seat, shown_flipped: true };
  },
  ClaimMade(state, e) {
    const s = state.seats[e.seat];
    const remembered = {};
    if (e.guo_zhang && state.shown !== null) remembered.guo_zhang = addKind(s.guo_zhang, kindOf(state.shown));
    if (e.guo_hu_fan !== null && e.guo_hu_fan !== undefined) {
      remembered.guo_hu_fan = s.guo_hu_fan === null ? e.guo_hu_fan : Math.max(s.guo_hu_fan, e.guo_hu_fan);
    }
    let changes;
    if (state.phase === 'PROMPT_HU') {
      changes = { phase: 'OPENING', prompt: null, pending: [] };
    } else {
      if (!e.claim) throw new Error('ClaimMade must be folded unredacted');
      const pc = { seat: e.seat, kind: e.claim.kind, cards: ids(e.claim.cards || []), bi: (e.claim.bi || []).map((g) => ({ cards: ids(g.cards) })) };
      changes = { pending: state.pending.filter((x) => x !== e.seat), claims: [...state.claims, pc] };
    }
    if (Object.keys(remembered).length) return withSeat(state, { ...s, ...remembered }, changes);
    return { ...state, ...changes };
  },
  Chied(state, e) {
    let s = state.seats[e.seat];
    const used = [...ids(e.cards), ...e.bi.flatMap((g) => ids(g.cards))];
    const melds = [{ kind: 'CHI', group: e.group, cards: [...ids(e.cards), e.card.id], taken: e.card.id, from_seat: e.from_seat }];
    for (const g of e.bi) melds.push({ kind: 'BI', group: g.kind, cards: ids(g.cards), taken: null, from_seat: null });
    s = { ...s, hand: without(s.hand, used), melds: [...s.melds, ...melds] };
    return afterTake(state, s, true);
  },
  Penged: (state, e) => tookToMeld(state, e, 'PENG', 'TRIPLE', true),
  Zhaoed: (state, e) => tookToMeld(state, e, 'ZHAO', 'FOUR', e.discard_required),
  NobodyClaimed(state, e) {
    let s = state.seats[e.seat];
    const counted = e.flipped && state.options.own_flip_is_played;
    const played = counted ? addKind(s.played, kindOf(e.card.id)) : s.played;
    s = { ...s, discards: [...s.discards, e.card.id], played };
    return windowClosed(state, s, 'FLIP', nextActive(state, e.seat));
  },
  Hued(state, e) {
    return { ...state, phase: 'OVER', prompt: null, pending: [], winner: e.seat, win_kind: e.win_kind, scores: [...e.scores] };
  },
  HuangZhuang(state, e) {
    return { ...state, phase: 'OVER', prompt: null, pending: [], huang_zhuang: true, scores: [...e.scores] };
  },
};

/** rules.py `evolve`: one of the game's facts (its stored data, unredacted) applied. */
function evolve(state, type, data) {
  const f = EVOLVE[type];
  if (!f) throw new Error(`not a 川南字牌 fact: ${type}`);
  return f(state, data);
}

/** rules.py `to_act`: the seats the hand waits for. */
function toAct(state) {
  if (state.phase === 'DISCARD') return [state.turn];
  if (['CLAIM', 'BAO', 'PROMPT_HU'].includes(state.phase)) return [...state.pending];
  return [];
}

/** ZipaiRules.outcome. */
function outcome(state) {
  if (state.phase !== 'OVER') return null;
  if (state.winner === null) return { winners: [], scores: state.scores, reason: 'HUANG_ZHUANG' };
  return { winners: [state.winner], scores: state.scores, reason: 'HU' };
}

// --- view (domain/zipai/views.py) ------------------------------------------------------------

const seesSeat = (viewer, seat) => viewer.role === 'arbiter' || (viewer.role === 'seat' && viewer.seat === seat);

function meldView(m, visible) {
  if (m.kind === 'LONG' && !visible) {
    return { kind: m.kind, group: m.group, cards: [card(m.cards[m.cards.length - 1])], hidden_size: m.cards.length - 1, taken: opt(m.taken), from_seat: m.from_seat };
  }
  return { kind: m.kind, group: m.group, cards: cards(m.cards), hidden_size: 0, taken: opt(m.taken), from_seat: m.from_seat };
}

function seatView(s, mine) {
  return {
    seat: s.seat,
    active: s.active,
    hand: mine ? cards(s.hand) : [],
    hand_size: s.hand.length,
    melds: s.melds.map((m) => meldView(m, mine)),
    discards: cards(s.discards),
    bao: s.bao,
    guo_zhang: mine ? s.guo_zhang : [],
    played: s.played,
    guo_hu_fan: mine ? s.guo_hu_fan : null,
  };
}

/** views.py `view`: what `viewer` ({role, seat}) may see of the hand. */
function view(state, viewer) {
  const arbiter = viewer.role === 'arbiter';
  const seats = state.seats.map((s) => seatView(s, seesSeat(viewer, s.seat)));
  let awaiting;
  if (state.phase === 'DISCARD') awaiting = [state.turn];
  else if (arbiter) awaiting = state.pending;
  else if (viewer.role === 'seat' && state.pending.includes(viewer.seat)) awaiting = [viewer.seat];
  else awaiting = [];
  let myClaim = null;
  if (viewer.role === 'seat' || arbiter) {
    for (const pc of state.claims) {
      if (pc.seat === viewer.seat) {
        myClaim = { kind: pc.kind, cards: cards(pc.cards), bi: pc.bi.map((g) => ({ kind: classify(g.cards) || 'RUN', cards: cards(g.cards) })) };
      }
    }
  }
  const shown = state.shown !== null && state.shown !== undefined;
  return {
    viewer_seat: viewer.role === 'seat' ? viewer.seat : null,
    options: state.options,
    seat_count: state.seat_count,
    dealer: state.dealer,
    phase: state.phase,
    prompt: state.phase === 'DISCARD' || awaiting.length ? state.prompt : null,
    turn: state.turn,
    shown: opt(state.shown),
    shown_by: shown ? state.shown_by : null,
    shown_flipped: shown ? state.shown_flipped : false,
    stock_size: state.stock.length,
    seats,
    awaiting,
    my_claim: myClaim,
    winner: state.winner,
    win_kind: state.win_kind,
    scores: state.scores,
    huang_zhuang: state.huang_zhuang,
    stock: arbiter ? cards(state.stock) : [],
  };
}

module.exports = { evolve, initialState, fromStored, firstHand, checkOptions, options, toAct, outcome, view, classify };
