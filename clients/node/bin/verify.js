#!/usr/bin/env node
'use strict';
// tabletop-verify: verify an exported record on its own, with no Python and no server.
//
//   node bin/verify.js EXPORT (--public-key HEX [--public-key HEX ...] | --keys FILE) [--receipts FILE] [--heads FILE]
//   node bin/verify.js compare --receipts A --receipts B [--file EXPORT] (--public-key HEX | --keys FILE) [--heads FILE]
//
// EXPORT is what `tabletop-audit export GAME_ID` (or `--match MATCH_ID`) or `tabletop export`
// writes once the game has ended. Checks every chain hash, every seal's game, versions,
// head and Ed25519 signature (a seal naming a key_id is checked with that key; one without
// with any given key), every hand's commit–reveal and deals and, for a match, its own chain
// and its links to each hand, the recorded clock (no case timed out before its deadline, no
// report or appeal once the hand's justice budget was spent, no draw abandoned before its
// limit); with --receipts, a viewer's saved receipts against the record
// (docs/api.md, "Audit"), and every seat's signature on the commands recorded in its name
// (docs/api.md, "Seat signatures"): the line names the keyed seats, the UNKEYED ones (whose
// commands stand on the server's word alone) and every RE-KEY. --public-key takes 64 hex
// digits or a file of them (several keys:
// repeat it); --keys FILE takes the server's key set (`tabletop-audit key --json`: the current
// key, the retired ones and each retirement statement, signed by the old and the new key).
// The transparency log (docs/api.md, "Transparency log"; lib/translog.js): an export ending in
// a log line has every tree head's signature (by a key not retired) and every seal's inclusion
// checked, and a seal by a retired key with a statement counts only below the tree size the
// statement names ("signed by retired key K, retired at tree size N"); the line says
// "transparency log: all S seals in log LOG at size N", or "not checked (no log line)".
// With --receipts, each receipt's events are also held against the record re-rendered for
// its viewer (lib/render.js, byte for byte the server's rendering), a view receipt's view
// too (lib/viewrender.js, from the record's facts folded as the server folds them), and each
// seal's hashes against the record's rendering for every viewer: a validly signed
// payload or seal that is not the record's rendering, or two validly signed statements that
// disagree, prove the server lied (lib/proofs.js, as `tabletop-audit verify --receipts`).
// --heads FILE (JSON Lines of tree heads seen before): the log line's trusted heads are held
// against the kept ones (one of the same log and size with another root: a forked log, the
// proof printed, exit 3) and then added. `compare` (lib/compare.js) proves a lying server
// from several viewers' receipts and an export, as `tabletop-audit compare`: two histories
// of a game, a lie to one viewer, or two signed tree heads of one log and size with
// different roots (each receipt's tree head, the export's log line, --heads FILE).
// Exit status 0 = verified (one line on stdout), 1 = not (one line on stderr naming the
// first problem), 2 = usage, 3 = a proof that the server lied (each proof on stdout: the
// game, the versions, the viewer, what differs, both signed statements).
const fs = require('node:fs');
const { publicKey, verifyText, readFileLines, readKeySet, readKeySetFile, logSeals, canonical } = require('../lib/verify');
const { LIED } = require('../lib/proofs');
const { finishRun, failure } = require('../lib/verifyrun');
const compare = require('../lib/compare');
const tl = require('../lib/translog');
const { forkLines } = tl;
const { Server } = require('../lib/target');

const USAGE = 'usage: tabletop-verify EXPORT (--public-key HEX [--public-key HEX ...] | --keys FILE | --target HOST:PORT) [--receipts FILE] [--heads FILE]\n' +
  '       tabletop-verify compare --receipts A --receipts B [--file EXPORT] (--public-key HEX ... | --keys FILE | --target HOST:PORT) [--heads FILE]';

function parseArgs(argv) {
  const out = { file: null, keys: [], keySet: null, receipts: null, heads: null, target: null, help: false };
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
    else if (flag === '--public-key') out.keys.push(next());
    else if (flag === '--receipts') out.receipts = next();
    else if (flag === '--keys') out.keySet = next();
    else if (flag === '--heads') out.heads = next();
    else if (flag === '--target') out.target = next();
    else if (flag.startsWith('-')) throw new Error(`unknown option ${flag}`);
    else if (out.file === null) out.file = a;
    else throw new Error(`one EXPORT file, not ${a}`);
  }
  return out;
}

/** A --public-key value: 64 hex digits, or a file holding one or more (one a line). */
function keyTexts(value) {
  if (/^\s*[0-9a-fA-F]{64}\s*$/.test(value)) return [value];
  const text = fs.readFileSync(value, 'utf8');
  return text.split(/\s+/).filter(Boolean);
}

/**
 * The keys to verify with: every --public-key, and with --keys FILE the server's key set
 * (its retired keys and their retirement statements: the retired-key rule applies).
 */
function keysOf(args) {
  const keys = args.keys.flatMap(keyTexts).map(publicKey);
  if (!args.keySet) return { keys, statements: [], retired: [], treeHeads: [] };
  const set = readKeySetFile(args.keySet);
  keys.push(...set.keys.filter((k) => !keys.some((x) => x.id === k.id)));
  const treeHeads = set.treeHeads.map((h, i) => [`${args.keySet} tree head ${i + 1}`, h]); // for compare
  return { keys, statements: set.statements, retired: set.retired, treeHeads };
}

function main(argv) {
  if (argv[0] === 'compare') return compare.main(argv.slice(1), keysOf);
  let args;
  try {
    args = parseArgs(argv);
  } catch (err) {
    console.error(`tabletop-verify: ${err.message}\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  if (!args.file || !(args.keys.length || args.keySet || args.target)) {
    console.error(USAGE);
    return 2;
  }
  if (args.target && !(args.keys.length || args.keySet)) return fromServer(args); // a promise
  let ks;
  try {
    ks = keysOf(args);
    const result = verifyText(readFileLines(args.file), ks.keys, ks.statements, { retired: ks.retired });
    if (args.heads) { // a trusted head that contradicts a kept one proves a forked log
      const forked = compare.checkKeptHeads(args.heads, result.logLine, ks.keys, ks.retired);
      if (forked.length) return showForks(forked);
    }
    return finish(args, ks.keys, result);
  } catch (err) {
    return forkedOrFailed(err, args.file, ks && ks.keys);
  }
}

/**
 * A log line whose heads are not one a log in order (translog.js HeadsOutOfOrder): two
 * validly signed heads of one log and size with different roots prove a forked log (exit 3,
 * as audit.py `_fork_or_refuse`); anything else fails.
 */
function forkedOrFailed(err, file, keys) {
  if (err instanceof tl.HeadsOutOfOrder && keys) {
    const forks = tl.forks(err.heads.map((h) => [`${file} log line`, h]), keys, canonical);
    if (forks.length) return showForks(forks);
  }
  return failed(err);
}

function failed(err) {
  console.error(failure(err).err.join('\n'));
  return 1;
}

function showForks(forks) {
  console.log(forks.map((f) => forkLines(f).join('\n')).join('\n'));
  return LIED;
}

/** The verified record's receipts (--receipts) and its line. */
function finish(args, keys, result) {
  const receipts = args.receipts ? fs.readFileSync(args.receipts, 'utf8') : null;
  const known = args.heads ? compare.readHeadsFile(args.heads) : [];
  const run = finishRun(result, keys, receipts, args.file, args.receipts, known);
  if (run.out.length) console.log(run.out.join('\n'));
  if (run.err.length) console.error(run.err.join('\n'));
  return run.status;
}

/** The records whose seals the log holds: [kind, id] (a match's own, then each hand's). */
const recordsOf = (r) => (r.match ? [['match', r.matchId], ...r.hands.map((g) => ['game', g.gameId])] : [['game', r.gameId]]);

/**
 * `--target` with no key given: the server's key set (its retirements checked), the seals
 * the log line does not prove proven by the server, and with --heads each trusted head held
 * against the kept ones, a kept head of another size by the server's consistency proof
 * (audit.py `_check_log`).
 */
async function fromServer(args) {
  const server = new Server(args.target);
  let ks;
  try {
    ks = readKeySet(JSON.stringify(await server.keySet()), "the server's key set");
    const { retired } = ks;
    const result = verifyText(readFileLines(args.file), ks.keys, ks.statements, { checkLogLine: false });
    const keyset = tl.keySet(ks.keys, ks.statements, retired);
    const seals = logSeals(result);
    const sources = result.logLine ? [tl.lineSource(result.logLine)] : [];
    if (!sources.length || !provesAll(seals, sources[0], keyset)) sources.push(await server.proofs(recordsOf(result)));
    result.log = tl.checkSeals(seals, sources, keyset, canonical);
    if (args.heads) {
      const trusted = sources.flatMap((s) => s.heads).filter((h) => !tl.headProblem(h, keyset, canonical));
      const { forks, seen } = compare.heldAgainstKept(args.heads, trusted, ks.keys);
      if (forks.length) return showForks(forks);
      for (const h of trusted) await server.checkConsistent(seen, h);
      compare.keepHeads(args.heads, trusted);
    }
    return finish(args, ks.keys, result);
  } catch (err) {
    return forkedOrFailed(err, args.file, ks && ks.keys);
  } finally {
    server.close();
  }
}

function provesAll(seals, source, keyset) {
  try {
    tl.checkSeals(seals, [source], keyset, canonical);
    return true;
  } catch (err) {
    if (err instanceof tl.LogError) return false;
    throw err;
  }
}

// Run as a program; required (tests/vectors/node-batch.js), `main` verifies one file per call.
// With --target and no key given it returns a promise of the status.
if (require.main === module) Promise.resolve(main(process.argv.slice(2))).then((code) => { process.exitCode = code; });
module.exports = { main };
