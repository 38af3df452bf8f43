// The play page's state: one object, and one signal (`tick`) that every change bumps; the
// root component reads it, so Preact re-renders the page from S after each change (its diff
// keeps what the person was doing: typed values, open sections, the focus).
import { signal } from "@preact/signals";
import type { GameView, GameEvent, LegalMovesResponse, Receipt } from "../gen/tabletop/v1/tabletop_pb";
import { errorText, isCode, Code } from "./api";
import type { Saved } from "./seats";
import type { SeatKey } from "./seatkey";
import { w, getLang } from "./words";

/** A line of the log; `mark` a class (the console marks the justice side's events). */
export type LogLine = { version: bigint; text: string; seat: number | null; mark?: string };
export type Screen = "landing" | "join" | "link" | "table" | "replay" | "loading" | "notfound";

export const S = {
  screen: "landing" as Screen,
  gameId: "",
  me: null as Saved | null,
  view: null as GameView | null,
  legal: null as LegalMovesResponse | null,
  log: [] as LogLine[],
  lastVersion: 0n,
  selected: [] as number[], // the hand cards touched, in the order touched
  receipts: [] as { receipt: Receipt; payload: Uint8Array }[],
  watch: null as AbortController | null,
  notice: "",
  noticeIsError: false,
  noticeDetail: "",
  busy: false,
  verify: null as null | { commit: boolean | null; receipts: [number, number]; unavailable?: boolean },
  starting: false,
  grpcPort: 0, // the server's gRPC port (GET /server.json), for the verify command line
  auditCommand: "", // how to run tabletop-audit from any folder (GET /server.json)
  key: null as SeatKey | null, // this seat's key in this browser (IndexedDB), if it holds one
  drawStep: "" as "" | "committing" | "revealing", // what the page is doing for a draw
  drawFailedAt: -1n, // the version at which the page's last draw call failed (no retry before a change)
  serverKeys: null as Uint8Array[] | null, // GetSigningKey: the keys acknowledgements are signed with
  guest: null as GameView | null, // the table's view for a browser with no seat there
  link: null as null | { link: Saved; mine: Saved }, // a seat link for another seat: asked
};

/** Every version of the table as this seat saw it (Replay), and the one shown. */
export const replay = { steps: [] as { event?: GameEvent; view?: GameView }[], at: 0 };

/** Bumped after every change of S: the page re-renders. */
export const tick = signal(0);
export const render = (): void => {
  tick.value++;
};

/** The seat the page shows as its own: the held seat's, or (a replay) the view's. */
export const mySeat = (): number => S.me?.seat ?? S.view?.seat ?? -1;

export function notice(text: string, isError = false, detail = ""): void {
  S.notice = text;
  S.noticeIsError = isError;
  S.noticeDetail = detail;
  render();
}

const REFUSED: Partial<Record<Code, string>> = {
  [Code.FailedPrecondition]: "notAllowed",
  [Code.PermissionDenied]: "denied",
  [Code.InvalidArgument]: "badRequest",
  [Code.NotFound]: "notFound",
  [Code.ResourceExhausted]: "tooFast",
  [Code.Unavailable]: "connection",
};
/** A refusal in the page's words; the server's own message (English) in English mode and in
 * the tooltip, its reason code beside it. */
export function failed(err: unknown): void {
  if (isCode(err, Code.Aborted)) return notice(w("stale"), true);
  const e = errorText(err);
  const key = REFUSED[Code[e.code as keyof typeof Code] as Code] ?? "error";
  notice(getLang() === "en" ? `${w(key)}: ${e.message}` : `${w(key)}`, true, `${e.reason || e.code}: ${e.message}`);
}
