import { REQUEST_ID_MAX_CHARS } from "./limits.ts";

const REQUEST_ID_RE = /^[\x21-\x7e]+$/;

/** The client's `X-Request-Id` when it is printable ASCII of a sane length, else a fresh UUID. */
export function requestIdOf(request: Request): string {
  const given = request.headers.get("x-request-id");
  return given && given.length <= REQUEST_ID_MAX_CHARS && REQUEST_ID_RE.test(given) ? given : crypto.randomUUID();
}
