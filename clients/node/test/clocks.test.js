'use strict';
// The recorded clock (lib/clocks.js) on records written here, fact by fact: each deadline
// met to the microsecond passes, one microsecond early fails, naming the version. No server
// needed: `node --test test/clocks.test.js`.
const test = require('node:test');
const assert = require('node:assert/strict');
const { checkClocks, micros } = require('../lib/clocks');

const fail = (message) => {
  throw new Error(message);
};
const BASE = Date.UTC(2026, 0, 31, 23, 59, 0) * 1000; // µs
const stamp = (us) => {
  const whole = Math.floor(us / 1e6);
  const iso = new Date(whole * 1000).toISOString().slice(0, 19);
  return `${iso}.${String(us - whole * 1e6).padStart(6, '0')}Z`;
};
const C = 'c'.repeat(64);

/** Records built move by move: `move(ms, cause, ...facts)`, each fact [type, data]. */
function game(created = {}) {
  const records = [];
  const add = (us, cause, facts) => {
    facts.forEach(([type, data], k) => {
      records.push({ version: records.length + 1, fact: { type, data }, cause: k ? null : cause, recorded_at: stamp(us) });
    });
    return records.length - facts.length + 1; // the move's first version
  };
  add(BASE, { action: 'create' }, [['GameCreated', { seat_count: 2, hand: 0, reveal_timeout_ms: 30000, ...created }]]);
  const g = {
    records,
    move: (msAfter, cause, ...facts) => add(BASE + msAfter * 1000, cause, facts),
    at: (msAfter, us = 0) => BASE + msAfter * 1000 + us,
    moveUs: (us, cause, ...facts) => add(us, cause, facts),
  };
  return g;
}

/** Two seats taken, revealed and dealt by 30 ms. */
function dealt(created) {
  const g = game({ case_time_limit_ms: 1000, justice_budget_ms: 3000, ...created });
  g.move(10, { action: 'join', seat: 0 }, ['SeatTaken', { seat: 0, commitment: C }]);
  g.move(11, { action: 'join', seat: 1 }, ['SeatTaken', { seat: 1, commitment: C }]);
  g.move(20, { action: 'reveal', seat: 0 }, ['ContributionRevealed', { seat: 0, contribution: 'a' }]);
  g.move(21, { action: 'reveal', seat: 1 }, ['ContributionRevealed', { seat: 1, contribution: 'b' }]);
  g.move(30, { action: 'start' }, ['GameStarted', { deck: [], seed: 0 }]);
  return g;
}

const report = (seat) => ({ action: 'play', seat, command: { type: 'Report', data: {} } });
const vote = (seat) => ({ action: 'play', seat, command: { type: 'CastVote', data: {} } });
const TIMEOUT = { action: 'timeout' };
const check = (g) => checkClocks(g.records, fail);

/** A report at 100 ms by seat 0, timed out at `us` (µs since BASE); returns its case id. */
function timedOutAt(g, opened, us) {
  const id = g.move(opened, report(0), ['ViolationReported', { by: 0, accused: 1 }]);
  g.moveUs(us, TIMEOUT, ['CaseTimedOut', { case_id: id, seats: [1] }], ['CaseClosed', { case_id: id, status: 'UNRESOLVED' }]);
  return id;
}

test('a recorded time reads to the microsecond; one out of range is refused', () => {
  assert.equal(micros('2026-01-31T23:59:00.000001Z'), BASE + 1);
  for (const bad of ['2026-02-30T00:00:00.000000Z', '2026-01-31T23:59:60.000000Z', '2026-01-31T23:59:00Z', 7]) {
    assert.equal(micros(bad), null, bad);
  }
  const g = dealt();
  g.records[3].recorded_at = '2026-01-31 23:59:00';
  assert.throws(() => check(g), /version 4: recorded_at is not a timestamp/);
});

test('a case times out at its deadline, not a microsecond before', () => {
  const ok = dealt();
  timedOutAt(ok, 100, ok.at(1100));
  check(ok);
  const early = dealt();
  timedOutAt(early, 100, early.at(1100) - 1);
  assert.throws(() => check(early), /^Error: version 8: the case was timed out before its deadline$/);
});

test("an awaited voter's first vote moves the clock; its second does not", () => {
  const g = (voteAgainAt) => {
    const t = dealt();
    const id = t.move(100, report(0), ['ViolationReported', { by: 0, accused: 1 }]);
    t.move(400, vote(1), ['VoteCast', { seat: 1, case_id: id, uphold: false }]);
    if (voteAgainAt) t.move(voteAgainAt, vote(1), ['VoteCast', { seat: 1, case_id: id, uphold: false }]);
    return [t, id];
  };
  const [early, id] = g(0);
  early.move(1100, TIMEOUT, ['CaseTimedOut', { case_id: id, seats: [] }]);
  assert.throws(() => check(early), /timed out before its deadline/, 'the vote at 400 ms: due at 1400 ms');
  const [due, id2] = g(900); // the same voter again: the clock stays at 400 ms
  due.move(1400, TIMEOUT, ['CaseTimedOut', { case_id: id2, seats: [] }]);
  check(due);
});

test('a CaseTimedOut moves the clock: the arbiter gets the case limit after it', () => {
  const g = dealt();
  const id = g.move(100, report(0), ['ViolationReported', { by: 0, accused: 1 }]);
  g.move(1100, TIMEOUT, ['CaseTimedOut', { case_id: id, seats: [1] }]);
  g.move(1500, TIMEOUT, ['ArbiterRuled', { case_id: id, uphold: false }]);
  assert.throws(() => check(g), /version 9: the case was timed out before its deadline/);
});

test("a case's deadline is never past the hand's justice budget", () => {
  // budget 3000 ms: the first case paused the hand 2500 ms, so the second runs out 500 ms
  // after its opening (3500 ms), before its own case limit (5500 ms)
  const g = dealt({ case_time_limit_ms: 2500 });
  timedOutAt(g, 100, g.at(2600));
  timedOutAt(g, 3000, g.at(3500));
  check(g);
  const early = dealt({ case_time_limit_ms: 2500 });
  timedOutAt(early, 100, early.at(2600));
  timedOutAt(early, 3000, early.at(3500) - 1);
  assert.throws(() => check(early), /version 11: the case was timed out before its deadline/);
});

test("a report once the hand's budget is spent fails in the Python verifier's words", () => {
  const g = dealt();
  timedOutAt(g, 100, g.at(3100)); // 3000 ms: the whole budget
  g.move(3200, report(1), ['ViolationReported', { by: 1, accused: 0 }]);
  assert.throws(
    () => check(g),
    /^Error: version 10: JUSTICE_BUDGET_SPENT \[仲裁 time budget\]: this hand's cases have paused it for its whole budget \(3000 ms\): no more reports or appeals in this hand$/,
  );
  const appeal = dealt();
  timedOutAt(appeal, 100, appeal.at(3100));
  appeal.move(3200, { action: 'play', seat: 1, command: { type: 'Appeal', data: {} } }, ['AppealFiled', { seat: 1, case_id: 7 }]);
  assert.throws(() => check(appeal), /JUSTICE_BUDGET_SPENT/);
  const within = dealt();
  timedOutAt(within, 100, within.at(3099, 999));
  within.move(3200, report(1), ['ViolationReported', { by: 1, accused: 0 }]);
  check(within);
});

test('records made before the rules keep theirs: no budget, the turn clock as case clock', () => {
  const old = dealt({ justice_budget_ms: 0, case_time_limit_ms: 0, time_limit_ms: 2000 });
  timedOutAt(old, 100, old.at(20000));
  old.move(20100, report(1), ['ViolationReported', { by: 1, accused: 0 }]); // no budget
  check(old);
  const early = dealt({ justice_budget_ms: 0, case_time_limit_ms: 0, time_limit_ms: 2000 });
  timedOutAt(early, 100, early.at(2099));
  assert.throws(() => check(early), /timed out before its deadline/, 'the turn clock is its case clock');
  const clockless = dealt({ justice_budget_ms: 0, case_time_limit_ms: 0, time_limit_ms: 0 });
  timedOutAt(clockless, 100, clockless.at(101));
  check(clockless);
});

test('a draw is abandoned once its limit has passed since the fact that opened it', () => {
  const draw = (abandonAt) => {
    const g = game({ abandon_after_ms: 3000 });
    g.move(10, { action: 'join', seat: 0 }, ['SeatTaken', { seat: 0, commitment: C }]);
    g.move(50, { action: 'join', seat: 1 }, ['SeatTaken', { seat: 1, commitment: C }]); // opens the draw
    g.move(60, { action: 'reveal', seat: 0 }, ['ContributionRevealed', { seat: 0, contribution: 'a' }]);
    g.moveUs(abandonAt, { action: 'abandon' }, ['DealAbandoned', { waiting_for: [1], round: 0 }], ['ShuffleRevealed', {}]);
    return g;
  };
  check(draw(BASE + 3050 * 1000));
  assert.throws(() => check(draw(BASE + 3050 * 1000 - 1)), /^Error: version 5: the draw was abandoned before the table's abandonment limit passed$/);
  const old = draw(BASE + 100 * 1000);
  old.records[0].fact.data.abandon_after_ms = 0; // a record made before the limit
  check(old);
});

test('a deal that went on without pending reveals waited out the reveal window', () => {
  const start = (at) => {
    const g = game({ reveal_timeout_ms: 500 });
    g.move(10, { action: 'join', seat: 0 }, ['SeatTaken', { seat: 0, commitment: C }]);
    g.move(50, { action: 'join', seat: 1 }, ['SeatTaken', { seat: 1, commitment: C }]);
    g.move(60, { action: 'reveal', seat: 0 }, ['ContributionRevealed', { seat: 0, contribution: 'a' }]);
    g.move(at, { action: 'start', reveals_closed: true }, ['RevealWithheld', { seat: 1 }], ['GameStarted', { deck: [], seed: 0 }]);
    return g;
  };
  check(start(560));
  assert.throws(() => check(start(559)), /version 5: the deal went on without pending reveals before the reveal window closed/);
});

test("a match's hand names itself in the message", () => {
  const g = dealt();
  timedOutAt(g, 100, g.at(200));
  assert.throws(() => checkClocks(g.records, fail, 'hand 2 (game x): '), /^Error: hand 2 \(game x\): version 8: the case/);
});
