#!/usr/bin/env node
'use strict';
// tabletop-node-deal-check: recompute every deal of a finished game from its export.
//
//   node bin/deal-check.js game.jsonl     (the file `tabletop-audit export GAME_ID -o` writes)
//
// Checks the server's commitment against the revealed secret, every seat's reveal against
// its commitment, then the table key, the first deck, every redeal and reshuffle, and each
// game seed (docs/api.md, "Audit"), with no Python and no server. Exit status 0 = the deal
// checks out, 1 = it does not (the reason is printed), 2 = usage.
const fs = require('node:fs');
const { checkExport, dealWords } = require('../lib/deal');

const USAGE = 'usage: node bin/deal-check.js EXPORT.jsonl';

function main(argv) {
  if (argv.length !== 1 || argv[0] === '-h' || argv[0] === '--help') {
    console.log(USAGE);
    return argv.length === 1 ? 0 : 2;
  }
  let text;
  try {
    text = fs.readFileSync(argv[0], 'utf8');
  } catch (err) {
    console.error(`deal-check: ${err.message}`);
    return 2;
  }
  try {
    const r = checkExport(text);
    const prepared = r.dealSource === 'SHUFFLED' ? '' : `; prepared deal (${r.dealSource})`;
    console.log(`deal verified: ${r.kind}, ${r.seats} seats, ${r.revealed} reveals, ` +
      `${r.decks} deck(s) recomputed; ${dealWords(r)}${prepared}`);
    return 0;
  } catch (err) {
    console.error(`DEAL CHECK FAILED: ${err.message}`);
    return 1;
  }
}

process.exitCode = main(process.argv.slice(2));
