// The console's generic values: any field of a server-rendered view (proto JSON) in the game's
// words, its cards drawn by the shared Card, a 川南字牌 face (0..19) as a card face, seats by
// name; a row per field, marked when it changed since the version before.
import { h, type ComponentChildren } from "preact";
import { CardKind } from "../../gen/tabletop/huaniao/v1/huaniao_pb";
import { Card, Backs, type AnyCard } from "../ui/cards";
import { KIND, L, O, u, label, termOf, seatName, seatsName, isCard, type J } from "./model";
import { TERMS } from "../words";

const kindNumber = (name: string): number => (CardKind as unknown as Record<string, number>)[name.replace(/^CARD_KIND_/, "")] ?? 0;
/** A card of the JSON as the shared Card reads it. */
export const asCard = (c: J): AnyCard => (typeof c.kind === "string"
  ? { id: c.id || 0, kind: kindNumber(c.kind) } : { id: c.id || 0, rank: c.rank || 0, big: !!c.big }) as unknown as AnyCard;

export const JCard = ({ c, fresh }: { c: J; fresh: Set<number> }) => h(Card, { card: asCard(c), small: true, fresh: fresh.has(c.id || 0) });
const JCards = ({ list, fresh }: { list: J[]; fresh: Set<number> }) =>
  h("span", { class: "cards" }, list.map((c) => h(JCard, { key: c.id || 0, c, fresh })));

/** A 川南字牌 face (0..19: 一…十 small, 壹…拾 big), no card id: a kind, not a card. */
const Face = ({ k }: { k: number }) => {
  const big = k >= 10;
  const name = (big ? "壹贰叁肆伍陆柒捌玖拾" : "一二三四五六七八九十")[k % 10];
  return h("span", { class: `card zp small face ${big ? "da" : "xiao"}`, title: name }, name);
};

export const Term = ({ v, cls }: { v: string; cls?: string }) =>
  h("span", { class: cls, title: TERMS.enums[v]?.[O()] }, termOf(v));

const SEAT_ONE = ["from_seat", "shown_by", "winner", "leader", "dealer", "turn", "seat", "guess_target", "accused", "by"];
const SEAT_LIST = ["to_act", "awaiting", "winners", "redeals_requested_by", "upheld_by", "rejected_by", "recused"];

export function Value({ v, k, fresh }: { v: J; k?: string; fresh: Set<number> }): ComponentChildren {
  if ((k === "played" || k === "guo_zhang") && KIND === "zipai" && Array.isArray(v)) {
    return h("span", { class: "cards" }, v.map((x: number, i: number) => h(Face, { key: i, k: x })));
  }
  if (k && SEAT_ONE.includes(k) && typeof v === "number") return h("span", {}, seatName(v));
  if (k && SEAT_LIST.includes(k) && Array.isArray(v) && v.every((x) => typeof x === "number")) return h("span", {}, seatsName(v));
  if (k === "hidden_size" && typeof v === "number") return h(Backs, { n: v });
  if ((k === "reason" || k === "end_reason") && typeof v === "string" && TERMS.reasons[v]) {
    return h("span", { title: TERMS.reasons[v][O()] }, TERMS.reasons[v][L()]);
  }
  if (Array.isArray(v) && v.length && v.every(isCard)) return h(JCards, { list: v, fresh });
  if (isCard(v)) return h(JCards, { list: [v], fresh });
  if (Array.isArray(v)) {
    return h("span", { class: "groups" }, v.map((item, i) => (item && typeof item === "object"
      ? h(Group, { key: i, obj: item, fresh })
      : [i ? (L() ? ", " : "、") : "", h(Term, { key: i, v: String(item) })])));
  }
  if (v && typeof v === "object") return h(Group, { obj: v, fresh });
  if (typeof v === "boolean") return h("span", { title: u(v ? "yes" : "no", O()) }, u(v ? "yes" : "no"));
  return h(Term, { v: String(v) });
}

// A group (a meld, a play, a case): its kind and shape by their words, its cards bare, the
// rest labelled. A 碰/招/拢 meld names its cards by the meld.
const BARE = ["kind", "group", "cards", "pattern"];
function Group({ obj, fresh }: { obj: J; fresh: Set<number> }) {
  const meld = typeof obj.kind === "string" && obj.kind.startsWith("MELD_KIND_") ? obj.kind : undefined;
  return h("span", { class: "group", "data-meld": meld }, Object.entries(obj).map(([k, v]) => {
    if (k === "group" && ["GROUP_KIND_TRIPLE", "GROUP_KIND_FOUR"].includes(v as string) && obj.kind) return null;
    if (BARE.includes(k) && typeof v === "string") return h(Term, { key: k, v, cls: "tag term" });
    return [BARE.includes(k) ? null : h("span", { class: "tag", title: label(k, O()) }, `${label(k)}:`),
      h(Value, { v, k, fresh })];
  }));
}

const same = (a: J, b: J) => JSON.stringify(a === undefined ? null : a) === JSON.stringify(b === undefined ? null : b);

/** A row per field of `obj` (and of `prev`, a field gone), `skip` left out. */
export function Rows({ obj, prev, skip, fresh }: { obj: J; prev: J | null; skip: string[]; fresh: Set<number> }) {
  const keys = [...new Set([...Object.keys(obj || {}), ...Object.keys(prev || {})])].filter((k) => !skip.includes(k));
  return keys.map((k) => {
    const v = (obj || {})[k];
    const changed = prev !== null && !same(v, (prev || {})[k]);
    return h("div", { key: k, class: changed ? "row changed" : "row", "data-key": k },
      h("span", { class: "k", title: label(k, O()) }, label(k)), h(Value, { v: v === undefined ? "" : v, k, fresh }));
  });
}
