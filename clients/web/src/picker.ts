// Play by touching cards: from a seat's legal moves and the cards it touched, what the page
// offers. Pure (no DOM, no page state): the browser's move picker and the Node test over the
// Python engine's random hands (tests/web/test_picker.py) run this same code.
//
// The rule: a move is offered only when it uses every touched card; the move that uses
// exactly the touched cards is "the obvious play" (one button); never more than SCREEN
// choices at once (one phone screen), the rest narrowed by touching more cards. Moves that
// use no card (过, 胡, 碰, a pass) are always offered beside them.
import type { Move } from "../gen/tabletop/v1/tabletop_pb";

/** The most choices the picker shows at once: what fits one 360x740 phone screen below the hand. */
export const SCREEN = 6;

export interface Choice {
  /** The move's index in the LegalMovesResponse. */
  index: number;
  /** The hand cards it uses (for 川南字牌's 吃: the pair and every 比 group's). */
  cards: number[];
  /** The server's label (render_moves.py), which names the cards. */
  label: string;
}

export interface Picked {
  /** The plays offered now, the obvious play first: at most SCREEN - plain.length. */
  offers: Choice[];
  /** The one play that uses exactly the touched cards, when there is exactly one. */
  obvious: Choice | null;
  /** Plays that use the touched cards but are not shown (touch more cards to narrow). */
  more: number;
  /** Hand cards that still belong to some offered-or-narrowable play (the rest are dimmed). */
  playable: Set<number>;
  /** Moves that use no card: always offered. */
  plain: Choice[];
  /** Card plays in all (before any touch), for "touch a card" hints. */
  total: number;
}

/** The hand cards a move uses (to filter by the touched cards and to show them). */
export function moveCards(m: Move): number[] {
  if (m.game.case === "huaniao") {
    const k = m.game.value.kind;
    if (k.case === "play" || k.case === "discard") return [...k.value.cards];
  }
  if (m.game.case === "zipai") {
    const k = m.game.value.kind;
    if (k.case === "discard") return [k.value.card];
    if (k.case === "chi") return [...k.value.cards, ...k.value.bi.flatMap((b) => b.cards)];
  }
  return [];
}

/** A move's label without the part that tells two cards of one face apart: "打 六" and
 * "打 六（六第2张）" are one choice when no card is touched. */
export const sameChoice = (label: string): string => label.split("（")[0];

/** The game's moves (table moves left out) as choices. */
export function choices(moves: readonly Move[], labels: readonly string[]): Choice[] {
  const out: Choice[] = [];
  moves.forEach((m, index) => {
    if (m.game.case === "table") return;
    out.push({ index, cards: moveCards(m), label: labels[index] ?? "" });
  });
  return out;
}

/** What to offer for `touched` cards (in any order). */
export function pick(all: readonly Choice[], touched: readonly number[], screen = SCREEN): Picked {
  const plainSeen = new Set<string>();
  const plain = all.filter((c) => !c.cards.length && !plainSeen.has(c.label) && !!plainSeen.add(c.label));
  const plays = all.filter((c) => c.cards.length);
  const room = Math.max(1, screen - plain.length);
  const sel = new Set(touched);
  const matching = plays.filter((c) => [...sel].every((id) => c.cards.includes(id)));
  const playable = new Set<number>();
  for (const c of matching) for (const id of c.cards) playable.add(id);
  // one choice per label (two cards of one face make the same play when none is touched)
  const seen = new Set<string>();
  const distinct = matching
    .map((c) => ({ c, extra: new Set(c.cards).size - sel.size }))
    .sort((a, b) => a.extra - b.extra || a.c.index - b.c.index)
    .filter(({ c }) => {
      const key = sel.size ? c.label : sameChoice(c.label);
      return !seen.has(key) && !!seen.add(key);
    })
    .map(({ c, extra }) => ({ c: sel.size ? c : { ...c, label: sameChoice(c.label) }, extra }));
  const exact = distinct.filter((x) => x.extra === 0).map((x) => x.c);
  const obvious = sel.size && exact.length === 1 ? exact[0] : null;
  let offers: Choice[];
  if (!sel.size) {
    // nothing touched: every play when they fit, else none (the hand is the menu)
    offers = distinct.length <= room ? distinct.map((x) => x.c) : [];
  } else if (exact.length) {
    // the touched cards make a play: that play (or those, when one set of cards makes
    // several), then the larger plays they start, while there is room
    offers = distinct.slice(0, room).map((x) => x.c);
  } else {
    offers = distinct.length <= room ? distinct.map((x) => x.c) : [];
  }
  return { offers, obvious, more: distinct.length - offers.length, playable, plain, total: plays.length };
}
