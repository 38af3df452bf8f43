// A case (a report or an appeal), shared by both doors: who reports whom for what, where it
// stands, the votes and, while it is open, its deadline (the play page). With `record` (the
// referee console) also its file: the penalty asked for, the evidence as links to its versions,
// the note, who voted which way, recused or lapsed, who ruled and the ruling.
import { h, type ComponentChildren } from "preact";
import {
  CaseStatus, PenaltyKind, ViolationKind, type GameView, type Penalty,
} from "../../gen/tabletop/v1/tabletop_pb";
import { w, term, termTip, field, fieldTip, seatWord, seatsWord } from "../words";
import { enumText } from "../util";
import { Countdown, ms } from "./clock";

export type CaseView = GameView["cases"][number];
/** What the console adds: a version of the record can be opened (an evidence link). */
export interface CaseRecord { has: (version: bigint) => boolean; onEvidence: (version: bigint) => void }

export function penaltyWords(p: Penalty | undefined): string {
  const kind = term(enumText(PenaltyKind, "PENALTY_KIND_", p?.kind || PenaltyKind.WARNING)); // unset: a warning
  return p?.count ? `${kind} ${w("n cards", { n: p.count })}` : kind;
}

const Term = ({ name, cls }: { name: string; cls?: string }) => h("span", { class: cls, title: termTip(name) }, term(name));

/** One case; in the list `Cases` (ul.cases). */
export function CaseItem({ c, v, record }: { c: CaseView; v: GameView; record?: CaseRecord }) {
  const open = c.status === CaseStatus.OPEN;
  const status = enumText(CaseStatus, "CASE_STATUS_", c.status);
  const what = w(c.isAppeal ? "appeal line" : "report line", {
    by: seatWord(c.by), accused: seatWord(c.accused),
    violation: term(enumText(ViolationKind, "VIOLATION_KIND_", c.violation)), case: String(c.evidence[0] ?? "?"),
  });
  const votes = c.upheldBy.length + c.rejectedBy.length;
  return h("li", { class: open ? "case open" : "case", "data-case": c.id, "data-status": status },
    h("div", { class: "case-head" },
      h("b", {}, `${w("case no", { id: c.id })} · ${c.isAppeal ? w("appeal") : w("report")}`), " ",
      h(Term, { name: status, cls: "badge status" }),
      votes ? h("span", { class: "votes", title: `${field("upheld_by")} : ${field("rejected_by")}` },
        ` (${c.upheldBy.length}:${c.rejectedBy.length})`) : null),
    h("p", { class: "what" }, what),
    c.redealAgreed.length && !record ? h("span", { class: "redeal-agreed" }, `${w("redealAgreedBy")}: ${seatsWord(c.redealAgreed)}`) : null,
    open && c.deadline && !record ? h("span", { class: "case-deadline", title: new Date(ms(c.deadline)).toISOString() },
      `${w("caseDue", { time: new Date(ms(c.deadline)).toLocaleTimeString() })} · `, h(Countdown, { at: c.deadline })) : null,
    record ? h(CaseFile, { c, v, record }) : null);
}

function CaseFile({ c, v, record }: { c: CaseView; v: GameView; record: CaseRecord }) {
  const items: [string, ComponentChildren][] = [];
  if (c.penalty) items.push(["penalty", penaltyWords(c.penalty)]);
  if (!c.isAppeal && c.evidence.length) {
    items.push(["evidence", h("span", { class: "evidence" }, c.evidence.map((ver) => h("button", {
      key: String(ver), type: "button", class: "link", "data-version": String(ver), disabled: !record.has(ver),
      onClick: () => record.onEvidence(ver) }, w("version no", { v: String(ver) }))))]);
  }
  if (c.note) items.push(["note", c.note]);
  items.push(["upheld_by", seatsWord(c.upheldBy)], ["rejected_by", seatsWord(c.rejectedBy)]);
  for (const [k, list] of [["recused", c.recused], ["lapsed", c.lapsed], ["redeal_agreed", c.redealAgreed]] as const) {
    if (list.length) items.push([k, seatsWord(list)]);
  }
  const votes = c.upheldBy.length + c.rejectedBy.length;
  if (c.status !== CaseStatus.OPEN && !votes && v.arbitrated) items.push(["ruled_by", w("the arbiter")]);
  const ruling = v.penalties.find((p) => p.caseId === c.id);
  if (ruling) {
    items.push(["ruling", `${penaltyWords(ruling.penalty)} → ${seatWord(ruling.seat)}`
      + (ruling.revoked ? ` (${field("revoked")})` : ruling.appealable ? ` (${field("appealable")})` : "")]);
  }
  return h("dl", {}, items.map(([k, val]) => [h("dt", { title: fieldTip(k) }, field(k)), h("dd", {}, val)]));
}

/** Every case of `v`, as a list. */
export const Cases = ({ v, record }: { v: GameView; record?: CaseRecord }) =>
  v.cases.length ? h("ul", { class: "cases" }, v.cases.map((c) => h(CaseItem, { key: c.id, c, v, record }))) : null;

