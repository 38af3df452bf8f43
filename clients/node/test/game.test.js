'use strict';
// A Node bot plays a complete 花鸟风月 game on a real server.
//
// Under `make test` (tests/api/test_node_client.py) the table is shared with Python bots:
// the harness opens it, seats Python RandomBots at seats 2 and 3 and plays them from a
// thread, and passes TABLETOP_MIXED_GAME (and TABLETOP_NODE_SEATS=0,1); the Node bots take
// their seats, start the game and play their seats until the game ends. Run on its own,
// the test seats Node bots at every seat.
const test = require('node:test');
const assert = require('node:assert/strict');
const { RandomBot, playUntilOver, sleep, deal } = require('../lib');
const { seatedGame, withClient, range } = require('./helpers');

// The facts a seat causes by acting, by the event's oneof member name.
function actingSeat(event) {
  if (event.body !== 'huaniao') return null;
  const kind = event.huaniao[event.huaniao.kind || Object.keys(event.huaniao).find((k) => event.huaniao[k] && typeof event.huaniao[k] === 'object')];
  return kind && typeof kind.seat === 'number' ? kind.seat : null;
}

async function waitForAllSeats(seat, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const view = await seat.view();
    if (view.phase !== 'GAME_PHASE_WAITING' || view.seats.every((s) => s.taken)) return view;
    assert.ok(Date.now() < until, 'the other seats were never taken');
    await sleep(20);
  }
}

test('a Node bot plays a whole 花鸟风月 game (with Python bots under make test)', withClient(async (client) => {
  const mixed = process.env.TABLETOP_MIXED_GAME;
  let gameId;
  let seats;
  if (mixed) {
    gameId = mixed;
    const mine = (process.env.TABLETOP_NODE_SEATS || '0,1').split(',').map(Number);
    seats = [];
    for (const s of mine) seats.push(await client.join(gameId, s, `node-${s}`));
    const view = await waitForAllSeats(seats[0]);
    if (view.phase === 'GAME_PHASE_WAITING') {
      for (const seat of seats.slice(1)) await seat.reveal();
      await seats[0].startWhenRevealed(); // the Python seats reveal from their side
    }
  } else {
    ({ gameId, seats } = await seatedGame(client));
  }
  const bots = seats.map((s, i) => new RandomBot(s, 100 + i));
  const final = await playUntilOver(bots, { idleTimeoutMs: 40_000 });

  assert.equal(final.phase, 'GAME_PHASE_FINISHED');
  assert.ok(final.outcome.winners.length > 0, 'a finished game names its winner');
  const nodeMoves = bots.reduce((n, b) => n + b.moves, 0);
  assert.ok(nodeMoves > 0, 'the Node bots played');

  // Once the game is over everyone sees everything: the history is whole and in order.
  const history = await seats[0].history(200);
  assert.deepEqual(history.map((e) => e.version), range(1, final.version));
  assert.ok(history.every((e) => typeof e.text === 'string' && e.text.length > 0));

  // Every seat committed and revealed; the deck recomputes from the revealed inputs here,
  // in JavaScript, from the stored record every event carries after the end.
  const dealt = deal.checkExport(history.map((e) => e.stored_json).join('\n'));
  assert.equal(dealt.dealSource, 'SHUFFLED');
  assert.equal(dealt.revealed, 4, 'every seat contributed');
  assert.deepEqual(dealt.withheld, []);

  const actors = new Set(history.map(actingSeat).filter((s) => s !== null));
  for (const bot of bots) assert.ok(actors.has(bot.seat.seat), `seat ${bot.seat.seat} acted`);
  if (mixed) {
    const others = [...actors].filter((s) => !bots.some((b) => b.seat.seat === s));
    assert.ok(others.length > 0, 'the Python seats acted in the same game');
  }
  console.log(`NODE_GAME game=${gameId} version=${final.version} node_moves=${nodeMoves} ` +
    `winners=${final.outcome.winners.join(',')} reason=${final.outcome.reason}`);
}));
