// Around the table: the seats before the deal, a draw under way, the share links, the log.
import { h } from "preact";
import { ContributionStatus, type GameView } from "../../gen/tabletop/v1/tabletop_pb";
import { w, tip, term, seatWord, line } from "../words";
import type { LogLine } from "../state";
import type { Saved } from "../seats";
import { SeatMarks, seatLabel } from "./table";
import { Countdown } from "./clock";

export function Waiting({ v, me, onBots }: { v: GameView; me: number; onBots: () => void }) {
  const free = v.seats.filter((s) => !s.taken).length;
  return h("section", { class: "card-box", id: "waiting", "aria-labelledby": "waiting-h" },
    h("h3", { id: "waiting-h" }, free ? w("waiting") : w("starting")),
    h("ul", { class: "seat-list" }, v.seats.map((s) => h("li", { key: s.seat, "data-seat": s.seat }, seatLabel(v, s.seat, me), h(SeatMarks, { v, s: s.seat }),
      s.taken && s.contributionStatus ? h("span", { class: "muted" }, ` · ${w("contribution")} `,
        term(`CONTRIBUTION_STATUS_${ContributionStatus[s.contributionStatus]}`)) : ""))),
    v.awaitingSeats.length ? h("p", { id: "awaiting-seats" }, `${w("dealWaitsFor")}: `, v.awaitingSeats.map(seatWord).join("、"),
      v.revealDeadline ?? v.abandonDeadline ? [" · ", h(Countdown, { at: (v.revealDeadline ?? v.abandonDeadline)! })] : null) : null,
    v.noEntropySeats.length ? h("p", { class: "muted" }, `${w("noEntropy")}: `, v.noEntropySeats.map(seatWord).join("、")) : null,
    free ? h("button", { class: "primary", id: "bots", type: "button", onClick: onBots }, w("fillBots")) : null);
}

/** What the draw under way is at, in the game's words: what this page is doing, or whom
 * the draw waits for. */
export function Draw({ v, me, step }: { v: GameView; me: number; step: string }) {
  const waiting = v.awaitingSeats.filter((s) => s !== me || !step);
  const text = step === "committing" ? w("drawCommitting")
    : step === "revealing" ? w("drawRevealing")
    : waiting.length ? w("drawWaiting", { seats: waiting.map((s) => (s === me ? `${w("you")} (${seatWord(s)})` : seatWord(s))).join("、") })
    : w("drawDealing");
  return h("section", { class: "card-box draw", id: "draw", "aria-labelledby": "draw-h" },
    h("h3", { id: "draw-h", title: tip("drawing") }, w("drawing")),
    h("p", { id: "draw-status", "data-step": step || (waiting.length ? "waiting" : "dealing"), "data-waiting": waiting.join(" ") }, text),
    waiting.length && (v.revealDeadline ?? v.abandonDeadline)
      ? h("p", { class: "muted" }, h(Countdown, { at: (v.revealDeadline ?? v.abandonDeadline)!, id: "draw-left" })) : null);
}

function CopyRow({ id, k, value }: { id: string; k: string; value: string }) {
  return h("div", { class: "row copy" }, h("label", { for: id, title: tip(k) }, w(k)),
    h("input", { id, readonly: true, value, class: "mono" }),
    h("button", { type: "button", class: "secondary", "aria-label": `${w("copy")}: ${w(k)}`, onClick: async (ev: Event) => {
      (document.getElementById(id) as HTMLInputElement).select();
      try {
        await navigator.clipboard.writeText(value);
      } catch {
        document.execCommand("copy");
      }
      (ev.target as HTMLElement).textContent = w("copied");
    } }, w("copy")));
}

/** The table's invite link, this seat's own link, the other seats held here, and the
 * referee console (for the arbiter's token; for everyone once the game has ended). */
export function Links({ gameId, me, token, others, open, consoleUrl, onSwitch }: {
  gameId: string; me: number; token: string; others: Saved[]; open: boolean; consoleUrl: string;
  onSwitch: (seat: number) => void;
}) {
  const base = `${location.origin}${location.pathname}`;
  const invite = `${base}#game=${encodeURIComponent(gameId)}`;
  return h("details", { class: "card-box links-box", id: "links-box", open: open || others.length > 0 },
    h("summary", {}, w("shareTable")),
    h(CopyRow, { id: "invite-link", k: "shareTable", value: invite }),
    h(CopyRow, { id: "seat-link", k: "seatLink", value: `${invite}&seat=${me}&token=${encodeURIComponent(token)}` }),
    others.length ? h("div", { class: "row", id: "held-seats" }, h("span", {}, w("heldSeats")),
      others.map((s) => h("button", { key: s.seat, type: "button", class: "secondary", "data-switch-seat": s.seat,
        onClick: () => onSwitch(s.seat) }, `${w("switchSeat")} ${seatWord(s.seat)}`))) : null,
    consoleUrl ? h("p", {}, h("a", { id: "console-link", href: consoleUrl, title: w("consoleHelp") }, w("console"))) : null);
}

/** What the console adds to the log: every line, oldest first, the one shown marked; a
 * line opens its version. */
export interface LogRecord { at: bigint; onGo: (version: bigint) => void }

/** The game's log: the page's last 80 lines, newest first; with `record`, the console's. */
export function Log({ log, record }: { log: LogLine[]; record?: LogRecord }) {
  const lines = record ? log : log.slice(-80).reverse();
  const items = lines.map((l) => h("li", {
    key: String(l.version), title: l.text, class: [l.mark, record && l.version === record.at ? "current" : ""].filter(Boolean).join(" ") || undefined,
    onClick: record ? () => record.onGo(l.version) : undefined,
  }, h("span", { class: "v" }, `v${l.version}`), " ", h("span", { class: "t" }, line(l.text))));
  return h("details", { class: "card-box log-box", id: "log-box", open: !!record || window.matchMedia("(min-width: 900px)").matches },
    h("summary", { title: tip("log") }, `${w("log")} (${log.length})`),
    h("ol", { id: "log", reversed: !record, tabindex: 0, "aria-label": w("log") }, items));
}
