import { isPlainObject, withFastAccept } from "../../../core/fast-accept/index.ts";
import {
  SurfaceKinds,
  WorkerRpcMessageSchema,
  WorkerToHostMessageSchema,
  type WorkerRpcMessage,
  type WorkerRpcResultMessage,
  type WorkerToHostMessage,
} from "./messages.ts";

/**
 * The two messages of every plugin call (the call, read by the worker, and its result, read by the host) checked
 * by hand in front of their zod schemas, which decide everything else and write every error. What it buys,
 * measured: zod parses a worker-rpc in ~2.1-2.6 us and a worker-rpc-result (through the worker -> host union) in
 * ~1.6-2.0 us, these checks in 0.1-0.5 us: ~3.5 us of a worker round trip whose p50 is ~38 us against a 40 us
 * target (`bun run bench remote`; pipelined worker calls 11.2-12.0k/s with the checks, 3.1-12.2k/s without, on a
 * loaded machine). Each check accepts only what its schema accepts and returns it as the schema would
 * (test/plugins/remote/fast-accept.test.ts runs both on one corpus).
 */

const isRequestId = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
const surfaces: ReadonlySet<unknown> = new Set(SurfaceKinds);

export function isPlainWorkerRpc(v: unknown): v is WorkerRpcMessage {
  return (
    isPlainObject(v) &&
    v.type === "worker-rpc" &&
    isRequestId(v.requestId) &&
    surfaces.has(v.surface) &&
    typeof v.target === "string" &&
    v.target.length > 0 &&
    "args" in v // zod's z.unknown() still wants the key present
  );
}

/** A result without an error: `ok` and a payload (errors are rare, and zod checks their shape). */
export function isPlainWorkerRpcResult(v: unknown): v is WorkerRpcResultMessage {
  if (!isPlainObject(v) || v.type !== "worker-rpc-result" || !isRequestId(v.requestId)) return false;
  return typeof v.ok === "boolean" && v.error === undefined;
}

export const WorkerRpcParser = withFastAccept(WorkerRpcMessageSchema, (v) => (isPlainWorkerRpc(v) ? v : null));
export const WorkerToHostParser = withFastAccept(WorkerToHostMessageSchema, (v): WorkerToHostMessage | null => (isPlainWorkerRpcResult(v) ? v : null));
