'use strict';
// docs/api.md's seat signature test vector, byte for byte (no server needed): the request
// bytes, the SignedCommand bytes and the signature, made by the same code the client signs
// with; and a signature that must fail when anything it covers changes.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const seatkey = require('../lib/seatkey');

const DOCS = fs.readFileSync(path.resolve(__dirname, '..', '..', '..', 'docs', 'api.md'), 'utf8');
const SECTION = DOCS.slice(DOCS.indexOf('## Seat signatures'), DOCS.indexOf('## Versions and concurrency'));

/** The hex value of the vector's row whose first cell starts with `label`. */
function vector(label) {
  const row = SECTION.split('\n').find((line) => line.startsWith(`| ${label}`));
  assert.ok(row, `docs/api.md's test vector has a row "${label}"`);
  const cells = row.split('|').map((c) => c.trim()).filter(Boolean);
  return cells[cells.length - 1].replace(/`/g, '');
}

const GAME = '6f1c0d6e-1b9a-4c1e-9d61-000000000035';
const REQUEST = { game_id: GAME, expected_version: 12, move: { table: { retract: {} } }, request_id: 'r-1' };

test('the seat signature test vector of docs/api.md, byte for byte', () => {
  const key = seatkey.SeatKey.fromSeed(vector('seat private key'));
  assert.equal(key.publicKey.toString('hex'), vector('seat public key'));
  const request = seatkey.requestBytes('Play', REQUEST);
  assert.equal(request.toString('hex'), vector('the request'));
  const signed = seatkey.signedCommandBytes({
    gameId: GAME, method: 'Play', expectedVersion: 12, headHash: '5f'.repeat(32), request,
  });
  assert.equal(signed.toString('hex'), vector('`SignedCommand'));
  const signature = key.sign(signed);
  assert.equal(signature.toString('hex'), vector('signature over'));
  assert.ok(seatkey.verifySeatSignature(key.publicKey, signed, signature));

  // signRequest puts the same bytes on the request, and leaves the request as it was
  const sent = seatkey.signRequest(key, 'Play', REQUEST, { expectedVersion: 12, headHash: '5f'.repeat(32) });
  assert.equal(Buffer.from(sent.seat_signature.signed_command).toString('hex'), signed.toString('hex'));
  assert.equal(Buffer.from(sent.seat_signature.signature).toString('hex'), signature.toString('hex'));
  assert.equal(seatkey.requestBytes('Play', sent).toString('hex'), request.toString('hex'), 'the signature is not signed');

  // and they decode back to what was signed
  const decoded = seatkey.decodeSignedCommand(signed);
  assert.equal(decoded.game_id, GAME);
  assert.equal(decoded.method, 'Play');
  assert.equal(decoded.expected_version, 12);
  const play = seatkey.decodeRequest('Play', decoded.request);
  assert.equal(play.move.game, 'table');
  assert.equal(play.move.table.kind, 'retract');
  assert.equal(play.request_id, 'r-1');
});

test('a seat signature fails for another key, other bytes or without the domain prefix', () => {
  const key = seatkey.SeatKey.generate();
  assert.equal(key.publicKey.length, 32);
  const signed = seatkey.signedCommandBytes({ gameId: GAME, method: 'Play', expectedVersion: 3, headHash: 'ab'.repeat(32), request: Buffer.from('x') });
  const signature = key.sign(signed);
  assert.ok(seatkey.verifySeatSignature(key.publicKey, signed, signature));
  assert.ok(!seatkey.verifySeatSignature(seatkey.SeatKey.generate().publicKey, signed, signature));
  const other = Buffer.from(signed);
  other[other.length - 1] ^= 1;
  assert.ok(!seatkey.verifySeatSignature(key.publicKey, other, signature));
  const crypto = require('node:crypto');
  const bare = crypto.sign(null, signed, key.privateKey); // no "tabletop-seat-command/1\n"
  assert.ok(!seatkey.verifySeatSignature(key.publicKey, signed, bare));
  assert.throws(() => seatkey.signRequest(key, 'GetView', { game_id: GAME }), /not a seat command/);
});
