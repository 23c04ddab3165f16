/** The remote plugin wire protocol: its messages (zod), their NDJSON/postMessage text codec, and the call fast path. */
export * from "./messages.ts";
export * from "./codec.ts";
export { WorkerRpcParser, WorkerToHostParser } from "./fast-accept.ts";
