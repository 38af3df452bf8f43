// What a 川南字牌 seat is told on the table (src/outcomes.ts): a lost claim, a discard that fed
// a 胡; nothing for a claim that was taken, a pass, or another seat's affairs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ClaimKind } from "../gen/tabletop/zipai/v1/zipai_pb";
import { fold, type Pending } from "../src/outcomes";

const run = (me: number, facts: [string, Record<string, unknown>][]) => {
  let pending: Pending = null;
  const told = [];
  for (const [kind, value] of facts) {
    const [next, t] = fold(pending, kind, value, me);
    pending = next;
    if (t) told.push(t);
  }
  return told;
};

test("my 吃 lost to another seat's 碰", () => {
  assert.deepEqual(run(1, [
    ["cardDiscarded", { seat: 0 }],
    ["claimMade", { seat: 1, claim: { kind: ClaimKind.CHI } }],
    ["claimMade", { seat: 2, claim: { kind: ClaimKind.PENG } }],
    ["penged", { seat: 2, fromSeat: 0 }],
  ]), [{ what: "lost", mine: ClaimKind.CHI, by: 2, theirs: "penged" }]);
});

test("a claim that is taken, a pass, or a window nobody takes tells nothing", () => {
  assert.deepEqual(run(1, [
    ["claimMade", { seat: 1, claim: { kind: ClaimKind.PENG } }],
    ["penged", { seat: 1, fromSeat: 0 }],
    ["claimMade", { seat: 1, claim: { kind: ClaimKind.PASS } }],
    ["chied", { seat: 2, fromSeat: 0 }],
    ["claimMade", { seat: 1, claim: { kind: ClaimKind.CHI } }],
    ["nobodyClaimed", { seat: 0 }],
    ["chied", { seat: 2, fromSeat: 0 }],
  ]), []);
});

test("my discard fed another seat's 胡 (点炮); a 胡 on a flip or my own is not that", () => {
  assert.deepEqual(run(0, [
    ["cardDiscarded", { seat: 0 }],
    ["hued", { seat: 2, fromSeat: 0, winKind: 2 }],
  ]), [{ what: "fed", by: 2 }]);
  assert.deepEqual(run(0, [["hued", { seat: 2, fromSeat: 1, winKind: 2 }]]), []);
  assert.deepEqual(run(0, [["hued", { seat: 2, fromSeat: 0, winKind: 3 }]]), []);
});
