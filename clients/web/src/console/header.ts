// The console's header: the game, how its record verifies (or, live after the end, the command
// that verifies it, runnable as shown from any folder), and where its deal came from.
import { h } from "preact";
import { C, DATA, KIND, L, O, u, uf, label, termOf, type Step, type J } from "./model";

function dealWords(steps: Step[], lang: number): [boolean, string] {
  const source = DATA.deal_source || (steps.length ? steps[steps.length - 1].view.deal_source : undefined);
  let prepared = DATA.prepared_deal;
  if ((prepared === null || prepared === undefined) && source) prepared = source !== "DEAL_SOURCE_SHUFFLED";
  const known = prepared === true || prepared === false;
  const what = source ? termOf(source, lang) : u(prepared === true ? "prepared" : prepared === false ? "shuffled" : "unknown", lang);
  return [known, `${u("deal", lang)}: ${what}`];
}

function Status({ v }: { v: J }) {
  if (C.finished) { // the live page after the end: what verifies the game
    const cmd = v.command || `tabletop-audit verify ${DATA.game_id || "GAME"}`;
    return h("span", { id: "verify-status", class: "badge ok", "data-status": "finished", title: uf("finished verify", { cmd }, O()) },
      uf("finished verify", { cmd }));
  }
  const ok = v.status === "verified";
  return h("span", { id: "verify-status", class: `badge ${ok ? "ok" : v.status === "failed" ? "bad" : "unknown"}`, "data-status": v.status,
    title: `${u("verify", O())}: ${u(v.status, O())}` }, `${u("verify")}: ${u(v.status)}`);
}

export function Header({ steps }: { steps: Step[] }) {
  const v = DATA.verify;
  const name = `game ${KIND}`;
  const [known, deal] = dealWords(steps, L());
  return h("header", { id: "top" },
    h("h1", { id: "title", title: u(name, O()) }, u(name) + (DATA.game_id ? ` · ${DATA.game_id}` : "")),
    h("div", { id: "verify", class: "verify" },
      v ? [
        h(Status, { v }),
        (v.checks || []).map((c: J) => h("span", { key: c.name, class: `badge ${c.ok ? "ok" : "bad"}`, title: u(`check ${c.name}`, O()).replace(/^check /, "") },
          (c.ok ? "✓ " : "✗ ") + u(`check ${c.name}`).replace(/^check /, ""))),
        v.message && !C.finished ? h("span", { class: "muted" }, v.message) : null,
        v.report && Object.keys(v.report).length ? h("details", {}, h("summary", { title: u("report", O()) }, u("report")),
          h("dl", {}, Object.entries(v.report).map(([k, val]) => [h("dt", { title: label(k, O()) }, label(k)),
            h("dd", {}, typeof val === "object" ? JSON.stringify(val) : String(val))]))) : null,
      ] : null,
      h("span", { id: "deal", class: known ? "badge" : "badge unknown", title: dealWords(steps, O())[1] }, deal)));
}
