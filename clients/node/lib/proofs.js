'use strict';
// Proof of a lying server from a verified record and a viewer's saved receipts, as
// clients/python/equivocation.py `prove` finds it (docs/api.md, "Audit"): `verify
// --receipts` exits 3 with each proof.
//
// Every statement the server signs pins the chain: a seal names the head at its move's last
// version, a receipt's payload carries each event's hash. Two validly signed statements that
// disagree at one version (another head, or another seal for one move) are a Contradiction.
// A server can also tell one seat a lie with the true heads: render for it other events than
// the record's and seal that rendering's hash. The receipt's signed hash covers its payload,
// the record's seal signs the record's facts, and the record re-rendered for that viewer
// (lib/render.js, byte for byte the server's rendering) is not the payload: a RenderingLie
// ("rendering"). So is a seal whose events hash for a viewer is not the record's rendering
// ("seal", without any receipt), and a receipt whose signed hash covers bytes that are not
// a message ("garbage"). A view is re-rendered from the record's facts folded as the server
// folds them (lib/viewrender.js: both games); a game whose fold Node lacks (none today) has
// its views checked by their signed hash only.
const { load } = require('./protos');
const { renderEvents } = require('./render');
const { renderView, viewsPorted } = require('./viewrender');
const { payloadDiffs, differLine } = require('./fielddiff');
const v = require('./verify');

const NONCE_BYTES = 32;
const hex = (b) => Buffer.from(b).toString('hex');
const payloadType = () => load().root.lookupType('tabletop.v1.ReceiptPayload');

/** A signed statement, as its proof line shows it (equivocation.py `Signed.line`). */
const signedLine = (s) => `  ${s.source}: signed bytes ${JSON.stringify(s.body.toString('utf8'))}, signature ${s.signature}, key id ${s.keyId}`;

function decodePayload(payload) {
  try {
    return { message: payloadType().decode(payload), error: '' };
  } catch (err) {
    return { message: null, error: err.message || err.name };
  }
}

/**
 * One receipt read as evidence: signed by a given key (its seal, and its view's own
 * signature if it has one), its payload the one its signed hash covers. A receipt that is
 * not is no evidence of anything (fails, exit 1); one whose signed hash covers bytes that
 * are not a message is kept (`message` null): the server signed it.
 */
function readChecked(entry, n, name, keys, gameId = '') {
  const { receipt: r, payload } = entry;
  const source = `${name} receipt ${n} (versions ${r.first_version}..${r.last_version}, viewer ${r.viewer})`;
  const what = `${name} receipt ${n}: the receipt of versions ${r.first_version}..${r.last_version}`;
  if (r.head.length) { // format 3: its own statement, the hash of what it covers signed
    const { body, kid } = v.signedReceipt3(r, payload, keys, gameId, what);
    if (!r.game_id) r.game_id = gameId;
    const { message, error } = decodePayload(payload);
    const part = message && message.view ? 'view' : 'events';
    const head = hex(r.head);
    const signed = { source, head, body, signature: hex(r.signature), keyId: kid };
    return { source, receipt: r, part, message, error, payload, keyId: kid, signed, sealBody: body, v3: true };
  }
  const pairs = v.sealHashes(r);
  const body = v.sealBody(r.game_id, r.first_version, r.last_version, r.head_hash, pairs);
  const kid = v.signer(body, r.signature, r.key_id, keys, what);
  let signed = { source, head: r.head_hash, body, signature: hex(r.signature), keyId: kid };
  const ownView = r.view_hash !== '' || r.view_signature.length > 0;
  if (!(r.viewer >= 0 && r.viewer < r.hashes.length)) failWith(`${what} names no viewer of its hashes`);
  if (r.nonce.length !== NONCE_BYTES) failWith(`${what} carries no ${NONCE_BYTES}-byte nonce`);
  const expected = { events: r.hashes[r.viewer].events, view: ownView ? r.view_hash : r.hashes[r.viewer].view };
  const digest = v.sha256(Buffer.concat([r.nonce, payload])).toString('hex');
  const { message, error } = decodePayload(payload);
  let part = message && message.view ? 'view' : 'events';
  const other = part === 'view' ? 'events' : 'view';
  if (expected[part] !== digest && expected[other] === digest) part = other;
  if (!expected[part] || digest !== expected[part]) {
    failWith(`${what}: the payload saved with it is not the one it covers (altered?)`);
  }
  if (part === 'view' && ownView) {
    const viewBody = v.viewBody(r.game_id, r.last_version, r.head_hash, r.viewer, r.view_hash);
    const by = v.signer(viewBody, r.view_signature, '', keys, `${what}: its view's signature`);
    signed = { source, head: r.head_hash, body: viewBody, signature: hex(r.view_signature), keyId: by };
  }
  return { source, receipt: r, part, message, error, payload, keyId: kid, signed, sealBody: body };
}

function failWith(message) {
  throw new v.VerifyError(message);
}

/** The record's statements: every version's head, signed through its move's seal. */
function recordStatements(game, exportName) {
  const out = [];
  for (const s of game.seals) {
    const body = v.sealBody(game.gameId, s.first, s.last, s.head, s.receipts);
    for (const r of game.records.slice(s.first - 1, s.last)) {
      out.push({
        gameId: game.gameId, version: r.version, head: r.hash, last: s.last, body, signature: s.signature, keyId: s.signedBy,
        source: `${exportName} version ${r.version} (the seal of versions ${s.first}..${s.last})`,
      });
    }
  }
  return out;
}

/** A receipt's statements: its seal's head at its last version, and each event's hash it carries. */
function receiptStatements(c) {
  const r = c.receipt;
  if (c.v3) { // the head at its last version; not a seal (last 0: no body compared)
    return [{ gameId: r.game_id, version: r.last_version, head: c.signed.head, last: 0, body: c.signed.body,
      signature: c.signed.signature, keyId: c.keyId, source: c.source }];
  }
  const sealed = { gameId: r.game_id, version: r.last_version, head: r.head_hash, last: r.last_version, body: c.sealBody,
    signature: hex(r.signature), keyId: c.keyId, source: c.source };
  const out = [sealed];
  if (!c.message) return out;
  if (c.part === 'view') {
    if (c.message.view) out.push({ ...sealed, version: Number(c.message.view.version), head: c.message.view.head_hash });
  } else {
    for (const e of c.message.events) if (e.hash) out.push({ ...sealed, version: Number(e.version), head: e.hash });
  }
  return out;
}

/**
 * Each pair of statements that disagree (equivocation.py `contradictions`): another head at
 * one version of one game, or (at a move's last version, same head) another signed seal. The
 * first statement of each version is the one the others are held against.
 */
function contradictions(statements) {
  const heads = new Map();
  const seals = new Map();
  const found = new Map();
  for (const s of statements) {
    const key = `${s.gameId}|${s.version}`;
    if (!heads.has(key)) heads.set(key, s);
    const seen = heads.get(key);
    if (seen.head !== s.head && !found.has(key)) found.set(key, [seen, s]);
    if (s.version === s.last) {
      if (!seals.has(key)) seals.set(key, s);
      const sealed = seals.get(key);
      if (!sealed.body.equals(s.body) && !found.has(key)) found.set(key, [sealed, s]);
    }
  }
  return [...found.values()].map(([first, second]) => {
    const what = first.head !== second.head ? 'two different chain heads' : 'two different seals for one move';
    return {
      gameId: first.gameId,
      version: first.version,
      rendering: false,
      lines: [
        `PROOF: the server signed ${what} for game ${first.gameId} at version ${first.version}`,
        ...[first, second].map((s) => `  ${s.source}: head ${s.head}, signature ${s.signature}, key id ${s.keyId}`),
      ],
    };
  });
}

function lie(kind, gameId, first, last, viewer, part, differs, statements) {
  const what = {
    rendering: `${part} for viewer ${viewer} that the record does not show`,
    garbage: `a hash of bytes that are not a message as viewer ${viewer}'s ${part}`,
    seal: `a seal whose ${part} hash for viewer ${viewer} is not the record's rendering`,
  }[kind];
  return {
    gameId,
    version: last,
    rendering: true,
    key: `${gameId}|${last}|${viewer}|${part}`,
    lines: [
      `PROOF: the server signed ${what}, for game ${gameId} at versions ${first}..${last}`,
      ...differs.map((d) => `  differs: ${differLine(d)}`),
      ...statements.map(signedLine),
    ],
  };
}

/**
 * Every proof that the server lied which the verified `game` (verifyGame's result, read
 * from `exportName`) and the receipts `text` (read from `receiptsName`) hold, in version
 * order: [{version, lines}]. Fails (exit 1) if a receipt is not validly signed or its
 * payload is not the one it covers: such a receipt proves nothing.
 */
function prove(game, text, keys, exportName, receiptsName) {
  return proveAll(game, exportName, [{ name: receiptsName, text }], keys);
}

/**
 * `compare`: every proof the files hold (equivocation.py `prove`): a verified `game` (or
 * null: receipts alone) and viewers' saved receipts [{name, text}], each of which must be
 * validly signed. Two statements that disagree, and each lie to one viewer: a receipt's
 * payload that is not the record's rendering (with the record), a receipt's signed garbage
 * (with or without it), a seal whose hash for a viewer is not the record's rendering.
 * Returns {proofs (in game and version order), statements, games, moves}.
 */
function proveAll(game, exportName, receipts, keys) {
  const statements = game ? recordStatements(game, exportName) : [];
  const lies = new Map();
  for (const { name, text } of receipts) {
    const checked = v.readReceiptLines(text).map((entry, i) => readChecked(entry, i + 1, name, keys, game ? game.gameId : ''));
    statements.push(...checked.flatMap(receiptStatements));
    for (const c of checked) {
      const found = game ? receiptLie(game, exportName, c) : garbageLie(c);
      if (found && !lies.has(found.key)) lies.set(found.key, found);
    }
  }
  if (game) sealLies(game, exportName, lies);
  const found = [...contradictions(statements), ...lies.values()];
  const byCode = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  found.sort((a, b) => byCode(a.gameId, b.gameId) || a.version - b.version || Number(a.rendering) - Number(b.rendering));
  const games = [...new Set(statements.map((s) => s.gameId))].sort(byCode);
  const versions = new Set(statements.map((s) => `${s.gameId}|${s.version}`)).size;
  return { proofs: found, statements: statements.length, games, versions, moves: game ? game.seals.length : 0 };
}

const notAMessage = (record, c) => [{ path: 'payload', record, sent: `bytes that are not a message (${c.error})` }];

/** Without the record, only a receipt's signed garbage is a lie on its face. */
function garbageLie(c) {
  if (c.message) return null;
  const r = c.receipt;
  return lie('garbage', r.game_id, r.first_version, r.last_version, r.viewer, c.part, notAMessage('a ReceiptPayload', c), [c.signed]);
}

const sealStatement = (game, exportName, s) => ({
  source: `${exportName}, the seal of versions ${s.first}..${s.last}`,
  head: s.head,
  body: v.sealBody(game.gameId, s.first, s.last, s.head, s.receipts),
  signature: s.signature,
  keyId: s.signedBy,
});

const viewerCount = (game) => game.records[0].fact.data.seat_count + 2;
const nonceOf = (game, last, i) => v.receiptNonce(game.secret, game.salt, last, i);

/** A receipt's payload held against the record re-rendered for its viewer at its move. */
function receiptLie(game, exportName, c) {
  const r = c.receipt;
  const seal = game.seals.find((s) => s.last === r.last_version);
  const about = c.v3 ? !v.receipt3Problem(game, r, c.part) : r.game_id === game.gameId && seal && seal.first === r.first_version &&
    r.head_hash === game.records[r.last_version - 1].hash && r.viewer >= 0 && r.viewer < viewerCount(game) &&
    nonceOf(game, r.last_version, r.viewer).equals(r.nonce);
  let differs = null;
  if (!about) {
    if (!c.message) differs = notAMessage('a ReceiptPayload', c);
  } else if (c.part === 'events') {
    const rendered = renderEvents(game.records, r.first_version, r.last_version, r.viewer, Boolean(c.v3));
    if (!c.message) differs = notAMessage(`a ReceiptPayload of ${rendered.length} bytes`, c);
    else if (!rendered.equals(c.payload)) differs = payloadDiffs(payloadType(), rendered, c.payload);
  } else if (viewsPorted(game.records)) { // a view, re-rendered (viewrender.js)
    const rendered = renderView(game.records, r.last_version, r.viewer, game.gameId);
    if (!c.message) differs = notAMessage(`a ReceiptPayload of ${rendered.length} bytes`, c);
    else if (!rendered.equals(c.payload)) differs = payloadDiffs(payloadType(), rendered, c.payload);
  } else if (!c.message) {
    differs = notAMessage('a ReceiptPayload', c);
  }
  if (!differs) return null;
  const kind = c.message ? 'rendering' : 'garbage';
  const signed = about ? [c.signed, sealStatement(game, exportName, seal)] : [c.signed];
  return lie(kind, r.game_id, r.first_version, r.last_version, r.viewer, c.part, differs, signed);
}

/**
 * Each seal's hashes for each viewer against the record's rendering (a receipt's proof, if
 * any, says more): the events', and the view's in a seal made before views were signed on
 * demand (of a game whose views Node re-renders).
 */
function sealLies(game, exportName, lies) {
  const views = viewsPorted(game.records);
  for (const s of game.seals) {
    if (!Array.isArray(s.receipts)) continue; // a seal of format 3 lists no hashes
    for (let i = 0; i < viewerCount(game); i += 1) {
      const columns = [['events', () => renderEvents(game.records, s.first, s.last, i)]];
      if (views && (s.receipts[i] || []).length > 1) columns.push(['view', () => renderView(game.records, s.last, i, game.gameId)]);
      columns.forEach(([part, render], column) => {
        const got = v.sha256(Buffer.concat([nonceOf(game, s.last, i), render()])).toString('hex');
        const sealed = (s.receipts[i] || [])[column];
        const key = `${game.gameId}|${s.last}|${i}|${part}`;
        if (got === sealed || lies.has(key)) return;
        const differ = { path: `seal.receipts[${i}][${column}]`, record: got, sent: String(sealed) };
        lies.set(key, lie('seal', game.gameId, s.first, s.last, i, part, [differ], [sealStatement(game, exportName, s)]));
      });
    }
  }
}

module.exports = { prove, proveAll, LIED: 3 };
