// lib/protos.js in the browser: the contract's messages for protobufjs, from the descriptor
// clients/web/build.mjs writes (gen/verify-protos.json: tabletop.proto and the google.rpc
// protos loaded by the same protobufjs, keepCase, as lib/protos.js loads them in Node). The
// verifier decodes with it (seat signatures, receipts' payloads, re-rendering); no gRPC.
import * as protobuf from "protobufjs";
import descriptor from "../../gen/verify-protos.json";

let cached: { root: protobuf.Root } | null = null;

export function load(): { root: protobuf.Root } {
  if (!cached) cached = { root: protobuf.Root.fromJSON(descriptor as protobuf.INamespace) };
  return cached;
}

export const PROTO_ROOT = "";
export const LOADER_OPTIONS = {};
