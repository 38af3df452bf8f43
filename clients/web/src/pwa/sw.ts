// The service worker (built to dist/sw.js, served at the origin's root so its scope is the
// whole page): it keeps the page's shell, so the page opens with no network, and the replays
// of finished games the page saved (cacheReplay in ./index.ts), so they can be watched offline.
//
// - the shell (SHELL: the page, its script, styles, manifest and icons, the verifier bundle)
//   is cached at install; each later fetch of it goes to the network first and refreshes the
//   cache, and falls back to the cache when the network is down (so a new build is seen at
//   once online);
// - a navigation (a link to a table, a seat, a replay) falls back to the cached page: the
//   page's own links carry no file name extension (server/transport/web/origin.py);
// - /replays/GAME_ID is answered from the replay cache only (the page saved it there);
// - everything else (the API, /bots, /server.json) is never touched: a game in play is live.
export {};

const VERSION = "tabletop-shell-v1";
const REPLAYS = "tabletop-replays-v1";
const SHELL = [
  "./",
  "index.html",
  "app.js",
  "app.css",
  "verify.js",
  "pwa.js",
  "manifest.webmanifest",
  "icon.svg",
  "icon-192.png",
  "icon-512.png",
];

// The worker's global scope, typed as much as this file uses (the page's tsconfig has the
// DOM library, not the worker's).
interface ExtendableEvent extends Event {
  waitUntil(p: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  request: Request;
  respondWith(r: Response | Promise<Response>): void;
}
interface WorkerScope {
  registration: { scope: string };
  skipWaiting(): Promise<void>;
  clients: { claim(): Promise<void> };
  addEventListener(type: "install" | "activate", fn: (e: ExtendableEvent) => void): void;
  addEventListener(type: "fetch", fn: (e: FetchEvent) => void): void;
}
const worker = self as unknown as WorkerScope;

const scoped = (path: string): string => new URL(path, worker.registration.scope).href;

worker.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(VERSION);
      // one at a time, and a missing file (verify.js before it is built) does not stop the rest
      await Promise.all(SHELL.map((p) => cache.add(scoped(p)).catch(() => undefined)));
      await worker.skipWaiting();
    })(),
  );
});

worker.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name !== VERSION && name !== REPLAYS) await caches.delete(name);
      }
      await worker.clients.claim();
    })(),
  );
});

const shellUrls = (): Set<string> => new Set(SHELL.map(scoped));

const bare = (url: string): string => {
  const u = new URL(url);
  return u.origin + u.pathname;
};

/** The network's answer (a shell file's kept fresh in the cache), or, offline, the kept copy
 * (the page itself for a navigation to one of its links). */
async function networkFirst(request: Request, fallback: string): Promise<Response> {
  const cache = await caches.open(VERSION);
  const key = bare(request.url);
  try {
    const answer = await fetch(request);
    if (answer.ok && shellUrls().has(key)) await cache.put(key, answer.clone());
    return answer;
  } catch (err) {
    const kept = (await cache.match(key)) || (await cache.match(fallback));
    if (kept) return kept;
    throw err;
  }
}

worker.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== new URL(worker.registration.scope).origin) return;
  const path = url.pathname;
  if (path.startsWith(new URL(worker.registration.scope).pathname + "replays/")) {
    event.respondWith(
      caches.open(REPLAYS).then(async (cache) =>
        (await cache.match(url.origin + path)) ||
        new Response("这局的回放没有存在本机 (this replay is not saved on this device)\n", {
          status: 404,
          headers: { "content-type": "text/plain; charset=utf-8" },
        })),
    );
    return;
  }
  const page = scoped("index.html");
  if (request.mode === "navigate" && !/\.[a-z0-9]+$/i.test(path)) {
    event.respondWith(networkFirst(request, page));
    return;
  }
  if (shellUrls().has(url.origin + path)) event.respondWith(networkFirst(request, page));
});
