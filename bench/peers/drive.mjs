// The peers' network clients (issue 38): node drive.mjs PEER URL GAMES CONCURRENCY MOVES
// PEER is "bgio" (boardgame.io's own client over socket.io) or "colyseus" (@colyseus/sdk).
// Plays GAMES games, CONCURRENCY at a time, each with four seat clients, each on its own
// connection, each playing a legal card (rules.mjs) when the state it was sent says it is
// its turn. Prints one JSON line: games, moves, bytes (every message the seats received:
// each WebSocket message's payload, the transports' framing not counted), resyncs.
import { createRequire } from "node:module";
import WebSocket from "ws";
import { SEATS, legalCards } from "./rules.mjs";

const require = createRequire(import.meta.url);
const [peer, url, games, concurrency, moves] = process.argv.slice(2).map((a, i) => (i < 2 ? a : Number(a)));
const tally = { games: 0, moves: 0, bytes: 0, resyncs: 0 };
const STALL_MS = 3000; // a boardgame.io game with no news for this long asks for the state again
const DEAD_MS = 30000; // a game with no news for this long stops the run (it would hang it)

function deadline(lastNews, what) {
  return setInterval(() => {
    if (Date.now() - lastNews() > DEAD_MS) throw new Error(`${what}: no news for ${DEAD_MS} ms`);
  }, 1000);
}

const pick = (cards) => cards[Math.floor(Math.random() * cards.length)];

// The comparison holds only for a hidden-hand game: a seat that is sent another's cards stops
// the run (the Python side reports drive.mjs's failure).
function hidden(seen, what) {
  if (seen) throw new Error(`a seat was sent another seat's hand (${what})`);
}

// boardgame.io: a match made through the lobby API, four Clients with their credentials.
async function bgioGame() {
  const { Client, LobbyClient } = require("boardgame.io/client");
  const { SocketIO } = require("boardgame.io/multiplayer");
  const { followSuit } = await import("./bgio-game.mjs");
  const game = followSuit();
  const lobby = new LobbyClient({ server: url });
  const { matchID } = await lobby.createMatch(game.name, { numPlayers: SEATS, setupData: moves });
  const seats = [];
  for (let s = 0; s < SEATS; s++) {
    const joined = await lobby.joinMatch(game.name, matchID, { playerID: String(s), playerName: `p${s}` });
    seats.push(joined.playerCredentials);
  }
  let news = Date.now();
  const clients = seats.map((credentials, s) =>
    Client({
      game,
      multiplayer: SocketIO({ server: url, socketOpts: { transports: ["websocket"], forceNew: true } }),
      matchID,
      playerID: String(s),
      credentials,
      numPlayers: SEATS,
      debug: false,
    }),
  );
  const acted = clients.map(() => -1);
  const over = clients.map(
    (client, s) =>
      new Promise((resolve) => {
        client.subscribe((state) => {
          if (!state) return;
          news = Date.now();
          hidden("hands" in state.G, "boardgame.io G.hands");
          if (state.ctx.gameover) return resolve();
          if (state.ctx.currentPlayer !== String(s) || state._stateID <= acted[s]) return;
          acted[s] = state._stateID;
          client.moves.play(pick(legalCards(state.G.hand, state.G.last)));
          tally.moves++;
        });
      }),
  );
  for (const client of clients) {
    client.start();
    const manager = client.transport.socket.io;
    manager.on("open", () =>
      manager.engine.on("packet", (p) => {
        tally.bytes += 1 + (p.data == null ? 0 : typeof p.data === "string" ? Buffer.byteLength(p.data) : p.data.byteLength);
      }),
    );
  }
  const dead = deadline(() => news, `boardgame.io match ${matchID}`);
  const watchdog = setInterval(() => {
    if (Date.now() - news < STALL_MS) return;
    news = Date.now(); // FlatFile can drop a move sent right after an update: sync again
    tally.resyncs++;
    clients.forEach((c, s) => ((acted[s] = -1), c.transport.requestSync()));
  }, 500);
  await Promise.all(over);
  clearInterval(watchdog);
  clearInterval(dead);
  clients.forEach((c) => c.stop());
}

// Colyseus: the first seat creates the room, the others join it in turn (seat = join order).
let colyseus;
async function colyseusGame() {
  if (!colyseus) {
    // @colyseus/sdk takes globalThis.WebSocket when there is one: this one counts what it gets
    globalThis.WebSocket = class CountingWebSocket extends WebSocket {
      constructor(...args) {
        super(...args);
        this.on("message", (data) => (tally.bytes += data.byteLength));
      }
    };
    const { Client } = await import("@colyseus/sdk");
    colyseus = new Client(url);
  }
  const rooms = [await colyseus.create("follow_suit", { moves })];
  for (let s = 1; s < SEATS; s++) rooms.push(await colyseus.joinById(rooms[0].roomId));
  let news = Date.now();
  const dead = deadline(() => news, `Colyseus room ${rooms[0].roomId}`);
  const over = rooms.map(
    (room, s) =>
      new Promise((resolve) => {
        let acted = -1;
        room.onStateChange((state) => {
          news = Date.now();
          hidden(state.seats.some((seat, i) => i !== s && seat.hand?.length), "a Colyseus seat's hand");
          if (state.over) return resolve();
          const left = state.seats.reduce((n, seat) => n + seat.count, 0);
          if (state.seats.length < SEATS || state.turn !== s || left === acted) return;
          acted = left;
          room.send("play", pick(legalCards([...state.seats[s].hand], state.last)));
          tally.moves++;
        });
      }),
  );
  await Promise.all(over);
  clearInterval(dead);
  await Promise.all(rooms.map((r) => r.leave()));
}

const play = { bgio: bgioGame, colyseus: colyseusGame }[peer];
let next = 0;
async function worker() {
  while (next < games) {
    next++;
    await play();
    tally.games++;
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
console.log(JSON.stringify(tally));
process.exit(0);
