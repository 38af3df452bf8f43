// Small helpers shared by both doors: ids, hex, hashes, enum names.
import type { DescEnum } from "@bufbuild/protobuf";

export const enumName = (schema: DescEnum, n: number): string => schema.value[n]?.name ?? String(n);
/** The same name from the generated TypeScript enum and the prefix protoc-gen-es took off its
 * values (CardKind, "CARD_KIND_"): no descriptor needed, so what the console shares with the
 * page does not pull protobuf-es's runtime into the console (test/view.test.ts checks the two
 * agree for every enum the shared components name this way). */
export const enumText = (e: Record<number, string>, prefix: string, n: number): string =>
  e[n] === undefined ? String(n) : prefix + e[n];

export function uuid(): string {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const x = [...b].map((v) => v.toString(16).padStart(2, "0")).join("");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}
export const hex = (b: ArrayBuffer | Uint8Array) =>
  [...new Uint8Array(b)].map((v) => v.toString(16).padStart(2, "0")).join("");
export async function sha256(data: string | Uint8Array): Promise<string | null> {
  if (!crypto.subtle) return null; // not a secure context (plain http to another host)
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  return hex(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
}
export const b64 = (b: Uint8Array) => btoa(String.fromCharCode(...b));
