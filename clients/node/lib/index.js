'use strict';
// The tabletop Node.js client: TableClient / SeatClient / Watcher, rich errors, a bot.
const { load, PROTO_ROOT } = require('./protos');
const { TableClient, SeatClient, Watcher, TOKEN_HEADER } = require('./client');
const { richStatus, findDetail, describeError } = require('./errors');
const { RandomBot, playUntilOver, playFromStreams } = require('./bot');

module.exports = {
  load,
  PROTO_ROOT,
  TableClient,
  SeatClient,
  Watcher,
  TOKEN_HEADER,
  richStatus,
  findDetail,
  describeError,
  RandomBot,
  playUntilOver,
  playFromStreams,
};
