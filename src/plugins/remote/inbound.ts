import { errorMessage } from "../../core/errors.ts";
import { decodeText, encodeMessage, preview } from "./codec.ts";
import { WorkerToHostParser } from "./protocol-fast.ts";
import type { HostRpcResultMessage, WorkerToHostMessage } from "./protocol.ts";
import { WireErrorCodes } from "./wire-error.ts";

export type Inbound =
  { ok: true; msg: WorkerToHostMessage } | { ok: false; kind: "malformed" | "oversize"; detail: string };

/** Parse one text from a worker: size cap, JSON, then the protocol schema. */
export function decodeWorkerMessage(text: string): Inbound {
  const decoded = decodeText(text);
  if (!decoded.ok) return { ok: false, kind: decoded.reason, detail: decoded.detail };
  const parsed = WorkerToHostParser.safeParse(decoded.value);
  if (!parsed.success) {
    return {
      ok: false,
      kind: "malformed",
      detail: `${parsed.error.issues[0]?.message ?? "invalid message"}: ${preview(text)}`,
    };
  }
  return { ok: true, msg: parsed.data };
}

/** Encode a host-rpc answer; one too large for the wire becomes an error answer instead. */
export function encodeHostRpcReply(reply: HostRpcResultMessage): string {
  try {
    return encodeMessage(reply);
  } catch (error) {
    const wire = { name: "PrxError", message: errorMessage(error), code: WireErrorCodes.tooLarge };
    return encodeMessage({ type: "host-rpc-result", requestId: reply.requestId, ok: false, error: wire });
  }
}
