// What the page does on the person's device (clients/web/src/pwa): "your turn" while the tab
// is hidden, and a finished game's replay kept for offline viewing at /replays/GAME_ID.
import { GamePhase, type GameView } from "../gen/tabletop/v1/tabletop_pb";
import { cacheReplay, notifyTurn } from "./pwa/index";
import { w } from "./words";

let toldAt = -1n; // the version whose turn was last told (one notification a turn)
const kept = new Set<string>();

/** After a refresh: tell the person it is their turn (only while the tab is hidden: notifyTurn
 * decides), and keep the replay of a game that has ended. */
export function onView(gameId: string, view: GameView | null, seat: number | null): void {
  if (!view) return;
  if (view.phase === GamePhase.PLAYING && seat !== null && view.toAct.includes(seat) && view.version !== toldAt) {
    toldAt = view.version;
    void notifyTurn(w("yourTurn"));
  }
  if (view.phase === GamePhase.FINISHED && !kept.has(gameId)) {
    kept.add(gameId);
    void keepReplay(gameId);
  }
}

/** The game's console (every viewer's steps, open to all once the game has ended), kept. */
async function keepReplay(gameId: string): Promise<void> {
  try {
    const page = await fetch(`/console/${encodeURIComponent(gameId)}`);
    if (page.ok) await cacheReplay(gameId, await page.text());
  } catch {
    /* offline or refused: nothing kept, the game's record is still on the server */
  }
}
