// The seat's own key (docs/api.md, "Seat signatures"): a WebCrypto Ed25519 key pair made in
// this browser, its private half NON-EXTRACTABLE (no script, this page's included, can read
// it out; it can only sign), kept in IndexedDB by game and seat. Its public half goes with
// JoinGame, and every command the seat sends carries its signature over a SignedCommand
// {game_id, method, expected_version, head_hash, request}: the request's own bytes without
// the signature. The server keeps those bytes with the move, so the record shows what the
// seat asked for, and the operator cannot write a command in its name.
import { create, toBinary, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import { SignedCommandSchema, type SeatSignature } from "../gen/tabletop/v1/tabletop_pb";

const DOMAIN = new TextEncoder().encode("tabletop-seat-command/1\n"); // 23 bytes
const DB = "tabletop-seat-keys";
const STORE = "keys";

export type SeatKey = { pair: CryptoKeyPair; publicKey: Uint8Array };

/** WebCrypto Ed25519 is there (a secure context, a browser that has it). */
export async function ed25519Available(): Promise<boolean> {
  if (!crypto.subtle || typeof indexedDB === "undefined") return false;
  try {
    await crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]);
    return true;
  } catch {
    return false;
  }
}

/** A fresh key pair: the private key cannot be exported, by anyone. */
export async function newSeatKey(): Promise<SeatKey> {
  const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"])) as CryptoKeyPair;
  return { pair, publicKey: new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey)) };
}

function db(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(DB, 1);
    open.onupgradeneeded = () => open.result.createObjectStore(STORE);
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
}

async function tx<T>(mode: IDBTransactionMode, run: (store: IDBObjectStore) => IDBRequest): Promise<T> {
  const d = await db();
  try {
    return await new Promise<T>((resolve, reject) => {
      const req = run(d.transaction(STORE, mode).objectStore(STORE));
      req.onsuccess = () => resolve(req.result as T);
      req.onerror = () => reject(req.error);
    });
  } finally {
    d.close();
  }
}

const slot = (gameId: string, seat: number) => `${gameId}/${seat}`;

/** Keep the seat's key pair (IndexedDB stores the CryptoKey objects themselves). */
export async function keepSeatKey(gameId: string, seat: number, key: SeatKey): Promise<void> {
  await tx("readwrite", (s) => s.put(key, slot(gameId, seat)));
}

/** The seat's kept key, or null (another browser took the seat, or the storage was cleared). */
export async function seatKey(gameId: string, seat: number): Promise<SeatKey | null> {
  try {
    return (await tx<SeatKey | undefined>("readonly", (s) => s.get(slot(gameId, seat)))) ?? null;
  } catch {
    return null;
  }
}

export async function forgetSeatKey(gameId: string, seat: number): Promise<void> {
  await tx("readwrite", (s) => s.delete(slot(gameId, seat)));
}

/**
 * The seat's signature over `request` (a `schema` message, its seatSignature unset) as the
 * `method` call for `gameId`, having seen version `seen` with chain hash `head`.
 */
export async function signCommand<D extends DescMessage>(
  key: SeatKey, method: string, gameId: string, seen: bigint, head: string,
  schema: D, request: MessageInitShape<D>,
): Promise<SeatSignature> {
  const bytes = toBinary(schema, create(schema, { ...(request as object), seatSignature: undefined } as unknown as MessageInitShape<D>));
  const signed = toBinary(SignedCommandSchema, create(SignedCommandSchema, {
    gameId, method, expectedVersion: seen, headHash: head, request: bytes,
  }));
  const message = new Uint8Array(DOMAIN.length + signed.length);
  message.set(DOMAIN);
  message.set(signed, DOMAIN.length);
  const signature = new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, key.pair.privateKey, message));
  return { $typeName: "tabletop.v1.SeatSignature", signedCommand: signed, signature } as SeatSignature;
}
