'use strict';
// The tabletop Node.js client: TableClient / SeatClient / Watcher, seat keys and signed
// commands (seatkey: SeatKey, signRequest), rich errors, a bot,
// the deal derivation (deal.checkExport recomputes a finished game's deals) and the record's
// verifier (verify.verifyText: chain, seals, deals, receipts; bin/verify.js).
const { load, PROTO_ROOT } = require('./protos');
const { TableClient, SeatClient, Watcher, TOKEN_HEADER, revealAndStart, SeatKeyNotRecorded } = require('./client');
const seatkey = require('./seatkey');
const { NotAcknowledged } = require('./acks');
const deal = require('./deal');
const verify = require('./verify');
const { richStatus, findDetail, describeError } = require('./errors');
const {
  RandomBot, playUntilOver, playFromStreams, playFromSessions, labelledMoves, moveByLabel,
} = require('./bot');

module.exports = {
  load,
  PROTO_ROOT,
  TableClient,
  SeatClient,
  Watcher,
  TOKEN_HEADER,
  revealAndStart,
  SeatKeyNotRecorded,
  NotAcknowledged,
  SeatKey: seatkey.SeatKey,
  seatkey,
  deal,
  verify,
  richStatus,
  findDetail,
  describeError,
  RandomBot,
  playUntilOver,
  playFromStreams,
  playFromSessions,
  labelledMoves,
  moveByLabel,
};
