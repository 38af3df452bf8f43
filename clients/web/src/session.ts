// Where the page is: the route (#game=…, a seat link, a replay), sitting down, and following
// the table live (GetView, LegalMoves, Watch). No DOM here: it changes S and calls render().
import { create, toBinary } from "@bufbuild/protobuf";
import { GamePhase, Role, ReceiptPayloadSchema, JoinGameRequestSchema, type GameEvent } from "../gen/tabletop/v1/tabletop_pb";
import { client, useToken, isCode, Code } from "./api";
import { newSeatKey, keepSeatKey, seatKey, signCommand } from "./seatkey";
import { heldSeats, saved, save, playSeat, forget, type Saved } from "./seats";
import { w } from "./words";
import { S, replay, render, notice, failed } from "./state";
import { hex, sha256, uuid } from "./util";
import { waitingDuties, drawDuties, verifyGame } from "./duties";

export function route(): void {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  const gameId = params.get("game") || "";
  const token = params.get("token");
  let link: Saved | null = null;
  if (gameId && token) {
    // a seat link: the token leaves the address bar at once, and is kept only as
    // enterByLink says (never in place of another seat's)
    link = { token, seat: Number(params.get("seat") || 0), name: "" };
    history.replaceState(null, "", `${location.pathname}${location.search}#game=${encodeURIComponent(gameId)}`);
  }
  stopWatch();
  replay.steps = [];
  Object.assign(S, {
    gameId, view: null, legal: null, log: [], lastVersion: 0n, receipts: [], verify: null, guest: null, link: null,
    starting: false, me: gameId ? saved(gameId) : null, selected: [],
  });
  S.notice = "";
  if (!gameId) return go("landing");
  if (params.has("replay")) return void enterReplay();
  if (link) return void enterByLink(link);
  if (!S.me) return void enterAsGuest();
  return void enterSeat();
}

function go(screen: typeof S.screen): void {
  S.screen = screen;
  render();
}

/** A seat link. A token this browser holds: that seat is played. With no seat held at this
 * table, the link's seat is kept (there is nothing to lose). Another seat's token: checked
 * with the server first (a token that is no seat's is refused here), then the person is
 * asked; whatever they choose, every seat's token stays kept (seats.ts). */
async function enterByLink(link: Saved): Promise<void> {
  const held = heldSeats(S.gameId);
  const same = held.find((s) => s.token === link.token);
  if (same || !held.length) {
    if (same) playSeat(S.gameId, same.seat);
    else save(S.gameId, link);
    S.me = same ?? link;
    return enterSeat();
  }
  const seat = await linkSeat(link.token);
  if (seat === null) {
    notice(w("badToken"), true);
    return enterSeat();
  }
  S.link = { link: { ...link, seat, name: S.me?.name ?? "" }, mine: S.me! };
  go("link");
}

/** The person chose to take the link's seat (kept beside theirs, which stays kept). */
export function takeLinkSeat(): void {
  if (!S.link) return;
  save(S.gameId, S.link.link);
  S.me = S.link.link;
  void enterSeat();
}

/** The seat `token` is at this table, as the server says, or null (no seat's token). */
async function linkSeat(token: string): Promise<number | null> {
  useToken(token);
  try {
    const { view } = await client.getView({ gameId: S.gameId });
    return view && view.role === Role.SEAT && view.seat !== undefined ? view.seat : null;
  } catch {
    return null;
  } finally {
    useToken(S.me?.token ?? "");
  }
}

type Options = Parameters<typeof client.createGame>[0]["options"];
export async function createTable(kind: string, seatCount: number, options: Options, name: string, seed: string): Promise<void> {
  if (S.busy) return;
  S.busy = true;
  try {
    localStorage.setItem("tabletop.name", name);
    const created = await client.createGame({ options, seatCount, requestId: uuid(), ...(seed ? { seed: BigInt(seed) } : {}) });
    // The arbiter token of the reply is dropped here: this page plays one seat, nothing more.
    await joinSeat(created.gameId, 0, name, kind);
  } catch (err) {
    failed(err);
  } finally {
    S.busy = false;
  }
}

export async function joinSeat(gameId: string, seat: number, name: string, kind?: string): Promise<void> {
  const contribution = hex(crypto.getRandomValues(new Uint8Array(16)));
  const commitment = (await sha256(`tabletop-contribution|${contribution}`)) || "";
  let key;
  try {
    key = await newSeatKey();
  } catch {
    return notice(w("noEd25519"), true);
  }
  const request = {
    gameId, seat, playerName: name || `${w("you")}`, requestId: uuid(), contributionCommitment: commitment,
    seatPublicKey: key.publicKey,
  };
  const seatSignature = await signCommand(key, "JoinGame", gameId, 0n, "", JoinGameRequestSchema, request);
  const joined = await client.joinGame({ ...request, seatSignature });
  await keepSeatKey(gameId, joined.seat, key);
  // the server must show the key this browser sent: one that dropped it could act for the seat
  const { view } = await client.getView({ gameId });
  const recorded = view?.seats.find((x) => x.seat === joined.seat)?.publicKey ?? new Uint8Array();
  if (hex(recorded) !== hex(key.publicKey)) {
    return notice(w("keyNotRecorded"), true, `SEAT KEY NOT RECORDED: seat ${joined.seat}, sent ${hex(key.publicKey)}, shown ${hex(recorded) || "none"}`);
  }
  save(gameId, { token: joined.seatToken, seat: joined.seat, name, kind, contribution: commitment ? contribution : undefined });
  if (location.hash === `#game=${encodeURIComponent(gameId)}`) route();
  else location.hash = `game=${encodeURIComponent(gameId)}`;
}

/** A table this browser has no seat at: its view, to pick a free seat. */
async function enterAsGuest(): Promise<void> {
  useToken("");
  S.screen = "join";
  try {
    const { view } = await client.getView({ gameId: S.gameId });
    S.guest = view ?? null;
    render();
  } catch (err) {
    go("notfound");
    failed(err);
  }
}

export async function enterSeat(): Promise<void> {
  S.screen = "table";
  S.link = null;
  useToken(S.me!.token);
  S.key = await seatKey(S.gameId, S.me!.seat);
  render();
  await refresh();
  startWatch();
}

let refreshing: Promise<void> | null = null;
let again = false;
/** The seat's view and legal moves, fetched anew (coalescing bursts of Watch messages). */
export function refresh(): Promise<void> {
  if (refreshing) {
    again = true;
    return refreshing;
  }
  refreshing = (async () => {
    do {
      again = false;
      try {
        const { view } = await client.getView({ gameId: S.gameId });
        if (view && S.me && view.role !== Role.SEAT) {
          refreshing = null;
          return forgetSeat();
        }
        if (view?.seat !== undefined && S.me && S.me.seat !== view.seat) {
          forget(S.gameId, S.me); // kept under the seat the link named: move it
          S.me.seat = view.seat; // the token says which seat it is, not the link
          save(S.gameId, S.me);
          S.key = await seatKey(S.gameId, view.seat);
        }
        S.view = view ?? null;
        const before = S.legal?.version;
        S.legal = view && view.phase === GamePhase.PLAYING ? await client.legalMoves({ gameId: S.gameId }) : null;
        if (S.legal?.version !== before) S.selected = []; // the table moved on: choose afresh
        if (S.legal && S.view && S.legal.version !== S.view.version) again = true;
      } catch (err) {
        if (S.me && (isCode(err, Code.PermissionDenied) || isCode(err, Code.Unauthenticated))) {
          refreshing = null;
          return forgetSeat();
        }
        failed(err);
      }
    } while (again);
    refreshing = null;
    render();
    void waitingDuties();
    void drawDuties();
    if (S.view?.phase === GamePhase.FINISHED && !S.verify) void verifyGame();
  })();
  return refreshing;
}

/** The kept token is no seat's of this table (any more): forget it (that seat's only), and
 * play another seat held here, or sit down anew. */
function forgetSeat(): void {
  if (S.me) forget(S.gameId, S.me);
  S.me = saved(S.gameId);
  stopWatch();
  if (S.me) {
    notice(w("badToken"), true);
    return void enterSeat();
  }
  void enterAsGuest().then(() => notice(w("badToken"), true));
}

export function stopWatch(): void {
  S.watch?.abort();
  S.watch = null;
}

/** Follow the table live: every event this seat may see, a move a message, with its receipt. */
function startWatch(): void {
  stopWatch();
  const ctl = new AbortController();
  S.watch = ctl;
  void (async () => {
    let delay = 500;
    while (!ctl.signal.aborted) {
      try {
        let sent: GameEvent[] = []; // format 3: what this stream sent since its last receipt
        for await (const res of client.watch({ gameId: S.gameId, afterVersion: S.lastVersion, batched: true }, { signal: ctl.signal })) {
          delay = 500;
          const events = res.events.length ? res.events : res.event ? [res.event] : [];
          for (const ev of events) addLog(ev);
          sent.push(...events);
          if (res.receipt && res.receipt.head.length) {
            res.receipt.gameId ||= S.gameId; // saved with it: the wire leaves it out
            S.receipts.push({ receipt: res.receipt, payload: toBinary(ReceiptPayloadSchema, create(ReceiptPayloadSchema, { events: sent })) });
            sent = [];
          } else if (res.receipt && events.length) {
            S.receipts.push({ receipt: res.receipt, payload: toBinary(ReceiptPayloadSchema, create(ReceiptPayloadSchema, { events })) });
            sent = [];
          }
          if (S.notice === w("connection")) S.notice = "";
          void refresh();
        }
        if (S.view?.phase === GamePhase.FINISHED || S.lastVersion > 0n) {
          await refresh();
          if (S.view?.phase === GamePhase.FINISHED) return;
        }
      } catch {
        if (ctl.signal.aborted) return;
        notice(w("connection"), true);
      }
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 5000);
    }
  })();
}

export function factOf(ev: GameEvent): { case?: string; value?: Record<string, unknown> } {
  const body = ev.body;
  if (!body.case) return {};
  const inner = (body.value as { kind: { case?: string; value?: unknown } }).kind;
  return { case: inner.case, value: inner.value as Record<string, unknown> };
}

function addLog(ev: GameEvent): void {
  if (ev.version <= S.lastVersion) return;
  S.lastVersion = ev.version;
  const fact = factOf(ev);
  const seat = typeof fact.value?.seat === "number" ? (fact.value.seat as number) : null;
  S.log.push({ version: ev.version, text: ev.text, seat });
  if (S.log.length > 400) S.log.splice(0, S.log.length - 400);
}

/** The replay: every version as this seat saw it (Replay), stepped through. */
async function enterReplay(): Promise<void> {
  useToken(S.me?.token ?? "");
  replay.steps = [];
  go("loading");
  try {
    for await (const step of client.replay({ gameId: S.gameId })) replay.steps.push({ event: step.event, view: step.view });
  } catch (err) {
    failed(err);
  }
  replay.at = Math.max(0, replay.steps.length - 1);
  go("replay");
}
