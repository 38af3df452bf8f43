// The report form offers only the game's own violation kinds (issue 37 point 6: 川南字牌's
// offered 花鸟风月's): src/kinds.ts reportable(), over views of each game and table.
import { test } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { GameViewSchema, Enforcement, ViolationKind as V } from "../gen/tabletop/v1/tabletop_pb";
import { reportable } from "../src/kinds";

const view = (game: "huaniao" | "zipai", enforcement: Enforcement, turnTimeLimitMs = 0) =>
  create(GameViewSchema, { enforcement, turnTimeLimitMs, game: { case: game, value: {} } as never });

test("川南字牌 offers no 花鸟风月 rule kinds", () => {
  for (const e of [Enforcement.REJECT, Enforcement.PLAYERS, Enforcement.REFEREE]) {
    assert.deepEqual(reportable(view("zipai", e)), [V.TIMEOUT, V.OTHER]);
  }
  assert.deepEqual(reportable(view("zipai", Enforcement.REJECT, 30000)), [V.OTHER], "a clocked table times out by itself");
});

test("花鸟风月 offers its rule kinds only where the players enforce the rules", () => {
  assert.deepEqual(reportable(view("huaniao", Enforcement.PLAYERS)),
    [V.ILLEGAL_COMBO, V.WRONG_DECLARATION, V.SEASON_RULE, V.DISCARD_ORDER, V.TIMEOUT, V.OTHER]);
  assert.deepEqual(reportable(view("huaniao", Enforcement.REJECT)), [V.TIMEOUT, V.OTHER]);
  assert.deepEqual(reportable(view("huaniao", Enforcement.REFEREE, 20000)), [V.OTHER]);
});
