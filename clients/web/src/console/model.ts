// The referee console's state: the page's embedded data (#tabletop-data, written by
// server/wire/page: every viewer's steps of one game, as the server rendered them), the viewer
// and version shown, the deep link (#v=VERSION&viewer=SEAT) and the live stream (SSE).
// The console never re-runs a move: every version's view is the server's.
import type { GameView } from "../../gen/tabletop/v1/tabletop_pb";
import { readView } from "./view";
import { TERMS, getLang, setLang } from "../words";
import { signal } from "@preact/signals";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type J = any; // proto JSON, with the proto's own field names
export type Step = { version: number; event: J; view: J };
export type Viewer = { key: string; label: string; steps: Step[] };

/** Bumped after every change of C: the console re-renders (as the play page's `tick`). */
export const tick = signal(0);
export const render = (): void => {
  tick.value++;
};

export const DATA: J = JSON.parse(document.getElementById("tabletop-data")?.textContent || "{}");
export const KIND: string = DATA.kind || "";
export const viewers: Viewer[] = DATA.viewers || [];

export const C = {
  current: viewers.find((v) => v.key === DATA.default_viewer) ?? viewers[0] as Viewer | undefined,
  pos: 0,
  pending: null as number | null, // a deep link's version not yet received (live)
  live: "" as "" | "live" | "reconnecting" | "ended",
  finished: false, // the live page after the end
};
C.pos = C.current ? dealIndex(C.current.steps) : 0;

// --- the game's words, [Chinese, English] from the one term table -------------------------------
export const L = (): number => (getLang() === "en" ? 1 : 0);
export const O = (): number => 1 - L();
export const u = (key: string, lang = L()): string => TERMS.ui[key]?.[lang] ?? key;
export const uf = (key: string, args: Record<string, string | number>, lang = L()): string =>
  u(key, lang).replace(/\{(\w+)\}/g, (m, k: string) => (k in args ? String(args[k]) : m));
export const label = (key: string, lang = L()): string => TERMS.fields[key]?.[lang] ?? key.replace(/_/g, " ");
const ENUMS: Record<string, string> = DATA.enums || {};
export const termOf = (v: string, lang = L()): string =>
  Object.prototype.hasOwnProperty.call(TERMS.enums, v) ? TERMS.enums[v][lang] : ENUMS[v] ?? String(v);
export const seatName = (s: number | string, lang = L()): string => (lang ? `seat ${s}` : `${s}家`);
export const seatsName = (list: number[] | undefined, lang = L()): string =>
  list && list.length ? list.map((s) => seatName(s, lang)).join(lang ? ", " : "、") : u("none", lang);
export function toggleLang(): void {
  setLang(getLang() === "en" ? "zh" : "en");
  render();
}

// --- the justice side's facts, marked on the timeline: [marker class, 中文, English] ------------
const JUSTICE: Record<string, [string, string, string]> = {
  move_retracted: ["retract", "误操作", "misplay retracted"], violation_reported: ["report", "举报", "report"],
  appeal_filed: ["appeal", "申诉", "appeal"], vote_cast: ["vote", "投票", "vote"],
  arbiter_ruled: ["ruling", "裁定", "ruling"], case_closed: ["ruling", "结案", "case closed"],
  penalty_applied: ["penalty", "处罚", "penalty"], penalty_revoked: ["penalty", "撤销处罚", "penalty revoked"],
  game_redealt: ["redeal", "重新洗牌发牌", "redeal"], turn_timed_out: ["timeout", "超时", "timeout"],
  attempt_refereed: ["penalty", "违规裁定", "attempt refereed"],
  redeal_opened: ["redeal", "请求重发", "redeal asked for"],
};
export function justiceOf(event: J): { cls: string; name: string; other: string } | null {
  const t = event?.table;
  if (!t) return null;
  const j = JUSTICE[Object.keys(t)[0]];
  return j ? { cls: j[0], name: j[1 + L()], other: j[1 + O()] } : null;
}
export const endsGame = (s: Step, prev?: Step): boolean => !!s.view.outcome && !(prev && prev.view.outcome);
export function dealIndex(steps: Step[]): number { // where the console opens: the first deal
  const fact = (s: Step) => (s.event && s.event[KIND]) || {};
  let i = steps.findIndex((s) => "dealt" in fact(s));
  if (i < 0) i = steps.findIndex((s) => s.view && s.view[KIND]);
  return i < 0 ? Math.max(0, steps.length - 1) : i;
}

// --- a step's view as the shared components read it (a GameView, by ./view.ts), converted once ---
const views = new WeakMap<Step, GameView>();
export function viewOf(s: Step): GameView {
  let v = views.get(s);
  if (!v) {
    v = readView(s.view);
    views.set(s, v);
  }
  return v;
}

/** Card ids inside a JSON value: every object shaped like a card. */
export function isCard(x: J): boolean {
  if (!x || typeof x !== "object" || Array.isArray(x)) return false;
  if (!Object.keys(x).every((k) => ["id", "kind", "rank", "big"].includes(k))) return false;
  return (typeof x.kind === "string" && x.kind.startsWith("CARD_KIND_")) || typeof x.rank === "number";
}
export function cardIds(x: J, out = new Set<number>()): Set<number> {
  if (Array.isArray(x)) x.forEach((y) => cardIds(y, out));
  else if (isCard(x)) out.add(x.id || 0);
  else if (x && typeof x === "object") Object.values(x).forEach((y) => cardIds(y, out));
  return out;
}
export const seatOf = (game: J, seat: number): J =>
  (game?.seats || []).find((s: J, j: number) => (s.seat === undefined ? j : s.seat) === seat);

/** The cards new at this version (not in the same seat, or on the table, the version before). */
export function freshCards(view: J, prev: J | null): Set<number> {
  const out = new Set<number>();
  if (!prev) return out;
  const game = view[KIND] || {};
  const before = prev[KIND] || {};
  for (const s of game.seats || []) {
    const had = cardIds(seatOf(before, s.seat || 0));
    cardIds(s).forEach((id) => had.has(id) || out.add(id));
  }
  const rest = (g: J) => cardIds(Object.fromEntries(Object.entries(g).filter(([k]) => k !== "seats")));
  const had = rest(before);
  rest(game).forEach((id) => had.has(id) || out.add(id));
  return out;
}

// --- stepping, and the deep link ------------------------------------------------------------
export function go(i: number): void {
  const n = C.current ? C.current.steps.length : 0;
  C.pos = Math.max(0, Math.min(i, n - 1));
  render();
}
export function chooseViewer(key: string): void {
  const version = C.current?.steps[C.pos]?.version ?? 0;
  C.current = viewers.find((v) => v.key === key) ?? C.current;
  if (!C.current) return;
  const i = C.current.steps.findIndex((s) => s.version === version);
  C.pos = i >= 0 ? i : dealIndex(C.current.steps);
  render();
}
export function readLink(): void {
  const hash = (location.hash || "").replace(/^#/, "");
  const params = new URLSearchParams(hash.replace(/^v(\d+)$/, "v=$1"));
  const who = params.get("viewer");
  if (who !== null) {
    const key = /^\d+$/.test(who) ? `seat-${who}` : who;
    const found = viewers.find((x) => x.key === key) ?? (/^\d+$/.test(who) ? viewers.find((x) => x.key === "seat") : undefined);
    if (found) C.current = found;
  }
  const v = params.get("v");
  if (v !== null && /^\d+$/.test(v)) {
    const i = C.current ? C.current.steps.findIndex((s) => s.version === Number(v)) : -1;
    if (i >= 0) {
      C.pos = i;
      C.pending = null;
    } else C.pending = Number(v);
  }
}
let linkWritten = "";
export function writeLink(version: number): void {
  if (!C.current) return;
  const who = C.current.key.startsWith("seat-") ? C.current.key.slice(5) : C.current.key;
  const hash = `#v=${version}&viewer=${who}`;
  if (hash === location.hash) return;
  linkWritten = hash;
  try {
    history.replaceState(null, "", hash);
  } catch { /* a sandboxed page: no link */ }
}
export const isOwnLink = (): boolean => location.hash === linkWritten;

// --- live: the server pushes each new version (Server-Sent Events) -----------------------------
export function follow(live: { steps_url: string }, token: string | null): void {
  C.live = "live";
  const sep = live.steps_url.includes("?") ? "&" : "?";
  // A seat's or the arbiter's link (#token=...) names it to the server, which then never turns
  // it away for a crowd of other viewers; what it is shown stays the public view.
  const own = token ? `&token=${encodeURIComponent(token)}` : "";
  const source = new EventSource(`${live.steps_url}${sep}after=0${own}`);
  source.addEventListener("step", (e) => {
    const step = JSON.parse((e as MessageEvent).data) as Step;
    const steps = C.current!.steps;
    if (steps.length && step.version <= steps[steps.length - 1].version) return; // resent
    const atEnd = C.pos >= steps.length - 1;
    steps.push(step);
    if (C.pending !== null && step.version === C.pending) {
      C.pos = steps.length - 1;
      C.pending = null;
    } else if (atEnd && C.pending === null) C.pos = steps.length - 1;
    render();
  });
  source.addEventListener("end", () => {
    source.close();
    C.live = "ended";
    C.finished = true;
    render();
  });
  source.addEventListener("error", () => {
    if (source.readyState !== EventSource.CLOSED && C.live !== "ended") {
      C.live = "reconnecting";
      render();
    }
  });
  source.addEventListener("open", () => {
    if (C.live !== "ended") {
      C.live = "live";
      render();
    }
  });
}
