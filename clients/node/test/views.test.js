'use strict';
// The Node view renderer (lib/viewrender.js over lib/tablestate.js, lib/huaniaoview.js and
// lib/zipaiview.js) against view vectors the server's own GetView rendering made
// (tests/support/view_vectors.py, seed 36: a 2-seat 花鸟风月 game in 完全模式 and a 2-seat
// 川南字牌 game, a few moves' ends for every viewer). Needs no server;
// tests/server/test_node_views.py runs many fresh games.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { checkVectors } = require('./view-vectors');
const { renderView, viewMessage, viewsPorted } = require('../lib/viewrender');
const { parseStrict } = require('../lib/verify');
const { load } = require('../lib/protos');

const VECTORS = fs.readFileSync(path.join(__dirname, 'view-vectors.jsonl'), 'utf8');
const games = VECTORS.split('\n').filter(Boolean).map((line) => JSON.parse(line));

test('every kept view of both games renders for every viewer byte for byte as the server', () => {
  const { checked, mismatches } = checkVectors(VECTORS);
  assert.deepEqual(mismatches, []);
  assert.ok(checked > 40, `only ${checked} views checked`);
  assert.deepEqual(games.map((g) => g.kind).sort(), ['huaniao', 'zipai']);
});

test('a seat sees its own hand and not the other seat\'s; the spectator neither; the arbiter both', () => {
  for (const game of games) {
    const records = game.lines.map(parseStrict);
    const version = game.views[1].version; // dealt, not over
    const hands = (index) => {
      const v = viewMessage(records, version, index, game.game_id)[game.kind];
      return v.seats.map((s) => (s.cards || s.hand || []).length);
    };
    const [own, other] = [hands(0), hands(1)];
    assert.ok(own[0] > 0 && own[1] === 0, `${game.kind}: seat 0 sees ${own}`);
    assert.ok(other[0] === 0 && other[1] > 0, `${game.kind}: seat 1 sees ${other}`);
    assert.deepEqual(hands(2), [0, 0], `${game.kind}: the spectator`);
    assert.ok(hands(3).every((n) => n > 0), `${game.kind}: the arbiter`);
  }
});

test('a view one field off is caught: the payloads differ', () => {
  const game = games.find((g) => g.kind === 'zipai');
  const records = game.lines.map(parseStrict);
  const { version, payloads } = game.views[1];
  const type = load().root.lookupType('tabletop.v1.ReceiptPayload');
  const shown = type.decode(Buffer.from(payloads[0], 'base64'));
  shown.view.zipai.seats[0].hand_size += 1;
  const lied = Buffer.from(type.encode(shown).finish());
  assert.ok(!renderView(records, version, 0, game.game_id).equals(lied));
  assert.ok(renderView(records, version, 0, game.game_id).equals(Buffer.from(payloads[0], 'base64')));
});

test('a game kind Node does not fold keeps the fallback', () => {
  assert.equal(viewsPorted([{ fact: { type: 'GameCreated', data: { kind: 'chess' } } }]), false);
  assert.equal(viewsPorted(games[0].lines.map(parseStrict)), true);
});
