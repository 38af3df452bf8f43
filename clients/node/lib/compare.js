'use strict';
// `tabletop-verify compare` and `--heads FILE`: the tree heads an auditor holds against each
// other (docs/api.md, "Transparency log", "The auditor"), as clients/python/audit.py and
// audit_log.py do, word for word.
//
// Two validly signed tree heads of one log and size with different roots prove the server
// forked its log (exit 3): nobody else holds the key. `compare` holds every head in its
// files (each receipt's `tree_head`, the export's log line, `--heads FILE`) against the
// others, beside the proofs of lib/proofs.js (two histories of a game, a lie to one viewer).
// `verify --heads FILE` holds the heads it trusts against the kept ones and then keeps them.
const fs = require('node:fs');
const v = require('./verify');
const tl = require('./translog');
const { proveAll } = require('./proofs');
const { Server } = require('./target');
const { logLineHeads, receiptHeads } = require('./heads');

/** `--heads FILE`'s heads as [source, head] (a missing file holds none). */
function readHeadsFile(path) {
  let text;
  try {
    text = fs.readFileSync(path, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') return [];
    throw new v.VerifyError(`cannot read the tree heads ${path}: ${err.code}`);
  }
  return tl.readHeads(text, path, v.parseStrict);
}

/** Add to `path` the heads not yet in it, one canonical JSON line each. */
function keepHeads(path, heads) {
  const known = new Set(readHeadsFile(path).map(([, h]) => v.canonical(tl.headJson(h))));
  const fresh = [];
  for (const h of heads) {
    const line = v.canonical(tl.headJson(h));
    if (!known.has(line)) fresh.push(line);
    known.add(line);
  }
  if (fresh.length) fs.appendFileSync(path, fresh.map((l) => `${l}\n`).join(''));
}

/** The log line's heads this verifier trusts: signed by a given key that is not retired. */
function trustedLineHeads(logLine, keys, retired) {
  return logLine ? tl.readLogLine(logLine).heads.filter((h) => tl.trusted(h, keys, new Set(retired), v.canonical)) : [];
}

/**
 * `verify --heads FILE` once the record verified: the `trusted` heads held against the kept
 * ones. Returns {forks (a proof each: exit 3), seen (the kept heads, [source, head])}.
 */
function heldAgainstKept(path, trusted, keys) {
  const seen = readHeadsFile(path);
  return { forks: tl.forks([...seen, ...trusted.map((h) => ['this record', h])], keys, v.canonical), seen };
}

/**
 * `verify --heads FILE` offline: the log line's trusted heads against the kept ones; with no
 * fork, they are kept. (A kept head of another size needs a consistency proof from the
 * server: offline it is not checked, as in Python without the server.) Returns the forks.
 */
function checkKeptHeads(path, logLine, keys, retired) {
  const trusted = trustedLineHeads(logLine, keys, retired);
  const { forks } = heldAgainstKept(path, trusted, keys);
  if (!forks.length) keepHeads(path, trusted);
  return forks;
}

const USAGE = 'usage: tabletop-verify compare --receipts A --receipts B [--file EXPORT] (--public-key HEX ... | --keys FILE | --target HOST:PORT) [--heads FILE]';

function parseArgs(argv) {
  const out = { receipts: [], file: null, keys: [], keySet: null, heads: null, target: null, help: false };
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i];
    const [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, null];
    const next = () => {
      if (inline !== null) return inline;
      i += 1;
      if (i >= argv.length) throw new Error(`${flag} needs a value`);
      return argv[i];
    };
    if (flag === '-h' || flag === '--help') out.help = true;
    else if (flag === '--receipts') out.receipts.push(next());
    else if (flag === '--file') out.file = next();
    else if (flag === '--public-key') out.keys.push(next());
    else if (flag === '--keys') out.keySet = next();
    else if (flag === '--heads') out.heads = next();
    else if (flag === '--target') out.target = next();
    else throw new Error(`unknown argument ${a}`);
  }
  return out;
}

/**
 * Every proof the files hold: the lies (lib/proofs.js `proveAll`), then the forks of the
 * log among the heads of --heads FILE, of the key set (--keys FILE: its `tree_heads`, "KEYS
 * tree head N"; Python's compare has no --keys), the export's log line and the receipts. Returns {proofs: [lines], agreed: the line saying they agree (no proof)}.
 */
function compareFiles({ receipts, file, heads }, keys, keySetHeads = []) {
  let game = null;
  let seen = [...(heads ? readHeadsFile(heads) : []), ...keySetHeads];
  if (file) { // the record must verify (its log line's heads are compared, not its proofs)
    try {
      game = v.verifyText(v.readFileLines(file), keys, [], { checkLogLine: false });
    } catch (err) { // a log line with two heads of one log: a fork among them is a proof
      const line = err instanceof tl.HeadsOutOfOrder ? err.heads.map((h) => [`${file} log line`, h]) : [];
      if (!tl.forks(line, keys, v.canonical).length) throw err;
      seen = [...seen, ...line];
    }
    if (game && game.match) throw new v.VerifyError(`${file}: compare checks one game's export, not a match`);
    if (game) seen = [...seen, ...logLineHeads(game.logLine, file)];
  }
  const read = receipts.map((name) => ({ name, text: fs.readFileSync(name, 'utf8') }));
  for (const { name, text } of read) seen = [...seen, ...receiptHeads(name, text)];
  const proven = proveAll(game, file || '', read, keys);
  const proofs = [...proven.proofs.map((p) => p.lines), ...tl.forks(seen, keys, v.canonical).map(tl.forkLines)];
  const rendered = file ? ', and every payload and seal is the record\'s rendering' : '';
  const agreed = `agree: ${receipts.length + (file ? 1 : 0)} files, ${proven.statements} signed statements about ` +
    `${proven.games.length} game(s) at ${proven.versions} versions; no two disagree${rendered}`;
  return { proofs, agreed };
}

/** `compare`'s exit status: 0 the files agree, 1 one does not verify, 2 usage, 3 a proof. */
function main(argv, keysOf) {
  let args;
  try {
    args = parseArgs(argv);
  } catch (err) {
    console.error(`tabletop-verify compare: ${err.message}\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  if ((args.receipts.length < 2 && !args.file) || !(args.keys.length || args.keySet || args.target)) {
    console.error(`${USAGE}\ngive at least two files (--receipts FILE, repeated, and --file), or --file alone`);
    return 2;
  }
  if (args.target && !(args.keys.length || args.keySet)) return withServerKeys(args); // a promise
  try {
    const ks = keysOf(args);
    return shown(compareFiles(args, ks.keys, ks.treeHeads));
  } catch (err) {
    return failed(err);
  }
}

/** The keys the server at --target publishes (current and retired), as audit.py's compare asks. */
async function withServerKeys(args) {
  const server = new Server(args.target);
  try {
    const keys = v.readKeySet(JSON.stringify(await server.keySet()), "the server's key set").keys;
    return shown(compareFiles(args, keys));
  } catch (err) {
    return failed(err);
  } finally {
    server.close();
  }
}

function shown({ proofs, agreed }) {
  console.log(proofs.length ? proofs.map((lines) => lines.join('\n')).join('\n') : agreed);
  return proofs.length ? 3 : 0;
}

function failed(err) {
  const reason = err.code && err.path ? `cannot read ${err.path}: ${err.code}` : err.message;
  console.error(`VERIFY FAILED: ${String(reason).split('\n').join(' ')}`);
  return 1;
}

module.exports = { main, compareFiles, checkKeptHeads, heldAgainstKept, readHeadsFile, keepHeads, receiptHeads, logLineHeads };
