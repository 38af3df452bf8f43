// What a 川南字牌 seat is told on the table, not only in the log (issue 37 point 6): its claim
// lost to another seat's higher claim, or its discard fed another seat's 胡 (点炮). A pure fold
// over the facts the seat's stream brings, so that it is tested without a page.
import { ClaimKind } from "../gen/tabletop/zipai/v1/zipai_pb";

export type Told =
  | { what: "lost"; mine: ClaimKind; by: number; theirs: "chied" | "penged" | "zhaoed" | "hued" }
  | { what: "fed"; by: number };

/** The claim this seat made in the open claim window (null: none, or it was taken). */
export type Pending = ClaimKind | null;

const TAKEN = new Set(["chied", "penged", "zhaoed", "hued"]);
const WIN_ON_A_DISCARD = 2; // WinKind.DIAN_PAO: the winning card was a seat's discard

/** The next pending claim, and what to tell ``me``, after the fact ``kind`` (``value``: its
 * fields, as the stream decodes them). */
export function fold(pending: Pending, kind: string | undefined, value: Record<string, unknown> | undefined, me: number): [Pending, Told | null] {
  if (!kind || !value) return [pending, null];
  const seat = typeof value.seat === "number" ? value.seat : -1;
  if (kind === "claimMade") {
    if (seat !== me) return [pending, null];
    const claim = value.claim as { kind?: ClaimKind } | undefined;
    const made = claim?.kind ?? ClaimKind.UNSPECIFIED;
    return [made === ClaimKind.UNSPECIFIED || made === ClaimKind.PASS ? null : made, null];
  }
  if (kind === "hued" && value.winKind === WIN_ON_A_DISCARD && value.fromSeat === me && seat !== me) {
    return [null, { what: "fed", by: seat }];
  }
  if (TAKEN.has(kind)) {
    const lost = pending !== null && seat !== me;
    return [null, lost ? { what: "lost", mine: pending, by: seat, theirs: kind as "chied" } : null];
  }
  if (kind === "nobodyClaimed" || kind === "cardDiscarded" || kind === "cardFlipped") return [null, null];
  return [pending, null];
}
