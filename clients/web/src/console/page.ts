// The referee console's page: the header (the game, its verification, the deal), the controls
// (viewer, live, language), the help, the shared replay scrubber (« ← version → », the timeline
// with its justice marks, the event shown), and the version shown: its facts, win, the shared
// Table with every seat, the rest of the table, the justice side (the shared cases); the shared
// log beside it.
import { h } from "preact";
import { useLayoutEffect } from "preact/hooks";
import { TERMS, line } from "../words";
import { Table } from "../ui/table";
import { Scrubber, type Mark } from "../ui/replay";
import { Log } from "../ui/seat";
import type { LogLine } from "../state";
import {
  C, DATA, KIND, L, O, u, label, termOf, seatName, seatsName, justiceOf, endsGame, viewers, go,
  chooseViewer, toggleLang, viewOf, freshCards, seatOf, writeLink, tick, type Step, type J,
} from "./model";
import { Rows } from "./fields";
import { JusticePanel } from "./justice";
import { Win } from "./win";
import { Header } from "./header";

function viewerName(v: { key: string; label: string }, lang = L()): string {
  if (v.key === "arbiter") return u("arbiter view", lang);
  if (v.key === "spectator") return u("spectator", lang) + (DATA.live ? u("live suffix", lang) : "");
  const m = /^seat (\d+)(.*)$/.exec(v.label || "");
  return m ? seatName(m[1], lang) + m[2] : v.label;
}

/** The console's own controls beside the shared scrubber's: the viewer, live, the language. */
function Controls() {
  const liveKey = C.live === "ended" ? "game over" : C.live === "reconnecting" ? "reconnecting" : "live";
  return h("nav", { id: "controls" },
    h("label", { for: "viewer", id: "viewer-label", title: u("viewer", O()) }, u("viewer")), " ",
    h("select", { id: "viewer", value: C.current?.key ?? "", disabled: viewers.length < 2,
      onChange: (e: Event) => chooseViewer((e.target as HTMLSelectElement).value) },
    viewers.map((v) => h("option", { key: v.key, value: v.key, title: viewerName(v, O()) }, viewerName(v)))),
    h("span", { id: "live", class: C.live === "ended" ? "live ended" : "live", hidden: !C.live,
      "data-state": C.live === "ended" ? "ended" : undefined, title: u(liveKey, O()) },
    C.live ? (C.live === "ended" ? "" : "● ") + u(liveKey) : ""),
    h("button", { type: "button", id: "lang", class: "lang", lang: L() ? "zh" : "en", "aria-pressed": L() ? "true" : "false",
      title: L() ? "用中文显示" : "show the page in English", onClick: toggleLang }, L() ? "中文" : "English"));
}

function Help() {
  return h("details", { id: "help", class: "help" }, h("summary", { title: u("help", O()) }, u("help")),
    h("ol", {}, ["help find", "help step", "help viewers", "help case"].map((k) => {
      const [head, rest] = u(k).split("|");
      return h("li", { key: k, title: u(k, O()).replace("|", "") }, h("b", {}, head), rest || "");
    })));
}

/** The timeline's marks: the justice side's events and the end. */
function marks(steps: Step[]): Mark[] {
  const out: Mark[] = [];
  steps.forEach((s, i) => {
    const j = justiceOf(s.event);
    if (!j && !endsGame(s, steps[i - 1])) return;
    const what = j ? `${j.name} (${j.other})` : `${u("the end")} (${u("the end", O())})`;
    out.push({ at: i, version: String(s.version), cls: j ? j.cls : "end", title: `v${s.version}: ${what} — ${line(s.event?.text ?? "")}` });
  });
  return out;
}

function Facts({ view, step }: { view: J; step: Step }) {
  const facts: [string, string, string?][] = [];
  const other = (v: string) => TERMS.enums[v]?.[O()] ?? "";
  facts.push(["phase", termOf(view.phase || ""), other(view.phase)]);
  const seatRole = view.role === "ROLE_SEAT";
  facts.push(["role", seatRole && L() ? seatName(view.seat || 0) : termOf(view.role || "") + (seatRole ? ` ${seatName(view.seat || 0)}` : ""), other(view.role)]);
  if ((view.to_act || []).length) facts.push(["to_act", seatsName(view.to_act)]);
  if (view.outcome) {
    facts.push(["winners", seatsName(view.outcome.winners || [])], ["scores", (view.outcome.scores || []).join(" · ")]);
    const reason = view.outcome.reason || "";
    const words = TERMS.reasons[reason];
    facts.push(["reason", words ? words[L()] : reason.toLowerCase().replace(/_/g, " "), words ? words[O()] : ""]);
  }
  if (view.paused) facts.push(["paused", u("paused"), u("paused", O())]);
  if (step.event?.recorded_at) facts.push(["recorded_at", step.event.recorded_at.replace("T", " ").replace("Z", " UTC")]);
  return h("div", { id: "facts", class: "facts" }, facts.map(([k, v, t]) =>
    h("span", { key: k }, h("span", { title: label(k, O()) }, `${label(k)} `), h("b", { title: t }, v))));
}

// A seat's fields the shared Table does not draw itself, as rows.
const SEAT_SHOWN = ["seat", "hand_count", "cards", "seasons", "owes_discard", "dance_banned",
  "active", "hand", "hand_size", "melds", "discards", "bao"];
const BOARD_SHOWN = ["seats", "options", "viewer_seat", "last_play", "shown"];

function Version({ step, prev }: { step: Step; prev: Step | null }) {
  const view = step.view;
  const v = viewOf(step);
  const prevView = prev ? prev.view : null;
  const game = view[KIND];
  const fresh = freshCards(view, prevView);
  const more = (seat: number) => h(Rows, { obj: seatOf(game, seat) || {}, prev: prevView ? seatOf(prevView[KIND], seat) || {} : null,
    skip: SEAT_SHOWN, fresh });
  return h("section", { id: "table" },
    h(Facts, { view, step }),
    h(Win, {}),
    h("div", { id: "felt", class: "felt" },
      game ? h(Table, { v, me: -1, all: true, x: { fresh, more } })
        : h("span", { class: "muted", title: u("not started", O()) }, u("not started")),
      game ? h("div", { id: "board", class: "board" }, h("h2", { title: u("table", O()) }, u("table")),
        h(Rows, { obj: game, prev: prevView ? prevView[KIND] || {} : null, skip: BOARD_SHOWN, fresh })) : null),
    h(JusticePanel, { view, prev: prevView, v }));
}

const logOf = (steps: Step[]): LogLine[] => steps.map((s) => ({
  version: BigInt(s.version), text: s.event?.text ?? "", seat: null, mark: justiceOf(s.event) ? "justice" : undefined }));

export function Console() {
  void tick.value; // re-rendered on every change
  const steps = C.current?.steps ?? [];
  C.pos = Math.max(0, Math.min(C.pos, steps.length - 1));
  const step = steps[C.pos];
  const last = steps.length ? steps[steps.length - 1].version : 0;
  const j = step ? justiceOf(step.event) : null;
  useLayoutEffect(() => {
    document.documentElement.lang = L() ? "en" : "zh";
    document.body.dataset.lang = L() ? "en" : "zh";
    if (!step || !C.current) return;
    document.body.dataset.version = String(step.version);
    document.body.dataset.viewer = C.current.key;
    document.querySelector("#log li.current")?.scrollIntoView({ block: "nearest" });
    writeLink(step.version);
  });
  return h("div", { class: "console" },
    h(Header, { steps }),
    h(Controls, {}),
    h(Help, {}),
    h(Scrubber, { at: C.pos, count: steps.length, version: step?.version ?? 0, last, event: step?.event?.text ?? "",
      onGo: go, ends: true, marks: marks(steps), badge: j ? [j.name, j.other] : undefined }),
    h("main", {},
      step ? h(Version, { step, prev: C.pos > 0 ? steps[C.pos - 1] : null })
        : h("section", { id: "table" }, h("p", { class: "muted" }, u("no version"))),
      h(Log, { log: logOf(steps), record: { at: BigInt(step?.version ?? -1), onGo: (v) => go(steps.findIndex((s) => s.version === Number(v))) } })),
    h("footer", { id: "source" }, DATA.source || ""));
}
