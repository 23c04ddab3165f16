import { ErrorCodes, PrxError, type ErrorCode } from "../../core/errors.ts";
import type { WireError } from "./protocol/index.ts";

/** Error codes that travel on the wire between host and worker (beside PrxError codes thrown by handlers). */
export const WireErrorCodes = {
  unknownTarget: "UNKNOWN_TARGET",
  surfaceMismatch: "SURFACE_MISMATCH",
  cancelled: "CANCELLED",
  tooLarge: "PAYLOAD_TOO_LARGE",
  unknownMethod: "UNKNOWN_METHOD",
  badArgs: "BAD_ARGS",
  notReady: "NOT_READY",
  closed: "CHANNEL_CLOSED",
} as const;

/** Any thrown value -> the wire shape { name, message, code, stack, cause }. */
export function toWireError(value: unknown): WireError {
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    // a PrxError's hint (what to do next) travels inside the message
    const message = value instanceof PrxError ? value.describe() : value.message;
    const out: WireError = { name: value.name, message };
    if (code !== undefined) out.code = String(code);
    if (value.stack) out.stack = value.stack;
    const cause = (value as { cause?: unknown }).cause;
    if (cause instanceof Error) out.cause = { name: cause.name, message: cause.message };
    else if (cause !== undefined && (typeof cause !== "object" || cause === null)) out.cause = cause;
    return out;
  }
  return { name: "Error", message: typeof value === "string" ? value : safeString(value) };
}

function safeString(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Rebuild a thrown error from the wire. The remote stack is kept, followed by a boundary frame and the local stack,
 * so a debugger shows where the call crossed from host to plugin.
 */
export function fromWireError(wire: WireError, boundary: string, code: ErrorCode = "REMOTE_RPC"): PrxError {
  const error = new PrxError(code, `${boundary}: ${wire.name}: ${wire.message}`, {
    details: { remoteName: wire.name, remoteCode: wire.code ?? null, remoteStack: wire.stack ?? null },
  });
  const local = (error.stack ?? "").split("\n").slice(1).join("\n");
  error.stack = `${wire.stack ?? `${wire.name}: ${wire.message}`}\n    at [${boundary} boundary]\n${local}`;
  return error;
}

/**
 * The code to rethrow a wire error with on the worker side: the host's own PrxError code when it is one (so a plugin
 * sees PLUGIN_UNSUPPORTED, LIMIT_EXCEEDED, ... as the host raised it), else REMOTE_RPC.
 */
export function hostErrorCode(wire: WireError): ErrorCode {
  return (ErrorCodes as readonly string[]).includes(wire.code ?? "") ? (wire.code as ErrorCode) : "REMOTE_RPC";
}
