// The end of a game: winners and scores, the checks the page ran, the command that checks
// the whole record from any folder, and the links (replay, receipts, the console).
import { h } from "preact";
import type { GameView } from "../../gen/tabletop/v1/tabletop_pb";
import { w, getLang, seatWord, TERMS } from "../words";
import { seatLabel } from "./table";
import { VerifyPanel, VERIFIER_READY } from "./verify";

export type Checks = null | { commit: boolean | null; receipts: [number, number]; unavailable?: boolean };

export function Result({ v, me, gameId, checks, command, replayUrl, receiptsUrl, receipts }: {
  v: GameView; me: number; gameId: string; checks: Checks; command: string; replayUrl: string; receiptsUrl: string;
  receipts: () => string[];
}) {
  const o = v.outcome;
  const reason = o ? TERMS.reasons[o.reason] : undefined;
  return h("section", { class: "card-box result", id: "result", "aria-labelledby": "result-h" },
    h("h3", { id: "result-h" }, w("result")),
    v.void ? h("p", { id: "void" }, `${w("voidGame")}: `, v.voidWaitingFor.map(seatWord).join("、")) : null,
    o ? h("p", { id: "winners" }, `${w("winners")}: `, o.winners.map((s) => (s === me ? `${w("you")} (${seatWord(s)})` : seatWord(s))).join("、") || "—",
      reason ? ` · ${getLang() === "en" ? reason[1] : reason[0]}` : "") : null,
    o ? h("ul", { id: "scores", class: "scores" }, o.scores.map((sc, s) => h("li", { key: s }, `${seatLabel(v, s, me)}: ${sc}`))) : null,
    h("p", { id: "verify-line", class: "verify" }, `${w("verify")}: `,
      checks === null ? "…" : checks.unavailable ? w("noCrypto") : [
        checks.commit === null ? "" : `${checks.commit ? "✓" : "✗"} ${w(checks.commit ? "commitOk" : "commitBad")}`,
        ` · ${checks.receipts[0] ? "✓" : ""} ${checks.receipts[0]} ${w("receiptsOk")}`,
        checks.receipts[1] ? ` · ✗ ${checks.receipts[1]} ${w("receiptsBad")}` : "",
      ].join("")),
    VERIFIER_READY ? h(VerifyPanel, { gameId, receipts }) : null,
    h("p", { class: "muted small" }, `${w("fullVerify")} (${w("fullVerifyWhere")}): `, h("code", { class: "wrap" }, command)),
    h("p", { class: "links" },
      h("a", { id: "replay-link", href: replayUrl }, w("replay")), " · ",
      h("a", { id: "receipts-link", href: receiptsUrl, download: `receipts-${gameId}.jsonl` }, w("receipts")), " · ",
      h("a", { href: "#" }, w("newGame"))));
}
