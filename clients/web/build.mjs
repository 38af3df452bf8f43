// Bundle src/ (and the code protoc-gen-es generated into gen/) into dist/: index.html, app.js,
// app.css. `make web` runs it after the code generation; `node build.mjs` alone re-bundles.
import { build } from "esbuild";
import { copyFile, mkdir } from "node:fs/promises";

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
await copyFile(`${here}src/index.html`, `${here}dist/index.html`);
await copyFile(`${here}src/app.css`, `${here}dist/app.css`);
