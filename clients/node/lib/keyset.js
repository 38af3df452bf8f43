'use strict';
// GetSigningKey's reply as the key set file (`tabletop-audit key --json`) holds it: for
// `--target` (lib/target.js) and for the browser's verifier, which asks the page's own server
// (clients/web/src/verify).

const hex = (b) => Buffer.from(b || []).toString('hex');

/** A TreeHead message as the JSON of a tree head. */
const headOf = (m) => ({ key_id: m.key_id, log_id: m.log_id, root: hex(m.root), signature: hex(m.signature), size: Number(m.size), timestamp: Number(m.timestamp_ms) });

/** GetSigningKey's reply as the key set file (`tabletop-audit key --json`) holds it. */
function keySetJson(reply) {
  return {
    key_id: reply.key_id,
    public_key: hex(reply.public_key),
    retired: (reply.retired || []).map((k) => ({ key_id: k.key_id, public_key: hex(k.public_key) })),
    retirements: (reply.retirements || []).map((r) => ({
      logs: Object.fromEntries(Object.entries(r.logs || {}).map(([id, n]) => [id, Number(n)])),
      retired: r.retired,
      retired_signature: hex(r.retired_signature),
      successor: r.successor,
      successor_signature: hex(r.successor_signature),
      timestamp: Number(r.timestamp_ms),
    })),
    tree_heads: (reply.tree_heads || []).map(headOf),
  };
}

module.exports = { headOf, keySetJson };
