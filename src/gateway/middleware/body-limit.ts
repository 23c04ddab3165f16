import { tooLarge } from "../body.ts";
import { withRequestState } from "./state.ts";

export interface BodyLimitOptions {
  /** The largest Content-Length accepted (read per request: the config's `gateway.max_body_bytes`). */
  maxBytes(): number;
}

/**
 * Refuses a declared body over the limit with 413 before routing, so it is never read. Bodies without a length are
 * counted as they stream by the route's parser (body.ts), which may also set a route's own limit.
 */
export function bodyLimit({ maxBytes }: BodyLimitOptions) {
  return withRequestState("prx-body-limit").onRequest(function limitBody({ request }) {
    const declared = request.headers.get("content-length");
    const limit = maxBytes();
    if (declared !== null && Number(declared) > limit) throw tooLarge(declared, limit);
  });
}
