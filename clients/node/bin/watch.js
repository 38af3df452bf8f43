#!/usr/bin/env node
'use strict';
// tabletop-node-watch: print a game's events as a seat, the arbiter or a spectator,
// resuming after dropped connections.
//
//   node bin/watch.js GAME_ID [--token T] [--after N] [--target HOST:PORT] [--moves]
const { parseArgs } = require('node:util');

const USAGE = `usage: node bin/watch.js GAME_ID [options]

Print a game's events as a seat, the arbiter or a spectator (no token), resuming after
dropped connections without a gap or a duplicate.

options:
  --token T           a seat or arbiter token (env TABLETOP_TOKEN)
  --after N           resume after this version (default 0)
  --moves             with a seat's token: when it is the seat's turn, print its legal
                      moves by their labels, in the game's words (one label, one move)
  --target HOST:PORT  server address (env TABLETOP_TARGET; default 127.0.0.1:50051)
  -h, --help          this help`;

function options() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        target: { type: 'string', default: process.env.TABLETOP_TARGET || '127.0.0.1:50051' },
        token: { type: 'string', default: process.env.TABLETOP_TOKEN },
        after: { type: 'string', default: '0' },
        moves: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    console.error(`watch.js: ${err.message}\n\n${USAGE}`);
    process.exit(2);
  }
}

function printEvent(event) {
  console.log(`v${String(event.version).padStart(4)}  ${event.text}`);
}

// The seat's own batched stream: each move's events, then (when it is the seat's turn) its
// legal moves, each by its label; a label stands for one move only.
async function watchWithMoves(seat, after) {
  const { labelledMoves } = require('../lib');
  const call = seat.watchCall(after, { batched: true });
  process.on('SIGINT', () => call.cancel());
  for await (const reply of call) {
    for (const event of reply.events || []) printEvent(event);
    const legal = reply.legal_moves;
    if (legal && legal.moves && legal.moves.length) {
      console.log(`      你的走法 (your moves) at v${legal.version}:`);
      labelledMoves(legal).forEach(({ label }, i) => console.log(`      ${String(i).padStart(3)}  ${label}`));
    }
  }
}

async function main() {
  const { values, positionals } = options();
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const { TableClient, describeError } = require('../lib'); // after --help: it needs node_modules
  if (positionals.length !== 1) {
    console.error(`watch.js: give one GAME_ID\n\n${USAGE}`);
    process.exit(2);
  }
  const client = new TableClient(values.target);
  const viewer = client.asViewer(positionals[0], values.token || null);
  if (values.moves && !values.token) {
    console.error(`watch.js: --moves needs a seat's --token\n\n${USAGE}`);
    process.exit(2);
  }
  try {
    if (values.moves) await watchWithMoves(viewer, Number(values.after));
    else {
      const watcher = viewer.watcher(Number(values.after));
      process.on('SIGINT', () => watcher.close());
      for await (const event of watcher) printEvent(event);
    }
  } catch (err) {
    console.error(err.code !== undefined ? describeError(err) : err);
    process.exitCode = 1;
  } finally {
    client.close();
  }
}

main();
