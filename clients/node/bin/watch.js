#!/usr/bin/env node
'use strict';
// tabletop-node-watch: print a game's events as a seat, the arbiter or a spectator,
// resuming after dropped connections.
//
//   node bin/watch.js GAME_ID [--token T] [--after N] [--target HOST:PORT]
const { parseArgs } = require('node:util');

const USAGE = `usage: node bin/watch.js GAME_ID [options]

Print a game's events as a seat, the arbiter or a spectator (no token), resuming after
dropped connections without a gap or a duplicate.

options:
  --token T           a seat or arbiter token (env TABLETOP_TOKEN)
  --after N           resume after this version (default 0)
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
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    console.error(`watch.js: ${err.message}\n\n${USAGE}`);
    process.exit(2);
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
