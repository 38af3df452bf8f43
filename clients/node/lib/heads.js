'use strict';
// The tree heads a run sees besides the server's (issue 36): the export's log line's and
// the ones a viewer's saved receipts carry, each as [source, head]; and the check that every
// head the receipts carry is signed by a given key and none forks another head of its log and
// size. Shared by the command line (bin/verify.js, lib/compare.js) and the browser's verifier
// (lib/verifyrun.js), so it requires nothing of Node's.
const v = require('./verify');
const tl = require('./translog');
const { LIED } = require('./proofs');

/** The export's log line's heads, as [source, head] ("EXPORT log line"). */
function logLineHeads(logLine, exportName) {
  if (!logLine) return [];
  const { heads } = tl.readLogLine(logLine);
  return heads.map((h, i) => [`${exportName} log line`, tl.parseHead(h, `${exportName} log line's tree head ${i + 1}`)]);
}

/** The tree heads a viewer's saved receipts carry ("NAME receipt N"). */
function receiptHeads(name, text) {
  return v.readReceiptLines(text).flatMap((e, i) => (e.receipt.tree_head ? [[`${name} receipt ${i + 1}`, e.receipt.tree_head]] : []));
}

/**
 * The receipts' tree heads checked (audit.py `_receipt_heads`): each signed by a given key,
 * retired or not (else VerifyError: exit 1), and none a fork of another head of its log and
 * size among them, the export's log line and `known` (--heads FILE). Their number, or a run
 * proving the fork (status 3).
 */
function checkReceiptHeads(keys, result, text, receiptsName, exportName, known = []) {
  const carried = receiptHeads(receiptsName, text);
  for (const [source, h] of carried) {
    if (!tl.headSigned(h, keys, v.canonical)) {
      throw new v.VerifyError(`${source}: its tree head of log ${h.log_id} is not signed by a given key`);
    }
  }
  const seen = [...logLineHeads(result.logLine, exportName || `game ${result.gameId}`), ...known, ...carried];
  const forks = tl.forks(seen, keys, v.canonical);
  if (!forks.length) return carried.length;
  return { status: LIED, out: forks.map((f) => tl.forkLines(f).join('\n')).join('\n').split('\n'), err: [] };
}

module.exports = { logLineHeads, receiptHeads, checkReceiptHeads };
