// gen/verify-protos.json: the contract (tabletop.proto and the google.rpc protos) loaded by
// protobufjs, keepCase, as clients/node/lib/protos.js loads it in Node, for the browser's
// verifier (src/verify/protos.ts). `make web` runs it after the code generation; build.mjs
// imports it too.
import { accessSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";

const here = new URL(".", import.meta.url).pathname;
const protobuf = createRequire(import.meta.url)("protobufjs");
const root = new protobuf.Root();
const includes = [path.resolve(here, "../../protos"), path.resolve(here, "../node/proto")];
root.resolvePath = (origin, target) => {
  for (const dir of includes) {
    try {
      accessSync(path.join(dir, target));
      return path.join(dir, target);
    } catch {
      // the next include dir
    }
  }
  return protobuf.util.path.resolve(origin, target);
};
root.loadSync(["google/rpc/status.proto", "google/rpc/error_details.proto", "tabletop/v1/tabletop.proto"], { keepCase: true });
await mkdir(`${here}gen`, { recursive: true });
await writeFile(`${here}gen/verify-protos.json`, JSON.stringify(root.toJSON()));
