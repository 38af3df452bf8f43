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
import { canonical, parseStrict, publicKey, readKeySet } from "../../../node/lib/verify.js";
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

/** A finished game's record from this page's server, in the form `tabletop-audit export`
 * writes (clients/python/exports.py): one canonical line per event of GetHistory (over
 * Connect), `{version, hash, recorded_at, fact, cause, seal}`. The lines are the server's
 * own stored text re-keyed, so the checks that follow prove what the server signed, not
 * what this function did; a line it cannot form fails the check that reads it. */
export async function exportOf(gameId: string, origin: string, token = ""): Promise<string> {
  const root = load().root;
  const request = root.lookupType("tabletop.v1.GetHistoryRequest");
  const response = root.lookupType("tabletop.v1.GetHistoryResponse");
  const headers: Record<string, string> = { "content-type": "application/proto", "connect-protocol-version": "1" };
  if (token) headers["x-seat-token"] = token;
  const lines: string[] = [];
  let page = "";
  do {
    const body = request.encode(request.create({ game_id: gameId, page_token: page })).finish();
    const answer = await fetch(`${origin}/tabletop.v1.TableService/GetHistory`, { method: "POST", headers, body });
    if (!answer.ok) throw new Error(`the server did not give the record (HTTP ${answer.status})`);
    const reply = response.toObject(response.decode(new Uint8Array(await answer.arrayBuffer())), { longs: String, defaults: true });
    for (const ev of reply.events as Array<Record<string, any>>) {
      if (!ev.stored_json) throw new Error("the record is open to its seats only until the game ends");
      const at = ev.recorded_at;
      const iso = new Date(Number(at.seconds) * 1000).toISOString().slice(0, 19);
      const micros = String(Math.floor(Number(at.nanos) / 1000)).padStart(6, "0");
      const stored = parseStrict(ev.stored_json) as Record<string, unknown>;
      lines.push(canonical({ version: Number(ev.version), hash: ev.hash, recorded_at: `${iso}.${micros}Z`, ...stored }));
    }
    page = String(reply.next_page_token || "");
  } while (page);
  return lines.join("\n") + "\n";
}
