'use strict';
// Shared setup for the Node tests: the server address and a seated 花鸟风月 table.
const assert = require('node:assert/strict');
const { TableClient, revealAndStart } = require('../lib');

const TARGET = process.env.TABLETOP_TARGET;

function target() {
  assert.ok(TARGET, 'set TABLETOP_TARGET=host:port of a running tabletop server');
  return TARGET;
}

const BASIC = { huaniao: { mode: 'MODE_BASIC' } };

/** Open a 4-seat 基本 table (a deal nobody chooses), seat four Node clients (each commits
 * to a contribution), optionally reveal and start it. */
async function seatedGame(client, { start = true } = {}) {
  const created = await client.createGame(BASIC, 4);
  const seats = [];
  for (let s = 0; s < 4; s += 1) seats.push(await client.join(created.game_id, s, `node-${s}`));
  if (start) await revealAndStart(seats);
  return { gameId: created.game_id, arbiter: created.arbiter_token, seats };
}

function withClient(fn) {
  return async (t) => {
    const client = new TableClient(target());
    try {
      await fn(client, t);
    } finally {
      client.close();
    }
  };
}

const range = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

module.exports = { target, seatedGame, withClient, BASIC, range };
