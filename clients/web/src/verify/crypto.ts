// node:crypto as the shared verifier uses it (clients/node/lib/crypto.js is replaced by this
// file in the browser bundle): SHA-256 and HMAC-SHA-256 at once (@noble/hashes: the verifier
// is synchronous, and each chain hash needs the one before), Ed25519 by WebCrypto.
//
// WebCrypto answers only with promises, so a signature is checked before the verifier asks:
// `verify` answers from the checked signatures; one never checked is noted in `unchecked`
// and answered true for now. verifyExport (./index.ts) runs the verifier, checks with
// WebCrypto every signature it noted, and runs it again, until a run asks nothing new; only
// that run's answer counts (every signature in it was checked by WebCrypto).
import { Buffer } from "buffer";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";

const SPKI_ED25519 = "302a300506032b6570032100";

type Bytes = Uint8Array | string;
const bytesOf = (b: Bytes): Uint8Array => (typeof b === "string" ? Buffer.from(b, "utf8") : b);
const concat = (parts: Uint8Array[]): Uint8Array => Buffer.concat(parts);

class Digest {
  private parts: Uint8Array[] = [];
  constructor(private readonly key: Uint8Array | null) {}
  update(data: Bytes): this {
    this.parts.push(bytesOf(data));
    return this;
  }
  digest(encoding?: "hex"): Buffer | string {
    const data = concat(this.parts);
    const out = Buffer.from(this.key ? hmac(sha256, this.key, data) : sha256(data));
    return encoding === "hex" ? out.toString("hex") : out;
  }
}

function onlySha256(algorithm: string): void {
  if (algorithm !== "sha256") throw new Error(`${algorithm}: the browser verifier has SHA-256 only`);
}

export function createHash(algorithm: string): Digest {
  onlySha256(algorithm);
  return new Digest(null);
}

export function createHmac(algorithm: string, key: Bytes): Digest {
  onlySha256(algorithm);
  return new Digest(bytesOf(key));
}

/** An Ed25519 public key from its SPKI DER (the verifier's only use). */
export class PublicKey {
  constructor(readonly raw: Uint8Array) {}
}

export function createPublicKey(spec: { key: Uint8Array; format: string; type: string }): PublicKey {
  const der = Buffer.from(spec.key);
  if (spec.format !== "der" || spec.type !== "spki" || der.length !== 44 || der.subarray(0, 12).toString("hex") !== SPKI_ED25519) {
    throw new Error("the browser verifier reads Ed25519 public keys only");
  }
  return new PublicKey(Uint8Array.from(der.subarray(12)));
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const known = new Map<string, boolean>(); // signature checks done by WebCrypto
export const unchecked = new Map<string, { key: Uint8Array; data: Uint8Array; signature: Uint8Array }>();
let asked = 0; // how many checks the current run asked for

export function verify(algorithm: null, data: Uint8Array, key: PublicKey, signature: Uint8Array): boolean {
  if (algorithm !== null || !(key instanceof PublicKey)) throw new Error("the browser verifier checks Ed25519 only");
  const id = `${hex(key.raw)}|${hex(signature)}|${hex(sha256(data))}`;
  asked += 1;
  const answer = known.get(id);
  if (answer !== undefined) return answer;
  unchecked.set(id, { key: key.raw, data: Uint8Array.from(data), signature: Uint8Array.from(signature) });
  return true;
}

/** Check every noted signature with WebCrypto; returns how many were checked. */
export async function checkNoted(): Promise<number> {
  const subtle = globalThis.crypto && globalThis.crypto.subtle;
  if (!subtle) throw new Error("this browser has no WebCrypto (crypto.subtle): open the page over https or from localhost");
  const todo = [...unchecked.entries()];
  unchecked.clear();
  const keys = new Map<string, Promise<CryptoKey>>();
  await Promise.all(
    todo.map(async ([id, { key, data, signature }]) => {
      const k = hex(key);
      if (!keys.has(k)) keys.set(k, subtle.importKey("raw", key, { name: "Ed25519" }, false, ["verify"]));
      const ok = signature.length === 64 && (await subtle.verify({ name: "Ed25519" }, await keys.get(k)!, signature, data));
      known.set(id, ok);
    }),
  );
  return todo.length;
}

export function startRun(): void {
  asked = 0;
  unchecked.clear();
}

export const checksAsked = (): number => asked;

// What Node has and the browser verifier never needs (a seat's own signing key).
const nodeOnly = (name: string) => () => {
  throw new Error(`crypto.${name}: not in the browser verifier`);
};
export const generateKeyPairSync = nodeOnly("generateKeyPairSync");
export const createPrivateKey = nodeOnly("createPrivateKey");
export const sign = nodeOnly("sign");
export const randomBytes = nodeOnly("randomBytes");
