'use strict';
// The tabletop Node.js client: TableClient / SeatClient / Watcher, rich errors, a bot,
// the deal derivation (deal.checkExport recomputes a finished game's deals) and the record's
// verifier (verify.verifyText: chain, seals, deals, receipts; bin/verify.js).
const { load, PROTO_ROOT } = require('./protos');
const { TableClient, SeatClient, Watcher, TOKEN_HEADER, revealAndStart } = require('./client');
const deal = require('./deal');
const verify = require('./verify');
const { richStatus, findDetail, describeError } = require('./errors');
const { RandomBot, playUntilOver, playFromStreams, labelledMoves, moveByLabel } = require('./bot');

module.exports = {
  load,
  PROTO_ROOT,
  TableClient,
  SeatClient,
  Watcher,
  TOKEN_HEADER,
  revealAndStart,
  deal,
  verify,
  richStatus,
  findDetail,
  describeError,
  RandomBot,
  playUntilOver,
  playFromStreams,
  labelledMoves,
  moveByLabel,
};
