// The installable page (docs/api.md, "The play page" → "Install and notifications"): the web
// manifest, the service worker (./sw.ts, built to dist/sw.js) and a "your turn" notification.
// For the app to call:
//
//   registerPwa()              once at start: links the manifest, registers /sw.js
//   askNotifications()         from a click (a browser asks only on a person's gesture): asks
//                              for the Notification permission, once ever on this device
//   notifyTurn(text)           when it becomes the person's turn: a notification, only while
//                              the tab is hidden and only if allowed (asked once, never nagged)
//   cacheReplay(id, body)      a finished game's replay (the console page or its data), kept
//   cachedReplay(id)           for offline viewing at /replays/GAME_ID; read it back
//   cachedReplays()            the ids kept

const REPLAYS = "tabletop-replays-v1"; // the service worker's name for it (sw.ts)
const ASKED = "tabletop.notify.asked"; // localStorage: the permission was asked once
const TAG = "tabletop-turn";

const base = (): URL => new URL(".", document.baseURI);

/** Link the manifest (if the page has no link yet) and register the service worker at the
 * page's own folder (its scope). Resolves to the registration, or null where there is none
 * (no service workers: an insecure origin other than localhost, or an old browser). */
export async function registerPwa(): Promise<ServiceWorkerRegistration | null> {
  if (!document.querySelector('link[rel="manifest"]')) {
    const link = document.createElement("link");
    link.rel = "manifest";
    link.href = new URL("manifest.webmanifest", base()).href;
    document.head.append(link);
  }
  if (!("serviceWorker" in navigator)) return null;
  try {
    return await navigator.serviceWorker.register(new URL("sw.js", base()).href, {
      scope: base().pathname,
    });
  } catch {
    return null; // the page works as before without it
  }
}

const canNotify = (): boolean => typeof Notification !== "undefined";

/** Ask for the permission to notify, once on this device (call it from a click). */
export async function askNotifications(): Promise<NotificationPermission | "unsupported"> {
  if (!canNotify()) return "unsupported";
  if (Notification.permission !== "default" || localStorage.getItem(ASKED)) {
    return Notification.permission;
  }
  localStorage.setItem(ASKED, "1");
  try {
    return await Notification.requestPermission();
  } catch {
    return Notification.permission;
  }
}

/** A "your turn" notification with `text` (the game's words), only while the tab is hidden.
 * The first time it is needed and the permission was never asked, it is asked (once). A
 * notification of the same game replaces the last one (one tag). Returns whether one was
 * shown. */
export async function notifyTurn(text: string): Promise<boolean> {
  if (!canNotify() || document.visibilityState !== "hidden") return false;
  let allowed = Notification.permission;
  if (allowed === "default" && !localStorage.getItem(ASKED)) {
    const asked = await askNotifications();
    allowed = asked === "unsupported" ? "denied" : asked;
  }
  if (allowed !== "granted") return false;
  const options: NotificationOptions = { body: text, tag: TAG, icon: new URL("icon-192.png", base()).href };
  const registration = "serviceWorker" in navigator ? await navigator.serviceWorker.getRegistration() : undefined;
  try {
    if (registration) await registration.showNotification("轮到你了", options);
    else new Notification("轮到你了", options);
    return true;
  } catch {
    return false;
  }
}

const replayUrl = (gameId: string): string =>
  new URL(`replays/${encodeURIComponent(gameId)}`, base()).href;

/** Keep a finished game's replay on this device, for offline viewing at /replays/GAME_ID
 * (the service worker answers it from here). `body`: the console page (text/html) or its
 * data (application/json). */
export async function cacheReplay(
  gameId: string,
  body: string | Blob,
  type = "text/html; charset=utf-8",
): Promise<string | null> {
  if (typeof caches === "undefined") return null;
  const cache = await caches.open(REPLAYS);
  const url = replayUrl(gameId);
  await cache.put(url, new Response(body, { headers: { "content-type": type } }));
  return url;
}

/** A kept replay's text, or null. */
export async function cachedReplay(gameId: string): Promise<string | null> {
  if (typeof caches === "undefined") return null;
  const found = await (await caches.open(REPLAYS)).match(replayUrl(gameId));
  return found ? found.text() : null;
}

/** The ids of the kept replays. */
export async function cachedReplays(): Promise<string[]> {
  if (typeof caches === "undefined") return [];
  const keys = await (await caches.open(REPLAYS)).keys();
  const prefix = new URL("replays/", base()).href;
  return keys.map((r) => r.url).filter((u) => u.startsWith(prefix)).map((u) => decodeURIComponent(u.slice(prefix.length)));
}
