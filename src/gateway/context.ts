import type { GatewayConfig } from "../config/schema.ts";
import { createLogger, type Logger } from "../core/logger.ts";
import { loggerAccessLog, type AccessLog } from "./access-log.ts";
import type { IdempotencyStore, TokenStore } from "../storage/types.ts";
import type { AuthService, PairingGateApi } from "./auth/service.ts";
import { GatewayMetrics } from "./metrics.ts";
import { buildModelTable, type ModelTable } from "./openai/models.ts";
import { RateLimiter } from "./rate-limit.ts";
import { TurnTracker } from "./turn-tracker.ts";
import type { Clock, GatewayDeps, GatewayHost, HealthCheck, RateLimiterApi } from "./types.ts";

/** What route handlers share: the deps, normalised, plus the gateway's own state. */
export interface GatewayContext {
  host: GatewayHost;
  auth: AuthService<TokenStore, PairingGateApi>;
  config: GatewayConfig;
  metrics: GatewayMetrics;
  now: Clock;
  version: string;
  startedAt: number;
  logger: Logger;
  accessLog: AccessLog;
  turns: TurnTracker;
  clientLimiter: RateLimiterApi;
  tokenLimiter: RateLimiterApi;
  checks: Record<string, () => HealthCheck | Promise<HealthCheck>>;
  /** The model names the OpenAI-compatible API answers to (a bad `[gateway] model_aliases` entry fails the start). */
  models: ModelTable;
  /** The client's address (rate limits, pairing lockout): the server's peer address, or LOCAL_CLIENT for app.handle. */
  clientAddress(request: Request, server: Bun.Server<unknown> | null): string;
  /**
   * Sections of the live status stream (GET /api/status/stream) beyond the gateway's own: mounted route groups add
   * theirs (plugins, cron, events, channels). Each is read once per tick.
   */
  live: Map<string, () => unknown>;
  /** Created on first use: most gateways never see a webhook. */
  idempotency(): IdempotencyStore;
}

export function buildContext(deps: GatewayDeps): GatewayContext {
  const now = deps.clock ?? Date.now;
  const config = deps.host.config.gateway;
  const logger = deps.logger ?? createLogger("gateway");
  const limiter = (scope: "client" | "token", perMinute: number): RateLimiterApi =>
    deps.shared?.rateLimiter?.(scope, perMinute) ?? new RateLimiter(perMinute, now);
  const storage = deps.host.storage;
  return {
    host: deps.host,
    auth: deps.auth,
    config,
    metrics: deps.metrics ?? new GatewayMetrics(),
    now,
    version: deps.version,
    startedAt: deps.startedAt,
    logger,
    accessLog: deps.accessLog ?? loggerAccessLog(createLogger("gateway.access")),
    turns: new TurnTracker(),
    clientLimiter: limiter("client", config.rate_limit_per_minute),
    tokenLimiter: limiter("token", config.rate_limit_per_token_per_minute),
    checks: deps.checks ?? {},
    models: buildModelTable(deps.host.config, deps.host.resolveModelChoice({})),
    clientAddress: deps.clientAddress ?? peerAddress,
    live: new Map(),
    idempotency: () => storage.idempotency,
  };
}

/** What the access log and the limits call a request handed to app.handle directly (no socket). */
export const LOCAL_CLIENT = "local";

function peerAddress(request: Request, server: Bun.Server<unknown> | null): string {
  return server?.requestIP(request)?.address ?? LOCAL_CLIENT;
}
