'use strict';
// `--target HOST:PORT`: what the verifier asks a server for (docs/api.md, "The auditor"), as
// clients/python/audit_log.py does: the key set with its retirements (GetSigningKey), the
// inclusion of every seal of a record the export's log line does not prove
// (GetInclusionProof, one head a log), and consistency proofs between a kept tree head and a
// new one of another size (GetConsistencyProof). The checks are lib/translog.js's.
const { TableClient, unary } = require('./client');
const tl = require('./translog');

const { headOf, keySetJson } = require('./keyset');

const hex = (b) => Buffer.from(b || []).toString('hex');

/** A gRPC status the server's details name, for the failure line (audit.py `_reason`). */
class ServerError extends Error {}

class Server {
  constructor(target) {
    this.target = target;
    this.client = new TableClient(target);
  }

  close() {
    this.client.close();
  }

  async call(method, request) {
    try {
      return await unary(this.client.stub, method, request, this.client.metadata(null));
    } catch (err) {
      if (err.code === undefined) throw err;
      const e = new ServerError(`the server at ${this.target}: ${err.details || err.message} (give --public-key to verify a file without it)`);
      e.grpcCode = err.code;
      e.details = err.details || err.message;
      throw e;
    }
  }

  async keySet() {
    return keySetJson(await this.call('GetSigningKey', {}));
  }

  /**
   * Every seal's inclusion for each [kind, id] ("game" or "match"), against one head a log,
   * as a source of proofs {source: "the server", heads, inclusions, missing}. A record the
   * server does not know has none (`missing`: "the server does not know it: ...").
   */
  async proofs(records) {
    const heads = new Map();
    const inclusions = [];
    const { status } = this.client.grpc;
    for (const [kind, id] of records) {
      const asked = { [`${kind}_id`]: id };
      let reply;
      try {
        reply = await this.call('GetInclusionProof', asked);
        const logId = reply.tree_head.log_id;
        if (heads.has(logId) && heads.get(logId).size !== Number(reply.tree_head.size)) {
          reply = await this.call('GetInclusionProof', { ...asked, tree_size: heads.get(logId).size });
        }
      } catch (err) {
        if (err instanceof ServerError && [status.NOT_FOUND, status.UNIMPLEMENTED].includes(err.grpcCode)) {
          return { source: 'the server', heads: [], inclusions: [], missing: `the server does not know it: ${err.details}` };
        }
        throw err;
      }
      const head = headOf(reply.tree_head);
      if (!heads.has(head.log_id)) heads.set(head.log_id, head);
      for (const x of reply.inclusions) {
        inclusions.push({ first: Number(x.first), id, index: Number(x.index), last: Number(x.last), log_id: head.log_id, path: x.path.map(hex) });
      }
    }
    return { source: 'the server', heads: [...heads.values()], inclusions, missing: '' };
  }

  /**
   * A head of another size than one seen before must extend it (or be extended by it),
   * checked with the server's consistency proof (audit_log.py `check_consistent`). Fails
   * (LogError) naming both sizes and what fails.
   */
  async checkConsistent(seen, fresh) {
    for (const [where, old] of seen) {
      if (old.log_id !== fresh.log_id || old.size === fresh.size) continue;
      const [small, big] = old.size < fresh.size ? [old, fresh] : [fresh, old];
      if (small.size === 0) continue;
      const reply = await this.call('GetConsistencyProof', { log_id: fresh.log_id, first_size: small.size, second_size: big.size });
      const problem = tl.consistencyProblem(small.size, big.size, Buffer.from(small.root, 'hex'), Buffer.from(big.root, 'hex'), reply.path);
      if (problem) {
        throw new tl.LogError(`tree heads of log ${fresh.log_id} at sizes ${small.size} and ${big.size} are not consistent (${where}): ${problem}`);
      }
    }
  }
}

module.exports = { Server, ServerError, keySetJson, headOf };
