'use strict';
// The transparency log, as docs/api.md ("Transparency log") publishes it, written from that
// section alone: RFC 9162 tree hashing and proof verification, the signed statements (tree
// heads, key retirements), the export's log line and the retired-key rule.
//
//   leafData(sealBody, keyId)              a seal's leaf: "tabletop-log-leaf/1\n" + canonical JSON
//   verifyInclusion(...), verifyConsistency(...)   RFC 9162 §2.1.3.2 and §2.1.4.2
//   checkTreeHead(head, keys, retired)     a head's grammar and signature (by a key not retired)
//   parseRetirement(statement)             a key retirement's grammar
//   checkRetirementSignatures(s, keys)     signed by the retired key, then by its successor
//   checkLog(seals, line, keys, statements)   every seal of a verified record against the log
const crypto = require('./crypto');

const sha256 = (...parts) => crypto.createHash('sha256').update(Buffer.concat(parts)).digest();
const HEX16 = /^[0-9a-f]{16}$/;
const HEX64 = /^[0-9a-f]{64}$/;
const HEX128 = /^[0-9a-f]{128}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAX_PATH = 64;

class LogError extends Error {}
/** A log line's heads not one a log in log_id order (`heads`: to hold against the keys: a fork?). */
class HeadsOutOfOrder extends LogError {
  constructor(message, heads) {
    super(message);
    this.heads = heads;
  }
}
const fail = (message) => {
  throw new LogError(message);
};
const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const exactly = (v, keys) => isObj(v) && Object.keys(v).sort().join() === [...keys].sort().join();
const size = (v) => Number.isSafeInteger(v) && v >= 0; // 0..2^53-1, as logaudit.py `_count`

// --- RFC 9162 §2.1 ----------------------------------------------------------------------

const leafHash = (data) => sha256(Buffer.from([0]), Buffer.from(data));
const nodeHash = (left, right) => sha256(Buffer.from([1]), left, right);

/** MTH of a list of leaf hashes (§2.1.1): the split at the largest power of two below n. */
function rootOf(leaves) {
  if (!leaves.length) return sha256(Buffer.alloc(0));
  if (leaves.length === 1) return leaves[0];
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return nodeHash(rootOf(leaves.slice(0, k)), rootOf(leaves.slice(k)));
}

const odd = (n) => n % 2 === 1;
const half = (n) => Math.floor(n / 2);

/** §2.1.3.2: whether `path` proves leaf `index` (its hash `leaf`) in the tree of `treeSize` with `root`. */
function verifyInclusion(index, treeSize, leaf, path, root) {
  if (!(size(index) && size(treeSize) && index < treeSize) || path.length > MAX_PATH) return false;
  let fn = index;
  let sn = treeSize - 1;
  let r = leaf;
  for (const p of path) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      r = nodeHash(p, r);
      if (!odd(fn)) {
        while (!odd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && r.equals(root);
}

/** §2.1.4.2: whether `path` proves the tree of `first` (`firstRoot`) a prefix of that of `second`. */
function verifyConsistency(first, second, firstRoot, secondRoot, path) {
  if (!(size(first) && size(second)) || first < 1 || first > second || path.length > MAX_PATH) return false;
  if (first === second) return path.length === 0 && firstRoot.equals(secondRoot);
  if (!path.length) return false;
  const proof = isPowerOfTwo(first) ? [firstRoot, ...path] : path;
  let fn = first - 1;
  let sn = second - 1;
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = proof[0];
  let sr = proof[0];
  for (const c of proof.slice(1)) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (!odd(fn)) {
        while (!odd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return fr.equals(firstRoot) && sr.equals(secondRoot) && sn === 0;
}

function isPowerOfTwo(n) {
  let m = n;
  while (m > 1 && !odd(m)) m = half(m);
  return m === 1;
}

// --- the signed statements --------------------------------------------------------------

const TREE_HEAD_KEYS = ['key_id', 'log_id', 'root', 'signature', 'size', 'timestamp'];
const RETIREMENT_KEYS = ['logs', 'retired', 'retired_signature', 'successor', 'successor_signature', 'timestamp'];

/** The bytes a tree head's signature covers. */
function treeHeadBody(canonical, h) {
  return Buffer.from(`tabletop-tree-head/1\n${canonical({ log_id: h.log_id, root: h.root, size: h.size, timestamp: h.timestamp })}`, 'utf8');
}

/** The bytes both signatures of a key retirement cover. */
function retirementBody(canonical, s) {
  return Buffer.from(`tabletop-key-retirement/1\n${canonical({ logs: s.logs, retired: s.retired, successor: s.successor, timestamp: s.timestamp })}`, 'utf8');
}

const verifies = (key, body, signatureHex) => crypto.verify(null, body, key.key, Buffer.from(signatureHex, 'hex'));

/**
 * A tree head as JSON: exactly its keys, a UUID log id, a 64-hex root, a size, a timestamp,
 * signed by the given key its key_id names, which must not be retired (`retired`: the ids
 * of retired keys). Returns it with `rootBytes`.
 */
function checkTreeHead(h, keys, retired, canonical, where = 'a tree head') {
  if (!exactly(h, TREE_HEAD_KEYS)) fail(`${where} is not a tree head {${TREE_HEAD_KEYS.join(', ')}}`);
  if (typeof h.log_id !== 'string' || !UUID.test(h.log_id)) fail(`${where} names no log (log_id is not a lowercase UUID)`);
  if (typeof h.root !== 'string' || !HEX64.test(h.root)) fail(`${where} of log ${h.log_id} has a root that is not 64 lowercase hex digits`);
  if (!size(h.size) || !size(h.timestamp)) fail(`${where} of log ${h.log_id} has a size or timestamp that is not a non-negative integer`);
  if (typeof h.signature !== 'string' || !HEX128.test(h.signature)) fail(`${where} of log ${h.log_id} has no 64-byte signature`);
  if (typeof h.key_id !== 'string') fail(`${where} of log ${h.log_id} has a key_id that is not text`);
  const key = keys.find((k) => k.id === h.key_id);
  if (!key) fail(`tree head of log ${h.log_id} names key ${h.key_id}, which is none of the given keys`);
  if (!verifies(key, treeHeadBody(canonical, h), h.signature)) fail(`tree head of log ${h.log_id} is not signed by key ${h.key_id}`);
  if (retired.has(h.key_id)) fail(`tree head of log ${h.log_id} is signed by retired key ${h.key_id}: re-export, or verify with --target`);
  return { ...h, rootBytes: Buffer.from(h.root, 'hex') };
}

/**
 * A key retirement as JSON: exactly its keys, each of its form (logaudit.py
 * `parse_retirement`): logs {log_id: size at retirement}, the two key ids, the two
 * signatures, the timestamp. Returns it.
 */
function parseRetirement(s, where = 'a key retirement') {
  if (!exactly(s, RETIREMENT_KEYS)) fail(`${where} is not a key retirement {${RETIREMENT_KEYS.join(', ')}}`);
  const text = (v, re) => typeof v === 'string' && re.test(v);
  const ok = isObj(s.logs) && Object.entries(s.logs).every(([id, n]) => UUID.test(id) && size(n))
    && text(s.retired, HEX16) && text(s.successor, HEX16)
    && text(s.retired_signature, HEX128) && text(s.successor_signature, HEX128)
    && size(s.timestamp);
  if (!ok) fail(`${where} has a field of the wrong form`);
  return s;
}

/**
 * A key retirement (parsed) signed by its retired key, then by its successor, both among
 * `keys` ({id, key}) (logaudit.py `_signed_by_both`).
 */
function checkRetirementSignatures(s, keys, canonical, where = 'a key retirement') {
  const body = retirementBody(canonical, s);
  for (const [role, id, signature] of [['retired', s.retired, s.retired_signature], ['successor', s.successor, s.successor_signature]]) {
    const key = keys.find((k) => k.id === id);
    if (!verifies(key, body, signature)) fail(`${where} of key ${s.retired} is not signed by its ${role} key ${id}`);
  }
  return s;
}

// --- the export's log line and the retired-key rule ---------------------------------------

const INCLUSION_KEYS = ['first', 'id', 'index', 'last', 'log_id', 'path'];

const MAX_HEADS = 1024;

/**
 * The log line {"log": {"heads", "inclusions"}} by its grammar (logaudit.py `parse_log_line`,
 * word for word; `where`: "line N"): exactly those keys, every head a tree head of its form
 * (`parseHead`), the heads sorted by log_id, one a log, every inclusion exactly its keys, each
 * of its form. Its proofs are checked later (`checkSeals`). Heads that are not one a log in
 * order fail with a HeadsOutOfOrder carrying them: two of one log and size, validly signed,
 * with different roots, are a proof of a forked log (bin/verify.js: exit 3).
 */
function readLogLine(line, where = 'the log line') {
  if (!exactly(line, ['log'])) fail(`${where} is not a log line {log}`);
  if (!exactly(line.log, ['heads', 'inclusions'])) fail(`${where}: \`log\` is not exactly {heads, inclusions}`);
  const { heads, inclusions } = line.log;
  if (!Array.isArray(heads) || !Array.isArray(inclusions)) fail(`${where}: \`heads\` and \`inclusions\` must be lists`);
  if (heads.length > MAX_HEADS) fail(`${where}: more than ${MAX_HEADS} tree heads`);
  heads.forEach((h, i) => parseHead(h, `${where} head ${i + 1}`));
  const ids = heads.map((h) => h.log_id);
  if (ids.some((id, i) => i && !(ids[i - 1] < id))) {
    throw new HeadsOutOfOrder(`${where}: the heads are not sorted by log_id, one a log`, heads);
  }
  inclusions.forEach((x, i) => {
    const at = `${where} inclusion ${i + 1}`;
    if (!exactly(x, INCLUSION_KEYS)) fail(`${at} is not an inclusion {${INCLUSION_KEYS.join(', ')}}`);
    const ok = size(x.first) && size(x.last) && size(x.index) && typeof x.id === 'string'
      && typeof x.log_id === 'string' && UUID.test(x.log_id)
      && Array.isArray(x.path) && x.path.length <= MAX_PATH && x.path.every((p) => typeof p === 'string' && HEX64.test(p));
    if (!ok) fail(`${at} has a field of the wrong form`);
  });
  return { heads, inclusions };
}

/**
 * §2.1.3.2 with logaudit.py's words: '' if `path` proves leaf `index` (its hash `leaf`) in the
 * tree of `treeSize` with `root`, else what fails (translog.py `ProofError`).
 */
function inclusionProblem(index, treeSize, leaf, path, root) {
  if (!(size(index) && size(treeSize) && index < treeSize)) return `leaf index ${index} is not below tree size ${treeSize}`;
  if (path.length > MAX_PATH) return 'the inclusion proof is too long';
  let fn = index;
  let sn = treeSize - 1;
  let r = leaf;
  for (const p of path) {
    if (sn === 0) return 'the inclusion proof is too long for the tree size';
    if (odd(fn) || fn === sn) {
      r = nodeHash(p, r);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  if (sn !== 0) return 'the inclusion proof is too short for the tree size';
  return r.equals(root) ? '' : `leaf ${index} is not in the tree of size ${treeSize} with that root`;
}

/**
 * §2.1.4.2 with translog.py's words: '' if `path` proves the tree of `first` (`firstRoot`) a
 * prefix of that of `second` (`secondRoot`), else what fails.
 */
function consistencyProblem(first, second, firstRoot, secondRoot, path) {
  if (!(size(first) && size(second) && first > 0 && first <= second)) return `no consistency between sizes ${first} and ${second}`;
  if (path.length > MAX_PATH) return 'the consistency proof is too long';
  if (first === second) return path.length || !firstRoot.equals(secondRoot) ? `two roots for tree size ${first}` : '';
  if (!path.length) return 'the consistency proof is empty';
  const proof = isPowerOfTwo(first) ? [firstRoot, ...path] : [...path];
  let fn = first - 1;
  let sn = second - 1;
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = proof[0];
  let sr = proof[0];
  for (const c of proof.slice(1)) {
    if (sn === 0) return 'the consistency proof is too long';
    if (odd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  if (sn !== 0) return 'the consistency proof is too short';
  if (!fr.equals(firstRoot)) return `the tree of size ${second} does not extend the root of size ${first}`;
  if (!sr.equals(secondRoot)) return `the consistency proof does not give the root of size ${second}`;
  return '';
}

/**
 * The keys a verifier knows from outside the record: `keys` ({id, key}), the ids of the
 * `retired` ones and the retirement `statements` (checked), as logaudit.py `KeySet`.
 */
function keySet(keys, statements = [], retired = []) {
  return { keys, retired: new Set([...retired, ...statements.map((s) => s.retired)]), retirements: new Map(statements.map((s) => [s.retired, s])) };
}

/** Why a head is not to be trusted, or '' (logaudit.py `head_problem`). */
function headProblem(h, ks, canonical) {
  const key = ks.keys.find((k) => k.id === h.key_id);
  if (!key) return `the tree head of log ${h.log_id} is not signed by a given key`;
  if (ks.retired.has(h.key_id)) return `the tree head of log ${h.log_id} is signed by retired key ${h.key_id}: re-export, or verify with --target`;
  if (!verifies(key, treeHeadBody(canonical, h), h.signature)) return `the tree head of log ${h.log_id} does not verify with key ${h.key_id}`;
  return '';
}

/** The log line as a source of proofs: {source, heads, inclusions, missing}. */
const lineSource = (line) => ({ source: 'the log line', missing: '', ...readLogLine(line) });

/** Seal `i` of `count` proven by `source`: {placed} ({logId, index, size}) or {problem} (logaudit.py `_proven`). */
function proven(seal, i, count, source, ks, canonical) {
  if (source.missing) return { problem: source.missing };
  if (source.inclusions.length !== count) return { problem: `${source.source} has ${source.inclusions.length} inclusions for ${count} seals` };
  const x = source.inclusions[i];
  if (x.id !== seal.id || x.first !== seal.first || x.last !== seal.last) {
    return { problem: `${source.source}'s entry ${i + 1} names ${x.id} versions ${x.first}..${x.last}` };
  }
  const head = source.heads.find((h) => h.log_id === x.log_id);
  if (!head) return { problem: `${source.source} has no tree head of log ${x.log_id}` };
  const untrusted = headProblem(head, ks, canonical);
  if (untrusted) return { problem: untrusted };
  const leaf = leafHash(leafData(canonical, seal.body, seal.keyId));
  const problem = inclusionProblem(x.index, head.size, leaf, x.path.map((p) => Buffer.from(p, 'hex')), Buffer.from(head.root, 'hex'));
  if (problem) return { problem: `${source.source}: ${problem}` };
  return { placed: { logId: x.log_id, index: x.index, size: head.size } };
}

/** "tree size N", or "tree sizes N1 (log A), N2 (log B)" (logaudit.py `_sizes`). */
function sizesOf(statement) {
  const logs = Object.entries(statement.logs).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (logs.length === 1) return `tree size ${logs[0][1]}`;
  return `tree sizes ${logs.map(([id, n]) => `${n} (log ${id})`).join(', ')}`;
}

/** A seal by a retired key counts only at an index below its retirement's size (logaudit.py `_retired_rule`). */
function retiredRule(seal, placed, ks, missing) {
  if (!ks.retired.has(seal.signedBy)) return;
  const statement = ks.retirements.get(seal.signedBy);
  if (!statement) return; // retired before the log: named in the verify line, stands on the key alone
  const start = `the seal of versions ${seal.first}..${seal.last} is signed by retired key ${seal.signedBy}, retired at ${sizesOf(statement)}: `;
  if (!placed) fail(start + missing);
  if (!Object.prototype.hasOwnProperty.call(statement.logs, placed.logId)) fail(`${start}log ${placed.logId} is not one of the logs it was retired in`);
  if (placed.index >= statement.logs[placed.logId]) fail(`${start}its leaf is at index ${placed.index} of log ${placed.logId}`);
}

/**
 * Every seal of a verified record ([{id, first, last, body, keyId, signedBy}] in the file's
 * order) against the sources of proofs (the log line, a server's), as logaudit.py
 * `check_seals`: each included in a trusted head (from the first source that proves it), and
 * a seal by a retired key only below the size its retirement states. Returns the verify
 * line's words; fails with the first seal that fails.
 */
function checkSeals(seals, sources, ks, canonical) {
  if (!sources.length) {
    seals.forEach((seal) => retiredRule(seal, null, ks, 'no tree head proves it is in the log'));
    return 'transparency log: not checked (no log line)';
  }
  const logs = new Map();
  const signers = new Set();
  seals.forEach((seal, i) => {
    let found = null;
    let problem = '';
    for (const source of sources) {
      ({ placed: found = null, problem = '' } = proven(seal, i, seals.length, source, ks, canonical));
      if (found) break;
    }
    if (!found) {
      retiredRule(seal, null, ks, `no tree head proves it is in the log (${problem})`);
      fail(`the seal of versions ${seal.first}..${seal.last} is not in the log: ${problem}`);
    }
    retiredRule(seal, found, ks, '');
    logs.set(found.logId, found.size);
    signers.add(seal.signedBy);
  });
  let words = `transparency log: all ${seals.length} seals in ${[...logs].map(([id, n]) => `log ${id} at size ${n}`).join(', ')}`;
  for (const kid of [...signers].filter((k) => ks.retirements.has(k)).sort()) {
    words += `; key ${kid} retired at ${sizesOf(ks.retirements.get(kid))}: its seals are below it`;
  }
  for (const kid of [...signers].filter((k) => ks.retired.has(k) && !ks.retirements.has(k)).sort()) {
    words += `; key ${kid} retired with no statement of the log's size (a rotation before the transparency log): its seals stand on the key alone`;
  }
  return words;
}

/** The export's log line (or null) alone: checkSeals with the given keys and retirements. */
function checkLog(seals, line, keys, statements, canonical, retired = []) {
  return checkSeals(seals, line === null ? [] : [lineSource(line)], keySet(keys, statements, retired), canonical);
}

/** A seal's leaf data: its signed bytes' SHA-256 and its key id, as canonical JSON. */
function leafData(canonical, sealBody, keyId) {
  return Buffer.from(`tabletop-log-leaf/1\n${canonical({ body: sha256(sealBody).toString('hex'), key_id: keyId || '' })}`, 'utf8');
}

// --- tree heads seen, and forks ---------------------------------------------------------


/** A tree head as JSON, its form only (logaudit.py `parse_head`): exactly its keys, each of its form. */
function parseHead(h, where) {
  if (!exactly(h, TREE_HEAD_KEYS)) fail(`${where} is not a tree head {${TREE_HEAD_KEYS.join(', ')}}`);
  const text = (v, re) => typeof v === 'string' && re.test(v);
  if (!(text(h.key_id, HEX16) && text(h.log_id, UUID) && text(h.root, HEX64) && text(h.signature, HEX128) && size(h.size) && size(h.timestamp))) {
    fail(`${where} has a field of the wrong form`);
  }
  return h;
}

/**
 * `--heads FILE`'s text: JSON Lines of tree heads, each [source, head] with source
 * "FILE line N" (`parse`: the strict JSON reader). Blank lines are skipped.
 */
function readHeads(text, path, parse) {
  const out = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    const where = `${path} line ${i + 1}`;
    let data;
    try {
      data = parse(line);
    } catch (err) {
      fail(`${where} is not JSON`);
    }
    out.push([where, parseHead(data, where)]);
  });
  return out;
}

/**
 * Every pair of signed heads (by a given key, retired or not: each was the server's word
 * when signed) of one log and size whose roots differ, from [source, head] in order; heads
 * that do not verify are left out (anybody can write one). Each {logId, size, heads: [[source, head] x2]}.
 */
function forks(heads, keys, canonical) {
  const first = new Map();
  const found = [];
  for (const [source, h] of heads) {
    const key = keys.find((k) => k.id === h.key_id);
    if (!key || !verifies(key, treeHeadBody(canonical, h), h.signature)) continue;
    const at = `${h.log_id}|${h.size}`;
    if (!first.has(at)) first.set(at, [source, h]);
    const seen = first.get(at);
    if (seen[1].root !== h.root && !found.some((f) => f.logId === h.log_id && f.size === h.size)) {
      found.push({ logId: h.log_id, size: h.size, heads: [seen, [source, h]] });
    }
  }
  return found;
}

/**
 * Whether a tree head verifies with the given key its `key_id` names, retired or not
 * (logaudit.py `head_signed`: it was the server's word when it signed).
 */
function headSigned(h, keys, canonical) {
  const key = keys.find((k) => k.id === h.key_id);
  try {
    return Boolean(key) && verifies(key, treeHeadBody(canonical, h), h.signature);
  } catch (err) {
    return false; // a signature of the wrong form verifies nothing
  }
}

/** A fork's proof, as `tabletop-audit compare` prints it (audit_log.py `ForkProof.lines`). */
function forkLines(f) {
  return [
    `PROOF: the server signed two different tree heads for log ${f.logId} at size ${f.size}`,
    ...f.heads.map(([source, h]) => `  ${source}: root ${h.root}, timestamp ${h.timestamp}, signature ${h.signature}, key id ${h.key_id}`),
  ];
}

/** A tree head as JSON, exactly its keys (for `--heads FILE`). */
const headJson = (h) => ({ key_id: h.key_id, log_id: h.log_id, root: h.root, signature: h.signature, size: h.size, timestamp: h.timestamp });

/** Whether a head is trusted: signed by a given key that is not retired. */
function trusted(h, keys, retired, canonical) {
  try {
    checkTreeHead(h, keys, retired, canonical);
    return true;
  } catch (err) {
    if (err instanceof LogError) return false;
    throw err;
  }
}

module.exports = {
  LogError,
  HeadsOutOfOrder,
  leafHash,
  nodeHash,
  rootOf,
  verifyInclusion,
  verifyConsistency,
  treeHeadBody,
  retirementBody,
  checkTreeHead,
  parseRetirement,
  checkRetirementSignatures,
  readLogLine,
  checkLog,
  checkSeals,
  keySet,
  lineSource,
  headProblem,
  inclusionProblem,
  consistencyProblem,
  leafData,
  parseHead,
  readHeads,
  forks,
  headSigned,
  forkLines,
  headJson,
  trusted,
};
