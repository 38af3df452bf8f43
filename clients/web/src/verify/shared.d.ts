// The shared verifier (clients/node/lib, CommonJS) as this bundle calls it.
declare module "*/node/lib/verify.js" {
  export class VerifyError extends Error {}
  export function publicKey(hex: string): { id: string; raw: Uint8Array };
  export function parseStrict(text: string): unknown;
  export function canonical(value: unknown): string;
  export function readKeySet(text: string, where?: string): {
    keys: { id: string; raw: Uint8Array }[];
    statements: unknown[];
    retired: string[];
  };
}
declare module "*/node/lib/verifyrun.js" {
  export function runVerify(
    text: string,
    keys: unknown[],
    options?: { statements?: unknown[]; retired?: string[]; receipts?: string | null; exportName?: string; receiptsName?: string },
  ): { status: number; out: string[]; err: string[] };
}
declare module "*/node/lib/keyset.js" {
  export function keySetJson(reply: unknown): unknown;
}
