'use strict';
// The Node verifier's command line (clients/node/bin/verify.js `main`) over many files in one
// process, for the conformance test and its fuzz (one process per file would cost ~0.1 s each).
//
//   node tests/vectors/node-batch.js KEY_HEX ITEM...
//
// An ITEM is a file, verified with --public-key KEY_HEX, or JSON {"file", "keys"}: the file
// verified with --keys (a key set file) instead.
// Prints one JSON line per item: {"file", "code", "out"}: the exit status main returned and
// what it printed; code "traceback" when it threw instead (a verifier must never).
const path = require('node:path');
// TABLETOP_NODE_VERIFY: another copy's bin/verify.js (the conformance test plants a leniency in one)
const { main } = require(process.env.TABLETOP_NODE_VERIFY || path.join(__dirname, '..', '..', 'clients', 'node', 'bin', 'verify.js'));

const [key, ...items] = process.argv.slice(2);
for (const item of items) {
  const { file, keys } = item.startsWith('{') ? JSON.parse(item) : { file: item, keys: null };
  const printed = [];
  const log = console.log;
  const error = console.error;
  console.log = (...a) => printed.push(a.join(' '));
  console.error = (...a) => printed.push(a.join(' '));
  let code;
  try {
    code = main(keys ? [file, '--keys', keys] : [file, '--public-key', key]);
  } catch (err) {
    code = 'traceback';
    printed.push(String(err && err.stack));
  } finally {
    console.log = log;
    console.error = error;
  }
  process.stdout.write(`${JSON.stringify({ file, code, out: printed.join('\n') })}\n`);
}
