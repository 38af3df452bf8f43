// The receiver accepts what the Standard Webhooks scheme signs, refuses a forged or stale
// signature, and acts once on a repeated webhook-id.
"use strict";

const test = require("node:test");
const assert = require("node:assert");
const { Webhook } = require("standardwebhooks");
const { createReceiver } = require("../receiver.js");

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

async function post(port, id, body, when, secret = SECRET) {
  const signature = new Webhook(secret).sign(id, when, body);
  const reply = await fetch(`http://127.0.0.1:${port}/`, {
    method: "POST",
    body,
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(when.getTime() / 1000)),
      "webhook-signature": signature,
    },
  });
  return reply.status;
}

test("signed notices are acted on once; forged and stale ones are refused", async () => {
  const acted = [];
  const server = createReceiver(SECRET, (id, notice) => acted.push([id, notice.type]));
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  try {
    const body = JSON.stringify({ type: "seat.turn", timestamp: "", data: { game_id: "g", seat: 1 } });
    assert.strictEqual(await post(port, "msg_1", body, new Date()), 204);
    assert.strictEqual(await post(port, "msg_1", body, new Date()), 204); // a repeat
    const other = "whsec_" + Buffer.from("another secret").toString("base64");
    assert.strictEqual(await post(port, "msg_2", body, new Date(), other), 401);
    assert.strictEqual(await post(port, "msg_3", body, new Date(Date.now() - 3600e3)), 401);
    assert.deepStrictEqual(acted, [["msg_1", "seat.turn"]]);
  } finally {
    server.close();
  }
});
