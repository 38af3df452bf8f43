// Bundle src/ (and the code protoc-gen-es generated into gen/) into dist/: index.html, app.js,
// app.css; pwa.js (src/pwa: registerPwa, notifyTurn, ... as an ES module), sw.js (the service
// worker, at the root so its scope is the whole page), the web manifest and its icons.
// `make web` runs it after the code generation; `node build.mjs` alone re-bundles.
import { build } from "esbuild";
import { copyFile, mkdir } from "node:fs/promises";

const here = new URL(".", import.meta.url).pathname;
await mkdir(`${here}dist`, { recursive: true });
await build({
  entryPoints: [`${here}src/app.ts`],
  bundle: true,
  format: "esm",
  target: ["es2020"],
  minify: true,
  sourcemap: false,
  legalComments: "none",
  outfile: `${here}dist/app.js`,
  logLevel: "warning",
});
const common = { bundle: true, target: ["es2020"], minify: true, sourcemap: false, legalComments: "none", logLevel: "warning" };
await build({ ...common, entryPoints: [`${here}src/pwa/index.ts`], format: "esm", outfile: `${here}dist/pwa.js` });
await build({ ...common, entryPoints: [`${here}src/pwa/sw.ts`], format: "iife", outfile: `${here}dist/sw.js` });
for (const file of ["manifest.webmanifest", "icon.svg", "icon-192.png", "icon-512.png"]) {
  await copyFile(`${here}src/pwa/${file}`, `${here}dist/${file}`);
}
await copyFile(`${here}src/index.html`, `${here}dist/index.html`);
await copyFile(`${here}src/app.css`, `${here}dist/app.css`);
