'use strict';
// A viewer's GameView re-rendered from a verified record, byte for byte as the server
// renders it (server/wire/render.py `view_proto` of server/wire/stored.py `seen_at`: the
// table frame, `_public_part`, `_justice_view`, `_draw_view`, the deadlines that follow from
// the record's times, `to_act`, and the game's own view): the ReceiptPayload {view} a view
// receipt's hash covers. A match's standings are not part of it (the match has a record of
// its own; a receipt's view is sent without them).
//
//   renderView(records, version, index, gameId)   the payload bytes of viewer `index` at `version`
//   viewsPorted(records)                  whether Node renders this game's views
//
// The table and the game's state come from lib/tablestate.js (the record's facts folded as
// the server folds them), for the games in tablestate.GAMES (花鸟风月 in lib/huaniaoview.js,
// 川南字牌 in lib/zipaiview.js). A game not among them (a kind added to the server later)
// keeps the fallback: its views are checked by their signed hash only, and the verify line
// says so.
const { load } = require('./protos');
const { message, receiptViewer } = require('./render');
const ts = require('./tablestate');

// per records array: the folded tables and the case facts' times (a verifier asks for
// several views of one game)
const folds = new WeakMap();

function folded(records) {
  let kept = folds.get(records);
  if (!kept) {
    const tables = ts.foldTable(records);
    const times = new Map();
    const caseTimes = []; // per version: the times of the case facts up to it
    for (const r of records) {
      if (['ViolationReported', 'AppealFiled', 'VoteCast', 'CaseTimedOut', 'CaseClosed'].includes(r.fact.type)) {
        times.set(r.version, ts.micros(r.recorded_at));
      }
      caseTimes.push(new Map(times));
    }
    kept = { tables, caseTimes };
    folds.set(records, kept);
  }
  return kept;
}

/** Whether Node re-renders the views of the game `records` holds (its kind is ported). */
function viewsPorted(records) {
  const created = records[0] && records[0].fact.data;
  return Boolean(created) && ts.ported(created.kind);
}

/** A time in microseconds since the epoch as a google.protobuf.Timestamp. */
function timestamp(us) {
  const seconds = Number(us / 1000000n);
  const nanos = Number(us % 1000000n) * 1000;
  const out = {};
  if (seconds) out.seconds = seconds;
  if (nanos) out.nanos = nanos;
  return out;
}

const ROLE = { seat: 'ROLE_SEAT', spectator: 'ROLE_SPECTATOR', arbiter: 'ROLE_ARBITER' };
const ARBITER = { role: 'arbiter', seat: null };

/** Drop proto3 defaults (no presence): what a deterministic encoding leaves out. */
function set(o) {
  const out = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === null || v === undefined || v === 0 || v === '' || v === false) continue;
    if ((Array.isArray(v) || Buffer.isBuffer(v)) && !v.length) continue;
    out[k] = v;
  }
  return out;
}

function enumOf(T, typeName, member) {
  const type = T.lookupEnum(`tabletop.v1.${typeName}`);
  const prefix = typeName.replace(/(?!^)(?=[A-Z])/g, '_').toUpperCase();
  const n = type.values[`${prefix}_${member}`];
  if (n === undefined) throw new Error(`${member} is no ${typeName}`);
  return n;
}

/** render.py `_make_public_part` (seats, outcome), `_justice_view` and `_draw_view`. */
function publicPart(t, T) {
  const E = (name, member) => enumOf(T, name, member);
  const Penalty = T.lookupType('tabletop.v1.Penalty');
  const seats = t.seats.map((info, seat) => {
    if (info === null) return set({ seat });
    const inputs = t.redraw === null ? info : t.redraw.entropy[seat];
    return set({
      seat,
      taken: true,
      player_name: info.player_name,
      contribution_commitment: inputs.commitment,
      contribution_status: E('ContributionStatus', ts.status(inputs)),
      public_key: Buffer.from(info.public_key, 'hex'),
      rekeyed_at: info.rekeyed_at,
    });
  });
  const j = t.justice;
  const part = {
    seats,
    enforcement: E('Enforcement', t.enforcement),
    turn_time_limit_ms: t.time_limit_ms,
    paused: ts.paused(t),
    redeals: Math.max(j.redeals, t.redeals_requested_by.length),
    redeals_requested_by: t.redeals_requested_by,
    redeal_commitment: t.redraw === null ? '' : t.redraw.commitment,
    arbitrated: t.arbitrated,
    misplays_used: j.misplays,
    violations: j.violations,
    case_time_limit_ms: t.case_time_limit_ms || t.time_limit_ms,
    justice_budget_ms: t.justice_budget_ms,
    match_redeals_used: t.match_redeals_used,
    reports_left: t.game === null ? [] : [...Array(t.seat_count).keys()].map((s) => ts.reportsLeft(j, s)),
    cases: j.cases.map((c) => ({
      ...set({
        id: c.id,
        is_appeal: c.kind === 'APPEAL',
        by: c.by,
        accused: c.accused,
        evidence: c.evidence,
        note: c.note,
        upheld_by: c.votes.filter((v) => v.uphold).map((v) => v.seat),
        rejected_by: c.votes.filter((v) => !v.uphold).map((v) => v.seat),
        redeal_agreed: c.redeal_agreed,
        lapsed: c.lapsed,
        recused: c.recused,
        violation: E('ViolationKind', c.violation),
        status: E('CaseStatus', c.status),
      }),
      penalty: message(Penalty, c.penalty),
    })),
    penalties: j.penalties.map((p) => ({
      ...set({ case_id: p.case_id, seat: p.seat, appealable: p.before !== null && !p.revoked, revoked: p.revoked }),
      penalty: message(Penalty, p.penalty),
    })),
    abandon_after_ms: t.abandon_after_ms,
    awaiting_seats: ts.drawing(t) ? ts.awaitedInputs(t) : [],
    no_entropy_seats: ts.noEntropy(t),
    void: t.abandoned !== null,
    void_waiting_for: t.abandoned || [],
    deal_status: ts.dealStatus(t),
  };
  const out = set(part);
  if (t.max_redeals !== null) out.max_redeals = t.max_redeals; // optional: present even at 0
  const outcome = ts.outcome(t);
  if (outcome !== null) out.outcome = set(outcome);
  return out;
}

/**
 * The GameView viewer `index` (receipt order: seats, spectator, arbiter) is shown at
 * `version` of a verified game's `records` (a move's last version): a plain object of
 * protobufjs's tabletop.v1.GameView.
 */
function viewMessage(records, version, index, gameId) {
  const { root: T } = load();
  const { tables, caseTimes } = folded(records);
  const t = tables[version - 1];
  const record = records[version - 1];
  const identity = receiptViewer(index, t.seat_count);
  const viewer = ts.phase(t) === 'FINISHED' ? ARBITER : identity; // the contents open up at the end
  const rules = ts.GAMES[t.kind];
  const GameView = T.lookupType('tabletop.v1.GameView');
  const gameView = t.game === null ? null : rules.view(t.game, viewer);
  const optionsType = T.lookupType('tabletop.v1.GameOptions').fields[t.kind].resolve().resolvedType;
  const msg = {
    ...set({
      game_id: gameId,
      version: t.version,
      phase: enumOf(T, 'GamePhase', ts.phase(t)),
      role: enumOf(T, 'Role', ROLE[identity.role].slice(5)),
      head_hash: record.hash,
      commitment: t.commitment,
      deal_source: enumOf(T, 'DealSource', t.deal_source),
    }),
    options: { [t.kind]: message(optionsType, t.options) },
  };
  if (gameView !== null) msg[t.kind] = message(GameView.fields[t.kind].resolve().resolvedType, gameView);
  if (identity.seat !== null) msg.seat = identity.seat;
  const at = ts.micros(record.recorded_at);
  const reveal = ts.revealDeadline(t, at);
  if (reveal !== null) msg.reveal_deadline = timestamp(reveal);
  Object.assign(msg, publicPart(t, T));
  if (ts.openCase(t.justice) !== null) {
    const due = ts.caseDeadline(t, caseTimes[version - 1]);
    if (due !== null) {
      msg.case_deadline = timestamp(due);
      for (const c of msg.cases) if (c.status === enumOf(T, 'CaseStatus', 'OPEN')) c.deadline = timestamp(due);
    }
  }
  if (t.draw_opened) {
    const due = ts.abandonDeadline(t, ts.micros(records[t.draw_opened - 1].recorded_at));
    if (due !== null) msg.abandon_deadline = timestamp(due);
  }
  if (gameView !== null) {
    const toAct = toActFor(t, viewer, gameView);
    if (toAct.length) msg.to_act = toAct;
  }
  return msg;
}

/** render.py `to_act`: the seats the game waits for, as far as `viewer` may know them. */
function toActFor(t, viewer, gameView) {
  const seats = ts.tableToAct(t);
  if (viewer.role === 'arbiter' || !seats.length || ts.paused(t)) return seats;
  if (!('awaiting' in gameView)) return seats; // a game that waits in public
  return seats.filter((s) => gameView.awaiting.includes(s));
}

/** The ReceiptPayload bytes of viewer `index`'s view at `version`: what a view receipt covers. */
function renderView(records, version, index, gameId) {
  const { root: T } = load();
  const payload = T.lookupType('tabletop.v1.ReceiptPayload');
  return Buffer.from(payload.encode({ view: viewMessage(records, version, index, gameId) }).finish());
}

module.exports = { renderView, viewMessage, viewsPorted };
