'use strict';
// The one place the verifier's code takes its cryptography from: node:crypto here. The
// browser bundle of the same code (clients/web/src/verify, built by clients/web/build.mjs)
// puts clients/web/src/verify/crypto.ts in its place: SHA-256 and HMAC-SHA-256 in JavaScript
// (@noble/hashes) and Ed25519 by WebCrypto, with the same calls (createHash, createHmac,
// createPublicKey, verify). So lib/verify.js, translog.js, deal.js, seatkey.js, seatsigs.js,
// proofs.js and render.js run unchanged in both; nothing else in them touches Node.
module.exports = require('node:crypto');
