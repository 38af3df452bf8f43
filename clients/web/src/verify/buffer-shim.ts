// The global Buffer the shared verifier code uses (Node's), for the browser: the `buffer`
// package, injected by clients/web/build.mjs where the code names Buffer.
export { Buffer } from "buffer";
