import { type ErrorCode, ErrorCodes, PrxError } from "../../../core/errors.ts";

/**
 * A failure as the sandbox Worker serialized it, back into a PrxError: its code (PLUGIN_LOAD when it is not one
 * prx knows), its message prefixed with `where` unless it already names the plugin, and its hint.
 */
export function toError(error: { code: string; message: string; hint?: string }, where: string): PrxError {
  const code = (ErrorCodes as readonly string[]).includes(error.code) ? (error.code as ErrorCode) : "PLUGIN_LOAD";
  const message = error.message.startsWith("plugin ") ? error.message : `${where}: ${error.message}`;
  // a guest err(E) keeps E as the message, verbatim, so adapters can hand it on (tool result, middleware error)
  if (code === "PLUGIN_ERROR") return new PrxError(code, error.message, { details: { guestError: error.message } });
  return new PrxError(code, message, error.hint ? { hint: error.hint } : {});
}
