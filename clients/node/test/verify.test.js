'use strict';
// The Node verifier (lib/verify.js, bin/verify.js) against the record's test vectors
// published in docs/api.md ("The record's test vectors"), the strict reader and the
// command's one-line verdicts. Needs no server: tests/api/test_node_verify.py runs the
// command on real exports, honest and tampered, beside the Python auditor.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const v = require('../lib/verify');

function vectors() {
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'api.md'), 'utf8');
  const found = doc.match(/<!-- record-test-vectors -->\n```json\n([\s\S]*?)\n```/);
  assert.ok(found, 'docs/api.md lost its record test vectors');
  return JSON.parse(found[1]);
}

const V = vectors();
const BIN = path.join(__dirname, '..', 'bin', 'verify.js');

test('the chain key and a chain hash (non-ASCII text in canonical JSON)', () => {
  assert.equal(v.chainKey(V.secret, V.salt).toString('hex'), V.chain_key);
  const e = V.event;
  const text = `${e.prev_hash}|${e.version}|${v.canonical(e.fact)}|${v.canonical(e.cause)}|${e.recorded_at}`;
  assert.equal(text, V.event_chained_text);
  assert.equal(v.chainHash(v.chainKey(V.secret, V.salt), e.prev_hash, e.version, e.fact, e.cause, e.recorded_at), V.event_hash);
});

test("a match's chain hash: no cause, no time", () => {
  const m = V.match;
  const key = crypto.createHash('sha256').update(`tabletop-match-chain|${m.match_id}`).digest();
  assert.equal(key.toString('hex'), m.chain_key);
  assert.equal(v.chainHash(key, m.prev_hash, m.version, m.fact, null, ''), m.hash);
});

test("today's match: a chain keyed by its secret, a match seal's signed bytes and signature", () => {
  const m = V.match_v2;
  const key = v.matchChainKey(m.match_id, m.secret);
  assert.equal(key.toString('hex'), m.chain_key);
  assert.equal(v.chainHash(key, m.prev_hash, m.version, m.fact, null, ''), m.hash);
  const body = v.matchSealBody(m.seal.match_id, m.seal.first, m.seal.last, m.seal.head);
  assert.equal(body.toString('utf8'), m.seal_signed_bytes);
  const pk = v.publicKey(V.public_key);
  assert.ok(crypto.verify(null, body, pk.key, Buffer.from(m.seal_signature, 'hex')));
});

test("a seal's signed bytes, its signature and the key id", () => {
  const s = V.seal;
  const body = v.sealBody(s.game_id, s.first, s.last, s.head, s.receipts);
  assert.equal(body.toString('utf8'), V.seal_signed_bytes);
  const pk = v.publicKey(V.public_key);
  assert.equal(pk.id, V.key_id);
  assert.ok(crypto.verify(null, body, pk.key, Buffer.from(V.signature, 'hex')));
  const seed = Buffer.from(V.private_key_seed, 'hex'); // PKCS#8 prefix of an Ed25519 seed
  const priv = crypto.createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
  assert.equal(crypto.sign(null, body, priv).toString('hex'), V.signature);
});

test("today's seal (events hashes only) and a view's own signature", () => {
  const pk = v.publicKey(V.public_key);
  const s = V.seal_v2;
  const body = v.sealBody(s.game_id, s.first, s.last, s.head, s.receipts);
  assert.equal(body.toString('utf8'), V.seal_v2_signed_bytes);
  assert.ok(crypto.verify(null, body, pk.key, Buffer.from(V.seal_v2_signature, 'hex')));
  const w = V.view;
  const view = v.viewBody(w.game_id, w.version, w.head, w.viewer, w.view);
  assert.equal(view.toString('utf8'), V.view_signed_bytes);
  assert.ok(crypto.verify(null, view, pk.key, Buffer.from(V.view_signature, 'hex')));
  assert.ok(!crypto.verify(null, body, pk.key, Buffer.from(V.signature, 'hex')), 'seal/1 and seal/2 bytes differ');
});

test("a receipt's nonce and payload hash", () => {
  const r = V.receipt;
  const nonce = v.receiptNonce(V.secret, V.salt, r.last, r.index);
  assert.equal(nonce.toString('hex'), r.nonce);
  const hash = crypto.createHash('sha256').update(Buffer.concat([nonce, Buffer.from(r.payload, 'hex')])).digest('hex');
  assert.equal(hash, r.hash);
});

test('canonical JSON is what the docs say: sorted by code point, non-ASCII as is', () => {
  assert.equal(v.canonical({ b: [1, null, true], a: 'é\n"' }), '{"a":"é\\n\\"","b":[1,null,true]}');
  assert.equal(v.canonical({ '\u{1F600}': 1, '\uFFFF': 2 }), '{"\uFFFF":2,"\u{1F600}":1}');
  assert.equal(v.canonical(v.parseStrict('{"n":12345678901234567890}')), '{"n":12345678901234567890}');
});

test('the reader refuses what two readers could read differently', () => {
  for (const bad of ['{"a":1,"a":2}', '{"a":1.5}', '{"a":1e3}', '{"a":123456789012345678901}',
    '['.repeat(60) + ']'.repeat(60), '{"a":1} x', '{"a":"\u0001"}', '']) {
    assert.throws(() => v.parseStrict(bad), v.VerifyError, bad.slice(0, 30));
  }
  assert.deepEqual({ ...v.parseStrict(' {"a": [1, -0, "x"]} ') }, { a: [1, 0, 'x'] });
});

test('a receipt decodes from its protobuf bytes', () => {
  const field = (n, type, bytes) => Buffer.concat([Buffer.from([(n << 3) | type]), bytes]);
  const len = (b) => Buffer.concat([Buffer.from([b.length]), b]);
  const text = (s) => len(Buffer.from(s));
  const buf = Buffer.concat([
    field(1, 2, text('g')), field(2, 0, Buffer.from([3])), field(3, 0, Buffer.from([0x96, 0x01])),
    field(4, 2, text('h')), field(5, 0, Buffer.from([1])), field(6, 2, len(Buffer.from([7, 8]))),
    field(7, 2, len(Buffer.concat([field(1, 2, text('e0')), field(2, 2, text('v0'))]))),
    field(7, 2, len(field(2, 2, text('v1')))), field(8, 2, len(Buffer.from([9]))), field(9, 2, text('k')),
  ]);
  const r = v.decodeReceipt(buf);
  assert.equal(r.game_id, 'g');
  assert.equal(r.first_version, 3);
  assert.equal(r.last_version, 150);
  assert.equal(r.viewer, 1);
  assert.deepEqual([...r.nonce], [7, 8]);
  assert.deepEqual(r.hashes, [{ events: 'e0', view: 'v0' }, { events: '', view: 'v1' }]);
  assert.equal(r.key_id, 'k');
  assert.throws(() => v.decodeReceipt(Buffer.from([0x0a, 0x05, 0x01])), v.VerifyError);
});

test('the command: usage, and one line naming the first problem', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tabletop-verify-'));
  const run = (...args) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
  assert.equal(run().status, 2);
  assert.equal(run('--help').status, 0);
  const file = path.join(dir, 'x.jsonl');
  const cases = [
    ['{"a":1,"a":2}\n', /line 1 is not a valid export line \(not valid JSON: the key "a" is repeated/],
    ['{"cause":null,"fact":{"type":"SeatTaken","data":{}},"hash":"' + '0'.repeat(64) +
      '","recorded_at":"2026-01-01T00:00:00.000000Z","seal":null,"version":1}\n',
      /the first fact is SeatTaken, not GameCreated/],
    ['{"match":"m","version":2,"fact":{"type":"MatchCreated","data":{}},"hash":"x"}\n', /versions must run 1..N/],
    ['\n\n', /no events/],
  ];
  for (const [text, reason] of cases) {
    fs.writeFileSync(file, text);
    const r = run(file, '--public-key', V.public_key);
    assert.equal(r.status, 1, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, reason);
  }
  const r = run(file, '--public-key', 'nothex');
  assert.equal(r.status, 1);
  assert.match(r.stderr, /cannot read nothex|64 hex digits/);
  fs.rmSync(dir, { recursive: true });
});
