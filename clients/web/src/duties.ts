// What the seat sends: the deal's contribution, a draw's commit and reveal, a new key, bots,
// moves; and the end's checks (the commitment, the receipts). Each command signed with the
// seat's key (seatkey.ts); each acknowledgement checked (acks.ts).
import { toBinary, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import {
  GamePhase, ContributionStatus, DealSource, ReceiptSchema, PlayRequestSchema, RevealContributionRequestSchema,
  CommitContributionRequestSchema, StartGameRequestSchema, RekeySeatRequestSchema, type GameView, type Move,
} from "../gen/tabletop/v1/tabletop_pb";
import { client } from "./api";
import { newSeatKey, keepSeatKey, signCommand } from "./seatkey";
import { ackProblem, receipt3Holds, type Ack, type Fact } from "./acks";
import { save } from "./seats";
import { w } from "./words";
import { S, render, notice, failed, mySeat } from "./state";
import { b64, hex, sha256, uuid } from "./util";
import { refresh, factOf } from "./session";

/** Before the deal: reveal this seat's contribution once every seat is taken, then deal. */
export async function waitingDuties(): Promise<void> {
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
export const drawOf = (v: GameView): string => (v.phase === GamePhase.PLAYING ? v.redealCommitment : "");

let drawBusy = false;
/** A draw under way (every seat agreed to 重新洗牌发牌): the deal is made from every seat's
 * fresh entropy or not at all, so this seat commits to a fresh contribution when it is
 * awaited, and reveals it once every seat has committed. Both signed, both acknowledged. */
export async function drawDuties(): Promise<void> {
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

/** `request` with this seat's signature (unchanged when this browser holds no key for it: the
 * server then refuses a keyed seat's command, and the page offers a new key). `seen`: the
 * version the seat saw and its chain hash, by default the view's. */
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
export function keyMissing(v: GameView): boolean {
  const mine = v.seats.find((x) => x.seat === mySeat());
  return !!mine && mine.publicKey.length > 0 && (!S.key || hex(S.key.publicKey) !== hex(mine.publicKey));
}

/** This browser lost the seat's key (or took the seat by its link elsewhere): a new key for
 * it, signed by itself and recorded as a re-key, which everyone sees. */
export async function rekey(): Promise<void> {
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

export async function fillWithBots(): Promise<void> {
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

export async function play(move: Move): Promise<void> {
  if (S.busy || !S.legal) return;
  S.busy = true;
  render();
  try {
    const seen = S.legal.version;
    const request = { gameId: S.gameId, expectedVersion: seen, move, requestId: uuid() };
    const res = await client.play(await signed("Play", PlayRequestSchema, request, { version: seen, head: await headAt(seen) }));
    S.selected = [];
    S.legal = res.legalMoves ?? null;
    notice("");
  } catch (err) {
    failed(err);
  } finally {
    S.busy = false;
    void refresh();
  }
}

/** After the end: the shuffle secret against the commitment published at creation, and
 * each receipt's payload against its salted hash (the signatures: `tabletop-audit verify`). */
export async function verifyGame(): Promise<void> {
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

/** The receipts this seat received, one JSON line each ({"payload", "receipt"}, base64), as
 * clients/python/receipts.py saves them: `tabletop-audit verify --receipts FILE` checks them. */
export function receiptsText(): string {
  return S.receipts.map((r) => JSON.stringify({
    payload: b64(r.payload),
    receipt: b64(toBinary(ReceiptSchema, r.receipt)),
  })).join("\n") + "\n";
}

