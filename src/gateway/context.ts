import { createLogger } from "../core/logger.ts";
import { LOCAL_CLIENT, peerOf } from "./front/index.ts";
import { loggerAccessLog } from "./access-log.ts";
import { GatewayMetrics } from "./metrics.ts";
import { buildModelTable } from "./openai/models.ts";
import { LiveRateLimiter } from "./live-rate-limit.ts";
import { RateLimiter } from "./rate-limit.ts";
import { TurnTracker } from "./turn-tracker.ts";
import type { GatewayContext, GatewayDeps, RateLimiterApi } from "./types.ts";

export type { GatewayContext } from "./types.ts";

export function buildContext(deps: GatewayDeps): GatewayContext {
  const now = deps.clock ?? Date.now;
  // the configuration in effect: a reload swaps the host's, and every [gateway] key but the listen address follows it
  const config = () => deps.host.config.gateway;
  const logger = deps.logger ?? createLogger("gateway");
  const limiter = (scope: "client" | "token", perMinute: () => number): RateLimiterApi =>
    new LiveRateLimiter(perMinute, (limit) => deps.shared?.rateLimiter?.(scope, limit) ?? new RateLimiter(limit, now));
  const storage = deps.host.storage;
  return {
    host: deps.host,
    auth: deps.auth,
    get config() {
      return config();
    },
    metrics: deps.metrics ?? new GatewayMetrics(),
    now,
    version: deps.version,
    startedAt: deps.startedAt,
    logger,
    accessLog: deps.accessLog ?? loggerAccessLog(createLogger("gateway.access")),
    turns: new TurnTracker(),
    clientLimiter: limiter("client", () => config().rate_limit_per_minute),
    tokenLimiter: limiter("token", () => config().rate_limit_per_token_per_minute),
    checks: deps.checks ?? {},
    models: buildModelTable(deps.host.config, deps.host.resolveModelChoice({}), () => deps.host.providers.pluginNames?.() ?? []),
    clientAddress: deps.clientAddress ?? peerAddress,
    live: new Map(),
    beforeDocument: [],
    idempotency: () => storage.idempotency,
  };
}

export { LOCAL_CLIENT };

/** The address the front recorded for the request's socket; else the server's, else "local" (app.handle). */
function peerAddress(request: Request, server: Bun.Server<unknown> | null): string {
  return peerOf(request) ?? server?.requestIP(request)?.address ?? LOCAL_CLIENT;
}
