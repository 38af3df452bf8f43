'use strict';
// The table's state folded from a verified record's facts, as the server folds it
// (domain/table/evolution.py `evolve`, domain/table/justice/state.py `evolve`,
// domain/table/state.py's derived parts, domain/table/draw.py's deadlines and deal status,
// domain/table/clock.py's case deadline), with the game's own state beside it (the games whose
// fold is ported: GAMES, both of the server's). lib/viewrender.js renders a viewer's GameView
// from it.
//
//   foldTable(records)   [table after version 1, after version 2, ...]
//
// A plain object of the domain's own fields (snake_case, enums by member name), derived
// parts as functions of it below. Nothing here decides a rule: the record's facts are the
// server's signed decisions, folded as they are.
const crypto = require('./crypto');
const zipai = require('./zipaiview');
const huaniao = require('./huaniaoview');

/** The games whose state Node folds (and whose views it re-renders). */
const GAMES = { zipai, huaniao };

const { TABLE_FACTS, JUSTICE_FACTS } = require('./facts');

const sha256hex = (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');
const given = (v) => v !== null && v !== undefined;

// --- a seat's input to a draw (state.py _DealInput) -----------------------------------------

function status(input) {
  if (input.awaited) return 'AWAITED';
  if (input.contribution && input.commitment) return 'REVEALED';
  if (input.withheld) return 'WITHHELD';
  return input.commitment ? 'PENDING' : 'NONE';
}

const ENTROPY = { commitment: '', contribution: '', withheld: false, awaited: true };

const drawInputs = (t) => (t.redraw === null ? t.seats : t.redraw.entropy);
const withStatus = (t, s) => drawInputs(t).flatMap((x, i) => (x !== null && status(x) === s ? [i] : []));
const pendingReveals = (t) => withStatus(t, 'PENDING');
const awaitedCommitments = (t) => withStatus(t, 'AWAITED');
const noEntropy = (t) => withStatus(t, 'NONE');

function awaitedReserved(t) {
  if (t.game !== null || t.redraw !== null) return [];
  return t.reserved_players.flatMap((p, i) => (p && t.seats[i] === null ? [i] : []));
}

function awaitedInputs(t) {
  for (const seats of [awaitedReserved(t), awaitedCommitments(t)]) if (seats.length) return seats;
  return pendingReveals(t);
}

function drawing(t) {
  if (t.abandoned !== null) return false;
  if (t.redraw !== null) return true;
  if (t.game !== null) return false;
  return t.seats.every((s) => s !== null) || awaitedReserved(t).length > 0;
}

function outcome(t) {
  if (t.abandoned !== null) return { winners: [], scores: [], reason: 'VOID' };
  if (t.game === null) return null;
  const forfeited = t.justice.forfeited;
  if (forfeited.length) {
    const seats = [...Array(t.seat_count).keys()];
    return { winners: seats.filter((s) => !forfeited.includes(s)), scores: seats.map((s) => (forfeited.includes(s) ? -1 : 0)), reason: 'FORFEIT' };
  }
  return GAMES[t.kind].outcome(t.game);
}

function phase(t) {
  if (t.abandoned !== null) return 'FINISHED';
  if (t.game === null) return 'WAITING';
  return outcome(t) === null ? 'PLAYING' : 'FINISHED';
}

const openCase = (j) => (j.cases.length && j.cases[j.cases.length - 1].status === 'OPEN' ? j.cases[j.cases.length - 1] : null);
const paused = (t) => openCase(t.justice) !== null || t.redraw !== null;

// --- justice (justice/state.py) ---------------------------------------------------------------

const FAILED_REPORTS_ALLOWED = 2;
const JUSTICE = {
  cases: [], penalties: [], misplays: [], violations: [], warnings: [], forfeited: [], redeals: 0,
  penalty_facts_pending: 0, discard_counts: [], failed_before: [], legacy: false, reports_in_deal: [],
};

function forSeats(n, failedBefore, legacy) {
  const zeros = Array(n).fill(0);
  return { ...JUSTICE, misplays: zeros, violations: zeros, warnings: zeros, discard_counts: zeros, failed_before: [...failedBefore], legacy };
}

function failedReports(j, seat) {
  const failed = ['REJECTED', 'UNRESOLVED', ...(j.legacy ? [] : ['DEADLOCKED'])];
  const before = seat < j.failed_before.length ? j.failed_before[seat] : 0;
  return before + j.cases.filter((c) => c.kind === 'REPORT' && c.by === seat && failed.includes(c.status)).length;
}

const reportsLeft = (j, seat) => Math.max(0, FAILED_REPORTS_ALLOWED - failedReports(j, seat));
const bump = (counts, seat, by = 1) => counts.map((n, i) => (i === seat ? n + by : n));
const findCase = (j, id) => j.cases.find((c) => c.id === id) || null;
const updateCase = (j, id, change) => ({ ...j, cases: j.cases.map((c) => (c.id === id ? change(c) : c)) });

function closeAppealWindows(records) {
  if (!records.length || records[records.length - 1].before === null) return records;
  return [...records.slice(0, -1), { ...records[records.length - 1], before: null }];
}

const PENALTY = (p) => ({ count: 0, cards: [], ...p });

function newCase(fields) {
  return {
    votes: [], status: 'OPEN', appeals_case: null, redeal_agreed: [], owed: 0, recused: [], lapsed: [], clock: 0,
    clocked_by: [], closed: 0, ...fields,
  };
}

function discardViolation(j, seat, owed) {
  const counts = j.discard_counts.length ? j.discard_counts : Array(j.warnings.length).fill(0);
  return { ...j, discard_counts: counts.map((n, i) => (i === seat ? owed : n)) };
}

/** justice/state.py `evolve` (the ones that leave the game's state as it is). */
const JUSTICE_EVOLVE = {
  ViolationReported(j, e, version) {
    const c = newCase({
      id: version, kind: 'REPORT', by: e.by, accused: e.accused, violation: e.violation, evidence: [...e.evidence],
      penalty: PENALTY(e.penalty), note: e.note, owed: e.owed || 0, clock: version,
    });
    const filed = j.reports_in_deal.length ? j.reports_in_deal : Array(j.misplays.length).fill(0);
    return { ...j, cases: [...j.cases, c], reports_in_deal: bump(filed, e.by) };
  },
  AppealFiled(j, e, version) {
    const record = j.penalties.find((p) => p.case_id === e.case_id);
    const appealed = findCase(j, e.case_id);
    let recused = [];
    if (appealed !== null) recused = [appealed.by, ...appealed.votes.filter((v) => v.uphold).map((v) => v.seat)];
    const c = newCase({
      id: version, kind: 'APPEAL', by: e.seat, accused: e.seat, violation: appealed !== null ? appealed.violation : 'TIMEOUT',
      evidence: [e.case_id], penalty: record.penalty, note: e.reason, appeals_case: e.case_id,
      recused: [...new Set(recused)].sort((a, b) => a - b), clock: version,
    });
    return { ...j, cases: [...j.cases, c] };
  },
  VoteCast(j, e, version) {
    return updateCase(j, e.case_id, (c) => {
      const voted = { ...c, votes: [...c.votes, { seat: e.seat, uphold: e.uphold }] };
      if (c.clocked_by.includes(e.seat)) return voted;
      return { ...voted, clock: version, clocked_by: [...c.clocked_by, e.seat] };
    });
  },
  ArbiterRuled: (j) => j,
  TurnTimedOut: (j) => j,
  CaseClosed(j, e, version) {
    j = updateCase(j, e.case_id, (c) => ({ ...c, status: e.status, closed: version }));
    const c = findCase(j, e.case_id);
    if (c.kind === 'APPEAL' && e.status !== 'UPHELD') { // one appeal per penalty
      return { ...j, penalties: j.penalties.map((p) => (p.case_id === c.appeals_case ? { ...p, before: null } : p)) };
    }
    if (c.kind !== 'REPORT' || e.status !== 'UPHELD') return j;
    let warnings = j.warnings;
    if (c.penalty.kind === 'WARNING') warnings = bump(warnings, c.accused);
    if (c.violation === 'DISCARD_ORDER') j = discardViolation(j, c.accused, c.owed);
    return { ...j, violations: bump(j.violations, c.accused), warnings };
  },
  GameRedealt(j, e) {
    return { ...j, redeals: e.round, penalties: closeAppealWindows(j.penalties), reports_in_deal: [] };
  },
  AttemptRefereed(j, e) {
    if (e.violation !== 'DISCARD_ORDER') return j;
    return discardViolation({ ...j, warnings: bump(j.warnings, e.seat) }, e.seat, e.owed || 0);
  },
  RedealAgreed(j, e) {
    return updateCase(j, e.case_id, (c) => ({ ...c, redeal_agreed: [...c.redeal_agreed, e.seat] }));
  },
  CaseTimedOut(j, e, version) {
    return updateCase(j, e.case_id, (c) => ({ ...c, lapsed: [...c.lapsed, ...e.seats], clock: version }));
  },
};

/** justice/state.py `evolve`: [justice, game]. */
function evolveJustice(j, type, e, version, game, rules) {
  if (type === 'MoveRetracted') return [{ ...j, misplays: bump(j.misplays, e.seat) }, rules.fromStored(e.restored)];
  if (type === 'PenaltyApplied') {
    const record = { case_id: e.case_id, seat: e.seat, penalty: PENALTY(e.penalty), before: game, revoked: false };
    let violations = j.violations;
    if (findCase(j, e.case_id) === null) violations = bump(violations, e.seat); // a timeout: no case
    const forfeited = e.penalty.kind === 'FORFEIT' ? [...j.forfeited, e.seat] : j.forfeited;
    return [{ ...j, penalties: [...closeAppealWindows(j.penalties), record], penalty_facts_pending: e.game_facts, forfeited, violations }, game];
  }
  if (type === 'PenaltyRevoked') {
    const record = j.penalties.find((p) => p.case_id === e.case_id);
    const penalties = j.penalties.map((p) => (p.case_id === e.case_id ? { ...p, revoked: true, before: null } : p));
    const forfeited = j.forfeited.filter((s) => !(record.penalty.kind === 'FORFEIT' && s === record.seat));
    return [{ ...j, penalties, forfeited, violations: bump(j.violations, record.seat, -1) }, record.before];
  }
  return [JUSTICE_EVOLVE[type](j, e, version), game];
}

function afterGameFact(j) {
  if (j.penalty_facts_pending > 0) return { ...j, penalty_facts_pending: j.penalty_facts_pending - 1 };
  if (j.penalties.length && j.penalties[j.penalties.length - 1].before !== null) return { ...j, penalties: closeAppealWindows(j.penalties) };
  return j;
}

// --- the table (evolution.py) -------------------------------------------------------------------

function created(e) {
  return {
    version: 1,
    kind: e.kind,
    options: e.options,
    seat_count: e.seat_count,
    commitment: e.commitment,
    seats: Array(e.seat_count).fill(null),
    game: null,
    enforcement: e.enforcement || 'REJECT',
    time_limit_ms: e.time_limit_ms || 0,
    arbitrated: Boolean(e.arbitrated),
    justice: JUSTICE,
    match_id: e.match_id || '',
    hand: e.hand || 0,
    first_seat: null,
    deal_source: e.deal_source || 'SHUFFLED',
    reveal_timeout_ms: e.reveal_timeout_ms || 0,
    max_redeals: given(e.max_redeals) ? e.max_redeals : null,
    case_time_limit_ms: e.case_time_limit_ms || 0,
    justice_budget_ms: e.justice_budget_ms || 0,
    match_redeals_used: e.match_redeals_used || 0,
    match_failed_reports: e.match_failed_reports || [],
    redraw: null,
    redeals_requested_by: [],
    abandon_after_ms: e.abandon_after_ms || 0,
    abandoned: null,
    draw_opened: 0,
    reserved_players: e.reserved_players || [],
  };
}

function withSeat(t, i, seat) {
  const seats = [...t.seats];
  seats[i] = seat;
  return { ...t, seats };
}

function withInputs(t, i, changes) {
  if (t.redraw !== null) {
    const entropy = [...t.redraw.entropy];
    entropy[i] = { ...entropy[i], ...changes };
    return { ...t, redraw: { ...t.redraw, entropy } };
  }
  return withSeat(t, i, { ...t.seats[i], ...changes });
}

function newGame(t, deck, seed) {
  return GAMES[t.kind].initialState(t.options, t.seat_count, deck, seed);
}

const APPLY = {
  SeatTaken(t, e) {
    let committed = e.commitment || '';
    if (e.contribution && !committed) committed = sha256hex(`tabletop-contribution|${e.contribution}`);
    const seat = {
      player_name: e.player_name, contribution: e.contribution || '', commitment: committed, withheld: false,
      awaited: t.hand >= 2 && !committed, public_key: e.public_key || '', rekeyed_at: [], player: e.player || '',
    };
    return { ...withSeat(t, e.seat, seat), first_seat: t.first_seat === null ? e.seat : t.first_seat };
  },
  SeatCommitted: (t, e) => withInputs(t, e.seat, { commitment: e.commitment, awaited: false }),
  SeatRekeyed(t, e) {
    const taken = t.seats[e.seat];
    return withSeat(t, e.seat, { ...taken, public_key: e.public_key, rekeyed_at: [...taken.rekeyed_at, t.version] });
  },
  ContributionRevealed: (t, e) => withInputs(t, e.seat, { contribution: e.contribution }),
  RevealWithheld: (t, e) => withInputs(t, e.seat, { withheld: true, awaited: false }),
  RedealOpened(t, e) {
    const redraw = { round: e.round, requested_by: e.requested_by, commitment: e.commitment, entropy: Array(t.seat_count).fill(ENTROPY) };
    return { ...t, redraw, redeals_requested_by: [...t.redeals_requested_by, e.requested_by] };
  },
  RedealSecretsRevealed: (t) => t,
  DealAbandoned: (t, e) => ({ ...t, abandoned: [...e.waiting_for] }),
  ShuffleRevealed: (t) => t,
  HandClosed: (t) => t,
  GameStarted(t, e) {
    const rules = GAMES[t.kind];
    const options = t.first_seat !== null ? rules.firstHand(t.options, t.first_seat) : t.options;
    t = { ...t, options };
    return {
      ...t,
      game: newGame(t, e.deck, e.seed),
      justice: forSeats(t.seat_count, t.match_failed_reports, t.justice_budget_ms <= 0),
    };
  },
};

function play(t, type, e, version) {
  const rules = GAMES[t.kind];
  if (JUSTICE_FACTS.has(type)) {
    const [justice, game] = evolveJustice(t.justice, type, e, version, t.game, rules);
    if (type === 'GameRedealt') return { ...t, version, justice, game: newGame(t, e.deck, e.seed), redraw: null };
    if (type === 'PenaltyRevoked' && e.deck && e.deck.length) { // the reshuffled unseen deck
      if (!rules.withDeck) throw new Error(`${t.kind} has no deck to reshuffle`);
      return { ...t, version, justice, game: rules.withDeck(game, e.deck) };
    }
    return { ...t, version, justice, game };
  }
  return { ...t, version, justice: afterGameFact(t.justice), game: rules.evolve(t.game, type, e) };
}

/** evolution.py `evolve`: one stored fact ({type, data}) applied. */
function evolve(t, fact) {
  const { type, data } = fact;
  const drew = t !== null && drawing(t);
  let after;
  if (t === null) {
    if (type !== 'GameCreated') throw new Error(`the record opens with ${type}, not GameCreated`);
    if (!GAMES[data.kind]) throw new NotPorted(`${data.kind} views`);
    after = created(data);
  } else if (TABLE_FACTS.has(type)) {
    after = APPLY[type]({ ...t, version: t.version + 1 }, data);
  } else {
    after = play(t, type, data, t.version + 1);
  }
  if (!drew && drawing(after)) return { ...after, draw_opened: after.version };
  return after;
}

class NotPorted extends Error {}

/** Whether Node folds (and renders the views of) a game of this kind. */
const ported = (kind) => Object.prototype.hasOwnProperty.call(GAMES, kind);

/** The table after each version of `records` (verified, stored facts unredacted). */
function foldTable(records) {
  const out = [];
  let t = null;
  for (const r of records) {
    t = evolve(t, r.fact);
    out.push(t);
  }
  return out;
}

// --- the draw's words and deadlines (draw.py), the case deadline (clock.py) ---------------------

const seatNames = (seats) => seats.map(String).join(', ');

function dealStatus(t) {
  if (t.abandoned !== null) return `void: no deal, waiting for seat(s) ${seatNames(t.abandoned)}`;
  const parts = [];
  if (drawing(t)) {
    const awaited = awaitedCommitments(t);
    const pending = pendingReveals(t);
    if (awaited.length) parts.push(`waiting for seat(s) ${seatNames(awaited)} to commit`);
    else if (pending.length) parts.push(`waiting for seat(s) ${seatNames(pending)} to reveal`);
  }
  for (const s of noEntropy(t)) parts.push(`seat ${s} added no entropy`);
  return parts.join('; ');
}

/** A "Z" time of the chained form as microseconds since the epoch (exact). */
function micros(text) {
  const m = /^(.*T[0-9:]{8})\.([0-9]{6})Z$/.exec(text);
  if (!m) throw new Error(`recorded_at ${text} is not in the chained form`);
  return BigInt(Date.parse(`${m[1]}Z`)) * 1000n + BigInt(m[2]);
}

const plusMs = (us, ms) => us + BigInt(ms) * 1000n;

function revealDeadline(t, at) {
  if (!drawing(t)) return null;
  if (!pendingReveals(t).length && !awaitedCommitments(t).length) return null;
  return plusMs(at, t.reveal_timeout_ms);
}

function abandonDeadline(t, openedAt) {
  if (!drawing(t) || !awaitedInputs(t).length || t.abandon_after_ms <= 0) return null;
  return plusMs(openedAt, t.abandon_after_ms);
}

/** clock.py `case_deadline`, from `times` (version -> microseconds of every case fact so far). */
function caseDeadline(t, times) {
  const limit = t.case_time_limit_ms || t.time_limit_ms;
  const c = openCase(t.justice);
  if (phase(t) !== 'PLAYING' || c === null || limit <= 0) return null;
  const deadline = plusMs(times.get(c.clock || c.id), limit);
  if (t.justice_budget_ms <= 0) return deadline;
  const opened = times.get(c.id);
  let spent = 0n; // the earlier cases' pauses (clock.py justice_spent at the opening)
  for (const k of t.justice.cases) {
    const end = k.closed ? times.get(k.closed) : opened;
    const d = end - times.get(k.id);
    if (d > 0n) spent += d;
  }
  const end = plusMs(opened, t.justice_budget_ms) - spent;
  return deadline < end ? deadline : end;
}

/** verdict.py `awaited_voters`: the seats an open case still waits for (null: none open). */
function awaitedVoters(j, seatCount) {
  const c = openCase(j);
  if (c === null) return null;
  const seats = [...Array(seatCount).keys()].filter((s) => s !== c.by && !c.recused.includes(s));
  const ballot = new Map(c.votes.map((v) => [v.seat, typeof v.uphold === 'boolean' ? v.uphold : null]));
  for (const s of c.lapsed) ballot.set(s, null);
  const missing = seats.filter((s) => !ballot.has(s));
  const others = seats.filter((s) => s !== c.accused);
  const checked = c.kind === 'REPORT' && !['OTHER', 'TIMEOUT'].includes(c.violation);
  let found = null;
  const ways = 3 ** missing.length;
  for (let w = 0; w < ways; w += 1) { // itertools.product((True, False, None), ...)
    let rest = w;
    for (let i = missing.length - 1; i >= 0; i -= 1) {
      ballot.set(missing[i], [true, false, null][rest % 3]);
      rest = Math.floor(rest / 3);
    }
    const verdict = finalVerdict(seats, others, c.accused, checked, ballot);
    if (found === null) found = verdict;
    else if (verdict !== found) return seats.filter((s) => !c.votes.some((v) => v.seat === s) && !c.lapsed.includes(s));
  }
  return [];
}

function finalVerdict(seats, others, accused, checked, ballot) {
  if (checked) {
    if (ballot.get(accused) === true || (others.length && others.every((s) => ballot.get(s) === true))) return 'UPHELD';
  } else if (seats.length && seats.every((s) => ballot.get(s) === true)) {
    return 'UPHELD';
  }
  if (others.length && seats.every((s) => ballot.get(s) === false)) return 'REJECTED';
  return 'DISPUTED';
}

/** decider.py `to_act`: the voters of an open case, else the game's. */
function tableToAct(t) {
  if (phase(t) !== 'PLAYING' || t.redraw !== null) return [];
  const awaited = awaitedVoters(t.justice, t.seat_count);
  return awaited !== null ? awaited : GAMES[t.kind].toAct(t.game);
}

module.exports = {
  foldTable, evolve, ported, NotPorted, GAMES, status, drawing, awaitedInputs, noEntropy, outcome, phase, paused,
  openCase, reportsLeft, dealStatus, micros, revealDeadline, abandonDeadline, caseDeadline, tableToAct, JUSTICE_FACTS,
};
