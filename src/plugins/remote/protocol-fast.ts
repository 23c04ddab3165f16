import { isPlainObject, withFastAccept } from "../../core/fast-accept.ts";
import {
  HostRpcResultMessageSchema,
  SurfaceKinds,
  WorkerRpcMessageSchema,
  WorkerToHostMessageSchema,
  type HostRpcMessage,
  type HostRpcResultMessage,
  type WorkerRpcMessage,
  type WorkerRpcResultMessage,
  type WorkerToHostMessage,
} from "./protocol.ts";

/**
 * Parsers for the messages of every call (a call, its result, a host-rpc and its result): a hand check of the
 * plain shape in front of the zod schema, which still decides everything else and writes every error.
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
function isPlainResult(v: unknown, type: string): boolean {
  if (!isPlainObject(v) || v.type !== type || !isRequestId(v.requestId)) return false;
  return typeof v.ok === "boolean" && v.error === undefined;
}

export function isPlainWorkerRpcResult(v: unknown): v is WorkerRpcResultMessage {
  return isPlainResult(v, "worker-rpc-result");
}

export function isPlainHostRpcResult(v: unknown): v is HostRpcResultMessage {
  return isPlainResult(v, "host-rpc-result");
}

export function isPlainHostRpc(v: unknown): v is HostRpcMessage {
  return (
    isPlainObject(v) &&
    v.type === "host-rpc" &&
    isRequestId(v.requestId) &&
    v.api === "runtime" &&
    typeof v.method === "string" &&
    "args" in v
  );
}

export const WorkerRpcParser = withFastAccept(WorkerRpcMessageSchema, isPlainWorkerRpc);
export const HostRpcResultParser = withFastAccept(HostRpcResultMessageSchema, isPlainHostRpcResult);
export const WorkerToHostParser = withFastAccept(
  WorkerToHostMessageSchema,
  (v): v is WorkerToHostMessage => isPlainWorkerRpcResult(v) || isPlainHostRpc(v),
);
