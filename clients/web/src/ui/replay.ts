// The replay scrubber, shared by both doors: a slider over the versions, ← → (and, for the
// referee console, « » to the first and latest version and the timeline's marks: the justice
// side's events and the end), and the event that made the version shown.
import { h, type ComponentChildren } from "preact";
import { w, tip, line } from "../words";

/** A mark on the timeline above the slider: the step `at`, its version, a class, what it is. */
export interface Mark { at: number; version: string; cls: string; title: string }

export interface ScrubberProps {
  at: number; count: number; version: bigint | number; last: bigint | number | string; event: string;
  onGo: (i: number) => void; back?: string;
  /** the console's: « and », the marks, the event's badge ([words, tooltip]), more controls */
  ends?: boolean; marks?: Mark[]; badge?: [string, string]; children?: ComponentChildren;
}

export function Scrubber(p: ScrubberProps) {
  const { at, count, version } = p;
  const go = (i: number) => {
    p.onGo(Math.min(Math.max(0, i), count - 1));
    setTimeout(() => document.getElementById("replay-slider")?.focus());
  };
  const btn = (id: string, key: string, text: ComponentChildren, to: () => number) => h("button", {
    type: "button", class: "secondary", id, title: w(key), "aria-label": typeof text === "string" ? w(key) : undefined,
    onClick: () => go(to()) }, text);
  const n = Math.max(1, count - 1);
  const position = w("version of", { v: String(version), n: String(p.last) });
  return h("div", { class: "card-box replay-controls", id: "replay" },
    h("p", { class: "status-line", id: "replay-position", title: tip("version of").replace("{v}", String(version)).replace("{n}", String(p.last)) },
      position),
    h("div", { class: "row scrub" }, h("label", { for: "replay-slider" }, w("version")),
      h("div", { class: "track" },
        p.marks ? h("div", { id: "markers" }, p.marks.map((m) => h("button", {
          key: m.version, type: "button", class: `marker m-${m.cls}`, style: { left: `${(100 * m.at) / n}%` },
          title: m.title, "aria-label": m.title, "data-version": m.version, onClick: () => go(m.at) }))) : null,
        h("input", { id: "replay-slider", type: "range", min: 0, max: Math.max(0, count - 1), value: at,
          "aria-valuetext": `${w("version")} ${version}`, onInput: (e: Event) => go(Number((e.target as HTMLInputElement).value)) }))),
    h("div", { class: "row scrub" },
      p.ends ? btn("replay-first", "first version", "«", () => 0) : null,
      btn("replay-prev", "previous version", ["← ", w("prev")], () => at - 1),
      btn("replay-next", "next version", [w("next"), " →"], () => at + 1),
      p.ends ? btn("replay-last", "latest version", "»", () => count - 1) : null,
      p.back ? h("a", { href: p.back }, w("backToTable")) : null,
      p.children),
    h("p", { id: "replay-event", class: p.badge ? "wrap event justice" : "wrap event", title: p.event },
      p.badge ? [h("span", { class: "badge", title: p.badge[1] }, p.badge[0]), " "] : null,
      h("span", { class: "v" }, `v${version}`), " ",
      h("span", { class: "t" }, p.event ? line(p.event) : "")));
}
