// Justice at the table: every pause says whom it waits for and how long is left; each case
// (report or appeal) with its votes and deadline; the seat's own table moves (误操作, votes,
// appeals, 同意重新洗牌发牌); the report form with the game's own violation kinds only.
import { h, type VNode } from "preact";
import { create } from "@bufbuild/protobuf";
import {
  GamePhase, ViolationKind, ViolationKindSchema, PenaltyKind, CaseStatus, MoveSchema,
  type GameView, type Move,
} from "../../gen/tabletop/v1/tabletop_pb";
import { w, tip, term, seatWord, moveLabel } from "../words";
import { enumName } from "../util";
import { seatLabel } from "./table";
import { reportable } from "../kinds";
import { Cases } from "./case";
import { Countdown } from "./clock";

const seatsText = (seats: number[], me: number) =>
  seats.map((s) => (s === me ? `${w("you")} (${seatWord(s)})` : seatWord(s))).join("、");

/** Whom the table waits for now, and until when (the case's, else the turn's deadline). */
export function Waits({ v, me }: { v: GameView; me: number }) {
  if (v.phase !== GamePhase.PLAYING) return null;
  const open = v.cases.find((c) => c.status === CaseStatus.OPEN);
  const at = open?.deadline ?? (v.paused ? v.caseDeadline : v.deadline);
  const seats = v.toAct.length ? v.toAct : v.awaitingSeats;
  if (!seats.length && !at) return null;
  return h("p", { class: v.paused ? "waits warn" : "waits", id: "waits", "data-seats": seats.join(" ") },
    v.paused ? `${w("paused")} · ` : "",
    seats.length ? w("waitsFor", { seats: seatsText(seats, me) }) : "",
    at ? [" · ", h(Countdown, { at, id: "waits-left" })] : null);
}

export interface JusticeProps {
  v: GameView; me: number; legal: { moves: Move[]; labels: string[] } | null; drawing: boolean;
  lastVersionOf: (seat: number) => bigint; onPlay: (m: Move) => void;
}

export function Justice(p: JusticeProps) {
  const { v, me } = p;
  const moves: VNode<any>[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
  (p.legal?.moves ?? []).forEach((m, i) => {
    if (m.game.case !== "table") return;
    const cmd = m.game.value.kind;
    const label = p.legal!.labels[i] ?? "";
    if (cmd.case === "retract") {
      moves.push(h("button", { key: "r", type: "button", class: "table-move", id: "retract", title: label, onClick: () => p.onPlay(m) }, w("retract")));
    } else if (cmd.case === "castVote") {
      moves.push(h("button", { key: `v${cmd.value.uphold}`, type: "button", class: "table-move vote", "data-uphold": String(cmd.value.uphold),
        onClick: () => p.onPlay(m) }, moveLabel(label)));
    } else if (cmd.case === "appeal") {
      const caseId = cmd.value.caseId;
      const id = `appeal-${caseId}`;
      moves.push(h("form", { key: id, class: "appeal", onSubmit: (ev: Event) => {
        ev.preventDefault();
        const reason = (document.getElementById(id) as HTMLInputElement | null)?.value || "—";
        p.onPlay(create(MoveSchema, { game: { case: "table", value: { kind: { case: "appeal", value: { caseId, reason } } } } }));
      } }, h("label", { for: id }, `${w("appeal")} #${caseId} · ${w("reason")}`), h("input", { id, maxlength: 500 }),
        h("button", { type: "submit", class: "table-move" }, w("appeal"))));
    }
  });
  const open = v.cases.find((c) => c.status === CaseStatus.OPEN);
  if (open && v.phase === GamePhase.PLAYING && !p.drawing && !open.redealAgreed.includes(me)
    && !(v.maxRedeals !== undefined && v.redeals + v.matchRedealsUsed >= v.maxRedeals)) {
    const move = create(MoveSchema, { game: { case: "table", value: { kind: { case: "agreeRedeal", value: { caseId: open.id } } } } });
    moves.push(h("button", { key: "agree", type: "button", class: "table-move agree-redeal", id: "agree-redeal", "data-case": open.id,
      title: tip("agreeRedeal"), onClick: () => p.onPlay(move) }, w("agreeRedeal")));
  }
  const canReport = v.phase === GamePhase.PLAYING && !v.paused && (v.reportsLeft[me] ?? 1) > 0;
  return h("section", { class: "card-box justice", "aria-labelledby": "justice-h" },
    h("h3", { id: "justice-h", title: tip("justice") }, w("justice")),
    h(Waits, { v, me }),
    h(Cases, { v }),
    moves.length ? h("div", { class: "table-moves" }, moves) : null,
    canReport ? h(ReportForm, p) : null);
}

function ReportForm(p: JusticeProps) {
  const { v, me } = p;
  const others = v.seats.filter((s) => s.seat !== me);
  const kinds = reportable(v);
  const val = (id: string) => (document.getElementById(id) as HTMLInputElement | HTMLSelectElement).value;
  const first = others[0]?.seat ?? 0;
  return h("details", { class: "report", id: "report-box" }, h("summary", {}, w("report")),
    h("form", { onSubmit: (ev: Event) => {
      ev.preventDefault();
      const kind = Number(val("report-violation")) as ViolationKind;
      const versions = val("report-evidence").split(/[\s,]+/).filter(Boolean).map((x) => BigInt(x));
      p.onPlay(create(MoveSchema, { game: { case: "table", value: { kind: { case: "report", value: {
        accused: Number(val("report-accused")), violation: kind, evidence: versions, note: val("report-note"),
        ...(kind === ViolationKind.OTHER ? { penalty: { kind: PenaltyKind.WARNING } } : {}),
      } } } } }));
    } },
      h("div", { class: "row" }, h("label", { for: "report-accused" }, w("accused")),
        h("select", { id: "report-accused", onChange: (ev: Event) => {
          const e = document.getElementById("report-evidence") as HTMLInputElement;
          e.value = String(p.lastVersionOf(Number((ev.target as HTMLSelectElement).value)));
        } }, others.map((s) => h("option", { key: s.seat, value: s.seat }, seatLabel(v, s.seat, me))))),
      h("div", { class: "row" }, h("label", { for: "report-violation" }, w("violation")),
        h("select", { id: "report-violation", "data-kinds": kinds.join(" ") }, kinds.map((k) =>
          h("option", { key: k, value: k, selected: k === ViolationKind.OTHER }, term(enumName(ViolationKindSchema, k)))))),
      h("div", { class: "row" }, h("label", { for: "report-evidence" }, w("evidence")),
        h("input", { id: "report-evidence", inputmode: "numeric", defaultValue: String(p.lastVersionOf(first)) })),
      h("div", { class: "row" }, h("label", { for: "report-note" }, w("note")), h("input", { id: "report-note", maxlength: 200 })),
      h("button", { type: "submit", class: "table-move", id: "report-send" }, w("send"))));
}
