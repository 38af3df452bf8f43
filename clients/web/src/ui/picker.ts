// The player's hand and the move picker: touch cards, and the page offers only the plays
// those cards make (picker.ts, pure); the play that uses exactly the touched cards is one
// button. Moves that use no card (过, 胡, a pass) are always there. A first-time player is
// told once how it works (localStorage remembers that they touched a card).
import { h } from "preact";
import { GamePhase, type GameView, type Move } from "../../gen/tabletop/v1/tabletop_pb";
import { w, gloss, moveLabel } from "../words";
import { choices, pick, type Choice } from "../picker";
import { Card, HandCard, cardName, handOf } from "./cards";

const HINT_KEY = "tabletop.hint.touch";
const hintSeen = (): boolean => {
  try {
    return localStorage.getItem(HINT_KEY) === "1";
  } catch {
    return true;
  }
};

export interface PickerProps {
  v: GameView; me: number; legal: { moves: Move[]; labels: string[] } | null; touched: number[];
  busy: boolean; onTouch: (touched: number[]) => void; onPlay: (m: Move) => void; playing: boolean;
}

/** What the picker offers now (null: no legal moves to pick from). */
export function picked(p: PickerProps) {
  if (!p.legal || !p.playing) return null;
  return pick(choices(p.legal.moves, p.legal.labels), p.touched);
}

export function Hand(p: PickerProps) {
  const hand = handOf(p.v, p.me);
  const myTurn = p.v.toAct.includes(p.me) && p.v.phase === GamePhase.PLAYING;
  const now = picked(p);
  const touch = (id: number) => {
    try {
      localStorage.setItem(HINT_KEY, "1");
    } catch { /* no storage */ }
    p.onTouch(p.touched.includes(id) ? p.touched.filter((x) => x !== id) : [...p.touched, id]);
  };
  return h("section", { class: "hand-box", "aria-labelledby": "hand-h" },
    h("h3", { id: "hand-h" }, `${w("hand")} (${hand.length})`,
      myTurn ? h("span", { class: "badge", id: "your-turn" }, w("yourTurn")) : null),
    h("div", { id: "hand", class: "cards hand", role: "group", "aria-label": w("hand") },
      hand.map((c) => p.playing
        ? h(HandCard, { key: c.id, card: c, touched: p.touched.includes(c.id),
          dimmed: !!now && now.total > 0 && !now.playable.has(c.id) && !p.touched.includes(c.id), onTouch: touch })
        : h(Card, { key: c.id, card: c }))));
}

export function Picker(p: PickerProps) {
  const now = picked(p);
  const names = new Map<number, string>(handOf(p.v, p.me).map((c) => [c.id, cardName(c)]));
  const button = (c: Choice, obvious: boolean) => {
    const m = p.legal!.moves[c.index];
    return h("button", { key: c.index, type: "button", class: obvious ? "move obvious primary" : "move",
      id: obvious ? "obvious-play" : undefined, "data-index": c.index, "data-cards": c.cards.join(" "),
      disabled: p.busy, title: gloss(c.label) || c.label, onClick: () => p.onPlay(m) },
      h("span", { class: "move-label" }, moveLabel(c.label)),
      c.cards.length && !c.cards.some((id) => c.label.includes(names.get(id) ?? "?"))
        ? h("span", { class: "move-cards" }, c.cards.map((id) => names.get(id) ?? "?").join(" ")) : null);
  };
  const table = (p.legal?.moves ?? []).some((m) => m.game.case === "table" && m.game.value.kind.case !== "retract");
  const offered = now ? now.offers.length + now.plain.length : 0;
  const hint = now && now.total > now.offers.length && !p.touched.length;
  return h("section", { class: "moves-box", "aria-labelledby": "moves-h", "data-offered": offered + (now?.more ?? 0),
    "data-shown": offered },
    h("h3", { id: "moves-h" }, w("moves")),
    !now || (!now.total && !now.plain.length) ? h("p", { class: "muted" }, table ? w("voteThere") : w("noMoves")) : null,
    hint ? h("p", { class: hintSeen() ? "muted" : "hint", id: "touch-hint" },
      hintSeen() ? w("pickHint") : w("touchHint")) : null,
    now && p.touched.length && !now.offers.length && !now.more ? h("p", { class: "muted" }, w("noneWith")) : null,
    h("div", { id: "moves", class: "moves" },
      now?.obvious ? button(now.obvious, true) : null,
      (now?.offers ?? []).filter((c) => c !== now?.obvious).map((c) => button(c, false)),
      (now?.plain ?? []).map((c) => button(c, false))),
    now?.more && p.touched.length ? h("p", { class: "muted", id: "more-plays" }, w("more", { n: now.more })) : null,
    p.touched.length ? h("button", { type: "button", class: "link", id: "clear-touch", onClick: () => p.onTouch([]) }, w("clear")) : null);
}
