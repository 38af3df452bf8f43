// The console's win panel: the 川南字牌 winning hand in its 列 with its 胡, 番 and each seat's
// score; the 花鸟风月 end with who went out, each seat's cards left and its points.
import { h } from "preact";
import { TERMS } from "../words";
import { Backs } from "../ui/cards";
import { C, KIND, L, O, u, label, termOf, seatName, seatsName, seatOf, type J } from "./model";
import { Term, Value, JCard } from "./fields";

/** The game's fact `field` at or before the version shown, this hand. */
function factBefore(field: string): J | null {
  const steps = C.current!.steps;
  for (let i = C.pos; i >= 0; i--) {
    const f = steps[i].event?.[KIND];
    if (f && f[field]) return f[field];
    if (f && (f.hand_started || f.dealt) && i < C.pos) return null;
  }
  return null;
}

const Pts = ({ items }: { items: [string | number, string][] }) => h("div", { class: "pts" }, items.map(([k, v], i) =>
  h("span", { key: i }, typeof k === "number" ? `${seatName(k)} ` : h("span", { title: u(k, O()) }, `${u(k)} `), h("b", {}, v))));

export function Win() {
  if (!C.current) return h("div", { id: "win", class: "win" });
  const body = KIND === "zipai" ? zipai() : KIND === "huaniao" ? huaniao() : null;
  return h("div", { id: "win", class: body ? "win shown" : "win" }, body);
}

function zipai() {
  const hu = factBefore("hued");
  if (!hu) return null;
  const won = new Set<number>(hu.card ? [hu.card.id || 0] : []);
  const items: [string | number, string][] = [["hu points", String(hu.hu_points || 0)], ["fan", String(hu.fan || 0)]];
  (hu.scores || []).forEach((v: number, i: number) => items.push([i, (v > 0 ? "+" : "") + v]));
  return [
    h("h2", { title: u("win hand", O()) }, `${seatName(hu.seat || 0)} ${u("hu")} · ${termOf(hu.win_kind || "")}`),
    h("div", { class: "groups" }, (hu.groups || []).map((g: J, i: number) => h("span", { key: i, class: "group" },
      g.kind ? h(Term, { v: g.kind, cls: "tag term" }) : null,
      h("span", { class: "cards" }, (g.cards || []).map((c: J) => h(JCard, { key: c.id || 0, c, fresh: won })))))),
    h(Pts, { items }),
  ];
}

function huaniao() {
  const end = factBefore("game_ended");
  if (!end) return null;
  const view = C.current!.steps[C.pos].view;
  const winners: number[] = end.winners || [];
  const reason = end.reason || "";
  const words = TERMS.reasons[reason];
  const showdown = factBefore("showdown_dealt"); // the last 大对决 round, if the game went to one
  const hands: Record<number, J> = {};
  for (const hd of showdown?.hands || []) hands[hd.seat || 0] = hd;
  const none = new Set<number>();
  const cell = { role: "cell" };
  return [
    h("h2", { title: `${seatsName(winners, O())} · ${words ? words[O()] : reason}` },
      `${seatsName(winners)} ${u("winner")} · ${words ? words[L()] : reason}`),
    h("div", { class: "settle", role: "table", "aria-label": u("settlement") },
      h("div", { class: "settle-row head", role: "row" }, ["seat col", "cards left", "points"].map((k) =>
        h("span", { key: k, role: "columnheader", title: u(k, O()) }, u(k)))),
      (view.seats || []).map((info: J) => {
        const seat = info.seat || 0;
        const gs = seatOf(view.huaniao, seat) || {};
        const hd = hands[seat];
        return h("div", { key: seat, class: winners.includes(seat) ? "settle-row won" : "settle-row", role: "row", "data-seat": String(seat) },
          h("span", cell, seatName(seat) + (info.player_name ? ` · ${info.player_name}` : ""),
            winners.includes(seat) ? h("span", { class: "badge win", title: u("winner", O()) }, u("winner")) : null),
          h("span", cell,
            (gs.cards || []).length ? h(Value, { v: gs.cards, fresh: none })
              : gs.hand_count ? h(Backs, { n: gs.hand_count }) : h("span", { class: "out", title: u("went out", O()) }, u("went out")),
            hd ? h("span", { class: "group" }, hd.pattern ? h(Term, { v: hd.pattern, cls: "tag term" }) : null,
              h(Value, { v: hd.cards || [], fresh: none }),
              h("span", { class: "tag" }, `${u("showdown score")} ${hd.score || 0} · ${label("total")} ${hd.total || 0}`)) : null),
          h("b", cell, String((end.scores || [])[seat] || 0)));
      })),
    h("p", { class: "note", title: u("lower wins", O()) }, u("lower wins")),
  ];
}
