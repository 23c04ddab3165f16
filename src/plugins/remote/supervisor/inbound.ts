import { errorMessage } from "../../../core/errors.ts";
import { REMOTE_MAX_MESSAGE_BYTES, REMOTE_MAX_MESSAGE_DEPTH } from "../limits.ts";
import {
  decodeText,
  encodeMessage,
  preview,
  utf8Length,
  WorkerToHostParser,
  type HostRpcResultMessage,
  type WorkerToHostMessage,
} from "../protocol/index.ts";
import { WireErrorCodes } from "../wire-error.ts";

export type Inbound =
  { ok: true; msg: WorkerToHostMessage } | { ok: false; kind: "malformed" | "oversize"; detail: string };

/** True when the first non-blank character of `text` is `{`: only then can it be a protocol message. */
export function startsLikeObject(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) return c === 0x7b;
  }
  return false;
}

/** Parse one text from a worker: size cap, nesting depth, JSON, then the protocol schema. */
export function decodeWorkerMessage(text: string): Inbound {
  // garbage is refused without JSON.parse (whose error is costly), unless it is oversize, which is counted as such
  if (!startsLikeObject(text) && utf8Length(text) <= REMOTE_MAX_MESSAGE_BYTES) {
    return { ok: false, kind: "malformed", detail: `not a JSON object: ${preview(text)}` };
  }
  const decoded = decodeText(text, REMOTE_MAX_MESSAGE_BYTES, REMOTE_MAX_MESSAGE_DEPTH);
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
