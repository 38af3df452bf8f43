'use strict';
// The tabletop Node.js client: TableClient / SeatClient / Watcher, rich errors, a bot,
// and the deal derivation (deal.checkExport recomputes a finished game's deals).
const { load, PROTO_ROOT } = require('./protos');
const { TableClient, SeatClient, Watcher, TOKEN_HEADER, revealAndStart } = require('./client');
const deal = require('./deal');
const { richStatus, findDetail, describeError } = require('./errors');
const { RandomBot, playUntilOver, playFromStreams } = require('./bot');

module.exports = {
  load,
  PROTO_ROOT,
  TableClient,
  SeatClient,
  Watcher,
  TOKEN_HEADER,
  revealAndStart,
  deal,
  richStatus,
  findDetail,
  describeError,
  RandomBot,
  playUntilOver,
  playFromStreams,
};
