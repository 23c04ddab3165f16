import type { AgentHost } from "../agent/index.ts";
import type { Logger } from "../core/logger.ts";
import type { AccessLog } from "./access-log.ts";
import type { Storage, TokenStore } from "../storage/types.ts";
import type { AuthService, PairingGateApi } from "./auth/service.ts";
import type { GatewayContext } from "./context.ts";
import type { GatewayElysia } from "./elysia.ts";
import type { GatewayMetrics } from "./metrics.ts";

/** The part of the agent host the gateway uses (an AgentHost satisfies it). */
export type GatewayHost = Pick<
  AgentHost,
  | "workspace"
  | "config"
  | "providers"
  | "memory"
  | "tools"
  | "sessions"
  | "runTurn"
  | "resolveModelChoice"
  | "deleteSession"
> & {
  /** The workspace's stores; with PostgreSQL, tokens and idempotency keys are shared by every replica. */
  storage: Pick<Storage, "backend" | "tokens" | "idempotency" | "ping">;
};

export type RateDecision = { ok: true } | { ok: false; retryAfterS: number };

/** A token bucket per key: this process's (rate-limit.ts) or one every replica shares. */
export interface RateLimiterApi {
  readonly perMinute: number;
  take(key: string): RateDecision | Promise<RateDecision>;
}

/** What replicas of one deployment share beyond the database: rate limits and the pairing code with its lockouts. */
export interface GatewayShared {
  pairing?: PairingGateApi;
  rateLimiter?(scope: "client" | "token", perMinute: number): RateLimiterApi;
}

/** Milliseconds since the epoch; tests pass a fake clock. */
export type Clock = () => number;

export interface HealthCheck {
  ok: boolean;
  detail?: string;
}

/**
 * Adds routes to the gateway's one route table. Mounted routes sit behind the same request pipeline: request id,
 * access log, metrics, rate limits and bearer auth (a route whose doc says `auth: false` is public).
 * Example: `(app) => app.post("/api/x", ({ body, prx }) => ..., { body: routeSchema(...), parse: jsonParser(n), detail: doc({...}) })`.
 */
export type GatewayMount = (app: GatewayElysia, gateway: GatewayContext) => unknown;

export interface GatewayDeps {
  host: GatewayHost;
  auth: AuthService<TokenStore, PairingGateApi>;
  version: string;
  /** Epoch ms when the gateway started (for uptime). */
  startedAt: number;
  metrics?: GatewayMetrics;
  clock?: Clock;
  logger?: Logger;
  /** Extra readiness checks shown by /health (plugins, channels). A failing one makes /health 503. */
  checks?: Record<string, () => HealthCheck | Promise<HealthCheck>>;
  /** Extension point for the plugin subsystem (/api/plugins*, /api/hooks, /plugins/<name>/*). */
  mounts?: GatewayMount[];
  /**
   * Client address of a request, for rate limits and pairing lockout. Default: the address the server
   * recorded (server.requestIP), or "local" for requests handed to app.handle directly.
   */
  clientAddress?: (request: Request, server: Bun.Server<unknown> | null) => string;
  /** One line per request. Default: INFO lines of the "gateway.access" logger; startGateway prints them always. */
  accessLog?: AccessLog;
  /** Rate limits shared by replicas (default: this process's own buckets). */
  shared?: GatewayShared;
}
