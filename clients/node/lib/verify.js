'use strict';
// A second, independent verifier of exported records (docs/api.md, "Audit" → "The record"),
// written from the published scheme with node:crypto (and protobufjs, to decode the seats'
// signed requests: lib/seatsigs.js): no Python, no server code.
//
//   verifyText(text, keys)            a game's export or a whole match's
//   checkReceipts(game, text, keys)   a viewer's saved receipts against a verified game
//
// It checks the hash chain of every line, each seal (its game, versions, head, viewers and
// Ed25519 signature), every hand's commit–reveal and deals (lib/deal.js) and, for a match,
// the match's own chain and its links to each hand, and the recorded clock against the
// table's deadlines (lib/clocks.js: case timeouts, the justice budget, abandoned draws).
// What it cannot do without the game rules: re-decide each command (`tabletop-audit
// verify` replays them through the engine) and re-render each viewer's payload. Every problem is thrown as a VerifyError whose
// message is one line.
const crypto = require('./crypto');
const deal = require('./deal');
const { checkClocks } = require('./clocks');
const { checkLog, parseRetirement, checkRetirementSignatures, parseHead, readLogLine, LogError, HeadsOutOfOrder } = require('./translog');

// The seats' signatures need the contract's protobuf code (node_modules): loaded on first use.
const seatSignatures = (...args) => require('./seatsigs').checkSeatSignatures(...args);

class VerifyError extends Error {}
const fail = (message) => {
  throw new VerifyError(message);
};

const sha256 = (bytes) => crypto.createHash('sha256').update(bytes).digest();
const hmac = (key, text) => crypto.createHmac('sha256', key).update(Buffer.from(text, 'utf8')).digest();
const HEX64 = /^[0-9a-f]{64}$/;

// --- reading: strict JSON -------------------------------------------------------------

const LIMITS = { lineBytes: 1 << 20, lines: 100000, depth: 48, digits: 20 };

/**
 * JSON.parse, stricter: integers only (at most 20 digits; beyond 2^53 kept as BigInt so the
 * canonical text is exact), no key repeated in an object, nesting at most 48 levels.
 */
function parseStrict(text) {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i += 1;
  };
  const bad = (what) => fail(`${what} at character ${i}`);
  const value = (depth) => {
    if (depth > LIMITS.depth) bad(`JSON nested deeper than ${LIMITS.depth} levels`);
    ws();
    const c = text[i];
    if (c === '{') {
      i += 1;
      const out = Object.create(null);
      ws();
      if (text[i] === '}') {
        i += 1;
        return out;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') bad('expected a key');
        const key = string();
        if (Object.prototype.hasOwnProperty.call(out, key)) bad(`the key "${key}" is repeated`);
        ws();
        if (text[i] !== ':') bad('expected ":"');
        i += 1;
        out[key] = value(depth + 1);
        ws();
        if (text[i] === ',') {
          i += 1;
        } else if (text[i] === '}') {
          i += 1;
          return out;
        } else bad('expected "," or "}"');
      }
    }
    if (c === '[') {
      i += 1;
      const out = [];
      ws();
      if (text[i] === ']') {
        i += 1;
        return out;
      }
      for (;;) {
        out.push(value(depth + 1));
        ws();
        if (text[i] === ',') {
          i += 1;
        } else if (text[i] === ']') {
          i += 1;
          return out;
        } else bad('expected "," or "]"');
      }
    }
    if (c === '"') return string();
    for (const [word, v] of [['true', true], ['false', false], ['null', null]]) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    const m = /^-?(0|[1-9][0-9]*)([.eE])?/.exec(text.slice(i, i + 64));
    if (!m) bad('not JSON');
    if (m[2]) bad('a number that is not an integer');
    const digits = m[0].replace('-', '');
    if (digits.length > LIMITS.digits) bad(`an integer of more than ${LIMITS.digits} digits`);
    i += m[0].length;
    const n = Number(m[0]);
    return Number.isSafeInteger(n) ? (Object.is(n, -0) ? 0 : n) : BigInt(m[0]);
  };
  const string = () => {
    const start = i;
    i += 1;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) bad('an unterminated string');
    i += 1;
    return JSON.parse(text.slice(start, i));
  };
  let out;
  try {
    out = value(0);
  } catch (err) {
    if (err instanceof VerifyError) throw err;
    fail(`not JSON (${err.message})`);
  }
  ws();
  if (i !== text.length) bad('text after the JSON value');
  return out;
}

// --- canonical JSON (docs/api.md "The record": sorted keys, no spaces, UTF-8) -----------

const byCodePoint = (a, b) => {
  const x = [...a];
  const y = [...b];
  for (let k = 0; k < Math.min(x.length, y.length); k += 1) {
    const d = x[k].codePointAt(0) - y[k].codePointAt(0);
    if (d) return d;
  }
  return x.length - y.length;
};

/** The canonical text: keys sorted by code point, no spaces, non-ASCII as is. */
function canonical(v) {
  if (v === null) return 'null';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) fail('a number that is not an integer');
    return String(v);
  }
  if (typeof v === 'string' || typeof v === 'boolean') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  const keys = Object.keys(v).sort(byCodePoint);
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
}

// --- keys ------------------------------------------------------------------------------

const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');

/** A public key given as 64 hex digits: {id, raw, key}. */
function publicKey(hex) {
  const text = String(hex).trim().toLowerCase();
  if (!HEX64.test(text)) fail(`a public key is 64 hex digits (got "${String(hex).slice(0, 80)}")`);
  const raw = Buffer.from(text, 'hex');
  return {
    id: keyId(raw),
    raw,
    key: crypto.createPublicKey({ key: Buffer.concat([SPKI_ED25519, raw]), format: 'der', type: 'spki' }),
  };
}

/** A key's id: the first 16 hex digits of SHA-256 of the raw 32-byte public key. */
function keyId(raw) {
  return sha256(raw).toString('hex').slice(0, 16);
}

/**
 * The bytes a seal's signature covers. `receipts` holds each viewer's [events] hash
 * ("tabletop-seal/2"), or [events, view] in a seal made before views were signed on
 * demand ("tabletop-seal/1"): the shape picks the prefix.
 */
function sealBody(gameId, first, last, head, receipts) {
  if (receipts === undefined || receipts === null) { // format 3: the head alone
    return Buffer.from('tabletop-seal/3\n' + canonical({ first, game_id: gameId, head, last }), 'utf8');
  }
  const version = receipts.length && receipts.every((r) => Array.isArray(r) && r.length === 1) ? 2 : 1;
  return Buffer.from(`tabletop-seal/${version}\n` + canonical({ first, game_id: gameId, head, last, receipts }), 'utf8');
}

/**
 * The bytes of one viewer's receipt of format 3 ("tabletop-receipt/3"): the game, the
 * versions, the head at the last (hex), the SHA-256 (hex) of the ReceiptPayload the viewer
 * was sent, and the viewer's index.
 */
function receiptBody(gameId, first, last, head, viewer, payloadHash) {
  return Buffer.from('tabletop-receipt/3\n' + canonical({ first, game_id: gameId, head, last, payload: payloadHash, viewer }), 'utf8');
}

/** The bytes a view's own signature covers (a GetView receipt's `view_signature`). */
function viewBody(gameId, version, head, viewer, view) {
  return Buffer.from('tabletop-view/1\n' + canonical({ game_id: gameId, head, version, view, viewer }), 'utf8');
}

/** A receipt's hashes as its seal lists them: [events] each, or [events, view] (old seals). */
function sealHashes(r) {
  return r.hashes.every((h) => !h.view) ? r.hashes.map((h) => [h.events]) : r.hashes.map((h) => [h.events, h.view]);
}

/**
 * Which given key signed `body`: the one named by `keyIdText` if given (failing with that
 * id if none is given), else any that verifies. Returns its id, or fails with `what`.
 */
function signer(body, signature, keyIdText, keys, what) {
  let candidates = keys;
  if (keyIdText !== undefined && keyIdText !== null && keyIdText !== '') {
    if (typeof keyIdText !== 'string') fail(`${what} has a key_id that is not text`);
    candidates = keys.filter((k) => k.id === keyIdText);
    if (!candidates.length) fail(`${what} names key ${keyIdText}, which is none of the given keys`);
  }
  for (const k of candidates) {
    if (signature.length === 64 && crypto.verify(null, body, k.key, signature)) return k.id;
  }
  return fail(`${what} is not signed by ${candidates.length === 1 ? `key ${candidates[0].id}` : 'any given key'}`);
}

// --- one game --------------------------------------------------------------------------

const isInt = (v) => Number.isSafeInteger(v);
const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The chain key of a game: SHA-256("tabletop-chain|" + secret + "|" + salt). */
function chainKey(secret, salt) {
  return sha256(Buffer.from(`tabletop-chain|${secret}|${salt}`, 'utf8'));
}

function chainHash(key, prev, version, fact, cause, recordedAt) {
  return hmac(key, `${prev}|${version}|${canonical(fact)}|${canonical(cause)}|${recordedAt}`).toString('hex');
}

const GAME_LINE = ['cause', 'fact', 'hash', 'recorded_at', 'seal', 'version'];
const SEAL_KEYS = ['first', 'game_id', 'head', 'last', 'receipts', 'signature'];
const SEAL_KEYS_HEAD = SEAL_KEYS.filter((k) => k !== 'receipts'); // tabletop-seal/3
const TIME = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})\.[0-9]{6}Z$/;

/** Whether YYYY-MM-DDTHH:MM:SS names a real instant (month 1-12, the month's days, ...). */
function realTime(y, mo, d, h, mi, sec) {
  const t = new Date(Date.UTC(y, mo - 1, d, h, mi, sec));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d &&
    t.getUTCHours() === h && t.getUTCMinutes() === mi && t.getUTCSeconds() === sec && y >= 1;
}

/**
 * A stored event's line as the export grammar reads it (docs/api.md, "The export grammar"):
 * exactly its keys, version n (its place), a {type, data} fact, a null or object cause with
 * an action, a 64-hex hash, a seal of exactly its keys (key_id optional), a "Z" time.
 */
function recordGrammar(r, n, where) {
  const line = `${where}line ${n}`;
  if (!isObj(r) || Object.keys(r).sort().join() !== GAME_LINE.join()) {
    fail(`${line} is not a stored event {${GAME_LINE.join(', ')}}`);
  }
  if (r.version !== n) fail(`${line} has version ${r.version}: versions must run 1..N in line order`);
  if (!isObj(r.fact) || Object.keys(r.fact).sort().join() !== 'data,type' || typeof r.fact.type !== 'string' || !isObj(r.fact.data)) {
    fail(`${line}: fact is not a {type, data} object`);
  }
  if (r.cause !== null && !(isObj(r.cause) && typeof r.cause.action === 'string')) {
    fail(`${line}: cause is neither null nor an object with an action`);
  }
  if (typeof r.hash !== 'string' || !HEX64.test(r.hash)) fail(`${line}: hash is not 64 lowercase hex digits`);
  if (r.seal !== null) {
    const keys = isObj(r.seal) ? Object.keys(r.seal).filter((k) => k !== 'key_id').sort().join() : '';
    if (keys !== SEAL_KEYS.join() && keys !== SEAL_KEYS_HEAD.join()) fail(`${line}: seal is neither null nor a seal {${SEAL_KEYS.join(', ')}[, key_id]}`);
  }
  const m = typeof r.recorded_at === 'string' && TIME.exec(r.recorded_at);
  if (!m || !realTime(...m.slice(1, 7).map(Number))) fail(`${line}: recorded_at is not a timestamp like 2026-01-31T23:59:59.000000Z`);
}

/**
 * Verify one game's records ({cause, fact, hash, recorded_at, seal, version} each).
 * `gameId`: the id the caller expects (a match names its hands), or null. Returns a summary.
 */
function verifyGame(records, keys, gameId = null, where = '') {
  const at = (n) => `${where}version ${n}`;
  if (!records.length) fail(`${where}no events`);
  records.forEach((r, i) => recordGrammar(r, i + 1, where));
  const created = records[0].fact;
  if (created.type !== 'GameCreated') fail(`${where}the first fact is ${created.type}, not GameCreated`);
  const revealed = records.filter((r) => r.fact.type === 'ShuffleRevealed').map((r) => r.fact.data);
  if (!revealed.length) fail(`${where}the secret was never revealed: the game has not ended`);
  const { secret, salt } = revealed[revealed.length - 1];
  if (typeof secret !== 'string' || typeof salt !== 'string') fail(`${where}the revealed secret or salt is not text`);
  const prepared = created.data.prepared_deck || [];
  if (!Array.isArray(prepared) || deal.commitment(secret, salt, prepared) !== created.data.commitment) {
    fail(`${where}the revealed secret and salt do not match the commitment`);
  }

  // 2. the chain
  const key = chainKey(secret, salt);
  let prev = '';
  for (const r of records) {
    if (chainHash(key, prev, r.version, r.fact, r.cause, r.recorded_at) !== r.hash) {
      fail(`${at(r.version)}: the chain hash does not match (the record was altered)`);
    }
    prev = r.hash;
  }

  // 3. the seals: every move ends in one, and only there
  const viewers = created.data.seat_count + 2;
  if (!isInt(created.data.seat_count) || created.data.seat_count < 1) fail(`${where}GameCreated has no seat count`);
  let sealedId = gameId;
  let first = 1;
  const signers = new Set();
  const seals = [];
  for (const r of records) {
    const s = r.seal;
    if (s === null) continue;
    const what = `${where}the seal of versions ${first}..${r.version}`;
    if (!isObj(s)) fail(`${at(r.version)}'s seal is not an object`);
    if (s.first !== first || s.last !== r.version) {
      fail(`${at(r.version)}'s seal covers ${s.first}..${s.last}, not the move ${first}..${r.version}`);
    }
    if (typeof s.game_id !== 'string' || !s.game_id) fail(`${what} names no game`);
    if (sealedId === null) sealedId = s.game_id;
    if (s.game_id !== sealedId) fail(`${what} names game ${s.game_id}, not ${sealedId}`);
    if (s.head !== r.hash) fail(`${what} names head ${String(s.head).slice(0, 16)}…, not the chain's`);
    const headOnly = !Object.prototype.hasOwnProperty.call(s, 'receipts'); // tabletop-seal/3
    if (!headOnly && (!Array.isArray(s.receipts) || s.receipts.length !== viewers)) {
      fail(`${what} does not list the hashes of all ${viewers} viewers`);
    }
    const width = !headOnly && Array.isArray(s.receipts[0]) ? s.receipts[0].length : 0; // 1: events; 2: events, view (old seals)
    for (const hashes of headOnly ? [] : s.receipts) {
      if (!Array.isArray(hashes) || (width !== 1 && width !== 2) || hashes.length !== width ||
          !hashes.every((h) => typeof h === 'string' && HEX64.test(h))) {
        fail(`${what} has a viewer's hashes that are not ${width === 2 ? 'two SHA-256 digests' : 'one SHA-256 digest'} as the others`);
      }
    }
    if (typeof s.signature !== 'string' || !/^[0-9a-f]{128}$/.test(s.signature)) fail(`${what} has no signature`);
    const body = sealBody(s.game_id, s.first, s.last, s.head, s.receipts);
    const kid = signer(body, Buffer.from(s.signature, 'hex'), s.key_id, keys, what);
    signers.add(kid);
    seals.push({ ...s, signedBy: kid });
    first = r.version + 1;
  }
  if (first !== records.length + 1) fail(`${where}versions ${first}..${records.length} end in no seal`);

  // 4. the seats' own signatures on the commands recorded in their names
  const seatKeys = seatSignatures(records, sealedId, fail, where);

  // 4b. a table the lobby formed: each reserved seat taken by its own player's login only
  checkReservations(records, created.data, where);

  // 5. the deal: commit–reveal, the table key, every deck and seed
  let dealt;
  try {
    dealt = deal.checkRecords(records);
  } catch (err) {
    fail(`${where}${err.message}`);
  }

  // 6. the recorded clock: no case timed out, report filed or draw abandoned out of time
  checkClocks(records, fail, where);

  // 7. a match's hand closes, after its end, with what its match decided follows it
  const closed = handClosed(records, created.data, where);
  return {
    gameId: sealedId,
    kind: created.data.kind,
    hand: created.data.hand,
    matchId: created.data.match_id,
    matchSettings: [created.data.match_hands, created.data.match_target_score, created.data.match_advance],
    closed,
    events: records.length,
    moves: seals.length,
    head: records[records.length - 1].hash,
    secret,
    salt,
    seals,
    signers,
    records,
    dealt,
    seatKeys,
  };
}

/**
 * GameCreated.reserved_players (issue 40, decider.take_seat): a seat the lobby reserved is
 * taken by that player's login only, and a reserved player takes no other seat.
 */
function checkReservations(records, created, where) {
  const reserved = created.reserved_players;
  if (reserved === undefined) return;
  if (!Array.isArray(reserved) || !reserved.every((p) => typeof p === 'string') ||
      (reserved.length && reserved.length !== created.seat_count)) {
    fail(`${where}GameCreated's reserved_players is not one player id (or "") per seat`);
  }
  const rule = 'SEAT_RESERVED [seat reservations]';
  for (const r of records) {
    if (r.fact.type !== 'SeatTaken') continue;
    const seat = r.fact.data.seat;
    const player = r.fact.data.player || '';
    const keptFor = reserved[seat] || '';
    if (keptFor && player !== keptFor) {
      fail(`${where}version ${r.version}: ${rule}: seat ${seat} is reserved for the player the lobby seated there: only that player's login takes it`);
    }
    if (player && !keptFor && reserved.includes(player)) {
      fail(`${where}version ${r.version}: ${rule}: the lobby seated this player at seat ${reserved.indexOf(player)}, not seat ${seat}`);
    }
  }
}

/**
 * A match's hand's HandClosed (issue 36): at most one, the server's move ("close", no
 * seat), the hand's last fact, after the game's end (its secret revealed), naming the
 * hand's own match and number, and either the last hand (no next game) or the next hand's
 * game. Null for a hand recorded before issue 36 (a match refuses it) and for a single game
 * (which takes none).
 */
function handClosed(records, created, where) {
  const at = records.findIndex((r) => r.fact.type === 'HandClosed' || (r.cause && r.cause.action === 'close'));
  if (at < 0) return null;
  const r = records[at];
  const d = r.fact.data;
  const what = `${where}version ${r.version}`;
  if (r.fact.type !== 'HandClosed' || !r.cause || r.cause.action !== 'close' || (r.cause.seat !== null && r.cause.seat !== undefined)) {
    fail(`${what}: a HandClosed is the server's own move ("close"), alone`);
  }
  if (!created.match_id) fail(`${what}: a HandClosed in a game that is no match's hand`);
  if (at !== records.length - 1) fail(`${what}: the hand's HandClosed is not its last fact: version ${r.version + 1} comes after it`);
  if (!records.slice(0, at).some((x) => x.fact.type === 'ShuffleRevealed')) fail(`${what}: the hand is closed before its end`);
  if (d.match_id !== created.match_id || d.hand !== created.hand) fail(`${what}: HandClosed names another match or hand than its GameCreated`);
  if (typeof d.last !== 'boolean' || typeof d.next_game_id !== 'string' || d.last === (d.next_game_id !== '')) {
    fail(`${what}: HandClosed names neither the last hand nor the next hand's game alone`);
  }
  return { last: d.last, nextGameId: d.next_game_id };
}

/** A match's hand in one clause, as its own signed stream says what follows it. */
function handWords(game) {
  if (!game.matchId) return '';
  if (!game.closed) return `hand ${game.hand} of match ${game.matchId} (NOT closed: recorded before issue 36, its stream does not say whether it is the last)`;
  const follows = game.closed.last ? 'the last' : `hand ${game.hand + 1} follows: ${game.closed.nextGameId}`;
  return `hand ${game.hand} of match ${game.matchId} (${follows})`;
}

// --- a match ---------------------------------------------------------------------------

const MATCH_LINE = ['fact', 'hash', 'match', 'seal', 'version'];
const UNSEALED_MATCH_LINE = ['fact', 'hash', 'match', 'version']; // exported before issue 36
const MATCH_SEAL_KEYS = ['first', 'head', 'last', 'match_id', 'signature'];
const UNSEALED = 'an unsealed match record (made before issue 36): its length is not proven';

/** The bytes a match seal's signature covers ("tabletop-match-seal/1"). */
function matchSealBody(matchId, first, last, head) {
  return Buffer.from('tabletop-match-seal/1\n' + canonical({ first, head, last, match_id: matchId }), 'utf8');
}

/** The match chain's key: SHA-256("tabletop-match-chain|" + match id + "|" + secret). */
function matchChainKey(matchId, secret) {
  return sha256(Buffer.from(`tabletop-match-chain|${matchId}|${secret}`, 'utf8'));
}
const HAND_LINE = [...GAME_LINE, 'game_id', 'hand'].sort();

function verifyMatch(lines, keys) {
  const matchId = lines[0].match;
  if (typeof matchId !== 'string' || !matchId) fail('line 1 names no match');
  const facts = [];
  const hands = new Map(); // game id -> {hand, records}
  let last = null; // the game of the line before
  lines.forEach((l, i) => {
    const n = i + 1;
    if ('match' in l) {
      const lineKeys = Object.keys(l).sort().join();
      if (lineKeys !== MATCH_LINE.join() && lineKeys !== UNSEALED_MATCH_LINE.join()) fail(`line ${n} is not a match fact {${MATCH_LINE.join(', ')}}`);
      if (hands.size) fail(`line ${n}: a match fact after the hands' events`);
      if (l.match !== matchId) fail(`line ${n} names another match than line 1`);
      facts.push(l);
    } else if ('hand' in l || 'game_id' in l) {
      if (Object.keys(l).sort().join() !== HAND_LINE.join()) fail(`line ${n} is not a hand's event {hand, game_id, ...stored event}`);
      const { hand, game_id: gid, ...record } = l;
      if (typeof gid !== 'string' || !isInt(hand) || hand < 1) fail(`line ${n} names no game and hand number`);
      if (gid !== last) {
        if (hands.has(gid) || (last !== null && hand <= hands.get(last).hand)) fail(`line ${n}: hand ${hand}'s lines are not together, in hand order`);
        hands.set(gid, { hand, records: [] });
        last = gid;
      }
      const h = hands.get(gid);
      if (h.hand !== hand) fail(`line ${n}: game ${gid} is hand ${h.hand} and ${hand}`);
      h.records.push(record);
      recordGrammar(record, h.records.length, `hand ${hand}: `);
    } else fail(`line ${n} is neither a match fact nor a hand's event`);
  });

  // the match's own chain: HMAC keyed by SHA-256("tabletop-match-chain|" + match id + "|" +
  // secret), the secret revealed in MatchEnded (the last fact), with no cause (null) and no
  // time (""); its seals tile its versions, each signed by a given key
  facts.forEach((f, i) => {
    if (f.version !== i + 1) fail(`match fact ${i + 1} has version ${f.version}: versions must run 1..N`);
  });
  if (facts.every((f) => f.seal === undefined || f.seal === null)) fail(UNSEALED);
  const end = facts[facts.length - 1].fact;
  if (!isObj(end) || end.type !== 'MatchEnded') {
    fail('the match record stops before its MatchEnded: a match in progress (or cut short) proves no standing and no winner');
  }
  if (!isObj(end.data) || typeof end.data.secret !== 'string' || !HEX64.test(end.data.secret)) {
    fail('MatchEnded reveals no chain secret (64 hex digits)');
  }
  const key = matchChainKey(matchId, end.data.secret);
  let prev = '';
  facts.forEach((f) => {
    if (!isObj(f.fact) || typeof f.fact.type !== 'string' || !isObj(f.fact.data)) fail(`match version ${f.version} has no fact`);
    if (chainHash(key, prev, f.version, f.fact, null, '') !== f.hash) {
      fail(`match version ${f.version}: the chain hash does not match (the match record was altered)`);
    }
    prev = f.hash;
  });
  const signers = new Set();
  const matchSeals = [];
  let first = 1;
  for (const f of facts) {
    const s = f.seal;
    if (s === null || s === undefined) continue;
    const what = `the match seal of versions ${first}..${f.version}`;
    if (!isObj(s) || Object.keys(s).filter((k) => k !== 'key_id').sort().join() !== MATCH_SEAL_KEYS.join()) {
      fail(`match version ${f.version} carries something that is not a seal`);
    }
    if (s.match_id !== matchId) fail(`${what} names match ${String(s.match_id).slice(0, 40)}, not this one`);
    if (s.first !== first || s.last !== f.version) {
      fail(`${what} covers versions ${String(s.first).slice(0, 20)}..${String(s.last).slice(0, 20)}: the match's facts were cut, added or moved`);
    }
    if (s.head !== f.hash) fail(`${what} signs another chain head than the record's: the match record was rewritten after the server signed it`);
    if (typeof s.signature !== 'string' || !/^[0-9a-f]{128}$/.test(s.signature)) fail(`${what} has no 64-byte signature`);
    const body = matchSealBody(matchId, first, f.version, f.hash);
    const kid = signer(body, Buffer.from(s.signature, 'hex'), s.key_id, keys, what);
    signers.add(kid);
    matchSeals.push({ id: matchId, first, last: f.version, body, keyId: s.key_id || '', signedBy: kid });
    first = f.version + 1;
  }
  if (first !== facts.length + 1) fail(`the match's facts from version ${first} on are not sealed: they were added or the match's end was cut`);
  if (!facts.length || facts[0].fact.type !== 'MatchCreated') fail('the match record does not open with MatchCreated');
  if (facts[0].fact.data.match_id !== matchId) fail('MatchCreated names another match');
  if (facts[0].fact.data.secret !== '') fail("MatchCreated shows the match's secret: it is blanked in the record");
  const created = facts[0].fact.data;
  const settings = [created.hands, created.target_score, created.advance];

  // every hand the match opened is in the export, verified on its own, linked both ways
  const opened = facts.filter((f) => f.fact.type === 'HandOpened').map((f) => f.fact.data);
  const ended = new Map(facts.filter((f) => f.fact.type === 'HandEnded').map((f) => [f.fact.data.game_id, f.fact.data]));
  for (const [gid] of hands) {
    if (!opened.some((o) => o.game_id === gid)) fail(`the export holds game ${gid}, which the match never opened`);
  }
  const verified = [];
  opened.forEach((o, i) => {
    const where = `hand ${o.hand} (game ${o.game_id}): `;
    if (o.hand !== i + 1) fail(`the match opened hand ${o.hand} as its hand ${i + 1}`);
    const h = hands.get(o.game_id);
    if (!h) fail(`${where}its events are not in the export`);
    if (h.hand !== o.hand) fail(`${where}the export calls it hand ${h.hand}`);
    const game = verifyGame(h.records, keys, o.game_id, where);
    if (game.matchId !== matchId || game.hand !== o.hand) {
      fail(`${where}its GameCreated names match ${game.matchId} hand ${game.hand}, not this one`);
    }
    if (game.matchSettings.join() !== settings.join()) {
      fail(`${where}names other match settings (hands, target score, advance ${JSON.stringify(game.matchSettings).slice(0, 60)}), not this match's`);
    }
    const end = ended.get(o.game_id);
    if (!end) fail(`${where}the match never recorded its end`);
    if (end.head_hash !== game.head) fail(`${where}HandEnded names head ${String(end.head_hash).slice(0, 16)}…, not the hand's last event`);
    if (end.hand !== o.hand) fail(`${where}HandEnded calls it hand ${end.hand}`);
    if (!game.closed) fail(`${where}does not close with HandClosed: a match recorded before issue 36, whose hands do not say which is the last`);
    const next = opened[i + 1];
    if (!next && !game.closed.last) {
      fail(`the match record ends at hand ${o.hand} (${o.game_id}), whose own signed stream says hand ${o.hand + 1} follows (${game.closed.nextGameId.slice(0, 40)}): the match was cut short`);
    }
    if (next && game.closed.last) fail(`${where}says it is the last, yet the match record goes on after it`);
    game.signers.forEach((s) => signers.add(s));
    if (verified.length) carriedKeys(verified[verified.length - 1], game, where);
    verified.push(game);
  });
  if (!opened.length) fail('the match opened no hand');
  // each hand's statement names the next hand the match opened (once every hand verified:
  // a hand that is not this match's is named as such first)
  verified.forEach((game, i) => {
    const next = opened[i + 1];
    if (next && game.closed.nextGameId !== next.game_id) {
      fail(`hand ${game.hand} (game ${game.gameId}): names ${game.closed.nextGameId.slice(0, 40)} as the next hand, not ${next.game_id}`);
    }
  });
  if (ended.size !== opened.length) fail('the match records the end of a hand it never opened');
  const incomplete = matchIncomplete(facts, verified);
  const standing = matchStandings(created, facts);
  return { match: true, matchId, facts: facts.length, hands: verified, signers, incomplete, matchSeals, ...standing };
}

/**
 * The standings recomputed from the hands' ends (HandEnded, whose head each hand's own record
 * proves): each seat's total of its hands' scores (a FORFEIT costs the forfeited seat one
 * point in the game's direction), hands won, ranks (by total, then hands won; level seats
 * share a rank); the match ends right after the hand its length says (or a void hand), and
 * MatchEnded names exactly these standings and the seats ranked first (none if incomplete).
 */
function matchStandings(created, facts) {
  const n = created.seat_count;
  const lower = created.lower_score_wins === true;
  const totals = new Array(n).fill(0);
  const wins = new Array(n).fill(0);
  let played = 0;
  let over = false;
  let ranks = new Array(n).fill(1);
  for (const f of facts.slice(1)) {
    const d = f.fact.data;
    if (over && f.fact.type !== 'MatchEnded') fail(`match version ${f.version}: the match goes on after its length said it ended`);
    if (f.fact.type !== 'HandEnded') continue;
    played += 1;
    const scores = Array.isArray(d.scores) ? d.scores : [];
    if (scores.length && scores.length !== n) fail(`match version ${f.version}: HandEnded has not one score per seat`);
    const gained = scores.length ? scores.map((x) => (d.reason === 'FORFEIT' && lower ? -x : x)) : new Array(n).fill(0);
    gained.forEach((g, seat) => {
      if (!isInt(g)) fail(`match version ${f.version}: a score that is not an integer`);
      totals[seat] += g;
      if ((d.winners || []).includes(seat)) wins[seat] += 1;
    });
    const key = (seat) => [lower ? totals[seat] : -totals[seat], -wins[seat]];
    const less = (a, b) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
    ranks = totals.map((_, seat) => 1 + totals.filter((__, o) => less(key(o), key(seat))).length);
    over = !scores.length || (created.hands > 0 && played >= created.hands) ||
      (created.target_score > 0 && totals.some((t) => t >= created.target_score)) || played >= 64;
  }
  const end = facts[facts.length - 1].fact.data;
  if (!over) fail('the match ended before its length said it would');
  const standings = totals.map((total, seat) => ({ seat, total, wins: wins[seat], rank: ranks[seat] }));
  if (canonical(end.standings) !== canonical(standings)) fail('MatchEnded names standings that do not follow from the hands');
  const winners = end.incomplete ? [] : standings.filter((x) => x.rank === 1).map((x) => x.seat);
  if (canonical(end.winners) !== canonical(winners)) fail('MatchEnded names winners that do not follow from the standings');
  return { standings, winners };
}

/**
 * A later hand seats the match's players itself (its joins are the server's, unsigned): each
 * must sit down with the key it ended the hand before with.
 */
function carriedKeys(before, hand, where) {
  hand.seatKeys.forEach((s, i) => {
    const was = before.seatKeys[i];
    if (was && s.joinKey !== was.key) {
      fail(`${where}seat ${i} sits down with key ${s.joinKey.slice(0, 16) || '(none)'}…, not the key ${was.key.slice(0, 16) || '(none)'}… it ended hand ${before.hand} with`);
    }
  });
}

/**
 * An incomplete match: its last hand's draw was abandoned (the hand void), and the match
 * ended there, naming the seats that draw waited for, with no winner. Null for a match
 * that ended as it should; a void hand that did not end the match, or an incomplete end
 * without a void hand, fails.
 */
function matchIncomplete(facts, hands) {
  const end = facts.filter((f) => f.fact.type === 'MatchEnded').map((f) => f.fact.data)[0];
  if (!end) fail('the match has not ended');
  hands.forEach((g, i) => {
    if (g.dealt.void && i !== hands.length - 1) fail(`hand ${i + 1} is void, yet the match went on`);
  });
  const last = hands[hands.length - 1];
  if (!end.incomplete) {
    if (last.dealt.void) fail(`hand ${hands.length} is void, yet the match did not end incomplete`);
    return null;
  }
  if (!last.dealt.void) fail('the match ended incomplete, yet its last hand was dealt');
  const waiting = end.waiting_for || [];
  if (waiting.join() !== last.dealt.void.waitingFor.join()) {
    fail(`the match names seat(s) ${waiting.join(', ')} as missing; the void hand waited for ${last.dealt.void.waitingFor.join(', ')}`);
  }
  if ((end.winners || []).length) fail('an incomplete match names winners');
  return { waitingFor: waiting };
}

// --- an export -------------------------------------------------------------------------

/**
 * A file's lines, read in chunks so that no more than 1 MiB of any line is held: a longer
 * line fails at once (as do more than 100,000 lines), and so do bytes that are not UTF-8.
 */
function readFileLines(file) {
  const fs = require('node:fs');
  const fd = fs.openSync(file, 'r');
  const lines = [];
  try {
    const chunk = Buffer.alloc(1 << 16);
    let parts = [];
    let size = 0;
    const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    const end = () => {
      try {
        lines.push(decoder.decode(Buffer.concat(parts)));
      } catch {
        fail(`line ${lines.length + 1} is not a valid export line (not UTF-8)`);
      }
      if (lines.length > LIMITS.lines + 1) fail(`more than ${LIMITS.lines} lines`);
      parts = [];
      size = 0;
    };
    for (;;) {
      const got = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (!got) break;
      let start = 0;
      for (let nl = chunk.indexOf(10, 0); nl !== -1 && nl < got; nl = chunk.indexOf(10, start)) {
        size += nl - start;
        if (size > LIMITS.lineBytes) fail(`line ${lines.length + 1} is longer than 1 MiB`);
        parts.push(Buffer.from(chunk.subarray(start, nl)));
        end();
        start = nl + 1;
      }
      size += got - start;
      if (size > LIMITS.lineBytes) fail(`line ${lines.length + 1} is longer than 1 MiB`);
      parts.push(Buffer.from(chunk.subarray(start, got)));
    }
    if (size) end();
  } finally {
    fs.closeSync(fd);
  }
  return lines;
}

/** Each parsed line's number in its file (blank lines are skipped, but counted). */
const LINE_NUMBER = new WeakMap();

/** An export's lines (text, or an array of line texts) parsed, bounded as the docs say. */
function readLines(text) {
  const lines = [];
  let n = 0;
  for (const line of Array.isArray(text) ? text : text.split('\n')) {
    n += 1;
    if (/^[ \t\r\n]*$/.test(line)) continue; // JSON's whitespace only (RFC 8259)
    if (n > LIMITS.lines) fail(`more than ${LIMITS.lines} lines`);
    if (Buffer.byteLength(line, 'utf8') > LIMITS.lineBytes) fail(`line ${n} is longer than 1 MiB`);
    let v;
    try {
      v = parseStrict(line);
    } catch (err) {
      fail(`line ${n} is not a valid export line (not valid JSON: ${err.message})`);
    }
    if (!isObj(v)) fail(`line ${n} is not a JSON object`);
    LINE_NUMBER.set(v, n);
    lines.push(v);
  }
  if (!lines.length) fail('empty history: the file holds no events');
  return lines;
}

/**
 * `tabletop export` lines ({"event": GameEvent as JSON}, then {"view": ...}) as records:
 * a finished game's GameEvent carries its stored form in `stored_json`.
 */
const EVENT_KEYS = ['hash', 'recorded_at', 'stored_json', 'version'];
const EVENT_OPTIONAL_KEYS = ['huaniao', 'table', 'text', 'zipai'];

function fromEventLines(lines) {
  const out = [];
  let viewed = false;
  for (const [i, l] of lines.entries()) {
    const n = i + 1;
    if (!('event' in l) && !('view' in l)) fail(`line ${n} is in another export form than line 1: one form a file`);
    if (viewed) fail(`line ${n} follows the view line, which ends a \`tabletop export\``);
    if (Object.keys(l).length !== 1) fail(`line ${n} holds more than its event or its view`);
    if ('view' in l) {
      if (!isObj(l.view)) fail(`line ${n}: \`view\` is not an object`);
      viewed = true;
      continue;
    }
    const e = l.event;
    if (!isObj(e)) fail(`line ${n}: \`event\` is not an object`);
    const extra = Object.keys(e).filter((k) => !EVENT_KEYS.includes(k) && !EVENT_OPTIONAL_KEYS.includes(k));
    if (extra.length) fail(`line ${n}: the event holds keys a GameEvent has not (${extra.sort().join(', ').slice(0, 80)})`);
    if (typeof e.stored_json !== 'string' || !e.stored_json) {
      fail('an event of this export has no stored form: export it once the game has ended (tabletop-audit export GAME_ID)');
    }
    const stored = parseStrict(e.stored_json);
    if (!isObj(stored) || Object.keys(stored).sort().join() !== 'cause,fact,seal') fail('a stored_json that is not a stored event');
    if (typeof e.version !== 'string' || !/^[0-9]{1,20}$/.test(e.version)) fail(`line ${n}: the event's version is not a number of ASCII digits`);
    out.push({
      cause: stored.cause,
      fact: stored.fact,
      hash: e.hash,
      recorded_at: chainedTime(e.recorded_at, n),
      seal: stored.seal,
      version: Number(e.version),
    });
  }
  return out;
}

/** A protobuf JSON timestamp (UTC, 0–9 decimals) in the chained form: six decimals. */
function chainedTime(value, n) {
  const m = typeof value === 'string' && /^(([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2}))(?:\.([0-9]{1,9}))?Z$/.exec(value);
  if (!m || !realTime(...m.slice(2, 8).map(Number))) fail(`line ${n}: recorded_at is not a timestamp like 2026-01-31T23:59:59.000000Z`);
  return `${m[1]}.${(m[8] || '').padEnd(9, '0').slice(0, 6)}Z`;
}

/**
 * Verify an export (its text, or its lines): a game's (either form) or a whole match's, and
 * its seals against the transparency log (lib/translog.js: the file's log line, if any, and
 * `statements`, the key retirements the caller trusts). The result's `log`: the verify
 * line's words about the log.
 */
function verifyText(text, keys, statements = [], { checkLogLine = true, retired = [] } = {}) {
  if (!keys.length) fail('give the server\'s public key (--public-key)');
  const { lines, log } = splitLogLine(readLines(text));
  let result;
  if ('match' in lines[0]) {
    result = verifyMatch(lines, keys);
  } else {
    const events = 'event' in lines[0] || 'view' in lines[0];
    if (!events) lines.forEach((l, i) => ('event' in l || 'view' in l) && fail(`line ${i + 1} is in another export form than line 1: one form a file`));
    result = verifyGame(events ? fromEventLines(lines) : lines, keys);
  }
  result.logLine = log; // `compare` and `--heads` read its heads
  if (!checkLogLine) return result;
  try {
    result.log = checkLog(logSeals(result), log, keys, statements, canonical, retired);
  } catch (err) {
    if (err instanceof LogError) fail(err.message);
    throw err;
  }
  return result;
}

/**
 * The export's lines and its log line (`{"log": ...}`, last, after the record; or null), the
 * log line read by its grammar (translog.js `readLogLine`), as audit.py reads a file: a log
 * line first, in a `tabletop export`, or followed by any line is refused.
 */
function splitLogLine(lines) {
  const at = lines.findIndex((l) => 'log' in l);
  if (at === -1) return { lines, log: null };
  const n = LINE_NUMBER.get(lines[at]) || at + 1;
  if (at === 0) fail(`line ${n}: the log line ends the file, after the record`);
  if (!('match' in lines[0]) && ('event' in lines[0] || 'view' in lines[0])) {
    fail(`line ${n}: a \`tabletop export\` (event and view lines) has no log line`);
  }
  if (at !== lines.length - 1) fail(`line ${LINE_NUMBER.get(lines[at + 1]) || at + 2} follows the log line, which ends an export`);
  try {
    readLogLine(lines[at], `line ${n}`);
  } catch (err) {
    if (err instanceof LogError && !(err instanceof HeadsOutOfOrder)) fail(err.message);
    throw err; // HeadsOutOfOrder: perhaps a proof of a forked log (bin/verify.js)
  }
  return { lines: lines.slice(0, -1), log: lines[at] };
}

/** A verified record's seals in the file's order (a match's own, then each hand's), as leaves. */
function logSeals(result) {
  const game = (g) => g.seals.map((s) => ({
    id: g.gameId, first: s.first, last: s.last, body: sealBody(s.game_id, s.first, s.last, s.head, s.receipts), keyId: s.key_id || '', signedBy: s.signedBy,
  }));
  return result.match ? [...result.matchSeals, ...result.hands.flatMap(game)] : game(result);
}

// --- receipts --------------------------------------------------------------------------

/** A minimal protobuf wire reader: [field number, wire type, value] for each field. */
function protoFields(buf) {
  const out = [];
  let i = 0;
  const varint = () => {
    let v = 0n;
    let shift = 0n;
    for (;;) {
      if (i >= buf.length || shift > 63n) fail('a receipt that is not a protobuf message');
      const b = buf[i];
      i += 1;
      v |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
      shift += 7n;
    }
  };
  while (i < buf.length) {
    const tag = Number(varint());
    const field = tag >>> 3;
    const type = tag & 7;
    if (type === 0) out.push([field, type, varint()]);
    else if (type === 2) {
      const len = Number(varint());
      if (i + len > buf.length) fail('a receipt that is not a protobuf message');
      out.push([field, type, buf.subarray(i, i + len)]);
      i += len;
    } else if (type === 1 || type === 5) {
      i += type === 1 ? 8 : 4;
      if (i > buf.length) fail('a receipt that is not a protobuf message');
    } else fail('a receipt that is not a protobuf message');
  }
  return out;
}

/** tabletop.v1.Receipt from its protobuf bytes. */
function decodeReceipt(buf) {
  const r = { game_id: '', first_version: 0, last_version: 0, head_hash: '', viewer: 0, nonce: Buffer.alloc(0), hashes: [], signature: Buffer.alloc(0), key_id: '', view_hash: '', view_signature: Buffer.alloc(0), head: Buffer.alloc(0) };
  const text = (v) => Buffer.from(v).toString('utf8');
  for (const [f, type, v] of protoFields(buf)) {
    if (f === 1 && type === 2) r.game_id = text(v);
    else if (f === 2 && type === 0) r.first_version = Number(BigInt.asIntN(64, v));
    else if (f === 3 && type === 0) r.last_version = Number(BigInt.asIntN(64, v));
    else if (f === 4 && type === 2) r.head_hash = text(v);
    else if (f === 5 && type === 0) r.viewer = Number(BigInt.asIntN(32, v));
    else if (f === 6 && type === 2) r.nonce = Buffer.from(v);
    else if (f === 7 && type === 2) {
      const h = { events: '', view: '' };
      for (const [g, t, w] of protoFields(v)) {
        if (g === 1 && t === 2) h.events = text(w);
        else if (g === 2 && t === 2) h.view = text(w);
      }
      r.hashes.push(h);
    } else if (f === 8 && type === 2) r.signature = Buffer.from(v);
    else if (f === 9 && type === 2) r.key_id = text(v);
    else if (f === 10 && type === 2) r.view_hash = text(v);
    else if (f === 11 && type === 2) r.view_signature = Buffer.from(v);
    else if (f === 12 && type === 2) r.tree_head = decodeTreeHead(v);
    else if (f === 13 && type === 2) r.head = Buffer.from(v);
  }
  return r;
}

/** A TreeHead message as the JSON of a tree head (docs/api.md, "Signed tree heads"). */
function decodeTreeHead(buf) {
  const h = { key_id: '', log_id: '', root: '', signature: '', size: 0, timestamp: 0 };
  for (const [f, type, v] of protoFields(buf)) {
    if (f === 1 && type === 2) h.log_id = Buffer.from(v).toString('utf8');
    else if (f === 2 && type === 0) h.size = Number(BigInt.asIntN(64, v));
    else if (f === 3 && type === 2) h.root = Buffer.from(v).toString('hex');
    else if (f === 4 && type === 0) h.timestamp = Number(BigInt.asIntN(64, v));
    else if (f === 5 && type === 2) h.key_id = Buffer.from(v).toString('utf8');
    else if (f === 6 && type === 2) h.signature = Buffer.from(v).toString('hex');
  }
  return h;
}

/** The receipt nonce of viewer `index` for the move ending at version `last`. */
function receiptNonce(secret, salt, last, index) {
  return hmac(sha256(Buffer.from(`tabletop-receipt|${secret}|${salt}`, 'utf8')), `${last}|${index}`);
}

const B64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A receipts file's lines, each {where, receipt, payload}: JSON Lines {"payload", "receipt"} (base64). */
function readReceiptLines(text) {
  const out = [];
  let n = 0;
  for (const line of text.split('\n')) {
    n += 1;
    if (/^[ \t\r\n]*$/.test(line)) continue; // JSON's whitespace only (RFC 8259)
    const where = `receipts line ${n}`;
    let entry;
    try {
      entry = parseStrict(line);
    } catch (err) {
      fail(`${where} is not a saved receipt (${err.message})`);
    }
    if (!isObj(entry) || typeof entry.receipt !== 'string' || typeof entry.payload !== 'string' ||
        !B64.test(entry.receipt) || !B64.test(entry.payload)) {
      fail(`${where} is not a saved receipt`);
    }
    out.push({ where, receipt: decodeReceipt(Buffer.from(entry.receipt, 'base64')), payload: Buffer.from(entry.payload, 'base64') });
  }
  return out;
}

/**
 * A viewer's saved receipts (JSON Lines {"payload": base64, "receipt": base64}) against a
 * verified game: each is signed, names this game, one of its moves (versions, head, every
 * viewer's hashes exactly as the record's seal), carries its viewer's nonce, and its payload
 * hashes to that viewer's hash. (Which failures prove a lying server, lib/proofs.js says:
 * bin/verify.js asks it first.)
 */
function checkReceipts(game, text, keys) {
  const byLast = new Map(game.seals.map((s) => [s.last, s]));
  const viewers = new Set();
  let count = 0;
  let views = 0; // receipts of a view: re-rendered (viewrender.js), or checked by their signed hash only
  let rendered = 0; // of those, re-rendered
  const { renderView, viewsPorted } = require('./viewrender');
  const ported = viewsPorted(game.records);
  const sameView = (r, payload, what) => { // a view of a ported game: exactly the record's
    if (!ported) return;
    if (!renderView(game.records, r.last_version, r.viewer, game.gameId).equals(payload)) {
      fail(`${what}: the view it covers is not what the record shows viewer ${r.viewer} at version ${r.last_version}`);
    }
    rendered += 1;
  };
  for (const { where, receipt: r, payload } of readReceiptLines(text)) {
    const what = `the receipt of versions ${r.first_version}..${r.last_version} (${where})`;
    if (r.head.length) { // format 3: its own signature over the hash of what it covers
      const part = checkReceipt3(game, r, payload, keys, what);
      viewers.add(r.viewer);
      count += 1;
      if (part === 'view') {
        views += 1;
        sameView(r, payload, what);
      }
      continue;
    }
    const pairs = sealHashes(r);
    const body = sealBody(r.game_id, r.first_version, r.last_version, r.head_hash, pairs);
    signer(body, r.signature, r.key_id, keys, what);
    const ownView = r.view_hash !== '' || r.view_signature.length > 0; // a view signed on its own
    if (ownView) {
      const view = viewBody(r.game_id, r.last_version, r.head_hash, r.viewer, r.view_hash);
      signer(view, r.view_signature, '', keys, `${what}: its view's signature`); // the key of when it was asked for
    }
    if (r.game_id !== game.gameId) fail(`${what} is for game ${r.game_id}, not ${game.gameId}`);
    const seal = byLast.get(r.last_version);
    if (!seal || seal.first !== r.first_version) fail(`${what} names a move the record does not have`);
    if (seal.head !== r.head_hash || canonical(seal.receipts) !== canonical(pairs)) {
      fail(`${what} was signed for another history than the record's (head or hashes differ)`);
    }
    if (!(r.viewer >= 0 && r.viewer < pairs.length)) fail(`${what} names no viewer of its hashes`);
    if (!receiptNonce(game.secret, game.salt, r.last_version, r.viewer).equals(r.nonce)) {
      fail(`${what} does not carry viewer ${r.viewer}'s nonce`);
    }
    // ReceiptPayload: field 1 the events, field 2 the view
    const part = protoFields(payload).some(([f]) => f === 2) ? 'view' : 'events';
    const hash = sha256(Buffer.concat([r.nonce, payload])).toString('hex');
    const expected = part === 'events' ? r.hashes[r.viewer].events : ownView ? r.view_hash : r.hashes[r.viewer].view;
    if (!expected || hash !== expected) {
      fail(`${what}: its saved payload is not the ${part} the receipt covers for viewer ${r.viewer}`);
    }
    viewers.add(r.viewer);
    count += 1;
    if (part === 'view') {
      views += 1;
      sameView(r, payload, what);
    }
  }
  if (!count) fail('the receipts file holds no receipts');
  return { receipts: count, views, rendered, viewers: [...viewers].sort((a, b) => a - b) };
}

/**
 * Whether receipt `r` of format 3 (and a game id, if given: a saved receipt names its own)
 * is signed by one of `keys` over `payload`; the key id that did.
 */
function signedReceipt3(r, payload, keys, gameId, what) {
  if (r.head.length !== 32 || r.signature.length !== 64) fail(`${what} has no 32-byte head or no 64-byte signature`);
  if (!(r.first_version >= 1 && r.first_version <= r.last_version && r.viewer >= 0)) fail(`${what} names no versions or no viewer`);
  const game = r.game_id || gameId;
  if (!game) fail(`${what} names no game, and none was given`);
  const body = receiptBody(game, r.first_version, r.last_version, r.head.toString('hex'), r.viewer, sha256(payload).toString('hex'));
  return { body, kid: signer(body, r.signature, r.key_id, keys, what) };
}

/**
 * Why a receipt of format 3 is not about the verified `game` ('' when it is): its game,
 * versions that end at the end of a move of the record (a view: at one), the record's head
 * at its last version, one of the game's viewers.
 */
function receipt3Problem(game, r, part) {
  const first = r.first_version;
  const last = r.last_version;
  if ((r.game_id || game.gameId) !== game.gameId) return `is for game ${r.game_id}, not ${game.gameId}`;
  const ends = game.seals.find((s) => s.last === last);
  if (part === 'view') {
    if (first !== last || !ends) return 'is not of a view at the end of a move of the record';
  } else if (!ends || !(first >= 1 && first <= last)) {
    return 'does not end at the end of a move of the record';
  }
  if (r.head.toString('hex') !== game.records[last - 1].hash) {
    return 'was signed for another history than the record: the server signed two different versions of this game';
  }
  if (!(r.viewer >= 0 && r.viewer < game.records[0].fact.data.seat_count + 2)) return 'names no viewer of the game';
  return '';
}

function checkReceipt3(game, r, payload, keys, what) {
  signedReceipt3(r, payload, keys, game.gameId, what);
  const part = protoFields(payload).some(([f]) => f === 2) ? 'view' : 'events';
  const problem = receipt3Problem(game, r, part);
  if (problem) fail(`${what} ${problem}`);
  if (part === 'events') {
    const { renderEvents } = require('./render');
    if (!renderEvents(game.records, r.first_version, r.last_version, r.viewer, true).equals(payload)) {
      fail(`${what}: the events it covers are not what the record shows viewer ${r.viewer} at version ${r.last_version}`);
    }
  }
  return part;
}

/**
 * A key set file (`tabletop-audit key --json`): exactly {key_id, public_key, retired,
 * retirements, tree_heads}. Returns {keys, statements}: every key (current and retired),
 * and each retirement statement, checked (signed by the retired key and its successor).
 */
function readKeySet(text, where = 'the key set') {
  let set;
  try {
    set = parseStrict(text);
  } catch (err) {
    fail(`${where} is not JSON (${err.message})`);
  }
  return parseKeySet(set, where);
}

const KEY_SET_KEYS = ['key_id', 'public_key', 'retired', 'retirements', 'tree_heads'];

/**
 * The key set's grammar (docs/api.md, "The export grammar": the key set), in the order logaudit.py
 * `parse_key_set` checks it, the first problem the one refusal: exactly its five keys;
 * three lists; each key (the current one first, then the retired ones) exactly {key_id,
 * public_key}, 64 lowercase hex digits named by their id, no key twice; each retirement
 * exactly its keys and of the right form, retiring one of the retired keys for another key
 * of the set, one a key, signed by the retired key and then by its successor; each tree
 * head by the log line's grammar. Returns {keys (current first), statements, retired (ids),
 * treeHeads}.
 */
function parseKeySet(set, where) {
  const tryLog = (f) => {
    try {
      return f();
    } catch (err) {
      if (err instanceof LogError) fail(err.message);
      throw err;
    }
  };
  if (!isObj(set) || Object.keys(set).sort().join() !== KEY_SET_KEYS.join()) fail(`${where} is not {${KEY_SET_KEYS.join(', ')}}`);
  if (!['retired', 'retirements', 'tree_heads'].every((k) => Array.isArray(set[k]))) fail(`${where}'s retired, retirements and tree_heads are not lists`);
  const keys = [];
  [{ key_id: set.key_id, public_key: set.public_key }, ...set.retired].forEach((k, n) => {
    const i = n + 1;
    if (!isObj(k) || Object.keys(k).sort().join() !== 'key_id,public_key') fail(`${where}'s key ${i} is not {key_id, public_key}`);
    if (typeof k.public_key !== 'string' || !HEX64.test(k.public_key)) fail(`${where}'s key ${i} has a public key that is not 64 lowercase hex digits`);
    const key = publicKey(k.public_key);
    if (k.key_id !== key.id) fail(`${where}'s key ${i} has a key_id other than its public key's id ${key.id}`);
    if (keys.some((x) => x.id === key.id)) fail(`${where} names key ${key.id} twice`);
    keys.push(key);
  });
  const retired = keys.slice(1).map((k) => k.id);
  const statements = [];
  set.retirements.forEach((r, n) => {
    const at = `${where}'s retirement ${n + 1}`;
    const s = tryLog(() => parseRetirement(r, at));
    if (!retired.includes(s.retired)) fail(`${at} retires key ${s.retired}, which is not one of the retired keys`);
    if (s.successor === s.retired) fail(`${at} names key ${s.retired} its own successor`);
    if (!keys.some((k) => k.id === s.successor)) fail(`${at} names successor key ${s.successor}, which is not in the set`);
    if (statements.some((x) => x.retired === s.retired)) fail(`${where} has two retirements of key ${s.retired}`);
    tryLog(() => checkRetirementSignatures(s, keys, canonical, at));
    statements.push(s);
  });
  const treeHeads = set.tree_heads.map((h, n) => tryLog(() => parseHead(h, `${where}'s tree head ${n + 1}`)));
  return { keys, statements, retired, treeHeads };
}

/** `--keys FILE`: the key set file's bytes, UTF-8 (never replaced), by the key set's grammar. */
function readKeySetFile(file) {
  const fs = require('node:fs');
  let raw;
  try {
    raw = fs.readFileSync(file);
  } catch (err) {
    fail(`cannot read the key set ${file}: ${err.code || err.message}`);
  }
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(raw);
  } catch {
    fail('the key set is not UTF-8');
  }
  return readKeySet(text);
}

module.exports = {
  VerifyError,
  readKeySet,
  readKeySetFile,
  parseStrict,
  canonical,
  publicKey,
  keyId,
  sealBody,
  receiptBody,
  signedReceipt3,
  receipt3Problem,
  matchSealBody,
  matchChainKey,
  sealHashes,
  signer,
  protoFields,
  viewBody,
  chainKey,
  chainHash,
  receiptNonce,
  decodeReceipt,
  verifyGame,
  verifyMatch,
  verifyText,
  logSeals,
  handWords,
  readFileLines,
  checkReceipts,
  readReceiptLines,
  sha256,
};
