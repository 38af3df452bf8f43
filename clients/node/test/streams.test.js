'use strict';
// A stream-driven Node client needs one RPC per move: each seat plays from its own Watch
// stream's `legal_moves` and from its Play replies, never calling LegalMoves or GetView.
const test = require('node:test');
const assert = require('node:assert/strict');
const { RandomBot, playFromStreams, playFromSessions, revealAndStart } = require('../lib');
const { withClient, BASIC } = require('./helpers');

test('Node bots play a whole 花鸟风月 game from their own streams alone', withClient(async (client) => {
  const created = await client.createGame(BASIC, 4);
  const seats = [];
  for (let s = 0; s < 4; s += 1) seats.push(await client.join(created.game_id, s, `node-${s}`));
  await revealAndStart(seats);
  let plays = 0;
  for (const seat of seats) {
    seat.legalMoves = () => { throw new Error('a stream-driven seat asked LegalMoves'); };
    seat.view = () => { throw new Error('a stream-driven seat asked GetView'); };
    const play = seat.play.bind(seat);
    seat.play = (...args) => { plays += 1; return play(...args); };
  }
  const seed = Date.now() % 100000;
  const moves = await playFromStreams(seats.map((s, i) => new RandomBot(s, seed + i)));
  const view = await client.asViewer(created.game_id).view();
  assert.equal(view.phase, 'GAME_PHASE_FINISHED', `seed ${seed}`);
  assert.ok(moves >= 1 && plays >= moves, `moves ${moves}, plays ${plays}, seed ${seed}`);
}));

test('with excludeOwnMoves a seat\'s stream leaves out its own moves, and only those', withClient(async (client) => {
  const created = await client.createGame(BASIC, 3);
  const seats = [];
  for (let s = 0; s < 3; s += 1) seats.push(await client.join(created.game_id, s, `node-${s}`));
  await revealAndStart(seats);
  const replies = seats.map(() => []);
  for (const seat of seats) {
    const play = seat.play.bind(seat);
    seat.play = async (...args) => { const r = await play(...args); replies[seat.seat].push(r); return r; };
  }
  const seed = Date.now() % 100000;
  await playFromStreams(seats.map((s, i) => new RandomBot(s, seed + i)), { excludeOwnMoves: true });
  const versions = (m) => m.events.map((e) => Number(e.version));
  // a random game may end before some seat moves (its own set is then empty): the check
  // holds for it too, and at least one seat must have played
  assert.ok(replies.some((r) => r.length > 0), `nobody played, seed ${seed}`);
  for (const seat of seats) {
    // event by version: a message holds one move (format 2) or, with receipts of format 3,
    // every move the stream has in hand at once (the stored history): compare events
    const read = async (excludeOwnMoves) => {
      const out = new Map();
      for await (const m of seat.watchCall(0, { batched: true, excludeOwnMoves })) {
        for (const e of m.events) out.set(Number(e.version), e);
      }
      return out;
    };
    const every = await read(false);
    const kept = await read(true);
    const own = new Set(replies[seat.seat].flatMap(versions));
    assert.deepEqual([...kept.keys()], [...every.keys()].filter((v) => !own.has(v)), `seed ${seed}`);
    for (const [v, e] of kept) assert.deepEqual(e, every.get(v), `version ${v}, seed ${seed}`);
  }
}));

test('Node bots play a whole game on PlaySessions, and a refused Play appends nothing', withClient(async (client) => {
  const created = await client.createGame(BASIC, 4);
  const seats = [];
  for (let s = 0; s < 4; s += 1) seats.push(await client.join(created.game_id, s, `node-${s}`));
  await revealAndStart(seats);
  // a stale Play on a session: refused as a message (ABORTED, its request_id), and the
  // stream goes on
  const before = await client.asViewer(created.game_id).view();
  const legal = await seats[before.to_act[0]].legalMoves();
  const actor = seats[before.to_act[0]];
  const call = actor.session();
  await actor.sessionPlay(call, legal.moves[0], Number(legal.version) - 1, { requestId: 'stale' });
  let refused = null;
  for await (const message of call) {
    if (message.response === 'refused') { refused = message.refused; break; }
  }
  call.cancel();
  assert.ok(refused && refused.request_id === 'stale', 'the stale Play was answered on the session');
  assert.equal(refused.code, 10); // ABORTED
  assert.equal((await client.asViewer(created.game_id).view()).version, before.version, 'nothing appended');
  for (const seat of seats) {
    seat.play = () => { throw new Error('a session seat called Play'); };
    seat.legalMoves = () => { throw new Error('a session seat asked LegalMoves'); };
  }
  const seed = Date.now() % 100000;
  const moves = await playFromSessions(seats.map((s, i) => new RandomBot(s, seed + i)));
  const view = await client.asViewer(created.game_id).view();
  assert.equal(view.phase, 'GAME_PHASE_FINISHED', `seed ${seed}`);
  assert.ok(moves >= 1, `moves ${moves}, seed ${seed}`);
}));
