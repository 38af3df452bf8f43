// The move picker (src/picker.ts) over random hands the Python engine dealt
// (tests/web/hands.py; tests/web/test_picker.py runs this): never more than one screen of
// choices, and every legal play reachable by touching its cards only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fromJson } from "@bufbuild/protobuf";
import { LegalMovesResponseSchema } from "../gen/tabletop/v1/tabletop_pb";
import { SCREEN, choices, pick, type Choice } from "../src/picker";

type Hand = { kind: string; seed: number; moves: unknown };
const HANDS: Hand[] = JSON.parse(readFileSync(process.env.HANDS!, "utf-8"));
const SEED = Number(process.env.SEED ?? 1);
console.log(`picker: ${HANDS.length} hands, seed ${SEED}`);

// a small seeded generator (mulberry32): the walk is the same for the same seed
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const shown = (p: ReturnType<typeof pick>) => p.offers.length + p.plain.length;

test("never more choices than one screen, every play reachable by touch", () => {
  const rand = rng(SEED);
  let most = 0;
  let walks = 0;
  let plays = 0;
  let taps = 0;
  const worst: Record<string, number> = {};
  for (const hand of HANDS) {
    const res = fromJson(LegalMovesResponseSchema, hand.moves as never);
    const all = choices(res.moves, res.labels);
    const where = `${hand.kind} seed ${hand.seed}`;
    const first = pick(all, []);
    assert.ok(shown(first) <= SCREEN, `${where}: ${shown(first)} choices untouched`);
    most = Math.max(most, shown(first));
    worst[hand.kind] = Math.max(worst[hand.kind] ?? 0, all.length);
    const cardPlays = all.filter((c) => c.cards.length);
    plays += cardPlays.length;
    // a sample of plays: touch their cards one by one, in a random order
    const sample: Choice[] = [];
    for (let i = 0; i < Math.min(3, cardPlays.length); i++) sample.push(cardPlays[Math.floor(rand() * cardPlays.length)]);
    for (const target of sample) {
      const order = [...new Set(target.cards)].sort(() => rand() - 0.5);
      const touched: number[] = [];
      for (const id of order) {
        const before = pick(all, touched);
        assert.ok(before.playable.has(id), `${where}: card ${id} of ${target.label} dimmed after ${touched}`);
        touched.push(id);
        const p = pick(all, touched);
        assert.ok(shown(p) <= SCREEN, `${where}: ${shown(p)} choices after touching ${touched}`);
        most = Math.max(most, shown(p));
      }
      const done = pick(all, touched);
      assert.ok(done.offers.some((o) => o.index === target.index), `${where}: ${target.label} not offered for its cards`);
      walks++;
    }
    // a player who touches the first card not dimmed until something is offered
    const touched: number[] = [];
    for (let p = pick(all, touched); cardPlays.length && !p.offers.length; p = pick(all, touched)) {
      const next = [...p.playable].sort((a, b) => a - b).find((id) => !touched.includes(id));
      assert.ok(next !== undefined, `${where}: nothing offered and nothing left to touch (${touched})`);
      touched.push(next);
      taps++;
      assert.ok(touched.length <= 40, `${where}: no play after 40 touches`);
    }
  }
  console.log(`picker: ${HANDS.length} hands, ${plays} card plays (most in one hand: ${JSON.stringify(worst)}), ` +
    `${walks} plays touched out, most choices shown ${most} (screen ${SCREEN}), ` +
    `touches before a first offer ${(taps / HANDS.length).toFixed(2)} per hand`);
});
