import type { AgentHost } from "../agent/index.ts";
import type { GatewayConfig } from "../config/schema.ts";
import type { Logger } from "../core/logger.ts";
import type { AccessLog } from "./access-log.ts";
import type { IdempotencyStore, Storage, TokenStore } from "../storage/types.ts";
import type { AuthService } from "./auth/service.ts";
import type { PairingLockout } from "./auth/types.ts";
import type { GatewayElysia } from "./elysia.ts";
import type { GatewayMetrics } from "./metrics.ts";
import type { RateLimiterApi } from "./middleware/types.ts";
import type { ModelTable } from "./openai/models.ts";
import type { TurnTracker } from "./turn-tracker.ts";

export type { RateDecision, RateLimiterApi } from "./middleware/types.ts";

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
  | "compactSession"
  | "usage"
  | "agents"
> &
  Partial<Pick<AgentHost, "tracer">> & {
  /** The workspace's stores; with PostgreSQL, tokens and idempotency keys are shared by every replica. */
  storage: Pick<Storage, "backend" | "tokens" | "gatewayPairing" | "idempotency" | "responses" | "ping">;
};

/**
 * What replicas of one deployment share beyond the database: rate limits and the lockouts of clients sending wrong
 * pairing codes (the code and its budget of wrong guesses are in the database).
 */
export interface GatewayShared {
  pairingLockout?: PairingLockout;
  rateLimiter?(scope: "client" | "token", perMinute: number): RateLimiterApi;
}

/** Milliseconds since the epoch; tests pass a fake clock. */
export type Clock = () => number;

export interface HealthCheck {
  ok: boolean;
  detail?: string;
}

/**
 * A route group: called when the app is built, it adds its routes to the gateway's one route table. Mounted routes
 * sit behind the same middleware: request id, access log, metrics, rate limits and bearer auth (a route declared
 * with the route option `auth: false` is public).
 * Example: `(app) => app.post("/api/x", ({ body, prx }) => ..., { body: routeSchema(...), parse: jsonParser(n), detail: doc({...}) })`.
 */
export type GatewayMount = (app: GatewayElysia, gateway: GatewayContext) => unknown;

/** What route handlers share: the deps, normalised, plus the gateway's own state. */
export interface GatewayContext {
  host: GatewayHost;
  auth: AuthService<TokenStore>;
  /** `[gateway]` in effect now: a config reload changes every key but the listen address (config/changes.ts). */
  readonly config: GatewayConfig;
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
  /**
   * What the API reference waits for before it builds its document: route groups whose docs take schemas from a
   * module loaded on first use add its loader when they are mounted.
   */
  beforeDocument: Array<() => Promise<unknown>>;
  /** Created on first use: most gateways never see a webhook. */
  idempotency(): IdempotencyStore;
}

export interface GatewayDeps {
  host: GatewayHost;
  auth: AuthService<TokenStore>;
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
