'use strict';
// The server's recorded clock against the table's rules (docs/api.md, "Justice" and "Every
// hand, every redeal"), as the Python verifier checks it (domain/verify.py: _check_case_clock,
// _check_abandoned, _check_reveals_closed). The server's clock is trusted, but its record
// must agree with itself: each deadline follows from the recorded times of a few facts and
// the limits GameCreated recorded, so a step taken before its deadline is a forged record.
//
//   * a case (a report or an appeal) is timed out no earlier than its deadline: the case
//     limit after the fact its clock runs from (its opening, then each awaited voter's first
//     vote, then its CaseTimedOut), never later than the hand's justice budget allows;
//   * a report or appeal opens a case only while the hand's justice budget lasts;
//   * a draw is abandoned (DealAbandoned) only once the abandonment limit has passed since
//     the fact that opened the draw;
//   * a deal went on without pending reveals (a record made before issue 35) only once the
//     reveal window after the latest fact had closed.
//
// Records with justice_budget_ms 0 (made before the budget) have no budget, and those with
// case_time_limit_ms 0 keep the turn clock as their case clock (none: no case deadline).
// Only the facts are followed here, not the game: the replay through the engine is
// `tabletop-audit verify`'s.
const { contributionCommitment } = require('./deal');

const TIME = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{6})Z$/;
const TIME_LIKE = '2026-01-31T23:59:59.000000Z';

/** A recorded_at (the chained form, six decimals, UTC) in microseconds since 1970, or null. */
function micros(text) {
  const m = typeof text === 'string' ? TIME.exec(text) : null;
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number);
  const millis = Date.UTC(y, mo - 1, d, h, mi, s);
  // a day, hour or second out of range rolls over in Date.UTC: refused, as Python refuses it
  if (Number.isNaN(millis) || new Date(millis).toISOString().slice(0, 19) !== text.slice(0, 19)) return null;
  return millis * 1000 + Number(m[7]);
}

const ms = (n) => (Number.isSafeInteger(n) && n > 0 ? n : 0); // a recorded limit; absent: 0

/** A seat's input to a draw, as domain/table/state.py's _DealInput.status reads it. */
function status(input) {
  if (input.awaited) return 'AWAITED';
  if (input.contribution && input.commitment) return 'REVEALED';
  if (input.withheld) return 'WITHHELD';
  return input.commitment ? 'PENDING' : 'NONE';
}

/**
 * The table as far as the clocks need it, fact by fact: the seats' inputs to the draw under
 * way, whether a game is being played, and the hand's cases with their clocks.
 */
class ClockTable {
  constructor(created) {
    this.hand = Number.isSafeInteger(created.hand) ? created.hand : 0;
    this.caseLimit = ms(created.case_time_limit_ms) || ms(created.time_limit_ms);
    this.budget = ms(created.justice_budget_ms); // 0: a record made before the budget
    this.abandonAfter = ms(created.abandon_after_ms);
    this.revealWindow = ms(created.reveal_timeout_ms);
    const count = Number.isSafeInteger(created.seat_count) && created.seat_count > 0 ? created.seat_count : 0;
    this.seats = Array.from({ length: count }, () => null);
    this.redraw = null; // a 重新洗牌发牌's fresh inputs, while it is drawn
    this.game = false; // dealt
    this.revealed = false; // ShuffleRevealed: the game has ended
    this.abandoned = false; // DealAbandoned: the game is void
    this.cases = []; // {id, clock, clockedBy, closed}
    // a table the lobby formed: per seat, the player it is kept for ("": open); the draw
    // waits for its empty reserved seats from GameCreated on (decider.awaited_reserved)
    this.reserved = Array.isArray(created.reserved_players) ? created.reserved_players : [];
    this.drawOpened = 0; // the version of the fact that opened the latest draw
    this.version = 1;
    if (this.drawing) this.drawOpened = 1;
  }

  get awaitedReserved() {
    if (this.game || this.redraw) return [];
    return this.reserved.flatMap((p, i) => (p && this.seats[i] === null ? [i] : []));
  }

  get playing() {
    return this.game && !this.revealed && !this.abandoned;
  }

  get drawing() {
    if (this.abandoned) return false;
    if (this.redraw) return true;
    if (this.game) return false;
    return this.seats.every((s) => s !== null) || this.awaitedReserved.length > 0;
  }

  inputs() {
    return this.redraw || this.seats;
  }

  withStatus(wanted) {
    return this.inputs().flatMap((s, i) => (s && status(s) === wanted ? [i] : []));
  }

  get awaitedInputs() {
    const reserved = this.awaitedReserved;
    if (reserved.length) return reserved;
    const awaited = this.withStatus('AWAITED');
    return awaited.length ? awaited : this.withStatus('PENDING');
  }

  get openCase() {
    return this.cases.find((c) => !c.closed) || null;
  }

  /** Apply the fact recorded at `version` (domain/table/decider.py evolve). */
  apply(version, { type, data }) {
    const drew = this.drawing;
    this.version = version;
    const input = () => this.inputs()[data.seat] || {};
    const byId = () => this.cases.find((c) => c.id === data.case_id) || { clockedBy: [] };
    if (type === 'SeatTaken') {
      let commitment = data.commitment || '';
      if (data.contribution && !commitment) commitment = contributionCommitment(data.contribution);
      const awaited = this.hand >= 2 && !commitment; // a match's later hand: commits after
      this.seats[data.seat] = { commitment, contribution: data.contribution || '', withheld: false, awaited };
    } else if (type === 'SeatCommitted') {
      Object.assign(input(), { commitment: data.commitment, awaited: false });
    } else if (type === 'ContributionRevealed') {
      input().contribution = data.contribution;
    } else if (type === 'RevealWithheld') {
      Object.assign(input(), { withheld: true, awaited: false });
    } else if (type === 'RedealOpened') {
      this.redraw = this.seats.map(() => ({ commitment: '', contribution: '', withheld: false, awaited: true }));
    } else if (type === 'GameRedealt') {
      this.redraw = null;
    } else if (type === 'DealAbandoned') {
      this.abandoned = true;
    } else if (type === 'ShuffleRevealed') {
      this.revealed = true;
    } else if (type === 'GameStarted') {
      this.game = true;
      this.cases = []; // justice starts afresh with the game
    } else if (type === 'ViolationReported' || type === 'AppealFiled') {
      this.cases.push({ id: version, clock: version, clockedBy: [], closed: 0 });
    } else if (type === 'VoteCast') {
      const c = byId(); // an awaited voter's vote moves the clock, once per voter
      if (!c.clockedBy.includes(data.seat)) Object.assign(c, { clock: version, clockedBy: [...c.clockedBy, data.seat] });
    } else if (type === 'CaseTimedOut') {
      byId().clock = version; // the arbiter, awaited now, gets the case limit
    } else if (type === 'CaseClosed') {
      byId().closed = version;
    }
    if (!drew && this.drawing) this.drawOpened = version; // the abandonment clock runs from here
  }

  /** How long the hand's cases have paused it by `now` (µs): closed ones to their close. */
  justiceSpent(at, now) {
    return this.cases.reduce((spent, c) => spent + Math.max(0, (c.closed ? at(c.closed) : now) - at(c.id)), 0);
  }

  /** When the open case is due (µs), or null (decider.case_deadline). */
  caseDeadline(at) {
    const c = this.openCase;
    if (!this.playing || !c || this.caseLimit <= 0) return null;
    const deadline = at(c.clock || c.id) + this.caseLimit * 1000;
    if (this.budget <= 0) return deadline;
    const opened = at(c.id);
    const end = opened + this.budget * 1000 - this.justiceSpent(at, opened);
    return Math.min(deadline, end);
  }

  /** When the draw under way is abandoned (µs), or null (decider.abandon_deadline). */
  abandonDeadline(at) {
    if (!this.drawOpened || !this.drawing || !this.awaitedInputs.length || this.abandonAfter <= 0) return null;
    return at(this.drawOpened) + this.abandonAfter * 1000;
  }

  /** When the seats the draw waits for are late (µs) after `since` (decider.reveal_deadline). */
  revealDeadline(since) {
    if (!this.drawing) return null;
    if (!this.withStatus('PENDING').length && !this.withStatus('AWAITED').length) return null;
    return since + this.revealWindow * 1000;
  }
}

const BUDGET_RULE = '仲裁 time budget';

/**
 * Check one game's records (already read, in version order) against its recorded clock.
 * `fail(message)` throws; `where` prefixes every message (a match's hand).
 */
function checkClocks(records, fail, where = '') {
  const at = (n) => `${where}version ${n}`;
  const times = records.map((r) => {
    const t = micros(r.recorded_at);
    if (t === null) fail(`${at(r.version)}: recorded_at is not a timestamp like ${TIME_LIKE}`);
    return t;
  });
  const time = (version) => times[version - 1];
  const table = new ClockTable(records[0].fact.data);
  records.forEach((r, i) => {
    if (i > 0 && r.cause) checkMove(table, r, time, fail, at);
    if (i > 0) table.apply(r.version, r.fact);
  });
}

/** The checks made before a move (a record with a cause) is applied. */
function checkMove(table, r, time, fail, at) {
  const cause = r.cause;
  const now = time(r.version);
  if (cause.reveals_closed) {
    const deadline = table.revealDeadline(time(r.version - 1));
    if (deadline !== null && now < deadline) {
      fail(`${at(r.version)}: the deal went on without pending reveals before the reveal window closed`);
    }
  }
  if (cause.action === 'abandon') {
    const deadline = table.abandonDeadline(time);
    if (deadline !== null && now < deadline) {
      fail(`${at(r.version)}: the draw was abandoned before the table's abandonment limit passed`);
    }
  }
  if (!table.playing) return;
  if (cause.action === 'timeout' && table.openCase) {
    const deadline = table.caseDeadline(time);
    if (deadline !== null && now < deadline) fail(`${at(r.version)}: the case was timed out before its deadline`);
  }
  const command = cause.action === 'play' && cause.command ? cause.command.type : null;
  if ((command === 'Report' || command === 'Appeal') && table.budget > 0 &&
      table.justiceSpent(time, now) >= table.budget * 1000) {
    fail(`${at(r.version)}: JUSTICE_BUDGET_SPENT [${BUDGET_RULE}]: this hand's cases have paused it for its whole budget (${table.budget} ms): no more reports or appeals in this hand`);
  }
}

module.exports = { checkClocks, ClockTable, micros };
