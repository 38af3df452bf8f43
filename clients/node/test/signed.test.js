'use strict';
// Seat signatures against a real server (docs/api.md, "Seat signatures"): every seat joins
// with its own key and signs its commands; a seat re-keys; the record's signatures verify
// with lib/verify.js and every lie about them fails; unsigned, unkeyed and wrongly signed
// commands are refused; a server that drops a key, or does not acknowledge a reveal, is caught.
const test = require('node:test');
const assert = require('node:assert/strict');
const {
  RandomBot, playUntilOver, revealAndStart, findDetail, SeatKey, SeatKeyNotRecorded, verify,
} = require('../lib');
const { SeatClient, unaryRaw } = require('../lib/client');
const { acknowledgementProblem } = require('../lib/acks');
const { checkSeatSignatures } = require('../lib/seatsigs');
const { signRequest } = require('../lib/seatkey');
const { withClient, BASIC } = require('./helpers');

const reason = (err) => (findDetail(err, 'ErrorInfo') || {}).reason;
const fail = (m) => {
  throw new verify.VerifyError(m);
};
const clone = (x) => structuredClone(x); // records may hold BigInts (a seed beyond 2^53)

/** A finished game's stored records, as GetHistory gives them to everyone after the end. */
async function records(seat) {
  const lines = (await seat.history()).map((e) => ({ event: { ...e, version: String(e.version), recorded_at: timestamp(e.recorded_at) } }));
  return lines.map(({ event }) => {
    const stored = verify.parseStrict(event.stored_json);
    return { ...stored, hash: event.hash, recorded_at: event.recorded_at, version: Number(event.version) };
  });
}

function timestamp(ts) {
  const ms = Number(ts.seconds) * 1000;
  const iso = new Date(ms).toISOString().slice(0, 19);
  return `${iso}.${String(Math.floor(ts.nanos / 1000)).padStart(6, '0')}Z`;
}

test('signed seats play a game, one re-keys, and the record verifies their signatures', withClient(async (client) => {
  const created = await client.createGame(BASIC, 4);
  const gameId = created.game_id;
  const seats = [];
  for (let s = 0; s < 4; s += 1) seats.push(await client.join(gameId, s, `signed-${s}`));
  for (const s of seats) assert.equal(s.key.publicKey.length, 32);

  // seat 1 lost its key: a new one, signed by itself, recorded for everyone
  const oldKey = seats[1].key;
  const rekeyedAt = await seats[1].rekey();
  const view = await seats[0].view();
  assert.deepEqual(Buffer.from(view.seats[1].public_key), seats[1].key.publicKey);
  assert.deepEqual(view.seats[1].rekeyed_at.map(Number), [Number(rekeyedAt)]);

  // the old key signs no more: a reveal signed with it is refused
  const revealWithOld = signRequest(oldKey, 'RevealContribution', { game_id: gameId, contribution: seats[1].contribution });
  await assert.rejects(
    unaryRaw(client.stub, 'RevealContribution', revealWithOld, seats[1].metadata()),
    (err) => reason(err) === 'SEAT_SIGNATURE_INVALID',
  );
  // nor does a command without a signature stand for a keyed seat
  const unsigned = new SeatClient(client, gameId, 2, seats[2].token, seats[2].contribution, null);
  await assert.rejects(unsigned.reveal(), (err) => reason(err) === 'SEAT_SIGNATURE_REQUIRED');

  await revealAndStart(seats);
  const final = await playUntilOver(seats.map((s, i) => new RandomBot(s, 300 + i)), { idleTimeoutMs: 40_000 });
  assert.equal(final.phase, 'GAME_PHASE_FINISHED');

  const recs = await records(seats[0]);
  const keys = await client.serverKeys();
  const result = verify.verifyGame(recs, keys, gameId);
  assert.deepEqual(result.seatKeys.map((s) => s.joinKey !== ''), [true, true, true, true]);
  assert.deepEqual(result.seatKeys[1].rekeys, [Number(rekeyedAt)]);
  assert.equal(result.seatKeys[1].key, seats[1].key.publicKey.toString('hex'));
  const signedCount = result.seatKeys.reduce((n, s) => n + s.signed, 0);
  const seatCauses = recs.filter((r) => r.cause && Number.isInteger(r.cause.seat)).length;
  assert.equal(signedCount, seatCauses, 'every cause in a seat\'s name was signed and checked');

  // the lies: each must fail, naming what is wrong
  const playsOf = (seat) => recs.filter((r) => r.cause && r.cause.action === 'play' && r.cause.seat === seat);
  const plays = [0, 1, 2, 3].map(playsOf).sort((a, b) => b.length - a.length)[0]; // a seat's moves
  assert.ok(plays.length >= 1, 'a seat played');
  const lie = (edit, pattern) => {
    const copy = clone(recs);
    edit(copy);
    assert.throws(() => checkSeatSignatures(copy, gameId, fail), pattern);
  };
  const at = (copy, r) => copy[r.version - 1];
  lie((c) => delete at(c, plays[0]).cause.signed, /not signed, yet the seat holds key/);
  lie((c) => {
    const sig = Buffer.from(at(c, plays[0]).cause.signed.signature, 'base64');
    sig[5] ^= 1;
    at(c, plays[0]).cause.signed.signature = sig.toString('base64');
  }, /does not check with the seat's key/);
  if (plays.length >= 2) { // a signed move moved to another version of the game
    lie((c) => { at(c, plays[1]).cause.signed = clone(at(c, plays[0]).cause.signed); }, /version|not the command recorded|head hash/);
  }
  const reveal = recs.find((r) => r.cause && r.cause.action === 'reveal' && r.cause.seat === plays[0].cause.seat);
  lie((c) => { at(c, plays[0]).cause.signed = clone(reveal.cause.signed); }, /signed a RevealContribution call, not a Play/);
  lie((c) => { at(c, plays[0]).cause.command.type = 'EndTurn'; }, /not the command recorded/);
  const joinOf = (c, seat) => c.find((r) => r.fact.type === 'SeatTaken' && r.fact.data.seat === seat);
  lie((c) => { joinOf(c, plays[0].cause.seat).fact.data.public_key = SeatKey.generate().publicKey.toString('hex'); }, /does not check with the seat's key/);
  const rekey = recs.find((r) => r.fact.type === 'SeatRekeyed');
  lie((c) => { at(c, rekey).fact.data.old_public_key = SeatKey.generate().publicKey.toString('hex'); }, /re-key replaces key/);
  assert.throws(() => checkSeatSignatures(clone(recs), '00000000-0000-0000-0000-000000000000', fail), /signed it for game/);
  // an unkeyed record of the same game would hide the keys: a signature with no key fails
  lie((c) => { joinOf(c, 0).fact.data.public_key = ''; }, /carries a signature, yet the seat has no key/);
}));

test('an unkeyed seat only where the table allows it; a keyed table refuses a join without a key', withClient(async (client) => {
  const keyed = await client.createGame(BASIC, 4);
  await assert.rejects(client.join(keyed.game_id, 0, 'no-key', { unkeyed: true }), (err) => reason(err) === 'SEAT_KEY_REQUIRED');
  const open = await client.createGame(BASIC, 4, { allowUnkeyedSeats: true });
  const bare = await client.join(open.game_id, 0, 'no-key', { unkeyed: true });
  const signed = await client.join(open.game_id, 1, 'keyed');
  const view = await bare.view();
  assert.equal(Buffer.from(view.seats[0].public_key).length, 0);
  assert.deepEqual(Buffer.from(view.seats[1].public_key), signed.key.publicKey);
}));

test('a server that drops the seat key is caught: SEAT KEY NOT RECORDED', withClient(async (client) => {
  const created = await client.createGame(BASIC, 4, { allowUnkeyedSeats: true });
  const seat = await client.join(created.game_id, 0, 'dropped', { unkeyed: true });
  // the client believes it sent a key; the server shows none
  const fooled = new SeatClient(client, created.game_id, 0, seat.token, '', SeatKey.generate());
  await assert.rejects(fooled.checkKeyRecorded(), (err) => err instanceof SeatKeyNotRecorded && /SEAT KEY NOT RECORDED/.test(err.message));
}));

test("a reveal's acknowledgement: checked on the reply's bytes, refused when anything is off", withClient(async (client) => {
  const created = await client.createGame(BASIC, 4);
  const seats = [];
  for (let s = 0; s < 4; s += 1) seats.push(await client.join(created.game_id, s, `ack-${s}`));
  await seats[2].reveal(); // checked inside; a repeat gets the first acknowledgement
  const request = seats[2].sign('RevealContribution', { game_id: created.game_id, contribution: seats[2].contribution });
  const { raw, reply } = await unaryRaw(client.stub, 'RevealContribution', request, seats[2].metadata());
  const keys = await client.serverKeys();
  const expected = { gameId: created.game_id, seat: 2, fact: 'contribution_revealed', keys };
  assert.equal(acknowledgementProblem('RevealContributionResponse', raw, reply, expected), '');
  assert.match(acknowledgementProblem('RevealContributionResponse', raw, reply, { ...expected, seat: 1 }), /seat 2's, not seat 1's/);
  // another game's: a receipt of format 2 names its game; one of format 3 names none (its
  // signature covers the game id the client expects, so it does not check for another)
  assert.match(acknowledgementProblem('RevealContributionResponse', raw, reply, { ...expected, gameId: 'x' }), /is for game .*, not x|for game x \(its signature does not check/);
  assert.match(acknowledgementProblem('RevealContributionResponse', raw, reply, { ...expected, keys: [verify.publicKey(SeatKey.generate().publicKey.toString('hex'))] }), /does not check/);
  // the reply without its events, or with an event altered
  const { root } = require('../lib/protos').load();
  const type = root.lookupType('tabletop.v1.RevealContributionResponse');
  const decoded = type.decode(raw);
  const bare = Buffer.from(type.encode({ ...decoded, events: [] }).finish());
  assert.match(acknowledgementProblem('RevealContributionResponse', bare, reply, expected), /holds no events/);
  const altered = type.decode(raw);
  altered.events[0].text = `${altered.events[0].text}!`;
  const changed = Buffer.from(type.encode(altered).finish());
  assert.match(acknowledgementProblem('RevealContributionResponse', changed, reply, expected), /does not cover the events/);
  const noReceipt = type.decode(raw);
  noReceipt.receipt = null;
  assert.match(acknowledgementProblem('RevealContributionResponse', Buffer.from(type.encode(noReceipt).finish()), reply, expected), /no signed acknowledgement/);
}));

test('the verify line names keyed, UNKEYED and RE-KEYED seats', withClient(async (client) => {
  const fs = require('node:fs');
  const os = require('node:os');
  const path = require('node:path');
  const { spawnSync } = require('node:child_process');
  const created = await client.createGame(BASIC, 4, { allowUnkeyedSeats: true });
  const gameId = created.game_id;
  const seats = [];
  for (let s = 0; s < 4; s += 1) seats.push(await client.join(gameId, s, `line-${s}`, { unkeyed: s === 1 }));
  assert.equal(seats[1].key, null);
  const rekeyedAt = await seats[2].rekey();
  await revealAndStart(seats);
  await playUntilOver(seats.map((s, i) => new RandomBot(s, 500 + i)), { idleTimeoutMs: 40_000 });

  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'signed-')), 'game.jsonl');
  fs.writeFileSync(file, (await records(seats[0])).map((r) => `${verify.canonical(r)}\n`).join(''));
  const [key] = await client.serverKeys();
  const run = spawnSync('node', [path.join(__dirname, '..', 'bin', 'verify.js'), file, '--public-key', key.raw.toString('hex')], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const line = run.stdout.trim();
  assert.equal(line.split('\n').length, 1, line);
  assert.match(line, /seat keys: seat\(s\) 0, 2, 3 keyed: [1-9][0-9]* seat signature\(s\) checked/);
  assert.match(line, /seat\(s\) 1 UNKEYED: their commands stand on the server's word alone/);
  assert.match(line, new RegExp(`seat 2 RE-KEYED at version ${rekeyedAt} `));
}));

test("a match's next hand: each seat's signed ReadyNextHand names that hand, and is acknowledged", withClient(async (client) => {
  const { drawNextHand } = require('../lib/client');
  const created = await client.createGame(BASIC, 2, { match: { hands: 2, advance: 'HAND_ADVANCE_READY' } });
  const seats = [];
  for (let s = 0; s < 2; s += 1) seats.push(await client.join(created.game_id, s, `match-${s}`));
  await revealAndStart(seats);
  const first = await playUntilOver(seats.map((s, i) => new RandomBot(s, 700 + i)), { idleTimeoutMs: 40_000 });
  assert.equal(first.phase, 'GAME_PHASE_FINISHED');
  const match = await drawNextHand(seats); // signed commitments (checked acknowledgements), then reveals
  const next = match.current_game_id;
  assert.notEqual(next, created.game_id);
  for (const s of seats) assert.equal(s.gameId, next);
  const second = await playUntilOver(seats.map((s, i) => new RandomBot(s, 800 + i)), { idleTimeoutMs: 40_000 });
  assert.equal(second.phase, 'GAME_PHASE_FINISHED');
  // the hand's record: each commitment signed as ReadyNextHand for this hand, by the seat's key
  const recs = await records(seats[0]);
  const result = verify.verifyGame(recs, await client.serverKeys(), next);
  const commits = recs.filter((r) => r.cause && r.cause.action === 'commit');
  assert.equal(commits.length, 2);
  for (const r of commits) {
    const signed = require('../lib/seatkey').decodeSignedCommand(Buffer.from(r.cause.signed.command, 'base64'));
    assert.equal(signed.method, 'ReadyNextHand');
    assert.equal(signed.game_id, next);
  }
  assert.deepEqual(result.seatKeys.map((s) => s.joinKey), seats.map((s) => s.key.publicKey.toString('hex')));
}));
