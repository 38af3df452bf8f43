#!/usr/bin/env node
'use strict';
// tabletop-node-bot: random bots play a game.
//
//   node bin/bot.js [--target 127.0.0.1:50051] [--mode MODE_BASIC] [--seats 4] [--seed N]
//       opens a 花鸟风月 table, seats a bot at every seat and plays it to the end.
//   node bin/bot.js --game GAME_ID --join 0,1 [--start]
//       takes seats 0 and 1 of an existing table (others may be any client, any language),
//       optionally starts it once every seat is taken, and plays those seats to the end.
// Every seat commits to a random contribution when it joins and reveals it once the table
// is full, so nobody can choose the deal.
const { parseArgs } = require('node:util');

const USAGE = `usage: node bin/bot.js [options]

Random bots play a 花鸟风月 game: a new table with a bot at every seat, or (--game, --join)
seats of an existing table, played to the end.

options:
  --target HOST:PORT  server address (env TABLETOP_TARGET; default 127.0.0.1:50051)
  --mode MODE         MODE_SIMPLE, MODE_BASIC (default), MODE_REGULAR, MODE_FULL, MODE_PRO
  --seats N           seats of a new table (default 4)
  --seed N            bot seed; also seeds the deal (a prepared deal: the server must
                      allow prepared deals)
  --game GAME_ID      play seats of this existing table instead
  --join 0,1          the seats to take there
  --start             start it once every seat is taken
  -v, --verbose       print each move as it is played, by its label in the game's words
                      ("v  12  0家  诵 2 鸟+十")
  -h, --help          this help`;

function options() {
  try {
    return parseArgs({
      options: {
        target: { type: 'string', default: process.env.TABLETOP_TARGET || '127.0.0.1:50051' },
        mode: { type: 'string', default: 'MODE_BASIC' },
        seats: { type: 'string', default: '4' },
        seed: { type: 'string' },
        game: { type: 'string' },
        join: { type: 'string' },
        start: { type: 'boolean', default: false },
        verbose: { type: 'boolean', short: 'v', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (err) {
    console.error(`bot.js: ${err.message}\n\n${USAGE}`);
    process.exit(2);
  }
}

async function main() {
  const values = options();
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const { TableClient, RandomBot, playUntilOver, describeError, sleep } = require('../lib'); // after --help: it needs node_modules
  const client = new TableClient(values.target);
  const seeded = values.seed !== undefined;
  const seed = seeded ? Number(values.seed) : Math.floor(Math.random() * 2 ** 30);
  try {
    let gameId = values.game;
    let seatNumbers;
    if (!gameId) {
      const dealSeed = seeded ? { seed } : {}; // never a guessable deal by default
      const created = await client.createGame({ huaniao: { mode: values.mode } }, Number(values.seats), dealSeed);
      gameId = created.game_id;
      seatNumbers = [...Array(Number(values.seats)).keys()];
    } else {
      seatNumbers = (values.join || '').split(',').filter(Boolean).map(Number);
    }
    const seats = [];
    for (const s of seatNumbers) seats.push(await client.join(gameId, s, `node-${s}`));
    for (;;) { // reveals come once every seat is taken; then the deal
      const view = await seats[0].view();
      if (view.phase !== 'GAME_PHASE_WAITING') break;
      if (view.seats.every((s) => s.taken)) {
        for (const seat of seats.slice(1)) await seat.reveal();
        if (!values.game || values.start) await seats[0].startWhenRevealed();
        else await seats[0].reveal();
        break;
      }
      await sleep(50);
    }
    const onMove = values.verbose ? ({ seat, version, label }) => {
      console.log(`v${String(version).padStart(4)}  ${seat}家  ${label}`);
    } : undefined;
    const bots = seats.map((s, i) => new RandomBot(s, seed + i, { onMove }));
    const final = await playUntilOver(bots);
    const moves = bots.reduce((n, b) => n + b.moves, 0);
    console.log(`game ${gameId}: ${moves} moves by seats ${seatNumbers.join(',')}, ` +
      `winners ${final.outcome.winners.join(',')} (${final.outcome.reason}), version ${final.version}`);
  } catch (err) {
    console.error(err.code !== undefined ? describeError(err) : err);
    process.exitCode = 1;
  } finally {
    client.close();
  }
}

main();
