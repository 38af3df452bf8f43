// node:fs as the shared verifier reads it in the browser: only lib/render.js's words table
// (clients/node/gen/words.json, bundled in), no other file.
import words from "../../../node/gen/words.json";

const WORDS = "words.json";
const isWords = (p: string): boolean => String(p).endsWith(`gen/${WORDS}`);

export function existsSync(p: string): boolean {
  return isWords(p);
}

export function readFileSync(p: string): string {
  if (!isWords(p)) throw Object.assign(new Error(`no file ${p} in the browser`), { code: "ENOENT", path: p });
  return JSON.stringify(words);
}

export function accessSync(p: string): void {
  readFileSync(p);
}
