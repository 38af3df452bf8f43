// The console's justice side: every case by the shared case component, with its file (the
// evidence as links to its versions, the votes, the ruling, the penalty), then the penalties
// outside a case and the record (misplays, violations, redeals).
import { h } from "preact";
import type { GameView } from "../../gen/tabletop/v1/tabletop_pb";
import { Cases, penaltyWords } from "../ui/case";
import { C, O, u, uf, label, seatName, go, type J } from "./model";
import { Rows } from "./fields";

const perSeat = (list: number[] | undefined) => (list || []).map((n, seat) => `${seatName(seat)} ${n}`).join(" · ");

const FIELDS = ["misplays_used", "violations", "redeals", "max_redeals", "redeals_requested_by", "redeal_commitment",
  "enforcement", "turn_time_limit_ms", "case_time_limit_ms", "case_deadline", "reports_left"];

/** Where each version of the shown viewer's record is: an evidence link opens it. */
const record = {
  has: (v: bigint) => C.current!.steps.some((s) => s.version === Number(v)),
  onEvidence: (v: bigint) => go(C.current!.steps.findIndex((s) => s.version === Number(v))),
};

export function JusticePanel({ view, prev, v }: { view: J; prev: J | null; v: GameView }) {
  const shown = FIELDS.filter((k) => k in view && !(k === "enforcement" && view[k] === "ENFORCEMENT_REJECT"));
  const penalties = v.penalties.filter((p) => !v.cases.some((c) => c.id === p.caseId));
  if (!shown.length && !v.cases.length && !penalties.length) return h("div", { id: "justice", class: "justice" });
  const pick = (x: J) => {
    const out: J = Object.fromEntries(shown.map((k) => [k, x ? x[k] : undefined]));
    for (const k of ["misplays_used", "violations"]) if (out[k] !== undefined) out[k] = perSeat(out[k]);
    return out;
  };
  return h("div", { id: "justice", class: "justice" }, h("div", { class: "justice-box" },
    h("h2", { title: u("justice", O()) }, u("justice")),
    h(Cases, { v, record }),
    penalties.map((p, i) => h("p", { key: `p${i}`, class: "penalty" },
      uf("penalty on", { seat: seatName(p.seat), penalty: penaltyWords(p.penalty) }) + (p.revoked ? ` (${label("revoked")})` : ""))),
    h(Rows, { obj: pick(view), prev: prev ? pick(prev) : null, skip: [], fresh: new Set<number>() })));
}
