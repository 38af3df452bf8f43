// The peers' card game (rules.mjs) as a boardgame.io game: the hands live in G, the
// server validates each move (INVALID_MOVE) and playerView sends a seat its own hand only.
import { createRequire } from "node:module";
import { deal, isLegal, isOver } from "./rules.mjs";

const { INVALID_MOVE } = createRequire(import.meta.url)("boardgame.io/core");

export function followSuit() {
  return {
    name: "follow-suit",
    minPlayers: 4,
    maxPlayers: 4,
    // setupData: the game's length in moves (createMatch's body), rules.mjs `deal`
    setup: ({ random }, moves) => ({ hands: deal((deck) => random.Shuffle(deck), moves), last: -1 }),
    turn: { minMoves: 1, maxMoves: 1 },
    moves: {
      // client: false: the clients hold a seat's view, not G, so only the server runs it
      play: {
        move: ({ G, playerID, events }, card) => {
          const mine = G.hands[playerID];
          if (!isLegal(mine, G.last, card)) return INVALID_MOVE;
          mine.splice(mine.indexOf(card), 1);
          G.last = card;
          events.endTurn();
        },
        client: false,
      },
    },
    endIf: ({ G }) => (isOver(G.hands) ? { over: true } : undefined),
    // A seat's view: its own hand, the others' counts; spectators see counts only.
    playerView: ({ G, playerID }) => ({
      last: G.last,
      hand: playerID != null && G.hands[playerID] ? G.hands[playerID] : [],
      counts: G.hands.map((h) => h.length),
    }),
  };
}
