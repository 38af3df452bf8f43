'use strict';
// The Node deal derivation (lib/deal.js) against the test vectors published in docs/api.md
// ("Audit"), the same block tests/domain/test_deal.py checks the Python one against. Needs
// no server.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const deal = require('../lib/deal');

function vectors() {
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'api.md'), 'utf8');
  const found = doc.match(/<!-- deal-test-vectors -->\n```json\n([\s\S]*?)\n```/);
  assert.ok(found, 'docs/api.md lost its deal test vectors');
  return JSON.parse(found[1]);
}

const V = vectors();
const KEY = Buffer.from(V.table_key, 'hex');
const range = (n) => Array.from({ length: n }, (_, i) => i);

test('the commitments', () => {
  assert.equal(deal.commitment(V.secret, V.salt), V.commitment);
  assert.equal(deal.commitment(V.secret, V.salt, V.prepared_deck), V.commitment_with_prepared_deck);
  assert.equal(deal.secretFromSeed(V.seed), V.secret_from_seed);
  for (const [contribution, committed] of Object.entries(V.contributions)) {
    assert.equal(deal.contributionCommitment(contribution), committed);
  }
});

test('the entries and the table key', () => {
  const { alpha, beta } = V.contributions;
  const entries = [deal.entry(alpha, 'alpha'), deal.entry(beta, null, true), deal.entry('', null)];
  assert.deepEqual(entries, V.entries);
  assert.equal(deal.tableKey(V.secret, entries).toString('hex'), V.table_key);
});

test('the stream and rejection sampling', () => {
  assert.equal(new deal.Stream(KEY).take(40).toString('hex'), V.stream_first_40_bytes);
  const stream = new deal.Stream(deal.subkey(KEY, 'vector-rejection'));
  const draws = range(8).map(() => deal.uniform(stream, 2 ** 31 + 1));
  assert.deepEqual(draws, V['uniform_2147483649_under_subkey_vector-rejection']);
});

test('the decks, the seeds and the reshuffle', () => {
  assert.deepEqual(deal.deckForRound(KEY, range(108), 0), V.deck_round_0_of_cards_0_to_107);
  assert.deepEqual(deal.deckForRound(KEY, range(10), 1), V.deck_round_1_of_cards_0_to_9);
  assert.equal(deal.seedForRound(KEY, 0), V.seed_round_0);
  assert.equal(deal.seedForRound(KEY, 1), V.seed_round_1);
  const r = V.reshuffle_unseen;
  assert.deepEqual(deal.reshuffleUnseen(KEY, r.cards, r.label), r.result);
});

test('a tampered export fails the check', () => {
  // A tiny export built with the vectors' inputs: one seat revealed alpha, one withheld beta
  // (the old form: a record made before issue 35, which verifies but is no fair deal).
  const secret = V.secret;
  const records = [
    { type: 'GameCreated', data: { kind: 'x', seat_count: 3, commitment: V.commitment, prepared_deck: [] } },
    { type: 'SeatTaken', data: { seat: 0, contribution: '', commitment: V.contributions.alpha } },
    { type: 'SeatTaken', data: { seat: 1, contribution: '', commitment: V.contributions.beta } },
    { type: 'SeatTaken', data: { seat: 2, contribution: '', commitment: '' } },
    { type: 'ContributionRevealed', data: { seat: 0, contribution: 'alpha' } },
    { type: 'RevealWithheld', data: { seat: 1 } },
    { type: 'GameStarted', data: { deck: V.deck_round_0_of_cards_0_to_107, seed: V.seed_round_0 } },
    { type: 'ShuffleRevealed', data: { secret, salt: V.salt } },
  ];
  const text = (rs) => rs.map((fact, i) => JSON.stringify({ version: i + 1, fact })).join('\n');
  const ok = deal.checkExport(text(records));
  assert.deepEqual([ok.revealed, ok.withheld.length, ok.fair, ok.decks], [1, 1, false, 1]);
  assert.match(ok.withheld[0], /seat 1's entropy did not go in \(withheld: a record made before issue 35\)/);
  assert.deepEqual(ok.noEntropy, ['seat 2 added no entropy']);

  const forged = structuredClone(records);
  forged[4].data.contribution = 'alpha2'; // a different reveal than the one committed to
  assert.throws(() => deal.checkExport(text(forged)), /does not match its commitment/);
  const swapped = structuredClone(records);
  const deck = swapped[6].data.deck;
  [deck[0], deck[1]] = [deck[1], deck[0]];
  assert.throws(() => deal.checkExport(text(swapped)), /first deck/);
  const unrevealed = records.filter((r) => r.type !== 'ShuffleRevealed');
  assert.throws(() => deal.checkExport(text(unrevealed)), /has not ended/);
  const fresh = records.filter((r) => r.type !== 'RevealWithheld'); // dealt without seat 1
  assert.throws(() => deal.checkExport(text(fresh)), /made without seat\(s\) 1's entropy/);
});

test('an abandoned draw is a void game, and it must name whom it waited for', () => {
  const records = [
    { type: 'GameCreated', data: { kind: 'x', seat_count: 3, commitment: V.commitment, prepared_deck: [] } },
    { type: 'SeatTaken', data: { seat: 0, contribution: '', commitment: V.contributions.alpha } },
    { type: 'SeatTaken', data: { seat: 1, contribution: '', commitment: V.contributions.beta } },
    { type: 'SeatTaken', data: { seat: 2, contribution: '', commitment: '' } },
    { type: 'ContributionRevealed', data: { seat: 0, contribution: 'alpha' } },
    { type: 'DealAbandoned', data: { waiting_for: [1], round: 0 } },
    { type: 'ShuffleRevealed', data: { secret: V.secret, salt: V.salt } },
  ];
  const text = (rs) => rs.map((fact, i) => JSON.stringify({ version: i + 1, fact })).join('\n');
  const ok = deal.checkExport(text(records));
  assert.deepEqual([ok.void, ok.decks, ok.fair], [{ waitingFor: [1], round: 0 }, 0, true]);
  const wrong = structuredClone(records);
  wrong[5].data.waiting_for = [0, 1]; // seat 0 had revealed: it was not waited for
  assert.throws(() => deal.checkExport(text(wrong)), /waited for 1/);
  const dealtAnyway = [...records.slice(0, 5), { type: 'GameStarted', data: { deck: [], seed: 0 } }, records[6]];
  assert.throws(() => deal.checkExport(text(dealtAnyway)), /without seat\(s\) 1's entropy/);
});

function drawVectors() {
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'api.md'), 'utf8');
  const found = doc.match(/<!-- draw-test-vectors -->\n```json\n([\s\S]*?)\n```/);
  assert.ok(found, 'docs/api.md lost its draw test vectors');
  return JSON.parse(found[1]);
}

test("a match's later hand and a redeal (Every hand, every redeal)", () => {
  const { later_hand: hand, redeal } = drawVectors();
  const c = deal.contributionCommitment;
  assert.equal(deal.commitment(hand.secret, hand.salt), hand.commitment);
  const handEntries = [deal.entry(c('alpha'), 'alpha'), deal.entry(c('beta'), 'beta'), deal.entry('', null, true)];
  assert.deepEqual(handEntries, hand.entries);
  const key = deal.tableKey(hand.secret, handEntries);
  assert.equal(key.toString('hex'), hand.table_key);
  assert.deepEqual(deal.deckForRound(key, range(10), 0), hand.deck_round_0_of_cards_0_to_9);
  assert.equal(deal.seedForRound(key, 0), hand.seed_round_0);
  assert.equal(deal.commitment(redeal.secret, '', []), redeal.commitment);
  const fresh = [deal.entry(c('gamma'), 'gamma'), deal.entry(c('delta'), null, true), 'n'];
  assert.deepEqual(fresh, redeal.entries);
  const redealKey = deal.tableKey(redeal.secret, fresh);
  assert.equal(redealKey.toString('hex'), redeal.redeal_key);
  assert.deepEqual(deal.deckForRound(redealKey, range(10), redeal.round), redeal.deck_round_1_of_cards_0_to_9);
  assert.equal(deal.seedForRound(redealKey, redeal.round), redeal.seed_round_1);
});
