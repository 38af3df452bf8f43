// The play page: create a table or join one by link, fill the other seats with bots, play
// either game from the legal moves the server offers, follow the others live (Watch), use the
// justice commands (误操作, report, vote, appeal), come back after closing the tab, and see
// the result with its verify line, the replay and the receipts.
//
// The page holds only its own seat's token (localStorage, per game), and so only ever
// receives what that seat may see: the server redacts every response for the token's seat.
// It also holds the seat's own Ed25519 key (WebCrypto, non-extractable, in IndexedDB: see
// seatkey.ts) and signs every command the seat sends with it.
import { create, toBinary, type DescEnum, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import { client, useToken, errorText, isCode, Code, transportName } from "./api";
import { newSeatKey, keepSeatKey, seatKey, signCommand, type SeatKey } from "./seatkey";
import { ackProblem, receipt3Holds, type Ack, type Fact } from "./acks";
import { heldSeats, saved, save, playSeat, forget, savedGames, type Saved } from "./seats";
import { w, tip, term, termTip, seatWord, line, moveLabel, gloss, getLang, setLang, TERMS } from "./words";
import {
  GamePhase,
  Role,
  ViolationKind,
  ViolationKindSchema,
  PenaltyKind,
  CaseStatus,
  ContributionStatus,
  DealSource,
  ReceiptPayloadSchema,
  ReceiptSchema,
  MoveSchema,
  JoinGameRequestSchema,
  PlayRequestSchema,
  RevealContributionRequestSchema,
  CommitContributionRequestSchema,
  StartGameRequestSchema,
  RekeySeatRequestSchema,
  type GameView,
  type GameEvent,
  type LegalMovesResponse,
  type Move,
  type Receipt,
} from "../gen/tabletop/v1/tabletop_pb";
import {
  ModeSchema,
  Mode,
  SeasonSchema,
  NeedSchema,
  CardKindSchema,
  PhaseSchema as HuaniaoPhaseSchema,
  type Card as HCard,
  type View as HView,
} from "../gen/tabletop/huaniao/v1/huaniao_pb";
import {
  Variant,
  DealerRule,
  ScoringProfile,
  PhaseSchema as ZipaiPhaseSchema,
  MeldKindSchema,
  type Card as ZCard,
  type View as ZView,
} from "../gen/tabletop/zipai/v1/zipai_pb";

// --- small helpers ---------------------------------------------------------------------------

type Child = Node | string | null | undefined | false;
function h(tag: string, attrs: Record<string, unknown> = {}, ...children: (Child | Child[])[]): HTMLElement {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") e.addEventListener(k.slice(2), v as EventListener);
    else if (k === "class") e.className = String(v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(typeof c === "string" ? document.createTextNode(c) : c);
  }
  return e;
}
/** A page word with the other language in its tooltip. */
const W = (tag: string, key: string, attrs: Record<string, unknown> = {}) =>
  h(tag, { title: tip(key), ...attrs }, w(key));
const enumName = (schema: DescEnum, n: number): string => schema.value[n]?.name ?? String(n);
const T = (schema: DescEnum, n: number) => h("span", { title: termTip(enumName(schema, n)) }, term(enumName(schema, n)));
const $ = (id: string) => document.getElementById(id);

function uuid(): string {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const x = [...b].map((v) => v.toString(16).padStart(2, "0")).join("");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}
const hex = (b: ArrayBuffer | Uint8Array) =>
  [...new Uint8Array(b)].map((v) => v.toString(16).padStart(2, "0")).join("");
async function sha256(data: string | Uint8Array): Promise<string | null> {
  if (!crypto.subtle) return null; // not a secure context (plain http to another host)
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  return hex(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
}
const b64 = (b: Uint8Array) => btoa(String.fromCharCode(...b));

// --- state ------------------------------------------------------------------------------------

type LogLine = { version: bigint; text: string; seat: number | null };
const S = {
  gameId: "",
  me: null as Saved | null,
  view: null as GameView | null,
  legal: null as LegalMovesResponse | null,
  log: [] as LogLine[],
  lastVersion: 0n,
  selected: new Set<number>(),
  receipts: [] as { receipt: Receipt; payload: Uint8Array }[],
  watch: null as AbortController | null,
  notice: "",
  noticeIsError: false,
  busy: false,
  verify: null as null | { commit: boolean | null; receipts: [number, number]; unavailable?: boolean },
  starting: false,
  grpcPort: 0, // the server's gRPC port (GET /server.json), for the verify command line
  auditCommand: "", // how to run tabletop-audit from any folder (GET /server.json)
  key: null as SeatKey | null, // this seat's key in this browser (IndexedDB), if it holds one
  drawStep: "" as "" | "committing" | "revealing", // what the page is doing for a draw
  drawFailedAt: -1n, // the version at which the page's last draw call failed (no retry before a change)
  serverKeys: null as Uint8Array[] | null, // GetSigningKey: the keys acknowledgements are signed with
};

/** The seat the page shows as its own: the held seat's, or (a replay) the view's. */
const mySeat = (): number => S.me?.seat ?? S.view?.seat ?? -1;

function notice(text: string, isError = false, detail = ""): void {
  S.notice = text;
  S.noticeIsError = isError;
  const box = $("notice");
  if (box) {
    box.textContent = text;
    box.title = detail;
    box.dataset.detail = detail;
    box.className = isError ? "notice error" : "notice";
  }
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
function failed(err: unknown): void {
  if (isCode(err, Code.Aborted)) return notice(w("stale"), true);
  const e = errorText(err);
  const key = REFUSED[Code[e.code as keyof typeof Code] as Code] ?? "error";
  notice(getLang() === "en" ? `${w(key)}: ${e.message}` : `${w(key)}`, true, `${e.reason || e.code}: ${e.message}`);
}

// --- routing -------------------------------------------------------------------------------------

function route(): void {
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
  delete document.body.dataset.phase;
  delete document.body.dataset.version;
  Object.assign(S, {
    gameId, view: null, legal: null, log: [], lastVersion: 0n, receipts: [], verify: null,
    starting: false, me: gameId ? saved(gameId) : null,
  });
  S.selected.clear();
  notice("");
  if (!gameId) return renderLanding();
  if (params.has("replay")) return void enterReplay();
  if (link) return void enterByLink(link);
  if (!S.me) return void enterAsGuest();
  return void enterSeat();
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
  askAboutLink({ ...link, seat, name: S.me?.name ?? "" }, S.me!);
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

function askAboutLink(link: Saved, mine: Saved): void {
  document.body.dataset.screen = "link";
  const take = () => {
    save(S.gameId, link); // beside `mine`, which stays kept under its own seat
    S.me = link;
    void enterSeat();
  };
  mount(h("section", { class: "card-box", id: "link-choice", "aria-labelledby": "link-choice-h" },
    h("h2", { id: "link-choice-h" }, w("linkOtherSeat")),
    h("p", {}, `${w("youSitAt")} ${seatWord(mine.seat)} · ${w("linkIsFor")} ${seatWord(link.seat)}`),
    h("p", { class: "muted small" }, w("linkKeepsBoth")),
    h("div", { class: "row" },
      h("button", { type: "button", class: "primary", id: "link-stay", onclick: () => void enterSeat() },
        `${w("stayAt")} ${seatWord(mine.seat)}`),
      h("button", { type: "button", class: "secondary", id: "link-take", onclick: take },
        `${w("takeSeat")} ${seatWord(link.seat)}`))));
}

// --- the landing page: a new table -------------------------------------------------------------------

// 专业's added rules (part 2 line 28: it needs one; 阳春白雪 by default, as `tabletop play`)
const PRO_RULES = ["springSnow", "continuo", "twinSwallows", "loftyTune", "blossoms"] as const;
const PRO_FIELD: Record<(typeof PRO_RULES)[number], string> = {
  springSnow: "spring_snow", continuo: "continuo", twinSwallows: "twin_swallows",
  loftyTune: "lofty_tune", blossoms: "blossoms",
};
const field = (key: string) => {
  const pair = TERMS.fields[key];
  return h("span", { title: pair ? pair[getLang() === "en" ? 0 : 1] : "" }, pair ? pair[getLang() === "en" ? 1 : 0] : key);
};

function renderLanding(): void {
  document.body.dataset.screen = "landing";
  const modes = [Mode.SIMPLE, Mode.BASIC, Mode.REGULAR, Mode.FULL, Mode.PRO];
  const kindSel = h("select", { id: "kind", name: "kind" },
    h("option", { value: "huaniao" }, w("huaniao")), h("option", { value: "zipai" }, w("zipai"))) as HTMLSelectElement;
  const seats = h("select", { id: "seats", name: "seats" }, ...[2, 3, 4].map((n) =>
    h("option", { value: n, selected: n === 4 }, String(n)))) as HTMLSelectElement;
  const mode = h("select", { id: "mode", name: "mode" }, ...modes.map((m) =>
    h("option", { value: m, selected: m === Mode.PRO }, term(enumName(ModeSchema, m))))) as HTMLSelectElement;
  const pro = Object.fromEntries(PRO_RULES.map((r) => [r,
    h("input", { id: `rule-${r}`, type: "checkbox", checked: r === "springSnow" }) as HTMLInputElement]));
  const proRow = h("fieldset", { class: "rules", id: "pro-rules" }, h("legend", {}, w("proRules")),
    ...PRO_RULES.map((r) => h("label", { class: "check", for: `rule-${r}` }, pro[r], " ", field(PRO_FIELD[r]))));
  const huaniaoRows = h("div", { id: "huaniao-rules" },
    h("div", { class: "row" }, h("label", { for: "mode" }, w("mode")), mode), proRow);
  const variant = h("select", { id: "variant" }, ...[Variant.LUZHOU, Variant.HEJIANG].map((v) =>
    h("option", { value: v }, term(`VARIANT_${Variant[v]}`)))) as HTMLSelectElement;
  const zipaiRows = h("div", { id: "zipai-rules", hidden: true },
    h("div", { class: "row" }, h("label", { for: "variant" }, w("variant")), variant));
  const name = h("input", { id: "name", name: "name", autocomplete: "nickname", maxlength: 64,
    value: localStorage.getItem("tabletop.name") || "" }) as HTMLInputElement;
  const seed = h("input", { id: "seed", name: "seed", inputmode: "numeric", pattern: "[0-9]*" }) as HTMLInputElement;
  kindSel.addEventListener("change", () => {
    const zipai = kindSel.value === "zipai";
    huaniaoRows.hidden = zipai;
    zipaiRows.hidden = !zipai;
    seats.value = zipai ? "3" : "4";
  });
  mode.addEventListener("change", () => {
    proRow.hidden = Number(mode.value) !== Mode.PRO;
  });
  const form = h("form", { id: "create", class: "card-box", onsubmit: (ev: Event) => {
    ev.preventDefault();
    const m = Number(mode.value) as Mode;
    const options = kindSel.value === "huaniao"
      ? { game: { case: "huaniao" as const, value: { mode: m, ...(m === Mode.PRO
        ? Object.fromEntries(PRO_RULES.map((r) => [r, pro[r].checked])) : {}) } } }
      : { game: { case: "zipai" as const, value: { variant: Number(variant.value) as Variant,
        dealerRule: DealerRule.WINNER, scoring: ScoringProfile.LUZHOU } } };
    void createTable(kindSel.value, Number(seats.value), options, name.value.trim(), seed.value.trim());
  } },
    W("h2", "newTable"),
    h("div", { class: "row" }, h("label", { for: "kind" }, w("game")), kindSel),
    h("div", { class: "row" }, h("label", { for: "seats" }, w("seats")), seats),
    huaniaoRows, zipaiRows,
    h("div", { class: "row" }, h("label", { for: "name" }, w("name")), name),
    h("details", {}, h("summary", {}, w("seed")), h("div", { class: "row" },
      h("label", { for: "seed", class: "sr-only" }, w("seed")), seed)),
    h("button", { type: "submit", class: "primary", id: "create-button" }, w("create")),
  );
  const mine = savedGames();
  const resume = mine.length
    ? h("section", { class: "card-box", "aria-labelledby": "resume-h" },
        h("h2", { id: "resume-h", title: tip("resume") }, w("resume")),
        h("ul", {}, ...mine.map((g) => h("li", {}, h("a", { href: `#game=${encodeURIComponent(g)}` },
          `${saved(g)?.kind ? w(saved(g)!.kind!) + " · " : ""}${g}`)))))
    : null;
  mount(h("div", { class: "landing" }, form,
    h("section", { class: "card-box" }, W("h2", "joinTable"), h("p", {}, w("joinHelp"))), resume));
}

type Options = Parameters<typeof client.createGame>[0]["options"];
async function createTable(kind: string, seatCount: number, options: Options, name: string, seed: string): Promise<void> {
  if (S.busy) return;
  S.busy = true;
  try {
    localStorage.setItem("tabletop.name", name);
    const created = await client.createGame({
      options, seatCount, requestId: uuid(), ...(seed ? { seed: BigInt(seed) } : {}),
    });
    // The arbiter token of the reply is dropped here: this page plays one seat, nothing more.
    await joinSeat(created.gameId, 0, name, kind);
  } catch (err) {
    failed(err);
  } finally {
    S.busy = false;
  }
}

async function joinSeat(gameId: string, seat: number, name: string, kind?: string): Promise<void> {
  const contribution = hex(crypto.getRandomValues(new Uint8Array(16)));
  const commitment = (await sha256(`tabletop-contribution|${contribution}`)) || "";
  let key: SeatKey;
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

// --- a table this browser has no seat at: pick a free one ------------------------------------------

async function enterAsGuest(): Promise<void> {
  document.body.dataset.screen = "join";
  useToken("");
  try {
    const { view } = await client.getView({ gameId: S.gameId });
    if (!view) return;
    const name = h("input", { id: "name", autocomplete: "nickname", maxlength: 64,
      value: localStorage.getItem("tabletop.name") || "" }) as HTMLInputElement;
    const free = view.seats.filter((s) => !s.taken);
    mount(h("section", { class: "card-box join" },
      h("h2", {}, `${kindName(view)} · ${S.gameId}`),
      h("p", {}, term(enumName(phaseSchema(), view.phase))),
      h("div", { class: "row" }, h("label", { for: "name" }, w("name")), name),
      h("ul", { class: "seat-list" }, ...view.seats.map((s) => h("li", {},
        `${seatWord(s.seat)} `, s.taken ? s.playerName : h("button", {
          class: "primary", "data-seat": s.seat,
          onclick: () => void joinSeat(S.gameId, s.seat, name.value.trim(), view.options?.game.case).catch(failed),
        }, w("sitHere"))))),
      free.length ? null : h("p", {}, w("noFreeSeat"), " ",
        view.phase === GamePhase.FINISHED ? h("a", { href: replayUrl() }, w("replay")) : null),
    ));
  } catch (err) {
    mount(h("section", { class: "card-box" }, h("h2", {}, w("notFound")), h("p", {}, S.gameId),
      h("a", { href: "#" }, w("newTable"))));
    failed(err);
  }
}
const phaseSchema = () => ({ value: { 1: { name: "GAME_PHASE_WAITING" }, 2: { name: "GAME_PHASE_PLAYING" }, 3: { name: "GAME_PHASE_FINISHED" } } }) as unknown as DescEnum;
const kindName = (view: GameView) => w(view.options?.game.case || "huaniao");

// --- at the table -------------------------------------------------------------------------------------

async function enterSeat(): Promise<void> {
  document.body.dataset.screen = "table";
  useToken(S.me!.token);
  S.key = await seatKey(S.gameId, S.me!.seat);
  mount(h("p", { class: "loading" }, "…"));
  await refresh();
  startWatch();
}

let refreshing: Promise<void> | null = null;
let again = false;
/** The seat's view and legal moves, fetched anew (coalescing bursts of Watch messages). */
function refresh(): Promise<void> {
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
        if (S.legal?.version !== before) S.selected.clear(); // the table moved on: choose afresh
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

function stopWatch(): void {
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
          if (S.notice === w("connection")) notice("");
          void refresh();
        }
        if (S.view?.phase === GamePhase.FINISHED || S.lastVersion > 0n) {
          await refresh();
          if (S.view?.phase === GamePhase.FINISHED) return;
        }
      } catch (err) {
        if (ctl.signal.aborted) return;
        notice(w("connection"), true);
      }
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 5000);
    }
  })();
}

function factOf(ev: GameEvent): { case?: string; value?: Record<string, unknown> } {
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

/** Before the deal: reveal this seat's contribution once every seat is taken, then deal. */
async function waitingDuties(): Promise<void> {
  const v = S.view;
  if (!v || v.phase !== GamePhase.WAITING || S.starting) return;
  if (!v.seats.every((s) => s.taken)) return;
  S.starting = true;
  try {
    const mine = v.seats.find((s) => s.seat === mySeat());
    if (mine?.contributionStatus === ContributionStatus.PENDING && S.me!.contribution) {
      const reveal = { gameId: S.gameId, contribution: S.me!.contribution };
      const ack = await client.revealContribution(await signed("RevealContribution", RevealContributionRequestSchema, reveal));
      if (!(await acknowledged(ack, "contributionRevealed", null, "ackReveal"))) return;
    }
    const start = { gameId: S.gameId, requestId: uuid() };
    await client.startGame(await signed("StartGame", StartGameRequestSchema, start)).catch(() => undefined);
  } catch (err) {
    failed(err);
  } finally {
    S.starting = false;
    void refresh();
  }
}

/** Whether `ack` is the server's signed acknowledgement of this seat's `fact`; if not, the
 * player is told that the input was not taken (the draw waits for it). */
async function acknowledged(ack: Ack, fact: Fact, commitment: string | null, what: string): Promise<boolean> {
  if (!S.serverKeys) {
    const k = await client.getSigningKey({});
    S.serverKeys = [k.publicKey, ...k.retired.map((r) => r.publicKey)];
  }
  const problem = await ackProblem(ack, S.gameId, mySeat(), fact, commitment, S.serverKeys);
  if (problem) notice(w("notTaken", { what: w(what) }), true, `NOT TAKEN: seat ${mySeat()}'s ${fact}: ${problem}`);
  return !problem;
}

/** The draw under way at the table, if any (a 重新洗牌发牌: its commitment names it). */
const drawOf = (v: GameView): string => (v.phase === GamePhase.PLAYING ? v.redealCommitment : "");

let drawBusy = false;
/**
 * A draw under way (every seat agreed to 重新洗牌发牌): the deal is made from every seat's
 * fresh entropy or not at all, so this seat commits to a fresh contribution when it is
 * awaited, and reveals it once every seat has committed. Both signed, both acknowledged.
 */
async function drawDuties(): Promise<void> {
  const v = S.view;
  const draw = v ? drawOf(v) : "";
  if (!v || !draw || drawBusy || !S.me || S.drawFailedAt === v.version) return;
  const mine = v.seats.find((s) => s.seat === mySeat());
  if (!mine) return;
  const everyCommitted = v.seats.every((s) => s.contributionStatus !== ContributionStatus.AWAITED);
  const step = mine.contributionStatus === ContributionStatus.AWAITED ? "committing"
    : mine.contributionStatus === ContributionStatus.PENDING && everyCommitted ? "revealing" : "";
  if (!step) return;
  drawBusy = true;
  S.drawStep = step;
  render();
  let ok = false;
  try {
    ok = step === "committing" ? await commitForDraw(draw) : await revealForDraw(draw, mine.contributionCommitment);
  } catch (err) {
    failed(err);
  } finally {
    if (!ok) { // try again once the table has moved on, or in a few seconds (a lost reply)
      S.drawFailedAt = v.version;
      setTimeout(() => {
        if (S.drawFailedAt === v.version) S.drawFailedAt = -1n;
        void refresh();
      }, 5000);
    }
    S.drawStep = "";
    drawBusy = false;
    void refresh();
  }
}

async function commitForDraw(draw: string): Promise<boolean> {
  const me = S.me!;
  if (me.draw?.for !== draw) { // a fresh value for each draw, kept before it is sent
    me.draw = { for: draw, contribution: hex(crypto.getRandomValues(new Uint8Array(16))) };
    save(S.gameId, me);
  }
  const commitment = await sha256(`tabletop-contribution|${me.draw.contribution}`);
  if (commitment === null) {
    notice(w("noCrypto"), true);
    return false;
  }
  const request = { gameId: S.gameId, commitment };
  const ack = await client.commitContribution(await signed("CommitContribution", CommitContributionRequestSchema, request));
  return acknowledged(ack, "seatCommitted", commitment, "ackCommitment");
}

async function revealForDraw(draw: string, committed: string): Promise<boolean> {
  const kept = S.me!.draw;
  const ours = kept?.for === draw && (await sha256(`tabletop-contribution|${kept.contribution}`)) === committed;
  if (!ours) {
    notice(w("drawNoContribution"), true);
    return false;
  }
  const request = { gameId: S.gameId, contribution: kept!.contribution };
  const ack = await client.revealContribution(await signed("RevealContribution", RevealContributionRequestSchema, request));
  return acknowledged(ack, "contributionRevealed", null, "ackReveal");
}

/** What the draw under way is at, in the game's words: what this page is doing, or whom
 * the draw waits for. */
function drawBox(v: GameView): HTMLElement {
  const waiting = v.awaitingSeats.filter((s) => s !== mySeat() || !S.drawStep);
  const text = S.drawStep === "committing" ? w("drawCommitting")
    : S.drawStep === "revealing" ? w("drawRevealing")
    : waiting.length ? w("drawWaiting", { seats: waiting.map((s) => (s === mySeat() ? `${w("you")} (${seatWord(s)})` : seatWord(s))).join("、") })
    : w("drawDealing");
  return h("section", { class: "card-box draw", id: "draw", "aria-labelledby": "draw-h" },
    h("h3", { id: "draw-h", title: tip("drawing") }, w("drawing")),
    h("p", { id: "draw-status", "data-step": S.drawStep || (waiting.length ? "waiting" : "dealing"),
      "data-waiting": waiting.join(" ") }, text));
}

/**
 * `request` with this seat's signature (unchanged when this browser holds no key for it: the
 * server then refuses a keyed seat's command, and the page offers a new key). `seen`: the
 * version the seat saw and its chain hash, by default the view's.
 */
async function signed<D extends DescMessage>(
  method: string, schema: D, request: MessageInitShape<D>,
  seen = { version: S.view?.version ?? 0n, head: S.view?.headHash ?? "" },
): Promise<MessageInitShape<D>> {
  if (!S.key) return request;
  const seatSignature = await signCommand(S.key, method, S.gameId, seen.version, seen.head, schema, request);
  return { ...(request as object), seatSignature } as unknown as MessageInitShape<D>;
}

/** The chain hash at `version`: the view's, or that version's view read anew. */
async function headAt(version: bigint): Promise<string> {
  if (S.view && S.view.version === version) return S.view.headHash;
  const { view } = await client.getView({ gameId: S.gameId, version });
  return view?.headHash ?? "";
}

/** Whether the seat is keyed and this browser does not hold its key. */
function keyMissing(v: GameView): boolean {
  const mine = v.seats.find((x) => x.seat === mySeat());
  return !!mine && mine.publicKey.length > 0 && (!S.key || hex(S.key.publicKey) !== hex(mine.publicKey));
}

/** This browser lost the seat's key (or took the seat by its link elsewhere): a new key for
 * it, signed by itself and recorded as a re-key, which everyone sees. */
async function rekey(): Promise<void> {
  if (S.busy || !S.me) return;
  S.busy = true;
  try {
    const key = await newSeatKey();
    const request = { gameId: S.gameId, seatPublicKey: key.publicKey };
    const seatSignature = await signCommand(key, "RekeySeat", S.gameId, S.view?.version ?? 0n, S.view?.headHash ?? "",
      RekeySeatRequestSchema, request);
    await client.rekeySeat({ ...request, seatSignature });
    await keepSeatKey(S.gameId, S.me.seat, key);
    S.key = key;
    notice("");
  } catch (err) {
    failed(err);
  } finally {
    S.busy = false;
    void refresh();
  }
}

async function fillWithBots(): Promise<void> {
  try {
    const res = await fetch("/bots", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ game_id: S.gameId, token: S.me!.token }),
    });
    if (!res.ok) notice(`${w("error")}: ${res.status} ${await res.text()}`, true);
  } catch (err) {
    notice(`${w("error")}: ${String(err)}`, true);
  }
  void refresh();
}

async function play(move: Move): Promise<void> {
  if (S.busy || !S.legal) return;
  S.busy = true;
  try {
    const seen = S.legal.version;
    const request = { gameId: S.gameId, expectedVersion: seen, move, requestId: uuid() };
    const res = await client.play(await signed("Play", PlayRequestSchema, request, { version: seen, head: await headAt(seen) }));
    S.selected.clear();
    S.legal = res.legalMoves ?? null;
    notice("");
  } catch (err) {
    failed(err);
  } finally {
    S.busy = false;
    void refresh();
  }
}

// --- cards ----------------------------------------------------------------------------------------

const SMALL = "一二三四五六七八九十";
const BIG = "壹贰叁肆伍陆柒捌玖拾";
type AnyCard = HCard | ZCard;
function cardName(c: AnyCard): string {
  // a card's face is its Chinese name in either language (the English is its tooltip)
  if ("kind" in c) return TERMS.enums[enumName(CardKindSchema, c.kind)]?.[0] ?? "?";
  return (c.big ? BIG : SMALL)[c.rank - 1] ?? "?";
}
function cardClass(c: AnyCard): string {
  if ("kind" in c) return "hn k" + c.kind;
  return c.big ? "zp da" : "zp xiao";
}
function cardEl(c: AnyCard, opts: { button?: boolean; small?: boolean } = {}): HTMLElement {
  const name = cardName(c);
  const title = "kind" in c ? TERMS.enums[enumName(CardKindSchema, c.kind)]?.[1] ?? "" : `${c.big ? "big" : "small"} ${c.rank}`;
  const cls = `card ${cardClass(c)}${opts.small ? " small" : ""}`;
  if (!opts.button) return h("span", { class: cls, "data-card": c.id, title }, name);
  const pressed = S.selected.has(c.id);
  return h("button", {
    type: "button", class: cls + (pressed ? " selected" : ""), "data-card": c.id, "aria-pressed": String(pressed),
    title, onclick: () => {
      if (S.selected.has(c.id)) S.selected.delete(c.id);
      else S.selected.add(c.id);
      render();
    },
  }, name);
}
const backs = (n: number) =>
  h("span", { class: "backs", "aria-label": `${n} ${w("cards")}`, title: w("hidden") },
    ...Array.from({ length: Math.min(n, 12) }, () => h("span", { class: "back", "aria-hidden": "true" })),
    h("span", { class: "count" }, `×${n}`));

function myHand(v: GameView): AnyCard[] {
  const me = mySeat();
  if (v.game.case === "huaniao") return [...(v.game.value.seats[me]?.cards ?? [])].sort((a, b) => a.id - b.id);
  if (v.game.case === "zipai") {
    return [...(v.game.value.seats.find((s) => s.seat === me)?.hand ?? [])]
      .sort((a, b) => Number(a.big) - Number(b.big) || a.rank - b.rank || a.id - b.id);
  }
  return [];
}

/** The hand cards a move uses (to show them and to filter by the chosen cards). */
function moveCards(m: Move): number[] {
  if (m.game.case === "huaniao") {
    const k = m.game.value.kind;
    if (k.case === "play" || k.case === "discard") return [...k.value.cards];
  }
  if (m.game.case === "zipai") {
    const k = m.game.value.kind;
    if (k.case === "discard") return [k.value.card];
    if (k.case === "chi") return [...k.value.cards, ...k.value.bi.flatMap((b) => b.cards)];
  }
  return [];
}

// --- rendering --------------------------------------------------------------------------------------------

// The sections the person opened or closed (a click on a summary), kept over re-renders.
const userOpen = new Map<string, boolean>();
document.addEventListener("click", (ev) => {
  const summary = (ev.target as HTMLElement).closest?.("summary");
  const details = summary?.parentElement;
  if (details instanceof HTMLDetailsElement && details.id) userOpen.set(details.id, !details.open);
});

/** Replace the page's content, keeping what the person was doing: the values typed or
 * chosen in its fields, which sections are open, and the focus (events re-render the page
 * while a report or an appeal is being written). */
function mount(node: HTMLElement): void {
  const app = $("app")!;
  const values = new Map<string, string>();
  for (const e of app.querySelectorAll<HTMLInputElement | HTMLSelectElement>("input[id], select[id]")) {
    if (!(e as HTMLInputElement).readOnly && e.type !== "checkbox" && e.type !== "range") values.set(e.id, e.value);
  }
  const focused = document.activeElement as HTMLInputElement | null;
  const focusId = focused && app.contains(focused) ? focused.id : "";
  const caret = focusId && typeof focused!.selectionStart === "number" ? [focused!.selectionStart, focused!.selectionEnd] : null;
  app.replaceChildren(node);
  for (const [id, value] of values) {
    const e = document.getElementById(id) as HTMLInputElement | HTMLSelectElement | null;
    if (e && app.contains(e)) {
      if (e instanceof HTMLSelectElement && ![...e.options].some((o) => o.value === value)) continue;
      e.value = value;
    }
  }
  for (const [id, isOpen] of userOpen) {
    const d = document.getElementById(id) as HTMLDetailsElement | null;
    if (d) d.open = isOpen;
  }
  if (focusId) {
    const e = document.getElementById(focusId) as HTMLInputElement | null;
    if (e) {
      e.focus();
      if (caret && typeof e.selectionStart === "number") e.setSelectionRange(caret[0], caret[1]);
    }
  }
}

function render(): void {
  const v = S.view;
  if (!v || !S.me || replay.steps.length) return;
  const phase = v.phase === GamePhase.WAITING ? "waiting" : v.phase === GamePhase.PLAYING ? "playing" : "finished";
  document.body.dataset.phase = phase;
  document.body.dataset.version = String(v.version);
  document.body.dataset.kind = v.options?.game.case || "";
  const me = mySeat();
  const head = h("div", { class: "table-head" },
    h("h2", {}, `${kindName(v)} · `, h("span", { class: "mono", title: S.gameId }, S.gameId.slice(0, 8))),
    h("p", { class: "status-line" },
      h("span", { id: "phase" }, term(enumName(phaseSchema(), v.phase))), " · ",
      `${w("version")} ${v.version}`, " · ",
      v.toAct.length ? `${w("toAct")}: ${v.toAct.map((s) => (s === me ? w("you") : seatWord(s))).join("、")}` : "",
      v.dealSource === DealSource.PREPARED_SEED || v.dealSource === DealSource.PREPARED_DECK ? ` · ${w("prepared")}` : ""),
  );
  const main = h("div", { class: "play-main" },
    head,
    phase !== "finished" && keyMissing(v) ? h("section", { class: "card-box notice error", id: "no-seat-key" },
      h("p", {}, w("noSeatKey")),
      h("button", { type: "button", class: "primary", id: "rekey", onclick: () => void rekey() }, w("rekey"))) : null,
    phase === "waiting" ? waitingBox(v) : null,
    drawOf(v) ? drawBox(v) : null,
    v.game.case ? tableBox(v) : null,
    phase === "finished" ? resultBox(v) : null,
    v.game.case && phase !== "waiting" ? handBox(v) : null,
    phase === "playing" ? movesBox() : null,
  );
  const side = h("div", { class: "play-side" },
    phase === "playing" || v.cases.length ? justiceBox(v) : null,
    linksBox(),
    logBox(),
  );
  mount(h("div", { class: "play" }, main, side));
}

function seatLabel(v: GameView, s: number): string {
  const info = v.seats.find((x) => x.seat === s);
  const who = s === mySeat() ? w("you") : info?.playerName || w("free");
  return `${seatWord(s)} · ${who}`;
}

/** A seat's key marks: unkeyed (its commands stand on the server's word alone), re-keyed. */
function seatMarks(v: GameView, s: number): (HTMLElement | null)[] {
  const info = v.seats.find((x) => x.seat === s);
  if (!info?.taken) return [];
  return [
    info.publicKey.length ? null : h("span", { class: "badge unkeyed", "data-mark": "unkeyed", title: w("unkeyed") }, w("unkeyedShort")),
    info.rekeyedAt.length ? h("span", { class: "badge rekeyed", "data-mark": "rekeyed", title: w("rekeyed") },
      `${w("rekeyedShort")} ${info.rekeyedAt.map((x) => `v${x}`).join(" ")}`) : null,
  ];
}

function waitingBox(v: GameView): HTMLElement {
  const free = v.seats.filter((s) => !s.taken).length;
  return h("section", { class: "card-box", id: "waiting", "aria-labelledby": "waiting-h" },
    h("h3", { id: "waiting-h" }, free ? w("waiting") : w("starting")),
    h("ul", { class: "seat-list" }, ...v.seats.map((s) => h("li", { "data-seat": s.seat }, seatLabel(v, s.seat), ...seatMarks(v, s.seat),
      s.taken && s.contributionStatus ? h("span", { class: "muted" }, ` · ${w("contribution")} `,
        term(`CONTRIBUTION_STATUS_${ContributionStatus[s.contributionStatus]}`)) : ""))),
    v.awaitingSeats.length ? h("p", { id: "awaiting-seats" }, `${w("dealWaitsFor")}: `, v.awaitingSeats.map(seatWord).join("、")) : null,
    v.noEntropySeats.length ? h("p", { class: "muted" }, `${w("noEntropy")}: `, v.noEntropySeats.map(seatWord).join("、")) : null,
    free ? h("button", { class: "primary", id: "bots", type: "button", onclick: () => void fillWithBots() }, w("fillBots")) : null,
  );
}

function tableBox(v: GameView): HTMLElement {
  if (v.game.case === "huaniao") return huaniaoTable(v, v.game.value);
  if (v.game.case === "zipai") return zipaiTable(v, v.game.value);
  return h("div");
}

function seatBox(v: GameView, s: number, body: Child[]): HTMLElement {
  const acting = v.toAct.includes(s);
  const winner = v.outcome?.winners.includes(s);
  return h("li", { class: `seat${acting ? " acting" : ""}${winner ? " winner" : ""}`, "data-seat": s },
    h("div", { class: "seat-name" }, seatLabel(v, s), ...seatMarks(v, s), acting ? h("span", { class: "badge" }, w("toAct")) : null,
      winner ? h("span", { class: "badge win" }, w("winner")) : null),
    ...body);
}

function huaniaoTable(v: GameView, g: HView): HTMLElement {
  const me = mySeat();
  const others = g.seats.filter((s) => s.seat !== me).map((s) => seatBox(v, s.seat, [
    s.cards.length ? h("div", { class: "cards" }, ...s.cards.map((c) => cardEl(c, { small: true }))) : backs(s.handCount),
    h("div", { class: "muted" },
      s.seasons.length ? s.seasons.map((x) => term(enumName(SeasonSchema, x))).join("") + " " : "",
      s.owesDiscard ? `${term("PHASE_DISCARDING")} ${s.owesDiscard} ` : "",
      s.danceBanned ? `${TERMS.fields.dance_banned?.[getLang() === "en" ? 1 : 0] ?? ""} ` : ""),
  ]));
  const last = g.lastPlay;
  const centre = h("div", { class: "centre", id: "centre" },
    h("div", { class: "facts" },
      h("span", {}, `${w("deck")} ${g.deckSize}`),
      g.season ? h("span", {}, `${w("season")} `, T(SeasonSchema, g.season)) : null,
      g.round ? h("span", {}, `${w("round")} ${g.round}`) : null,
      g.handLimit !== undefined ? h("span", {}, `${w("limit")} ${g.handLimit}`) : null,
      g.need ? h("span", {}, `${w("need")} `, T(NeedSchema, g.need), g.reference ? ` ${g.reference}` : "") : null,
      h("span", {}, T(HuaniaoPhaseSchema, g.phase)),
    ),
    last && last.cards.length ? h("div", { class: "last-play" },
      h("span", { class: "label" }, `${w("lastPlay")} · ${seatWord(last.seat)}`),
      h("div", { class: "cards" }, ...last.cards.map((c) => cardEl(c)))) : null,
  );
  return h("section", { class: "table-box", "aria-label": w("table") },
    h("ul", { class: "others" }, ...others), centre);
}

function zipaiTable(v: GameView, g: ZView): HTMLElement {
  const me = mySeat();
  const melds = (s: ZView["seats"][number]) => s.melds.length ? h("div", { class: "melds", "aria-label": w("melds") },
    ...s.melds.map((m) => h("span", { class: "meld", title: termTip(enumName(MeldKindSchema, m.kind)) },
      h("span", { class: "meld-kind" }, term(enumName(MeldKindSchema, m.kind))),
      ...m.cards.map((c) => cardEl(c, { small: true })),
      m.hiddenSize ? backs(m.hiddenSize) : null))) : null;
  const discards = (s: ZView["seats"][number]) => s.discards.length
    ? h("div", { class: "discards", "aria-label": w("discards") }, ...s.discards.map((c) => cardEl(c, { small: true }))) : null;
  const others = g.seats.filter((s) => s.seat !== me).map((s) => seatBox(v, s.seat, [
    !s.active ? h("div", { class: "muted" }, w("sitsOut")) : null,
    s.hand.length ? h("div", { class: "cards" }, ...s.hand.map((c) => cardEl(c, { small: true }))) : backs(s.handSize),
    h("div", { class: "muted" }, s.seat === g.dealer ? w("dealer") + " " : "", s.bao ? w("bao") : ""),
    melds(s), discards(s),
  ]));
  const mine = g.seats.find((s) => s.seat === me);
  const centre = h("div", { class: "centre", id: "centre" },
    h("div", { class: "facts" },
      h("span", {}, `${w("stock")} ${g.stockSize}`),
      h("span", {}, `${w("dealer")}: ${seatWord(g.dealer)}`),
      h("span", {}, T(ZipaiPhaseSchema, g.phase)),
    ),
    g.shown ? h("div", { class: "last-play" },
      h("span", { class: "label" }, `${w("shown")}${g.shownBy !== undefined ? " · " + seatWord(g.shownBy) : ""}`),
      h("div", { class: "cards" }, cardEl(g.shown))) : null,
    mine && (mine.melds.length || mine.discards.length)
      ? h("div", { class: "my-table" }, h("span", { class: "label" }, w("myMelds")), melds(mine), discards(mine)) : null,
  );
  return h("section", { class: "table-box", "aria-label": w("table") },
    h("ul", { class: "others" }, ...others), centre);
}

function handBox(v: GameView): HTMLElement {
  const hand = myHand(v);
  const myTurn = v.toAct.includes(mySeat());
  return h("section", { class: "hand-box", "aria-labelledby": "hand-h" },
    h("h3", { id: "hand-h" }, `${w("hand")} (${hand.length})`,
      myTurn && v.phase === GamePhase.PLAYING ? h("span", { class: "badge", id: "your-turn" }, w("yourTurn")) : null),
    h("div", { id: "hand", class: "cards hand", role: "group", "aria-label": w("hand") },
      ...hand.map((c) => cardEl(c, { button: v.phase === GamePhase.PLAYING && !replay.steps.length }))),
  );
}

const MOVE_LIMIT = 40;
/** A move's label without the part that tells two cards of one face apart (server/wire/render_moves.py). */
function sameChoice(label: string): string {
  return label.split("（")[0];
}
function movesBox(): HTMLElement {
  const legal = S.legal;
  const names = new Map<number, string>();
  if (S.view) for (const c of myHand(S.view)) names.set(c.id, cardName(c));
  const game = (legal?.moves ?? []).map((m, i) => ({ m, i, label: legal!.labels[i] ?? "" }))
    .filter((x) => x.m.game.case !== "table");
  const sel = [...S.selected];
  let shown = game;
  if (sel.length) {
    const score = (ids: number[]) => (sel.every((id) => ids.includes(id)) ? (ids.length === sel.length ? 2 : 1) : 0);
    shown = game.map((x) => ({ ...x, s: score(moveCards(x.m)) })).filter((x) => x.s > 0)
      .sort((a, b) => b.s - a.s || a.i - b.i);
  } else {
    // The same face twice ("打 六" and "打 六（六第2张）") is one choice: either card is the
    // same move. Picking a card in the hand still offers that very card's move.
    const seen = new Set<string>();
    shown = game.filter((x) => !seen.has(sameChoice(x.label)) && !!seen.add(sameChoice(x.label)))
      .map((x) => ({ ...x, label: sameChoice(x.label) }));
  }
  const hidden = Math.max(0, shown.length - MOVE_LIMIT);
  const buttons = shown.slice(0, MOVE_LIMIT).map((x) => {
    const ids = moveCards(x.m);
    return h("button", { type: "button", class: "move", "data-index": x.i, "data-cards": ids.join(" "), disabled: S.busy,
      title: gloss(x.label) || x.label, onclick: () => void play(x.m) },
      h("span", { class: "move-label" }, moveLabel(x.label)),
      ids.length && !ids.some((id) => x.label.includes(names.get(id) ?? "?"))
        ? h("span", { class: "move-cards" }, ids.map((id) => names.get(id) ?? "?").join(" ")) : null);
  });
  return h("section", { class: "moves-box", "aria-labelledby": "moves-h", "data-offered": game.length },
    h("h3", { id: "moves-h" }, w("moves")),
    game.length ? null : h("p", { class: "muted" },
      (legal?.moves ?? []).some((m) => m.game.case === "table" && m.game.value.kind.case !== "retract") ? w("voteThere") : w("noMoves")),
    game.length && !shown.length ? h("p", { class: "muted" }, w("noneWith")) : null,
    game.length > 6 && !sel.length ? h("p", { class: "muted" }, w("pickHint")) : null,
    h("div", { id: "moves", class: "moves" }, ...buttons),
    hidden ? h("p", { class: "muted" }, w("more", { n: hidden })) : null,
    sel.length ? h("button", { type: "button", class: "link", onclick: () => { S.selected.clear(); render(); } }, w("clear")) : null,
  );
}

const VIOLATIONS = [ViolationKind.ILLEGAL_COMBO, ViolationKind.WRONG_DECLARATION, ViolationKind.SEASON_RULE,
  ViolationKind.DISCARD_ORDER, ViolationKind.TIMEOUT, ViolationKind.OTHER];

function justiceBox(v: GameView): HTMLElement {
  const me = mySeat();
  const table = (S.legal?.moves ?? []).map((m, i) => ({ m, i, label: S.legal!.labels[i] ?? "" }))
    .filter((x) => x.m.game.case === "table");
  const buttons: HTMLElement[] = [];
  for (const x of table) {
    const cmd = x.m.game.case === "table" ? x.m.game.value.kind : null;
    if (!cmd) continue;
    if (cmd.case === "retract") {
      buttons.push(h("button", { type: "button", class: "table-move", id: "retract", title: x.label,
        onclick: () => void play(x.m) }, w("retract")));
    } else if (cmd.case === "castVote") {
      buttons.push(h("button", { type: "button", class: "table-move vote", "data-uphold": String(cmd.value.uphold),
        onclick: () => void play(x.m) }, moveLabel(x.label)));
    } else if (cmd.case === "appeal") {
      const reason = h("input", { id: `appeal-${cmd.value.caseId}`, maxlength: 500 }) as HTMLInputElement;
      const caseId = cmd.value.caseId;
      buttons.push(h("form", { class: "appeal", onsubmit: (ev: Event) => {
        ev.preventDefault();
        const move = create(MoveSchema, { game: { case: "table", value: { kind: { case: "appeal", value: { caseId, reason: reason.value || "—" } } } } });
        void play(move);
      } }, h("label", { for: reason.id }, `${w("appeal")} #${caseId} · ${w("reason")}`), reason,
        h("button", { type: "submit", class: "table-move" }, w("appeal"))));
    }
  }
  const agree = agreeRedealButton(v);
  if (agree) buttons.push(agree);
  const cases = v.cases.map((c) => h("li", { class: c.status === CaseStatus.OPEN ? "case open" : "case" },
    `#${c.id} `, c.isAppeal ? w("appeal") : w("report"), ` · ${seatWord(c.by)} → ${seatWord(c.accused)} · `,
    term(`VIOLATION_KIND_${ViolationKind[c.violation]}`), " · ", term(`CASE_STATUS_${CaseStatus[c.status]}`),
    c.upheldBy.length || c.rejectedBy.length ? ` (${c.upheldBy.length}:${c.rejectedBy.length})` : "",
    c.redealAgreed.length ? h("span", { class: "redeal-agreed" },
      ` · ${w("redealAgreedBy")}: ${c.redealAgreed.map(seatWord).join("、")}`) : null,
    caseDue(c)));
  const canReport = v.phase === GamePhase.PLAYING && !v.paused && (v.reportsLeft[me] ?? 1) > 0;
  return h("section", { class: "card-box justice", "aria-labelledby": "justice-h" },
    h("h3", { id: "justice-h", title: tip("justice") }, w("justice")),
    v.paused ? h("p", { class: "warn" }, w("paused")) : null,
    cases.length ? h("ul", { class: "cases" }, ...cases) : null,
    buttons.length ? h("div", { class: "table-moves" }, ...buttons) : null,
    canReport ? reportForm(v) : null,
  );
}

/** 同意重新洗牌发牌 on the open case (AgreeRedeal, through Play): a seat's own choice, which
 * the server never offers as a legal move; when every seat agrees, the case closes and the
 * deal is drawn afresh. Not offered once this seat agreed or the match's redeals are used. */
function agreeRedealButton(v: GameView): HTMLElement | null {
  const open = v.cases.find((c) => c.status === CaseStatus.OPEN);
  if (!open || v.phase !== GamePhase.PLAYING || drawOf(v) || open.redealAgreed.includes(mySeat())) return null;
  if (v.maxRedeals !== undefined && v.redeals + v.matchRedealsUsed >= v.maxRedeals) return null;
  const caseId = open.id;
  const move = create(MoveSchema, { game: { case: "table", value: { kind: { case: "agreeRedeal", value: { caseId } } } } });
  return h("button", { type: "button", class: "table-move agree-redeal", id: "agree-redeal", "data-case": caseId,
    title: tip("agreeRedeal"), onclick: () => void play(move) }, w("agreeRedeal"));
}

/** An open case's deadline (CaseView.deadline: from its opening or an awaited voter's vote,
 * within the hand's justice budget), in local time; nothing for a closed case. */
function caseDue(c: GameView["cases"][number]): HTMLElement | null {
  if (c.status !== CaseStatus.OPEN || !c.deadline) return null;
  const at = new Date(Number(c.deadline.seconds) * 1000 + Math.floor(c.deadline.nanos / 1e6));
  return h("span", { class: "case-deadline", title: at.toISOString() },
    ` · ${w("caseDue", { time: at.toLocaleTimeString() })}`);
}


function reportForm(v: GameView): HTMLElement {
  const me = mySeat();
  const others = v.seats.filter((s) => s.seat !== me);
  const accused = h("select", { id: "report-accused" }, ...others.map((s) =>
    h("option", { value: s.seat }, seatLabel(v, s.seat)))) as HTMLSelectElement;
  const violation = h("select", { id: "report-violation" }, ...VIOLATIONS.map((k) =>
    h("option", { value: k, selected: k === ViolationKind.OTHER }, term(enumName(ViolationKindSchema, k))))) as HTMLSelectElement;
  const lastOf = (s: number) => [...S.log].reverse().find((l) => l.seat === s)?.version ?? v.version;
  const evidence = h("input", { id: "report-evidence", inputmode: "numeric", value: String(lastOf(Number(accused.value))) }) as HTMLInputElement;
  accused.addEventListener("change", () => { evidence.value = String(lastOf(Number(accused.value))); });
  const note = h("input", { id: "report-note", maxlength: 200 }) as HTMLInputElement;
  return h("details", { class: "report", id: "report-box" }, h("summary", {}, w("report")),
    h("form", { onsubmit: (ev: Event) => {
      ev.preventDefault();
      const kind = Number(violation.value) as ViolationKind;
      const versions = evidence.value.split(/[\s,]+/).filter(Boolean).map((x) => BigInt(x));
      const move = create(MoveSchema, { game: { case: "table", value: { kind: { case: "report", value: {
        accused: Number(accused.value), violation: kind, evidence: versions, note: note.value,
        ...(kind === ViolationKind.OTHER ? { penalty: { kind: PenaltyKind.WARNING } } : {}),
      } } } } });
      void play(move);
    } },
      h("div", { class: "row" }, h("label", { for: accused.id }, w("accused")), accused),
      h("div", { class: "row" }, h("label", { for: violation.id }, w("violation")), violation),
      h("div", { class: "row" }, h("label", { for: evidence.id }, w("evidence")), evidence),
      h("div", { class: "row" }, h("label", { for: note.id }, w("note")), note),
      h("button", { type: "submit", class: "table-move", id: "report-send" }, w("send"))));
}

function resultBox(v: GameView): HTMLElement {
  const o = v.outcome;
  const reason = o ? TERMS.reasons[o.reason] : undefined;
  const verify = S.verify;
  const host = location.hostname;
  // runs as shown from any folder (the server says how: its own interpreter for a browser on
  // its machine); the receipts file is named as the browser saves it, so run it there
  const audit = S.auditCommand || ".venv/bin/python -m clients.python.audit";
  const command = `${audit} verify ${S.gameId} --target ${host}:${S.grpcPort || "GRPC_PORT"} --receipts receipts-${S.gameId}.jsonl`;
  return h("section", { class: "card-box result", id: "result", "aria-labelledby": "result-h" },
    h("h3", { id: "result-h" }, w("result")),
    v.void ? h("p", { id: "void" }, `${w("voidGame")}: `, v.voidWaitingFor.map(seatWord).join("、")) : null,
    o ? h("p", { id: "winners" }, `${w("winners")}: `, o.winners.map((s) => (s === mySeat() ? `${w("you")} (${seatWord(s)})` : seatWord(s))).join("、") || "—",
      reason ? ` · ${getLang() === "en" ? reason[1] : reason[0]}` : "") : null,
    o ? h("ul", { id: "scores", class: "scores" }, ...o.scores.map((sc, s) => h("li", {}, `${seatLabel(v, s)}: ${sc}`))) : null,
    h("p", { id: "verify-line", class: "verify" }, `${w("verify")}: `,
      verify === null ? "…" : verify.unavailable ? w("noCrypto") : [
        verify.commit === null ? "" : `${verify.commit ? "✓" : "✗"} ${w(verify.commit ? "commitOk" : "commitBad")}`,
        ` · ${verify.receipts[0] ? "✓" : ""} ${verify.receipts[0]} ${w("receiptsOk")}`,
        verify.receipts[1] ? ` · ✗ ${verify.receipts[1]} ${w("receiptsBad")}` : "",
      ].join("")),
    h("p", { class: "muted small" }, `${w("fullVerify")} (${w("fullVerifyWhere")}): `, h("code", {}, command)),
    h("p", { class: "links" },
      h("a", { id: "replay-link", href: replayUrl() }, w("replay")), " · ",
      h("a", { id: "receipts-link", href: receiptsUrl(), download: `receipts-${S.gameId}.jsonl` }, w("receipts")), " · ",
      h("a", { href: "#" }, w("newGame"))),
  );
}

let receiptsBlob = "";
function receiptsUrl(): string {
  // The receipts this seat received, one JSON line each ({"payload", "receipt"}, base64), as
  // clients/python/receipts.py saves them: `tabletop-audit verify --receipts FILE` checks them.
  const lines = S.receipts.map((r) => JSON.stringify({
    payload: b64(r.payload),
    receipt: b64(toBinary(ReceiptSchema, r.receipt)),
  })).join("\n");
  if (receiptsBlob) URL.revokeObjectURL(receiptsBlob);
  receiptsBlob = URL.createObjectURL(new Blob([lines + "\n"], { type: "application/jsonl" }));
  return receiptsBlob;
}

function replayUrl(): string {
  return `${location.pathname}${location.search}#game=${encodeURIComponent(S.gameId)}&replay=1`;
}

// --- the replay: every version as this seat saw it (Replay), stepped through -------------------------------

const replay = { steps: [] as { event?: GameEvent; view?: GameView }[], at: 0 };

async function enterReplay(): Promise<void> {
  document.body.dataset.screen = "replay";
  useToken(S.me?.token ?? "");
  replay.steps = [];
  mount(h("p", { class: "loading" }, "…"));
  try {
    for await (const step of client.replay({ gameId: S.gameId })) replay.steps.push({ event: step.event, view: step.view });
  } catch (err) {
    failed(err);
  }
  replay.at = Math.max(0, replay.steps.length - 1);
  renderReplay();
}

function renderReplay(): void {
  const step = replay.steps[replay.at];
  if (!step?.view) return mount(h("p", {}, w("notFound")));
  const v = step.view;
  S.view = v;
  document.body.dataset.version = String(v.version);
  const go = (i: number) => {
    replay.at = Math.min(Math.max(0, i), replay.steps.length - 1);
    renderReplay();
    document.getElementById("replay-slider")?.focus();
  };
  const slider = h("input", { id: "replay-slider", type: "range", min: 0, max: replay.steps.length - 1,
    value: replay.at, "aria-valuetext": `${w("version")} ${v.version}` }) as HTMLInputElement;
  slider.addEventListener("input", () => go(Number(slider.value)));
  mount(h("div", { class: "play replay" }, h("div", { class: "play-main" },
    h("div", { class: "table-head" }, h("h2", {}, `${w("replay")} · ${kindName(v)} · `, h("span", { class: "mono", title: S.gameId }, S.gameId.slice(0, 8))),
      h("p", { class: "status-line" }, `${w("version")} ${v.version} / ${replay.steps.at(-1)?.view?.version ?? ""}`)),
    h("div", { class: "card-box replay-controls" },
      h("div", { class: "row" }, h("label", { for: slider.id }, w("version")), slider),
      h("div", { class: "row" },
        h("button", { type: "button", class: "secondary", id: "replay-prev", onclick: () => go(replay.at - 1) }, "← ", w("prev")),
        h("button", { type: "button", class: "secondary", id: "replay-next", onclick: () => go(replay.at + 1) }, w("next"), " →"),
        h("a", { href: `#game=${encodeURIComponent(S.gameId)}` }, w("backToTable"))),
      h("p", { id: "replay-event", title: step.event?.text ?? "" }, step.event ? line(step.event.text) : "")),
    v.game.case ? tableBox(v) : null,
    v.outcome ? h("p", {}, `${w("winners")}: ${v.outcome.winners.map(seatWord).join("、")}`) : null,
    v.game.case ? handBox(v) : null)));
}

/** After the end: the shuffle secret against the commitment published at creation, and
 * each receipt's payload against its salted hash (the signatures: `tabletop-audit verify`). */
async function verifyGame(): Promise<void> {
  S.verify = { commit: null, receipts: [0, 0] };
  if (!crypto.subtle) { // SHA-256 needs a secure context (https, or this machine)
    S.verify.unavailable = true;
    return render();
  }
  try {
    let page = "";
    let commitment = "";
    let secret = "";
    let salt = "";
    let deck: number[] = [];
    let source = DealSource.SHUFFLED;
    do {
      const res = await client.getHistory({ gameId: S.gameId, pageSize: 1000, pageToken: page });
      for (const ev of res.events) {
        const f = factOf(ev);
        if (f.case === "gameCreated") {
          commitment = String(f.value!.commitment);
          source = f.value!.dealSource as DealSource;
        }
        if (f.case === "shuffleRevealed") {
          secret = String(f.value!.secret);
          salt = String(f.value!.salt);
        }
        if (f.case === "gameStarted") deck = [...(f.value!.deck as number[])];
      }
      page = res.nextPageToken;
    } while (page);
    const prepared = source === DealSource.PREPARED_DECK ? deck.join(",") : "";
    const got = await sha256(`tabletop-commit|${secret}|${salt}|${prepared}`);
    S.verify.commit = got === null ? null : got === commitment;
    for (const r of S.receipts) {
      if (r.receipt.head.length) { // format 3: its own signature over what it covers
        if (!S.serverKeys) {
          const k = await client.getSigningKey({});
          S.serverKeys = [k.publicKey, ...k.retired.map((x) => x.publicKey)];
        }
        if (await receipt3Holds(r.receipt, r.payload, S.gameId, S.serverKeys)) S.verify.receipts[0]++;
        else S.verify.receipts[1]++;
        continue;
      }
      const part = r.receipt.hashes[r.receipt.viewer];
      const bytes = new Uint8Array(r.receipt.nonce.length + r.payload.length);
      bytes.set(r.receipt.nonce);
      bytes.set(r.payload, r.receipt.nonce.length);
      const digest = await sha256(bytes);
      if (digest !== null && part && digest === part.events) S.verify.receipts[0]++;
      else S.verify.receipts[1]++;
    }
  } catch (err) {
    failed(err);
  }
  render();
}

function linksBox(): HTMLElement {
  const base = `${location.origin}${location.pathname}`;
  const invite = `${base}#game=${encodeURIComponent(S.gameId)}`;
  const seatLink = `${invite}&seat=${mySeat()}&token=${encodeURIComponent(S.me!.token)}`;
  const copyRow = (id: string, key: string, value: string) => {
    const input = h("input", { id, readonly: true, value, class: "mono" }) as HTMLInputElement;
    return h("div", { class: "row copy" }, h("label", { for: id, title: tip(key) }, w(key)), input,
      h("button", { type: "button", class: "secondary", "aria-label": `${w("copy")}: ${w(key)}`, onclick: async (ev: Event) => {
        input.select();
        try {
          await navigator.clipboard.writeText(value);
        } catch {
          document.execCommand("copy");
        }
        (ev.target as HTMLElement).textContent = w("copied");
      } }, w("copy")));
  };
  const others = heldSeats(S.gameId).filter((s) => s.seat !== mySeat());
  const switchTo = (seat: number) => {
    playSeat(S.gameId, seat);
    route();
  };
  return h("details", { class: "card-box links-box", id: "links-box", open: S.view?.phase === GamePhase.WAITING || others.length > 0 },
    h("summary", {}, w("shareTable")),
    copyRow("invite-link", "shareTable", invite),
    copyRow("seat-link", "seatLink", seatLink),
    others.length ? h("div", { class: "row", id: "held-seats" }, h("span", {}, w("heldSeats")),
      ...others.map((s) => h("button", { type: "button", class: "secondary", "data-switch-seat": s.seat,
        onclick: () => switchTo(s.seat) }, `${w("switchSeat")} ${seatWord(s.seat)}`))) : null);
}

function logBox(): HTMLElement {
  const items = S.log.slice(-80).reverse().map((l) =>
    h("li", { title: l.text }, h("span", { class: "v" }, `v${l.version}`), " ", line(l.text)));
  return h("details", { class: "card-box log-box", id: "log-box", open: window.matchMedia("(min-width: 900px)").matches },
    h("summary", {}, `${w("log")} (${S.log.length})`), h("ol", { id: "log", reversed: true, tabindex: 0, "aria-label": w("log") }, ...items));
}

// --- the frame ------------------------------------------------------------------------------------------

function frame(): void {
  document.documentElement.lang = getLang() === "en" ? "en" : "zh-CN";
  const langButton = h("button", { type: "button", id: "lang", class: "secondary", title: tip("langHelp"),
    "aria-label": w("langHelp"), onclick: () => {
      setLang(getLang() === "en" ? "zh" : "en");
      frame();
      if (S.view && S.me) render();
      else route();
    } }, w("lang"));
  const header = h("header", { class: "top" },
    h("h1", {}, h("a", { href: "#" }, w("title"))), langButton);
  const app = h("main", { id: "app" });
  const old = $("app");
  if (old) app.replaceChildren(...old.childNodes);
  const foot = h("footer", { class: "muted small" }, `${transportName} · tabletop`);
  const note = h("div", { id: "notice", class: S.noticeIsError ? "notice error" : "notice", role: "status", "aria-live": "polite" }, S.notice);
  document.body.replaceChildren(header, note, app, foot);
}

window.addEventListener("hashchange", route);
frame();
route();
void fetch("/server.json").then((r) => (r.ok ? r.json() : {})).then((j: { grpc_port?: number; audit_command?: string }) => {
  S.grpcPort = j.grpc_port ?? 0;
  S.auditCommand = j.audit_command ?? "";
}).catch(() => undefined);
