'use strict';
// A small promise-based client for tabletop.v1.TableService.
//
// TableClient opens tables and takes seats; SeatClient acts for one seat (or the arbiter,
// or a spectator) and sends its token as `x-seat-token` metadata; Watcher streams a game's
// events and resumes a dropped stream from the last version it saw, so its consumer never
// sees a gap or a duplicate.
//
// Every seat holds its own Ed25519 key (lib/seatkey.js), made here when it joins: its public
// key goes with JoinGame, and every command the seat sends is signed (docs/api.md, "Seat
// signatures"). After joining, the client checks that the server recorded that key.
const crypto = require('node:crypto');
const { load } = require('./protos');
const { contributionCommitment } = require('./deal');
const { findDetail } = require('./errors');
const { SeatKey, signRequest } = require('./seatkey');
const { checkAcknowledged } = require('./acks');
const { publicKey } = require('./verify');

const TOKEN_HEADER = 'x-seat-token';
// The game a call names, as metadata, so a balancer can send all of a game's calls to one
// replica (deploy/haproxy.cfg hashes it). Routing only: any replica answers any call.
const GAME_HEADER = 'x-game-id';
const DEFAULT_DEADLINE_MS = 10_000;

// Long-lived Watch streams: ping every 20 s; the server accepts pings every 10 s.
const CHANNEL_OPTIONS = {
  'grpc.keepalive_time_ms': 20_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.keepalive_permit_without_calls': 1,
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function deadline(ms) {
  return new Date(Date.now() + ms);
}

/** `metadata` with `x-game-id` set when the request names a game (`game_id`). */
function routed(metadata, request) {
  if (request && typeof request.game_id === 'string' && request.game_id) {
    metadata.set(GAME_HEADER, request.game_id);
  }
  return metadata;
}

/**
 * A unary call whose reply comes back with its bytes too ({raw, reply}): a receipt's hash
 * covers the events exactly as they were sent.
 */
function unaryRaw(stub, method, request, metadata, deadlineMs = DEFAULT_DEADLINE_MS) {
  const def = load().TableService.service[method];
  const deserialize = (buf) => ({ raw: Buffer.from(buf), reply: def.responseDeserialize(buf) });
  return new Promise((resolve, reject) => {
    stub.makeUnaryRequest(
      def.path, def.requestSerialize, deserialize, request, routed(metadata, request),
      { deadline: deadline(deadlineMs) }, (err, out) => (err ? reject(err) : resolve(out)),
    );
  });
}

class SeatKeyNotRecorded extends Error {}

/** Call a unary method of a grpc-js stub as a promise. */
function unary(stub, method, request, metadata, deadlineMs = DEFAULT_DEADLINE_MS) {
  return new Promise((resolve, reject) => {
    const options = { deadline: deadline(deadlineMs) };
    stub[method](request, routed(metadata, request), options, (err, reply) => {
      if (err) reject(err);
      else resolve(reply);
    });
  });
}

class TableClient {
  /**
   * @param {string} target host:port of the server
   * @param {{token?: string, credentials?: object, channelOptions?: object}} [opts]
   */
  constructor(target = '127.0.0.1:50051', opts = {}) {
    const { grpc, TableService } = load();
    this.grpc = grpc;
    this.target = target;
    this.token = opts.token || null;
    this.stub = new TableService(
      target,
      opts.credentials || grpc.credentials.createInsecure(),
      { ...CHANNEL_OPTIONS, ...(opts.channelOptions || {}) },
    );
  }

  close() {
    this.stub.close();
  }

  /** The server's signing keys (current and retired), asked once: they check receipts. */
  async serverKeys() {
    if (!this._serverKeys) {
      const reply = await unary(this.stub, 'GetSigningKey', {}, this.metadata(null));
      const raw = [reply.public_key, ...(reply.retired || []).map((k) => k.public_key)];
      this._serverKeys = raw.map((k) => publicKey(Buffer.from(k).toString('hex')));
    }
    return this._serverKeys;
  }

  metadata(token = this.token) {
    const md = new this.grpc.Metadata();
    if (token) md.set(TOKEN_HEADER, token);
    return md;
  }

  /**
   * Open a table. `options` is a tabletop.v1.GameOptions object, e.g. {huaniao: {mode:
   * 'MODE_BASIC'}}. `allowUnkeyedSeats`: admit seats without a key (their commands stand on
   * the server's word alone). `match`: MatchSettings, e.g. {hands: 2, advance: 'HAND_ADVANCE_READY'}.
   */
  createGame(options, seatCount, { seed, deck, allowUnkeyedSeats = false, match } = {}) {
    const request = { options, seat_count: seatCount, deck: deck || [], allow_unkeyed_seats: allowUnkeyedSeats };
    if (match) request.match = match; // a tabletop.v1.MatchSettings: a match of hands
    if (seed !== undefined && seed !== null) request.seed = seed;
    return unary(this.stub, 'CreateGame', request, this.metadata());
  }

  /**
   * Take a seat; returns a SeatClient that carries the seat token. The seat commits to its
   * own contribution to the deal (by default 16 fresh random bytes as hex), so no other
   * party can choose the deal; only the commitment is sent now, `reveal()` sends the value
   * once every seat is taken. `{contribution: ''}` contributes nothing.
   *
   * The seat gets a fresh Ed25519 key (or `key`, a SeatKey); the join is signed with it and
   * so is every later command. Once seated, the client checks that the seat's recorded
   * public key is its own and throws SeatKeyNotRecorded if not: a server that dropped the
   * key could stand in for the seat. `{unkeyed: true}` joins without a key (a table that
   * allows unkeyed seats): its commands then stand on the server's word alone.
   */
  async join(gameId, seat, playerName = '', { contribution, key, unkeyed = false } = {}) {
    const mine = contribution === undefined ? crypto.randomBytes(16).toString('hex') : contribution;
    const seatKey = unkeyed ? null : key || SeatKey.generate();
    let request = {
      game_id: gameId,
      seat,
      player_name: playerName,
      contribution_commitment: mine ? contributionCommitment(mine) : '',
    };
    if (seatKey) {
      request.seat_public_key = seatKey.publicKey;
      request = signRequest(seatKey, 'JoinGame', request); // nothing seen yet: version 0
    }
    const reply = await unary(this.stub, 'JoinGame', request, this.metadata(null));
    const joined = new SeatClient(this, gameId, reply.seat, reply.seat_token, mine, seatKey);
    joined.noteSeen(gameId, reply.version, '');
    if (seatKey) await joined.checkKeyRecorded();
    return joined;
  }

  /**
   * Act with an existing token (seat or arbiter), or as a spectator without one; `key`: the
   * seat's SeatKey, which signs its commands (without one a keyed seat is refused).
   */
  asViewer(gameId, token = null, seat = null, { key = null } = {}) {
    return new SeatClient(this, gameId, seat, token, '', key);
  }
}

class SeatClient {
  constructor(client, gameId, seat, token, contribution = '', key = null) {
    this.client = client;
    this.gameId = gameId;
    this.seat = seat;
    this.token = token;
    this.contribution = contribution; // this seat's contribution to the deal, until revealed
    this.key = key; // this seat's SeatKey; null: unsigned (a spectator, the arbiter, an unkeyed seat)
    this.seen = new Map(); // game id -> {version, hash}: the latest version this client has seen
  }

  get stub() {
    return this.client.stub;
  }

  metadata() {
    return this.client.metadata(this.token);
  }

  /** Remember that `gameId` was seen at `version` with chain hash `hash` (newer wins). */
  noteSeen(gameId, version, hash) {
    const v = Number(version) || 0;
    const was = this.seen.get(gameId);
    if (!was || v > was.version || (v === was.version && hash && !was.hash)) {
      this.seen.set(gameId, { version: v, hash: hash || '' });
    }
  }

  /** Remember the last of `events` (a reply's or a stream's) as seen. */
  noteEvents(gameId, events, receipt = null) {
    const last = (events || [])[(events || []).length - 1];
    if (last) this.noteSeen(gameId, last.version, last.hash);
    this.noteReceipt(gameId, receipt);
  }

  /** A receipt of format 3 carries the chain head at its last version (events carry none). */
  noteReceipt(gameId, receipt) {
    if (receipt && receipt.head && receipt.head.length) {
      this.noteSeen(gameId, receipt.last_version, Buffer.from(receipt.head).toString('hex'));
    }
  }

  /**
   * `request` signed by this seat's key for `method` (unchanged without a key): the
   * SignedCommand names `gameId`, the latest version seen there and its chain hash.
   */
  sign(method, request, gameId = request.game_id, seen = this.seen.get(gameId)) {
    if (!this.key) return request;
    const { version = 0, hash = '' } = seen || {};
    return signRequest(this.key, method, request, { gameId, expectedVersion: version, headHash: hash });
  }

  /** The chain hash at `version` of this game: remembered, else read from that version's view. */
  async headAt(version) {
    const seen = this.seen.get(this.gameId);
    if (seen && seen.version === Number(version) && seen.hash) return seen.hash;
    const reply = await unary(this.stub, 'GetView', { game_id: this.gameId, version }, this.metadata());
    return reply.view.head_hash;
  }

  /**
   * The seat's public key as the server recorded it must be this client's: else throw
   * SeatKeyNotRecorded (SEAT KEY NOT RECORDED), since a server that drops a seat's key can
   * stand in for the seat.
   */
  async checkKeyRecorded() {
    const view = await this.view();
    const info = (view.seats || []).find((s) => s.seat === this.seat) || {};
    const recorded = Buffer.from(info.public_key || []);
    if (!this.key || !recorded.equals(this.key.publicKey)) {
      throw new SeatKeyNotRecorded(
        `SEAT KEY NOT RECORDED: seat ${this.seat} of game ${this.gameId} joined with key ` +
        `${this.key ? this.key.publicKey.toString('hex') : '(none)'}, the server shows ` +
        `${recorded.length ? recorded.toString('hex') : 'none'}: do not play here`,
      );
    }
  }

  /**
   * Replace this seat's key (the old one was lost): RekeySeat signed by the new key, recorded
   * as SeatRekeyed for everyone to see. Returns the version after it.
   */
  async rekey(newKey = SeatKey.generate()) {
    const request = { game_id: this.gameId, seat_public_key: newKey.publicKey };
    const seen = this.seen.get(this.gameId) || {};
    const signed = signRequest(newKey, 'RekeySeat', request, { expectedVersion: seen.version || 0, headHash: seen.hash || '' });
    const reply = await unary(this.stub, 'RekeySeat', signed, this.metadata());
    this.key = newKey;
    this.noteSeen(this.gameId, reply.version, '');
    return reply.version;
  }

  /**
   * Reveal this seat's contribution (once every seat is taken); safe to repeat (a repeat
   * gets the first one's acknowledgement). Throws NotAcknowledged when the reply holds no
   * valid signed acknowledgement: the reveal was not taken.
   */
  async reveal() {
    if (!this.contribution) return null;
    const request = this.sign('RevealContribution', { game_id: this.gameId, contribution: this.contribution });
    const { raw, reply } = await unaryRaw(this.stub, 'RevealContribution', request, this.metadata());
    await this.acknowledged('reveal', 'RevealContributionResponse', raw, reply, this.gameId, 'contribution_revealed', null);
    return reply;
  }

  /** The reply's acknowledgement must check (lib/acks.js), else NotAcknowledged. */
  async acknowledged(what, responseType, raw, reply, gameId, fact, commitment) {
    const keys = await this.client.serverKeys();
    checkAcknowledged(what, responseType, raw, reply, { gameId, seat: this.seat, fact, commitment, keys });
    this.noteEvents(gameId, reply.events, reply.receipt);
  }

  /**
   * Commit to a fresh contribution (16 random bytes as hex) to the deal being drawn at this
   * table: a match's later hand, or a 重新洗牌发牌. `reveal()` sends it once every seat has
   * committed; the server deals once every input is in.
   */
  async commitContribution() {
    this.contribution = crypto.randomBytes(16).toString('hex');
    const commitment = contributionCommitment(this.contribution);
    const request = this.sign('CommitContribution', { game_id: this.gameId, commitment });
    const { raw, reply } = await unaryRaw(this.stub, 'CommitContribution', request, this.metadata());
    await this.acknowledged('commitment', 'CommitContributionResponse', raw, reply, this.gameId, 'seat_committed', commitment);
    return reply;
  }

  /**
   * Ready for the match's next hand (open once this hand has ended, its commitment public):
   * commit to a fresh contribution on it and move this client to it. Then `reveal()`.
   */
  async readyNextHand() {
    this.contribution = crypto.randomBytes(16).toString('hex');
    const commitment = contributionCommitment(this.contribution);
    // a signed commitment names the hand it goes into: the match's current hand once this
    // one has ended (the server opens it then)
    const hand = this.key ? await this.nextHandId() : this.gameId;
    const request = this.sign('ReadyNextHand', { game_id: hand, commitment }, hand);
    const { raw, reply } = await unaryRaw(this.stub, 'ReadyNextHand', request, this.metadata());
    await this.acknowledged('commitment', 'ReadyNextHandResponse', raw, reply, reply.game_id, 'seat_committed', commitment);
    if (reply.match && reply.match.current_game_id) this.gameId = reply.match.current_game_id;
    return reply.match;
  }

  /** The match's current hand as this hand's view shows it (this hand while it runs). */
  async nextHandId() {
    const view = await this.view();
    return (view.match && view.match.current_game_id) || this.gameId;
  }

  /** Deal: every committed seat must have revealed (nobody stands in for a seat). */
  async start() {
    const request = this.sign('StartGame', { game_id: this.gameId });
    const reply = await unary(this.stub, 'StartGame', request, this.metadata());
    return reply.version;
  }

  /**
   * Reveal this seat's contribution, then start the game as soon as the deal may be made:
   * while other seats' reveals are pending (REVEALS_PENDING) it waits and asks again, and a
   * game someone else started is fine. Resolves when the game has been dealt.
   */
  async startWhenRevealed({ timeoutMs = 60_000, pollMs = 50 } = {}) {
    await this.reveal();
    const until = Date.now() + timeoutMs;
    for (;;) {
      try {
        return await this.start();
      } catch (err) {
        const reason = (findDetail(err, 'ErrorInfo') || {}).reason;
        if (reason === 'GAME_ALREADY_STARTED') return (await this.view()).version;
        if (reason !== 'REVEALS_PENDING' || Date.now() > until) throw err;
      }
      await sleep(pollMs);
    }
  }

  /** The GameView at `version` (latest when omitted). */
  async view(version) {
    const request = { game_id: this.gameId };
    if (version !== undefined && version !== null) request.version = version;
    const reply = await unary(this.stub, 'GetView', request, this.metadata());
    if (reply.view && reply.view.game_id === this.gameId) this.noteSeen(this.gameId, reply.view.version, reply.view.head_hash);
    return reply.view;
  }

  /** {version, moves}: play one of `moves` with `expected_version = version`. */
  legalMoves() {
    return unary(this.stub, 'LegalMoves', { game_id: this.gameId }, this.metadata());
  }

  /**
   * Play a Move (as returned by legalMoves) against `expectedVersion`, signed by the seat's
   * key over that version and its chain hash. `requestId`: an idempotency key.
   */
  async play(move, expectedVersion, { requestId = '' } = {}) {
    const request = await this.playRequest(move, expectedVersion, { requestId });
    const reply = await unary(this.stub, 'Play', request, this.metadata());
    this.noteEvents(this.gameId, reply.events, reply.receipt);
    return reply;
  }

  /** A PlayRequest for `move` at `expectedVersion`, signed as Play signs it. */
  async playRequest(move, expectedVersion, { requestId = '' } = {}) {
    let request = { game_id: this.gameId, expected_version: expectedVersion, move };
    if (requestId) request.request_id = requestId;
    if (this.key) {
      const hash = await this.headAt(expectedVersion);
      request = this.sign('Play', request, this.gameId, { version: Number(expectedVersion), hash });
    }
    return request;
  }

  /**
   * A PlaySession (docs/api.md, "Play session"): this seat's stream (batched) and its Plays
   * on one call. Iterate the returned call for messages whose `response` is `watch` (what
   * Watch sends), `played` (a Play's reply) or `refused` (its status; nothing appended);
   * send moves with `sessionPlay`, and `call.end()` when there are no more.
   */
  session({ afterVersion = 0, excludeOwnMoves = false } = {}) {
    const watch = {
      game_id: this.gameId, after_version: afterVersion, batched: true, exclude_own_moves: excludeOwnMoves,
    };
    const call = this.stub.PlaySession(routed(this.metadata(), watch));
    call.write({ watch });
    return call;
  }

  /** Send a signed Play on a session; its answer comes on the session, in order. */
  async sessionPlay(call, move, expectedVersion, { requestId = '' } = {}) {
    call.write({ play: await this.playRequest(move, expectedVersion, { requestId }) });
  }

  /** Every event this viewer may see, paging through GetHistory. */
  async history(pageSize = 500) {
    const events = [];
    let token = '';
    for (;;) {
      const page = await unary(
        this.stub, 'GetHistory',
        { game_id: this.gameId, page_size: pageSize, page_token: token },
        this.metadata(),
      );
      events.push(...page.events);
      token = page.next_page_token;
      if (!token) return events;
    }
  }

  /**
   * The raw server stream of WatchResponse messages after `afterVersion` (no resume). With
   * `batched`, each message carries a move's `events` (not one `event`); on a seat's own
   * stream the last message of a move carries `legal_moves` when it is the seat's turn.
   * With `excludeOwnMoves` (a seat's stream only), the moves this seat made with Play are
   * left out: their replies carried them.
   */
  watchCall(afterVersion = 0, { batched = false, excludeOwnMoves = false } = {}) {
    const request = {
      game_id: this.gameId, after_version: afterVersion, batched, exclude_own_moves: excludeOwnMoves,
    };
    return this.stub.Watch(request, routed(this.metadata(), request));
  }

  /** A resuming Watcher of this game; iterate it with `for await`. */
  watcher(afterVersion = 0, opts = {}) {
    return new Watcher(this, afterVersion, opts);
  }
}

/**
 * Streams GameEvents after a version and resumes a dropped stream with `after_version` =
 * the last version delivered. Ends when the game is over and everything was sent.
 * `reconnect()` drops the current call on purpose (e.g. an app going to the background);
 * the next events come from a fresh call, with no gap and no duplicate.
 */
class Watcher {
  constructor(seatClient, afterVersion = 0, { retries = 20, backoffMs = 100 } = {}) {
    this.seatClient = seatClient;
    this.last = afterVersion;
    this.retries = retries;
    this.backoffMs = backoffMs;
    this.calls = 0; // how many Watch calls were opened (1 + resumes)
    this._call = null;
    this._reconnecting = false;
    this._closed = false;
  }

  reconnect() {
    if (this._call) {
      this._reconnecting = true;
      this._call.cancel();
    }
  }

  close() {
    this._closed = true;
    if (this._call) this._call.cancel();
  }

  async *[Symbol.asyncIterator]() {
    const { grpc } = load();
    const retryable = new Set([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]);
    let failures = 0;
    while (!this._closed) {
      const call = this.seatClient.watchCall(this.last);
      this._call = call;
      this.calls += 1;
      try {
        for await (const reply of call) {
          failures = 0;
          const event = reply.event;
          this.seatClient.noteReceipt(this.seatClient.gameId, reply.receipt);
          if (!event) continue; // a receipt alone (format 3)
          if (event.version <= this.last) continue; // never hand a consumer a duplicate
          this.last = event.version;
          this.seatClient.noteSeen(this.seatClient.gameId, event.version, event.hash);
          yield event;
          if (this._closed) return;
        }
        return; // the server ended the stream: the game is over
      } catch (err) {
        if (this._closed) return;
        if (this._reconnecting && err.code === grpc.status.CANCELLED) {
          this._reconnecting = false;
          continue;
        }
        if (!retryable.has(err.code) || failures >= this.retries) throw err;
        failures += 1;
        await sleep(this.backoffMs * failures);
      } finally {
        this._call = null;
        call.cancel();
      }
    }
  }
}

/**
 * A match's next hand drawn by a process that plays every seat: each commits (ReadyNextHand),
 * then each reveals; the server deals it. Resolves with the match.
 */
async function drawNextHand(seats) {
  let match = null;
  for (const seat of seats) match = await seat.readyNextHand();
  for (const seat of seats) await seat.reveal();
  return match;
}

/** Every seat reveals, then the first starts (a process that plays every seat). */
async function revealAndStart(seats) {
  for (const seat of seats) await seat.reveal();
  return seats[0].start();
}

module.exports = {
  TableClient, SeatClient, Watcher, TOKEN_HEADER, GAME_HEADER, CHANNEL_OPTIONS, unary, unaryRaw, routed,
  sleep, revealAndStart, drawNextHand, SeatKeyNotRecorded,
};
