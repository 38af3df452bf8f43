// The table with its seats: each seat's panel (name, marks, cards or backs, melds, discards)
// and the centre (the game's facts, the last play or the card shown). Shared by both doors.
import { h, type ComponentChildren } from "preact";
import { Season, Need, Phase as HuaniaoPhase, type View as HView } from "../../gen/tabletop/huaniao/v1/huaniao_pb";
import { Phase as ZipaiPhase, MeldKind, type View as ZView } from "../../gen/tabletop/zipai/v1/zipai_pb";
import type { GameView } from "../../gen/tabletop/v1/tabletop_pb";
import { w, term, termTip, seatWord, getLang, TERMS } from "../words";
import { enumText } from "../util";
import { Card, Cards, Backs } from "./cards";

/** An enum value (its proto name) in the game's words, the other language's its tooltip. */
const T = (name: string) => h("span", { title: termTip(name) }, term(name));

/** "2家 · ann" (or "you"): `me` is the seat shown as the viewer's own (-1: none). */
export function seatLabel(v: GameView, s: number, me: number): string {
  const info = v.seats.find((x) => x.seat === s);
  const who = s === me ? w("you") : info?.playerName || w("free");
  return `${seatWord(s)} · ${who}`;
}

/** A seat's key marks: unkeyed (its commands stand on the server's word alone), re-keyed. */
export function SeatMarks({ v, s }: { v: GameView; s: number }) {
  const info = v.seats.find((x) => x.seat === s);
  if (!info?.taken) return null;
  return h("span", { class: "marks" },
    info.publicKey.length ? null : h("span", { class: "badge unkeyed", "data-mark": "unkeyed", title: w("unkeyed") }, w("unkeyedShort")),
    info.rekeyedAt.length ? h("span", { class: "badge rekeyed", "data-mark": "rekeyed", title: w("rekeyed") },
      `${w("rekeyedShort")} ${info.rekeyedAt.map((x) => `v${x}`).join(" ")}`) : null);
}

function Seat({ v, s, me, children }: { v: GameView; s: number; me: number; children?: ComponentChildren }) {
  const acting = v.toAct.includes(s);
  const winner = v.outcome?.winners.includes(s);
  return h("li", { class: `seat${acting ? " acting" : ""}${winner ? " winner" : ""}`, "data-seat": s },
    h("div", { class: "seat-name" }, seatLabel(v, s, me), h(SeatMarks, { v, s }),
      acting ? h("span", { class: "badge" }, w("toAct")) : null,
      winner ? h("span", { class: "badge win" }, w("winner")) : null),
    children);
}

/** What the console adds to the table: the cards new at this version, a seat's other fields. */
export interface TableExtra { fresh?: Set<number>; more?: (seat: number) => ComponentChildren }
type TableProps = { v: GameView; me: number; all?: boolean; x?: TableExtra };

/** The table: the other seats (every seat, with `all`: the console) and the centre. */
export function Table({ v, me, all, x }: TableProps) {
  if (v.game.case === "huaniao") return h(HuaniaoTable, { v, g: v.game.value, me, all, x });
  if (v.game.case === "zipai") return h(ZipaiTable, { v, g: v.game.value, me, all, x });
  return null;
}

/** With `all`: a panel for every seat of the table, one the game does not show yet included. */
const unshown = (v: GameView, shown: { seat: number }[], me: number, all?: boolean) => (all
  ? v.seats.filter((i) => !shown.some((s) => s.seat === i.seat)).map((i) => h(Seat, { key: i.seat, v, s: i.seat, me })) : []);

function HuaniaoTable({ v, g, me, all, x }: TableProps & { g: HView }) {
  const fresh = x?.fresh;
  const seats = g.seats.filter((s) => all || s.seat !== me).map((s) => h(Seat, { key: s.seat, v, s: s.seat, me },
    s.cards.length ? h(Cards, { cards: s.cards, small: true, fresh }) : h(Backs, { n: s.handCount }),
    h("div", { class: "muted" },
      s.seasons.length ? s.seasons.map((x) => term(enumText(Season, "SEASON_", x))).join("") + " " : "",
      s.owesDiscard ? `${term("PHASE_DISCARDING")} ${s.owesDiscard} ` : "",
      s.danceBanned ? `${TERMS.fields.dance_banned?.[getLang() === "en" ? 1 : 0] ?? ""} ` : ""),
    x?.more?.(s.seat)));
  const last = g.lastPlay;
  return h("section", { class: "table-box", "aria-label": w("table") },
    h("ul", { class: "others", id: all ? "seats" : undefined }, seats, unshown(v, g.seats, me, all)),
    h("div", { class: "centre", id: "centre" },
      h("div", { class: "facts" },
        h("span", {}, `${w("deck")} ${g.deckSize}`),
        g.season ? h("span", {}, `${w("season")} `, T(enumText(Season, "SEASON_", g.season))) : null,
        g.round ? h("span", {}, `${w("round")} ${g.round}`) : null,
        g.handLimit !== undefined ? h("span", {}, `${w("limit")} ${g.handLimit}`) : null,
        g.need ? h("span", {}, `${w("need")} `, T(enumText(Need, "NEED_", g.need)), g.reference ? ` ${g.reference}` : "") : null,
        h("span", {}, T(enumText(HuaniaoPhase, "PHASE_", g.phase)))),
      last && last.cards.length ? h("div", { class: "last-play" },
        h("span", { class: "label" }, `${w("lastPlay")} · ${seatWord(last.seat)}`),
        h("div", { class: "cards" }, last.cards.map((c) => h(Card, { key: c.id, card: c, fresh: fresh?.has(c.id) })))) : null));
}

type ZSeat = ZView["seats"][number];
const Melds = ({ s, fresh }: { s: ZSeat; fresh?: Set<number> }) => s.melds.length ? h("div", { class: "melds", "aria-label": w("melds") },
  s.melds.map((m, i) => h("span", { key: i, class: "meld", title: termTip(enumText(MeldKind, "MELD_KIND_", m.kind)) },
    h("span", { class: "meld-kind" }, term(enumText(MeldKind, "MELD_KIND_", m.kind))),
    m.cards.map((c) => h(Card, { key: c.id, card: c, small: true, fresh: fresh?.has(c.id) })),
    m.hiddenSize ? h(Backs, { n: m.hiddenSize }) : null))) : null;
const Discards = ({ s, fresh }: { s: ZSeat; fresh?: Set<number> }) => s.discards.length
  ? h(Cards, { cards: s.discards, small: true, cls: "discards", fresh }) : null;

function ZipaiTable({ v, g, me, all, x }: TableProps & { g: ZView }) {
  const fresh = x?.fresh;
  const seats = g.seats.filter((s) => all || s.seat !== me).map((s) => h(Seat, { key: s.seat, v, s: s.seat, me },
    !s.active ? h("div", { class: "muted" }, w("sitsOut")) : null,
    s.hand.length ? h(Cards, { cards: s.hand, small: true, fresh }) : h(Backs, { n: s.handSize }),
    h("div", { class: "muted" }, s.seat === g.dealer ? w("dealer") + " " : "", s.bao ? w("bao") : ""),
    h(Melds, { s, fresh }), h(Discards, { s, fresh }), x?.more?.(s.seat)));
  const mine = all ? undefined : g.seats.find((s) => s.seat === me);
  return h("section", { class: "table-box", "aria-label": w("table") },
    h("ul", { class: "others", id: all ? "seats" : undefined }, seats, unshown(v, g.seats, me, all)),
    h("div", { class: "centre", id: "centre" },
      h("div", { class: "facts" },
        h("span", {}, `${w("stock")} ${g.stockSize}`),
        h("span", {}, `${w("dealer")}: ${seatWord(g.dealer)}`),
        h("span", {}, T(enumText(ZipaiPhase, "PHASE_", g.phase)))),
      g.shown ? h("div", { class: "last-play" },
        h("span", { class: "label" }, `${w("shown")}${g.shownBy !== undefined ? " · " + seatWord(g.shownBy) : ""}`),
        h("div", { class: "cards" }, h(Card, { card: g.shown, fresh: fresh?.has(g.shown.id) }))) : null,
      mine && (mine.melds.length || mine.discards.length)
        ? h("div", { class: "my-table" }, h("span", { class: "label" }, w("myMelds")), h(Melds, { s: mine }), h(Discards, { s: mine })) : null));
}
