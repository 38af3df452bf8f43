// The second door of the one front end: the referee console. Its page (server/wire/page) embeds
// the game's steps (#tabletop-data) and inlines this bundle: served live by the live viewer and on
// the web port's /console/GAME, or saved to a file that opens offline (no network at all).
import { h, render as draw } from "preact";
import { C, DATA, readLink, isOwnLink, follow, render } from "./console/model";
import { Console } from "./console/page";

// read before the page rewrites its own #v=... link
const token = new URLSearchParams((location.hash || "").replace(/^#/, "")).get("token");
readLink();
const root = document.getElementById("console-root")!;
root.replaceChildren();
draw(h(Console, {}), root);
window.addEventListener("hashchange", () => {
  if (isOwnLink()) return;
  readLink();
  render();
});
document.addEventListener("keydown", (e) => {
  const t = e.target as HTMLElement | null;
  if (t && (t.id === "replay-slider" || t.tagName === "SELECT")) return; // they step on their own
  const n = C.current ? C.current.steps.length : 0;
  const to = e.key === "ArrowLeft" ? C.pos - 1 : e.key === "ArrowRight" ? C.pos + 1 : e.key === "Home" ? 0 : e.key === "End" ? n - 1 : null;
  if (to === null) return;
  C.pos = Math.max(0, Math.min(to, n - 1));
  render();
  e.preventDefault();
});
if (DATA.live) follow(DATA.live, token);
