// gen/view-shape.json: the shape of a GameView (tabletop.v1.GameView and every message and
// enum it holds), read from the code protoc-gen-es generated, for the referee console's light
// reader of the page's proto JSON (src/console/view.ts). With it the console needs none of
// protobuf-es's runtime and embedded descriptors (about 130 kB of its bundle); the play page
// keeps them. `make web` runs it after the code generation; build.mjs imports it too.
//
// A message: [[proto name, json name ("": the local name), local name, kind, type or scalar, oneof, explicit], ...]
// with kind s (scalar), e (enum), m (message), ls/le/lm (a list of them), ms/me/mm (a map);
// the scalar's protobuf-es ScalarType number; the oneof's local name or "".
// An enum: {VALUE_NAME: number}.
import { build } from "esbuild";
import { mkdir, writeFile } from "node:fs/promises";

const here = new URL(".", import.meta.url).pathname;
const walker = `
import { GameViewSchema } from "./gen/tabletop/v1/tabletop_pb";
const messages = {}, enums = {};
const kindOf = (f) => f.fieldKind === "list" ? "l" + f.listKind[0] : f.fieldKind === "map" ? "m" + f.mapKind[0] : f.fieldKind[0];
function enumOf(e) {
  if (!enums[e.typeName]) enums[e.typeName] = Object.fromEntries(e.values.map((v) => [v.name, v.number]));
}
function walk(m) {
  if (messages[m.typeName]) return;
  messages[m.typeName] = [];
  messages[m.typeName] = m.fields.map((f) => {
    const k = kindOf(f);
    let ref = f.scalar ?? 0;
    if (k.endsWith("e")) { enumOf(f.enum); ref = f.enum.typeName; }
    if (k.endsWith("m")) { if (f.message.typeName.startsWith("google.protobuf.") && f.message.typeName !== "google.protobuf.Timestamp") throw new Error("no reader for " + f.message.typeName); if (f.message.typeName !== "google.protobuf.Timestamp") walk(f.message); ref = f.message.typeName; }
    if (f.fieldKind === "map" && f.mapKey !== 9) throw new Error("a map keyed by other than strings: " + f.name);
    return [f.name, f.jsonName === f.localName ? "" : f.jsonName, f.localName, k, ref, f.oneof ? f.oneof.localName : "", f.presence === 1 ? 1 : 0];
  });
}
walk(GameViewSchema);
export default { root: GameViewSchema.typeName, messages, enums };
`;
const out = await build({
  stdin: { contents: walker, resolveDir: here, loader: "ts" }, bundle: true, format: "esm", platform: "node",
  write: false, logLevel: "warning",
});
const shape = (await import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString("base64")}`)).default;
await mkdir(`${here}gen`, { recursive: true });
await writeFile(`${here}gen/view-shape.json`, JSON.stringify(shape));
