'use strict';
// The Node verifier's transparency log (lib/translog.js) against the certificate
// transparency reference vectors of RFC 6962 / 9162 (the trees of 0..8 leaves, inclusion and
// consistency proofs) and the log's test vectors published in docs/api.md ("The log's test
// vectors": a seal's leaf, a tree head and a key retirement, each signed).
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const T = require('../lib/translog');
const v = require('../lib/verify');

const hex = (h) => Buffer.from(h, 'hex');
const CT_LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map(hex);
const CT_ROOTS = [
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];
const INCLUSION = [
  [0, 8, ['96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7', '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4']],
  [5, 8, ['bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b', 'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0', 'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7']],
  [2, 3, ['fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125']],
  [1, 5, ['6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d', '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', 'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b']],
];
const CONSISTENCY = [
  [1, 1, []],
  [1, 8, ['96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7', '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4']],
  [6, 8, ['0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a', 'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0', 'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7']],
  [2, 5, ['5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', 'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b']],
];
const HASHES = CT_LEAVES.map(T.leafHash);

test('the roots of the reference trees of 0..8 leaves', () => {
  CT_ROOTS.forEach((root, n) => assert.equal(T.rootOf(HASHES.slice(0, n)).toString('hex'), root, `${n} leaves`));
});

test('the reference inclusion proofs verify, and a bent one does not', () => {
  for (const [index, size, proof] of INCLUSION) {
    const root = hex(CT_ROOTS[size]);
    assert.ok(T.verifyInclusion(index, size, HASHES[index], proof.map(hex), root), `${index} of ${size}`);
    assert.ok(!T.verifyInclusion(index + 1, size, HASHES[index], proof.map(hex), root), 'another index');
    assert.ok(!T.verifyInclusion(index, size, HASHES[index], proof.slice(1).map(hex), root), 'a hash dropped');
    assert.ok(!T.verifyInclusion(size, size, HASHES[index], proof.map(hex), root), 'an index beyond the tree');
    assert.ok(!T.verifyInclusion(index, size, HASHES[index], [...proof, proof[0]].map(hex), root), 'a hash added');
    assert.ok(!T.verifyInclusion(index, size, HASHES[(index + 1) % 8], proof.map(hex), root), 'another leaf');
  }
});

test('the reference consistency proofs verify, and a bent one does not', () => {
  for (const [first, second, proof] of CONSISTENCY) {
    const a = hex(CT_ROOTS[first]);
    const b = hex(CT_ROOTS[second]);
    assert.ok(T.verifyConsistency(first, second, a, b, proof.map(hex)), `${first} -> ${second}`);
    if (first !== second) {
      assert.ok(!T.verifyConsistency(first, second, b, a, proof.map(hex)), 'roots swapped');
      assert.ok(!T.verifyConsistency(first, second, a, b, proof.slice(0, -1).map(hex)), 'a hash dropped');
    }
  }
  assert.ok(!T.verifyConsistency(1, 1, hex(CT_ROOTS[1]), hex(CT_ROOTS[2]), []), 'one size, two roots');
  assert.ok(!T.verifyConsistency(0, 3, hex(CT_ROOTS[0]), hex(CT_ROOTS[3]), []), 'from the empty tree: no proof');
});

test("the reference consistency proofs with translog.py's words for what fails (--target's consistency checks)", () => {
  for (const [first, second, proof] of CONSISTENCY) {
    assert.equal(T.consistencyProblem(first, second, hex(CT_ROOTS[first]), hex(CT_ROOTS[second]), proof.map(hex)), '', `${first} -> ${second}`);
  }
  const [, , sixToEight] = CONSISTENCY[2];
  const problem = (a, b, path) => T.consistencyProblem(6, 8, hex(CT_ROOTS[a]), hex(CT_ROOTS[b]), path.map(hex));
  assert.equal(problem(6, 7, sixToEight), 'the consistency proof does not give the root of size 8');
  assert.equal(problem(5, 8, sixToEight), 'the tree of size 8 does not extend the root of size 6');
  assert.equal(problem(6, 8, sixToEight.slice(0, -1)), 'the consistency proof is too short');
  assert.equal(problem(6, 8, []), 'the consistency proof is empty');
  assert.equal(T.consistencyProblem(3, 3, hex(CT_ROOTS[3]), hex(CT_ROOTS[2]), []), 'two roots for tree size 3');
  assert.equal(T.consistencyProblem(0, 3, hex(CT_ROOTS[0]), hex(CT_ROOTS[3]), []), 'no consistency between sizes 0 and 3');
});

test('every inclusion and consistency proof of every tree up to 20 leaves, made here by §2.1.3.1 / §2.1.4.1', () => {
  const leaves = Array.from({ length: 20 }, (_, i) => T.leafHash(Buffer.from([i])));
  const path = (m, d) => { // PATH(m, D[n])
    if (d.length <= 1) return [];
    let k = 1;
    while (k * 2 < d.length) k *= 2;
    return m < k ? [...path(m, d.slice(0, k)), T.rootOf(d.slice(k))] : [...path(m - k, d.slice(k)), T.rootOf(d.slice(0, k))];
  };
  const sub = (m, d, b) => { // SUBPROOF(m, D[n], b)
    if (m === d.length) return b ? [] : [T.rootOf(d)];
    let k = 1;
    while (k * 2 < d.length) k *= 2;
    return m <= k ? [...sub(m, d.slice(0, k), b), T.rootOf(d.slice(k))] : [...sub(m - k, d.slice(k), false), T.rootOf(d.slice(0, k))];
  };
  for (let n = 1; n <= 20; n += 1) {
    const d = leaves.slice(0, n);
    const root = T.rootOf(d);
    for (let m = 0; m < n; m += 1) assert.ok(T.verifyInclusion(m, n, d[m], path(m, d), root), `${m} of ${n}`);
    for (let m = 1; m <= n; m += 1) {
      assert.ok(T.verifyConsistency(m, n, T.rootOf(d.slice(0, m)), root, m === n ? [] : sub(m, d, true)), `${m} -> ${n}`);
    }
  }
});

function logVectors() {
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'api.md'), 'utf8');
  const found = doc.match(/<!-- log-test-vectors -->\n```json\n([\s\S]*?)\n```/);
  assert.ok(found, 'docs/api.md lost its log test vectors');
  return JSON.parse(found[1]);
}

test("the documented log vectors: a seal's leaf, a signed tree head, a retirement signed by both keys", () => {
  const V = logVectors();
  const key = v.publicKey(V.public_key);
  const successor = v.publicKey(V.successor_public_key);
  assert.equal(key.id, V.key_id);
  assert.equal(successor.id, V.successor_key_id);
  const data = T.leafData(v.canonical, Buffer.from(V.seal_signed_bytes, 'utf8'), V.key_id);
  assert.equal(data.toString('utf8'), V.leaf_data);
  assert.equal(T.leafHash(data).toString('hex'), V.leaf_hash);
  assert.equal(T.treeHeadBody(v.canonical, V.tree_head).toString('utf8'), V.tree_head_signed_bytes);
  assert.equal(T.checkTreeHead(V.tree_head, [key], new Set(), v.canonical).root, V.leaf_hash);
  assert.equal(T.retirementBody(v.canonical, V.retirement).toString('utf8'), V.retirement_signed_bytes);
  assert.equal(T.checkRetirementSignatures(T.parseRetirement(V.retirement), [key, successor], v.canonical).retired, V.key_id);
  // a head signed by a retired key proves nothing after its retirement
  assert.throws(() => T.checkTreeHead(V.tree_head, [key], new Set([V.key_id]), v.canonical), /signed by retired key 56475aa75463474c: re-export/);
  assert.throws(() => T.checkTreeHead({ ...V.tree_head, size: 2 }, [key], new Set(), v.canonical), /is not signed by key/);
  assert.throws(() => T.checkTreeHead({ ...V.tree_head, extra: 1 }, [key], new Set(), v.canonical), /is not a tree head/);
  // a retirement signed by one key only is none
  const one = { ...V.retirement, successor_signature: V.retirement.retired_signature };
  assert.throws(() => T.checkRetirementSignatures(one, [key, successor], v.canonical), /not signed by its successor key/);
  const swapped = { ...V.retirement, retired_signature: V.retirement.successor_signature };
  assert.throws(() => T.checkRetirementSignatures(swapped, [key, successor], v.canonical), /not signed by its retired key/);
});

test('the retired-key rule: a seal by a retired key counts only below the size its retirement states', () => {
  const V = logVectors();
  const seed = (h) => crypto.createPrivateKey({ key: Buffer.concat([hex('302e020100300506032b657004220420'), hex(h)]), format: 'der', type: 'pkcs8' });
  const old = seed(V.private_key_seed);
  const keys = [v.publicKey(V.public_key), v.publicKey(V.successor_public_key)];
  const log = V.tree_head.log_id;
  const body = Buffer.from(V.seal_signed_bytes, 'utf8');
  const seal = (first) => ({ id: '00000000-0000-4000-8000-000000000001', first, last: first, body, keyId: V.key_id, signedBy: V.key_id });
  // a log of two leaves: the documented one (index 0) and the same seal again (index 1)
  const leaf = T.leafHash(T.leafData(v.canonical, body, V.key_id));
  const head = (size, signer = seed(V.successor_seed), kid = V.successor_key_id) => {
    const h = { key_id: kid, log_id: log, root: T.rootOf(Array(size).fill(leaf)).toString('hex'), size, timestamp: 1769904000001 };
    return { ...h, signature: crypto.sign(null, T.treeHeadBody(v.canonical, h), signer).toString('hex') };
  };
  const line = (index) => ({ log: { heads: [head(2)], inclusions: [{ first: 2, id: seal(2).id, index, last: 2, log_id: log, path: [leaf.toString('hex')] }] } });
  const statements = [V.retirement]; // retired at size 1 of this log
  assert.match(T.checkLog([seal(2)], line(0), keys, statements, v.canonical), /^transparency log: all 1 seals in log 0{8}-0{4}-4000-8000-00000000000a at size 2; key 56475aa75463474c retired at tree size 1: its seals are below it$/);
  assert.throws(() => T.checkLog([seal(2)], line(1), keys, statements, v.canonical),
    { message: `the seal of versions 2..2 is signed by retired key ${V.key_id}, retired at tree size 1: its leaf is at index 1 of log ${log}` });
  assert.throws(() => T.checkLog([seal(2)], null, keys, statements, v.canonical), /retired at tree size 1: no tree head proves it is in the log$/);
  assert.equal(T.checkLog([seal(2)], null, keys, [], v.canonical), 'transparency log: not checked (no log line)');
  const bent = line(0);
  bent.log.inclusions[0].path = [];
  assert.throws(() => T.checkLog([seal(2)], bent, keys, [], v.canonical), { message: 'the seal of versions 2..2 is not in the log: the log line: the inclusion proof is too short for the tree size' });
  const byOld = line(0);
  byOld.log.heads = [head(2, old, V.key_id)];
  assert.throws(() => T.checkLog([seal(2)], byOld, keys, statements, v.canonical), /is signed by retired key 56475aa75463474c: re-export, or verify with --target/);
  // logaudit.py's words for each way a seal is not proven (docs/api.md, "The export's log line")
  const fails = (ln, message, st = []) => assert.throws(() => T.checkLog([seal(2)], ln, keys, st, v.canonical), { message: `the seal of versions 2..2 is not in the log: ${message}` });
  fails({ log: { heads: [head(2)], inclusions: [] } }, 'the log line has 0 inclusions for 1 seals');
  const other = line(0);
  other.log.inclusions[0].first = 1;
  fails(other, `the log line's entry 1 names ${seal(2).id} versions 1..2`);
  fails({ log: { heads: [], inclusions: line(0).log.inclusions } }, `the log line has no tree head of log ${log}`);
  const alien = line(0);
  alien.log.heads = [{ ...head(2), key_id: '0123456789abcdef' }];
  fails(alien, `the tree head of log ${log} is not signed by a given key`);
  const forged = line(0);
  forged.log.heads = [{ ...head(2), timestamp: 5 }];
  fails(forged, `the tree head of log ${log} does not verify with key ${V.successor_key_id}`);
  const wrongLeaf = line(1);
  wrongLeaf.log.inclusions[0].path = ['00'.repeat(32)];
  fails(wrongLeaf, 'the log line: leaf 1 is not in the tree of size 2 with that root');
  // a key retired with no statement: its seals stand on the key alone, and the line says so
  assert.equal(T.checkLog([seal(2)], line(1), keys, [], v.canonical, [V.key_id]),
    `transparency log: all 1 seals in log ${log} at size 2; key ${V.key_id} retired with no statement of the log's size (a rotation before the transparency log): its seals stand on the key alone`);
});
