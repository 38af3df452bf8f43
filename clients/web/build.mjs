// Bundle src/ (and the code protoc-gen-es generated into gen/) into dist/: index.html, app.js,
// app.css; pwa.js (src/pwa: registerPwa, notifyTurn, ... as an ES module), sw.js (the service
// worker, at the root so its scope is the whole page), the web manifest and its icons.
// The referee console, the second door: console.js (src/console.ts, one classic script, no
// imports: server/wire/page inlines it into its self-contained page; no protobuf-es runtime:
// it reads its views by gen/view-shape.json, about 105 kB where fromJson made it 225 kB) and console.css (app.css's
// shared look, then the console's layout). `make web` runs it after the code generation; `node build.mjs` alone re-bundles.
import { build } from "esbuild";
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";

const here = new URL(".", import.meta.url).pathname;
await mkdir(`${here}dist`, { recursive: true });
await build({
  entryPoints: [`${here}src/main.ts`],
  bundle: true,
  format: "esm",
  target: ["es2020"],
  minify: true,
  sourcemap: false,
  legalComments: "none",
  outfile: `${here}dist/app.js`,
  logLevel: "warning",
});
// verify.js (src/verify): the Node verifier's own code (clients/node/lib), bundled for the
// browser with four substitutions: lib/crypto.js -> src/verify/crypto.ts (WebCrypto Ed25519),
// lib/protos.js -> src/verify/protos.ts (the contract for protobufjs, from the descriptor
// written here), node:fs / node:path -> the bundled words table; Buffer from `buffer`.
const nodeLib = path.resolve(here, "../node/lib");
await import("./verify-protos.mjs"); // gen/verify-protos.json (tsc reads it too: `make web` runs it first)
const substitutes = {
  name: "node-verifier-for-the-browser",
  setup(b) {
    const to = (file) => ({ path: path.resolve(here, "src/verify", file) });
    b.onResolve({ filter: /^\.\/(crypto|protos)$/ }, (args) =>
      path.resolve(args.resolveDir) === nodeLib ? to(`${args.path.slice(2)}.ts`) : undefined);
    b.onResolve({ filter: /^node:(crypto|fs|path)$/ }, (args) => to(`${args.path.slice(5)}.ts`));
    b.onResolve({ filter: /^node:/ }, (args) => ({ errors: [{ text: `${args.path}: not in the browser verifier` }] }));
  },
};
const common = { bundle: true, target: ["es2020"], minify: true, sourcemap: false, legalComments: "none", logLevel: "warning" };
await build({ ...common, entryPoints: [`${here}src/pwa/index.ts`], format: "esm", outfile: `${here}dist/pwa.js` });
await build({
  ...common,
  entryPoints: [`${here}src/verify/index.ts`],
  format: "esm",
  outfile: `${here}dist/verify.js`,
  plugins: [substitutes],
  define: { __dirname: JSON.stringify("/clients/node/lib") }, // lib/render.js names its words file by it
  inject: [`${here}src/verify/buffer-shim.ts`],
});
// verify-worker.js: the same verifier in a dedicated worker (the page's panel runs it there,
// so that only the worker's policy allows the eval protobufjs needs)
await build({
  ...common,
  entryPoints: [`${here}src/verify/worker.ts`],
  format: "iife",
  outfile: `${here}dist/verify-worker.js`,
  plugins: [substitutes],
  define: { __dirname: JSON.stringify("/clients/node/lib") },
  inject: [`${here}src/verify/buffer-shim.ts`],
});
await build({ ...common, entryPoints: [`${here}src/pwa/sw.ts`], format: "iife", outfile: `${here}dist/sw.js` });
for (const file of ["manifest.webmanifest", "icon.svg", "icon-192.png", "icon-512.png"]) {
  await copyFile(`${here}src/pwa/${file}`, `${here}dist/${file}`);
}
await copyFile(`${here}src/index.html`, `${here}dist/index.html`);
await copyFile(`${here}src/app.css`, `${here}dist/app.css`);
// the console reads its views with gen/view-shape.json (src/console/view.ts), not protobuf-es
await import("./view-shape.mjs");
await build({ ...common, entryPoints: [`${here}src/console.ts`], format: "iife", outfile: `${here}dist/console.js` });
const css = await Promise.all(["app.css", "console.css"].map((f) => readFile(`${here}src/${f}`, "utf8")));
await writeFile(`${here}dist/console.css`, css.join("\n"));
