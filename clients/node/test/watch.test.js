'use strict';
// A Node watcher resumes a dropped stream without a gap or a duplicate.
const test = require('node:test');
const assert = require('node:assert/strict');
const { RandomBot, playUntilOver, revealAndStart } = require('../lib');
const { seatedGame, withClient, range } = require('./helpers');

test('a stream cancelled mid-way resumes from after_version with no gap', withClient(async (client) => {
  const { seats } = await seatedGame(client);
  const final = await playUntilOver(seats.map((s, i) => new RandomBot(s, i)));
  const watcher = seats[1];

  // The whole stream in one go ends with the game.
  const full = [];
  for await (const event of watcher.watcher(0)) full.push(event.version);
  assert.deepEqual(full, range(1, final.version));

  // Drop the raw call after a few events, then resume from the last version received.
  const call = watcher.watchCall(0);
  const first = [];
  await new Promise((resolve, reject) => {
    call.on('data', (reply) => {
      if (first.length < 7) first.push(reply.event.version);
      if (first.length === 7) {
        call.cancel();
        resolve();
      }
    });
    call.on('error', (err) => (err.code === 1 ? resolve() : reject(err))); // 1 = CANCELLED
  });
  assert.deepEqual(first, range(1, 7));
  const rest = [];
  for await (const event of watcher.watcher(first[first.length - 1])) rest.push(event.version);
  assert.deepEqual([...first, ...rest], full);
}));

test('a live watcher dropped during play misses nothing', withClient(async (client) => {
  const { seats, gameId } = await seatedGame(client, { start: false });
  const watcher = client.asViewer(gameId, seats[2].token, 2).watcher(0);
  const got = [];
  let drops = 0;
  const reading = (async () => {
    for await (const event of watcher) {
      got.push(event.version);
      // Drop the connection on purpose every few events while the game runs.
      if (got.length % 9 === 0 && drops < 5) {
        drops += 1;
        watcher.reconnect();
      }
    }
  })();
  await revealAndStart(seats);
  const final = await playUntilOver(seats.map((s, i) => new RandomBot(s, 50 + i)));
  let timer;
  await Promise.race([
    reading,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error('stream did not end with the game')), 20_000);
    }),
  ]).finally(() => clearTimeout(timer));
  assert.ok(drops > 0, 'the stream was dropped at least once');
  assert.ok(watcher.calls > drops, 'every drop was followed by a resumed call');
  assert.deepEqual(got, range(1, final.version));
}));
