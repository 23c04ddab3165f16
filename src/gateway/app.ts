import { buildContext, type GatewayContext } from "./context.ts";
import { gatewayElysia, type GatewayElysia } from "./elysia.ts";
import { routeTable, type RouteTable } from "./route-table.ts";
import { anthropicRoutes } from "./routes/anthropic.ts";
import { authRoutes } from "./routes/auth.ts";
import { configRoutes } from "./routes/config.ts";
import { consoleRoutes } from "./routes/console.ts";
import { embeddingsRoutes } from "./routes/embeddings.ts";
import { healthRoutes } from "./routes/health.ts";
import { memoryRoutes } from "./routes/memory.ts";
import { metricsRoutes } from "./routes/metrics.ts";
import { openaiRoutes } from "./routes/openai.ts";
import { pairRoutes } from "./routes/pair.ts";
import { providerRoutes } from "./routes/providers.ts";
import { responsesRoutes } from "./routes/responses.ts";
import { sessionRoutes } from "./routes/sessions.ts";
import { usageRoutes } from "./routes/usage.ts";
import { agentsRoutes } from "./routes/agents.ts";
import { statusStreamRoutes } from "./routes/status-stream.ts";
import { statusRoutes } from "./routes/status.ts";
import { swaggerRoutes } from "./routes/swagger.ts";
import { transferRoutes } from "./routes/transfer.ts";
import { webhookRoutes } from "./routes/webhook.ts";
import type { GatewayDeps } from "./types.ts";

export interface GatewayApp {
  /** Every route of the gateway (built-in, mounted, the console's assets) on one Elysia app. */
  app: GatewayElysia;
  context: GatewayContext;
  routes: RouteTable;
}

/**
 * The gateway as one Elysia app that is not listening yet: `app.handle(request)` serves one request (tests),
 * `startGateway` listens with it. Every route, mounted ones included, goes through the middleware (elysia.ts); each
 * route's schema validates its body, types its handler and documents it (/swagger/json is built from this table).
 */
export function buildGateway(deps: GatewayDeps): GatewayApp {
  const context = buildContext(deps);
  return { ...gatewayRoutes(context, deps.mounts), context };
}

/**
 * The route table of a gateway whose context exists: built-in route groups, then the mounts, on one Elysia app.
 * `server`: the server the app's fetch is served by (its peer addresses are the clients); default Elysia's own.
 */
export function gatewayRoutes(
  context: GatewayContext,
  mounts: GatewayDeps["mounts"],
  server?: () => Bun.Server<unknown> | null,
): Omit<GatewayApp, "context"> {
  const routes = routeTable();
  const app: GatewayElysia = gatewayElysia({ gw: context, routes, server: server ?? (() => app.server) });
  for (const register of [
    healthRoutes,
    metricsRoutes,
    pairRoutes,
    authRoutes,
    statusRoutes,
    statusStreamRoutes,
    providerRoutes,
    configRoutes,
    sessionRoutes,
    usageRoutes,
    agentsRoutes,
    memoryRoutes,
    transferRoutes,
    webhookRoutes,
    openaiRoutes,
    anthropicRoutes,
    embeddingsRoutes,
    responsesRoutes,
    consoleRoutes,
    swaggerRoutes,
  ]) {
    register(app, context);
  }
  for (const mount of mounts ?? []) mount(app, context);
  routes.load(app.routes);
  return { app, routes };
}
