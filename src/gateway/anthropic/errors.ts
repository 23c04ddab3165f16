import type { PrxError } from "../../core/errors.ts";

/** Routes under this prefix speak Anthropic's Messages wire, errors included. */
export const ANTHROPIC_PATH_PREFIX = "/v1/messages";

export function isAnthropicPath(path: string): boolean {
  return path === ANTHROPIC_PATH_PREFIX || path.startsWith(`${ANTHROPIC_PATH_PREFIX}/`);
}

/**
 * The status Anthropic's API would answer: 4xx as they are; of the 5xx, 503 (not ready, shutting down) is its 529
 * overloaded_error and every other one its 500 api_error (a provider's failure included: Anthropic never answers
 * 502 or 504). Its SDKs retry both.
 */
export function anthropicStatus(status: number): number {
  if (status < 500) return status;
  return status === 503 ? 529 : 500;
}

/** Anthropic's error type for an HTTP status (https://docs.anthropic.com/en/api/errors). */
export function anthropicErrorType(status: number): string {
  switch (status) {
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 503:
    case 529:
      return "overloaded_error";
    default:
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

/**
 * An error as Anthropic's API shapes it: `{"type": "error", "error": {"type", "message"}, "request_id"}`. The
 * message carries prx's hint after it (Anthropic's body has no place of its own for one).
 */
export function anthropicErrorBody(error: PrxError, status: number, requestId: string | null) {
  const message = error.hint ? `${error.message} (${error.hint})` : error.message;
  return { type: "error" as const, error: { type: anthropicErrorType(status), message }, request_id: requestId };
}
