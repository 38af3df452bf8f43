#!/usr/bin/env node
'use strict';
// tabletop-node-watch: print a game's events as a seat, the arbiter or a spectator,
// resuming after dropped connections.
//
//   node bin/watch.js GAME_ID [--token T] [--after N] [--target HOST:PORT]
const { parseArgs } = require('node:util');
const { TableClient, describeError } = require('../lib');

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      target: { type: 'string', default: process.env.TABLETOP_TARGET || '127.0.0.1:50051' },
      token: { type: 'string' },
      after: { type: 'string', default: '0' },
    },
  });
  if (positionals.length !== 1) {
    console.error('usage: watch.js GAME_ID [--token T] [--after N] [--target HOST:PORT]');
    process.exit(2);
  }
  const client = new TableClient(values.target);
  const watcher = client.asViewer(positionals[0], values.token || null).watcher(Number(values.after));
  process.on('SIGINT', () => watcher.close());
  try {
    for await (const event of watcher) {
      console.log(`v${String(event.version).padStart(4)}  ${event.text}`);
    }
  } catch (err) {
    console.error(err.code !== undefined ? describeError(err) : err);
    process.exitCode = 1;
  } finally {
    client.close();
  }
}

main();
