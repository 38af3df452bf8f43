// The peers' card game (issue 38): a comparable hidden-hand 4-seat game for boardgame.io and
// Colyseus. 40 cards (4 suits of 10); MOVES of them dealt round the table from seat 0; seat 0
// leads, then the seats play in turn, one card each turn; a card must follow the suit of the
// card played last when the mover holds that suit (any card otherwise). The game ends when
// every hand is empty, so a game is always MOVES moves. Each seat sees its own hand and the
// others' counts.
// Pure functions: both servers validate a mover's card with `isLegal`, the clients pick with
// `legalCards`.

export const SEATS = 4;
export const SUITS = 4;
export const RANKS = 10;
// A game's length when none is given: about a 4-seat 花鸟风月 basic hand's; bench/peers/
// section.py sends its own (MOVES there) with each new match or room.
export const MOVES = 19;

export const suitOf = (card) => Math.floor(card / RANKS);

/** `moves` cards (1 to 40) of the deck shuffled by `shuffle` (the server's own random
 * source), dealt round the table: seat s holds the cards of the moves it will make. */
export function deal(shuffle, moves) {
  const count = Math.max(1, Math.min(SUITS * RANKS, Math.floor(Number(moves)) || MOVES));
  const deck = shuffle([...Array(SUITS * RANKS).keys()]).slice(0, count);
  return Array.from({ length: SEATS }, (_, seat) => deck.filter((_, i) => i % SEATS === seat));
}

/** The cards of `hand` that may be played after `last` (-1: nothing played yet). */
export function legalCards(hand, last) {
  if (last < 0) return hand.slice();
  const follow = hand.filter((c) => suitOf(c) === suitOf(last));
  return follow.length ? follow : hand.slice();
}

export const isLegal = (hand, last, card) => legalCards(hand, last).includes(card);

export const isOver = (hands) => hands.every((h) => h.length === 0);
