// The play page's root: the frame (title, language, notice) and the screen S is at. It reads
// `tick`, so any change of S re-renders it.
import { h } from "preact";
import { GamePhase, DealSource, type GameView } from "../../gen/tabletop/v1/tabletop_pb";
import { transportName } from "../api";
import { heldSeats, playSeat } from "../seats";
import { w, tip, term, seatWord, getLang, setLang } from "../words";
import { S, replay, tick, render, mySeat } from "../state";
import { route, createTable, joinSeat, enterSeat, takeLinkSeat, refresh } from "../session";
import { drawOf, keyMissing, rekey, fillWithBots, play, receiptsText } from "../duties";
import { Table } from "./table";
import { Hand, Picker } from "./picker";
import { Justice } from "./justice";
import { Landing, Join, NotFound, LinkChoice } from "./landing";
import { Waiting, Draw, Links, Log } from "./seat";
import { Result } from "./result";
import { Scrubber } from "./replay";

const replayUrl = () => `${location.pathname}${location.search}#game=${encodeURIComponent(S.gameId)}&replay=1`;
/** The referee console of this table, on this origin (web port): everyone's once it ended. */
export const consoleUrl = (gameId: string) => `/console/${encodeURIComponent(gameId)}`;

let receiptsBlob = "";
function receiptsUrl(): string {
  if (receiptsBlob) URL.revokeObjectURL(receiptsBlob);
  receiptsBlob = URL.createObjectURL(new Blob([receiptsText()], { type: "application/jsonl" }));
  return receiptsBlob;
}

function Head({ v, title }: { v: GameView; title?: string }) {
  const me = mySeat();
  return h("div", { class: "table-head" },
    h("h2", {}, title ?? "", `${w(v.options?.game.case || "huaniao")} · `, h("span", { class: "mono", title: S.gameId }, S.gameId.slice(0, 8))),
    h("p", { class: "status-line" },
      h("span", { id: "phase" }, term(`GAME_PHASE_${GamePhase[v.phase]}`)), " · ", `${w("version")} ${v.version}`,
      v.toAct.length ? ` · ${w("toAct")}: ${v.toAct.map((s) => (s === me ? w("you") : seatWord(s))).join("、")}` : "",
      v.dealSource === DealSource.PREPARED_SEED || v.dealSource === DealSource.PREPARED_DECK ? ` · ${w("prepared")}` : ""));
}

function AtTable() {
  const v = S.view;
  if (!v || !S.me) return h("p", { class: "loading" }, "…");
  const phase = v.phase === GamePhase.WAITING ? "waiting" : v.phase === GamePhase.PLAYING ? "playing" : "finished";
  Object.assign(document.body.dataset, { phase, version: String(v.version), kind: v.options?.game.case || "" });
  const me = mySeat();
  const audit = S.auditCommand || ".venv/bin/python -m clients.python.audit";
  const command = `${audit} verify ${S.gameId} --target ${location.hostname}:${S.grpcPort || "GRPC_PORT"} --receipts receipts-${S.gameId}.jsonl`;
  const pickerProps = {
    v, me, legal: S.legal, touched: S.selected, busy: S.busy, playing: phase === "playing",
    onTouch: (t: number[]) => { S.selected = t; render(); }, onPlay: (m: Parameters<typeof play>[0]) => void play(m),
  };
  const lastVersionOf = (s: number) => [...S.log].reverse().find((l) => l.seat === s)?.version ?? v.version;
  return h("div", { class: "play" },
    h("div", { class: "play-main" },
      h(Head, { v }),
      phase !== "finished" && keyMissing(v) ? h("section", { class: "card-box notice error", id: "no-seat-key" },
        h("p", {}, w("noSeatKey")), h("button", { type: "button", class: "primary", id: "rekey", onClick: () => void rekey() }, w("rekey"))) : null,
      phase === "waiting" ? h(Waiting, { v, me, onBots: () => void fillWithBots() }) : null,
      drawOf(v) ? h(Draw, { v, me, step: S.drawStep }) : null,
      v.game.case ? h(Table, { v, me }) : null,
      phase === "finished" ? h(Result, { v, me, gameId: S.gameId, checks: S.verify, command, replayUrl: replayUrl(),
        receiptsUrl: receiptsUrl(), receipts: () => receiptsText().split("\n").filter(Boolean) }) : null,
      v.game.case && phase !== "waiting" ? h(Hand, pickerProps) : null,
      phase === "playing" ? h(Picker, pickerProps) : null),
    h("div", { class: "play-side" },
      phase === "playing" || v.cases.length ? h(Justice, { v, me, legal: S.legal, drawing: !!drawOf(v), lastVersionOf, onPlay: pickerProps.onPlay }) : null,
      h(Links, { gameId: S.gameId, me, token: S.me.token, others: heldSeats(S.gameId).filter((s) => s.seat !== me),
        open: phase === "waiting", consoleUrl: phase === "finished" ? consoleUrl(S.gameId) : "",
        onSwitch: (seat) => { playSeat(S.gameId, seat); route(); } }),
      h(Log, { log: S.log })));
}

function Replay() {
  const step = replay.steps[replay.at];
  if (!step?.view) return h("p", {}, w("notFound"));
  const v = step.view;
  S.view = v;
  document.body.dataset.version = String(v.version);
  return h("div", { class: "play replay" }, h("div", { class: "play-main" },
    h(Head, { v, title: `${w("replay")} · ` }),
    h(Scrubber, { at: replay.at, count: replay.steps.length, version: v.version, last: replay.steps.at(-1)?.view?.version ?? "",
      event: step.event?.text ?? "", back: `#game=${encodeURIComponent(S.gameId)}`,
      onGo: (i) => { replay.at = i; render(); } }),
    v.game.case ? h(Table, { v, me: mySeat() }) : null,
    v.outcome ? h("p", {}, `${w("winners")}: ${v.outcome.winners.map(seatWord).join("、")}`) : null,
    v.game.case ? h(Hand, { v, me: mySeat(), legal: null, touched: [], busy: false, playing: false, onTouch: () => {}, onPlay: () => {} }) : null,
    replay.steps.at(-1)?.view?.phase === GamePhase.FINISHED ? h("p", {}, h("a", { id: "console-link", href: consoleUrl(S.gameId) }, w("console"))) : null));
}

function Screen() {
  document.body.dataset.screen = S.screen === "notfound" ? "join" : S.screen;
  if (S.screen !== "table" && S.screen !== "replay") {
    delete document.body.dataset.phase;
    delete document.body.dataset.version;
  }
  switch (S.screen) {
    case "landing":
      return h(Landing, { onCreate: (kind, seats, options, name, seed) => void createTable(kind, seats, options as never, name, seed) });
    case "join":
      return h(Join, { gameId: S.gameId, view: S.guest, replayUrl: replayUrl(),
        onSit: (seat, name, kind) => void joinSeat(S.gameId, seat, name, kind).catch((e) => { import("../state").then((m) => m.failed(e)); }) });
    case "notfound":
      return h(NotFound, { gameId: S.gameId });
    case "link":
      return S.link ? h(LinkChoice, { link: S.link.link, mine: S.link.mine, onStay: () => void enterSeat(), onTake: takeLinkSeat }) : null;
    case "table":
      return h(AtTable, {});
    case "replay":
      return h(Replay, {});
    default:
      return h("p", { class: "loading" }, "…");
  }
}

export function App() {
  void tick.value; // re-render on every change of S
  document.documentElement.lang = getLang() === "en" ? "en" : "zh-CN";
  return h("div", { class: "frame" },
    h("header", { class: "top" }, h("h1", {}, h("a", { href: "#" }, w("title"))),
      h("button", { type: "button", id: "lang", class: "secondary", title: tip("langHelp"), "aria-label": w("langHelp"),
        onClick: () => { setLang(getLang() === "en" ? "zh" : "en"); render(); if (S.screen === "table") void refresh(); } }, w("lang"))),
    h("div", { id: "notice", class: S.noticeIsError ? "notice error" : "notice", role: "status", "aria-live": "polite",
      title: S.noticeDetail, "data-detail": S.noticeDetail }, S.notice),
    h("main", { id: "app" }, h(Screen, {})),
    h("footer", { class: "muted small" }, `${transportName} · tabletop`));
}
