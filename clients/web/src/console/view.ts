// The console's reader of a step's view: the page's proto JSON (the server's, with the proto's
// field names) made into the GameView the shared components read, as protobuf-es's fromJson
// would make it (every field present with its default, int64 as bigint, enums as numbers,
// oneofs as {case, value}, Timestamps as {seconds, nanos}), from gen/view-shape.json
// (view-shape.mjs) instead of protobuf-es's runtime and descriptors: the console's bundle
// stays small. clients/web/test/view.test.ts holds it equal to fromJson on real games.
import type { GameView } from "../../gen/tabletop/v1/tabletop_pb";
import shapeJson from "../../gen/view-shape.json";

type Field = [string, string, string, string, string | number, string, number];
type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const shape = shapeJson as unknown as { root: string; messages: Record<string, Field[]>; enums: Record<string, Record<string, number>> };

const LONG = new Set([3, 4, 6, 16, 18]); // ScalarType: INT64, UINT64, FIXED64, SFIXED64, SINT64
const BYTES = 12;
const BOOL = 8;
const STRING = 9;

function scalarDefault(t: number): unknown {
  return LONG.has(t) ? 0n : t === BOOL ? false : t === STRING ? "" : t === BYTES ? new Uint8Array(0) : 0;
}
function scalar(t: number, x: J): unknown {
  if (LONG.has(t)) return BigInt(x);
  if (t === BYTES) return Uint8Array.from(atob(String(x).replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
  if (typeof x === "string" && t !== STRING && t !== BOOL) return Number(x); // "NaN", "1e3": JSON numbers as strings
  return x;
}
const enumValue = (name: string, x: J): number => (typeof x === "number" ? x : shape.enums[name]?.[x] ?? 0);

function timestamp(x: string): { $typeName: string; seconds: bigint; nanos: number } {
  const m = /^(.*?)(?:\.(\d+))?Z$/.exec(x);
  const seconds = BigInt(Math.floor(Date.parse(`${m ? m[1] : x}Z`) / 1000));
  return { $typeName: "google.protobuf.Timestamp", seconds, nanos: m && m[2] ? Number(m[2].padEnd(9, "0").slice(0, 9)) : 0 };
}

function one(kind: string, ref: string | number, x: J): unknown {
  if (kind === "s") return scalar(ref as number, x);
  if (kind === "e") return enumValue(ref as string, x);
  return ref === "google.protobuf.Timestamp" ? timestamp(x) : message(ref as string, x);
}

function message(name: string, json: J): J {
  const out: J = { $typeName: name };
  for (const [proto, jsonName, local, kind, ref, oneof, explicit] of shape.messages[name]) {
    const x = json?.[proto] ?? json?.[jsonName || local];
    if (oneof) {
      out[oneof] ??= { case: undefined };
      if (x !== undefined && x !== null) out[oneof] = { case: local, value: one(kind, ref, x) };
      continue;
    }
    const has = x !== undefined && x !== null;
    if (kind[0] === "l") out[local] = has ? (x as J[]).map((y) => one(kind[1], ref, y)) : [];
    else if (kind.length === 2) out[local] = has ? Object.fromEntries(Object.entries(x).map(([k, y]) => [k, one(kind[1], ref, y)])) : {};
    else if (has) out[local] = one(kind, ref, x);
    else if (kind !== "m" && !explicit) out[local] = kind === "e" ? 0 : scalarDefault(ref as number); // a message, unset: absent
  }
  return out;
}

/** A step's view (proto JSON) as a GameView. */
export const readView = (json: J): GameView => message(shape.root, json) as GameView;
