// The verify panel: the whole record checked in the browser (chain, seals, receipts), by the
// verifier module clients/web/src/verify/ (helper F2's, the same code as the Node verifier).
import { h } from "preact";
import { useState } from "preact/hooks";
import { w } from "../words";

type Verdict = { ok: boolean; status: number; lines: string[] };
// TODO(F2 merge): replace this stub with `import { verifyExport } from "../verify/index";`
// once clients/web/src/verify/ is on main, and set VERIFIER_READY; until then the panel is
// not shown (a button that can only fail helps nobody).
export const VERIFIER_READY = false;
async function verifyExport(_text: string, _receipts?: string[]): Promise<Verdict> {
  return { ok: false, status: 2, lines: ["the in-browser verifier is not built into this page yet"] };
}

/** The record of `gameId` as `tabletop-audit export` writes it, from the server (null: none).
 * TODO(F2 merge): the route is F2's to name (or verifyExport reads the history itself). */
async function exportText(gameId: string): Promise<string | null> {
  const res = await fetch(`/export/${encodeURIComponent(gameId)}.jsonl`).catch(() => null);
  return res && res.ok ? res.text() : null;
}

export function VerifyPanel({ gameId, receipts, text }: { gameId: string; receipts: () => string[]; text?: string }) {
  const [verdict, setVerdict] = useState<Verdict | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      const record = text ?? (await exportText(gameId));
      setVerdict(record === null ? { ok: false, status: 2, lines: [w("notFound")] } : await verifyExport(record, receipts()));
    } finally {
      setBusy(false);
    }
  };
  return h("div", { class: "verify-panel", id: "verify-panel" },
    h("button", { type: "button", class: "secondary", id: "verify-run", disabled: busy, onClick: () => void run() }, w("verifyHere")),
    verdict ? h("div", { id: "verify-result", "data-ok": String(verdict.ok), "data-status": verdict.status },
      h("p", {}, verdict.ok ? "✓" : "✗"), h("pre", { class: "wrap" }, verdict.lines.join("\n"))) : null);
}
