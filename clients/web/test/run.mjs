// Bundle each test/*.test.ts (esbuild, with the generated code) into a temporary folder and
// run them with Node's test runner: `node test/run.mjs` (tests/web/test_picker.py sets HANDS,
// and ONLY=NAME for one file).
import { build } from "esbuild";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

const here = new URL(".", import.meta.url).pathname;
const out = mkdtempSync(join(tmpdir(), "web-test-"));
const only = process.env.ONLY; // one test file (its name before .test.ts), else all
const tests = readdirSync(here).filter((f) => f.endsWith(".test.ts") && (!only || f === `${only}.test.ts`));
await build({
  entryPoints: tests.map((f) => join(here, f)),
  bundle: true, format: "esm", platform: "node", target: ["node20"],
  outdir: out, outExtension: { ".js": ".mjs" }, logLevel: "warning",
});
const files = readdirSync(out).map((f) => join(out, f));
const run = spawnSync(process.execPath, ["--test", ...files], { stdio: "inherit" });
rmSync(out, { recursive: true, force: true });
process.exit(run.status ?? 1);
