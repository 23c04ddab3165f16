import { readBoundedText } from "../core/bounded-body.ts";
import { errorMessage } from "../core/errors.ts";
import { PLATFORM_MAX_RESPONSE_BYTES } from "./limits.ts";
import { PlatformError } from "./platform-error.ts";

/** A platform's answer, read whole within the caps. */
export interface PlatformAnswer {
  status: number;
  ok: boolean;
  headers: Headers;
  text: string;
}

export interface PlatformRequestBounds {
  /** The time cap of the whole call, head and body (PLATFORM_REQUEST_TIMEOUT_MS, or a long poll's own). */
  timeoutMs: number;
  /** The channel stopping. */
  signal?: AbortSignal;
  /** PLATFORM_MAX_RESPONSE_BYTES unless given (tests). */
  maxBytes?: number;
}

/**
 * One HTTP call to a platform (Telegram, Discord, Slack, Matrix, a webhook's callback), its answer read as a stream
 * within PLATFORM_MAX_RESPONSE_BYTES and the time cap: past either the call is abandoned (the connection closed, the
 * bytes so far dropped) with a PlatformError whose code names the cap (CHANNEL_RESPONSE_TOO_LARGE, CHANNEL_TIMEOUT).
 * A network failure or timeout is retryable; an oversized answer is not (a send may have been delivered).
 */
export async function platformRequest(platform: string, what: string, url: string, init: RequestInit, bounds: PlatformRequestBounds): Promise<PlatformAnswer> {
  const maxBytes = bounds.maxBytes ?? PLATFORM_MAX_RESPONSE_BYTES;
  // one controller for the time cap and the caller's signal, both let go when the call ends: AbortSignal.timeout would
  // keep its timer (and its signal) alive for the whole cap after every call, ~3 calls a message at 30 s each
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new DOMException(`no complete answer within ${bounds.timeoutMs} ms`, "TimeoutError"));
  }, bounds.timeoutMs);
  const outer = bounds.signal;
  const onOuterAbort = () => controller.abort(outer!.reason);
  if (outer?.aborted) onOuterAbort();
  else outer?.addEventListener("abort", onOuterAbort, { once: true });
  const signal = controller.signal;
  const timedOut = (cause: unknown) =>
    new PlatformError(platform, `${what}: no complete answer within ${bounds.timeoutMs} ms`, null, true, undefined, cause, "CHANNEL_TIMEOUT");
  const failed = (cause: unknown) => (expired ? timedOut(cause) : new PlatformError(platform, `${what}: network error: ${errorMessage(cause)}`, null, true, undefined, cause));
  try {
    let response: Response;
    try {
      response = await fetch(url, { ...init, signal });
    } catch (cause) {
      throw failed(cause);
    }
    const text = await readBoundedText(response, {
      maxBytes,
      signal,
      errors: {
        tooLarge: (max) =>
          new PlatformError(platform, `${what}: HTTP ${response.status} answer larger than ${max} bytes; not read further`, response.status, false, undefined, undefined, "CHANNEL_RESPONSE_TOO_LARGE"),
        aborted: failed,
        failed: (cause) =>
          expired ? timedOut(cause) : new PlatformError(platform, `${what}: connection dropped mid-answer: ${errorMessage(cause)}`, response.status, true, undefined, cause),
      },
    });
    return { status: response.status, ok: response.ok, headers: response.headers, text };
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", onOuterAbort);
  }
}
