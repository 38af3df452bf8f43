// A card, a row of face-down backs, and a seat's hand: shared by the play page and the
// console. A card's face is its Chinese name in either language (the English its tooltip).
import { h } from "preact";
import { CardKind, type Card as HCard } from "../../gen/tabletop/huaniao/v1/huaniao_pb";
import type { Card as ZCard } from "../../gen/tabletop/zipai/v1/zipai_pb";
import type { GameView } from "../../gen/tabletop/v1/tabletop_pb";
import { TERMS, w } from "../words";
import { enumText } from "../util";

export type AnyCard = HCard | ZCard;
const SMALL = "一二三四五六七八九十";
const BIG = "壹贰叁肆伍陆柒捌玖拾";

export function cardName(c: AnyCard): string {
  if ("kind" in c) return TERMS.enums[enumText(CardKind, "CARD_KIND_", c.kind)]?.[0] ?? "?";
  return (c.big ? BIG : SMALL)[c.rank - 1] ?? "?";
}
function cardClass(c: AnyCard): string {
  if ("kind" in c) return "hn k" + c.kind;
  return c.big ? "zp da" : "zp xiao";
}
const cardTitle = (c: AnyCard) =>
  "kind" in c ? TERMS.enums[enumText(CardKind, "CARD_KIND_", c.kind)]?.[1] ?? "" : `${c.big ? "big" : "small"} ${c.rank}`;

/** A card on the table (not touchable). */
export function Card({ card, small, fresh }: { card: AnyCard; small?: boolean; fresh?: boolean }) {
  return h("span", { class: `card ${cardClass(card)}${small ? " small" : ""}${fresh ? " new" : ""}`,
    "data-card": card.id, title: cardTitle(card) }, cardName(card));
}

/** A card in the player's hand: touched or not, dimmed when no play can use it now. */
export function HandCard({ card, touched, dimmed, onTouch }: {
  card: AnyCard; touched: boolean; dimmed: boolean; onTouch: (id: number) => void;
}) {
  return h("button", {
    type: "button", class: `card ${cardClass(card)}${touched ? " selected" : ""}${dimmed ? " dim" : ""}`,
    "data-card": card.id, "aria-pressed": String(touched), title: cardTitle(card), onClick: () => onTouch(card.id),
  }, cardName(card));
}

/** `n` face-down cards (at most 12 drawn) and their count. */
export function Backs({ n }: { n: number }) {
  return h("span", { class: "backs", "data-n": n, "aria-label": `${n} ${w("cards")}`, title: w("hidden") },
    ...Array.from({ length: Math.min(n, 12) }, (_, i) => h("span", { key: i, class: "back", "aria-hidden": "true" })),
    h("span", { class: "count" }, `×${n}`));
}

/** A row of cards. */
export const Cards = ({ cards, small, cls, fresh }: { cards: AnyCard[]; small?: boolean; cls?: string; fresh?: Set<number> }) =>
  h("div", { class: cls ?? "cards" }, ...cards.map((c) => h(Card, { key: c.id, card: c, small, fresh: fresh?.has(c.id) })));

/** The cards `seat` holds in `v`, in the order a hand is shown. */
export function handOf(v: GameView, seat: number): AnyCard[] {
  if (v.game.case === "huaniao") return [...(v.game.value.seats[seat]?.cards ?? [])].sort((a, b) => a.id - b.id);
  if (v.game.case === "zipai") {
    return [...(v.game.value.seats.find((s) => s.seat === seat)?.hand ?? [])]
      .sort((a, b) => Number(a.big) - Number(b.big) || a.rank - b.rank || a.id - b.id);
  }
  return [];
}
