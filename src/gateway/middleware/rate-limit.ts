import { then, type Awaitable } from "../../core/awaitable.ts";
import { PrxError } from "../../core/errors.ts";
import { withRequestState } from "./state.ts";
import type { RateDecision, RateLimiterApi, RequestState } from "./types.ts";

export interface RateLimitOptions {
  /** "client" limits each client address; "token" each bearer token (after bearer auth, so it knows the token). */
  scope: "client" | "token";
  limiter: RateLimiterApi;
  /** Paths this limit never counts (the load balancer's /health probes). */
  exempt?: readonly string[];
}

const SETTING = { client: "gateway.rate_limit_per_minute", token: "gateway.rate_limit_per_token_per_minute" } as const;

function keyOf(scope: RateLimitOptions["scope"], state: RequestState): string | undefined {
  if (scope === "client") return state.client;
  return state.credential.kind === "token" ? state.credential.id : undefined;
}

function refusal(scope: RateLimitOptions["scope"], state: RequestState, perMinute: number, retryAfterS: number): PrxError {
  const who = scope === "client" ? state.client : `token "${state.credential.name}"`;
  return new PrxError("RATE_LIMITED", `rate limit of ${perMinute} requests per minute exceeded for ${who}`, {
    hint: `slow down or raise ${SETTING[scope]}`,
    details: { retryAfterS },
  });
}

/**
 * A token-bucket limit before routing: over it, the request is refused with 429 and Retry-After. Synchronous with
 * this process's buckets; a limit shared in Redis answers later, and the request waits for it.
 */
export function rateLimit({ scope, limiter, exempt = [] }: RateLimitOptions) {
  const skip = new Set(exempt);
  return withRequestState(`prx-rate-limit-${scope}`).onRequest(function limitRate({ prx }): Awaitable<void> {
    const key = keyOf(scope, prx);
    if (key === undefined || skip.has(prx.path)) return;
    return then(limiter.take(key), (decision: RateDecision) => {
      if (!decision.ok) throw refusal(scope, prx, limiter.perMinute, decision.retryAfterS);
    });
  });
}
