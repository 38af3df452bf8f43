'use strict';
// Loads the public contract (../../protos) at run time with @grpc/proto-loader, plus the
// google.rpc status protos (vendored in ./proto) and the contract again with protobufjs, to
// decode rich errors and to encode and decode the messages a seat signs.
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

const PROTO_ROOT = process.env.TABLETOP_PROTOS || path.resolve(__dirname, '..', '..', '..', 'protos');
const VENDORED = path.resolve(__dirname, '..', 'proto');

// keepCase: field names as in the .proto (snake_case); longs as JS numbers (versions and
// seeds fit); enums as their names; oneofs: the virtual oneof field names the set member.
const LOADER_OPTIONS = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_ROOT, VENDORED],
};

let cached = null;

function load() {
  if (cached) return cached;
  const definition = protoLoader.loadSync(
    ['tabletop/v1/tabletop.proto', 'google/rpc/status.proto', 'google/rpc/error_details.proto'],
    LOADER_OPTIONS,
  );
  const grpcObject = grpc.loadPackageDefinition(definition);

  // A protobufjs root of the same files, to decode google.rpc.Status and its Any details.
  const root = new protobuf.Root();
  root.resolvePath = (origin, target) => {
    for (const dir of [PROTO_ROOT, VENDORED]) {
      const candidate = path.join(dir, target);
      try {
        require('node:fs').accessSync(candidate);
        return candidate;
      } catch {
        // try the next include dir
      }
    }
    return protobuf.util.path.resolve(origin, target);
  };
  // tabletop.proto too: a seat signs its requests' exact bytes, and the verifier decodes
  // the signed commands a record keeps (SignedCommand, the requests inside it).
  root.loadSync(
    ['google/rpc/status.proto', 'google/rpc/error_details.proto', 'tabletop/v1/tabletop.proto'],
    { keepCase: true },
  );
  root.resolveAll();

  cached = {
    grpc,
    definition,
    TableService: grpcObject.tabletop.v1.TableService,
    root,
  };
  return cached;
}

module.exports = { load, PROTO_ROOT, LOADER_OPTIONS };
