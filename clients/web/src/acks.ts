// The server's signed acknowledgement of this seat's commitment or reveal (docs/api.md,
// "Audit", point 5): a CommitContribution or RevealContribution reply carries the move that
// recorded the seat's input (`events`) and a Receipt signed with the server's key over them.
// A reply without both, or whose receipt does not check, means the input was NOT taken: the
// draw waits for it, and the player must be told. The same checks as clients/python/seat.py
// acknowledgement_problem and clients/node/lib/acks.js.
import { create, toBinary } from "@bufbuild/protobuf";
import { ReceiptPayloadSchema, type GameEvent, type Receipt } from "../gen/tabletop/v1/tabletop_pb";

export type Ack = { events: GameEvent[]; receipt?: Receipt };
export type Fact = "seatCommitted" | "contributionRevealed";

const hex = (b: ArrayBuffer | Uint8Array) =>
  [...new Uint8Array(b)].map((v) => v.toString(16).padStart(2, "0")).join("");

/** The canonical JSON the seal is signed over (clients/node/lib/verify.js canonical). */
function canonical(v: unknown): string {
  if (typeof v === "bigint" || typeof v === "number") return String(v);
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(",")}}`;
}

/** The bytes a receipt's signature covers: "tabletop-seal/2\n" + canonical JSON (/1 for an
 * old seal that hashed views with every move). */
function sealBody(r: Receipt): Uint8Array {
  const withViews = r.hashes.some((x) => x.view);
  const receipts = r.hashes.map((x) => (withViews ? [x.events, x.view] : [x.events]));
  const seal = { first: r.firstVersion, game_id: r.gameId, head: r.headHash, last: r.lastVersion, receipts };
  return new TextEncoder().encode(`tabletop-seal/${withViews ? 1 : 2}\n${canonical(seal)}`);
}

async function signedByOneOf(r: Receipt, keys: Uint8Array[]): Promise<boolean> {
  if (r.signature.length !== 64) return false;
  const body = sealBody(r);
  for (const raw of keys) {
    const key = await crypto.subtle.importKey("raw", raw as BufferSource, { name: "Ed25519" }, false, ["verify"]);
    if (await crypto.subtle.verify({ name: "Ed25519" }, key, r.signature as BufferSource, body as BufferSource)) return true;
  }
  return false;
}

/**
 * What is wrong with `ack` ("" when it holds): a receipt for `gameId`, signed by one of the
 * server's `keys`, for viewer `seat`, whose salted hash covers the events sent, and those
 * events hold `fact` of `seat` (with `commitment`, when given).
 */
/** The bytes of a receipt of format 3 (a server run with --receipt-format 3): its own
 * signature over the SHA-256 of the ReceiptPayload sent (docs/api.md, "Receipts of format 3"). */
function receiptBody(r: Receipt, gameId: string, payloadHash: string): Uint8Array {
  const body = {
    first: r.firstVersion, game_id: gameId, head: hex(r.head), last: r.lastVersion, payload: payloadHash, viewer: r.viewer,
  };
  return new TextEncoder().encode(`tabletop-receipt/3\n${canonical(body)}`);
}

async function verifiedBy(signature: Uint8Array, body: Uint8Array, keys: Uint8Array[]): Promise<boolean> {
  if (signature.length !== 64) return false;
  for (const raw of keys) {
    const key = await crypto.subtle.importKey("raw", raw as BufferSource, { name: "Ed25519" }, false, ["verify"]);
    if (await crypto.subtle.verify({ name: "Ed25519" }, key, signature as BufferSource, body as BufferSource)) return true;
  }
  return false;
}

/** Whether a receipt of format 3 is signed by one of `keys` over `payload` (the bytes it covers). */
export async function receipt3Holds(r: Receipt, payload: Uint8Array, gameId: string, keys: Uint8Array[]): Promise<boolean> {
  const digest = hex(await crypto.subtle.digest("SHA-256", payload as BufferSource));
  return verifiedBy(r.signature, receiptBody(r, r.gameId || gameId, digest), keys);
}

export async function ackProblem(
  ack: Ack, gameId: string, seat: number, fact: Fact, commitment: string | null, keys: Uint8Array[],
): Promise<string> {
  const r = ack.receipt;
  if (!r) return "no signed acknowledgement came back";
  if (!ack.events.length) return "the acknowledgement holds no events";
  if (r.head.length) {
    if (r.gameId && r.gameId !== gameId) return `the acknowledgement is for game ${r.gameId}, not ${gameId}`;
    const sent = toBinary(ReceiptPayloadSchema, create(ReceiptPayloadSchema, { events: ack.events }));
    const digest = hex(await crypto.subtle.digest("SHA-256", sent as BufferSource));
    if (!(await verifiedBy(r.signature, receiptBody(r, gameId, digest), keys))) {
      return "the acknowledgement is not signed by the server's key over the events sent";
    }
    if (r.viewer !== seat) return `the acknowledgement is seat ${r.viewer}'s, not seat ${seat}'s`;
    return held(ack, seat, fact, commitment);
  }
  if (r.gameId !== gameId) return `the acknowledgement is for game ${r.gameId}, not ${gameId}`;
  if (!(await signedByOneOf(r, keys))) return "the acknowledgement is not signed by the server's key";
  if (r.viewer !== seat) return `the acknowledgement is seat ${r.viewer}'s, not seat ${seat}'s`;
  const payload = toBinary(ReceiptPayloadSchema, create(ReceiptPayloadSchema, { events: ack.events }));
  const salted = new Uint8Array(r.nonce.length + payload.length);
  salted.set(r.nonce);
  salted.set(payload, r.nonce.length);
  const digest = hex(await crypto.subtle.digest("SHA-256", salted));
  if (digest !== r.hashes[r.viewer]?.events) return "the acknowledgement does not cover the events sent";
  return held(ack, seat, fact, commitment);
}

function held(ack: Ack, seat: number, fact: Fact, commitment: string | null): string {
  const found = ack.events.some((ev) => {
    if (ev.body.case !== "table" || ev.body.value.kind.case !== fact) return false;
    const got = ev.body.value.kind.value as { seat: number; commitment?: string };
    return got.seat === seat && (commitment === null || got.commitment === commitment);
  });
  return found ? "" : `the acknowledged events hold no ${fact} of seat ${seat}`;
}
