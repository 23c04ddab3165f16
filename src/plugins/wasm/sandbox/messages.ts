import { parseJsonBounded } from "../../../core/json/index.ts";
import type { Logger } from "../../../core/logger.ts";
import { decodeResult, type EncodedResult } from "./call-codec.ts";
import { type FromWorker, FromWorkerSchema } from "../protocol.ts";

/**
 * A message from a sandbox Worker, read on the main thread: a call result in its compact string form
 * (call-codec.ts), or a FromWorker message checked against its schema. Anything else is logged and dropped (null).
 */
export function readWorkerMessage(data: unknown, log: Logger): EncodedResult | FromWorker | null {
  if (typeof data === "string") {
    const result = decodeResult(data);
    if (!result) log.error("malformed message from sandbox", { error: `not a call result: ${data.slice(0, 80)}` });
    return result;
  }
  const parsed = FromWorkerSchema.safeParse(data);
  if (parsed.success) return parsed.data;
  log.error("malformed message from sandbox", { error: parsed.error.message });
  return null;
}

/** An event payload a guest published: JSON when it is JSON (within MAX_JSON_DEPTH), else the text itself. */
export function parsePayload(payload: string): unknown {
  try {
    return parseJsonBounded(payload, "event payload");
  } catch {
    return payload;
  }
}
