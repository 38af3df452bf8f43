#!/usr/bin/env node
// An app backend's webhook endpoint for the tabletop server (docs/integrating.md, "Webhooks").
//
//   WEBHOOK_SECRET=whsec_... PORT=8080 node receiver.js
//
// Every POST is verified with the `standardwebhooks` package (the webhook-id,
// webhook-timestamp and webhook-signature headers over the raw body, with the app's whsec_
// secret; a request older or newer than 5 minutes is refused too). A delivery that fails
// verification gets 401 and is not acted on. A verified one gets 204; its webhook-id is the
// idempotency key: the server delivers at least once, so a repeat is answered 204 again and
// not acted on twice. Acting here means printing one JSON line per notice, where a real
// backend would send the push notification ("seat.turn": the player and the deadline).
"use strict";

const http = require("node:http");
const { Webhook } = require("standardwebhooks");

const MAX_BODY = 64 * 1024; // the server's notices are a few hundred bytes

function createReceiver(secret, onNotice) {
  const webhook = new Webhook(secret);
  const seen = new Set(); // a real backend keeps these in its database, with an expiry
  return http.createServer((req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const chunks = [];
    let size = 0;
    req.on("data", (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        res.writeHead(413).end();
        req.destroy();
      } else {
        chunks.push(chunk);
      }
    });
    req.on("end", () => {
      if (res.writableEnded) return;
      const body = Buffer.concat(chunks).toString("utf8");
      let notice;
      try {
        notice = webhook.verify(body, req.headers); // throws on a bad or stale signature
      } catch (err) {
        res.writeHead(401, { "content-type": "text/plain" }).end(`refused: ${err.message}\n`);
        return;
      }
      const id = req.headers["webhook-id"];
      if (!seen.has(id)) {
        seen.add(id);
        onNotice(id, notice);
      }
      res.writeHead(204).end();
    });
  });
}

function describe(notice) {
  const d = notice.data;
  if (notice.type === "seat.turn") {
    const who = d.player || `seat ${d.seat}`;
    return `${who}: your turn in game ${d.game_id}` + (d.deadline ? ` (until ${d.deadline})` : "");
  }
  if (notice.type === "game.ended") return `game ${d.game_id} ended: winners ${d.winners.join(", ")}`;
  return `${notice.type} ${d.game_id || d.match_id}`;
}

if (require.main === module) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) {
    console.error("receiver.js: set WEBHOOK_SECRET to the app's whsec_ secret");
    process.exit(2);
  }
  const server = createReceiver(secret, (id, notice) => {
    console.log(JSON.stringify({ id, type: notice.type, data: notice.data, says: describe(notice) }));
  });
  server.listen(Number(process.env.PORT || 8080), process.env.HOST || "127.0.0.1", () => {
    console.error(`listening on ${server.address().port}`);
  });
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
}

module.exports = { createReceiver, describe };
