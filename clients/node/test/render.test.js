'use strict';
// The Node renderer (lib/render.js) against render vectors the server's own rendering made
// (tests/support/render_vectors.py, seed 36: a 3-seat 花鸟风月 game in 完全模式 and a 3-seat
// 川南字牌 game, every move for every viewer), and the field diff a proof names
// (lib/fielddiff.js). Needs no server; tests/api/test_node_render.py runs many fresh games.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { checkVectors } = require('./render-vectors');
const { renderEvents } = require('../lib/render');
const { payloadDiffs, differLine } = require('../lib/fielddiff');
const { parseStrict } = require('../lib/verify');
const { load } = require('../lib/protos');

const VECTORS = fs.readFileSync(path.join(__dirname, 'render-vectors.jsonl'), 'utf8');
const games = VECTORS.split('\n').filter(Boolean).map((line) => JSON.parse(line));

test('every move of both games renders for every viewer byte for byte as the server', () => {
  const { checked, mismatches } = checkVectors(VECTORS);
  assert.deepEqual(mismatches, []);
  assert.ok(checked > 100, `only ${checked} payloads checked`);
  assert.deepEqual(games.map((g) => g.kind).sort(), ['huaniao', 'zipai']);
});

test('a seat sees its own cards and not another seat\'s; the arbiter sees both', () => {
  const game = games.find((g) => g.kind === 'zipai');
  const records = game.lines.map(parseStrict);
  const dealt = records.find((r) => r.fact.type === 'Dealt' && r.fact.data.seat === 0);
  const type = load().root.lookupType('tabletop.v1.ReceiptPayload');
  const cards = (viewer) => type.decode(renderEvents(records, dealt.version, dealt.version, viewer)).events[0].zipai.dealt.cards.length;
  assert.ok(cards(0) > 0, 'seat 0 sees its hand');
  assert.equal(cards(1), 0, 'seat 1 does not');
  assert.equal(cards(game.seats), 0, 'nor does a spectator');
  assert.equal(cards(game.seats + 1), cards(0), 'the arbiter does');
});

test('a payload that is not the rendering names every differing field path', () => {
  const game = games.find((g) => g.kind === 'huaniao');
  const records = game.lines.map(parseStrict);
  const type = load().root.lookupType('tabletop.v1.ReceiptPayload');
  const move = game.moves.find((m) => type.decode(Buffer.from(m.payloads[1], 'base64')).events.some((e) => e.huaniao && e.huaniao.played));
  const rendered = renderEvents(records, move.first, move.last, 1);
  assert.deepEqual(payloadDiffs(type, rendered, rendered), []);
  const shown = type.decode(rendered);
  const i = shown.events.findIndex((e) => e.huaniao && e.huaniao.played);
  const card = shown.events[i].huaniao.played.cards[0];
  const was = card.id;
  card.id = (was + 1) % 108;
  shown.events[i].text += ' (as told to seat 1)';
  const lie = type.encode(shown).finish();
  assert.deepEqual(payloadDiffs(type, rendered, lie).map(differLine), [
    `events[${i}].text: record ${JSON.stringify(type.decode(rendered).events[i].text)}, sent ${JSON.stringify(shown.events[i].text)}`,
    `events[${i}].huaniao.played.cards[0].id: record ${was}, sent ${card.id}`,
  ]);
  // the same fields in another encoding (an unknown field appended): the encoding is named
  const extra = Buffer.concat([rendered, Buffer.from([0xf8, 0x01, 0x01])]);
  assert.deepEqual(payloadDiffs(type, rendered, extra).map((d) => d.path), ['(encoding)']);
});
