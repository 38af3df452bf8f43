// node:path as the shared verifier uses it in the browser (lib/render.js names its words file).
export const sep = "/";
export function resolve(...parts: string[]): string {
  return parts.filter(Boolean).join("/").replace(/\/+/g, "/");
}
export const join = resolve;
export default { sep, resolve, join };
