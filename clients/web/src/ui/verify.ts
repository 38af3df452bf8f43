// The verify panel: the whole record checked in the browser (chain, seals, receipts, the
// transparency log), by the Node verifier's own code (clients/web/src/verify, bundled into
// dist/verify-worker.js). It runs in a dedicated worker with a policy of its own, as its
// protobufjs compiles decoders with Function and the page's policy allows no eval; the worker
// reads the finished game's record from this server itself (GetHistory) unless given `text`.
import { h } from "preact";
import { useState } from "preact/hooks";
import { w } from "../words";

type Verdict = { ok: boolean; status: number; lines: string[] };
export const VERIFIER_READY = true;

/** The verdict of the verifier's worker on `gameId`'s record (or on `text`), with the
 * receipts files given (each JSON Lines, as `--receipts` reads); the key is the page's
 * server's (GetSigningKey). */
export function verifyInWorker(gameId: string, receipts: string[] | undefined, text?: string): Promise<Verdict> {
  return new Promise((resolve) => {
    const worker = new Worker("/verify-worker.js");
    const done = (v: Verdict) => {
      worker.terminate();
      resolve(v);
    };
    worker.onmessage = (e: MessageEvent) => {
      const d = e.data as Verdict & { error?: string };
      done(d.error !== undefined ? { ok: false, status: 2, lines: [d.error] } : d);
    };
    worker.onerror = (e) => done({ ok: false, status: 2, lines: [String(e.message || "the verifier did not start")] });
    worker.postMessage(text === undefined ? { gameId, receipts } : { text, receipts });
  });
}

export function VerifyPanel({ gameId, receipts, text }: { gameId: string; receipts: () => string[]; text?: string }) {
  const [verdict, setVerdict] = useState<Verdict | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      const kept = receipts().filter((r) => r.trim()); // the receipts this page kept: one file
      setVerdict(await verifyInWorker(gameId, kept.length ? [kept.join("\n") + "\n"] : undefined, text));
    } finally {
      setBusy(false);
    }
  };
  return h("div", { class: "verify-panel", id: "verify-panel" },
    h("button", { type: "button", class: "secondary", id: "verify-run", disabled: busy, onClick: () => void run() }, w("verifyHere")),
    verdict ? h("div", { id: "verify-result", "data-ok": String(verdict.ok), "data-status": verdict.status },
      h("p", {}, verdict.ok ? "✓" : "✗"), h("pre", { class: "wrap" }, verdict.lines.join("\n"))) : null);
}
