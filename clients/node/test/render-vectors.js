'use strict';
// Render vectors (tests/support/render_vectors.py: honest random games, and for every move
// and viewer the payload bytes the server's rendering gives) checked against lib/render.js.
//
//   node test/render-vectors.js FILE   prints one line per mismatch and a count; exit 1 on any
//
// Used by test/render.test.js (the small committed set) and tests/api/test_node_render.py
// (the differential run over many fresh games).
const fs = require('node:fs');
const { parseStrict } = require('../lib/verify');
const { renderEvents } = require('../lib/render');

/** Every vector of `text` (JSON lines) re-rendered: {checked, mismatches: [line]}. */
function checkVectors(text) {
  let checked = 0;
  const mismatches = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const game = JSON.parse(line);
    const records = game.lines.map(parseStrict);
    for (const move of game.moves) {
      move.payloads.forEach((b64, viewer) => {
        checked += 1;
        const where = `${game.kind} seed ${game.seed} (${game.seats} seats) versions ${move.first}..${move.last} viewer ${viewer}`;
        let got;
        try {
          got = renderEvents(records, move.first, move.last, viewer).toString('base64');
        } catch (err) {
          mismatches.push(`${where}: ${err.message}`);
          return;
        }
        if (got !== b64) mismatches.push(`${where}: rendered ${got.length} base64 chars, expected ${b64.length}`);
      });
    }
  }
  return { checked, mismatches };
}

if (require.main === module) {
  const { checked, mismatches } = checkVectors(fs.readFileSync(process.argv[2], 'utf8'));
  for (const m of mismatches.slice(0, 50)) console.log(m);
  console.log(`render vectors: ${checked} checked, ${mismatches.length} differ`);
  process.exitCode = mismatches.length ? 1 : 0;
}

module.exports = { checkVectors };
