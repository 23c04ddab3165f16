import { Elysia, type AnyElysia } from "elysia";
import { keepRawBody } from "./body.ts";
import { buildGatewayCore, type GatewayCore } from "./core.ts";
import { routeMethods } from "./route-methods.ts";
import { healthRoutes } from "./routes/health.ts";
import { memoryRoutes } from "./routes/memory.ts";
import { metricsRoutes } from "./routes/metrics.ts";
import { openaiRoutes } from "./routes/openai.ts";
import { pairRoutes } from "./routes/pair.ts";
import { sessionRoutes } from "./routes/sessions.ts";
import { statusRoutes } from "./routes/status.ts";
import { swaggerRoutes } from "./routes/swagger.ts";
import { transferRoutes } from "./routes/transfer.ts";
import { webhookRoutes } from "./routes/webhook.ts";
import type { GatewayDeps } from "./types.ts";

export type { NativeRoutes } from "./core.ts";

export interface GatewayApp extends GatewayCore {
  app: AnyElysia;
}

/**
 * The gateway as an Elysia app that is not listening yet: `app.handle(request)` serves one request (tests),
 * `startGateway` puts it behind Bun.serve. Every route, mounted ones included, goes through the pipeline.
 */
export function buildGateway(deps: GatewayDeps): GatewayApp {
  const core = buildGatewayCore(deps);
  return { ...core, app: buildElysiaApp(core, deps) };
}

/** Every route of the gateway on Elysia, around an existing core (its context and pipeline). */
export function buildElysiaApp({ context: gw, pipeline }: GatewayCore, deps: Pick<GatewayDeps, "mounts">): AnyElysia {
  // Elysia's ahead-of-time handlers (aot, its default) serve /health ~1.8x faster than its dynamic mode (measured
  // with wrk); their one-off compilation on a route's first request no longer delays the first /health, which
  // Bun.serve routes natively.
  const app: AnyElysia = new Elysia({ name: "prx-gateway" })
    .onRequest(({ request }) => pipeline.before(request))
    // Routes read their own bodies with readJsonBody (415/413/400 handled there): Elysia must not consume them.
    .onParse({ as: "global" }, keepRawBody)
    .onAfterHandle({ as: "global" }, ({ request, route, responseValue, set }) =>
      pipeline.handled(request, route, responseValue, set),
    )
    .onError({ as: "global" }, ({ request, code, error, route }) =>
      pipeline.onError(request, String(code), error, route),
    );
  for (const register of [
    healthRoutes,
    metricsRoutes,
    pairRoutes,
    statusRoutes,
    sessionRoutes,
    memoryRoutes,
    transferRoutes,
    webhookRoutes,
    openaiRoutes,
    swaggerRoutes,
  ]) {
    register(app, gw);
  }
  for (const mount of deps.mounts ?? []) mount(app);
  pipeline.useRoutes(routeMethods(app.routes));
  return app;
}

export function createGatewayApp(deps: GatewayDeps): AnyElysia {
  return buildGateway(deps).app;
}
