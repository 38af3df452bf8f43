'use strict';
// A stream-driven Node client needs one RPC per move: each seat plays from its own Watch
// stream's `legal_moves` and from its Play replies, never calling LegalMoves or GetView.
const test = require('node:test');
const assert = require('node:assert/strict');
const { RandomBot, playFromStreams, revealAndStart } = require('../lib');
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
