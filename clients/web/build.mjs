// Bundle src/ (and the code protoc-gen-es generated into gen/) into dist/: the two doors of the
// one front end. The play page: index.html, app.js, app.css. The referee console: console.js (one
// classic script, no imports: server/wire/page inlines it into its self-contained page) and
// console.css (app.css's shared look, then the console's layout). `make web` runs it after the
// code generation; `node build.mjs` alone re-bundles.
import { build } from "esbuild";
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";

const here = new URL(".", import.meta.url).pathname;
await mkdir(`${here}dist`, { recursive: true });
const common = { bundle: true, target: ["es2020"], minify: true, sourcemap: false, legalComments: "none", logLevel: "warning" };
await build({ ...common, entryPoints: [`${here}src/main.ts`], format: "esm", outfile: `${here}dist/app.js` });
await build({ ...common, entryPoints: [`${here}src/console.ts`], format: "iife", outfile: `${here}dist/console.js` });
await copyFile(`${here}src/index.html`, `${here}dist/index.html`);
await copyFile(`${here}src/app.css`, `${here}dist/app.css`);
const css = await Promise.all(["app.css", "console.css"].map((f) => readFile(`${here}src/${f}`, "utf8")));
await writeFile(`${here}dist/console.css`, css.join("\n"));
