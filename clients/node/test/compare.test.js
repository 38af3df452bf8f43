'use strict';
// Forks of the transparency log (lib/translog.js `forks`, lib/compare.js): two tree heads of
// one log and size with different roots, each signed by a given key, prove a forked log;
// a head that does not verify, or of another size, proves nothing. `--heads FILE` keeps the
// heads trusted and holds new ones against them; a receipt's tree head is read from its bytes.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const T = require('../lib/translog');
const v = require('../lib/verify');
const C = require('../lib/compare');
const { load } = require('../lib/protos');

const LOG = '0b6f5e0c-8d52-4c8e-9a47-2d1b6c3f4e5a';

function signer() {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url');
  const key = v.publicKey(raw.toString('hex'));
  const sign = (fields) => {
    const h = { ...fields, key_id: key.id, signature: '' };
    h.signature = crypto.sign(null, T.treeHeadBody(v.canonical, h), privateKey).toString('hex');
    return h;
  };
  return { key, sign };
}

const head = (s, size, root, timestamp = 1) => s.sign({ log_id: LOG, root: root.repeat(32), size, timestamp });

test('two signed heads of one log and size with two roots are a fork; unsigned or other sizes are not', () => {
  const server = signer();
  const stranger = signer();
  const real = head(server, 5, 'aa');
  const forged = head(server, 5, 'bb', 2);
  const found = T.forks([['heads.jsonl line 1', real], ['seat0.receipts receipt 3', forged]], [server.key], v.canonical);
  assert.equal(found.length, 1);
  assert.deepEqual(T.forkLines(found[0]), [
    `PROOF: the server signed two different tree heads for log ${LOG} at size 5`,
    `  heads.jsonl line 1: root ${'aa'.repeat(32)}, timestamp 1, signature ${real.signature}, key id ${server.key.id}`,
    `  seat0.receipts receipt 3: root ${'bb'.repeat(32)}, timestamp 2, signature ${forged.signature}, key id ${server.key.id}`,
  ]);
  const alien = head(stranger, 5, 'bb'); // anybody can sign a head with a key of their own
  const bent = { ...forged, root: 'cc'.repeat(32) }; // its signature no longer covers it
  const grown = head(server, 6, 'bb');
  for (const other of [alien, bent, grown]) {
    assert.deepEqual(T.forks([['a', real], ['b', other]], [server.key], v.canonical), []);
  }
  assert.equal(T.forks([['a', real], ['b', forged], ['c', head(server, 5, 'dd')]], [server.key], v.canonical).length, 1, 'one proof a log and size');
});

test('--heads FILE keeps the trusted heads once, and a kept head of the same size with another root is a fork', () => {
  const server = signer();
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'heads-')), 'heads.jsonl');
  const line = (h) => ({ log: { heads: [h], inclusions: [] } });
  const real = head(server, 5, 'aa');
  assert.deepEqual(C.checkKeptHeads(file, line(real), [server.key], []), []);
  assert.deepEqual(C.checkKeptHeads(file, line(real), [server.key], []), []);
  assert.equal(fs.readFileSync(file, 'utf8'), `${v.canonical(real)}\n`, 'kept once, as canonical JSON');
  const found = C.checkKeptHeads(file, line(head(server, 5, 'bb')), [server.key], []);
  assert.equal(found.length, 1);
  assert.equal(found[0].heads[0][0], `${file} line 1`);
  assert.equal(found[0].heads[1][0], 'this record');
  // a head signed by a retired key is not trusted: neither kept nor held against the kept
  assert.deepEqual(C.checkKeptHeads(file, line(head(server, 5, 'cc')), [server.key], [server.key.id]), []);
  assert.equal(fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length, 1);
});

test('a heads file line that is not a tree head is named', () => {
  const server = signer();
  const good = JSON.stringify(head(server, 1, 'aa'));
  assert.throws(() => T.readHeads(`${good}\n{"x": 1}\n`, 'h.jsonl', v.parseStrict), /h\.jsonl line 2 is not a tree head \{key_id, log_id, root, signature, size, timestamp\}/);
  assert.throws(() => T.readHeads('[1', 'h.jsonl', v.parseStrict), /h\.jsonl line 1 is not JSON/);
  const upper = JSON.stringify({ ...head(server, 1, 'aa'), root: 'AA'.repeat(32) });
  assert.throws(() => T.readHeads(upper, 'h.jsonl', v.parseStrict), /h\.jsonl line 1 has a field of the wrong form/);
});

test("a receipt's tree head is read from its bytes", () => {
  const server = signer();
  const h = head(server, 7, 'ab', 1733000000000);
  const Receipt = load().root.lookupType('tabletop.v1.Receipt');
  const bytes = Receipt.encode(Receipt.create({
    game_id: 'g', last_version: 3,
    tree_head: { log_id: h.log_id, size: h.size, root: Buffer.from(h.root, 'hex'), timestamp_ms: h.timestamp, key_id: h.key_id, signature: Buffer.from(h.signature, 'hex') },
  })).finish();
  const bare = Receipt.encode(Receipt.create({ game_id: 'g', last_version: 4 })).finish();
  const text = [bytes, bare].map((b) => JSON.stringify({ payload: '', receipt: Buffer.from(b).toString('base64') })).join('\n');
  assert.deepEqual(C.receiptHeads('seat0.receipts', text), [['seat0.receipts receipt 1', h]]);
});
