'use strict';
// View vectors (tests/support/view_vectors.py: honest random 川南字牌 games, and at the end of
// every move, for every viewer, the GameView payload bytes the server signs) checked against
// lib/viewrender.js.
//
//   node test/view-vectors.js FILE   prints one line per mismatch and a count; exit 1 on any
//
// Used by tests/server/test_node_views.py (the differential run over fresh games).
const fs = require('node:fs');
const { parseStrict } = require('../lib/verify');
const { renderView } = require('../lib/viewrender');
const { load } = require('../lib/protos');
const { payloadDiffs, differLine } = require('../lib/fielddiff');

/** Every vector of `text` (JSON lines) re-rendered: {checked, mismatches: [line]}. */
function checkVectors(text) {
  let checked = 0;
  const mismatches = [];
  const payload = load().root.lookupType('tabletop.v1.ReceiptPayload');
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const game = JSON.parse(line);
    const records = game.lines.map(parseStrict);
    for (const v of game.views) {
      v.payloads.forEach((b64, viewer) => {
        checked += 1;
        const where = `${game.kind} seed ${game.seed} (${game.seats} seats) version ${v.version} viewer ${viewer}`;
        let got;
        try {
          got = renderView(records, v.version, viewer, game.game_id);
        } catch (err) {
          mismatches.push(`${where}: ${err.stack}`);
          return;
        }
        const expected = Buffer.from(b64, 'base64');
        if (!got.equals(expected)) {
          const diffs = payloadDiffs(payload, expected, got).map(differLine).join('; ');
          mismatches.push(`${where}: rendered ${got.length} bytes, expected ${expected.length} (record = expected, sent = Node's): ${diffs}`);
        }
      });
    }
  }
  return { checked, mismatches };
}

if (require.main === module) {
  const { checked, mismatches } = checkVectors(fs.readFileSync(process.argv[2], 'utf8'));
  for (const m of mismatches.slice(0, 30)) console.log(m);
  console.log(`view vectors: ${checked} checked, ${mismatches.length} differ`);
  process.exitCode = mismatches.length ? 1 : 0;
}

module.exports = { checkVectors };
