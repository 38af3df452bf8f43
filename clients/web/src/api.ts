// The page's one way to the server: the generated TableService client over Connect (or
// gRPC-Web with ?transport=grpc-web), on the page's own origin. Nothing here encodes a
// message by hand: @connectrpc/connect-web and the code protoc-gen-es generated from protos/
// do it all. The seat token goes in the `x-seat-token` header, as over gRPC.
import { createClient, ConnectError, Code, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { toJson, type DescMessage, type JsonValue } from "@bufbuild/protobuf";
import { TableService } from "../gen/tabletop/v1/tabletop_pb";
import {
  ErrorInfoSchema,
  BadRequestSchema,
  PreconditionFailureSchema,
} from "../gen/google/rpc/error_details_pb";

let token = "";

/** The seat token every later call sends (empty: a spectator's calls). */
export function useToken(value: string): void {
  token = value;
}

const auth: Interceptor = (next) => async (req) => {
  if (token) req.header.set("x-seat-token", token);
  return next(req);
};

// A test hook, off unless the page was opened with ?record=1: every response the page
// received, decoded, as proto JSON (the browser test hunts other seats' cards in them).
type Recorded = { method: string; json: JsonValue };
const RECORD = new URLSearchParams(location.search).get("record") === "1";
const recorded: Recorded[] = [];
if (RECORD) (window as unknown as { __tabletop: unknown }).__tabletop = { responses: recorded };

function record(method: string, schema: DescMessage, message: unknown): void {
  const json = toJson(schema, message as never, { alwaysEmitImplicit: false }) as Record<string, JsonValue>;
  if (method === "CreateGame" && json && typeof json === "object") delete json.arbiterToken;
  recorded.push({ method, json });
}

async function* tap<T>(method: string, schema: DescMessage, it: AsyncIterable<T>): AsyncIterable<T> {
  for await (const m of it) {
    record(method, schema, m);
    yield m;
  }
}

const recorder: Interceptor = (next) => async (req) => {
  const res = await next(req);
  if (!RECORD) return res;
  if (!res.stream) {
    record(res.method.name, res.method.output, res.message);
    return res;
  }
  return { ...res, message: tap(res.method.name, res.method.output, res.message) };
};

const grpcWeb = new URLSearchParams(location.search).get("transport") === "grpc-web";
const options = {
  baseUrl: location.origin,
  useBinaryFormat: true,
  interceptors: [auth, recorder],
};
export const transportName = grpcWeb ? "gRPC-Web" : "Connect";
export const client = createClient(
  TableService,
  grpcWeb ? createGrpcWebTransport(options) : createConnectTransport(options),
);

/** An error in a line: the server's message, with its rich details decoded. */
export function errorText(err: unknown): { code: string; reason: string; message: string } {
  const e = ConnectError.from(err);
  let reason = "";
  let message = e.rawMessage;
  for (const info of e.findDetails(ErrorInfoSchema)) reason = reason || info.reason;
  for (const pf of e.findDetails(PreconditionFailureSchema)) {
    for (const v of pf.violations) message = v.description || message;
  }
  for (const br of e.findDetails(BadRequestSchema)) {
    for (const v of br.fieldViolations) message = `${v.field}: ${v.description}`;
  }
  return { code: Code[e.code] ?? String(e.code), reason, message };
}

export function isCode(err: unknown, code: Code): boolean {
  return ConnectError.from(err).code === code;
}

export { Code };
