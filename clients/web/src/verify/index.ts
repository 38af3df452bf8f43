// Verify a record in the browser (docs/api.md, "Audit" → "In the browser"): the Node
// verifier's own code (clients/node/lib: verify.js, translog.js, deal.js, clocks.js,
// seatsigs.js, proofs.js, render.js, fielddiff.js, verifyrun.js), bundled with the browser's
// cryptography in place of node:crypto (./crypto.ts: WebCrypto Ed25519). The same checks, the
// same lines and the same status as `tabletop-verify EXPORT --public-key KEY [--receipts R]`:
// 0 verified, 1 not (the line names the first problem), 3 a proof that the server lied.
//
//   import { verifyExport } from "./verify.js";
//   const { ok, status, lines } = await verifyExport(exportText, [receiptsText], { publicKeys: [hex] });
//
// The keys: `publicKeys` (64 hex digits each) or `keySet` (`tabletop-audit key --json`); with
// neither, the server's key set is asked of this page's origin (GetSigningKey over Connect),
// which proves only that the record is that server's (as `tabletop-verify --target`).
import { publicKey, readKeySet } from "../../../node/lib/verify.js";
import { runVerify } from "../../../node/lib/verifyrun.js";
import { keySetJson } from "../../../node/lib/keyset.js";
import { checkNoted, checksAsked, startRun, unchecked } from "./crypto";
import { load } from "./protos";

export interface VerifyOptions {
  publicKeys?: string[];
  keySet?: string;
  /** Where to ask for the key set when no key is given: this page's origin by default. */
  origin?: string;
  /** How a proof names the files (the export's file name, each receipts file's). */
  names?: { export?: string; receipts?: string[] };
}

export interface Verdict {
  ok: boolean;
  status: number;
  lines: string[];
}

const MAX_PASSES = 8; // a record's signatures are all asked for in the first run or two

/** The server's key set (GetSigningKey over Connect, in the contract's binary form), as
 * `tabletop-audit key --json` writes it: the Node verifier's own reading (lib/keyset.js). */
async function serverKeySet(origin: string): Promise<string> {
  const answer = await fetch(`${origin}/tabletop.v1.TableService/GetSigningKey`, {
    method: "POST",
    headers: { "content-type": "application/proto", "connect-protocol-version": "1" },
    body: new Uint8Array(0),
  });
  if (!answer.ok) throw new Error(`the server did not give its key (HTTP ${answer.status})`);
  const type = load().root.lookupType("tabletop.v1.GetSigningKeyResponse");
  const reply = type.toObject(type.decode(new Uint8Array(await answer.arrayBuffer())), { longs: Number, defaults: true });
  return JSON.stringify(keySetJson(reply));
}

/**
 * Verify an export (`tabletop-audit export GAME_ID`, a match's, or `tabletop export`), and,
 * given, each viewer's saved receipts (JSON Lines): {ok, status, lines}.
 */
export async function verifyExport(text: string, receipts?: string[], options: VerifyOptions = {}): Promise<Verdict> {
  let keys: unknown[];
  let statements: unknown[] = [];
  let retired: string[] = [];
  try {
    if (options.publicKeys && options.publicKeys.length) {
      keys = options.publicKeys.map((k) => publicKey(k));
    } else {
      const set = readKeySet(options.keySet ?? (await serverKeySet(options.origin ?? location.origin)));
      keys = set.keys;
      statements = set.statements;
      retired = set.retired.filter((id) => id !== set.keys[0].id);
    }
  } catch (err) {
    return { ok: false, status: 1, lines: [`VERIFY FAILED: ${(err as Error).message}`] };
  }
  const files = receipts && receipts.length ? receipts : [null];
  const lines: string[] = [];
  let status = 0;
  for (const [i, r] of files.entries()) {
    const run = await settled(() =>
      runVerify(text, keys, {
        statements,
        retired,
        receipts: r,
        exportName: options.names?.export ?? "export",
        receiptsName: options.names?.receipts?.[i] ?? (files.length > 1 ? `receipts ${i + 1}` : "receipts"),
      }),
    );
    lines.push(...run.out, ...run.err);
    status = Math.max(status, run.status);
    if (run.status !== 0) break;
  }
  return { ok: status === 0, status, lines };
}

/** Run the synchronous verifier until every signature it asked about was checked by WebCrypto. */
async function settled<T>(run: () => T): Promise<T> {
  for (let pass = 0; pass < MAX_PASSES; pass += 1) {
    startRun();
    const result = run();
    if (!unchecked.size) return result;
    await checkNoted();
  }
  throw new Error(`the verifier still asked for new signatures after ${MAX_PASSES} runs (${checksAsked()} asked)`);
}
