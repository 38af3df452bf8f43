'use strict';
// The server's signed acknowledgement of a seat's commitment or reveal (docs/api.md, "The
// record" → receipts): CommitContribution, RevealContribution and ReadyNextHand replies carry
// the move that recorded the seat's input (`events`) and a receipt signed with the server's
// key over exactly those events. A reply without both, or whose receipt does not check, means
// the input was not taken: the deal waits for it, and the seat must know.
//
// The receipt's hash covers the event bytes as received, so the check reads the reply's raw
// bytes (lib/client.js asks grpc-js for them) rather than re-encoding decoded objects.
const crypto = require('node:crypto');
const { load } = require('./protos');
const { decodeReceipt, sealBody, sealHashes, signer, signedReceipt3, protoFields, VerifyError } = require('./verify');

class NotAcknowledged extends Error {}

/** The protobuf tag + length prefix of a length-delimited field. */
function lengthDelimited(field, bytes) {
  const varint = (n) => {
    const out = [];
    let v = n;
    while (v > 0x7f) {
      out.push((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
    }
    out.push(v);
    return Buffer.from(out);
  };
  return Buffer.concat([varint((field << 3) | 2), varint(bytes.length), Buffer.from(bytes)]);
}

/**
 * What is wrong with the acknowledgement in `raw` (the reply's bytes of `responseType`,
 * e.g. 'CommitContributionResponse'), or '' when it holds: a receipt for `gameId` signed by
 * one of `keys` (verify.publicKey objects) over the events sent, for viewer `seat`, whose
 * events hold `fact` (`seat_committed` / `contribution_revealed`) of that seat, with
 * `commitment` when given. `reply` is the decoded reply (proto-loader objects).
 */
function acknowledgementProblem(responseType, raw, reply, { gameId, seat, fact, commitment = null, keys }) {
  const { root } = load();
  const type = root.lookupType(`tabletop.v1.${responseType}`);
  const eventsField = type.fields.events.id;
  const receiptField = type.fields.receipt.id;
  const fields = protoFields(raw);
  const events = fields.filter(([f, t]) => f === eventsField && t === 2).map(([, , v]) => v);
  const receipts = fields.filter(([f, t]) => f === receiptField && t === 2).map(([, , v]) => v);
  if (!receipts.length) return 'no signed acknowledgement came back';
  if (!events.length) return 'the acknowledgement holds no events';
  const r = decodeReceipt(receipts[receipts.length - 1]);
  if (r.head.length) { // format 3: one signature over the hash of the events sent
    if (r.game_id && r.game_id !== gameId) return `the acknowledgement is for game ${r.game_id}, not ${gameId}`;
    const sent = Buffer.concat(events.map((e) => lengthDelimited(1, e)));
    try {
      signedReceipt3(r, sent, keys, gameId, 'the acknowledgement');
    } catch (err) {
      if (err instanceof VerifyError) return `the acknowledgement does not check (${err.message})`;
      throw err;
    }
    if (seat !== null && seat !== undefined && r.viewer !== seat) return `the acknowledgement is seat ${r.viewer}'s, not seat ${seat}'s`;
    return heldIn(reply, r.viewer, fact, commitment);
  }
  if (r.game_id !== gameId) return `the acknowledgement is for game ${r.game_id}, not ${gameId}`;
  try {
    const body = sealBody(r.game_id, r.first_version, r.last_version, r.head_hash, sealHashes(r));
    signer(body, r.signature, r.key_id, keys, 'the acknowledgement');
  } catch (err) {
    if (err instanceof VerifyError) return `the acknowledgement does not check (${err.message})`;
    throw err;
  }
  if (seat !== null && seat !== undefined && r.viewer !== seat) return `the acknowledgement is seat ${r.viewer}'s, not seat ${seat}'s`;
  // ReceiptPayload {repeated GameEvent events = 1}: the events exactly as they came
  const payload = Buffer.concat(events.map((e) => lengthDelimited(1, e)));
  const hash = crypto.createHash('sha256').update(Buffer.concat([r.nonce, payload])).digest('hex');
  const mine = r.hashes[r.viewer];
  if (!mine || hash !== mine.events) return 'the acknowledgement does not cover the events sent';
  return heldIn(reply, r.viewer, fact, commitment);
}

/** '' when the reply's events hold `fact` of seat `viewer` (with `commitment`, if given). */
function heldIn(reply, viewer, fact, commitment) {
  const held = (reply.events || []).some((e) => {
    const got = e.body === 'table' && e.table && e.table.kind === fact ? e.table[fact] : null;
    return got && got.seat === viewer && (commitment === null || got.commitment === commitment);
  });
  return held ? '' : `the acknowledged events hold no ${fact.replace(/_/g, ' ')} of seat ${viewer}`;
}

/** Throw NotAcknowledged naming `what` when the acknowledgement does not hold. */
function checkAcknowledged(what, responseType, raw, reply, expected) {
  const problem = acknowledgementProblem(responseType, raw, reply, expected);
  if (!problem) return;
  const who = expected.seat === null || expected.seat === undefined ? 'this seat' : `seat ${expected.seat}`;
  throw new NotAcknowledged(
    `${who}'s ${what} was NOT TAKEN: ${problem}; the deal waits for it ` +
    '(send it again, or tell the other players the server is not taking it)',
  );
}

module.exports = { NotAcknowledged, acknowledgementProblem, checkAcknowledged, lengthDelimited };
