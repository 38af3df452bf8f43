// The seats this browser holds, kept in localStorage per game AND seat: a seat's token is
// never replaced by another seat's. A seat link for another seat of a table where this
// browser already sits (an opponent's "invite" that carries its own token, or a link whose
// `seat` lies) used to overwrite the one stored token, and the person lost their seat on the
// next reload (issue 37). Now such a link is only kept when the person says so, beside the
// seat already held, and the page plays one of them at a time (`tabletop.playing.GAME`).

// `draw`: the contribution committed to for a draw under way (a 重新洗牌发牌), kept before
// the commitment is sent so that a reload can still reveal it; `for` names the draw.
export type Saved = {
  token: string; seat: number; name: string; kind?: string; contribution?: string;
  draw?: { for: string; contribution: string };
};

const KEY = "tabletop.seat."; // KEY + game + "/" + seat: that seat's Saved
const PLAYING = "tabletop.playing."; // PLAYING + game: the seat the page plays there

const slot = (gameId: string, seat: number) => `${KEY}${gameId}/${seat}`;

function read(key: string): Saved | null {
  try {
    const s = JSON.parse(localStorage.getItem(key) || "null");
    return s && typeof s.token === "string" && Number.isInteger(s.seat) ? (s as Saved) : null;
  } catch {
    return null;
  }
}

/** Every seat held at `gameId` (an entry of the old one-per-game form counts too). */
export function heldSeats(gameId: string): Saved[] {
  const out: Saved[] = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i) || "";
    if (key.startsWith(`${KEY}${gameId}/`) || key === KEY + gameId) {
      const s = read(key);
      if (s && !out.some((o) => o.seat === s.seat)) out.push(s);
    }
  }
  return out.sort((a, b) => a.seat - b.seat);
}

/** The seat the page plays at `gameId`: the one last chosen, else the only (or first) held. */
export function saved(gameId: string): Saved | null {
  const held = heldSeats(gameId);
  const playing = Number(localStorage.getItem(PLAYING + gameId) ?? NaN);
  return held.find((s) => s.seat === playing) ?? held[0] ?? null;
}

/** Keep `s` under its own seat (its earlier entry for that seat only) and play it. */
export function save(gameId: string, s: Saved): void {
  localStorage.removeItem(KEY + gameId); // the old one-per-game form, now kept per seat
  localStorage.setItem(slot(gameId, s.seat), JSON.stringify(s));
  localStorage.setItem(PLAYING + gameId, String(s.seat));
}

/** Play `seat` of the seats held at `gameId` (nothing else changes). */
export function playSeat(gameId: string, seat: number): void {
  localStorage.setItem(PLAYING + gameId, String(seat));
}

/** Forget the seat `s` names at `gameId`, if it still holds `s`'s token. */
export function forget(gameId: string, s: Saved): void {
  for (const key of [slot(gameId, s.seat), KEY + gameId]) {
    if (read(key)?.token === s.token) localStorage.removeItem(key);
  }
  if (!heldSeats(gameId).length) localStorage.removeItem(PLAYING + gameId);
}

/** The games at which this browser holds a seat. */
export function savedGames(): string[] {
  const out = new Set<string>();
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i) || "";
    if (key.startsWith(KEY)) out.add(key.slice(KEY.length).split("/")[0]);
  }
  return [...out];
}
