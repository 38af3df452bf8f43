// The in-browser verifier in a worker of its own (dist/verify-worker.js): the Node verifier's
// protobufjs builds its decoders with Function, which only this worker's own policy allows
// (the web port serves it with 'unsafe-eval'); the page keeps a policy without it.
// Message in: {text?, gameId?, token?, receipts?, options?}; out: the Verdict, or {error}.
import { exportOf, verifyExport } from "./index";

const scope = self as unknown as { onmessage: ((e: MessageEvent) => void) | null; postMessage: (m: unknown) => void; location: Location };

scope.onmessage = (e: MessageEvent) => {
  const { text, gameId, token, receipts, options } = e.data ?? {};
  void (async () => {
    try {
      const record = typeof text === "string" ? text : await exportOf(String(gameId), scope.location.origin, token ?? "");
      scope.postMessage(await verifyExport(record, receipts ?? undefined, options ?? {}));
    } catch (err) {
      scope.postMessage({ error: String((err as Error)?.message ?? err) });
    }
  })();
};
