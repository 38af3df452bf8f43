'use strict';
// A bot that plays uniformly random legal moves for one or more seats of a game, for any
// game kind: it never needs to understand a move, it picks one from LegalMoves.
const { load } = require('./protos');
const { sleep } = require('./client');

/** A small seeded PRNG (mulberry32), so a bot's choices are reproducible. */
function rng(seed) {
  let a = (Number(seed) >>> 0) || 0x9e3779b9;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A LegalMovesResponse's moves with their labels, `[{ move, label }]`. The server gives the
 * different moves of one response different labels in the game's words ("打 六" and
 * "打 六（六第2张）" for a pair, "诵 2 鸟+十"), so a label names exactly one move.
 */
function labelledMoves(legal) {
  const labels = legal.labels || [];
  return legal.moves.map((move, i) => ({ move, label: labels[i] || '' }));
}

/** The move of `legal` whose label is `label`, or undefined. */
function moveByLabel(legal, label) {
  const i = (legal.labels || []).indexOf(label);
  return i >= 0 ? legal.moves[i] : undefined;
}

class RandomBot {
  /**
   * @param {import('./client').SeatClient} seat
   * @param {number} seed
   * @param {{ onMove?: (played: { seat: number, version: number, label: string }) => void }} opts
   *   `onMove` hears each move the bot played: its seat, the version it made, its label.
   */
  constructor(seat, seed = 1, { onMove } = {}) {
    this.seat = seat;
    this.random = rng(seed);
    this.moves = 0;
    this.onMove = onMove || null;
  }

  /** Play one legal move if this seat has one now. Resolves to whether it played. */
  async step() {
    const { grpc } = load();
    const legal = await this.seat.legalMoves();
    if (!legal.moves.length) return false;
    const { move, label } = labelledMoves(legal)[Math.floor(this.random() * legal.moves.length)];
    let played;
    try {
      played = await this.seat.play(move, legal.version);
    } catch (err) {
      if (err.code === grpc.status.ABORTED) return false; // someone moved first: ask again
      throw err;
    }
    this.moves += 1;
    if (this.onMove) this.onMove({ seat: this.seat.seat, version: Number(played.version), label });
    return true;
  }
}

/**
 * Drive `bots` (any subset of a game's seats; other seats may be played by anyone else)
 * until the game is over. Between turns it waits on a spectator Watch stream instead of
 * polling, so it reacts as soon as another client moves. Resolves to the final GameView.
 */
async function playUntilOver(bots, { viewer, maxMoves = 20_000, idleTimeoutMs = 30_000 } = {}) {
  const look = viewer || bots[0].seat;
  const bySeat = new Map(bots.map((b) => [b.seat.seat, b]));
  const spectator = look.client.asViewer(look.gameId);
  const first = await look.view();
  const watcher = spectator.watcher(first.version);
  let seen = first.version;
  let wake = null;
  const pump = (async () => {
    try {
      for await (const event of watcher) {
        seen = event.version;
        if (wake) wake();
      }
    } catch {
      // the loop below notices a game that stopped moving
    }
    if (wake) wake();
  })();
  const changedSince = (version, ms) => new Promise((resolve) => {
    if (seen > version) return resolve(true);
    const timer = setTimeout(() => { wake = null; resolve(false); }, ms);
    wake = () => { clearTimeout(timer); wake = null; resolve(true); };
    return undefined;
  });
  let moves = 0;
  let idleSince = Date.now();
  try {
    while (moves < maxMoves) {
      const view = await look.view();
      if (view.phase === 'GAME_PHASE_FINISHED') return view;
      let acted = false;
      for (const seat of view.to_act) {
        const bot = bySeat.get(seat);
        if (bot && (await bot.step())) {
          moves += 1;
          acted = true;
        }
      }
      if (acted) {
        idleSince = Date.now();
        continue;
      }
      // Not our turn (or our move lost a race): wait for the next event, then look again.
      await changedSince(view.version, 200);
      if (seen > view.version) idleSince = Date.now();
      if (Date.now() - idleSince > idleTimeoutMs) {
        throw new Error(`game ${look.gameId} made no progress for ${idleTimeoutMs} ms at v${view.version}`);
      }
    }
    throw new Error(`game did not end in ${maxMoves} moves`);
  } finally {
    watcher.close();
    await pump;
  }
}

/**
 * Drive `bots` the way a mobile client plays: each seat follows its own batched Watch
 * stream, whose last message of a move carries the seat's `legal_moves` when it is its
 * turn, and plays from it (or from its own Play reply, which says the same when the seat
 * moves again at once). One RPC per move: no LegalMoves, no GetView, no polling. Resolves
 * to the number of moves played once every stream has ended with the game. With
 * `excludeOwnMoves`, a seat's stream leaves out its own moves (its Play replies carry them).
 */
async function playFromStreams(bots, { excludeOwnMoves = false } = {}) {
  const { grpc } = load();
  let moves = 0;
  await Promise.all(bots.map(async (bot) => {
    let done = 0; // the latest version this seat played from: each turn is taken once
    for await (const reply of bot.seat.watchCall(0, { batched: true, excludeOwnMoves })) {
      bot.seat.noteEvents(bot.seat.gameId, reply.events, reply.receipt); // the chain hash a signed Play names (format 3: the receipt's head)
      let turn = reply.legal_moves;
      while (turn && turn.version > done) {
        done = turn.version;
        const move = turn.moves[Math.floor(bot.random() * turn.moves.length)];
        let played;
        try {
          played = await bot.seat.play(move, turn.version);
        } catch (err) {
          if (err.code === grpc.status.ABORTED) break; // another seat moved first
          throw err;
        }
        moves += 1;
        bot.moves += 1;
        turn = played.legal_moves;
      }
    }
  }));
  return moves;
}

/**
 * `playFromStreams` on PlaySessions: each seat's stream and its Plays on one call. A refused
 * Play other than ABORTED (another seat moved first) fails the game. Returns the moves.
 */
async function playFromSessions(bots) {
  const { grpc } = load();
  let moves = 0;
  await Promise.all(bots.map(async (bot) => {
    let done = 0; // the latest version this seat played from: each turn is taken once
    const call = bot.seat.session({ excludeOwnMoves: true });
    for await (const message of call) {
      if (message.response === 'refused') {
        if (message.refused.code !== grpc.status.ABORTED) {
          call.cancel();
          throw new Error(`a Play was refused: ${message.refused.message}`);
        }
        continue; // another seat moved first: the stream brings the next turn
      }
      const reply = message[message.response];
      if (message.response === 'played') {
        moves += 1;
        bot.moves += 1;
      }
      bot.seat.noteEvents(bot.seat.gameId, reply.events, reply.receipt);
      const turn = reply.legal_moves;
      if (turn && turn.version > done) {
        done = turn.version;
        const move = turn.moves[Math.floor(bot.random() * turn.moves.length)];
        await bot.seat.sessionPlay(call, move, turn.version);
      }
    }
  }));
  return moves;
}

module.exports = {
  RandomBot, playUntilOver, playFromStreams, playFromSessions, rng, labelledMoves, moveByLabel,
};
