// The console's light reader (src/console/view.ts) makes of every view of real games (VIEWS: a
// file of proto JSON views, every viewer's steps of finished games with cases, written by
// tests/web/test_console_view.py) exactly what protobuf-es's fromJson makes; and the enum
// names the shared components take from the TypeScript enums (util.enumText) are the
// descriptors' own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fromJson, type DescEnum, type JsonValue } from "@bufbuild/protobuf";
import { GameViewSchema, CaseStatus, CaseStatusSchema, PenaltyKind, PenaltyKindSchema, ViolationKind, ViolationKindSchema } from "../gen/tabletop/v1/tabletop_pb";
import { CardKind, CardKindSchema, Need, NeedSchema, Phase as HPhase, PhaseSchema as HPhaseSchema, Season, SeasonSchema } from "../gen/tabletop/huaniao/v1/huaniao_pb";
import { MeldKind, MeldKindSchema, Phase as ZPhase, PhaseSchema as ZPhaseSchema } from "../gen/tabletop/zipai/v1/zipai_pb";
import { readView } from "../src/console/view";
import { enumName, enumText } from "../src/util";

/** A value with its types spelled out (a bigint is not a number, bytes are not a list). */
function plain(x: unknown): unknown {
  if (typeof x === "bigint") return `bigint ${x}`;
  if (x instanceof Uint8Array) return `bytes ${[...x].join(",")}`;
  if (Array.isArray(x)) return x.map(plain);
  if (x && typeof x === "object") {
    return Object.fromEntries(Object.keys(x).sort().map((k) => [k, plain((x as Record<string, unknown>)[k])]));
  }
  return x === undefined ? "undefined" : x;
}

test("the console reads every view as fromJson does", () => {
  const views = JSON.parse(readFileSync(process.env.VIEWS!, "utf8")) as JsonValue[];
  assert.ok(views.length > 100, `only ${views.length} views`);
  for (const [i, json] of views.entries()) {
    const want = fromJson(GameViewSchema, json, { ignoreUnknownFields: true });
    assert.deepEqual(plain(readView(json)), plain(want), `view ${i}`);
  }
  console.log(`# ${views.length} views read alike`);
});

test("the enums' names without their descriptors", () => {
  const pairs: [Record<number, string>, string, DescEnum][] = [
    [CaseStatus, "CASE_STATUS_", CaseStatusSchema], [PenaltyKind, "PENALTY_KIND_", PenaltyKindSchema],
    [ViolationKind, "VIOLATION_KIND_", ViolationKindSchema], [CardKind, "CARD_KIND_", CardKindSchema],
    [Need, "NEED_", NeedSchema], [HPhase, "PHASE_", HPhaseSchema], [Season, "SEASON_", SeasonSchema],
    [MeldKind, "MELD_KIND_", MeldKindSchema], [ZPhase, "PHASE_", ZPhaseSchema],
  ];
  for (const [e, prefix, schema] of pairs) {
    for (const v of schema.values) assert.equal(enumText(e, prefix, v.number), enumName(schema, v.number));
  }
});
