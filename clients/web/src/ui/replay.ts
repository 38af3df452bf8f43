// The replay scrubber: a slider over the versions, ← →, and the event that made the one shown.
import { h } from "preact";
import { w, line } from "../words";

export function Scrubber({ at, count, version, last, event, onGo, back }: {
  at: number; count: number; version: bigint; last: bigint | string; event: string; onGo: (i: number) => void; back?: string;
}) {
  const go = (i: number) => {
    onGo(Math.min(Math.max(0, i), count - 1));
    setTimeout(() => document.getElementById("replay-slider")?.focus());
  };
  return h("div", { class: "card-box replay-controls" },
    h("p", { class: "status-line" }, `${w("version")} ${version} / ${last}`),
    h("div", { class: "row" }, h("label", { for: "replay-slider" }, w("version")),
      h("input", { id: "replay-slider", type: "range", min: 0, max: count - 1, value: at, "aria-valuetext": `${w("version")} ${version}`,
        onInput: (e: Event) => go(Number((e.target as HTMLInputElement).value)) })),
    h("div", { class: "row" },
      h("button", { type: "button", class: "secondary", id: "replay-prev", onClick: () => go(at - 1) }, "← ", w("prev")),
      h("button", { type: "button", class: "secondary", id: "replay-next", onClick: () => go(at + 1) }, w("next"), " →"),
      back ? h("a", { href: back }, w("backToTable")) : null),
    h("p", { id: "replay-event", class: "wrap", title: event }, event ? line(event) : ""));
}
