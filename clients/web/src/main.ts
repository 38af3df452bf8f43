// The one bundle, two doors: the play page (index.html) and the referee console (a page that
// embeds its data, #tabletop-data: served live on /console/GAME, or a replay saved to a file).
import { h, render as draw } from "preact";
import { S } from "./state";
import { route } from "./session";
import { App } from "./ui/app";
import { registerPwa } from "./pwa/index";

function playPage(): void {
  document.body.replaceChildren();
  draw(h(App, {}), document.body);
  window.addEventListener("hashchange", route);
  route();
  void registerPwa(); // installable, and finished replays kept for offline viewing
  void fetch("/server.json").then((r) => (r.ok ? r.json() : {})).then((j: { grpc_port?: number; audit_command?: string }) => {
    S.grpcPort = j.grpc_port ?? 0;
    S.auditCommand = j.audit_command ?? "";
  }).catch(() => undefined);
}

playPage();
