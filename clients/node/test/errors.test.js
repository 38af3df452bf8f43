'use strict';
// A Node client receives and decodes rich errors: google.rpc.Status from the
// `grpc-status-details-bin` trailer, with BadRequest / ErrorInfo / ResourceInfo details.
const test = require('node:test');
const assert = require('node:assert/strict');
const { randomUUID } = require('node:crypto');
const { load, richStatus, findDetail, describeError } = require('../lib');
const { seatedGame, withClient, BASIC } = require('./helpers');

const { grpc } = load();

async function failure(promise) {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  assert.fail('the call should have failed');
}

test('a malformed game id is INVALID_ARGUMENT with a BadRequest naming the field', withClient(async (client) => {
  const err = await failure(client.asViewer('no-such-id').view());
  assert.equal(err.code, grpc.status.INVALID_ARGUMENT);
  const status = richStatus(err);
  assert.equal(status.code, grpc.status.INVALID_ARGUMENT);
  const bad = findDetail(err, 'BadRequest');
  assert.ok(bad, `no BadRequest in ${JSON.stringify(status)}`);
  assert.equal(bad.field_violations[0].field, 'game_id');
  assert.match(describeError(err), /INVALID_ARGUMENT.*game_id/);
}));

test('a bad seat count is INVALID_ARGUMENT with the field', withClient(async (client) => {
  const err = await failure(client.createGame(BASIC, 9));
  assert.equal(err.code, grpc.status.INVALID_ARGUMENT);
  assert.equal(findDetail(err, 'google.rpc.BadRequest').field_violations[0].field, 'seat_count');
}));

test('an unknown game is NOT_FOUND with a ResourceInfo', withClient(async (client) => {
  const err = await failure(client.asViewer(randomUUID()).view());
  assert.equal(err.code, grpc.status.NOT_FOUND);
  assert.equal(findDetail(err, 'ResourceInfo').resource_type, 'game');
}));

test('rule violations and stale versions carry ErrorInfo reasons', withClient(async (client) => {
  const { seats } = await seatedGame(client);
  const view = await seats[0].view();
  const actor = seats[view.to_act[0]];
  const idle = seats.find((s) => !view.to_act.includes(s.seat));
  const legal = await actor.legalMoves();
  assert.ok(legal.moves.length > 0);

  // A stale version: ABORTED, ErrorInfo STALE_VERSION with the current version.
  const stale = await failure(actor.play(legal.moves[0], legal.version - 1));
  assert.equal(stale.code, grpc.status.ABORTED);
  const info = findDetail(stale, 'ErrorInfo');
  assert.equal(info.reason, 'STALE_VERSION');
  assert.equal(info.domain, 'tabletop.v1');
  assert.equal(info.metadata.current_version, String(legal.version));

  // Out of turn: FAILED_PRECONDITION, ErrorInfo with a reason code and the rule's name.
  // a game move (LegalMoves may also list table commands, e.g. a misplay undo)
  const move = JSON.parse(JSON.stringify(legal.moves.find((m) => m.game === 'huaniao')));
  const command = move.huaniao[move.huaniao.kind];
  command.seat = 0; // "my seat": the server fills in the caller's seat from the token
  const turn = await failure(idle.play(move, legal.version));
  assert.equal(turn.code, grpc.status.FAILED_PRECONDITION, describeError(turn));
  const rule = findDetail(turn, 'ErrorInfo');
  assert.equal(rule.reason, 'NOT_YOUR_TURN');
  assert.ok(rule.metadata.rule, 'the violated rule is named');
  assert.ok(findDetail(turn, 'PreconditionFailure'), 'a PreconditionFailure too');

  // Another seat's move: PERMISSION_DENIED with an ErrorInfo.
  command.seat = seats.find((s) => s !== idle && s.seat !== 0).seat;
  const denied = await failure(idle.play(move, legal.version));
  assert.equal(denied.code, grpc.status.PERMISSION_DENIED);
  assert.equal(findDetail(denied, 'ErrorInfo').reason, 'PERMISSION_DENIED');

  // An empty move: INVALID_ARGUMENT naming the `move` field.
  const empty = await failure(actor.play({}, legal.version));
  assert.equal(empty.code, grpc.status.INVALID_ARGUMENT);
  assert.equal(findDetail(empty, 'BadRequest').field_violations[0].field, 'move');

  // Nothing was appended by any refusal.
  assert.equal((await seats[0].view()).version, legal.version);
}));
