'use strict';
// What `tabletop-verify EXPORT` says of a record, as lines and an exit status, with no file,
// console or process: bin/verify.js prints them, and the browser's verifier
// (clients/web/src/verify, the same code bundled) shows them. Status 0 = verified (one line),
// 1 = not (one line naming the first problem), 3 = a proof that the server lied (each proof
// on its lines).
const { VerifyError, verifyText, checkReceipts, handWords, canonical } = require('./verify');
const tl = require('./translog');
const { dealWords } = require('./deal');
const { prove, LIED } = require('./proofs');
const { checkReceiptHeads } = require('./heads');

const list = (xs) => xs.join(', ');

/**
 * Whose word each seat's commands stand on: keyed seats signed every command (checked),
 * unkeyed seats' commands stand on the server's word alone, and a re-key stands on the
 * seat token's word. `hands`: each verified game of the record, in order.
 */
function seatWords(hands) {
  const first = hands[0].seatKeys;
  const taken = first.filter((s) => s.taken);
  const keyed = taken.filter((s) => s.joinKey).map((s) => s.seat);
  const unkeyed = taken.filter((s) => !s.joinKey).map((s) => s.seat);
  const signatures = hands.reduce((n, g) => n + g.seatKeys.reduce((m, s) => m + s.signed, 0), 0);
  const parts = [];
  if (keyed.length) parts.push(`seat(s) ${list(keyed)} keyed: ${signatures} seat signature(s) checked`);
  if (unkeyed.length) parts.push(`seat(s) ${list(unkeyed)} UNKEYED: their commands stand on the server's word alone`);
  if (!taken.length) parts.push('no seat taken');
  const rekeys = hands.flatMap((g) => g.seatKeys.flatMap((s) => s.rekeys.map((v) =>
    `seat ${s.seat} RE-KEYED at ${hands.length > 1 ? `hand ${g.hand} ` : ''}version ${v}`)));
  if (rekeys.length) parts.push(`${list(rekeys)} (the commands after it stand on a key the server accepted on the seat token's word)`);
  const arbiter = hands[0].seatKeys.arbiter;
  if (arbiter && arbiter.key) {
    const rulings = hands.reduce((n, g) => n + ((g.seatKeys.arbiter && g.seatKeys.arbiter.signed) || 0), 0);
    parts.push(`the arbiter keyed: ${rulings} arbiter signature(s) checked`);
  } else if (arbiter && arbiter.arbitrated) {
    parts.push("the arbiter UNKEYED: its rulings stand on the server's word alone");
  }
  return `seat keys: ${parts.join('; ')}`;
}

function summary(result, receipts) {
  const ids = [...result.signers].join(', ');
  const signed = `signed by key ${ids}`;
  const decks = (games) => games.reduce((n, g) => n + g.dealt.decks, 0);
  let line;
  if (result.match) {
    const hands = result.hands;
    const unfair = hands.flatMap((g, i) => (g.dealt.fair ? [] : [`hand ${i + 1} NOT a fair deal: ${g.dealt.withheld.join('; ')}`]));
    const fair = unfair.length ? unfair.join('; ') : "every hand dealt from every seat's entropy";
    const incomplete = result.incomplete
      ? `; match INCOMPLETE: hand ${hands.length} void (no deal, waiting for seat(s) ${result.incomplete.waitingFor.join(', ')}); the hands before it stand, no winner`
      : '';
    line = `verified match ${result.matchId}: ${hands[0].kind}, ${hands.length} hands, ` +
      `${result.facts} match facts, ${hands.reduce((n, g) => n + g.events, 0)} events, ` +
      `${hands.reduce((n, g) => n + g.moves, 0)} sealed moves, ${decks(hands)} deck(s) recomputed; every hand's own stream says what follows it (hand ${hands.length} the last); ${fair}${incomplete}; winners [${result.winners.join(', ')}]; ${seatWords(hands)}; ${signed}`;
  } else {
    const prepared = result.dealt.dealSource === 'SHUFFLED' ? '' : `; prepared deal (${result.dealt.dealSource})`;
    line = `verified game ${result.gameId}: ${result.kind}, ${result.events} events, ${result.moves} sealed moves, ` +
      `${result.dealt.decks} deck(s) recomputed; ${dealWords(result.dealt)}${prepared}; ${seatWords([result])}; ${signed}`;
    const hand = handWords(result);
    if (hand) line += `; ${hand}`;
  }
  line += `; ${result.log}`;
  if (receipts) {
    line += `; receipts: ${receipts.receipts} verified for viewer(s) ${receipts.viewers.join(', ')}; the events hashes ` +
      `of all ${receipts.moves} moves are the record's rendering for every viewer`;
    if (receipts.rendered) line += `; ${receipts.rendered} view receipt(s) re-rendered: the record's view for their viewer`;
    const hashOnly = receipts.views - (receipts.rendered || 0);
    if (hashOnly) line += `; ${hashOnly} view receipt(s) checked by their signed hash only (not re-rendered)`;
    if (receipts.heads) line += `; ${receipts.heads} tree head(s) they carry signed and consistent`;
  }
  return line;
}

/**
 * A verified record's status and lines: with `receiptsText` (a viewer's saved receipts, JSON
 * Lines), first the proofs that the server lied (lib/proofs.js), then the receipts checked.
 * `exportName`, `receiptsName`: how the proofs name the two files.
 */
/**
 * The receipts' part of a run, and the record's line; the tree heads the receipts carry are
 * held against the export's log line and `knownHeads` (--heads FILE, as [source, head]).
 */
function finishRun(result, keys, receiptsText, exportName = 'export', receiptsName = 'receipts', knownHeads = []) {
  let receipts = null;
  if (receiptsText !== null && receiptsText !== undefined) {
    if (result.match) throw new VerifyError('--receipts checks one game, not a match');
    const proven = prove(result, receiptsText, keys, exportName, receiptsName);
    if (proven.proofs.length) { // the record verifies, and it and the receipts are signed contradictions
      return { status: LIED, out: proven.proofs.map((p) => p.lines.join('\n')).join('\n').split('\n'), err: [] };
    }
    receipts = { ...checkReceipts(result, receiptsText, keys), moves: proven.moves };
    const carried = checkReceiptHeads(keys, result, receiptsText, receiptsName, exportName, knownHeads);
    if (typeof carried !== 'number') return carried; // a fork proved
    receipts.heads = carried;
  }
  return { status: 0, out: [summary(result, receipts)], err: [] };
}

/** A failure's status and line: "VERIFY FAILED: " and the first problem, on one line. */
function failure(err) {
  const reason = err.code && err.path ? `cannot read ${err.path}: ${err.code}` : err.message;
  return { status: 1, out: [], err: [`VERIFY FAILED: ${String(reason).split('\n').join(' ')}`] };
}

/**
 * Verify an export's text (or its lines) with the given keys, and a viewer's receipts if
 * given: {status, out, err}, as `tabletop-verify EXPORT --public-key ... [--receipts ...]`.
 */
function runVerify(text, keys, { statements = [], retired = [], receipts = null, exportName = 'export', receiptsName = 'receipts' } = {}) {
  try {
    const result = verifyText(text, keys, statements, { retired });
    return finishRun(result, keys, receipts, exportName, receiptsName);
  } catch (err) {
    // a log line with two signed heads of one log and size, two roots: the proof (bin/verify.js)
    const forks = err instanceof tl.HeadsOutOfOrder ? tl.forks(err.heads.map((h) => [`${exportName} log line`, h]), keys, canonical) : [];
    if (forks.length) return { status: LIED, out: forks.flatMap(tl.forkLines), err: [] };
    return failure(err); // as the command line: any problem is the one line it prints
  }
}

module.exports = { summary, seatWords, finishRun, failure, runVerify };
