import { readBoundedBytes } from "../core/bounded-body.ts";
import { errorMessage } from "../core/errors.ts";
import { PlatformError } from "./platform-error.ts";

export interface PlatformDownload {
  status: number;
  ok: boolean;
  bytes: Uint8Array;
}

/**
 * A GET of a file a platform serves (a Telegram file, a Discord or Slack attachment, Matrix media), read as a stream
 * within `maxBytes` and the time cap: past either the download is abandoned with a PlatformError naming the cap.
 */
export async function platformDownload(
  platform: string,
  what: string,
  url: string,
  bounds: { timeoutMs: number; maxBytes: number; signal?: AbortSignal; headers?: Record<string, string> },
): Promise<PlatformDownload> {
  const timeout = AbortSignal.timeout(bounds.timeoutMs);
  const signal = bounds.signal ? AbortSignal.any([bounds.signal, timeout]) : timeout;
  const failed = (cause: unknown) =>
    timeout.aborted
      ? new PlatformError(platform, `${what}: not complete within ${bounds.timeoutMs} ms`, null, true, undefined, cause, "CHANNEL_TIMEOUT")
      : new PlatformError(platform, `${what}: network error: ${errorMessage(cause)}`, null, true, undefined, cause);
  let response: Response;
  try {
    response = await fetch(url, { signal, ...(bounds.headers ? { headers: bounds.headers } : {}) });
  } catch (cause) {
    throw failed(cause);
  }
  const bytes = await readBoundedBytes(response, {
    maxBytes: bounds.maxBytes,
    signal,
    errors: {
      tooLarge: (max) =>
        new PlatformError(platform, `${what}: larger than ${max} bytes; not read further`, response.status, false, undefined, undefined, "CHANNEL_RESPONSE_TOO_LARGE"),
      aborted: failed,
      failed,
    },
  });
  return { status: response.status, ok: response.ok, bytes };
}
