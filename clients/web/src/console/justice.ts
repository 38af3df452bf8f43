// The console's justice side: every case as the table speaks of it (who reports whom for what,
// the evidence as links to its versions, the votes, the ruling, the penalty), then the
// penalties and the record (misplays, violations, redeals).
import { h, type ComponentChildren } from "preact";
import { C, L, O, u, uf, label, termOf, seatName, seatsName, go, type J } from "./model";
import { Term, Rows } from "./fields";

function penaltyWords(p: J, lang = L()): string {
  const kind = termOf(p.kind || "PENALTY_KIND_WARNING", lang);
  return p.count ? `${kind} ${uf("n cards", { n: p.count }, lang)}` : kind;
}
const perSeat = (list: number[] | undefined) => (list || []).map((n, seat) => `${seatName(seat)} ${n}`).join(" · ");

function CaseCard({ c, view }: { c: J; view: J }) {
  const status = c.status || "CASE_STATUS_OPEN";
  const args = (lang: number) => ({ by: seatName(c.by || 0, lang), accused: seatName(c.accused || 0, lang),
    violation: termOf(c.violation || "VIOLATION_KIND_OTHER", lang), case: (c.evidence || [])[0] || "?" });
  const line = c.is_appeal ? "appeal line" : "report line";
  const items: [string, ComponentChildren][] = [];
  if (c.penalty) items.push(["penalty", penaltyWords(c.penalty)]);
  if (!c.is_appeal && (c.evidence || []).length) {
    items.push(["evidence", h("span", { class: "evidence" }, (c.evidence as string[]).map((v) => {
      const i = C.current!.steps.findIndex((s) => s.version === Number(v));
      return h("button", { key: v, type: "button", class: "link", title: uf("version no", { v }, O()), "data-version": String(v),
        disabled: i < 0, onClick: () => go(i) }, uf("version no", { v }));
    }))]);
  }
  if (c.note) items.push(["note", c.note]);
  items.push(["upheld_by", seatsName(c.upheld_by || [])], ["rejected_by", seatsName(c.rejected_by || [])]);
  for (const k of ["recused", "lapsed", "redeal_agreed"]) if ((c[k] || []).length) items.push([k, seatsName(c[k])]);
  const votes = (c.upheld_by || []).length + (c.rejected_by || []).length;
  if (status !== "CASE_STATUS_OPEN" && !votes && view.arbitrated) items.push(["ruled_by", u("the arbiter")]);
  const ruling = (view.penalties || []).find((p: J) => (p.case_id || 0) === (c.id || 0));
  if (ruling) {
    items.push(["ruling", `${penaltyWords(ruling.penalty || {})} → ${seatName(ruling.seat || 0)}`
      + (ruling.revoked ? ` (${label("revoked")})` : ruling.appealable ? ` (${label("appealable")})` : "")]);
  }
  return h("div", { class: "case-card", "data-case": String(c.id || 0), "data-status": status },
    h("h3", {}, h("span", {}, `${uf("case no", { id: c.id || 0 })} · ${u(c.is_appeal ? "appeal" : "case report")}`),
      h(Term, { v: status, cls: "badge status" })),
    h("p", { class: "what", title: uf(line, args(O()), O()) }, uf(line, args(L()))),
    h("dl", {}, items.map(([k, v]) => [h("dt", { title: label(k, O()) }, label(k)), h("dd", {}, v)])));
}

const FIELDS = ["misplays_used", "violations", "redeals", "max_redeals", "redeals_requested_by", "redeal_commitment",
  "enforcement", "turn_time_limit_ms", "case_time_limit_ms", "case_deadline", "reports_left"];

export function JusticePanel({ view, prev }: { view: J; prev: J | null }) {
  const shown = FIELDS.filter((k) => k in view && !(k === "enforcement" && view[k] === "ENFORCEMENT_REJECT"));
  const cases: J[] = view.cases || [];
  const penalties = (view.penalties || []).filter((p: J) => !cases.some((c) => (c.id || 0) === (p.case_id || 0)));
  if (!shown.length && !cases.length && !penalties.length) return h("div", { id: "justice", class: "justice" });
  const pick = (v: J) => {
    const out: J = Object.fromEntries(shown.map((k) => [k, v ? v[k] : undefined]));
    for (const k of ["misplays_used", "violations"]) if (out[k] !== undefined) out[k] = perSeat(out[k]);
    return out;
  };
  return h("div", { id: "justice", class: "justice" }, h("div", { class: "case" },
    h("h2", { title: u("justice", O()) }, u("justice")),
    cases.map((c) => h(CaseCard, { key: c.id || 0, c, view })),
    penalties.map((p: J, i: number) => h("p", { key: `p${i}`, class: "penalty",
      title: uf("penalty on", { seat: seatName(p.seat || 0, O()), penalty: penaltyWords(p.penalty || {}, O()) }, O()) },
    uf("penalty on", { seat: seatName(p.seat || 0), penalty: penaltyWords(p.penalty || {}) }) + (p.revoked ? ` (${label("revoked")})` : ""))),
    h(Rows, { obj: pick(view), prev: prev ? pick(prev) : null, skip: [], fresh: new Set<number>() })));
}
