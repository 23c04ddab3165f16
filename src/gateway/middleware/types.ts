import type { Logger } from "../../core/logger.ts";
import type { AccessLog } from "../access-log.ts";
import type { AuthService, Credential } from "../auth/service.ts";
import type { GatewayMetrics } from "../metrics.ts";

/** The typed per-request state every route handler reads as `prx` (filled in by the middleware, in order). */
export interface RequestState {
  id: string;
  start: number;
  path: string;
  client: string;
  /** Who the request authenticated as (OPEN_CREDENTIAL on public routes and when auth is off). */
  credential: Credential;
  /** True once the request has been recorded (metrics, access log): a request is recorded once. */
  done: boolean;
}

export type RateDecision = { ok: true } | { ok: false; retryAfterS: number };

/** A token bucket per key: this process's (gateway/rate-limit.ts) or one every replica shares. */
export interface RateLimiterApi {
  readonly perMinute: number;
  take(key: string): RateDecision | Promise<RateDecision>;
}

/** Records one answered request: its metrics and its access-log line (`route` is the metrics label). */
export type RecordRequest = (request: Request, state: RequestState, route: string, status: number) => void;

/** What the gateway's middleware take from its context. */
export interface MiddlewareDeps {
  auth: Pick<AuthService, "authenticate">;
  config: { max_body_bytes: number };
  metrics: Pick<GatewayMetrics, "request">;
  accessLog: AccessLog;
  logger: Pick<Logger, "error" | "warn" | "debug">;
  clientLimiter: RateLimiterApi;
  tokenLimiter: RateLimiterApi;
  clientAddress(request: Request, server: Bun.Server<unknown> | null): string;
}
