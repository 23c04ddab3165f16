import { PrxError, type ErrorCode } from "../core/errors.ts";

/** A platform API call failed; `retryable` says whether backing off and trying again may help. */
export class PlatformError extends PrxError {
  constructor(
    readonly platform: string,
    message: string,
    readonly httpStatus: number | null,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
    cause?: unknown,
    /** CHANNEL_RESPONSE_TOO_LARGE or CHANNEL_TIMEOUT when a cap of platform-request.ts stopped the call. */
    code: Extract<ErrorCode, "CHANNEL_PLATFORM" | "CHANNEL_RESPONSE_TOO_LARGE" | "CHANNEL_TIMEOUT"> = "CHANNEL_PLATFORM",
  ) {
    super(code, `${platform}: ${message}`, {
      cause,
      details: { platform },
      hint: retryable
        ? "the platform is unavailable or rate limiting; the channel retries with backoff"
        : "check the channel's token and api_base_url in config.toml, and the platform's answer above",
    });
  }
}

/** Whether an HTTP status is worth retrying (rate limits and server errors). */
export function retryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}
