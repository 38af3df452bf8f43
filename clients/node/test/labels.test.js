'use strict';
// Move labels (LegalMovesResponse.labels): within one response a label names one move, so the
// Node bot and watcher can show moves by their labels. A 川南字牌 game (pairs in the hands) is
// played by Node bots that check every response they are given; `bin/bot.js --verbose` and
// `bin/watch.js --moves` print the labels.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawn, execFile } = require('node:child_process');
const { promisify } = require('node:util');
const { RandomBot, revealAndStart, labelledMoves, moveByLabel } = require('../lib');
const { target, seatedGame, withClient } = require('./helpers');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const BIN = path.join(__dirname, '..', 'bin');
const LATIN = /[A-Za-z]/;

function checkLabels(legal, where) {
  const labels = legal.labels;
  assert.equal(labels.length, legal.moves.length, `${where}: a label per move`);
  const doubled = labels.filter((l, i) => labels.indexOf(l) !== i);
  assert.deepEqual(doubled, [], `${where}: one label, one move`);
  for (const { move, label } of labelledMoves(legal)) {
    assert.ok(label && !LATIN.test(label), `${where}: ${label} in the game's words`);
    assert.equal(moveByLabel(legal, label), move, `${where}: ${label} finds its move`);
  }
}

/** A bot that checks each LegalMovesResponse before it moves. */
class CheckingBot extends RandomBot {
  constructor(seat, seed, seen) {
    super(seat, seed, { onMove: (m) => seen.played.push(m) });
    this.seen = seen;
    const ask = seat.legalMoves.bind(seat);
    seat.legalMoves = async () => {
      const legal = await ask();
      if (legal.moves.length) {
        checkLabels(legal, `seat ${seat.seat} v${legal.version}`);
        seen.labels.push(...legal.labels);
      }
      return legal;
    };
  }
}

/** Every bot asks for its moves in turn until the game is over (a 川南字牌 claim is known
 * only to the claimant, so no view names every seat awaited). */
async function playAll(bots, { before } = {}) {
  for (let i = 0; i < 20_000; i += 1) {
    const view = await bots[0].seat.view();
    if (view.phase === 'GAME_PHASE_FINISHED') return view;
    let acted = false;
    for (const bot of bots) {
      if (before) await before(bot, view);
      if (await bot.step()) acted = true;
    }
    if (!acted) await sleep(5);
  }
  throw new Error('the game did not end');
}

async function zipaiGame(client) {
  const created = await client.createGame({ zipai: {} }, 3);
  const seats = [];
  for (let s = 0; s < 3; s += 1) seats.push(await client.join(created.game_id, s, `node-${s}`));
  return { gameId: created.game_id, seats };
}

test('a 川南字牌 game: every response gives each move its own label', withClient(async (client) => {
  const seen = { labels: [], played: [] };
  let pairs = 0;
  // another game until a pair was offered and more than five moves were played (a random
  // 川南字牌 game can end within a few moves of its deal, the pair offered already)
  for (let round = 0; round < 8 && (!pairs || seen.played.length <= 5); round += 1) {
    const { seats } = await zipaiGame(client);
    await revealAndStart(seats);
    await playAll(seats.map((s, i) => new CheckingBot(s, 700 + 10 * round + i, seen)));
    pairs = seen.labels.filter((l) => /^打 (\S)（\1第2张）$/.test(l)).length;
  }
  assert.ok(seen.played.length > 5, 'the bots played');
  assert.ok(seen.played.every((m) => seen.labels.includes(m.label)), 'onMove names the label played');
  assert.ok(pairs > 0, 'a pair was offered as two moves with two labels');
}));

test('bin/bot.js --verbose prints each move by its label', async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath, [path.join(BIN, 'bot.js'), '--target', target(), '--verbose'], { timeout: 60_000 },
  );
  const lines = stdout.trim().split('\n');
  const moves = lines.slice(0, -1);
  assert.ok(moves.length > 2, stdout);
  for (const line of moves) assert.match(line, /^v {0,3}\d+ {2}[0-3]家 {2}\S/);
  assert.ok(moves.some((l) => /家 {2}(起|吟|诵|舞) /.test(l)), 'plays by kind and cards');
  assert.match(lines[lines.length - 1], /^game [0-9a-f-]{36}: \d+ moves/);
});

test('bin/watch.js --moves lists the seat\'s moves by label when it is its turn', withClient(async (client) => {
  const { gameId, seats } = await seatedGame(client, { start: false });
  const child = spawn(process.execPath, [
    path.join(BIN, 'watch.js'), gameId, '--target', target(), `--token=${seats[1].token}`, '--moves',
  ]);
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  await revealAndStart(seats);
  // seat 1 waits, its first few turns, until the watcher has listed its moves
  let waited = 0;
  const before = async (bot) => {
    if (bot.seat.seat !== 1 || waited >= 3) return;
    // the table as it is now (the round's view is older: the seats before moved since)
    const view = await bot.seat.view();
    if (!view.to_act.includes(1)) return;
    const until = Date.now() + 10_000;
    while (!out.includes(`at v${view.version}:`)) {
      assert.ok(Date.now() < until, `the watcher listed no moves at v${view.version}:\n${out}`);
      await sleep(20);
    }
    waited += 1;
  };
  await playAll(seats.map((s, i) => new RandomBot(s, 720 + i)), { before });
  const timer = setTimeout(() => child.kill(), 20_000);
  const code = await exited;
  clearTimeout(timer);
  assert.equal(code, 0, out);
  const blocks = out.split('你的走法 (your moves)').slice(1);
  assert.ok(blocks.length > 0, out);
  for (const block of blocks) {
    const labels = [...block.matchAll(/^ {6} {0,2}\d+ {2}(.+)$/gm)].map((m) => m[1]);
    assert.ok(labels.length > 0, block);
    assert.equal(new Set(labels).size, labels.length, block);
  }
  assert.match(out, /^v {0,3}1 {2}/m, 'the events too');
}));
