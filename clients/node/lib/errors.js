'use strict';
// Rich errors: the server sends a google.rpc.Status in the `grpc-status-details-bin`
// trailer. Its `details` are Any messages: BadRequest (malformed input), ErrorInfo (a
// stable `reason` code, with `metadata.rule` for rule violations and the versions for
// ABORTED), PreconditionFailure and ResourceInfo.
const { load } = require('./protos');

const DETAILS_KEY = 'grpc-status-details-bin';
const TYPE_PREFIX = 'type.googleapis.com/';

/** Decode one google.protobuf.Any into a plain object with an `@type` field. */
function unpackAny(any) {
  const { root } = load();
  const typeName = String(any.type_url).slice(String(any.type_url).lastIndexOf('/') + 1);
  let type;
  try {
    type = root.lookupType(typeName);
  } catch {
    return { '@type': typeName, value: Buffer.from(any.value) };
  }
  const msg = type.decode(any.value);
  return { '@type': typeName, ...type.toObject(msg, { longs: Number, enums: String, defaults: true }) };
}

/**
 * The google.rpc.Status of a failed call, decoded, or null when the server sent none.
 * Returns {code, message, details: [{'@type': 'google.rpc.ErrorInfo', reason, ...}, ...]}.
 */
function richStatus(err) {
  if (!err || !err.metadata || typeof err.metadata.get !== 'function') return null;
  const values = err.metadata.get(DETAILS_KEY);
  if (!values || values.length === 0) return null;
  const { root } = load();
  const Status = root.lookupType('google.rpc.Status');
  const status = Status.decode(Buffer.from(values[0]));
  return {
    code: status.code,
    message: status.message,
    details: (status.details || []).map(unpackAny),
  };
}

/** The first detail of a type ('ErrorInfo' or 'google.rpc.ErrorInfo'), or undefined. */
function findDetail(err, typeName) {
  const status = richStatus(err);
  if (!status) return undefined;
  const full = typeName.includes('.') ? typeName : `google.rpc.${typeName}`;
  return status.details.find((d) => d['@type'] === full);
}

/** A one-line, human description of a gRPC error with its reason and rule when known. */
function describeError(err) {
  const { grpc } = load();
  const name = Object.keys(grpc.status).find((k) => grpc.status[k] === err.code) || String(err.code);
  const info = findDetail(err, 'ErrorInfo');
  const bad = findDetail(err, 'BadRequest');
  let text = `${name}: ${err.details || err.message}`;
  if (info) text += ` [${info.reason}${info.metadata && info.metadata.rule ? ` rule=${info.metadata.rule}` : ''}]`;
  if (bad) text += ` [${bad.field_violations.map((v) => `${v.field}: ${v.description}`).join('; ')}]`;
  return text;
}

module.exports = { richStatus, findDetail, describeError, unpackAny, DETAILS_KEY, TYPE_PREFIX };
