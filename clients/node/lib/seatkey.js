'use strict';
// Seat signatures (docs/api.md, "Seat signatures"): each seat holds an Ed25519 key made
// here, on the player's device; its public key goes with JoinGame and every command the
// seat sends carries a signature over a SignedCommand {game_id, method, expected_version,
// head_hash, request}, where `request` is the request's own bytes without the signature.
// The server stores those bytes with the move, so a record proves what the seat asked for.
const crypto = require('./crypto');
const { load } = require('./protos');

const DOMAIN = Buffer.from('tabletop-seat-command/1\n', 'utf8'); // 23 bytes, newline included
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex'); // + 32 raw bytes
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex'); // + 32-byte seed

// The RPCs a seat signs.
const SIGNED_METHODS = [
  'JoinGame', 'Play', 'CommitContribution', 'RevealContribution', 'ReadyNextHand', 'StartGame', 'RekeySeat',
];

class SeatKey {
  /** A fresh key pair (node:crypto, never leaves this process unless you export it). */
  static generate() {
    const { privateKey } = crypto.generateKeyPairSync('ed25519');
    return new SeatKey(privateKey);
  }

  /** The key of a 32-byte seed (RFC 8032's private key), as hex or bytes: tests, restores. */
  static fromSeed(seed) {
    const raw = Buffer.isBuffer(seed) ? seed : Buffer.from(String(seed), 'hex');
    if (raw.length !== 32) throw new Error('an Ed25519 seed is 32 bytes');
    return new SeatKey(crypto.createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, raw]), format: 'der', type: 'pkcs8' }));
  }

  constructor(privateKey) {
    this.privateKey = privateKey;
    // the raw 32-byte public key is the SPKI DER's last 32 bytes
    this.publicKey = crypto.createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(-32);
  }

  /** Ed25519 over the domain prefix followed by the SignedCommand bytes: 64 bytes. */
  sign(signedCommand) {
    return crypto.sign(null, Buffer.concat([DOMAIN, signedCommand]), this.privateKey);
  }
}

/** Does `signature` over `signedCommand` check with the raw 32-byte `publicKey`? */
function verifySeatSignature(publicKey, signedCommand, signature) {
  if (!publicKey || publicKey.length !== 32 || !signature || signature.length !== 64) return false;
  const key = crypto.createPublicKey({ key: Buffer.concat([SPKI_ED25519, Buffer.from(publicKey)]), format: 'der', type: 'spki' });
  return crypto.verify(null, Buffer.concat([DOMAIN, Buffer.from(signedCommand)]), key, Buffer.from(signature));
}

/**
 * The bytes of `request` as the RPC `method` sends it, without `seat_signature`: the very
 * serializer grpc-js uses for the call, so the signed bytes are what goes on the wire.
 */
function requestBytes(method, request) {
  const { TableService } = load();
  const { seat_signature: _unsigned, ...rest } = request;
  return Buffer.from(TableService.service[method].requestSerialize(rest));
}

/** A SignedCommand's bytes. */
function signedCommandBytes({ gameId, method, expectedVersion = 0, headHash = '', request }) {
  const { root } = load();
  const type = root.lookupType('tabletop.v1.SignedCommand');
  const message = type.fromObject({
    game_id: gameId, method, expected_version: expectedVersion, head_hash: headHash || '', request,
  });
  return Buffer.from(type.encode(message).finish());
}

/**
 * `request` with its `seat_signature` set: `key` signs a SignedCommand naming `gameId`,
 * `method`, the latest version the seat has seen (`expectedVersion`, the Play's own on a
 * Play) and the chain hash there (`headHash`), and the request's bytes.
 */
function signRequest(key, method, request, { gameId = request.game_id, expectedVersion = 0, headHash = '' } = {}) {
  if (!SIGNED_METHODS.includes(method)) throw new Error(`${method} is not a seat command`);
  const signed = signedCommandBytes({ gameId, method, expectedVersion, headHash, request: requestBytes(method, request) });
  return { ...request, seat_signature: { signed_command: signed, signature: key.sign(signed) } };
}

/** A SignedCommand's bytes decoded: {game_id, method, expected_version, head_hash, request}. */
function decodeSignedCommand(bytes) {
  const { root } = load();
  const type = root.lookupType('tabletop.v1.SignedCommand');
  return type.toObject(type.decode(bytes), { longs: Number, bytes: Buffer, defaults: true });
}

/** A request's bytes decoded as `tabletop.v1.<Method>Request` (enums as names, oneofs named). */
function decodeRequest(method, bytes) {
  const { root } = load();
  const type = root.lookupType(`tabletop.v1.${method}Request`);
  return type.toObject(type.decode(bytes), { longs: Number, enums: String, bytes: Buffer, defaults: true, oneofs: true });
}

module.exports = {
  DOMAIN,
  SIGNED_METHODS,
  SeatKey,
  verifySeatSignature,
  requestBytes,
  signedCommandBytes,
  signRequest,
  decodeSignedCommand,
  decodeRequest,
};
