'use strict';
// The seats' own signatures in a record (docs/api.md, "Seat signatures" → "What is
// recorded"): every cause in a keyed seat's name carries `signed` {command, signature}
// (base64 of the SignedCommand bytes the seat signed, and its Ed25519 signature). For each,
// check the signature with the seat's key at that point of the record (SeatTaken.public_key,
// replaced by SeatRekeyed), the game and method it names, that the version it saw is earlier
// than the move and its head hash is the chain's there, and that the request it signed is the
// command recorded. So the operator cannot write a command in a keyed seat's name, nor move a
// seat's signed command to another game or version.
//
// The request inside is decoded with the contract's own protobuf code (protobufjs, as the
// client uses it).
const { load } = require('./protos');
const { verifySeatSignature, decodeSignedCommand, decodeRequest } = require('./seatkey');

// The RPCs each recorded action may have been signed as.
const METHODS = {
  join: ['JoinGame'],
  play: ['Play'],
  reveal: ['RevealContribution'],
  commit: ['CommitContribution', 'ReadyNextHand'],
  start: ['StartGame'],
  rekey: ['RekeySeat'],
};
const B64 = /^[A-Za-z0-9+/]*={0,2}$/;
const HEX64 = /^[0-9a-f]{64}$/;

const snake = (name) => name.replace(/(?!^)(?=[A-Z])/g, '_').toLowerCase();
const hex = (bytes) => Buffer.from(bytes || []).toString('hex');
const keyShort = (key) => `${key.slice(0, 16)}…`;

// The arbiter's commands: its rulings (a Play of a Rule or a Redeal, recorded in no seat's name).
const ARBITER_COMMANDS = ['Rule', 'Redeal'];

/** Whether a cause in no seat's name is the arbiter's: a ruling, or a start that carries a signature. */
function byArbiter(cause) {
  if (!cause || (cause.seat !== undefined && cause.seat !== null)) return false;
  if (cause.action === 'play') return Boolean(cause.command && ARBITER_COMMANDS.includes(cause.command.type));
  return cause.action === 'start' && 'signed' in cause;
}

/**
 * Check every seat signature of one game's `records` (already chain-checked) for game
 * `gameId`, and at a table with an arbiter key (GameCreated.arbiter_public_key) every
 * ruling's arbiter signature. `fail(message)` throws. Returns each seat's standing: {seat,
 * joinKey, key, signed, rekeys: [version], taken}; `joinKey`: the key it sat down with
 * ('' = unkeyed); the array's `arbiter` is {arbitrated, key, signed} ('' key: unkeyed).
 */
function checkSeatSignatures(records, gameId, fail, where = '') {
  const created = records[0].fact.data;
  const count = created.seat_count;
  const arbiterKey = created.arbiter_public_key || '';
  if (arbiterKey && !HEX64.test(arbiterKey)) fail(`${where}version 1: the arbiter's key is not 64 lowercase hex digits`);
  const arbiter = { arbitrated: Boolean(created.arbitrated), key: arbiterKey, signed: 0 };
  const laterHand = Number.isSafeInteger(created.hand) && created.hand >= 2;
  const seats = Array.from({ length: count }, (_, seat) => ({ seat, joinKey: '', key: '', signed: 0, rekeys: [], taken: false }));
  for (const r of records) {
    const at = `${where}version ${r.version}`;
    const cause = r.cause;
    if (cause && Number.isSafeInteger(cause.seat) && cause.seat >= 0 && cause.seat < count) {
      const s = seats[cause.seat];
      // the key this command must be signed with: the seat's at this point, except a join
      // or a re-key, which is signed with the key it sends (the one its fact records)
      let key = s.key;
      if (cause.action === 'join') key = r.fact.type === 'SeatTaken' ? r.fact.data.public_key || '' : '';
      if (cause.action === 'rekey') key = r.fact.type === 'SeatRekeyed' ? r.fact.data.public_key || '' : '';
      // a match's later hand seats its players itself, carrying their keys: an unsigned join
      // the server wrote (the match verifier checks the keys carried over)
      const carried = laterHand && cause.action === 'join' && !('signed' in cause);
      if (key && !carried) {
        if (!('signed' in cause) || cause.signed === null) {
          fail(`${at}: seat ${cause.seat}'s ${cause.action} is not signed, yet the seat holds key ${keyShort(key)}: the record writes a command in its name`);
        }
        checkOne(records, r, cause, key, gameId, (m) => fail(`${at}: seat ${cause.seat}'s ${cause.action}: ${m}`));
        s.signed += 1;
      } else if (cause.signed) {
        fail(`${at}: seat ${cause.seat}'s ${cause.action} carries a signature, yet the seat has no key to check it with`);
      }
    } else if (arbiterKey && r.version > 1 && byArbiter(cause)) {
      if (!('signed' in cause) || cause.signed === null) {
        fail(`${at}: the arbiter's ${cause.action} is not signed, yet the arbiter holds key ${keyShort(arbiterKey)}: a ruling the arbiter did not sign`);
      }
      checkOne(records, r, cause, arbiterKey, gameId, (m) => fail(`${at}: the arbiter's ${cause.action}: ${m}`), 'the arbiter');
      arbiter.signed += 1;
    }
    applyFact(seats, r, at, fail);
  }
  seats.arbiter = arbiter;
  return seats;
}

/** Follow the seats' keys through the record's facts. */
function applyFact(seats, r, at, fail) {
  const { type, data } = r.fact;
  if (type !== 'SeatTaken' && type !== 'SeatRekeyed') return;
  const s = seats[data.seat];
  if (!s) fail(`${at}: ${type} names seat ${data.seat}, which the table does not have`);
  const key = data.public_key || '';
  if (key && !HEX64.test(key)) fail(`${at}: seat ${data.seat}'s key is not 64 lowercase hex digits`);
  if (type === 'SeatTaken') {
    s.taken = true;
    s.joinKey = key;
    s.key = key;
    return;
  }
  if (!key) fail(`${at}: seat ${data.seat} was re-keyed to no key`);
  if ((data.old_public_key || '') !== s.key) {
    fail(`${at}: seat ${data.seat}'s re-key replaces key ${keyShort(data.old_public_key || '(none)')}, not its key ${keyShort(s.key || '(none)')}`);
  }
  s.key = key;
  s.rekeys.push(r.version);
}

/** One signed cause: its signature, what it names, and the request it carries. */
function checkOne(records, r, cause, key, gameId, fail, who = 'the seat') {
  const signed = cause.signed;
  if (!signed || typeof signed !== 'object' || typeof signed.command !== 'string' || typeof signed.signature !== 'string' ||
      !B64.test(signed.command) || !B64.test(signed.signature)) {
    fail('its signed command is not {command, signature} in base64');
  }
  const bytes = Buffer.from(signed.command, 'base64');
  const signature = Buffer.from(signed.signature, 'base64');
  if (!verifySeatSignature(Buffer.from(key, 'hex'), bytes, signature)) {
    fail(`the signature does not check with ${who}'s key ${keyShort(key)}`);
  }
  let command;
  try {
    command = decodeSignedCommand(bytes);
  } catch (err) {
    fail(`the signed bytes are not a SignedCommand (${err.message})`);
  }
  if (command.game_id !== gameId) fail(`the seat signed it for game ${command.game_id}, not ${gameId}`);
  const methods = METHODS[cause.action] || [];
  if (!methods.includes(command.method)) {
    fail(`the seat signed a ${command.method || 'nameless'} call, not a ${methods.join(' or ') || cause.action}`);
  }
  const seen = command.expected_version;
  if (!(seen >= 0 && seen < r.version)) fail(`the seat signed it having seen version ${seen}, not earlier than the move`);
  if (command.head_hash) {
    if (seen < 1 || records[seen - 1].hash !== command.head_hash) {
      fail(`the head hash it signed is not the chain hash at version ${seen}`);
    }
  } else if (command.method === 'Play') fail('a signed Play names no head hash');
  let request;
  try {
    request = decodeRequest(command.method, command.request);
  } catch (err) {
    fail(`the signed request is not a ${command.method} request (${err.message})`);
  }
  if (request.game_id !== command.game_id) fail(`the signed request names game ${request.game_id}, not ${command.game_id}`);
  const problem = sameCommand(command.method, request, seen, cause, r.fact);
  if (problem) fail(`the signed request is not the command recorded: ${problem}`);
}

/** What differs between the signed `request` and the recorded cause and first fact ('' if nothing). */
function sameCommand(method, request, seen, cause, fact) {
  const d = fact.data;
  const differs = (what, signed, recorded) => (signed === recorded ? '' : `${what} ${JSON.stringify(signed)}, recorded ${JSON.stringify(recorded)}`);
  switch (method) {
    case 'JoinGame':
      if (fact.type !== 'SeatTaken') return `a join, recorded as ${fact.type}`;
      return differs('seat', request.seat, d.seat) || differs('name', request.player_name, d.player_name) ||
        differs('commitment', request.contribution_commitment, d.commitment || '') ||
        differs('key', hex(request.seat_public_key), d.public_key || '');
    case 'RevealContribution':
      if (fact.type !== 'ContributionRevealed') return `a reveal, recorded as ${fact.type}`;
      return differs('seat', cause.seat, d.seat) || differs('contribution', request.contribution, d.contribution);
    case 'CommitContribution':
    case 'ReadyNextHand':
      if (fact.type !== 'SeatCommitted') return `a commitment, recorded as ${fact.type}`;
      return differs('seat', cause.seat, d.seat) || differs('commitment', request.commitment, d.commitment);
    case 'RekeySeat':
      if (fact.type !== 'SeatRekeyed') return `a re-key, recorded as ${fact.type}`;
      return differs('seat', cause.seat, d.seat) || differs('key', hex(request.seat_public_key), d.public_key);
    case 'Play':
      return differs('expected version', request.expected_version, seen) || sameMove(request.move, cause);
    default:
      return ''; // StartGame: the game and method say it all
  }
}

/**
 * The signed Move against the recorded command ({type, data}): the game (or table) and kind
 * of command, the seat (the server fills a 0 from the token) and every plain field the seat
 * set (numbers, text, lists of them; enums and nested messages are left to the engine's replay).
 */
function sameMove(move, cause) {
  const recorded = cause.command;
  if (!recorded || typeof recorded.type !== 'string' || !recorded.data) return 'the record holds no command';
  if (!move || !move.game) return 'a Play without a move';
  const group = move[move.game];
  const kind = group && group.kind;
  if (!kind) return `a ${move.game} move of no kind`;
  if (snake(recorded.type) !== kind) return `the seat signed a ${kind} move, the record shows ${recorded.type}`;
  const fields = group[kind] || {};
  if (fields.seat && fields.seat !== cause.seat) return `the move is seat ${fields.seat}'s, recorded as seat ${cause.seat}'s`;
  const { root } = load();
  const groupType = root.lookupType('tabletop.v1.Move').fields[move.game].resolvedType;
  const kindType = groupType.fields[kind].resolvedType;
  for (const f of kindType.fieldsArray) {
    if (f.name === 'seat' || f.resolvedType || f.type === 'bytes' || f.map) continue;
    const signed = fields[f.name];
    const unset = signed === undefined || signed === null || signed === 0 || signed === '' || signed === false ||
      (Array.isArray(signed) && !signed.length);
    if (unset || !(f.name in recorded.data)) continue;
    if (JSON.stringify(signed) !== JSON.stringify(recorded.data[f.name])) {
      return `its ${f.name} is ${JSON.stringify(signed)}, recorded ${JSON.stringify(recorded.data[f.name])}`;
    }
  }
  return '';
}

module.exports = { checkSeatSignatures, sameMove, METHODS };
